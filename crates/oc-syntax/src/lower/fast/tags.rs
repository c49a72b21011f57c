//! The fast path's tag definitions: parameters, `stacks`, `on` kinds, a doc, and a body of
//! `when`, `on`, commands and modifiers over expressions with operators, fields and calls
//! (precedence as `lower::expr`'s Pratt parser has it). Grants, actions, `if`, indexes, `has`
//! and dice are left to pest.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use oc_diag::{Name, Spanned};

use super::{Cursor, NOT_A_NAME};
use crate::ast::*;
use crate::keywords::first_words;

/// The words of the grammar's `event`, `verb` and `thing_kind` rules, read from the grammar
/// itself (`keywords::first_words`), so that the fast path can never accept a word pest would not.
struct Words {
    events: BTreeSet<&'static str>,
    verbs: BTreeSet<&'static str>,
    kinds: BTreeSet<&'static str>,
}

fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| Words { events: first_words("event"), verbs: first_words("verb"), kinds: first_words("thing_kind") })
}

/// The most operands and operators one expression is read with here (`MAX_EXPR_PIECES` is
/// pest's to report).
const PIECES: usize = 256;

/// An infix operator at the cursor: (operator, binding power, its length in bytes).
fn infix(c: &Cursor) -> Option<(BinaryOp, u8, usize)> {
    let word = |w: &str| {
        let mut probe = *c;
        probe.word() == Some(w)
    };
    if word("or") {
        return Some((BinaryOp::Or, 1, 2));
    }
    if word("and") {
        return Some((BinaryOp::And, 2, 3));
    }
    Some(match (c.peek()?, c.peek_at(1)) {
        (b'=', Some(b'=')) => (BinaryOp::Eq, 3, 2),
        (b'!', Some(b'=')) => (BinaryOp::Ne, 3, 2),
        (b'<', Some(b'=')) => (BinaryOp::Le, 3, 2),
        (b'>', Some(b'=')) => (BinaryOp::Ge, 3, 2),
        (b'<', _) => (BinaryOp::Lt, 3, 1),
        (b'>', _) => (BinaryOp::Gt, 3, 1),
        (b'+', _) => (BinaryOp::Add, 4, 1),
        (b'-', _) => (BinaryOp::Sub, 4, 1),
        (b'*', _) => (BinaryOp::Mul, 5, 1),
        (b'/', _) => (BinaryOp::Div, 5, 1),
        (b'%', _) => (BinaryOp::Rem, 5, 1),
        _ => return None,
    })
}

impl Cursor<'_> {
    /// A tag after its keyword (which began at `start`).
    pub(super) fn tag(&mut self, start: usize) -> Option<TagDef> {
        let name = self.ident()?;
        let mut t =
            TagDef { name, params: vec![], stacks: false, kinds: vec![], doc: None, body: vec![], span: self.span(start, start) };
        if self.eat(b'(')? && !self.eat(b')')? {
            t.params = self.commas(|c| {
                let name = c.ident()?;
                c.punct(b':')?;
                Some(Param { name, ty: c.ident()? })
            })?;
            self.punct(b')')?;
        }
        loop {
            self.skip()?;
            if self.peek() == Some(b'{') {
                break;
            }
            // Without a body, pest's span of the tag runs on over what follows it.
            match self.word()? {
                "stacks" => t.stacks = true,
                // A second `doc` is pest's to report (`oc::field::duplicate`).
                "doc" if t.doc.is_none() => t.doc = Some(self.string()?),
                "on" => {
                    let kinds = self.commas(|c| c.ident().filter(|k| words().kinds.contains(k.value.as_str())))?;
                    super::extend(&mut t.kinds, kinds);
                }
                _ => return None,
            }
        }
        t.body = self.block()?;
        t.span = self.span(start, self.at);
        t.kinds.shrink_to_fit();
        Some(t)
    }

    /// `{ statement* }`, the cursor before the opening brace; docs inside are dropped, as
    /// `lower` drops them.
    fn block(&mut self) -> Option<Vec<Stmt>> {
        self.punct(b'{')?;
        self.gather(&mut |c| loop {
            if c.eat(b'}')? {
                return Some(None);
            }
            if let Some(s) = c.statement()? {
                return Some(Some(s));
            }
        })
    }

    /// One statement, the cursor at it; `Some(None)` for a doc.
    fn statement(&mut self) -> Option<Option<Stmt>> {
        let start = self.at;
        let word = self.word()?;
        self.skip()?;
        let next = self.peek();
        Some(Some(match word {
            "doc" if next == Some(b'"') => {
                self.string()?;
                return Some(None);
            }
            "when" => {
                let condition = self.expr_full()?;
                let body = self.block()?;
                Stmt::When { condition, body, span: self.span(start, self.at) }
            }
            "on" => {
                let event = self.ident()?;
                if !words().events.contains(event.value.as_str()) {
                    return None;
                }
                let body = self.block()?;
                Stmt::On { event, body, span: self.span(start, self.at) }
            }
            "action" | "grant" | "doc" => return None,
            verb if next == Some(b'(') && words().verbs.contains(verb) => {
                let verb = Spanned::new(Name::new(verb), self.span(start, start + verb.len()));
                self.at += 1;
                let args = self.arguments(Self::expr_full)?;
                let end = self.statement_end()?;
                let span = self.span(start, end);
                Stmt::Command { verb, args, span }
            }
            first => {
                let mut place = vec![Spanned::new(Name::new(first), self.span(start, start + first.len()))];
                while self.peek() == Some(b'.') {
                    self.at += 1;
                    place.push(self.ident()?);
                    self.skip()?;
                }
                let op = match (self.peek(), self.peek_at(1)) {
                    (Some(b'+'), Some(b'=')) => AssignOp::Add,
                    (Some(b'-'), Some(b'=')) => AssignOp::Sub,
                    (Some(b'='), Some(b'=')) => return None,
                    (Some(b'='), _) => AssignOp::Set,
                    _ => return None,
                };
                self.at += if op == AssignOp::Set { 1 } else { 2 };
                place.shrink_to_fit();
                let value = self.expr_full()?;
                let end = self.statement_end()?;
                let span = self.span(start, end);
                Stmt::Modify { place, op, value, span }
            }
        }))
    }

    /// Where a statement with an optional `;` ends: after the `;`, else (as pest's span has it)
    /// after the blank that follows it.
    fn statement_end(&mut self) -> Option<usize> {
        self.eat(b';')?;
        Some(self.at)
    }

    /// An expression with operators, the cursor before it; the cursor is left after the blank
    /// that follows it.
    fn expr_full(&mut self) -> Option<Expr> {
        let mut pieces = 0usize;
        let e = self.climb(0, &mut pieces)?;
        self.skip()?;
        Some(e)
    }

    /// Operands joined by operators binding tighter than `min`.
    fn climb(&mut self, min: u8, pieces: &mut usize) -> Option<Expr> {
        let mut lhs = self.operand(pieces)?;
        loop {
            self.skip()?;
            let Some((op, power, len)) = infix(self) else { return Some(lhs) };
            if power <= min {
                return Some(lhs);
            }
            self.at += len;
            *pieces += 1;
            let rhs = self.climb(power, pieces)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span };
        }
    }

    /// Prefixes, a primary and its fields.
    fn operand(&mut self, pieces: &mut usize) -> Option<Expr> {
        *pieces += 1;
        if *pieces > PIECES {
            return None;
        }
        self.skip()?;
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
            let rhs = self.operand(pieces)?;
            let span = self.span(start, start + 1).to(rhs.span);
            return Some(Expr { kind: ExprKind::Unary(UnaryOp::Neg, Box::new(rhs)), span });
        }
        let mut probe = *self;
        if probe.word() == Some("not") {
            self.at = probe.at;
            let rhs = self.operand(pieces)?;
            let span = self.span(start, start + 3).to(rhs.span);
            return Some(Expr { kind: ExprKind::Unary(UnaryOp::Not, Box::new(rhs)), span });
        }
        let mut e = self.primary(pieces)?;
        loop {
            self.skip()?;
            if self.peek() != Some(b'.') || self.peek_at(1) == Some(b'.') {
                break;
            }
            let dot = self.at;
            self.at += 1;
            let field = self.ident()?;
            *pieces += 1;
            let span = e.span.to(self.span(dot, field.span.end as usize - self.base));
            e = Expr { kind: ExprKind::Field(Box::new(e), field), span };
        }
        // An index or `has` after it: pest's to read.
        self.skip()?;
        let mut probe = *self;
        if self.peek() == Some(b'[') || probe.word() == Some("has") {
            return None;
        }
        Some(e)
    }

    fn primary(&mut self, pieces: &mut usize) -> Option<Expr> {
        let start = self.at;
        let kind = match self.peek()? {
            b'0'..=b'9' | b'+' => ExprKind::Int(self.int()?.value),
            b'"' => ExprKind::Str(self.string()?),
            b'(' => {
                self.at += 1;
                let inner = self.climb(0, pieces)?;
                self.punct(b')')?;
                return Some(Expr { span: self.span(start, self.at), ..inner });
            }
            _ => {
                let w = self.word()?;
                let end = self.at;
                let mut probe = *self;
                probe.skip()?;
                if probe.peek() == Some(b'(') && w != "if" {
                    let name = Spanned::new(Name::new(w), self.span(start, end));
                    self.at = probe.at + 1;
                    let args = self.arguments(|c| c.climb(0, &mut 0))?;
                    return Some(Expr { kind: ExprKind::Call(name, args), span: self.span(start, self.at) });
                }
                match w {
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    _ if super::die_word(w) || NOT_A_NAME.contains(&w) || w == "d" => return None,
                    _ => ExprKind::Name(Name::new(w)),
                }
            }
        };
        Some(Expr { kind, span: self.span(start, self.at) })
    }
}
