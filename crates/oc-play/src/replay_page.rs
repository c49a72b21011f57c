//! Replay pages: `oc battle --html` and `oc replay --html` write one self-contained HTML page
//! (no network, no other file) to watch a battle: the map as `oc render` draws it (an inline PNG),
//! the units over it, play/pause/step/scrub, HP bars, each attack's forecast and result,
//! statuses, resources, the round counter and the victory line.
//!
//! The page's frames are a [`Recording`] of the battle (the engine's own snapshots, forecasts
//! and, under fog of war, each side's sight); this writes them with the page's style and script
//! (`assets/replay.css`, `assets/replay.js`). The map's picture ([`Board`]) is `oc play`'s too.

use oc_engine::battle::Record;
use oc_model::{Outcome, SideId};
use oc_project::output::REPLAY_MARK;
use serde::Serialize;

use crate::log::Source;
use crate::recording::{Frame, Recording};
use crate::Setup;

const CSS: &str = include_str!("../assets/replay.css");
const JS: &str = include_str!("../assets/replay.js");

/// Pixels per square of a page's picture of the map (the map's own grid when smaller).
const PAGE_GRID: u32 = 48;

/// The map as a page shows it: the picture `oc render` draws, or, for a map too large to draw,
/// each square's terrain; and every terrain's colour (the picture's).
pub struct Board {
    /// Pixels per square of the picture.
    pub grid: u32,
    pub picture: Option<Picture>,
    pub terrain: Vec<String>,
    pub colours: std::collections::BTreeMap<String, String>,
    /// The ruleset's resources: (name, what its title says).
    pub resources: Vec<(String, String)>,
}

/// The board of `setup`'s map; `labelled`: with coordinates and legend.
pub fn board(setup: &Setup, labelled: bool) -> Board {
    let rules = &setup.engine.rules;
    let map = &setup.atlas;
    let grid = PAGE_GRID.min(map.grid).max(oc_atlas::render::MIN_LABELLED_GRID);
    let opts = oc_atlas::render::Options { coords: labelled, legend: labelled, grid: Some(grid), overlay: None };
    // A map too large to draw is drawn by the page from its terrain.
    let picture = oc_atlas::render::render_with(map, rules, &opts).ok().and_then(|img| {
        let png = oc_atlas::render::png(&img).ok()?;
        Some(Picture {
            src: format!("data:image/png;base64,{}", oc_atlas::uvtt::base64(&png)),
            width: img.width(),
            height: img.height(),
        })
    });
    let terrain = if picture.is_some() { Vec::new() } else { setup.map.terrain.clone() };
    let colours = rules.terrains.iter().map(|t| (t.name.clone(), hex(oc_atlas::render::terrain_colour(&t.name).0))).collect();
    let resources =
        rules.ruleset.resources.iter().map(|r| (r.name.clone(), r.title.clone().unwrap_or_else(|| r.name.clone()))).collect();
    Board { grid, picture, terrain, colours, resources }
}

#[derive(Serialize)]
struct UnitInfo {
    name: String,
    side: SideId,
    class: String,
    max_hp: i64,
    items: Vec<String>,
    /// Its figures at full strength, where several (seed 003's units of figures).
    #[serde(skip_serializing_if = "one_figure")]
    figures: u32,
}

fn one_figure(n: &u32) -> bool {
    *n <= 1
}

#[derive(Serialize)]
struct Ending {
    /// `attacker`, `defender` or `draw`.
    outcome: &'static str,
    round: u32,
    line: String,
}

/// A picture of the map.
#[derive(Serialize)]
pub struct Picture {
    /// A `data:image/png;base64,...` URI.
    pub src: String,
    pub width: u32,
    pub height: u32,
}

#[derive(Serialize)]
struct Page<'r> {
    scenario: String,
    map: String,
    seed: u64,
    armies: [String; 2],
    rounds: Option<u32>,
    width: i64,
    height: i64,
    /// Pixels per square in the picture.
    grid: u32,
    picture: Option<Picture>,
    /// Each square's terrain, where there is no picture; and every terrain's colour.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    terrain: Vec<String>,
    colours: std::collections::BTreeMap<String, String>,
    /// The ruleset's resources: (name, what its title says).
    resources: Vec<(String, String)>,
    units: Vec<UnitInfo>,
    frames: Vec<Frame<'r>>,
    end: Option<Ending>,
    /// The scenario's fog of war: each frame then carries each side's sight.
    fog: bool,
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn side_word(s: SideId) -> &'static str {
    match s {
        SideId::Attacker => "attacker",
        SideId::Defender => "defender",
    }
}

/// The page of a recorded battle.
pub fn page(setup: &Setup, source: &Source, rec: &Recording) -> Result<String, String> {
    let Board { grid, picture, terrain, colours, resources } = board(setup, true);
    let Some(Record::Start { units, .. }) = rec.records.first() else {
        return Err("the battle log does not begin with its units".into());
    };
    // Every unit the battle had: those it made (divided off another) after those deployed.
    let units = units
        .iter()
        .chain(rec.units.iter().skip(units.len()))
        .map(|u| UnitInfo {
            name: u.name.clone(),
            side: u.side,
            class: u.class.to_string(),
            max_hp: u.max_hp,
            items: u.items.iter().map(|i| i.to_string()).collect(),
            figures: u.figures,
        })
        .collect();
    let frames = rec.frames()?;
    let end = rec.records.iter().rev().find_map(|r| match r {
        Record::End { round, outcome, reason } => Some(Ending {
            outcome: match outcome {
                Outcome::Win(s) => side_word(*s),
                Outcome::Draw => "draw",
            },
            round: *round,
            line: format!("Round {round}: {} ({reason})", crate::setup::outcome_word(*outcome)),
        }),
        _ => None,
    });
    // The scenario as players know it: its title (its code name when it has none).
    let scenario_title = setup.scenario.title.clone().unwrap_or_else(|| setup.scenario.name.clone());
    let data = Page {
        scenario: scenario_title.clone(),
        map: setup.map.name.clone(),
        seed: source.seed,
        armies: [source.attacker.clone(), source.defender.clone()],
        rounds: setup.scenario.rounds,
        width: setup.map.width,
        height: setup.map.height,
        grid,
        picture,
        terrain,
        colours,
        resources,
        units,
        frames,
        end,
        fog: setup.scenario.fog.is_some(),
    };
    let json = serde_json::to_string(&data).map_err(|e| e.to_string())?;
    let title = format!(
        "{}: {} ({}) vs {} ({}) (seed {})",
        scenario_title, source.attacker, source.attacker_ai, source.defender, source.defender_ai, source.seed
    );
    Ok(html(&title, &json))
}

/// Text safe inside HTML elements and attribute values.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn html(title: &str, json: &str) -> String {
    // JSON in a <script> element: no `<` may close it early (`\u003c` is the same string to JSON).
    let json = json.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026");
    let title = escape(title);
    let (attacker, defender) = (hex(oc_atlas::render::ATTACKER_COLOUR), hex(oc_atlas::render::DEFENDER_COLOUR));
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{REPLAY_MARK}
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>
:root {{ --attacker: {attacker}; --defender: {defender}; }}
{CSS}</style>
</head>
<body data-frame="0">
<header><h1>{title}</h1><p id="round" aria-live="polite"></p></header>
<main>
<section id="stage">
<div id="board"></div>
<nav id="controls" aria-label="replay controls">
<button id="first" type="button" title="first step (Home)" aria-label="first step"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M2 2h2v12H2zM9 2v12L4 8zM15 2v12L10 8z"/></svg></button>
<button id="back" type="button" title="step back (left arrow)" aria-label="step back"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M3 2h2v12H3zM13 2v12L6 8z"/></svg></button>
<button id="play" type="button" title="play or pause (space)" aria-label="play or pause"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg></button>
<button id="step" type="button" title="step (right arrow)" aria-label="step"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M3 2v12l7-6zM11 2h2v12h-2z"/></svg></button>
<button id="last" type="button" title="last step (End)" aria-label="last step"><svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M1 2v12l5-6zM7 2v12l5-6zM12 2h2v12h-2z"/></svg></button>
<input id="scrub" type="range" min="0" max="0" value="0" aria-label="step">
<span id="counter"></span>
<label>speed <select id="speed"><option value="1200">slow</option><option value="600" selected>normal</option><option value="200">fast</option></select></label>
<label id="view-label" hidden>view <select id="view"><option value="all" selected>all</option><option value="attacker">attacker's view</option><option value="defender">defender's view</option></select></label>
</nav>
<p id="victory" hidden></p>
</section>
<aside>
<section id="turn"><h2>This step</h2><div id="forecast"></div><ul id="events"></ul></section>
<section><h2>Units</h2><table id="units"><thead><tr><th>unit</th><th>HP</th><th>weapon</th><th>statuses</th><th id="resources-head">resources</th></tr></thead><tbody></tbody></table></section>
</aside>
</main>
<ul id="errors" hidden></ul>
<script type="application/json" id="battle-data">{json}</script>
<script>
{JS}</script>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn data_cannot_close_its_script_element() {
        let page = html("a <b> & \"c\"", r#"{"note":"</script><script>alert(1)</script>"}"#);
        assert_eq!(page.matches("</script>").count(), 2, "only the page's own two script elements close");
        assert!(page.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert!(page.contains(r#"{"note":"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"}"#));
    }

    #[test]
    fn the_output_policy_knows_a_page() {
        let page = html("t", "{}");
        assert!(oc_project::output::Kind::ReplayPage.recognises(page.as_bytes()));
        assert!(page.find(REPLAY_MARK).is_some_and(|at| at < 4096));
    }
}
