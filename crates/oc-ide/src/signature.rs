//! Signature help inside a tag's or a verb's parentheses (`Lucky(|` shows `Lucky(x: Int)` with
//! `x` active), and inlay hints naming each argument of a tag use (`Lucky(x: 5)`).

use oc_fmt::lex::{tokenize, Kind};

use crate::defs::scope_defs;
use crate::names::{self, Scope};
use crate::{scope_of, Db, FilePosition};

/// A signature: its label, where each parameter is in it (byte ranges of the label), which one
/// the cursor is at, and the definition's doc line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    pub label: String,
    pub params: Vec<(usize, usize)>,
    pub active: usize,
    pub doc: Option<String>,
}

/// The call around `offset`: the callee's name and how many commas precede the cursor in its
/// parentheses. Read from the tokens, so a half-typed `tags Lucky(` is found.
fn call_at(text: &str, offset: usize) -> Option<(String, usize)> {
    let mut toks: Vec<(Kind, &str)> = Vec::new();
    let mut at = 0;
    for t in tokenize(text) {
        if at >= offset {
            break;
        }
        at += t.text.len();
        if !matches!(t.kind, Kind::Space | Kind::Newline | Kind::LineComment | Kind::BlockComment) {
            toks.push((t.kind, t.text));
        }
    }
    let mut depth = 0usize;
    let mut commas = 0usize;
    for (i, (_, text)) in toks.iter().enumerate().rev() {
        match *text {
            ")" | "]" => depth += 1,
            "(" | "[" if depth > 0 => depth -= 1,
            "(" => {
                let (kind, name) = toks.get(i.checked_sub(1)?)?;
                return (*kind == Kind::Word).then(|| (name.to_string(), commas));
            }
            "[" | "{" | "}" => return None,
            "," if depth == 0 => commas += 1,
            _ => {}
        }
    }
    None
}

/// A type as a user reads it.
fn type_word(ty: &oc_model::Type) -> String {
    match ty {
        oc_model::Type::Scale(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

pub fn signature_help(db: &dyn Db, pos: FilePosition<'_>) -> Option<SignatureHelp> {
    let text = db.text(pos.path)?;
    let (name, active) = call_at(text, pos.offset)?;
    let scope = scope_of(db, pos.path);
    let defs = scope_defs(db, &scope);
    let resolver = Scope::new(&defs);
    let (params, doc): (Vec<String>, Option<String>) = match resolver.tag_def(db, &name) {
        Some(tag) => (tag.params.iter().map(|p| format!("{}: {}", p.name.value, p.ty.value)).collect(), tag.doc.clone()),
        None => {
            let verb = oc_model::conformance::VERBS.iter().find(|v| v.name == name)?;
            (verb.params.iter().map(type_word).collect(), None)
        }
    };
    let mut label = format!("{name}(");
    let mut ranges = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        ranges.push((label.len(), label.len() + p.len()));
        label.push_str(p);
    }
    label.push(')');
    Some(SignatureHelp { label, params: ranges, active: active.min(params.len().saturating_sub(1)), doc })
}

/// An inlay hint: a label shown before `offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: usize,
    pub label: String,
}

/// The parameter names of every tag use's arguments in `start..end` of a file (`Lucky(5)` shows
/// `x:` before the 5), but where the argument already says it (`Effective(t)` for `t: Tag`).
pub fn inlay_hints(db: &dyn Db, path: &str, start: usize, end: usize) -> Vec<InlayHint> {
    let Some(ast) = db.ast(path) else { return Vec::new() };
    let Some(text) = db.text(path) else { return Vec::new() };
    let names = names::names(ast);
    let scope = scope_of(db, path);
    let defs = scope_defs(db, &scope);
    let resolver = Scope::new(&defs);
    let mut out = Vec::new();
    for call in names.calls.iter().filter(|c| !c.args.is_empty()) {
        let (s, e) = (call.span.start as usize, call.span.end as usize);
        if e < start || s > end {
            continue;
        }
        let Some(tag) = resolver.tag_def(db, &call.name.value) else { continue };
        for (arg, param) in call.args.iter().zip(&tag.params) {
            let written = text.get(arg.start as usize..arg.end as usize).unwrap_or("");
            if written == param.name.value.as_str() {
                continue;
            }
            out.push(InlayHint { offset: arg.start as usize, label: format!("{}:", param.name.value) });
        }
    }
    out.sort_by_key(|h| h.offset);
    out
}

#[cfg(test)]
mod tests {
    use super::call_at;

    #[test]
    fn calls_found_in_half_typed_text() {
        assert_eq!(call_at("class A { tags Lucky(", 21), Some(("Lucky".to_string(), 0)));
        assert_eq!(call_at("class A { tags Effective(Armored, ", 34), Some(("Effective".to_string(), 1)));
        assert_eq!(call_at("x { heal(target, f(1, 2), ", 26), Some(("heal".to_string(), 2)));
        assert_eq!(call_at("class A { tags Lucky(5) ", 24), None);
    }
}
