//! What the layout and the alignment share: tokens with their bracket and role, a laid-out
//! line, a table row's cells, and how neighbouring tokens are spaced.

use crate::lex::Kind;

/// The innermost bracket around a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctx {
    /// Outside every bracket: item headers.
    Top,
    /// A `{ }` of statements or entries.
    Block,
    /// `cost { }` and `ratings { }`: names and numbers, never an expression.
    Values,
    /// The body of `table NAME[...] -> T { }`: rows laid out as a grid.
    Table,
    Paren,
    Bracket,
}

/// What a `-`, `+` or `/` is, decided from its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plain,
    /// A prefix (`-x`, `= -1`): glued to what follows.
    Prefix,
    /// The sign of a number after a word or a value (`weight -2`, `F: 1 -2`): glued to it.
    Sign,
    /// The impassable mark of a `cost { }` block: spaced.
    Mark,
    /// An infix operator: spaced.
    Binary,
    /// The `/` of a fraction (`at_most 1/3 ranged`): glued on both sides.
    Fraction,
}

/// A token that is not whitespace, with what the layout knows about it.
#[derive(Clone, Copy, Debug)]
pub struct Tok<'a> {
    pub kind: Kind,
    pub text: &'a str,
    /// No whitespace between it and the token before it in the input.
    pub glued: bool,
    pub ctx: Ctx,
    pub role: Role,
    /// For a token inside a table body: the index of the table's `{` (one grid per table).
    pub table: usize,
}

impl Tok<'_> {
    pub fn is(&self, punct: &str) -> bool {
        self.kind == Kind::Punct && self.text == punct
    }
    pub fn is_word(&self, words: &[&str]) -> bool {
        self.kind == Kind::Word && words.contains(&self.text)
    }
    pub fn is_comment(&self) -> bool {
        matches!(self.kind, Kind::LineComment | Kind::BlockComment)
    }
    pub fn is_opener(&self) -> bool {
        self.is("{") || self.is("(") || self.is("[")
    }
    pub fn is_closer(&self) -> bool {
        self.is("}") || self.is(")") || self.is("]")
    }
}

/// One line of the output before alignment.
pub struct OutLine {
    pub indent: usize,
    pub code: String,
    /// A `//` comment ending the line (alone on it when `code` is empty).
    pub comment: Option<String>,
    /// The column a trailing comment starts at (set when comments are aligned).
    pub comment_at: usize,
    pub blank_before: bool,
    /// A row line of a table: (the table, its cells).
    pub grid: Option<(usize, Vec<Cell>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub kind: CellKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// The row key part: `F:`, `Low, High:`.
    Key,
    Value,
    /// A block comment between cells: kept as it is, not counted in the widths.
    Comment,
}

/// Keywords after which an expression starts: a `-` there is a prefix, and a `(` is a group.
pub const PREFIX_WORDS: &[&str] =
    &["and", "or", "not", "if", "then", "else", "when", "requires", "within", "range", "in", "at", "to"];
/// Whether one space goes between two neighbouring tokens of a line.
pub fn spaced(a: &Tok<'_>, b: &Tok<'_>) -> bool {
    const GLUE_LEFT: &[&str] = &[",", ";", ":", ")", "]", ".", ".."];
    const GLUE_RIGHT: &[&str] = &["(", "[", ".", ".."];
    let glue_left = b.kind == Kind::Punct && GLUE_LEFT.contains(&b.text);
    let glue_right = a.kind == Kind::Punct && GLUE_RIGHT.contains(&a.text);
    // Listed faces hug their braces: `3d{0, 1, 2}!`.
    if glue_left || glue_right || a.kind == Kind::DiceOpen || b.kind == Kind::DiceClose {
        return false;
    }
    if a.is_comment() || b.is_comment() {
        return true;
    }
    if matches!(a.role, Role::Prefix | Role::Sign | Role::Fraction) || b.role == Role::Fraction {
        return false;
    }
    let call_like = |a: &Tok<'_>| a.kind == Kind::Word && !PREFIX_WORDS.contains(&a.text) && !a.is_word(&["win", "chest"]);
    if b.is("(") {
        return !call_like(a);
    }
    if b.is("[") {
        return !(call_like(a) || a.is(")") || a.is("]"));
    }
    !(a.is("{") && b.is("}"))
}

/// Appends a token; a block comment's inner lines lose their trailing whitespace.
pub fn push_token(code: &mut String, text: &str) {
    if text.contains('\n') {
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_some() {
                code.push_str(piece.trim_end());
                code.push('\n');
            } else {
                code.push_str(piece);
            }
        }
    } else {
        code.push_str(text);
    }
}
