//! The layout pass: tokens to lines, each line indented by its nesting, tokens spaced by fixed
//! rules, table grids aligned, trailing comments aligned.
//!
//! **Invariant:** the author's line breaks are kept (only runs of blank lines shrink to one), so
//! no token moves to another line and the segmenter of `oc-syntax`, which reads line starts,
//! cuts the output where it cut the input. Everything here is a function of the tokens and of
//! where the lines break, which is what makes formatting idempotent.

use std::ops::Range;

use crate::grid;
use crate::lex::{Kind, Token};
use crate::line::{push_token, spaced, Ctx, OutLine, Role, Tok, PREFIX_WORDS};

/// One line of the input: its tokens, and whether blank lines came before it.
struct Line {
    toks: Range<usize>,
    blank_before: bool,
}

const INDENT: usize = 4;

/// Keywords followed by a number that may carry a sign (`weight -2..2`, `defense +1`).
const INT_WORDS: &[&str] = &[
    "weight",
    "inventory",
    "defense",
    "heal",
    "hp",
    "might",
    "cost",
    "lasts",
    "rounds",
    "war_chest",
    "units",
    "at_least",
    "at_most",
    "rout",
    "escape",
    "for",
    "survive",
    "raze",
    "vision",
];
/// A line ending with one of these goes on (`and`, `,`, `=`...).
const OPEN_ENDED_PUNCT: &[&str] =
    &["=", "+=", "-=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", ",", ":", ".", "..", "->"];
const OPEN_ENDED_WORDS: &[&str] = &[
    "and", "or", "not", "if", "then", "else", "has", "when", "requires", "within", "on", "doc", "for", "to", "at", "from",
    "with", "through", "in",
];
/// A line starting with one of these continues the one before.
const CONTINUING_WORDS: &[&str] =
    &["and", "or", "not", "if", "then", "else", "has", "at", "from", "through", "in", "to", "with", "within"];
const ITEM_KEYWORDS: &[&str] = &[
    "import",
    "ruleset",
    "movement",
    "terrain",
    "weapon_type",
    "triangle",
    "tag",
    "status",
    "class",
    "weapon",
    "accessory",
    "consumable",
    "scenario",
    "army",
];

/// Lays out a tokenized file. The result ends with one newline, or is empty for a file of
/// whitespace only.
pub fn layout(tokens: &[Token<'_>]) -> String {
    let (mut toks, lines) = split_lines(tokens);
    let indents = nest(&mut toks, &lines);
    assign_roles(&mut toks);
    let mut out: Vec<OutLine> = Vec::with_capacity(lines.len());
    for (line, indent) in lines.iter().zip(indents) {
        let Some(slice) = toks.get(line.toks.clone()) else { continue };
        out.push(render_line(slice, indent, line.blank_before));
    }
    grid::align_tables(&mut out);
    grid::align_comments(&mut out);
    emit(&out)
}

/// Drops whitespace, remembering which tokens were glued to the one before, and cuts lines.
fn split_lines<'a>(tokens: &[Token<'a>]) -> (Vec<Tok<'a>>, Vec<Line>) {
    let mut toks = Vec::new();
    let mut lines = Vec::new();
    let mut glued = true;
    let mut start = 0;
    let mut newlines = 0usize;
    for t in tokens {
        match t.kind {
            Kind::Space => glued = false,
            Kind::Newline => {
                glued = false;
                if toks.len() > start {
                    lines.push(Line { toks: start..toks.len(), blank_before: newlines > 1 && !lines.is_empty() });
                    start = toks.len();
                    newlines = 0;
                }
                newlines += 1;
            }
            kind => {
                toks.push(Tok { kind, text: t.text, glued, ctx: Ctx::Top, role: Role::Plain, table: 0 });
                glued = true;
            }
        }
    }
    if toks.len() > start {
        lines.push(Line { toks: start..toks.len(), blank_before: newlines > 1 && !lines.is_empty() });
    }
    (toks, lines)
}

struct Open {
    ctx: Ctx,
    /// The indentation of the line the bracket was opened on.
    indent: usize,
    table: usize,
}

/// Sets every token's bracket context and returns each line's indentation (in levels).
fn nest(toks: &mut [Tok<'_>], lines: &[Line]) -> Vec<usize> {
    let mut stack: Vec<Open> = Vec::new();
    let mut indents = Vec::with_capacity(lines.len());
    // The last two significant tokens seen, and the last one of the previous code line.
    let mut prev: Option<Tok<'_>> = None;
    let mut prev2: Option<Tok<'_>> = None;
    // For each line, the first significant token of it or of the next line that has one.
    let mut next_code: Vec<Option<Tok<'_>>> = vec![None; lines.len()];
    let mut seen = None;
    for (n, line) in lines.iter().enumerate().rev() {
        seen = first_significant(toks, line).copied().or(seen);
        if let Some(slot) = next_code.get_mut(n) {
            *slot = seen;
        }
    }
    for (n, line) in lines.iter().enumerate() {
        let first_code = first_significant(toks, line);
        let opens_with_closer =
            first_code.is_some_and(|t| t.is_closer()) && first_token(toks, line).is_some_and(|t| !t.is_comment());
        let indent = if opens_with_closer {
            stack.last().map_or(0, |o| o.indent)
        } else {
            let base = stack.last().map_or(0, |o| o.indent + 1);
            let ctx = stack.last().map_or(Ctx::Top, |o| o.ctx);
            // A line of comments takes the indentation of the code line it stands above.
            let first = next_code.get(n).copied().flatten();
            let continued = first.is_some_and(|first| continues(prev.as_ref(), &first, ctx));
            base + usize::from(continued)
        };
        indents.push(indent);
        for i in line.toks.clone() {
            let Some(tok) = toks.get(i).copied() else { continue };
            if tok.is_closer() {
                stack.pop();
            }
            let (ctx, table) = stack.last().map_or((Ctx::Top, 0), |o| (o.ctx, o.table));
            if let Some(t) = toks.get_mut(i) {
                t.ctx = ctx;
                t.table = table;
            }
            if tok.is_opener() {
                let ctx = match tok.text {
                    "(" => Ctx::Paren,
                    "[" => Ctx::Bracket,
                    _ => brace_ctx(prev.as_ref(), prev2.as_ref()),
                };
                stack.push(Open { ctx, indent, table: i });
            }
            if !tok.is_comment() {
                prev2 = prev;
                prev = Some(tok);
            }
        }
    }
    indents
}

fn first_token<'t, 'a>(toks: &'t [Tok<'a>], line: &Line) -> Option<&'t Tok<'a>> {
    toks.get(line.toks.clone()).and_then(|s| s.first())
}

fn first_significant<'t, 'a>(toks: &'t [Tok<'a>], line: &Line) -> Option<&'t Tok<'a>> {
    toks.get(line.toks.clone()).and_then(|s| s.iter().find(|t| !t.is_comment()))
}

/// What a `{` opens, from the tokens before it.
fn brace_ctx(prev: Option<&Tok<'_>>, prev2: Option<&Tok<'_>>) -> Ctx {
    let after_dot = prev2.is_some_and(|t| t.is("."));
    match (prev, prev2) {
        (Some(p), Some(q)) if p.kind == Kind::Word && q.is("->") => Ctx::Table,
        (Some(p), _) if p.is_word(&["cost", "ratings"]) && !after_dot => Ctx::Values,
        _ => Ctx::Block,
    }
}

/// Whether a line starting with `first` goes on with the statement the line before ended in.
fn continues(prev: Option<&Tok<'_>>, first: &Tok<'_>, ctx: Ctx) -> bool {
    if !matches!(ctx, Ctx::Top | Ctx::Block) || first.is("{") || first.is_closer() {
        return false;
    }
    let Some(prev) = prev else { return false };
    // The first line of a block starts a statement (`charging {` then `with ...`).
    if prev.is("{") {
        return false;
    }
    let open_ended = match prev.kind {
        Kind::Punct => OPEN_ENDED_PUNCT.contains(&prev.text),
        Kind::Word => OPEN_ENDED_WORDS.contains(&prev.text),
        _ => false,
    };
    if ctx == Ctx::Top {
        // Outside every bracket a line starts an item (an item keyword, unless the line before
        // asks for more: `tag X on` / `class`) or continues an item's header.
        return open_ended || !first.is_word(ITEM_KEYWORDS);
    }
    let continuing = match first.kind {
        Kind::Punct => OPEN_ENDED_PUNCT.contains(&first.text),
        Kind::Word => CONTINUING_WORDS.contains(&first.text),
        _ => false,
    };
    open_ended || continuing
}

/// Decides what each `-`, `+` and `/` is (see [`Role`]).
fn assign_roles(toks: &mut [Tok<'_>]) {
    let significant: Vec<usize> = (0..toks.len()).filter(|&i| toks.get(i).is_some_and(|t| !t.is_comment())).collect();
    for (k, &i) in significant.iter().enumerate() {
        let Some(tok) = toks.get(i).copied() else { continue };
        if tok.kind != Kind::Punct {
            continue;
        }
        let back = |n: usize| k.checked_sub(n).and_then(|j| significant.get(j)).and_then(|&j| toks.get(j)).copied();
        let (prev, prev2) = (back(1), back(2));
        let next = toks.get(i + 1).copied();
        let role = match tok.text {
            "-" | "+" => {
                let glued_number = next.is_some_and(|n| n.kind == Kind::Int && n.glued);
                sign_role(tok.ctx, prev, prev2, glued_number)
            }
            "/" => {
                let between_numbers = prev.is_some_and(|p| p.kind == Kind::Int)
                    && toks.get(i.wrapping_sub(1)).is_some_and(|p| p.kind == Kind::Int)
                    && next.is_some_and(|n| n.kind == Kind::Int);
                if between_numbers && prev2.is_some_and(|w| w.is_word(&["at_least", "at_most"])) {
                    Role::Fraction
                } else {
                    Role::Binary
                }
            }
            _ => Role::Plain,
        };
        if let Some(t) = toks.get_mut(i) {
            t.role = role;
        }
    }
}

fn sign_role(ctx: Ctx, prev: Option<Tok<'_>>, prev2: Option<Tok<'_>>, glued_number: bool) -> Role {
    let after_dot = prev2.is_some_and(|t| t.is("."));
    let operand = prev.is_some_and(|p| match p.kind {
        Kind::Word => after_dot || !PREFIX_WORDS.contains(&p.text),
        Kind::Int | Kind::Str | Kind::Dice | Kind::DiceClose => true,
        Kind::Punct => p.is(")") || p.is("]"),
        _ => false,
    });
    if !operand {
        return Role::Prefix;
    }
    if matches!(ctx, Ctx::Values | Ctx::Table) {
        return if glued_number { Role::Sign } else { Role::Mark };
    }
    let keyword_before = prev.is_some_and(|p| p.is_word(INT_WORDS)) && !after_dot;
    let class_range_bound = prev.is_some_and(|p| p.kind == Kind::Word) && prev2.is_some_and(|q| q.is_word(&["class_range"]));
    if glued_number && (keyword_before || class_range_bound) {
        Role::Sign
    } else {
        Role::Binary
    }
}

/// One line: its tokens spaced, a trailing `//` comment set apart, a table row cut into cells.
fn render_line(toks: &[Tok<'_>], indent: usize, blank_before: bool) -> OutLine {
    let (body, comment) = match toks.split_last() {
        Some((last, body)) if last.kind == Kind::LineComment => (body, Some(last.text.trim_end().to_string())),
        _ => (toks, None),
    };
    let multi_line = body.iter().any(|t| t.text.contains('\n'));
    let table = body.first().map(|t| t.table);
    let is_row = !body.is_empty()
        && !multi_line
        && body.iter().all(|t| t.ctx == Ctx::Table && Some(t.table) == table && !t.is_opener() && !t.is_closer());
    let grid = if is_row { table.map(|id| (id, grid::cells(body))) } else { None };
    let mut code = String::new();
    for (k, tok) in body.iter().enumerate() {
        if k > 0 && body.get(k - 1).is_some_and(|p| spaced(p, tok)) {
            code.push(' ');
        }
        push_token(&mut code, tok.text);
    }
    OutLine { indent: indent * INDENT, code, comment, comment_at: 0, blank_before, grid }
}

/// The lines joined: indentation, code, comment; one blank line where the input had some.
fn emit(lines: &[OutLine]) -> String {
    let mut out = String::new();
    for line in lines {
        if line.blank_before {
            out.push('\n');
        }
        let mut text = " ".repeat(line.indent);
        text.push_str(&line.code);
        if let Some(comment) = &line.comment {
            if !line.code.is_empty() {
                let width = text.rsplit('\n').next().map_or(0, |l| l.chars().count());
                text.push_str(&" ".repeat(line.comment_at.saturating_sub(width).max(1)));
            }
            text.push_str(comment);
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}
