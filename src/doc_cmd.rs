//! `oc doc`: the documentation site of a built-in ruleset or of a project's files, written as
//! one folder (HTML, the same pages in Markdown, the source files, the search index, and a
//! picture of each scenario's map).

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::commands::style;
use crate::report;

pub fn doc(ruleset: Option<&str>, paths: &[PathBuf], out: &Path, force: bool) -> u8 {
    let started = Instant::now();
    if out.as_os_str() == "-" {
        errln!("error: -o -: a documentation site is a folder of pages, not standard output");
        errln!("help: name a folder for the site (`oc doc -o site`), then open site/index.html");
        return 2;
    }
    // Without paths or --ruleset, the ruleset oc.toml names (as `oc balance` and `oc matrix`
    // read it), else the default.
    let named = match (ruleset, paths.is_empty()) {
        (None, true) => match oc_play::rules::of_working_directory() {
            Ok(r) => r,
            Err(r) => return crate::load::refused(&r),
        },
        _ => None,
    };
    let from_project: Vec<PathBuf>;
    let (ruleset, paths): (Option<&str>, &[PathBuf]) = match &named {
        Some(oc_play::rules::Ruleset::Builtin { name, .. }) => (Some(name), paths),
        Some(oc_play::rules::Ruleset::Path(p)) => {
            from_project = vec![p.clone()];
            (None, &from_project)
        }
        None => (ruleset, paths),
    };
    let oc_project::load::Documented { loaded, title, left_out } = match oc_project::load::documented(ruleset, paths) {
        Ok(d) => d,
        Err(r) => return crate::commands::refused(&r),
    };
    if !paths.is_empty() {
        report::set_root(&loaded.project.root);
    }
    if let Some((ruleset, left_out)) = left_out {
        errln!(
            "note: a site documents one ruleset (`{ruleset}`); left out: {}\nhelp: document the others on their own: `oc doc FILE -o DIR`",
            left_out.join(", ")
        );
    }
    let oc_project::load::Loaded { project, workspace, compilation, unreadable, inputs: read } = loaded;
    if !unreadable.is_empty() {
        return crate::load::unreadable_refused(workspace, &unreadable);
    }
    let mut inputs: Vec<PathBuf> = paths.to_vec();
    inputs.extend(read);
    // The site's domain (GitHub Pages' `CNAME`): the documented project's oc.toml, or for a
    // built-in ruleset the working directory's.
    let settings =
        if paths.is_empty() { std::env::current_dir().ok().map(|cwd| oc_project::discover::open(&cwd)) } else { Some(project) };
    // An oc.toml with errors (a `cname` that is not a domain) stops the site: written without
    // them, the site would lose the CNAME the last one had.
    let wrong: Vec<&oc_diag::Diagnostic> =
        settings.iter().flat_map(|p| &p.manifest_diagnostics).filter(|d| d.is_error()).collect();
    if !wrong.is_empty() {
        report::verdict(1);
        // Drawn against oc.toml's text, as `oc check` and `oc fmt` draw them.
        let empty = report::OneFile { path: oc_project::manifest::FILE_NAME, text: "" };
        let manifest = settings.as_ref().map_or(empty, report::manifest);
        let reports = report::Reports::new(&manifest);
        for d in &wrong {
            err!("{}", reports.render(d, style()));
        }
        errln!("not written: oc.toml has {} error(s) (`oc check` shows them too)", wrong.len());
        return 1;
    }
    let cname = settings.and_then(|p| p.settings.doc_cname);
    if let Err(r) = oc_project::folder::prepare(out, (oc_doc::MARKER, oc_doc::MARKER_TEXT), &inputs, force) {
        errln!("error: {}\nhelp: {}", r.message, r.help);
        if cname.is_none() && out.join("CNAME").is_file() {
            noteln!("oc doc writes the site's CNAME itself when oc.toml names the domain: `[doc]` then `cname = \"DOMAIN\"`");
        }
        return 2;
    }
    if compilation.rules.is_none() {
        report::verdict(1);
    }
    let style = style();
    let reports = report::Reports::new(&workspace);
    for d in &compilation.diagnostics {
        err!("{}", reports.render(d, style));
    }
    let Some(rules) = compilation.rules else {
        errln!("not written: {} error(s) (`oc check` shows them too)", compilation.error_count());
        return 1;
    };
    let mut input = oc_doc::Input::new(title, &rules).with_files(&workspace, &compilation.files);
    input.maps = oc_render::map::pictures(&workspace, &rules);
    let mut site = oc_doc::build(&input);
    let broken = site.broken_links();
    if !broken.is_empty() {
        errln!("error: internal: the generated site has broken links (please report it):\n{}", broken.join("\n"));
        return 2;
    }
    if let Some(domain) = &cname {
        site.files.insert("CNAME".to_string(), format!("{domain}\n").into_bytes());
    }
    if let Err(e) = oc_project::folder::write(out, &site.files, (oc_doc::MARKER, oc_doc::MARKER_TEXT)) {
        errln!("error: cannot write {}: {e}", out.display());
        return 2;
    }
    report::wrote(&out.display().to_string());
    noteln!(
        "wrote {} ({} pages, {} files; {} classes, {} items, {} tags, {} terrains) in {:.0?}; open {}",
        out.display(),
        site.pages.len(),
        site.files.len(),
        rules.classes.len(),
        rules.items.len(),
        rules.tags.len(),
        rules.terrains.len(),
        started.elapsed(),
        out.join("index.html").display()
    );
    0
}
