//! Examples for help lines, taken from the rules themselves where they can be: "write
//! `Lucky(5)`" quotes a use of `Lucky` the classes or items already make.

use oc_syntax::ast;

use crate::check::{Checker, Held, TagSig};

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
        // Every class's and item's tree is wanted: where some are text, check again with trees.
        if self.class_defs.iter().any(|h| h.as_tree().is_none()) || self.item_defs.iter().any(|h| h.as_tree().is_none()) {
            self.needs_trees = true;
        }
        let uses = self
            .classes
            .order
            .iter()
            .filter_map(|n| {
                self.classes.get(n).and_then(|i| self.class_defs.get(i)).and_then(Held::as_tree).map(|c| (n, &c.tags))
            })
            .chain(self.items.order.iter().filter_map(|n| {
                self.items.get(n).and_then(|i| self.item_defs.get(i)).and_then(Held::as_tree).map(|i| (n, &i.tags))
            }));
        for (owner, tags) in uses {
            for u in tags.iter().filter(|u| u.name.value == tag && u.args.len() == sig.params.len() && !u.args.is_empty()) {
                if let Some(args) = u.args.iter().map(written).collect::<Option<Vec<_>>>() {
                    return (format!("{tag}({})", args.join(", ")), Some(owner.to_string()));
                }
            }
        }
        let args: Vec<String> = sig.params.iter().map(|(_, t)| self.example_of(t).replace('`', "")).collect();
        if args.is_empty() {
            (tag.to_string(), None)
        } else {
            (format!("{tag}({})", args.join(", ")), None)
        }
    }
}
