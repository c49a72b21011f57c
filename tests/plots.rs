//! `oc simulate --plot` and `oc matrix --heatmap` end to end: a PNG decodes to the figure's size,
//! an SVG parses as XML and names its series; the plot of merged shards is the unsharded run's,
//! byte for byte; the output policy holds for plots like for every output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-plots-{name}-{}", std::process::id())));
    dir
}

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/grado-keep.oc");

/// Every `<text>` of an SVG, whitespace trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(|t| t.trim().to_string()).collect()
}

#[test]
fn simulate_plots_win_rates_rounds_and_losses() {
    let dir = scratch("simulate");
    let (png, svg) = (dir.join("wins.png"), dir.join("wins.svg"));
    let run = ["simulate", SCENARIO, "--games", "12", "--seed", "5"];
    let out = oc(&dir, &[&run[..], &["--plot", png.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let img = image::open(&png).expect("the PNG decodes").to_rgb8();
    assert_eq!((img.width(), img.height()), (1500, 520));
    // The attacker's and the defender's bars are drawn in their colours.
    let count = |rgb: [u8; 3]| img.pixels().filter(|p| p.0 == rgb).count();
    assert!(count(oc_atlas::render::ATTACKER_COLOUR) > 500 && count(oc_atlas::render::DEFENDER_COLOUR) > 500);

    let out = oc(&dir, &[&run[..], &["--plot", svg.to_str().unwrap(), "--format", "json"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    let has = |s: &str| texts.iter().any(|t| t.contains(s));
    for label in [
        "Win rate",
        "Rounds per game",
        "Units lost per game",
        "attacker",
        "defender",
        "draw",
        "AllianceVanguard",
        "ImperialGuard",
    ] {
        assert!(has(label), "the SVG names `{label}`: {texts:?}");
    }
    // The legend's means are the report's.
    let mean = report["mean_units_lost"]["attacker"].as_f64().unwrap();
    assert!(has(&format!("attacker: AllianceVanguard, mean {mean:.2}")), "{texts:?}");
    assert!(has(&format!("mean {:.1}", report["mean_rounds"].as_f64().unwrap())));
    let rounds: u64 = report["rounds_histogram"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(rounds, 12, "the rounds histogram counts every game");
    // The scenario's round limit (`rounds 12 then defender`) is marked on the rounds histogram,
    // through the limit's bar: a dashed line in its own colour under the tick `12`, and named.
    assert_eq!(report["round_limit"], 12);
    assert!(has("round limit 12"), "{texts:?}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let (x0, x1) = (500.0, 1000.0); // the middle panel of three, 1500 px wide
    let tick = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some("12"))
        .filter_map(|n| n.attribute("x")?.parse::<f64>().ok())
        .find(|x| (x0..x1).contains(x))
        .expect("the rounds axis has a tick at 12");
    let limit = format!("#{:02X}{:02X}{:02X}", 0xc7, 0x7c, 0x02);
    let marks: Vec<f64> = doc
        .descendants()
        .filter(|n| n.attribute("stroke").is_some_and(|s| s.eq_ignore_ascii_case(&limit)))
        .filter_map(|n| n.attribute("points"))
        .flat_map(|p| p.split_whitespace().filter_map(|xy| xy.split(',').next()?.parse::<f64>().ok()).collect::<Vec<_>>())
        .filter(|x| (x0..x1).contains(x))
        .collect();
    assert!(marks.len() >= 4, "a dashed mark in the limit's colour: {marks:?}");
    let below_the_legend: Vec<&f64> = marks.iter().filter(|x| (*x - tick).abs() <= 2.0).collect();
    assert!(!below_the_legend.is_empty(), "the mark stands at the tick 12 (x {tick}): {marks:?}");
    // The key's box (white, 85% opaque) keeps off the mark: it stands left of it.
    let keys: Vec<(f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("opacity") == Some("0.85"))
        .filter_map(|n| Some((n.attribute("x")?.parse::<f64>().ok()?, n.attribute("width")?.parse::<f64>().ok()?)))
        .filter(|(x, _)| (x0..x1).contains(x))
        .collect();
    assert_eq!(keys.len(), 1, "one key on the rounds panel: {keys:?}");
    assert!(keys.iter().all(|(x, w)| x + w < tick - 2.0), "the key {keys:?} covers the mark at x {tick}");
}

#[test]
fn a_merged_run_plots_what_the_whole_run_plots() {
    let dir = scratch("merge");
    let run = ["simulate", SCENARIO, "--games", "9", "--seed", "7"];
    let whole = oc(&dir, &[&run[..], &["--plot", "whole.svg"]].concat());
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    for k in 1..=3 {
        let out = oc(&dir, &[&run[..], &["--shard", &format!("{k}/3"), "--out", &format!("p{k}.json")]].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let merged = oc(&dir, &["simulate", "merge", "p3.json", "p1.json", "p2.json", "--plot", "merged.svg"]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(
        std::fs::read(dir.join("merged.svg")).unwrap(),
        std::fs::read(dir.join("whole.svg")).unwrap(),
        "the merged plot is the whole run's"
    );
    // A shard alone is not the run.
    let out = oc(&dir, &[&run[..], &["--shard", "1/3", "--plot", "x.png"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("plot the merged run"), "{}", text(&out.stderr));
    // Parts from before the per-game counts: no plot, and why.
    let old = std::fs::read_to_string(dir.join("p1.json")).unwrap();
    let cut = old.find(",\"rounds_seen\"").unwrap();
    let end = old[cut..].find(",\"lost_seen\"").unwrap() + cut;
    let lost_end = old[end..].find("]}").unwrap() + end + 1;
    let stripped = format!("{}{}", &old[..cut], &old[lost_end..]);
    std::fs::write(dir.join("p1.json"), stripped).unwrap();
    let out = oc(&dir, &["simulate", "merge", "p1.json", "p2.json", "p3.json", "--plot", "old.svg"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("per-game counts"), "{}", text(&out.stderr));
}

#[test]
fn plots_follow_the_output_policy() {
    let dir = scratch("policy");
    std::fs::write(dir.join("mine.png"), b"a painting").unwrap();
    let run = ["simulate", SCENARIO, "--games", "2"];
    let out = oc(&dir, &[&run[..], &["--plot", "mine.png"]].concat());
    assert_eq!(out.status.code(), Some(2), "a file oc did not write is not replaced");
    assert_eq!(std::fs::read(dir.join("mine.png")).unwrap(), b"a painting");
    let out = oc(&dir, &[&run[..], &["--plot", "wins.pdf"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(".png or an .svg"), "{}", text(&out.stderr));
    // Its own plot it replaces.
    for _ in 0..2 {
        let out = oc(&dir, &[&run[..], &["--plot", "wins.svg"]].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
}

#[test]
fn matrix_draws_a_heat_map_with_every_class() {
    let dir = scratch("heatmap");
    let out = oc(&repo(), &["matrix", "--heatmap", dir.join("m.png").to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let img = image::open(dir.join("m.png")).expect("the PNG decodes").to_rgb8();
    assert!(img.width() > 1200 && img.height() > 1200, "{}x{}", img.width(), img.height());
    // The darkest red of the scale is there: some matchup routs for certain.
    assert!(img.pixels().any(|p| p.0 == [100, 0, 30]), "the top of the scale is used");

    let out = oc(&repo(), &["matrix", "--ruleset", "officers_chess_v06", "--heatmap", dir.join("v06.svg").to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let texts = svg_texts(&std::fs::read_to_string(dir.join("v06.svg")).unwrap());
    assert!(texts.iter().any(|t| t.contains("rout chance in one exchange")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("best weapon")), "the title says which weapon");
    // Every class is a row and a column.
    let csv = text(&out.stdout);
    let classes: std::collections::BTreeSet<&str> = csv.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    for class in &classes {
        assert!(texts.iter().filter(|t| t == class).count() >= 2, "`{class}` labels a row and a column");
    }
}

/// The sides' colours agree in every picture (issue 42): the attacker blue and the defender red
/// on maps (their deployment zones), on the replay page (their units) and in plots (their
/// labels and bars), from one palette, oc_atlas::render's.
#[test]
fn the_sides_have_one_colour_in_every_picture() {
    use oc_atlas::render::{region_colour, ATTACKER_COLOUR, DEFENDER_COLOUR};
    use oc_atlas::{RegionKind, Side};
    let hex = |[r, g, b]: [u8; 3]| format!("#{r:02x}{g:02x}{b:02x}");
    let (attacker, defender) = (hex(ATTACKER_COLOUR), hex(DEFENDER_COLOUR));
    // Blue and red, as a map's deployment zones have always been drawn.
    assert!(ATTACKER_COLOUR[2] > ATTACKER_COLOUR[0] && DEFENDER_COLOUR[0] > DEFENDER_COLOUR[2]);
    assert_eq!(region_colour(RegionKind::Deployment, Some(Side::Attacker)).0, ATTACKER_COLOUR);
    assert_eq!(region_colour(RegionKind::Deployment, Some(Side::Defender)).0, DEFENDER_COLOUR);
    // The plot: each side's label in its colour.
    let dir = scratch("one-palette");
    let out = oc(&dir, &["simulate", SCENARIO, "--games", "4", "--seed", "5", "--plot", "p.svg"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(dir.join("p.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let fill_of = |label: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(label))
            .and_then(|n| n.attribute("fill"))
            .map(str::to_lowercase)
    };
    assert_eq!(fill_of("attacker").as_deref(), Some(attacker.as_str()), "{svg}");
    assert_eq!(fill_of("defender").as_deref(), Some(defender.as_str()));
    // The replay page: its units' colours.
    let log = dir.join("b.jsonl");
    let page = dir.join("b.html");
    let out = oc(
        &repo(),
        &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--log", log.to_str().unwrap(), "--html", page.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!("--attacker: {attacker}; --defender: {defender};")), "the page's palette");
}
