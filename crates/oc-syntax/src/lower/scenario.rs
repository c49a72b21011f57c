//! Scenarios and armies, pest pairs to the syntax tree: sides, their zones, limits and win
//! conditions, and the armies written for them.

use super::*;

impl Ctx {
    pub(super) fn scenario(&self, pair: Pair<Rule>) -> ScenarioDef {
        let span = self.span(&pair);
        let mut s = ScenarioDef {
            name: Spanned::new(Name::default(), span),
            title: None,
            doc: None,
            maps: vec![],
            regions: vec![],
            rounds: vec![],
            deploy_first: vec![],
            deploy_edges: vec![],
            deploy_alternate: vec![],
            chests: vec![],
            fogs: vec![],
            advanced: vec![],
            sides: vec![],
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => s.name = self.ident(&p),
                Rule::string => s.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut s.doc, p),
                Rule::sc_map => s.maps.extend(self.first_string(p)),
                Rule::sc_regions => {
                    s.regions.extend(p.into_inner().filter(|q| q.as_rule() == Rule::string).map(|q| self.string(&q)))
                }
                Rule::sc_rounds => {
                    let mut n = None;
                    let mut then = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::int => n = Some(self.int(&q)),
                            Rule::outcome => then = Some(self.ident(&q)),
                            _ => {}
                        }
                    }
                    if let Some(n) = n {
                        s.rounds.push((n, then));
                    }
                }
                Rule::sc_deploy => {
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::side_word => s.deploy_first.push(self.ident(&q)),
                            Rule::deploy_edges => {
                                s.deploy_edges.extend(q.into_inner().find(|r| r.as_rule() == Rule::name).map(|r| self.ident(&r)))
                            }
                            Rule::deploy_alternate => s.deploy_alternate.extend(self.first_int(q)),
                            _ => {}
                        }
                    }
                }
                Rule::sc_side => s.sides.push(self.side(p)),
                Rule::sc_advanced => {
                    s.advanced.extend(p.into_inner().filter(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)));
                }
                Rule::sc_fog => {
                    let span = self.span(&p);
                    s.fogs.push((span, self.first_int(p)));
                }
                Rule::sc_chest => {
                    let span = self.span(&p);
                    let inner: Vec<Pair<Rule>> = p.into_inner().collect();
                    let ints: Vec<Spanned<i64>> =
                        inner.iter().filter(|q| q.as_rule() == Rule::int).map(|q| self.int(q)).collect();
                    let item = inner.iter().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(q));
                    if let ([x, y], Some(item)) = (ints.as_slice(), item) {
                        s.chests.push(ScenarioChest { at: (x.clone(), y.clone()), item, span });
                    }
                }
                _ => {}
            }
        }
        s
    }

    pub(super) fn side(&self, pair: Pair<Rule>) -> SideDef {
        let span = self.span(&pair);
        let mut d = SideDef {
            side: Spanned::new(Name::default(), span),
            doc: None,
            zones: vec![],
            war_chests: vec![],
            units: vec![],
            limits: vec![],
            grants: vec![],
            allow_classes: vec![],
            allow_items: vec![],
            ban_classes: vec![],
            ban_items: vec![],
            wins: vec![],
            span,
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::side_word => d.side = self.ident(&p),
                Rule::doc => self.doc_once(&mut d.doc, p),
                Rule::sd_zone => d.zones.extend(self.first_string(p)),
                Rule::sd_war_chest => d.war_chests.extend(self.first_int(p)),
                Rule::sd_units => {
                    let ints: Vec<Spanned<i64>> =
                        p.into_inner().filter(|q| q.as_rule() == Rule::int).map(|q| self.int(&q)).collect();
                    if let [lo, hi] = ints.as_slice() {
                        d.units.push((lo.clone(), hi.clone()));
                    }
                }
                Rule::sd_limit | Rule::sd_each => {
                    let each = p.as_rule() == Rule::sd_each;
                    let mut points = each;
                    let mut selector = each.then_some(Selector::Each(pspan));
                    let mut at_least = false;
                    let mut num = None;
                    let mut den = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::limit_kind => at_least = q.as_str() == "at_least",
                            Rule::kw_points => points = true,
                            Rule::amount => {
                                let mut ints = q.into_inner().filter(|r| r.as_rule() == Rule::int).map(|r| self.int(&r));
                                num = ints.next();
                                den = ints.next();
                            }
                            Rule::selector => {
                                let sspan = self.span(&q);
                                let mut inner = q.into_inner();
                                let kw = inner.next();
                                let name = inner.find(|r| r.as_rule() == Rule::name).map(|r| self.ident(&r));
                                selector = match (kw.map(|k| k.as_rule()), name) {
                                    (Some(Rule::kw_with), Some(n)) => Some(Selector::With(n)),
                                    (Some(Rule::kw_class), Some(n)) => Some(Selector::Class(n)),
                                    (Some(Rule::kw_wielding), Some(n)) => Some(Selector::Wielding(n)),
                                    _ => Some(Selector::Ranged(sspan)),
                                };
                            }
                            _ => {}
                        }
                    }
                    if let (Some(num), Some(selector)) = (num, selector) {
                        d.limits.push(LimitDef { at_least, num, den, points, selector, span: pspan });
                    }
                }
                Rule::sd_grant => {
                    let name = p.clone().into_inner().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q));
                    if let (Some(name), Some(n)) = (name, self.first_int(p)) {
                        d.grants.push((name, n));
                    }
                }
                Rule::sd_allow | Rule::sd_ban => {
                    let ban = p.as_rule() == Rule::sd_ban;
                    let items = p.clone().into_inner().any(|q| q.as_rule() == Rule::allow_kind && q.as_str() == "items");
                    let names = self.names(p);
                    match (ban, items) {
                        (false, false) => d.allow_classes.extend(names),
                        (false, true) => d.allow_items.extend(names),
                        (true, false) => d.ban_classes.extend(names),
                        (true, true) => d.ban_items.extend(names),
                    }
                }
                Rule::sd_win => {
                    if let Some(c) = p.into_inner().find(|q| q.as_rule() == Rule::cond).and_then(|q| self.cond(q)) {
                        d.wins.push(c);
                    }
                }
                _ => {}
            }
        }
        d
    }

    /// `a or b and c`: `and` binds tighter than `or`, both associate to the left.
    pub(super) fn cond(&self, pair: Pair<Rule>) -> Option<Cond> {
        let mut terms: Vec<Cond> = Vec::new();
        let mut ops: Vec<bool> = Vec::new(); // true: and
        for p in pair.into_inner() {
            if p.as_rule() == Rule::cond_op {
                ops.push(p.as_str() == "and");
            } else {
                terms.push(self.cond_term(p)?);
            }
        }
        // Fold the `and`s first, then the `or`s.
        let mut terms = terms.into_iter();
        let mut ors: Vec<Cond> = vec![terms.next()?];
        for (is_and, t) in ops.into_iter().zip(terms) {
            if is_and {
                let last = ors.pop()?;
                ors.push(Cond::And(Box::new(last), Box::new(t)));
            } else {
                ors.push(t);
            }
        }
        let mut ors = ors.into_iter();
        let first = ors.next()?;
        Some(ors.fold(first, |a, b| Cond::Or(Box::new(a), Box::new(b))))
    }

    pub(super) fn cond_term(&self, pair: Pair<Rule>) -> Option<Cond> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let inner: Vec<Pair<Rule>> = pair.into_inner().collect();
        let int = || inner.iter().find(|q| q.as_rule() == Rule::int).map(|q| self.int(q));
        let string = || inner.iter().find(|q| q.as_rule() == Rule::string).map(|q| self.string(q));
        Some(match rule {
            Rule::cond_not => {
                Cond::Not(Box::new(self.cond_term(inner.into_iter().find(|q| q.as_rule() != Rule::kw_not)?)?), span)
            }
            Rule::cond_paren => self.cond(inner.into_iter().find(|q| q.as_rule() == Rule::cond)?)?,
            Rule::c_seize => Cond::Seize(string()?),
            Rule::c_rout => {
                if inner.iter().any(|q| q.as_rule() == Rule::kw_all) {
                    Cond::RoutAll(span)
                } else if inner.iter().any(|q| q.as_rule() == Rule::kw_leader) {
                    Cond::RoutLeader(span)
                } else if let Some(n) = int() {
                    Cond::RoutCount(n)
                } else {
                    Cond::RoutUnit(string()?)
                }
            }
            Rule::c_escape => Cond::Escape(int()?, string()?),
            Rule::c_defend => Cond::Defend(string()?, int()?),
            Rule::c_survive => Cond::Survive(int()?),
            Rule::c_raze => Cond::Raze(int()?, string()?),
            _ => return None,
        })
    }

    pub(super) fn army(&self, pair: Pair<Rule>) -> ArmyDef {
        let span = self.span(&pair);
        let mut a = ArmyDef {
            name: Spanned::new(Name::default(), span),
            title: None,
            doc: None,
            scenario: Spanned::new(Name::default(), span),
            side: Spanned::new(Name::default(), span),
            units: vec![],
            span,
        };
        let mut names = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name if names == 0 => {
                    a.name = self.ident(&p);
                    names += 1;
                }
                Rule::name => a.scenario = self.ident(&p),
                Rule::string => a.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut a.doc, p),
                Rule::side_word => a.side = self.ident(&p),
                Rule::unit_def => {
                    let uspan = self.span(&p);
                    let mut u = UnitDef {
                        name: Spanned::new(Name::default(), uspan),
                        class: Spanned::new(Name::default(), uspan),
                        items: vec![],
                        tags: vec![],
                        figures: None,
                        joins: None,
                        span: uspan,
                    };
                    let mut n = 0;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::name if n == 0 => {
                                u.name = self.ident(&q);
                                n += 1;
                            }
                            Rule::name => u.class = self.ident(&q),
                            Rule::unit_items => u.items.extend(self.names(q)),
                            Rule::unit_tags => u.tags.extend(self.names(q)),
                            Rule::unit_figures => {
                                u.figures = q.into_inner().find(|r| r.as_rule() == Rule::int).map(|r| self.int(&r))
                            }
                            Rule::unit_joins => {
                                u.joins = q.into_inner().find(|r| r.as_rule() == Rule::name).map(|r| self.ident(&r))
                            }
                            _ => {}
                        }
                    }
                    a.units.push(u);
                }
                _ => {}
            }
        }
        a
    }
}
