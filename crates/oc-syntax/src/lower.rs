//! pest pairs -> owned AST. Only this module and `expected` see pest types.

use std::sync::OnceLock;

use oc_diag::{FileId, Span, Spanned};
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;

use crate::ast::*;

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/oc.pest"]
pub struct OcParser;

/// Operators and operands one expression may have.
pub const MAX_EXPR_PIECES: usize = 1024;

struct Ctx {
    file: FileId,
    base: usize,
    /// Problems found while lowering (numbers too large for 64 bits).
    problems: std::cell::RefCell<Vec<oc_diag::Diagnostic>>,
}

impl Ctx {
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.file, s.start() + self.base, s.end() + self.base)
    }
    fn ident(&self, pair: &Pair<Rule>) -> Ident {
        Spanned::new(pair.as_str().to_string(), self.span(pair))
    }
}

/// Parses one top-level segment (`source` starts at byte `base` of the file).
pub type Parsed = (Vec<Item>, Vec<oc_diag::Diagnostic>);

pub fn parse_segment(file: FileId, source: &str, base: usize) -> Result<Parsed, Box<pest::error::Error<Rule>>> {
    let pairs = match OcParser::parse(Rule::file, source) {
        Ok(pairs) => pairs,
        Err(_) => {
            // Parse again with pest's error detail on, which also lists the punctuation it
            // expected. Only failing segments pay for it.
            pest::set_error_detail(true);
            let again = OcParser::parse(Rule::file, source);
            pest::set_error_detail(false);
            match again {
                Ok(pairs) => pairs,
                Err(e) => return Err(Box::new(e)),
            }
        }
    };
    let ctx = Ctx { file, base, problems: std::cell::RefCell::new(Vec::new()) };
    let mut items = Vec::new();
    for pair in pairs.flatten().take(1) {
        for item in pair.into_inner() {
            if let Some(item) = ctx.item(item) {
                items.push(item);
            }
        }
    }
    Ok((items, ctx.problems.into_inner()))
}

fn pratt() -> &'static PrattParser<Rule> {
    static PRATT: OnceLock<PrattParser<Rule>> = OnceLock::new();
    PRATT.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or, Assoc::Left))
            .op(Op::infix(Rule::and, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left)
                | Op::infix(Rule::ne, Assoc::Left)
                | Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left) | Op::infix(Rule::rem, Assoc::Left))
            .op(Op::prefix(Rule::neg) | Op::prefix(Rule::not))
            .op(Op::postfix(Rule::field) | Op::postfix(Rule::index) | Op::postfix(Rule::has))
    })
}

fn int_value(text: &str) -> Option<i64> {
    text.trim_start_matches('+').parse().ok()
}

fn unquote(pair: &Pair<Rule>) -> String {
    let raw = pair.clone().into_inner().next().map_or("", |p| p.as_str());
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Ctx {
    fn int(&self, pair: &Pair<Rule>) -> Spanned<i64> {
        // Numbers too large for i64 are reported and saturate, so the tree stays whole.
        let value = int_value(pair.as_str()).unwrap_or_else(|| {
            self.problems.borrow_mut().push(
                oc_diag::Diagnostic::error(crate::NUMBER_TOO_LARGE, self.span(pair), "this number is too large")
                    .with_help(format!("numbers range from {} to {}", i64::MIN, i64::MAX)),
            );
            if pair.as_str().starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            }
        });
        Spanned::new(value, self.span(pair))
    }

    fn item(&self, pair: Pair<Rule>) -> Option<Item> {
        Some(match pair.as_rule() {
            Rule::import => {
                let span = self.span(&pair);
                let path = pair.into_inner().find(|p| p.as_rule() == Rule::string)?;
                Item::Import(Import { path: Spanned::new(unquote(&path), self.span(&path)), span })
            }
            Rule::ruleset => Item::Ruleset(self.ruleset(pair)),
            Rule::movement_def => {
                Item::Movement(pair.into_inner().filter(|p| p.as_rule() == Rule::name).map(|p| self.ident(&p)).collect())
            }
            Rule::weapon_type_def => {
                let span = self.span(&pair);
                let mut name = None;
                let mut magic = false;
                let mut staff = false;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::name => name = Some(self.ident(&p)),
                        Rule::damage_kind => magic = p.as_str() == "magic",
                        Rule::kw_staff => staff = true,
                        _ => {}
                    }
                }
                Item::WeaponType(WeaponTypeDef { name: name?, magic, staff, span })
            }
            Rule::triangle_def => {
                let span = self.span(&pair);
                let chains = pair
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::triangle_chain)
                    .map(|c| c.into_inner().map(|n| self.ident(&n)).collect())
                    .collect();
                Item::Triangle(Triangle { chains, span })
            }
            Rule::terrain_def => Item::Terrain(self.terrain(pair)?),
            Rule::tag_def => Item::Tag(self.tag(pair)?),
            Rule::status_def => Item::Status(self.status(pair)?),
            Rule::class_def => Item::Class(self.class(pair)?),
            Rule::weapon_def => Item::Item(self.item_def(pair, ItemKind::Weapon)?),
            Rule::accessory_def => Item::Item(self.item_def(pair, ItemKind::Accessory)?),
            Rule::consumable_def => Item::Item(self.item_def(pair, ItemKind::Consumable)?),
            Rule::scenario_def => Item::Scenario(self.scenario(pair)),
            Rule::army_def => Item::Army(self.army(pair)),
            _ => return None,
        })
    }

    fn ruleset(&self, pair: Pair<Rule>) -> Ruleset {
        let span = self.span(&pair);
        let mut rs = Ruleset {
            name: Spanned::new(String::new(), span),
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
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => rs.name = self.ident(&p),
                Rule::doc => rs.doc = self.doc(p),
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
                                    Bound::Name(b.as_str().to_string())
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
                    let formulas = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::formula)
                        .filter_map(|f| {
                            let mut inner = f.into_inner();
                            let name = self.ident(&inner.next()?);
                            let value = self.expr(inner.next()?);
                            Some(Formula { name, value })
                        })
                        .collect();
                    rs.combat.push(CombatBlock { formulas, span: pspan });
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
                    if let (Some(name), Some(ty), Some(value), Some(at)) = (name, ty, value, at) {
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

    fn doc(&self, pair: Pair<Rule>) -> Option<String> {
        pair.into_inner().find(|q| q.as_rule() == Rule::string).map(|s| unquote(&s))
    }

    fn table(&self, pair: Pair<Rule>) -> TableDef {
        let span = self.span(&pair);
        let mut name = Spanned::new(String::new(), span);
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
                                    _ => Literal::Name(v.as_str().to_string()),
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
        let value_ty = types.pop().unwrap_or_else(|| Spanned::new(String::new(), span));
        TableDef { name, keys: types, value_ty, rows, span }
    }

    fn terrain(&self, pair: Pair<Rule>) -> Option<TerrainDef> {
        let span = self.span(&pair);
        let mut t = TerrainDef {
            name: Spanned::new(String::new(), span),
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
            span,
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => t.name = self.ident(&p),
                Rule::string => t.title = Some(unquote(&p)),
                Rule::doc => t.doc = self.doc(p),
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
                _ => {}
            }
        }
        Some(t)
    }

    fn params(&self, pair: Pair<Rule>) -> Vec<Param> {
        pair.into_inner()
            .filter_map(|p| {
                let mut inner = p.into_inner();
                let name = self.ident(&inner.next()?);
                let ty = self.ident(&inner.next()?);
                Some(Param { name, ty })
            })
            .collect()
    }

    fn tag(&self, pair: Pair<Rule>) -> Option<TagDef> {
        let span = self.span(&pair);
        let mut t = TagDef {
            name: Spanned::new(String::new(), span),
            params: vec![],
            stacks: false,
            kinds: vec![],
            doc: None,
            body: vec![],
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => t.name = self.ident(&p),
                Rule::params => t.params = self.params(p),
                Rule::kw_stacks => t.stacks = true,
                Rule::tag_kinds => {
                    t.kinds.extend(p.into_inner().filter(|q| q.as_rule() == Rule::thing_kind).map(|q| self.ident(&q)))
                }
                Rule::doc => t.doc = self.doc(p),
                Rule::effect_block => t.body = self.block(p),
                _ => {}
            }
        }
        Some(t)
    }

    fn status(&self, pair: Pair<Rule>) -> Option<StatusDef> {
        let span = self.span(&pair);
        let mut s = StatusDef { name: Spanned::new(String::new(), span), body: vec![], clears: vec![], lasts: vec![], span };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => s.name = self.ident(&p),
                Rule::effect_block => s.body = self.block(p),
                Rule::clears => {
                    let mut condition = None;
                    let mut event = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::expr => condition = Some(self.expr(q)),
                            Rule::event => event = Some(self.ident(&q)),
                            _ => {}
                        }
                    }
                    if let Some(event) = event {
                        s.clears.push(Clears { condition, event, span: pspan });
                    }
                }
                Rule::lasts => {
                    let mut count = None;
                    let mut unit = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::int => count = Some(self.int(&q)),
                            Rule::duration_unit => unit = Some(self.ident(&q)),
                            _ => {}
                        }
                    }
                    if let (Some(count), Some(unit)) = (count, unit) {
                        s.lasts.push(Lasts { count, unit });
                    }
                }
                _ => {}
            }
        }
        Some(s)
    }

    fn block(&self, pair: Pair<Rule>) -> Vec<Stmt> {
        tight(pair.into_inner().filter_map(|p| self.stmt(p)).collect())
    }

    fn stmt(&self, pair: Pair<Rule>) -> Option<Stmt> {
        let span = self.span(&pair);
        Some(match pair.as_rule() {
            Rule::modify_stmt => {
                let mut inner = pair.into_inner();
                let place = inner.next()?.into_inner().map(|p| self.ident(&p)).collect();
                let op = match inner.next()?.as_str() {
                    "+=" => AssignOp::Add,
                    "-=" => AssignOp::Sub,
                    _ => AssignOp::Set,
                };
                let value = self.expr(inner.next()?);
                Stmt::Modify { place, op, value, span }
            }
            Rule::when_stmt => {
                let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::kw_when);
                let condition = self.expr(inner.next()?);
                let body = self.block(inner.next()?);
                Stmt::When { condition, body, span }
            }
            Rule::on_stmt => {
                let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::kw_on);
                let event = self.ident(&inner.next()?);
                let body = self.block(inner.next()?);
                Stmt::On { event, body, span }
            }
            Rule::grant_stmt => {
                let tag = pair.into_inner().find(|p| p.as_rule() == Rule::tag_ref)?;
                Stmt::Grant { tag: self.tag_ref(tag)?, span }
            }
            Rule::action_stmt => {
                let mut action = ActionDef { target: None, requires: vec![], body: vec![], span };
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::action_target => {
                            let mut kind = None;
                            let mut exprs = Vec::new();
                            for q in p.into_inner() {
                                match q.as_rule() {
                                    Rule::target_kind => kind = Some(self.ident(&q)),
                                    Rule::expr => exprs.push(self.expr(q)),
                                    _ => {}
                                }
                            }
                            let mut exprs = exprs.into_iter();
                            let first = exprs.next();
                            let second = exprs.next();
                            let (min, max) = match (first, second) {
                                (Some(a), Some(b)) => (Some(a), Some(b)),
                                (Some(a), None) => (None, Some(a)),
                                _ => (None, None),
                            };
                            action.target = kind.map(|kind| ActionTarget { kind, min, max });
                        }
                        Rule::action_requires => {
                            if let Some(e) = p.into_inner().find(|q| q.as_rule() == Rule::expr) {
                                action.requires.push(self.expr(e));
                            }
                        }
                        _ => {
                            if let Some(s) = self.stmt(p) {
                                action.body.push(s);
                            }
                        }
                    }
                }
                Stmt::Action(action)
            }
            Rule::command => {
                let mut inner = pair.into_inner();
                let verb = self.ident(&inner.next()?);
                let args = inner.filter(|p| p.as_rule() == Rule::expr).map(|p| self.expr(p)).collect();
                Stmt::Command { verb, args, span }
            }
            _ => return None,
        })
    }

    fn tag_ref(&self, pair: Pair<Rule>) -> Option<TagRef> {
        let span = self.span(&pair);
        // pest's span of `Lucky` without brackets runs on over the whitespace (and comments)
        // after it: a reference ends at its name, or at its closing bracket.
        let written = pair.as_str();
        let mut inner = pair.into_inner();
        let name = self.ident(&inner.next()?);
        let after_name = written.get(name.span.len()..).unwrap_or("");
        let close = written.rfind(')').filter(|_| after_name.trim_start().starts_with('('));
        let span = match close {
            Some(at) => Span { end: span.start + u32::try_from(at + 1).unwrap_or(0), ..span },
            None => name.span,
        };
        let args = tight(inner.filter(|p| p.as_rule() == Rule::expr).map(|p| self.expr(p)).collect());
        Some(TagRef { name, args, span })
    }

    fn tag_list(&self, pair: Pair<Rule>) -> Vec<TagRef> {
        tight(pair.into_inner().filter(|p| p.as_rule() == Rule::tag_ref).filter_map(|p| self.tag_ref(p)).collect())
    }

    fn ratings(&self, pair: Pair<Rule>) -> RatingsBlock {
        let span = self.span(&pair);
        let entries = pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::rating_entry)
            .filter_map(|e| {
                let mut inner = e.into_inner();
                let name = self.ident(&inner.next()?);
                let value = inner.next()?.into_inner().next()?;
                let (lit, span) = match value.as_rule() {
                    Rule::int => (Literal::Int(self.int(&value).value), self.span(&value)),
                    Rule::rating_dice => {
                        let (terms, constant, span) = self.dice_sum(value);
                        (Literal::Dice(terms, constant), span)
                    }
                    _ => (Literal::Name(value.as_str().to_string()), self.span(&value)),
                };
                Some((name, Spanned::new(lit, span)))
            })
            .collect();
        RatingsBlock { entries: tight(entries), span }
    }

    fn names(&self, pair: Pair<Rule>) -> Vec<Ident> {
        tight(pair.into_inner().filter(|p| p.as_rule() == Rule::name).map(|p| self.ident(&p)).collect())
    }

    fn form(&self, pair: Pair<Rule>) -> Form {
        let span = self.span(&pair);
        let mut form = Form { ratings: vec![], wields: vec![], tags: vec![], span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ratings => form.ratings.push(self.ratings(p)),
                Rule::wields => form.wields.extend(self.names(p)),
                Rule::tag_list => form.tags.extend(self.tag_list(p)),
                _ => {}
            }
        }
        form
    }

    fn string(&self, pair: &Pair<Rule>) -> Spanned<String> {
        Spanned::new(unquote(pair), self.span(pair))
    }

    fn first_int(&self, pair: Pair<Rule>) -> Option<Spanned<i64>> {
        pair.into_inner().find(|q| q.as_rule() == Rule::int).map(|q| self.int(&q))
    }

    fn first_string(&self, pair: Pair<Rule>) -> Option<Spanned<String>> {
        pair.into_inner().find(|q| q.as_rule() == Rule::string).map(|q| self.string(&q))
    }

    fn scenario(&self, pair: Pair<Rule>) -> ScenarioDef {
        let span = self.span(&pair);
        let mut s = ScenarioDef {
            name: Spanned::new(String::new(), span),
            title: None,
            doc: None,
            maps: vec![],
            regions: vec![],
            rounds: vec![],
            deploy_first: vec![],
            chests: vec![],
            fogs: vec![],
            sides: vec![],
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => s.name = self.ident(&p),
                Rule::string => s.title = Some(unquote(&p)),
                Rule::doc => s.doc = self.doc(p),
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
                    s.deploy_first.extend(p.into_inner().find(|q| q.as_rule() == Rule::side_word).map(|q| self.ident(&q)))
                }
                Rule::sc_side => s.sides.push(self.side(p)),
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

    fn reaction(&self, pair: Pair<Rule>) -> Option<ReactionDef> {
        let span = self.span(&pair);
        let mut name = None;
        let mut r = ReactionDef {
            name: Ident { value: String::new(), span },
            title: None,
            doc: None,
            costs: vec![],
            requires: vec![],
            modifiers: vec![],
            riposte: None,
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = Some(self.ident(&p)),
                Rule::string => r.title = Some(unquote(&p)),
                Rule::doc => r.doc = self.doc(p),
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

    fn turn_block(&self, pair: Pair<Rule>) -> TurnDef {
        let mut t = TurnDef { order: vec![], threat: vec![], spend: vec![], formulas: vec![], span: self.span(&pair) };
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
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::threat_shape) {
                        t.threat.push(self.ident(&n));
                    }
                }
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

    fn side(&self, pair: Pair<Rule>) -> SideDef {
        let span = self.span(&pair);
        let mut d = SideDef {
            side: Spanned::new(String::new(), span),
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
                Rule::doc => d.doc = self.doc(p),
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
    fn cond(&self, pair: Pair<Rule>) -> Option<Cond> {
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

    fn cond_term(&self, pair: Pair<Rule>) -> Option<Cond> {
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

    fn army(&self, pair: Pair<Rule>) -> ArmyDef {
        let span = self.span(&pair);
        let mut a = ArmyDef {
            name: Spanned::new(String::new(), span),
            title: None,
            doc: None,
            scenario: Spanned::new(String::new(), span),
            side: Spanned::new(String::new(), span),
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
                Rule::doc => a.doc = self.doc(p),
                Rule::side_word => a.side = self.ident(&p),
                Rule::unit_def => {
                    let uspan = self.span(&p);
                    let mut u = UnitDef {
                        name: Spanned::new(String::new(), uspan),
                        class: Spanned::new(String::new(), uspan),
                        items: vec![],
                        tags: vec![],
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

    fn class(&self, pair: Pair<Rule>) -> Option<ClassDef> {
        let span = self.span(&pair);
        let mut c = ClassDef {
            name: Spanned::new(String::new(), span),
            title: None,
            doc: None,
            ratings: vec![],
            wields: vec![],
            tags: vec![],
            costs: vec![],
            promoted: None,
            kit: vec![],
            normal: None,
            transformed: None,
            span,
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => c.name = self.ident(&p),
                Rule::string => c.title = Some(unquote(&p)),
                Rule::doc => c.doc = self.doc(p),
                Rule::ratings => c.ratings.push(self.ratings(p)),
                Rule::wields => c.wields.extend(self.names(p)),
                Rule::tag_list => c.tags.extend(self.tag_list(p)),
                Rule::cost => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        c.costs.push(self.int(&n));
                    }
                }
                Rule::promoted => {
                    let from = p.into_inner().find(|q| q.as_rule() == Rule::name).map(|q| self.ident(&q));
                    c.promoted = Some(Promoted { from, span: pspan });
                }
                Rule::kit => c.kit.extend(self.names(p)),
                Rule::form_normal => c.normal = Some(self.form(p)),
                Rule::form_transformed => c.transformed = Some(self.form(p)),
                _ => {}
            }
        }
        c.wields.shrink_to_fit();
        c.kit.shrink_to_fit();
        c.ratings.shrink_to_fit();
        c.tags.shrink_to_fit();
        c.costs.shrink_to_fit();
        Some(c)
    }

    fn item_def(&self, pair: Pair<Rule>, kind: ItemKind) -> Option<ItemDef> {
        let span = self.span(&pair);
        let mut it = ItemDef {
            kind,
            name: Spanned::new(String::new(), span),
            title: None,
            doc: None,
            weapon_type: vec![],
            might: vec![],
            weight: vec![],
            range: vec![],
            tags: vec![],
            costs: vec![],
            uses: vec![],
            modifiers: vec![],
            span,
        };
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => it.name = self.ident(&p),
                Rule::string => it.title = Some(unquote(&p)),
                Rule::doc => it.doc = self.doc(p),
                Rule::item_type => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::name) {
                        it.weapon_type.push(self.ident(&n));
                    }
                }
                Rule::item_might => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        it.might.push(self.int(&n));
                    }
                }
                Rule::item_weight => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        it.weight.push(self.int(&n));
                    }
                }
                Rule::item_range => {
                    let mut exprs = p.into_inner().filter(|q| q.as_rule() == Rule::expr).map(|q| self.expr(q));
                    if let Some(min) = exprs.next() {
                        it.range.push(RangeSpec { min, max: exprs.next(), span: pspan });
                    }
                }
                Rule::tag_list => it.tags.extend(self.tag_list(p)),
                Rule::cost => {
                    if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                        it.costs.push(self.int(&n));
                    }
                }
                Rule::item_use => {
                    if let Some(b) = p.into_inner().find(|q| q.as_rule() == Rule::effect_block) {
                        it.uses.push(self.block(b));
                    }
                }
                Rule::modify_stmt => {
                    if let Some(s) = self.stmt(p) {
                        it.modifiers.push(s);
                    }
                }
                _ => {}
            }
        }
        it.weapon_type.shrink_to_fit();
        it.might.shrink_to_fit();
        it.weight.shrink_to_fit();
        it.range.shrink_to_fit();
        it.tags.shrink_to_fit();
        it.costs.shrink_to_fit();
        it.uses.shrink_to_fit();
        it.modifiers.shrink_to_fit();
        Some(it)
    }

    fn expr(&self, pair: Pair<Rule>) -> Expr {
        // A chain of operators builds a tree as deep as it is long; refuse absurd lengths before
        // they exhaust the stack of every later pass.
        let pieces = pair.clone().into_inner().count();
        if pieces > MAX_EXPR_PIECES {
            let span = self.span(&pair);
            self.problems.borrow_mut().push(
                oc_diag::Diagnostic::error(
                    crate::TOO_LONG,
                    span,
                    format!("this expression has {pieces} parts; at most {MAX_EXPR_PIECES} are allowed"),
                )
                .with_label("too long")
                .with_help("split it into helper formulas or simplify it"),
            );
            return Expr { kind: ExprKind::Error, span };
        }
        self.expr_pairs(pair.into_inner())
    }

    fn expr_pairs(&self, pairs: Pairs<Rule>) -> Expr {
        pratt()
            .map_primary(|p| self.primary(p))
            .map_prefix(|op, rhs| {
                let span = self.span(&op).to(rhs.span);
                let op = if op.as_rule() == Rule::neg { UnaryOp::Neg } else { UnaryOp::Not };
                Expr { kind: ExprKind::Unary(op, Box::new(rhs)), span }
            })
            .map_postfix(|lhs, op| {
                let span = lhs.span.to(self.span(&op));
                let kind = match op.as_rule() {
                    Rule::field => match op.into_inner().next() {
                        Some(f) => ExprKind::Field(Box::new(lhs), self.ident(&f)),
                        None => ExprKind::Error,
                    },
                    Rule::index => ExprKind::Index(Box::new(lhs), op.into_inner().map(|e| self.expr(e)).collect()),
                    _ => match op.into_inner().find(|q| q.as_rule() == Rule::tag_ref).and_then(|t| self.tag_ref(t)) {
                        Some(tag) => ExprKind::Has(Box::new(lhs), tag),
                        None => ExprKind::Error,
                    },
                };
                Expr { kind, span }
            })
            .map_infix(|lhs, op, rhs| {
                let span = lhs.span.to(rhs.span);
                let op = match op.as_rule() {
                    Rule::or => BinaryOp::Or,
                    Rule::and => BinaryOp::And,
                    Rule::eq => BinaryOp::Eq,
                    Rule::ne => BinaryOp::Ne,
                    Rule::lt => BinaryOp::Lt,
                    Rule::le => BinaryOp::Le,
                    Rule::gt => BinaryOp::Gt,
                    Rule::ge => BinaryOp::Ge,
                    Rule::add => BinaryOp::Add,
                    Rule::sub => BinaryOp::Sub,
                    Rule::mul => BinaryOp::Mul,
                    Rule::div => BinaryOp::Div,
                    _ => BinaryOp::Rem,
                };
                Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span }
            })
            .parse(pairs)
    }

    /// Dice terms joined by `+` and `-` with whole numbers (`2d10 + 3d8 - 1`): the terms, the
    /// constant, and the span from the first term to the last (the pair also holds the blank
    /// after it).
    fn dice_sum(&self, sum: Pair<Rule>) -> (Vec<(bool, DieLit)>, i64, Span) {
        let mut span = self.span(&sum);
        span.end = span.start;
        let (mut terms, mut constant, mut negative) = (Vec::new(), 0i64, false);
        for q in sum.into_inner() {
            if matches!(q.as_rule(), Rule::die | Rule::int) {
                span.end = self.span(&q).end;
            }
            match q.as_rule() {
                Rule::add => negative = false,
                Rule::sub => negative = true,
                Rule::die => terms.push((negative, self.die(q))),
                Rule::int => {
                    let v = self.int(&q).value;
                    constant = constant.saturating_add(if negative { v.saturating_neg() } else { v });
                }
                _ => {}
            }
        }
        (terms, constant, span)
    }

    /// A die term (`2d6kh1`, `d{0,1,2}`, `d10!`).
    fn die(&self, pair: Pair<Rule>) -> DieLit {
        let span = self.span(&pair);
        let small = |q: &Pair<Rule>| {
            let digits = q.as_str().trim_start_matches(|c: char| !c.is_ascii_digit());
            Spanned::new(digits.parse::<u64>().map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX)), self.span(q))
        };
        let mut die = DieLit { count: None, sides: None, faces: Vec::new(), explode: false, crit: false, keep: None, span };
        for q in pair.into_inner() {
            match q.as_rule() {
                Rule::die_count => die.count = Some(small(&q)),
                Rule::die_sides => die.sides = Some(small(&q)),
                Rule::die_faces => {
                    die.faces = q.into_inner().filter(|r| r.as_rule() == Rule::int).map(|r| self.int(&r)).collect();
                }
                Rule::die_explode => die.explode = true,
                Rule::die_crit => die.crit = true,
                Rule::die_keep => die.keep = Some((q.as_str().starts_with("kh"), small(&q))),
                _ => {}
            }
        }
        die
    }

    fn primary(&self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::int => ExprKind::Int(self.int(&pair).value),
            Rule::die => ExprKind::Die(self.die(pair)),
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::string => ExprKind::Str(unquote(&pair)),
            Rule::ident => ExprKind::Name(pair.as_str().to_string()),
            Rule::paren => match pair.into_inner().next() {
                Some(e) => return Expr { span, ..self.expr(e) },
                None => ExprKind::Error,
            },
            Rule::if_expr => {
                let mut parts = pair.into_inner().filter(|p| p.as_rule() == Rule::expr).map(|e| self.expr(e));
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(c), Some(t), Some(e)) => ExprKind::If(Box::new(c), Box::new(t), Box::new(e)),
                    _ => ExprKind::Error,
                }
            }
            Rule::call => {
                let mut inner = pair.into_inner();
                match inner.next() {
                    Some(f) => ExprKind::Call(self.ident(&f), inner.map(|e| self.expr(e)).collect()),
                    None => ExprKind::Error,
                }
            }
            _ => ExprKind::Error,
        };
        Expr { kind, span }
    }
}

/// A list of the syntax tree at its length. Lists built by pushing or from a filtered iterator
/// hold room for four or more; a large file's tree is mostly short lists.
fn tight<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}
