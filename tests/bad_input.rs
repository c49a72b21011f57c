//! Bad input to oc's commands, as reviews of them found it (the sweep commands and their merges,
//! forecasts, imports, replays, the watcher): each case is refused at once with an `error:` and
//! a `help:` line and exit status 2 (1 where the input's content is wrong), nothing the user
//! wrote is replaced, and no case takes more than a few games. One row a case: the files it
//! starts from, the command, what stderr must say.

mod common;

use std::path::Path;

use common::{oc, repo, text};

/// A scratch project with the Dunes scenario (`ide.oc`) and its maps.
fn project(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-sweep-{name}-{}", std::process::id())));
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"sweep\"\n").expect("writes");
    std::fs::create_dir_all(dir.join("maps")).expect("makes maps/");
    for entry in std::fs::read_dir(repo().join("scenarios/maps")).expect("maps") {
        let p = entry.expect("entry").path();
        std::fs::copy(&p, dir.join("maps").join(p.file_name().expect("a name"))).expect("copies");
    }
    std::fs::copy(repo().join("scenarios/ide.oc"), dir.join("ide.oc")).expect("copies");
    dir
}

/// Runs `oc` in `dir`; panics unless it succeeded.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = oc(dir, args);
    assert!(out.status.success(), "`oc {}`: {}", args.join(" "), text(&out.stderr));
    text(&out.stdout)
}

/// How a case's files are made before its command runs.
enum Make {
    /// Two shards' parts of a 4-game simulation (`p1.json`, `p2.json`), `p1.json` edited
    /// (`from` replaced by `to`).
    EditedPart(&'static str, &'static str),
    /// A file with this text.
    File(&'static str, &'static str),
    /// An earlier report of `oc simulate --out rep.txt`, with a line of the user's after its title.
    AnnotatedReport,
    /// A PNG of this many pixels, one colour.
    Png(&'static str, u32, u32),
    Nothing,
}

/// A game's log as `oc battle` and `oc play` write it (its header and no record).
const SAVED: &str = "{\"event\":\"source\",\"file\":\"ide.oc\",\"scenario\":\"ThroughTheDunes\",\"attacker\":\"Refugees\",\"defender\":\"DunePatrol\",\"seed\":1,\"attacker_ai\":\"planner\",\"defender_ai\":\"planner\"}\n";

#[test]
fn bad_input_is_refused_with_help_and_nothing_lost() {
    let cases: [(&str, Make, &[&str], &[&str]); 29] = [
        (
            "more shards than any run has games",
            Make::Nothing,
            &["simulate", "ide.oc", "--games", "4", "--shard", "1/18446744073709551615"],
            &["more shards than any run has games"],
        ),
        (
            "a part claiming a huge shard count",
            Make::EditedPart("\"count\":2", "\"count\":18446744073709551615"),
            &["simulate", "merge", "p1.json", "p2.json"],
            &["more than any run has games"],
        ),
        (
            "a part with more wins than games",
            Make::EditedPart("\"games\":2,", "\"games\":3,"),
            &["simulate", "merge", "p1.json", "p2.json"],
            &["it counts 3 games", "changed after it was written"],
        ),
        (
            "a simulate part merged as fairness",
            Make::Nothing,
            &["fairness", "merge", "p2.json"],
            &["a `oc simulate part` file, not a fairness part"],
        ),
        (
            "a report the user added to",
            Make::AnnotatedReport,
            &["simulate", "ide.oc", "--games", "2", "--out", "rep.txt"],
            &["rep.txt exists and is not a simulation report oc wrote"],
        ),
        (
            "the report and the plot in one file",
            Make::Nothing,
            &["simulate", "ide.oc", "--games", "2", "--out", "same.svg", "--plot", "./same.svg"],
            &["--out and --plot name one file"],
        ),
        ("a folder to a one-file command", Make::Nothing, &["simulate", "."], &["is a folder"]),
        ("a file that is not .oc", Make::File("notes.md", "# notes\n"), &["simulate", "notes.md"], &["is not an `.oc` file"]),
        (
            "a missing README",
            Make::Nothing,
            &["fairness", "ide.oc", "--games", "2", "--readme", "new.md"],
            &["--readme new.md: no such file"],
        ),
        (
            "a README with two tables",
            Make::File(
                "two.md",
                "<!-- fairness:begin -->\n<!-- fairness:end -->\n<!-- fairness:begin -->\n<!-- fairness:end -->\n",
            ),
            &["fairness", "ide.oc", "--games", "2", "--readme", "two.md"],
            &["lines 1, 3"],
        ),
        (
            "a file as the folder of tuning parts",
            Make::File("parts.txt", "mine\n"),
            &["tune", "ide.oc", "--parts", "parts.txt"],
            &["parts.txt is not a folder"],
        ),
        ("a missing ruleset path", Make::Nothing, &["matrix", "--ruleset", "rules/mine.oc"], &["no such file or folder"]),
        (
            "hit points a unit cannot have",
            Make::Nothing,
            &["forecast", "--attacker", "Paladin", "--defender", "Fighter", "--attacker-hp", "0"],
            &["0 hit points for Paladin: it has 1 to 20"],
        ),
        (
            "a distance below one tile",
            Make::Nothing,
            &["duel", "--attacker", "Paladin", "--defender", "Fighter", "--distance=-1"],
            &["a distance of -1"],
        ),
        (
            "a weapon given as an accessory",
            Make::Nothing,
            &["forecast", "--attacker", "Knight", "--defender", "Fighter", "--defender-accessory", "IronSword"],
            &["`IronSword` is not an accessory", "--defender-accessory take an accessory, such as `"],
        ),
        (
            "a class misspelt",
            Make::Nothing,
            &["forecast", "--attacker", "Paladinn", "--defender", "Fighter"],
            &["did you mean `Paladin`?"],
        ),
        (
            "a terrain the rules lack",
            Make::Nothing,
            &["forecast", "--attacker", "Paladin", "--defender", "Fighter", "--attacker-terrain", "Lava"],
            &["no terrain `Lava`"],
        ),
        (
            "a picture too wide for a map",
            Make::Png("wide.png", 600, 2),
            &["import-image", "wide.png", "-o", "wide.map.toml"],
            &["the image is 600x2 pixels"],
        ),
        (
            "a legend that is not there",
            Make::Png("small.png", 3, 2),
            &["import-image", "small.png", "--legend", "nowhere.toml", "-o", "s.map.toml"],
            &["nowhere.toml"],
        ),
        (
            "a legend with one colour twice",
            Make::File("legend.toml", "\"#7ab848\" = \"Plains\"\n\"#7AB848\" = \"Forest\"\n"),
            &["import-image", "small.png", "--legend", "legend.toml", "-o", "w.map.toml"],
            &["is written twice"],
        ),
        (
            "a missing project for a replay",
            Make::Nothing,
            &["replay", "--project", "nowhere", "p1.json"],
            &["--project nowhere: no such folder"],
        ),
        ("an empty battle log", Make::File("empty.log", ""), &["replay", "empty.log"], &["not a battle log header"]),
        ("a code that does not exist", Make::Nothing, &["explain", "oc::bogus"], &["no diagnostic code"]),
        ("a missing path to check", Make::Nothing, &["check", "nowhere"], &["nowhere: no such file or directory"]),
        ("a missing path to watch", Make::Nothing, &["watch", "nowhere"], &["no such file or folder"]),
        ("a scale out of range", Make::Nothing, &["render", "maps/ide.map.toml", "-o", "r.png", "--scale", "0"], &["--scale 0"]),
        (
            "oc play's log on standard output (it carries the address)",
            Make::Nothing,
            &["play", "ide.oc", "--log", "-"],
            &["not to standard output"],
        ),
        (
            "oc play's log and page one file",
            Make::Nothing,
            &["play", "ide.oc", "--log", "g.log", "--html", "g.log"],
            &["--log and --html name one file"],
        ),
        (
            "a game's log given as a new game's log",
            Make::File("saved.log", SAVED),
            &["play", "ide.oc", "--log", "saved.log"],
            &["saved.log holds a game's log (ThroughTheDunes", "--resume saved.log", "--force"],
        ),
    ];
    let dir = project("cases");
    let parts = ["simulate", "ide.oc", "--games", "4", "--seed", "3"];
    ok(&dir, &[&parts[..], &["--shard", "1/2", "--out", "p1.json"]].concat());
    ok(&dir, &[&parts[..], &["--shard", "2/2", "--out", "p2.json"]].concat());
    let written = std::fs::read_to_string(dir.join("p1.json")).expect("a part");
    for (what, make, args, said) in cases {
        let kept = match make {
            Make::EditedPart(from, to) => {
                assert!(written.contains(from), "{what}: {from} in {written}");
                std::fs::write(dir.join("p1.json"), written.replacen(from, to, 1)).expect("writes");
                None
            }
            Make::File(name, body) => {
                std::fs::write(dir.join(name), body).expect("writes");
                Some((name.to_string(), body.to_string()))
            }
            Make::AnnotatedReport => {
                ok(&dir, &["simulate", "ide.oc", "--games", "2", "--out", "rep.txt"]);
                let report = std::fs::read_to_string(dir.join("rep.txt")).expect("a report");
                let title = report.lines().next().unwrap_or_default();
                let mine = format!("{title}\nMY OWN NOTES\n");
                std::fs::write(dir.join("rep.txt"), &mine).expect("writes");
                Some(("rep.txt".to_string(), mine))
            }
            Make::Png(name, w, h) => {
                image::RgbImage::from_pixel(w, h, image::Rgb([0x7a, 0xb8, 0x48])).save(dir.join(name)).expect("writes");
                None
            }
            Make::Nothing => None,
        };
        let out = oc(&dir, args);
        let err = text(&out.stderr);
        assert!(matches!(out.status.code(), Some(1 | 2)), "{what}: `oc {}`: {err}", args.join(" "));
        assert!((err.contains("error:") || err.contains("error[")) && err.contains("help:"), "{what}: {err}");
        assert!(!err.contains("panicked") && !err.contains("os error"), "{what}: {err}");
        for s in said {
            assert!(err.contains(s), "{what}: `{s}` not in {err}");
        }
        if let Some((name, body)) = kept {
            assert_eq!(std::fs::read_to_string(dir.join(&name)).ok(), Some(body), "{what}: {name} changed");
        }
        assert!(!dir.join("same.svg").exists(), "{what}: an output was written");
        std::fs::write(dir.join("p1.json"), &written).expect("puts the part back");
    }
}
