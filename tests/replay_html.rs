//! Replay pages in a real browser: `oc battle --html` and `oc replay --html` write the same
//! self-contained page, which headless Chromium (Debian's `chromium`, installed with apt-get when
//! missing) opens from a file with every network request refused by the page's own policy. The
//! page steps to its end one click of its step button at a time (`#end`); what it then shows —
//! units routed or standing, their HP, the winner, the step counter — must be what the battle log
//! says, with no console output and no script error. A frame in the middle (`#frame=N`) must show
//! the HP the log has reached by then and the attack's forecast. The page's data must hold every
//! record of the log, in order. Under fog of war (`#view=attacker&frame=N`) the page shades the
//! squares the chosen side does not see (the engine's sight, carried in the page) and hides the
//! enemies on them. `OC_BLESS=1` redraws `docs/images/replay.png` (a screenshot).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn oc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(repo()).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-replay-html-{}-{name}", std::process::id())));
    dir
}

/// Debian's `chromium`, installed with apt-get when missing; why not, where it cannot be.
fn chromium() -> Result<PathBuf, String> {
    let find = || {
        ["chromium", "chromium-browser"].iter().find_map(|name| {
            let out = Command::new(name).arg("--version").output().ok()?;
            out.status.success().then(|| PathBuf::from(name))
        })
    };
    common::apt_install(&["chromium"], || find().is_some())?;
    find().ok_or_else(|| "chromium was installed but does not run".to_string())
}

/// What Chromium showed of a page: the DOM once its scripts ran, and its console lines.
struct Shown {
    dom: String,
    console: Vec<String>,
}

fn browser(chromium: &Path, profile: &Path) -> Command {
    let mut c = Command::new(chromium);
    c.args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars", "--mute-audio"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000"]);
    c
}

fn open(chromium: &Path, page: &Path, fragment: &str, profile: &Path) -> Shown {
    let url = format!("file://{}#{fragment}", page.display());
    let out = browser(chromium, profile).arg("--dump-dom").arg(&url).output().expect("chromium runs");
    assert!(out.status.success(), "chromium failed on {url}: {}", text(&out.stderr));
    // Every console message of a page (log, error, an uncaught exception) is a `CONSOLE` line;
    // the page writes none of its own.
    let console = text(&out.stderr).lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect();
    Shown { dom: text(&out.stdout), console }
}

/// The attributes of every start tag `<tag ...>` whose `class` includes `class`.
fn tags(dom: &str, tag: &str, class: &str) -> Vec<BTreeMap<String, String>> {
    let mut found = Vec::new();
    let open = format!("<{tag} ");
    let mut rest = dom;
    while let Some(at) = rest.find(&open) {
        rest = &rest[at + open.len()..];
        let Some(end) = rest.find('>') else { break };
        let attrs = attributes(&rest[..end]);
        if attrs.get("class").is_some_and(|c| c.split(' ').any(|w| w == class)) {
            found.push(attrs);
        }
    }
    found
}

fn attributes(mut s: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find("=\"") else { break };
        let name = s[..eq].trim().to_string();
        let value_start = eq + 2;
        let Some(len) = s[value_start..].find('"') else { break };
        out.insert(name, s[value_start..value_start + len].to_string());
        s = &s[value_start + len + 1..];
    }
    out
}

/// The text of the element with this id (the DOM of our page nests no element inside these).
fn text_of(dom: &str, id: &str) -> Option<String> {
    let at = dom.find(&format!("id=\"{id}\""))?;
    let open = at + dom[at..].find('>')? + 1;
    let close = open + dom[open..].find('<')?;
    Some(dom[open..close].replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
}

/// A unit as the log has it: its HP and whether it was routed.
#[derive(Clone, Debug, PartialEq)]
struct Standing {
    hp: i64,
    routed: bool,
}

/// The units after the first `upto` records of the log (the source line not counted).
fn standing(records: &[Value], upto: usize) -> Vec<Standing> {
    let mut units: Vec<Standing> = Vec::new();
    for r in records.iter().take(upto) {
        match r["event"].as_str() {
            Some("start") => {
                units = r["units"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|u| Standing { hp: u["hp"].as_i64().unwrap(), routed: u["state"] == "routed" })
                    .collect()
            }
            Some("turn") => {
                for pair in r["hp"].as_array().unwrap() {
                    units[pair[0].as_u64().unwrap() as usize].hp = pair[1].as_i64().unwrap();
                }
                for k in r["routed"].as_array().unwrap() {
                    units[k.as_u64().unwrap() as usize].routed = true;
                }
            }
            Some("recover") => units[r["unit"].as_u64().unwrap() as usize].hp = r["hp"].as_i64().unwrap(),
            _ => {}
        }
    }
    units
}

/// The page's units: (state, hp) of each row, in unit order.
fn page_units(dom: &str) -> Vec<Standing> {
    let rows = tags(dom, "tr", "unit");
    rows.iter()
        .enumerate()
        .map(|(k, row)| {
            assert_eq!(row["data-unit"], k.to_string(), "rows in unit order");
            Standing { hp: row["data-hp"].parse().unwrap(), routed: row["data-state"] == "routed" }
        })
        .collect()
}

fn winner(outcome: &Value) -> String {
    match outcome {
        Value::String(s) => s.clone(),
        Value::Object(o) => o["win"].as_str().unwrap().to_string(),
        other => panic!("an outcome like {other}"),
    }
}

/// The JSON the page carries.
fn page_data(page: &str) -> Value {
    let start = page.find("<script type=\"application/json\" id=\"battle-data\">").unwrap();
    let body = &page[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

/// Plays a battle with `--html`, replays its log with `--html`, and checks the page in Chromium;
/// returns its folder and the page.
fn check_battle(chromium: &Path, scenario: &str, seed: u64) -> (oc_testkit::Scratch, PathBuf) {
    let stem = Path::new(scenario).file_stem().unwrap().to_string_lossy().into_owned();
    let dir = scratch(&stem);
    let (log, page, again) = (dir.join("battle.jsonl"), dir.join("battle.html"), dir.join("replay.html"));
    let seed_arg = seed.to_string();
    let out = oc(&["battle", scenario, "--seed", &seed_arg, "--log", log.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = oc(&["replay", log.to_str().unwrap(), "--project", ".", "--html", again.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html,
        std::fs::read_to_string(&again).unwrap(),
        "{scenario}: `oc replay --html` writes what `oc battle --html` wrote"
    );

    // Self-contained: nothing is fetched from anywhere.
    for outside in ["http://", "https://", "src=\"", "href=\"http", "@import", "url("] {
        let mut rest = html.as_str();
        while let Some(at) = rest.find(outside) {
            let around = &rest[at.saturating_sub(40)..(at + 60).min(rest.len())];
            // The SVG namespace is a name, not a request.
            assert!(around.contains("http://www.w3.org/2000/svg"), "{scenario}: the page refers outside itself: {around}");
            rest = &rest[at + outside.len()..];
        }
    }

    let lines: Vec<Value> = std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let records = &lines[1..];
    let data = page_data(&html);
    let frames = data["frames"].as_array().unwrap();
    let carried: Vec<&Value> = frames.iter().flat_map(|f| f["records"].as_array().unwrap()).collect();
    assert_eq!(carried.len(), records.len(), "{scenario}: the page carries every record of the log");
    assert!(carried.iter().zip(records).all(|(a, b)| *a == b), "{scenario}: the page's records are the log's, in order");

    let profile = dir.join("profile");
    // At the end, after a click of the step button for every frame.
    let shown = open(chromium, &page, "end", &profile);
    assert!(shown.console.is_empty(), "{scenario}: console output: {:#?}", shown.console);
    assert!(text_of(&shown.dom, "errors").unwrap_or_default().is_empty(), "{scenario}: script errors shown");
    let last = frames.len() - 1;
    assert_eq!(text_of(&shown.dom, "counter").unwrap(), format!("step {last} of {last}"), "{scenario}");
    assert_eq!(page_units(&shown.dom), standing(records, records.len()), "{scenario}: the units at the end");
    let end = records.last().unwrap();
    assert_eq!(end["event"], "end");
    let at = shown.dom.find("<p id=\"victory\"").expect("the victory line");
    let tag = &shown.dom[at..at + shown.dom[at..].find('>').unwrap()];
    let attrs = attributes(tag.trim_start_matches("<p"));
    assert!(!attrs.contains_key("hidden"), "{scenario}: the victory line shows at the end");
    assert_eq!(attrs["data-outcome"], winner(&end["outcome"]), "{scenario}: the winner");
    let line = text_of(&shown.dom, "victory").unwrap();
    assert!(line.starts_with(&format!("Round {}: ", end["round"])), "{scenario}: {line}");
    assert!(line.contains(end["reason"].as_str().unwrap()), "{scenario}: {line}");
    // The header of the last frame: nobody is to act (it said "the attacker to act").
    let header = text_of(&shown.dom, "round").unwrap();
    assert!(header.ends_with("the battle is over"), "{scenario}: {header}");

    // The first frame: everyone standing at full HP, no victory yet.
    let first = open(chromium, &page, "frame=0", &profile);
    assert!(first.console.is_empty(), "{scenario}: {:#?}", first.console);
    let seen = frames[0]["records"].as_array().unwrap().len();
    assert_eq!(page_units(&first.dom), standing(records, seen), "{scenario}: the units at the start");
    assert!(first.dom.contains("<p id=\"victory\" hidden"), "{scenario}: no victory line at the start");

    // A frame with an attack: its forecast, its result, and the HP the log has reached by then.
    let (k, f) = frames.iter().enumerate().find(|(_, f)| f.get("forecast").is_some()).expect("an attack with a forecast");
    let fc = &f["forecast"];
    let declared = f["records"].as_array().unwrap().iter().any(|r| {
        r["event"] == "turn" && r["turn"]["unit"] == fc["attacker"] && r["turn"]["act"]["attack"]["target"] == fc["target"]
    });
    assert!(declared, "{scenario}: frame {k}'s forecast is of the attack it plays");
    for p in ["hit", "crit", "counter_hit", "rout", "counter_rout"] {
        let v = fc[p].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{scenario}: {p} = {v}");
    }
    let upto: usize = frames[..=k].iter().map(|f| f["records"].as_array().unwrap().len()).sum();
    let mid = open(chromium, &page, &format!("frame={k}"), &profile);
    assert!(mid.console.is_empty(), "{scenario}: {:#?}", mid.console);
    assert_eq!(page_units(&mid.dom), standing(records, upto), "{scenario}: the units at frame {k}");
    assert!(mid.dom.contains("class=\"forecast\""), "{scenario}: frame {k} shows the forecast");
    assert!(mid.dom.contains("Result: "), "{scenario}: frame {k} shows the attack's result");
    (dir, page)
}

#[test]
fn replay_pages_show_in_chromium_what_the_logs_say() {
    let chromium = match chromium() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skipped: headless Chromium is not available ({why})");
            return;
        }
    };
    // The default ruleset, seed 002's stamina and reactions, seed 004's initiative and steps.
    let (_border, default) = check_battle(&chromium, "scenarios/border-mulan.oc", 3);
    check_battle(&chromium, "scenarios/stamina-caer-pelyn.oc", 1);
    check_battle(&chromium, "scenarios/skirmish-taizel.oc", 1);
    check_fog(&chromium);

    // A screenshot: the page draws the map and both sides' units.
    let dir = scratch("shot");
    let shot = dir.join("replay.png");
    let data = page_data(&std::fs::read_to_string(&default).unwrap());
    let k = data["frames"].as_array().unwrap().iter().position(|f| f.get("forecast").is_some()).unwrap();
    let url = format!("file://{}#frame={k}", default.display());
    let out = browser(&chromium, &dir.join("profile"))
        .args(["--window-size=1200,820", &format!("--screenshot={}", shot.display()), &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let img = image::open(&shot).unwrap().to_rgb8();
    assert_eq!((img.width(), img.height()), (1200, 820));
    let count = |rgb: [u8; 3]| img.pixels().filter(|p| p.0 == rgb).count();
    assert!(count(oc_atlas::render::ATTACKER_COLOUR) > 200, "attacker units drawn");
    assert!(count(oc_atlas::render::DEFENDER_COLOUR) > 200, "defender units drawn");
    let docs = repo().join("docs/images/replay.png");
    if oc_testkit::blessing() {
        std::fs::copy(&shot, &docs).unwrap();
    }
    assert!(image::open(&docs).is_ok(), "docs/images/replay.png is a picture (OC_BLESS=1 takes it)");
}

/// A fog scenario's page: each frame carries both sides' sight; a side's view shades exactly the
/// squares it does not see and hides exactly the enemies standing on them.
fn check_fog(chromium: &Path) {
    let dir = scratch("fog");
    let page = dir.join("night.html");
    let out = oc(&[
        "battle",
        "scenarios/zaha-woods-night.oc",
        "--seed",
        "2",
        "--html",
        page.to_str().unwrap(),
        "--log",
        dir.join("n.jsonl").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(data["fog"], true);
    let (w, h) = (data["width"].as_i64().unwrap(), data["height"].as_i64().unwrap());
    let frames = data["frames"].as_array().unwrap();
    let seen = |f: &Value, side: usize| -> std::collections::BTreeSet<(i64, i64)> {
        let mut tiles = std::collections::BTreeSet::new();
        for run in f["sight"][side].as_array().unwrap() {
            let r: Vec<i64> = run.as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            for x in r[1]..=r[2] {
                tiles.insert((x, r[0]));
            }
        }
        tiles
    };
    // Each side sees the squares of its own units standing (vision 3 in this scenario).
    for f in frames {
        for (k, u) in f["units"].as_array().unwrap().iter().enumerate() {
            let side = if data["units"][k]["side"] == "attacker" { 0 } else { 1 };
            if u["state"] == "ready" {
                assert!(seen(f, side).contains(&(u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap())), "a unit sees its square");
            }
        }
    }
    let k = frames.len() / 2;
    let f = &frames[k];
    let profile = dir.join("profile");
    for (side, name) in [(0, "attacker"), (1, "defender")] {
        let shown = open(chromium, &page, &format!("view={name}&frame={k}"), &profile);
        assert!(shown.console.is_empty(), "{:#?}", shown.console);
        assert!(shown.dom.contains(&format!("data-view=\"{name}\"")), "{name}'s view is on");
        let sight = seen(f, side);
        let shaded = tags(&shown.dom, "rect", "fog").len();
        assert_eq!(shaded as i64, w * h - sight.len() as i64, "{name}: the squares out of sight are shaded");
        let hidden: Vec<usize> = tags(&shown.dom, "g", "unit")
            .iter()
            .filter(|g| g.get("data-hidden").is_some_and(|v| v == "fog"))
            .map(|g| g["data-unit"].parse().unwrap())
            .collect();
        let expected: Vec<usize> = f["units"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(i, u)| {
                data["units"][*i]["side"] != name && !sight.contains(&(u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap()))
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(hidden, expected, "{name}: the enemies out of sight are hidden");
        // The units table tells no more than the map: those rows show no hit points.
        let rows: Vec<usize> = tags(&shown.dom, "tr", "unit")
            .iter()
            .filter(|r| r.get("data-hidden").is_some_and(|v| v == "fog"))
            .map(|r| r["data-unit"].parse().unwrap())
            .collect();
        assert_eq!(rows, expected, "{name}: the table hides the same enemies");
    }
    let all = open(chromium, &page, &format!("frame={k}"), &profile);
    assert!(tags(&all.dom, "rect", "fog").is_empty(), "the whole battle by default");
    // An enemy's step the side saw neither begin nor end is not told in its view, nor drawn.
    let hidden_in = |f: &Value, side: usize, i: usize| {
        let u = &f["units"][i];
        let mine = data["units"][i]["side"] == if side == 0 { "attacker" } else { "defender" };
        !mine && !seen(f, side).contains(&(u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap()))
    };
    let unseen_step = (1..frames.len()).find_map(|k| {
        let unit = frames[k]["records"].as_array()?.iter().find(|r| r["event"] == "turn")?["turn"]["unit"].as_u64()? as usize;
        let moved = frames[k - 1]["units"][unit]["x"] != frames[k]["units"][unit]["x"]
            || frames[k - 1]["units"][unit]["y"] != frames[k]["units"][unit]["y"];
        (moved && hidden_in(&frames[k - 1], 1, unit) && hidden_in(&frames[k], 1, unit)).then_some((k, unit))
    });
    let (k, unit) = unseen_step.expect("an attacker's move the defender does not see");
    let name = data["units"][unit]["name"].as_str().unwrap();
    let shown = open(chromium, &page, &format!("view=defender&frame={k}"), &profile);
    assert!(shown.console.is_empty(), "{:#?}", shown.console);
    assert!(!shown.dom.contains(&format!("{name} moves to")), "frame {k}: the defender is told where {name} went");
    assert!(shown.dom.contains("An enemy out of sight acts"), "frame {k}");
    assert!(tags(&shown.dom, "line", "move").is_empty(), "frame {k}: {name}'s path is not drawn");
    let whole = open(chromium, &page, &format!("frame={k}"), &profile);
    assert!(whole.dom.contains(&format!("{name} moves to")), "the whole battle tells it");
}

#[test]
fn a_replay_page_is_an_output_like_the_others() {
    let dir = scratch("policy");
    let page = dir.join("page.html");
    std::fs::write(&page, "<!DOCTYPE html><title>mine</title>").unwrap();
    let log = dir.join("b.jsonl");
    let args = |force: bool| {
        let mut a = vec!["battle", "scenarios/border-mulan.oc", "--log", log.to_str().unwrap(), "--html", page.to_str().unwrap()];
        if force {
            a.push("--force");
        }
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| oc(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let out = run(args(false));
    assert_eq!(out.status.code(), Some(2), "a page oc did not write is not replaced: {}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "<!DOCTYPE html><title>mine</title>");
    assert!(run(args(true)).status.success());
    // Its own page it replaces; the log it is made from it never does.
    assert!(run(args(false)).status.success());
    let out = oc(&["replay", log.to_str().unwrap(), "--project", ".", "--html", log.to_str().unwrap(), "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("input"), "{}", text(&out.stderr));
    let out = oc(&["battle", "scenarios/border-mulan.oc", "--html", "-"]);
    assert_eq!(out.status.code(), Some(2), "the log and the page cannot share standard output");
}
