//! A class or an item the compilation lacks but another file of the project defines (the
//! scenario that never imported `rules/duelist.oc`): the unknown name's help says which file,
//! and the import that brings it in.

use oc_diag::Diagnostic;

use crate::paths::relative;
use crate::{codes, Compilation, Host, Workspace};

/// Project files looked through for one compilation's unknown names, at most.
const MAX_FILES: usize = 500;

/// Amends each unknown class's or item's help with the project file that defines it, if one
/// outside this compilation does.
pub(crate) fn point(ws: &Workspace, host: &mut dyn Host, compilation: &mut Compilation) {
    let wanted = |d: &Diagnostic| d.code == codes::UNKNOWN_CLASS || d.code == codes::UNKNOWN_ITEM;
    if !compilation.diagnostics.iter().any(wanted) {
        return;
    }
    let compiled: Vec<String> = compilation.files.iter().filter_map(|id| ws.file(*id).map(|f| f.path.clone())).collect();
    let others: Vec<String> = host.candidates().into_iter().filter(|c| !compiled.contains(c)).take(MAX_FILES).collect();
    let mut texts: Vec<(String, String)> = Vec::new();
    for d in compilation.diagnostics.iter_mut().filter(|d| wanted(d)) {
        let Some(name) = d.message.split('`').nth(1).map(str::to_string) else { continue };
        let keyword = if d.code == codes::UNKNOWN_CLASS { &["class"][..] } else { &["weapon", "accessory", "consumable"][..] };
        if texts.is_empty() {
            texts = others.iter().filter_map(|p| host.read(p).ok().map(|t| (p.clone(), t))).collect();
        }
        let Some((file, _)) = texts.iter().find(|(_, text)| defines(text, keyword, &name)) else { continue };
        let Some(importer) = ws.file(d.span.file).map(|f| f.path.clone()) else { continue };
        let import = relative(&importer, file);
        let what = if d.code == codes::UNKNOWN_CLASS { "class" } else { "item" };
        d.help = format!("the {what} `{name}` is defined in {file}, which this file does not import: add `import \"{import}\"`");
    }
}

/// Whether `text` has a line that starts a definition `KEYWORD NAME`.
fn defines(text: &str, keywords: &[&str], name: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split(|c: char| c.is_whitespace() || c == '{' || c == '"').filter(|w| !w.is_empty());
        matches!((words.next(), words.next()), (Some(k), Some(n)) if keywords.contains(&k) && n == name)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn relative_paths() {
        assert_eq!(super::relative("campaign/crossing.oc", "rules/duelist.oc"), "../rules/duelist.oc");
        assert_eq!(super::relative("a.oc", "rules/duelist.oc"), "rules/duelist.oc");
        assert_eq!(super::relative("x/y/a.oc", "x/b.oc"), "../b.oc");
    }
}
