//! Fixture tests: every `.oc` file under `tests/fixtures/{compile,syntax}` (of this crate) is compiled like `oc check`
//! compiles a file (with its imports, against the standard library unless it has a ruleset), and
//! its diagnostics are compared with the `.expected` file beside it: one line per diagnostic,
//! `severity code line:column message`. Run with `OC_BLESS=1` to rewrite the expectations, then
//! review the diff.

use std::path::{Path, PathBuf};

use oc_compiler::{Host, Workspace};
use oc_diag::line_col;

struct FixtureHost {
    root: PathBuf,
}

impl Host for FixtureHost {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        let bytes = std::fs::read(self.root.join(path)).map_err(|e| oc_compiler::ReadError::Io(e.to_string()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The maps beside the fixture (for a missing map's did-you-mean).
    fn map_candidates(&self) -> Vec<String> {
        let mut maps: Vec<String> = std::fs::read_dir(&self.root)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        maps.retain(|n| n.ends_with(".map.toml"));
        maps.sort();
        maps
    }
}

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "oc") || (dir == "hints" && p.to_string_lossy().ends_with(".map.toml")))
        .collect();
    files.sort();
    files
}

/// Lints a map of `tests/fixtures/hints` against the standard library, with spans and helps.
fn check_map(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let rules = oc_compiler::stdlib::default_rules().unwrap();
    let (_, diags) = oc_atlas::check(oc_diag::FileId(0), &text, &rules, |_| oc_atlas::ImageCheck::NotChecked);
    let mut out = String::new();
    for d in &diags {
        let (line, col) = line_col(&text, d.span.start as usize);
        let (end_line, end_col) = line_col(&text, d.span.end as usize);
        let severity = if d.is_error() { "error" } else { "warning" };
        out.push_str(&format!("{severity} {} {line}:{col}-{end_line}:{end_col} {}\n    help: {}\n", d.code, d.message, d.help));
    }
    out
}

/// Compiles one fixture the way `oc check` does and renders its diagnostics as lines; with
/// `hints` (the fixtures of `tests/fixtures/hints`) each line has the whole span
/// (`line:col-line:col`) and is followed by the help line.
fn check_with(path: &Path, hints: bool) -> String {
    if path.to_string_lossy().ends_with(".map.toml") {
        return check_map(path);
    }
    let root = path.parent().unwrap().to_path_buf();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut host = FixtureHost { root };
    let mut ws = Workspace::new();
    let (compilation, unreadable) = ws.compile(&mut host, std::slice::from_ref(&name));
    assert!(unreadable.is_empty(), "{unreadable:?}");
    // With every file's classes and items parsed as they are lowered (what a large file gets),
    // the same diagnostics and the same model.
    let mut deferring = Workspace::new();
    deferring.set_defer_from(0);
    let (deferred, _) = deferring.compile(&mut host, &[name]);
    assert_eq!(deferred.diagnostics, compilation.diagnostics, "{}", path.display());
    assert!(deferred.rules == compilation.rules && deferred.partial == compilation.partial, "{}", path.display());
    let mut out = String::new();
    for d in &compilation.diagnostics {
        let file = ws.file(d.span.file).unwrap();
        let (line, col) = line_col(&file.text, d.span.start as usize);
        let severity = if d.is_error() { "error" } else { "warning" };
        let location = if file.path.starts_with("<std>") { format!("{}:", file.path) } else { String::new() };
        if hints {
            let (end_line, end_col) = line_col(&file.text, d.span.end as usize);
            out.push_str(&format!("{severity} {} {location}{line}:{col}-{end_line}:{end_col} {}\n", d.code, d.message));
            out.push_str(&format!("    help: {}\n", d.help));
            continue;
        }
        out.push_str(&format!("{severity} {} {location}{line}:{col} {}\n", d.code, d.message));
        assert!(!d.help.is_empty(), "{}: diagnostic without help: {d:?}", path.display());
    }
    out
}

fn run(dir: &str) -> Vec<(PathBuf, String)> {
    let mut expectations = oc_testkit::Expectations::new();
    let mut results = Vec::new();
    for path in fixtures(dir) {
        let actual = check_with(&path, dir == "hints");
        expectations.check(&path.with_extension("expected"), &actual);
        results.push((path, actual));
    }
    expectations.finish("fixture(s)");
    results
}

/// The code a fixture is named after: `name_unknown_tag.oc` -> `oc::name::unknown_tag`.
fn code_of(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let (area, rest) = stem.split_once('_').unwrap();
    format!("oc::{area}::{rest}")
}

#[test]
fn compile_fixtures_match_their_expectations() {
    let results = run("compile");
    for (path, actual) in &results {
        if path.file_name().unwrap().to_string_lossy().starts_with("ok_") {
            assert!(actual.is_empty(), "{} should be clean:\n{actual}", path.display());
            continue;
        }
        let code = code_of(path);
        // Fixture pairs (import_cycle_a/b) and variants (`_c`, `_d` ...) share a code prefix.
        let code = match code.rsplit_once('_') {
            Some((head, tail)) if tail.len() == 1 && tail.chars().all(|c| c.is_ascii_lowercase()) => head.to_string(),
            _ => code.clone(),
        };
        let code = code.replace("oc::ruleset::number_range", "oc::literal::range");
        assert!(actual.contains(&format!(" {code} ")), "{} does not trigger {code}:\n{actual}", path.display());
    }
}

#[test]
fn syntax_fixtures_match_their_expectations_and_never_panic() {
    let results = run("syntax");
    for (path, actual) in &results {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "syntax_empty" || stem == "syntax_only_comments" {
            assert!(actual.is_empty(), "{stem} should be clean:\n{actual}");
        } else {
            assert!(actual.contains("error oc::syntax::"), "{stem} should report a syntax error:\n{actual}");
        }
    }
}

#[test]
fn every_code_has_a_fixture_and_an_explanation() {
    let mut seen = String::new();
    for dir in ["compile", "syntax"] {
        for path in fixtures(dir) {
            seen.push_str(&std::fs::read_to_string(path.with_extension("expected")).unwrap_or_default());
        }
    }
    let mut codes = std::collections::HashSet::new();
    for info in oc_compiler::all_codes() {
        assert!(codes.insert(info.code), "code {} listed twice", info.code);
        assert!(info.explanation.len() > 80, "{} needs a longer explanation", info.code);
        // oc::internal is never caused by input: it reports bugs in oc itself.
        if info.code != "oc::internal" {
            assert!(seen.contains(&format!(" {} ", info.code)), "no fixture triggers {}", info.code);
        }
    }
    assert!(codes.len() >= 30, "only {} codes", codes.len());
}

/// Help lines: did-you-mean for misspelt keywords from the words the grammar accepts there,
/// examples quoted from the rules, and spans that end where the mistake ends.
#[test]
fn hint_fixtures_match_their_expectations() {
    let results = run("hints");
    assert!(results.len() >= 7);
    for (path, actual) in &results {
        let first_help = actual.lines().find(|l| l.trim_start().starts_with("help:")).unwrap_or("");
        let stem = path.file_name().unwrap().to_string_lossy().replace(".map.toml", "").replace(".oc", "");
        let maps = [
            ("field_grid_type", "grid is a number of pixels per tile, like 70"),
            ("zone_units_zero", "a zone for 0 units"),
            ("row_numbers", "row 2 (y = 1) is too short"),
            ("chest_on_wall", "once the Wall is struck down (30 HP): it becomes Floor"),
            ("map_rect_length", "`rect` has 3 values where 4 are expected\n    help: rect is [x, y, width, height]"),
            ("map_duplicate_key", "6:1-6:6 `width` is set twice in the map"),
            ("map_chest_without_item", "this chest has no `item`\n    help: a chest has `at = [x, y]` and the `item` inside"),
            ("map_unclosed_string", "2:8-2:9 this string is never closed"),
            ("map_misspelt_key", "unknown field `round`, expected one of `name`, `width`, `height`, `grid`, `image`, `rounds`, `rules`, `allow`, `rows`, `legend`, `regions`, `chests`, `doors`, `destructibles`\n    help: did you mean `rounds`?"),
            ("map_misspelt_side_kind", "no side `attakcer`\n    help: did you mean `attacker`? sides are attacker and defender\nerror oc::atlas::field 16:8-16:15 no region kind `escpe`\n    help: did you mean `escape`?"),
            ("scenario_map_misspelt", "did you mean `chest_on_wall.map.toml`? map paths are relative to the scenario's file"),
            ("map_quoted_number", "4:10-4:13 `height` is a whole number, not a string: write 1 without quotes"),
        ];
        if let Some((_, want)) = maps.iter().find(|(m, _)| *m == stem) {
            assert!(actual.contains(want), "{stem}: {actual}");
        } else if let Some(word) = stem.strip_prefix("keyword_") {
            let word = word.replace("rout_all", "all");
            assert!(first_help.contains(&format!("did you mean `{word}`")), "{stem}: {first_help}");
        } else if stem.starts_with("dice_") {
            // Dice as they are written, at the mistake: a `+` ending a line is the error, not the
            // next line's first word.
            assert!(actual.contains("`2d6`, `d10!`, `4d6kh3`"), "{stem}: {actual}");
            assert!(stem != "dice_sum_ends_line" || actual.contains(" 3:18-3:19 "), "{stem}: {actual}");
        } else if stem == "transposed_letters" {
            // Issue 42: two neighbouring letters swapped cost one edit, so each gets its name.
            for meant in ["Lucky", "Brave", "Canto", "Flying"] {
                assert!(actual.contains(&format!("did you mean `{meant}`?")), "{stem}: {actual}");
            }
        } else if stem == "figures_with_a_colon" {
            assert!(
                first_help.contains("write the value right after `figures`, with no `:` between them"),
                "{stem}: {first_help}"
            );
        } else if stem == "figures_with_a_comma" {
            assert!(
                first_help.contains("entries follow one another without one: `figures 10 items Axe`"),
                "{stem}: {first_help}"
            );
        } else if stem == "figures_before_the_class" {
            assert!(
                first_help.contains("inside its braces, after its class: `unit Braves: Savage { figures 10"),
                "{stem}: {first_help}"
            );
        } else if stem == "class_and_item_misspelt" {
            assert!(actual.contains("did you mean `Fighter`?") && actual.contains("did you mean `IronAxe`?"), "{stem}: {actual}");
        } else if stem == "joins_misspelt" {
            assert!(first_help.contains("did you mean `Band`?"), "{stem}: {first_help}");
        } else if stem == "figures_out_of_range" {
            // Nought figures: write one; past the most: split the body.
            assert!(
                actual.contains("has 0 figures; a unit has 1 to 60\n    help: a unit has at least one figure: write `figures 1`"),
                "{stem}: {actual}"
            );
            assert!(actual.contains("has 61 figures; a unit has 1 to 60\n    help: split a larger body"), "{stem}: {actual}");
        } else if stem == "scenario_zone_too_small" {
            assert!(
                first_help.contains("enlarge the zone on the map to 12 passable tiles (the side brings at least 11 units)"),
                "{stem}: {first_help}"
            );
            assert!(actual.contains("oc::scenario::zone_kind") && !actual.contains("but `goal` has"), "{stem}: {actual}");
        } else if stem == "scenario_unwinnable_help" {
            // Each reason with its own fix; a side that wins on time is warned, not refused.
            assert!(first_help.contains("`grant Leader to 1`"), "{stem}: {first_help}");
            assert!(
                actual.contains("warning oc::scenario::unwinnable")
                    && actual.contains("help: ask for at most 8 rounds, or raise `rounds` to 10"),
                "{stem}: {actual}"
            );
        } else if stem == "army_cannot_take_the_objective" {
            // The tag the scenario grants, put where it goes.
            assert!(
                actual.contains("`Raiders` cannot win by seizing: none of its units has Leader")
                    && first_help.contains("`tags Leader` in its braces"),
                "{stem}: {actual}"
            );
        } else if stem == "army_limit_at_its_largest" {
            // No more units than the side may field are asked for.
            assert!(first_help.contains("at most 2 of 4 may") && !first_help.contains("bring"), "{stem}: {first_help}");
        } else if stem == "army_limit_names_units" {
            // As many units that do not count as the fraction needs, within the side's 2..4.
            assert!(first_help.contains("or bring 1 more unit that does not count (2 of 4 may)"), "{stem}: {first_help}");
        } else if stem.starts_with("army_") {
            // Units named with what makes them count, or with their price.
            assert!(first_help.contains("Neimi (IronBow") || first_help.contains("Seth 4000"), "{stem}: {first_help}");
        } else {
            assert!(first_help.contains("write `"), "{stem}: {first_help}");
        }
    }
}
