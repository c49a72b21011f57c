//! Examples for help lines, taken from the rules themselves where they can be: "write
//! `Lucky(5)`" quotes a use of `Lucky` the classes or items already make.

use std::collections::HashMap;

use oc_syntax::ast;

use crate::env::{Checker, TagSig};

/// A tag argument as written, for the simple forms tag arguments take (`5`, `Armored`, `res+1`).
fn written(e: &ast::Expr) -> Option<String> {
    Some(match &e.kind {
        ast::ExprKind::Int(i) => i.to_string(),
        ast::ExprKind::Bool(b) => b.to_string(),
        ast::ExprKind::Name(n) => n.to_string(),
        ast::ExprKind::Unary(ast::UnaryOp::Neg, inner) => format!("-{}", written(inner)?),
        ast::ExprKind::Binary(op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), l, r) => {
            let sign = if matches!(op, ast::BinaryOp::Add) { "+" } else { "-" };
            format!("{}{sign}{}", written(l)?, written(r)?)
        }
        _ => return None,
    })
}

impl Checker<'_> {
    /// How to write a use of the tag: a use with the right number of arguments from a class or
    /// item (and which), else one made of an example per parameter.
    pub(crate) fn tag_usage_example(&mut self, tag: &str, sig: &TagSig) -> (String, Option<String>) {
        let examples = self.notes.examples.get_or_insert_with(|| {
            // Every written use once, the first of each tag and argument count kept: classes,
            // then items, in source order. A definition held as text is parsed again here
            // (quietly: its syntax is reported once, where it is lowered).
            let mut found: HashMap<(oc_diag::Name, usize), (String, String)> = HashMap::new();
            let mut note = |owner: &str, uses: &[ast::TagRef]| {
                for u in uses.iter().filter(|u| !u.args.is_empty()) {
                    let key = (u.name.value.clone(), u.args.len());
                    if found.contains_key(&key) {
                        continue;
                    }
                    if let Some(args) = u.args.iter().map(written).collect::<Option<Vec<_>>>() {
                        found.insert(key, (format!("{}({})", u.name.value, args.join(", ")), owner.to_string()));
                    }
                }
            };
            for name in &self.syms.classes.order {
                if let Some(c) = self.syms.classes.get(name).and_then(|i| self.class_defs.get(i)).and_then(|h| h.reread()) {
                    note(name, &c.tags);
                }
            }
            for name in &self.syms.items.order {
                if let Some(i) = self.syms.items.get(name).and_then(|i| self.item_defs.get(i)).and_then(|h| h.reread()) {
                    note(name, &i.tags);
                }
            }
            found
        });
        if let Some((example, owner)) = examples.get(&(oc_diag::Name::from(tag), sig.params.len())) {
            return (example.clone(), Some(owner.clone()));
        }
        let args: Vec<String> = sig.params.iter().map(|(_, t)| self.example_of(t).replace('`', "")).collect();
        if args.is_empty() {
            (tag.to_string(), None)
        } else {
            (format!("{tag}({})", args.join(", ")), None)
        }
    }
}
