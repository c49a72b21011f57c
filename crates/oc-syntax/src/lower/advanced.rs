//! The advanced rules' blocks beside `courage` (seed 003's "Leadership", "Special Combat
//! Situations", "Weather"), pest pairs to the syntax tree.

use super::*;

impl Ctx {
    pub(super) fn leadership_block(&self, pair: Pair<Rule>) -> LeadershipDef {
        let mut l = LeadershipDef { doc: None, general: vec![], beyond: vec![], save: vec![], span: self.span(&pair) };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => self.doc_once(&mut l.doc, p),
                Rule::leadership_general => {
                    l.general.extend(p.into_inner().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)))
                }
                Rule::leadership_beyond => {
                    let inner: Vec<Pair<Rule>> = p.into_inner().collect();
                    let n = inner.iter().find(|q| q.as_rule() == Rule::int).map(|q| self.int(q));
                    let status = inner.iter().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(q));
                    if let (Some(n), Some(status)) = (n, status) {
                        l.beyond.push((n, status));
                    }
                }
                Rule::leadership_save => l.save.extend(p.into_inner().find(|x| x.as_rule() == Rule::expr).map(|x| self.expr(x))),
                _ => {}
            }
        }
        l
    }

    pub(super) fn situations_block(&self, pair: Pair<Rule>) -> SituationsDef {
        let mut s = SituationsDef {
            doc: None,
            ground: vec![],
            flank: vec![],
            rear: vec![],
            blind: vec![],
            flying: vec![],
            mixed: vec![],
            span: self.span(&pair),
        };
        for p in pair.into_inner() {
            let rule = p.as_rule();
            let name = p.clone().into_inner().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q));
            match rule {
                Rule::doc => self.doc_once(&mut s.doc, p),
                Rule::situation_ground => s.ground.extend(name),
                Rule::situation_flank => s.flank.extend(name),
                Rule::situation_rear => s.rear.extend(name),
                Rule::situation_blind => s.blind.extend(name),
                Rule::situation_mixed => s.mixed.extend(name),
                Rule::situation_flying => {
                    let names: Vec<Ident> =
                        p.into_inner().filter(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)).collect();
                    if let [tag, status] = names.as_slice() {
                        s.flying.push((tag.clone(), status.clone()));
                    }
                }
                _ => {}
            }
        }
        s
    }

    pub(super) fn area_block(&self, pair: Pair<Rule>) -> AreaDef {
        let mut a = AreaDef { doc: None, within: vec![], span: self.span(&pair) };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => self.doc_once(&mut a.doc, p),
                Rule::area_within => a.within.extend(p.into_inner().find(|x| x.as_rule() == Rule::expr).map(|x| self.expr(x))),
                _ => {}
            }
        }
        a
    }

    pub(super) fn charging_block(&self, pair: Pair<Rule>) -> ChargingDef {
        let mut c = ChargingDef { doc: None, with: vec![], span: self.span(&pair) };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => self.doc_once(&mut c.doc, p),
                Rule::charging_with => c.with.extend(p.into_inner().find(|x| x.as_rule() == Rule::expr).map(|x| self.expr(x))),
                _ => {}
            }
        }
        c
    }

    pub(super) fn formations_block(&self, pair: Pair<Rule>) -> FormationsDef {
        let mut f = FormationsDef { doc: None, tags: vec![], span: self.span(&pair) };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => self.doc_once(&mut f.doc, p),
                Rule::formation_tags => {
                    f.tags.extend(p.into_inner().filter(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)))
                }
                _ => {}
            }
        }
        f
    }

    pub(super) fn weather_block(&self, pair: Pair<Rule>) -> Option<WeatherDef> {
        let span = self.span(&pair);
        let mut dice = None;
        let mut w = WeatherDef { doc: None, dice: Spanned::new(Name::default(), span), faces: vec![], span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => dice = Some(self.ident(&p)),
                Rule::doc => self.doc_once(&mut w.doc, p),
                Rule::weather_face => {
                    let inner: Vec<Pair<Rule>> = p.into_inner().collect();
                    let n = inner.iter().find(|q| q.as_rule() == Rule::int).map(|q| self.int(q));
                    let status = inner.iter().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(q));
                    if let (Some(n), Some(status)) = (n, status) {
                        w.faces.push((n, status));
                    }
                }
                _ => {}
            }
        }
        w.dice = dice?;
        Some(w)
    }
}
