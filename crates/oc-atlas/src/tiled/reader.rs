//! Reading Tiled's XML with spans: the diagnostics gathered so far, and the properties and
//! class of an element, shared by the map's import and its tilesets.

use std::collections::BTreeMap;

use oc_diag::{Diagnostic, FileId, Span};

/// The TMX being read (`file`) and what was found wrong with it.
pub(super) struct Reader {
    pub file: FileId,
    pub diags: Vec<Diagnostic>,
}

impl Reader {
    pub(super) fn span(&self, range: std::ops::Range<usize>) -> Span {
        Span::new(self.file, range.start, range.end)
    }
    pub(super) fn node_span(&self, node: roxmltree::Node) -> Span {
        // The start tag, not the whole element (which may run for pages).
        let r = node.range();
        let text = node.document().input_text();
        let end = text.get(r.clone()).and_then(|t| t.find('>')).map_or(r.end, |i| r.start + i + 1);
        self.span(r.start..end)
    }
    pub(super) fn attr_span(&self, node: roxmltree::Node, name: &str) -> Span {
        match node.attribute_node(name) {
            Some(a) => self.span(a.range_value()),
            None => self.node_span(node),
        }
    }
    pub(super) fn error(&mut self, code: &'static str, span: Span, message: String, help: &str) {
        self.diags.push(Diagnostic::error(code, span, message).with_help(help));
    }
    pub(super) fn warning(&mut self, code: &'static str, span: Span, message: String, help: &str) {
        self.diags.push(Diagnostic::warning(code, span, message).with_help(help));
    }
}

/// The `<property>` children of a node's `<properties>`: name -> (value, the property node).
pub(super) fn properties<'a, 'input>(
    node: roxmltree::Node<'a, 'input>,
) -> BTreeMap<String, (String, roxmltree::Node<'a, 'input>)> {
    let mut out = BTreeMap::new();
    for props in node.children().filter(|c| c.has_tag_name("properties")) {
        for p in props.children().filter(|c| c.has_tag_name("property")) {
            let Some(name) = p.attribute("name") else { continue };
            // A multi-line string property keeps its value as the element's text.
            let value = p.attribute("value").map(str::to_string).or_else(|| p.text().map(str::to_string)).unwrap_or_default();
            out.insert(name.to_string(), (value, p));
        }
    }
    out
}

/// The class of an object or tile: Tiled 1.9+ writes `class`, earlier versions `type`.
pub(super) fn class<'a>(node: roxmltree::Node<'a, '_>) -> Option<&'a str> {
    node.attribute("class").or_else(|| node.attribute("type")).filter(|s| !s.is_empty())
}
