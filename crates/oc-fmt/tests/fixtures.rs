//! Fixture tests: every `tests/fixtures/NAME.oc` formats to `NAME.fmt.oc`, and the expected
//! output formats to itself. `OC_BLESS=1` rewrites the expectations; review the diff.

use std::path::{Path, PathBuf};

use oc_diag::FileId;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".oc") && !p.to_string_lossy().ends_with(".fmt.oc"))
        .collect();
    files.sort();
    files
}

fn expected_path(input: &Path) -> PathBuf {
    input.with_extension("fmt.oc")
}

#[test]
fn fixtures_format_to_their_expectations() {
    let files = fixtures();
    assert!(files.len() >= 5, "fixtures missing: {files:?}");
    let mut failures = oc_testkit::Expectations::new();
    for input in files {
        let text = std::fs::read_to_string(&input).unwrap();
        let actual = match oc_fmt::format(FileId(0), &text) {
            Ok(out) => out,
            Err(e) => panic!("{}: {e:?}", input.display()),
        };
        let expected_path = expected_path(&input);
        let name = expected_path.display().to_string();
        failures.check_with(&expected_path, &actual, |expected, actual| oc_fmt::diff::unified(&name, "actual", expected, actual));
        let again = oc_fmt::format(FileId(0), &actual).unwrap_or_else(|e| panic!("{}: {e:?}", input.display()));
        if again != actual {
            failures.fail(format!(
                "{} is not stable:\n{}",
                input.display(),
                oc_fmt::diff::unified("once", "twice", &actual, &again)
            ));
        }
    }
    failures.finish("formatted fixture(s)");
}

/// What the fixtures cannot show: line ends, tabs, byte order marks, files without a newline.
#[test]
fn line_ends_tabs_and_byte_order_marks() {
    let cases = [
        ("tag A on class {\r\n\tmovement += 1\r\n}\r\n", "tag A on class {\n    movement += 1\n}\n"),
        ("tag A on\u{FEFF}class", "tag A on class\n"),
        ("tag A on class // note \r\n\r\n\r\n", "tag A on class  // note\n"),
        ("tag A on class /* a  \r\n b */", "tag A on class /* a\n b */\n"),
        ("", ""),
        ("// only a comment", "// only a comment\n"),
    ];
    for (input, expected) in cases {
        let actual = oc_fmt::format(FileId(0), input).unwrap_or_else(|e| panic!("{input:?}: {e:?}"));
        assert_eq!(actual, expected, "{input:?}");
    }
}

#[test]
fn signs_stay_signs_and_operators_get_spaces() {
    let cases = [
        // A sign after a keyword or in a value block is glued; in an expression `-` is infix.
        ("weapon W { type Swords weight -1 range 1 }", "weapon W { type Swords weight -1 range 1 }\n"),
        ("terrain T { cost { Foot -1 Armored - } defense +1 }", "terrain T { cost { Foot -1 Armored - } defense +1 }\n"),
        ("tag T on class { movement = movement-1 }", "tag T on class { movement = movement - 1 }\n"),
        ("tag T on class { movement = self.weight -1 }", "tag T on class { movement = self.weight - 1 }\n"),
        ("tag T on class { movement = - 1 }", "tag T on class { movement = -1 }\n"),
        ("tag T(x: Int) on class { heal_bonus = x*-2 }", "tag T(x: Int) on class { heal_bonus = x * -2 }\n"),
    ];
    for (input, expected) in cases {
        let actual = oc_fmt::format(FileId(0), input).unwrap_or_else(|e| panic!("{input:?}: {e:?}"));
        assert_eq!(actual, expected, "{input:?}");
    }
}

#[test]
fn text_that_does_not_parse_is_refused_with_its_diagnostics() {
    for input in ["class Knight { ratings { str B mag } }", "tag A on class {", "\"unclosed", "/* never closed"] {
        match oc_fmt::format(FileId(7), input) {
            Err(oc_fmt::Error::Syntax(diagnostics)) => {
                assert!(!diagnostics.is_empty() && diagnostics.iter().all(|d| d.span.file == FileId(7)), "{input:?}")
            }
            other => panic!("{input:?} gave {other:?}"),
        }
    }
}
