//! A fast path for the definitions large files are mostly made of: a class, weapon, accessory or
//! consumable whose entries are all plain (names, whole numbers, strings, ratings, tags with a
//! number or a name for each argument, a range of numbers or names), and a tag whose body is
//! `when`, `on`, commands and modifiers (`tags.rs`).
//!
//! It reads such a segment by hand in one pass and builds the same syntax tree, spans included,
//! as pest and `lower` build from it (tests compare the two on every definition in the
//! repository's `.oc` files and on thousands of mutated ones). At anything else — another kind of item, an
//! expression with an operator, a form, a `use`, a number too large, a mistake — it gives up and
//! pest reads the segment: every diagnostic is still pest's, and the grammar stays the one
//! definition of the language. pest spends most of its time on bookkeeping per rule attempted
//! (a class entry tries up to nine rules, each with its own stack snapshot), which one pass
//! over the bytes does not need.

use oc_diag::{FileId, Name, Span, Spanned};

use crate::ast::*;

mod tags;

/// The segment's items, if it is one plain class, item or tag definition.
pub(super) fn segment(file: FileId, source: &str, base: usize) -> Option<Vec<Item>> {
    let mut c = Cursor { text: source, bytes: source.as_bytes(), at: 0, file, base, held: 0 };
    c.skip()?;
    let start = c.at;
    let keyword = c.word()?;
    let item = match keyword {
        "class" => Item::Class(c.class(start)?),
        "weapon" => Item::Item(c.item(start, ItemKind::Weapon)?),
        "accessory" => Item::Item(c.item(start, ItemKind::Accessory)?),
        "consumable" => Item::Item(c.item(start, ItemKind::Consumable)?),
        "tag" => Item::Tag(c.tag(start)?),
        _ => return None,
    };
    c.skip()?;
    (c.at == c.bytes.len()).then(|| vec![item])
}

/// Adds `x` to a list usually holding one item (kept in place; a second allocates).
fn one_more<T>(v: &mut Few<T>, x: T) {
    v.push(x);
}

/// Adds `more` to `out`, taking it whole when `out` is empty (most lists are written once).
fn extend<T>(out: &mut Vec<T>, mut more: Vec<T>) {
    if out.is_empty() {
        *out = more;
    } else {
        out.append(&mut more);
    }
}

#[derive(Clone, Copy)]
struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    file: FileId,
    base: usize,
    /// List items waiting on the stack (`gather`), across nested lists: bounded, so that the
    /// fast path's stack stays small whatever the nesting (the watcher's and the language
    /// server's threads have small stacks); past it pest reads the segment.
    held: usize,
}

fn ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The most list items the fast path holds on the stack at once (`Cursor::held`).
const HELD: usize = 256;

/// Whether a word is read as dice (`d6`, `d20`), not a name.
fn die_word(w: &str) -> bool {
    w.starts_with('d') && w.as_bytes().get(1).is_some_and(|b| b.is_ascii_digit())
}

/// Words that begin something other than a plain name in an expression.
const NOT_A_NAME: &[&str] = &["true", "false", "if", "not", "and", "or", "has"];

impl<'a> Cursor<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start + self.base, end + self.base)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.at + ahead).copied()
    }

    /// Whitespace and comments (the grammar's `WHITESPACE` and `COMMENT`); `None` at a block
    /// comment left open.
    fn skip(&mut self) -> Option<()> {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(b' ' | b'\t' | b'\r' | b'\n'), _) => self.at += 1,
                (Some(0xEF), Some(0xBB)) if self.peek_at(2) == Some(0xBF) => self.at += 3,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => self.block_comment()?,
                _ => return Some(()),
            }
        }
    }

    fn block_comment(&mut self) -> Option<()> {
        let rest = crate::segment::skip_block_comment(self.text.get(self.at..)?)?;
        self.at = self.text.len() - rest.len();
        Some(())
    }

    /// A name (`[A-Za-z_][A-Za-z0-9_]*`) at the cursor.
    fn word(&mut self) -> Option<&'a str> {
        let start = self.at;
        if !self.peek().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            return None;
        }
        while self.peek().is_some_and(ident_char) {
            self.at += 1;
        }
        self.text.get(start..self.at)
    }

    /// After whitespace, a name with its span.
    fn ident(&mut self) -> Option<Ident> {
        self.skip()?;
        let start = self.at;
        let w = self.word()?;
        Some(Spanned::new(Name::new(w), self.span(start, self.at)))
    }

    /// After whitespace, the byte `b`.
    fn punct(&mut self, b: u8) -> Option<()> {
        self.skip()?;
        (self.peek() == Some(b)).then(|| self.at += 1)
    }

    /// After whitespace, whether the byte `b` comes next (taken if so).
    fn eat(&mut self, b: u8) -> Option<bool> {
        self.skip()?;
        let next = self.peek() == Some(b);
        if next {
            self.at += 1;
        }
        Some(next)
    }

    /// The items `next` reads one after another (`Some(None)` once the list is over, `None` at
    /// anything left to pest), in one allocation of exactly their number: each waits on the
    /// stack until the last is read (pushing and trimming cost a third of the fast path). A list
    /// longer than 64, or more than `HELD` items waiting in all the lists being read, is pest's
    /// to read.
    fn gather<T>(&mut self, next: &mut impl FnMut(&mut Self) -> Option<Option<T>>) -> Option<Vec<T>> {
        fn go<'a, T>(
            c: &mut Cursor<'a>,
            depth: usize,
            next: &mut impl FnMut(&mut Cursor<'a>) -> Option<Option<T>>,
        ) -> Option<Vec<T>> {
            match next(c)? {
                None => Some(Vec::with_capacity(depth)),
                Some(item) if depth < 64 && c.held < HELD => {
                    c.held += 1;
                    let v = go(c, depth + 1, next);
                    c.held -= 1;
                    let mut v = v?;
                    v.push(item);
                    Some(v)
                }
                Some(_) => None,
            }
        }
        let mut v = go(self, 0, next)?;
        v.reverse();
        Some(v)
    }

    /// `item (, item)*`, gathered.
    fn commas<T>(&mut self, item: impl Fn(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let mut first = true;
        self.gather(&mut |c| {
            if !first && !c.eat(b',')? {
                return Some(None);
            }
            first = false;
            item(c).map(Some)
        })
    }

    /// After whitespace, a whole number that fits 64 bits (a larger one is pest's to report),
    /// signed or not.
    fn int(&mut self) -> Option<Spanned<i64>> {
        self.skip()?;
        let start = self.at;
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.at += 1;
        }
        let digits = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        if self.at == digits || self.peek().is_some_and(ident_char) {
            return None;
        }
        let value = self.text.get(start..self.at)?.trim_start_matches('+').parse().ok()?;
        Some(Spanned::new(value, self.span(start, self.at)))
    }

    /// After whitespace, a string without a line break, unquoted as `lower::unquote` does.
    fn string(&mut self) -> Option<String> {
        self.punct(b'"')?;
        let mut out = String::new();
        let mut from = self.at;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\n' => return None,
                b'\\' => {
                    out.push_str(self.text.get(from..self.at)?);
                    self.at += 1;
                    let rest = self.text.get(self.at..)?;
                    let c = rest.chars().next()?;
                    if c == '\n' {
                        return None;
                    }
                    super::unescape(&mut out, c);
                    self.at += c.len_utf8();
                    from = self.at;
                }
                _ => self.at += 1,
            }
        }
        out.push_str(self.text.get(from..self.at)?);
        self.at += 1;
        Some(out)
    }

    /// After whitespace, a plain expression: a whole number or a name, with no operator, field,
    /// index, call or die after it (what comes next is left for the caller to read).
    fn expr(&mut self) -> Option<Expr> {
        self.skip()?;
        let start = self.at;
        let kind = if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            ExprKind::Int(self.int()?.value)
        } else {
            let w = self.word()?;
            if die_word(w) || NOT_A_NAME.contains(&w) {
                return None;
            }
            ExprKind::Name(Name::new(w))
        };
        let end = self.at;
        self.skip()?;
        // Only what ends a plain expression in the places it is read: a comma, a closing
        // bracket or brace, `..`, or the next entry's keyword.
        let ends = match (self.peek(), self.peek_at(1)) {
            (Some(b',' | b')' | b'}'), _) | (Some(b'.'), Some(b'.')) => true,
            (Some(b), _) if b.is_ascii_alphabetic() || b == b'_' => {
                let mut probe = *self;
                probe.word().is_some_and(|w| !NOT_A_NAME.contains(&w))
            }
            _ => false,
        };
        ends.then(|| Expr { kind, span: self.span(start, end) })
    }

    /// A tag reference: `Name` or `Name(arg, ...)`.
    fn tag_ref(&mut self) -> Option<TagRef> {
        self.skip()?;
        let start = self.at;
        let name = self.ident()?;
        if !self.eat(b'(')? {
            let span = name.span;
            return Some(TagRef { name, args: Few::new(), span });
        }
        let args = self.arguments(Self::expr)?;
        let span = self.span(start, self.at);
        Some(TagRef { name, args: args.into_iter().collect(), span })
    }

    /// `expr, ...)` after an opening bracket, gathered.
    fn arguments(&mut self, expr: impl Fn(&mut Self) -> Option<Expr>) -> Option<Vec<Expr>> {
        if self.eat(b')')? {
            return Some(Vec::new());
        }
        let args = self.commas(expr)?;
        self.punct(b')')?;
        Some(args)
    }

    /// `tags A, B(1)` after its keyword, added to `out`.
    fn tags(&mut self, out: &mut Vec<TagRef>) -> Option<()> {
        let more = self.commas(Self::tag_ref)?;
        extend(out, more);
        Some(())
    }

    /// `wields A, B` after its keyword, added to `out`.
    fn names(&mut self, out: &mut Vec<Ident>) -> Option<()> {
        let more = self.commas(Self::ident)?;
        extend(out, more);
        Some(())
    }

    /// `ratings { str C skl 3 }` after its keyword (which began at `start`).
    fn ratings(&mut self, start: usize) -> Option<RatingsBlock> {
        self.punct(b'{')?;
        let entries = self.gather(&mut |c| {
            if c.eat(b'}')? {
                return Some(None);
            }
            c.rating().map(Some)
        })?;
        Some(RatingsBlock { entries, span: self.span(start, self.at) })
    }

    /// One `stat value` of a ratings block.
    fn rating(&mut self) -> Option<(Ident, Spanned<Literal>)> {
        let name = self.ident()?;
        self.skip()?;
        let at = self.at;
        let value = if self.peek().is_some_and(|b| b.is_ascii_digit() || b == b'+' || b == b'-') {
            Literal::Int(self.int()?.value)
        } else {
            let w = self.word()?;
            // `d6`, `d{..}`: dice, pest's to read.
            if die_word(w) {
                return None;
            }
            if self.peek() == Some(b'{') && w == "d" {
                return None;
            }
            Literal::Name(Name::new(w))
        };
        Some((name, Spanned::new(value, self.span(at, self.at))))
    }

    /// A class after its keyword (which began at `start`).
    fn class(&mut self, start: usize) -> Option<ClassDef> {
        let name = self.ident()?;
        let title = self.title()?;
        let mut c = ClassDef::empty(name, title, self.span(start, start));
        self.punct(b'{')?;
        while !self.eat(b'}')? {
            let at = self.at;
            match self.word()? {
                // A second `doc` is pest's to report (`oc::field::duplicate`).
                "doc" if c.doc.is_none() => c.doc = Some(self.string()?),
                "ratings" => one_more(&mut c.ratings, self.ratings(at)?),
                "wields" => c.wields.extend(self.commas(Self::ident)?),
                "tags" => self.tags(&mut c.tags)?,
                "cost" => one_more(&mut c.costs, self.int()?),
                "promoted" => {
                    // Without `from`, pest's span of the entry runs over what follows it.
                    self.skip()?;
                    if self.word()? != "from" {
                        return None;
                    }
                    let from = self.ident()?;
                    c.promoted = Some(Promoted { span: self.span(at, self.at), from: Some(from) });
                }
                "kit" => {
                    self.punct(b'{')?;
                    if !self.eat(b'}')? {
                        self.names(&mut c.kit)?;
                        self.punct(b'}')?;
                    }
                }
                _ => return None,
            }
        }
        c.span = self.span(start, self.at);
        c.tighten();
        Some(c)
    }

    /// The optional title string after a definition's name.
    fn title(&mut self) -> Option<Option<String>> {
        self.skip()?;
        if self.peek() == Some(b'"') {
            self.string().map(Some)
        } else {
            Some(None)
        }
    }

    /// A weapon, accessory or consumable after its keyword (which began at `start`).
    fn item(&mut self, start: usize, kind: ItemKind) -> Option<ItemDef> {
        let name = self.ident()?;
        let title = self.title()?;
        let mut it = ItemDef::empty(kind, name, title, self.span(start, start));
        self.punct(b'{')?;
        while !self.eat(b'}')? {
            let at = self.at;
            let keyword = self.word()?;
            // A keyword followed by `=`, `+=`, `-=` or a field is a modifier: pest's to read.
            self.skip()?;
            if matches!((self.peek(), self.peek_at(1)), (Some(b'=' | b'.'), _) | (Some(b'+' | b'-'), Some(b'='))) {
                return None;
            }
            match keyword {
                // A second `doc` is pest's to report (`oc::field::duplicate`).
                "doc" if it.doc.is_none() => it.doc = Some(self.string()?),
                "type" => one_more(&mut it.weapon_type, self.ident()?),
                "might" => one_more(&mut it.might, self.int()?),
                "weight" => one_more(&mut it.weight, self.int()?),
                "range" => {
                    let min = self.expr()?;
                    let max = if self.peek() == Some(b'.') {
                        self.at += 2;
                        Some(self.expr()?)
                    } else {
                        None
                    };
                    // pest's span of the entry runs on over the blank and comments after its
                    // last expression, up to what comes next (where `expr` left the cursor).
                    one_more(&mut it.range, RangeSpec { min, max, span: self.span(at, self.at) });
                }
                "tags" => self.tags(&mut it.tags)?,
                "cost" => one_more(&mut it.costs, self.int()?),
                _ => return None,
            }
        }
        it.span = self.span(start, self.at);
        it.tighten();
        Some(it)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]
    use super::*;

    /// The fast path's items for one segment, checked against pest's: `Some(true)` where it read
    /// the segment (and built the same tree), `Some(false)` where it gave up.
    fn agrees(source: &str, base: usize) -> bool {
        let file = FileId(3);
        let Some(fast) = segment(file, source, base) else { return false };
        let pest = super::super::parse_with_pest(file, source, base)
            .unwrap_or_else(|e| panic!("the fast path read what pest refuses:\n{source}\n{e}"));
        assert!(pest.1.is_empty(), "pest reported problems the fast path did not:\n{source}");
        assert_eq!(format!("{fast:#?}"), format!("{:#?}", pest.0), "different trees for:\n{source}");
        true
    }

    fn segments(text: &str) -> Vec<std::ops::Range<usize>> {
        crate::segment::split(FileId(3), text, &mut Vec::new(), &mut Vec::new())
    }

    /// Deeply nested blocks full of statements: the fast path holds at most `HELD` items on the
    /// stack in all, so it reads them (or leaves them to pest) within a thread's default stack
    /// (2 MB, unoptimised in this test), as deep as the segmenter lets brackets nest.
    #[test]
    fn nested_lists_stay_within_a_small_stack() {
        let body = |statements: usize| "x += 1\n".repeat(statements);
        for (levels, statements) in [(62, 3), (62, 60), (8, 30)] {
            let mut text = String::from("tag T {\n");
            for _ in 0..levels {
                text.push_str(&body(statements));
                text.push_str("when a {\n");
            }
            text.push_str(&"}\n".repeat(levels + 1));
            let read = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || {
                    let read = segment(FileId(0), &text, 0).is_some();
                    // And the whole parse, pest reading what the fast path leaves.
                    let (file, diagnostics) = crate::parse(FileId(0), &text);
                    assert!(diagnostics.is_empty() && file.items.len() == 1, "{diagnostics:?}");
                    read
                })
                .unwrap()
                .join()
                .unwrap();
            // Few items in all: read here; many: left to pest.
            assert_eq!(read, levels * statements <= HELD, "{levels} levels of {statements}");
        }
    }

    /// The words the fast path reads as keywords are the grammar's in those places: a keyword
    /// renamed in the grammar cannot stay accepted here (the tests above would not see it).
    #[test]
    fn its_keywords_are_the_grammars() {
        use crate::keywords::first_words;
        let places: [(&str, &[&str]); 6] = [
            ("item", &["class", "weapon", "accessory", "consumable", "tag"]),
            ("class_entry", &["doc", "ratings", "wields", "tags", "cost", "promoted", "kit"]),
            ("item_entry", &["doc", "type", "might", "weight", "range", "tags", "cost"]),
            ("tag_modifier", &["stacks", "on", "doc"]),
            ("statement", &["doc", "when", "on"]),
            ("promoted", &["promoted"]),
        ];
        for (rule, words) in places {
            let first = first_words(rule);
            for w in words {
                assert!(first.contains(w), "`{w}` does not begin a `{rule}` in the grammar: {first:?}");
            }
        }
        assert!(crate::keywords::is_grammar_keyword("from"));
        for w in NOT_A_NAME {
            assert!(crate::keywords::is_grammar_keyword(w), "`{w}` is not a keyword of the grammar");
        }
    }

    /// Every `.oc` file of the repository: the standard library, scenarios, examples, fixtures.
    #[test]
    fn every_definition_it_reads_in_the_repository_reads_as_pest_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut stack = vec![root];
        let (mut read, mut total) = (0, 0);
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().to_string();
                if path.is_dir() {
                    if !name.starts_with('.') && name != "target" && name != "node_modules" {
                        stack.push(path);
                    }
                } else if name.ends_with(".oc") {
                    // (Some fixtures are not UTF-8 on purpose.)
                    let Ok(text) = std::fs::read_to_string(&path) else { continue };
                    for range in segments(&text) {
                        total += 1;
                        read += usize::from(agrees(&text[range.clone()], range.start));
                    }
                }
            }
        }
        // The standard library alone has dozens of plain weapons and classes.
        eprintln!("the fast path read {read} of {total} segments");
        assert!(read > 100, "the fast path read {read} of {total} segments");
    }

    /// Plain definitions written every way the grammar allows between tokens, then each mutated
    /// byte by byte: whatever the fast path reads, pest reads the same; the rest it leaves alone.
    #[test]
    fn mutated_definitions_read_as_pest_reads_them_or_not_at_all() {
        let seeds = [
            "class Knight \"Armor Knight\" {\n    doc \"Slow;\\t \\\"hard\\\" to hurt.\\n \\q ü\"\n    ratings { str B mag E skl 3 }\n    wields Lances, Swords\n    tags Armored, Lucky(5), Effective(Flying, 2)\n    cost 500\n    promoted from Soldier\n    kit { IronLance, Vulnerary }\n}",
            "// a weapon\nweapon IronBow /* old */ {\n    type Bows might 6 weight 5\n    range 2..3\n    tags Effective(Flying), Brave()\n    cost 540\n}\n",
            "accessory Ring { doc \"r\" weight -1 cost +10 }",
            "class Odd { ratings { str -1 luck +2 } cost -5 }",
            "consumable Elixir \"E\" { tags Heal(10) range 1 cost 3000 }",
            "\u{feff}class Lone { ratings { } wields Axes tags Lucky ( 1 ) , Bold /* x /* nested */ */ cost 1 }",
            "weapon W { range Short..Long tags Gen0(3), Gen1(d) }",
            "tag Gen0(x: Int, y: Stat) on class, weapon doc \"generated\" {\n    when attacker == self and foe.hp < 10 + x { damage_bonus += x }\n    on activated { heal(self, x) }\n}",
            "tag Sure stacks { when not (a.b.c >= -2 * (3 + x) % 4) or f(1, g(), \"s\") != true { hit = hit - 1 / 2; avoid -= +3 } doc \"d\" }",
            "tag T on unit { on hit { inflict(foe, Poison); when x <= y { a.b = min(a, b) - - c } } cure(self) debuff ( foe , 2 ) ; }",
            "tag E() { }",
            "tag F { when x > 1 or false { } on end_of_turn { seize(self) } }",
        ];
        let alphabet: &[u8] = b" \n,(){}\".-+=/*0123456789aAdfz_";
        let mut read = 0;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for seed in seeds {
            assert!(agrees(seed, 7), "the fast path reads the plain definition:\n{seed}");
            for _ in 0..3000 {
                let mut bytes = seed.as_bytes().to_vec();
                for _ in 0..1 + next() % 3 {
                    let at = (next() as usize) % (bytes.len() + 1);
                    let b = alphabet[(next() as usize) % alphabet.len()];
                    match next() % 3 {
                        0 if at < bytes.len() => {
                            bytes.remove(at);
                        }
                        1 if at < bytes.len() => bytes[at] = b,
                        _ => bytes.insert(at, b),
                    }
                }
                if let Ok(text) = String::from_utf8(bytes) {
                    read += usize::from(agrees(&text, 0));
                }
            }
        }
        assert!(read > 1000, "only {read} mutants were read by the fast path");
    }
}
