//! pest pairs -> owned AST. Only this module and `expected` see pest types.

use std::sync::OnceLock;

use oc_diag::{FileId, Name, Span, Spanned};
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;

use crate::ast::*;

mod advanced;
mod expr;
mod fast;
mod ruleset;
mod scenario;

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
        Spanned::new(Name::new(pair.as_str()), self.span(pair))
    }
}

/// Parses one top-level segment (`source` starts at byte `base` of the file).
pub type Parsed = (Vec<Item>, Vec<oc_diag::Diagnostic>);

pub fn parse_segment(file: FileId, source: &str, base: usize) -> Result<Parsed, Box<pest::error::Error<Rule>>> {
    if let Some(items) = fast::segment(file, source, base) {
        return Ok((items, Vec::new()));
    }
    parse_with_pest(file, source, base)
}

/// [`parse_segment`] without the fast path: pest's pairs, lowered.
fn parse_with_pest(file: FileId, source: &str, base: usize) -> Result<Parsed, Box<pest::error::Error<Rule>>> {
    let pairs = match OcParser::parse(Rule::file, source) {
        Ok(pairs) => pairs,
        Err(_) => reparse(source)?,
    };
    Ok(lower_file(file, base, pairs))
}

/// A segment that failed to parse, parsed again with pest's error detail on, which also lists
/// the punctuation it expected: only failing segments pay for it. The setting is the whole
/// process's: one failing segment at a time, so that another thread's cannot turn it off midway.
fn reparse(source: &str) -> Result<Pairs<'_, Rule>, Box<pest::error::Error<Rule>>> {
    static DETAIL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = DETAIL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    pest::set_error_detail(true);
    let again = OcParser::parse(Rule::file, source);
    pest::set_error_detail(false);
    again.map_err(Box::new)
}

/// A parsed segment's syntax tree lowered to items (`base`: where the segment starts in the file).
fn lower_file(file: FileId, base: usize, pairs: Pairs<'_, Rule>) -> Parsed {
    let ctx = Ctx { file, base, problems: std::cell::RefCell::new(Vec::new()) };
    let mut items = Vec::new();
    for pair in pairs.flatten().take(1) {
        for item in pair.into_inner() {
            if let Some(item) = ctx.item(item) {
                items.push(item);
            }
        }
    }
    (items, ctx.problems.into_inner())
}

fn int_value(text: &str) -> Option<i64> {
    text.trim_start_matches('+').parse().ok()
}

/// Pushes what an escape `\c` in a string stands for: `\n` and `\t` their control characters,
/// `\"` and `\\` the character itself; an unknown one (an error, `oc::syntax::unknown_escape`)
/// is kept as written, so that a name or path is never quietly changed.
fn unescape(out: &mut String, c: char) {
    match c {
        'n' => out.push('\n'),
        't' => out.push('\t'),
        '"' | '\\' => out.push(c),
        other => {
            out.push('\\');
            out.push(other);
        }
    }
}

fn unquote(pair: &Pair<Rule>) -> String {
    let raw = pair.clone().into_inner().next().map_or("", |p| p.as_str());
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(escaped) = chars.next() {
                unescape(&mut out, escaped);
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
            Rule::ruleset => Item::Ruleset(Box::new(self.ruleset(pair))),
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

    fn doc(&self, pair: Pair<Rule>) -> Option<String> {
        pair.into_inner().find(|q| q.as_rule() == Rule::string).map(|s| unquote(&s))
    }

    /// A definition's `doc`, into `slot`; a second one is reported (it replaced the first).
    fn doc_once(&self, slot: &mut Option<String>, pair: Pair<Rule>) {
        if slot.is_some() {
            self.twice("doc", self.span(&pair), None);
        }
        *slot = self.doc(pair);
    }

    /// A field given a second time (`field`, at `span`; the first at `first` where known): only
    /// one can hold, and the later one replaced the earlier.
    fn twice(&self, field: &str, span: Span, first: Option<Span>) {
        let mut d = oc_diag::Diagnostic::error(crate::DUPLICATE_FIELD, span, format!("`{field}` is given twice"))
            .with_help(format!("keep one `{field}`"));
        if let Some(first) = first {
            d = d.with_secondary(first, "first here");
        }
        self.problems.borrow_mut().push(d);
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
            name: Spanned::new(Name::default(), span),
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
                Rule::doc => self.doc_once(&mut t.doc, p),
                Rule::effect_block => t.body = self.block(p),
                _ => {}
            }
        }
        Some(t)
    }

    fn status(&self, pair: Pair<Rule>) -> Option<StatusDef> {
        let span = self.span(&pair);
        let mut s = StatusDef { name: Spanned::new(Name::default(), span), body: vec![], clears: vec![], lasts: vec![], span };
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
                let mut action =
                    ActionDef { target: None, requires: vec![], cost: None, charge: None, sequence: None, body: vec![], span };
                // Where each field was first given: a second replaced it (reported).
                let mut given: Vec<(Rule, Span)> = Vec::new();
                for p in pair.into_inner() {
                    let field = match p.as_rule() {
                        Rule::action_target => Some("target"),
                        Rule::action_cost => Some("cost"),
                        Rule::action_charge => Some("charge"),
                        Rule::action_sequence => Some("sequence"),
                        _ => None,
                    };
                    if let Some(field) = field {
                        match given.iter().find(|(r, _)| *r == p.as_rule()) {
                            Some((_, first)) => self.twice(field, self.span(&p), Some(*first)),
                            None => given.push((p.as_rule(), self.span(&p))),
                        }
                    }
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
                        Rule::action_cost => {
                            if let Some(e) = p.into_inner().find(|q| q.as_rule() == Rule::expr) {
                                action.cost = Some(Box::new(self.expr(e)));
                            }
                        }
                        Rule::action_charge => {
                            if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::name) {
                                action.charge = Some(self.ident(&n));
                            }
                        }
                        Rule::action_sequence => {
                            if let Some(n) = p.into_inner().find(|q| q.as_rule() == Rule::int) {
                                action.sequence = Some(self.int(&n));
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
        Some(TagRef { name, args: args.into_iter().collect(), span })
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
                    _ => (Literal::Name(Name::new(value.as_str())), self.span(&value)),
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

    fn class(&self, pair: Pair<Rule>) -> Option<ClassDef> {
        let span = self.span(&pair);
        let mut c = ClassDef::empty(Spanned::new(Name::default(), span), None, span);
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => c.name = self.ident(&p),
                Rule::string => c.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut c.doc, p),
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
                Rule::form_normal => c.normal = Some(Box::new(self.form(p))),
                Rule::form_transformed => c.transformed = Some(Box::new(self.form(p))),
                _ => {}
            }
        }
        c.tighten();
        Some(c)
    }

    fn item_def(&self, pair: Pair<Rule>, kind: ItemKind) -> Option<ItemDef> {
        let span = self.span(&pair);
        let mut it = ItemDef::empty(kind, Spanned::new(Name::default(), span), None, span);
        for p in pair.into_inner() {
            let pspan = self.span(&p);
            match p.as_rule() {
                Rule::name => it.name = self.ident(&p),
                Rule::string => it.title = Some(unquote(&p)),
                Rule::doc => self.doc_once(&mut it.doc, p),
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
        it.tighten();
        Some(it)
    }
}

/// A list of the syntax tree at its length. Lists built by pushing or from a filtered iterator
/// hold room for four or more; a large file's tree is mostly short lists.
fn tight<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}
