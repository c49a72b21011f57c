//! The ruleset block, pest pairs to the syntax tree: scales, stats, bases, dice, tables,
//! formulas, terrain, resources, the turn structure and reactions.

use super::*;

impl Ctx {
    pub(super) fn ruleset(&self, pair: Pair<Rule>) -> Ruleset {
        let span = self.span(&pair);
        let mut rs = Ruleset {
            name: Spanned::new(Name::default(), span),
            span,
            doc: None,
            scales: vec![],
            stats: vec![],
            bases: vec![],
            class_ranges: vec![],
            inventory: vec![],
            weight_ranges: vec![],
            dice: vec![],
            tables: vec![],
            combat: vec![],
            resources: vec![],
            turns: vec![],
            reactions: vec![],
            reaction_modes: vec![],
            basic: vec![],
            courage: vec![],
            leadership: vec![],
            situations: vec![],
            weather: vec![],
            charging: vec![],
            formations: vec![],
            area: vec![],
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => rs.name = self.ident(&p),
                Rule::doc => self.doc_once(&mut rs.doc, p),
                Rule::scale_def => {
                    let mut inner = p.into_inner().filter(|q| q.as_rule() != Rule::kw_scale);
                    let Some(name) = inner.next() else { continue };
                    let name = self.ident(&name);
                    rs.scales.push(ScaleDef { name, members: inner.map(|m| self.ident(&m)).collect() });
                }
                Rule::stat_def => {
                    let mut name = None;
                    let mut ty = None;
                    let mut title = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::name => name = Some(self.ident(&q)),
                            Rule::type_ref => ty = Some(self.ident(&q)),
                            Rule::string => title = Some(unquote(&q)),
                            _ => {}
                        }
                    }
                    if let (Some(name), Some(ty)) = (name, ty) {
                        rs.stats.push(StatDef { name, ty, title });
                    }
                }
                Rule::base_def => {
                    let mut name = None;
                    let mut ty = None;
                    let mut value = None;
                    let mut title = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::name => name = Some(self.ident(&q)),
                            Rule::type_ref => ty = Some(self.ident(&q)),
                            Rule::expr => value = Some(self.expr(q)),
                            Rule::string => title = Some(unquote(&q)),
                            _ => {}
                        }
                    }
                    if let (Some(name), Some(ty), Some(value)) = (name, ty, value) {
                        rs.bases.push(BaseDef { name, ty, value, title });
                    }
                }
                Rule::class_range => {
                    let mut ty = None;
                    let mut bounds = Vec::new();
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::type_ref => ty = Some(self.ident(&q)),
                            Rule::bound => {
                                let Some(b) = q.into_inner().next() else { continue };
                                let value = if b.as_rule() == Rule::int {
                                    Bound::Int(self.int(&b).value)
                                } else {
                                    Bound::Name(Name::new(b.as_str()))
                                };
                                bounds.push(Spanned::new(value, self.span(&b)));
                            }
                            _ => {}
                        }
                    }
                    let mut bounds = bounds.into_iter();
                    if let (Some(ty), Some(low), Some(high)) = (ty, bounds.next(), bounds.next()) {
                        rs.class_ranges.push(ClassRange { ty, low, high, span: pspan });
                    }
                }
                Rule::reactions_def => {
                    if let Some(m) = p.into_inner().find(|q| q.as_rule() == Rule::reactions_mode) {
                        rs.reaction_modes.push(Spanned::new(m.as_str().to_string(), self.span(&m)));
                    }
                }
                Rule::courage_block => rs.courage.push(self.courage_block(p)),
                Rule::leadership_block => rs.leadership.push(self.leadership_block(p)),
                Rule::situations_block => rs.situations.push(self.situations_block(p)),
                Rule::weather_block => rs.weather.extend(self.weather_block(p)),
                Rule::charging_block => rs.charging.push(self.charging_block(p)),
                Rule::formations_block => rs.formations.push(self.formations_block(p)),
                Rule::area_block => rs.area.push(self.area_block(p)),
                Rule::basic_def => {
                    for q in p.into_inner().filter(|q| q.as_rule() == Rule::tag_list) {
                        rs.basic.extend(self.tag_list(q));
                    }
                }
                Rule::inventory_def => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        rs.inventory.push(self.int(&n));
                    }
                }
                Rule::weight_range => {
                    let ints: Vec<i64> =
                        p.into_inner().filter(|q| q.as_rule() == Rule::int).map(|q| self.int(&q).value).collect();
                    if let [lo, hi] = ints.as_slice() {
                        rs.weight_ranges.push(Spanned::new((*lo, *hi), pspan));
                    }
                }
                Rule::dice_def => {
                    let mut name = None;
                    let mut sum = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::name => name = Some(self.ident(&q)),
                            Rule::dice_sum => sum = Some(q),
                            _ => {}
                        }
                    }
                    if let (Some(name), Some(sum)) = (name, sum) {
                        let (terms, constant, span) = self.dice_sum(sum);
                        rs.dice.push(DiceDef { name, terms, constant, span });
                    }
                }
                Rule::table_def => rs.tables.push(self.table(p)),
                Rule::combat_block => {
                    let (mut formulas, mut gains) = (Vec::new(), Vec::new());
                    for f in p.into_inner() {
                        match f.as_rule() {
                            Rule::formula => {
                                let mut inner = f.into_inner();
                                if let (Some(n), Some(e)) = (inner.next(), inner.next()) {
                                    formulas.push(Formula { name: self.ident(&n), value: self.expr(e) });
                                }
                            }
                            Rule::combat_gain => {
                                let span = self.span(&f);
                                let mut inner = f.into_inner().filter(|q| q.as_rule() != Rule::kw_gain);
                                if let (Some(side), Some(res), Some(e)) = (inner.next(), inner.next(), inner.next()) {
                                    gains.push(GainDef {
                                        side: Spanned::new(side.as_str().to_string(), self.span(&side)),
                                        resource: self.ident(&res),
                                        value: self.expr(e),
                                        span,
                                    });
                                }
                            }
                            _ => {}
                        }
                    }
                    rs.combat.push(CombatBlock { formulas, gains, span: pspan });
                }
                Rule::resource_def => {
                    let (mut name, mut ty, mut value, mut at, mut title) = (None, None, None, None, None);
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::name => name = Some(self.ident(&q)),
                            Rule::type_ref => ty = Some(self.ident(&q)),
                            Rule::expr => value = Some(self.expr(q)),
                            Rule::event => at = Some(self.ident(&q)),
                            Rule::string => title = Some(unquote(&q)),
                            _ => {}
                        }
                    }
                    if let (Some(name), Some(ty), Some(value)) = (name, ty, value) {
                        rs.resources.push(ResourceDef { name, ty, value, at, title, span: pspan });
                    }
                }
                Rule::turn_block => rs.turns.push(self.turn_block(p)),
                Rule::reaction_def => {
                    if let Some(r) = self.reaction(p) {
                        rs.reactions.push(r);
                    }
                }
                _ => {}
            }
        }
        rs
    }

    pub(super) fn table(&self, pair: Pair<Rule>) -> TableDef {
        let span = self.span(&pair);
        let mut name = Spanned::new(Name::default(), span);
        let mut types = Vec::new();
        let mut rows = Vec::new();
        for q in pair.into_inner() {
            match q.as_rule() {
                Rule::name => name = self.ident(&q),
                Rule::type_ref => types.push(self.ident(&q)),
                Rule::table_row => {
                    let rspan = self.span(&q);
                    let mut keys = Vec::new();
                    let mut values = Vec::new();
                    for r in q.into_inner() {
                        match r.as_rule() {
                            Rule::row_key => keys.push(self.ident(&r)),
                            Rule::table_value => {
                                let Some(v) = r.into_inner().next() else { continue };
                                let lit = match v.as_rule() {
                                    Rule::int => Literal::Int(self.int(&v).value),
                                    Rule::kw_true => Literal::Bool(true),
                                    Rule::kw_false => Literal::Bool(false),
                                    _ => Literal::Name(Name::new(v.as_str())),
                                };
                                values.push(Spanned::new(lit, self.span(&v)));
                            }
                            _ => {}
                        }
                    }
                    rows.push(TableRow { keys, values, span: rspan });
                }
                _ => {}
            }
        }
        let value_ty = types.pop().unwrap_or_else(|| Spanned::new(Name::default(), span));
        TableDef { name, keys: types, value_ty, rows, span }
    }

    pub(super) fn terrain(&self, pair: Pair<Rule>) -> Option<TerrainDef> {
        let span = self.span(&pair);
        let mut t = TerrainDef {
            name: Spanned::new(Name::default(), span),
            title: None,
            doc: None,
            symbols: vec![],
            defense: vec![],
            costs: vec![],
            heal: vec![],
            hp: vec![],
            becomes: vec![],
            opened_by: vec![],
            impassable: None,
            blocks_sight: None,
            elevation: vec![],
            span,
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => t.name = self.ident(&p),
                Rule::string => t.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut t.doc, p),
                Rule::terrain_symbol => {
                    if let Some(s) = p.into_inner().find(|q| q.as_rule() == Rule::string) {
                        t.symbols.push(Spanned::new(unquote(&s), self.span(&s)));
                    }
                }
                Rule::terrain_defense => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        t.defense.push(self.int(&n));
                    }
                }
                Rule::terrain_cost => {
                    for entry in p.into_inner().filter(|q| q.as_rule() == Rule::cost_entry) {
                        let mut inner = entry.into_inner();
                        let (Some(m), Some(v)) = (inner.next(), inner.next()) else { continue };
                        let vspan = self.span(&v);
                        let cost = v.into_inner().next().filter(|x| x.as_rule() == Rule::int).map(|x| self.int(&x).value);
                        t.costs.push(CostEntry { movement: self.ident(&m), cost: Spanned::new(cost, vspan) });
                    }
                }
                Rule::terrain_heal => {
                    let mut amount = None;
                    let mut event = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::int => amount = Some(self.int(&q)),
                            Rule::event => event = Some(self.ident(&q)),
                            _ => {}
                        }
                    }
                    if let (Some(amount), Some(event)) = (amount, event) {
                        t.heal.push(TerrainHeal { amount, event });
                    }
                }
                Rule::terrain_hp => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        t.hp.push(self.int(&n));
                    }
                }
                Rule::terrain_becomes => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::name) {
                        t.becomes.push(self.ident(&n));
                    }
                }
                Rule::terrain_opened_by => {
                    t.opened_by.extend(p.into_inner().filter(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)));
                }
                Rule::terrain_impassable => t.impassable = Some(pspan),
                Rule::terrain_blocks_sight => t.blocks_sight = Some(pspan),
                Rule::terrain_elevation => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        t.elevation.push(self.int(&n));
                    }
                }
                _ => {}
            }
        }
        Some(t)
    }

    pub(super) fn reaction(&self, pair: Pair<Rule>) -> Option<ReactionDef> {
        let span = self.span(&pair);
        let mut name = None;
        let mut r = ReactionDef {
            name: Ident { value: Name::default(), span },
            title: None,
            doc: None,
            costs: vec![],
            requires: vec![],
            modifiers: vec![],
            riposte: None,
            reroll: None,
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = Some(self.ident(&p)),
                Rule::string => r.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut r.doc, p),
                Rule::reaction_cost => {
                    let mut inner = p.into_inner().filter(|q| q.as_rule() != Rule::kw_cost);
                    if let (Some(res), Some(n)) = (inner.next(), inner.next()) {
                        r.costs.push((self.ident(&res), self.int(&n)));
                    }
                }
                Rule::action_requires => {
                    if let Some(e) = p.into_inner().find(|q| q.as_rule() == Rule::expr) {
                        r.requires.push(self.expr(e));
                    }
                }
                Rule::reaction_riposte => r.riposte = Some(self.span(&p)),
                Rule::reaction_reroll => {
                    let span = self.span(&p);
                    let mut inner = p.into_inner().filter(|q| !matches!(q.as_rule(), Rule::kw_reroll | Rule::kw_by));
                    if let Some(f) = inner.next() {
                        let by = inner.next().map(|b| Spanned::new(b.as_str().to_string(), self.span(&b)));
                        r.reroll = Some(RerollDef { formula: self.ident(&f), by, span });
                    }
                }
                Rule::kw_reaction => {}
                _ => {
                    if let Some(s) = self.stmt(p) {
                        r.modifiers.push(s);
                    }
                }
            }
        }
        r.name = name?;
        Some(r)
    }

    pub(super) fn courage_block(&self, pair: Pair<Rule>) -> CourageDef {
        let mut c = CourageDef {
            doc: None,
            check: vec![],
            losses: vec![],
            routs_within: vec![],
            fear: vec![],
            rally: vec![],
            pursuit: None,
            surrender: None,
            span: self.span(&pair),
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            let rule = p.as_rule();
            let expr = |q: Pair<Rule>| q.into_inner().find(|x| x.as_rule() == Rule::expr).map(|x| self.expr(x));
            match rule {
                Rule::doc => self.doc_once(&mut c.doc, p),
                Rule::courage_check => c.check.extend(expr(p)),
                Rule::courage_losses => c.losses.extend(expr(p)),
                Rule::courage_rally => c.rally.extend(expr(p)),
                Rule::courage_routs => {
                    c.routs_within.extend(p.into_inner().find(|q| q.as_rule() == Rule::int).map(|q| self.int(&q)))
                }
                Rule::courage_fear => {
                    let inner: Vec<Pair<Rule>> = p.into_inner().collect();
                    let tag = inner.iter().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(q));
                    let n = inner.iter().find(|q| q.as_rule() == Rule::int).map(|q| self.int(q));
                    if let (Some(tag), Some(n)) = (tag, n) {
                        c.fear.push((tag, n));
                    }
                }
                Rule::courage_pursuit => c.pursuit = Some(pspan),
                Rule::courage_surrender => c.surrender = Some(pspan),
                _ => {}
            }
        }
        c
    }

    pub(super) fn turn_block(&self, pair: Pair<Rule>) -> TurnDef {
        let mut t = TurnDef {
            order: vec![],
            threat: vec![],
            threat_shooting: false,
            line_of_sight: vec![],
            spend: vec![],
            formulas: vec![],
            span: self.span(&pair),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::turn_order => {
                    let span = self.span(&p);
                    let Some(kind) = p.into_inner().find(|q| q.as_rule() != Rule::kw_order) else { continue };
                    let names: Vec<Ident> =
                        kind.clone().into_inner().filter(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q)).collect();
                    let order = match (kind.as_rule(), names.as_slice()) {
                        (Rule::order_alternate, _) => OrderDef::Alternate,
                        (Rule::order_rolloff, [dice]) => OrderDef::Rolloff { dice: dice.clone() },
                        (Rule::order_by, [resource]) => OrderDef::By { resource: resource.clone(), ties: None },
                        (Rule::order_by, [resource, ties]) => {
                            OrderDef::By { resource: resource.clone(), ties: Some(ties.clone()) }
                        }
                        _ => continue,
                    };
                    t.order.push(Spanned::new(order, span));
                }
                Rule::turn_threat => {
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::threat_shape => t.threat.push(self.ident(&q)),
                            Rule::threat_shooting => t.threat_shooting = true,
                            _ => {}
                        }
                    }
                }
                Rule::turn_sight => t.line_of_sight.push(self.span(&p)),
                Rule::turn_spend => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::name) {
                        t.spend.push(self.ident(&n));
                    }
                }
                Rule::formula => {
                    let mut inner = p.into_inner();
                    if let (Some(name), Some(value)) = (inner.next(), inner.next()) {
                        t.formulas.push(Formula { name: self.ident(&name), value: self.expr(value) });
                    }
                }
                _ => {}
            }
        }
        t
    }
}
