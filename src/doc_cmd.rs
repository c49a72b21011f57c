//! `oc doc`: the documentation site of a built-in ruleset or of a project's files, written as
//! one folder (HTML, the same pages in Markdown, the source files, the search index, and a
//! picture of each scenario's map).

use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_compiler::Workspace;
use oc_project::DiskHost;

use crate::commands::{projects, style};
use crate::report;

pub fn doc(ruleset: Option<&str>, paths: &[PathBuf], out: &Path, force: bool) -> u8 {
    let started = Instant::now();
    if ruleset.is_some() && !paths.is_empty() {
        errln!("error: give either --ruleset NAME or paths to .oc files, not both");
        return 2;
    }
    let mut workspace = Workspace::new();
    let mut inputs: Vec<PathBuf> = paths.to_vec();
    let (compilation, title) = if paths.is_empty() {
        let name = ruleset.unwrap_or(oc_compiler::stdlib::DEFAULT);
        let Some(oc_play::rules::Ruleset::Builtin { name, index }) = oc_play::rules::builtin(name) else {
            errln!(
                "error: no built-in ruleset `{name}`: the built-in ones are {}\nhelp: to document your own rules, pass their files or folder: `oc doc rules/ -o site`",
                oc_play::rules::names().join(", ")
            );
            return 2;
        };
        let Some(id) = workspace.id_of(index) else { return 2 };
        (workspace.compile_ids(&mut oc_compiler::stdlib::NoFiles, &[id]), name.to_string())
    } else {
        let project = match projects(paths) {
            Ok(mut p) if p.len() == 1 => p.remove(0),
            Ok(_) => {
                errln!("error: the paths belong to different projects (each oc.toml starts one); document one project at a time");
                return 2;
            }
            Err(code) => return code,
        };
        if project.files.is_empty() {
            errln!("error: no .oc files under {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
            return 2;
        }
        let mut host = DiskHost::for_project(&project);
        // A site documents one ruleset: where the files use several (a scenario may `import
        // "std:stamina"`), the one most of them use, and a note names the rest.
        let most = oc_project::rulesets::most_used(&project.files, &mut host);
        if !most.left_out.is_empty() {
            errln!(
                "note: a site documents one ruleset (`{}`); left out: {}\nhelp: document the others on their own: `oc doc FILE -o DIR`",
                most.ruleset,
                most.left_out.join(", ")
            );
        }
        let files = most.files;
        let (compilation, unreadable) = workspace.compile(&mut host, &files);
        if let Some((path, reason)) = unreadable.first() {
            errln!("error: {path}: {reason}");
            return 1;
        }
        inputs.extend(host.touched.iter().map(|p| project.root.join(p)));
        let title = project.settings.name.clone().unwrap_or_else(|| {
            project.root.file_name().map_or_else(|| "rules".to_string(), |n| n.to_string_lossy().into_owned())
        });
        (compilation, title)
    };
    if let Err(r) = oc_project::folder::prepare(out, (oc_doc::MARKER, oc_doc::MARKER_TEXT), &inputs, force) {
        errln!("error: {}\nhelp: {}", r.message, r.help);
        return 2;
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
    let site = oc_doc::build(&input);
    let broken = site.broken_links();
    if !broken.is_empty() {
        errln!("error: internal: the generated site has broken links (please report it):\n{}", broken.join("\n"));
        return 2;
    }
    if let Err(e) = oc_project::folder::write(out, &site.files) {
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
