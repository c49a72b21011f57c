//! Replay pages: `oc battle --html` and `oc replay --html` write one self-contained HTML page
//! (no network, no other file) to watch a battle: the map as `oc render` draws it (an inline PNG),
//! the units over it, play/pause/step/scrub, HP bars, each attack's forecast and result,
//! statuses, resources, the round counter and the victory line.
//!
//! The page's frames come from the engine itself: the game is played again with
//! [`battle::play_watched`], a snapshot of the units taken once they are deployed and after every
//! turn, and the exact forecast of each attack worked out as the AI declares it. Each frame
//! carries the log records that turn wrote (every kind of [`Record`]), which the page describes.
//! Under fog of war each frame also carries what each side sees (the engine's `Battle::sight`,
//! as row runs), so the page can show the battle as the attacker or the defender saw it.

use oc_engine::battle::{self, Battle, Combatant, Controller, GameResult, Record, State, Turn};
use oc_engine::Engine;
use oc_model::{Outcome, SideId};
use oc_play::log::Source;
use oc_project::output::REPLAY_MARK;
use serde::Serialize;

use oc_play::Setup;

const CSS: &str = include_str!("replay_html/page.css");
const JS: &str = include_str!("replay_html/page.js");

/// Pixels per square of the page's picture of the map (the map's own grid when smaller).
const PAGE_GRID: u32 = 48;

/// A battle played with the AI on both sides, with what a replay page shows of it.
pub struct Recording {
    pub result: GameResult,
    pub records: Vec<Record>,
    snapshots: Vec<Snapshot>,
    declared: Vec<Declared>,
}

/// The battle after a turn (or once deployed): `log_len` records written so far.
struct Snapshot {
    log_len: usize,
    round: u32,
    to_act: SideId,
    active: Option<usize>,
    units: Vec<UnitState>,
    changed: Vec<(i64, i64, String)>,
    /// Under fog: the tiles each side (attacker, defender) sees, as row runs.
    sight: Option<[Vec<Run>; 2]>,
}

/// Tiles `x0..=x1` of row `y`: `[y, x0, x1]`.
type Run = [i64; 3];

/// What `side` sees of the battle now, as row runs, by the engine's own fog rules.
fn sight_runs(b: &Battle<'_>, side: SideId) -> Vec<Run> {
    let sight = b.sight(side);
    let mut runs: Vec<Run> = Vec::new();
    for y in 0..b.map.height {
        let mut start: Option<i64> = None;
        for x in 0..=b.map.width {
            let seen = x < b.map.width && sight.sees((x, y));
            match (seen, start) {
                (true, None) => start = Some(x),
                (false, Some(x0)) => {
                    runs.push([y, x0, x - 1]);
                    start = None;
                }
                _ => {}
            }
        }
    }
    runs
}

/// A turn the AI chose, with the forecast of its attack; `at` is the log's length then.
struct Declared {
    at: usize,
    turn: Turn,
    forecast: Option<ForecastOut>,
}

/// The AIs, remembering each turn they choose and the exact forecast of each attack.
struct Recorder {
    ai: Box<dyn Controller>,
    declared: Vec<Declared>,
}

impl Controller for Recorder {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        let turn = self.ai.choose(b)?;
        let forecast = forecast(b, &turn);
        self.declared.push(Declared { at: b.log.len(), turn: turn.clone(), forecast });
        Some(turn)
    }
}

/// Plays the setup's battle from `seed` with `ai` as `oc battle` does (the same records),
/// recording it.
pub fn play(setup: &Setup, seed: u64, ai: Box<dyn Controller>) -> Result<Recording, battle::BattleError> {
    let armies = [&setup.armies[0], &setup.armies[1]];
    let original = setup.map.terrain.clone();
    let width = setup.map.width;
    let mut recorder = Recorder { ai, declared: Vec::new() };
    let mut snapshots: Vec<Snapshot> = Vec::new();
    let mut watch = |b: &Battle<'_>| {
        if snapshots.last().is_some_and(|s| s.log_len == b.log.len()) {
            return;
        }
        let changed = b
            .map
            .terrain
            .iter()
            .zip(&original)
            .enumerate()
            .filter(|(_, (now, was))| now != was)
            .map(|(k, (now, _))| (k as i64 % width.max(1), k as i64 / width.max(1), now.clone()))
            .collect();
        snapshots.push(Snapshot {
            log_len: b.log.len(),
            round: b.round,
            to_act: b.to_act,
            active: b.active.as_ref().map(|a| a.unit),
            units: b.units.iter().map(UnitState::of).collect(),
            changed,
            sight: b.scenario.fog.map(|_| [sight_runs(b, SideId::Attacker), sight_runs(b, SideId::Defender)]),
        });
    };
    let (result, records) =
        battle::play_watched(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut recorder, &mut watch)?;
    Ok(Recording { result, records, snapshots, declared: recorder.declared })
}

/// The exact forecast of an attack as declared: the attacker on the square it moves to, with the
/// weapon it equips, against the target where it stands.
fn forecast(b: &Battle<'_>, turn: &Turn) -> Option<ForecastOut> {
    let battle::Act::Attack { target } = turn.act else { return None };
    let (a, d) = (b.units.get(turn.unit)?, b.units.get(target)?);
    let (mut la, ld) = (b.loadout_of(turn.unit, true)?, b.loadout_of(target, false)?);
    let from = turn.to.unwrap_or(a.pos);
    if let Some(w) = &turn.equip {
        la.weapon = Some(*w);
    }
    la.terrain = b.terrain_atom_at(from);
    let distance = battle::distance(from, d.pos);
    let f = b.engine.forecast(&la, &ld, distance).ok()?;
    Some(ForecastOut {
        attacker: turn.unit,
        target,
        distance,
        weapon: f.attacker.weapon.clone(),
        counter_weapon: f.defender.weapon.clone(),
        hit: f.attacker.hit,
        crit: f.attacker.crit,
        damage: f.attacker.damage,
        crit_damage: f.attacker.crit_damage,
        strikes: f.attacker.strikes,
        counter_hit: f.defender.hit,
        counter_crit: f.defender.crit,
        counter_damage: f.defender.damage,
        counter_crit_damage: f.defender.crit_damage,
        counter_strikes: f.defender.strikes,
        rout: f.defender_routed,
        counter_rout: f.attacker_routed,
        dealt: f.defender_damage_taken,
        taken: f.attacker_damage_taken,
    })
}

#[derive(Serialize)]
struct UnitState {
    hp: i64,
    x: i64,
    y: i64,
    state: State,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    statuses: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resources: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    facing: Option<(i64, i64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    equipped: Option<String>,
    activated: bool,
}

impl UnitState {
    fn of(u: &Combatant) -> UnitState {
        let statuses = u
            .statuses
            .iter()
            .map(|a| match a.left {
                Some(n) => format!("{} ({n})", a.status),
                None => a.status.to_string(),
            })
            .chain(u.debuffs.iter().map(|d| format!("{}{:+}", d.attr, d.shift)))
            .collect();
        UnitState {
            hp: u.hp,
            x: u.pos.0,
            y: u.pos.1,
            state: u.state,
            statuses,
            resources: u.resources.clone(),
            facing: u.facing,
            equipped: u.equipped.map(String::from),
            activated: u.activated,
        }
    }
}

#[derive(Serialize)]
struct ForecastOut {
    attacker: usize,
    target: usize,
    distance: i64,
    weapon: Option<String>,
    counter_weapon: Option<String>,
    hit: f64,
    crit: f64,
    damage: i64,
    crit_damage: i64,
    strikes: u32,
    counter_hit: f64,
    counter_crit: f64,
    counter_damage: i64,
    counter_crit_damage: i64,
    counter_strikes: u32,
    /// Chance the target is routed; chance the attacker is.
    rout: f64,
    counter_rout: f64,
    /// Expected damage the target takes; the attacker takes.
    dealt: f64,
    taken: f64,
}

#[derive(Serialize)]
struct UnitInfo {
    name: String,
    side: SideId,
    class: String,
    max_hp: i64,
    items: Vec<String>,
}

#[derive(Serialize)]
struct Frame<'r> {
    round: u32,
    to_act: SideId,
    #[serde(skip_serializing_if = "Option::is_none")]
    active: Option<usize>,
    records: &'r [Record],
    units: &'r [UnitState],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    changed: &'r [(i64, i64, String)],
    #[serde(skip_serializing_if = "Option::is_none")]
    forecast: Option<&'r ForecastOut>,
    /// Under fog: what the attacker and the defender see after this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    sight: Option<&'r [Vec<Run>; 2]>,
}

#[derive(Serialize)]
struct Ending {
    /// `attacker`, `defender` or `draw`.
    outcome: &'static str,
    round: u32,
    line: String,
}

#[derive(Serialize)]
struct Picture {
    /// A `data:image/png;base64,...` URI.
    src: String,
    width: u32,
    height: u32,
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
    let engine: &Engine = &setup.engine;
    let rules = &engine.rules;
    let map = &setup.atlas;
    let grid = PAGE_GRID.min(map.grid).max(oc_atlas::render::MIN_LABELLED_GRID);
    let opts = oc_atlas::render::Options { coords: true, legend: true, grid: Some(grid), overlay: None };
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
    let Some(Record::Start { units, .. }) = rec.records.first() else {
        return Err("the battle log does not begin with its units".into());
    };
    let units = units
        .iter()
        .map(|u| UnitInfo {
            name: u.name.clone(),
            side: u.side,
            class: u.class.to_string(),
            max_hp: u.max_hp,
            items: u.items.iter().map(|i| i.to_string()).collect(),
        })
        .collect();
    let mut frames = Vec::new();
    let mut from = 0;
    for s in &rec.snapshots {
        let records = rec.records.get(from..s.log_len).ok_or("the recording and its log disagree")?;
        // The attack this frame's turn declared, if the battle played the turn the AI chose.
        let forecast = rec
            .declared
            .iter()
            .find(|d| d.at == from)
            .filter(|d| records.iter().any(|r| matches!(r, Record::Turn { turn, .. } if *turn == d.turn)))
            .and_then(|d| d.forecast.as_ref());
        frames.push(Frame {
            round: s.round,
            to_act: s.to_act,
            active: s.active,
            records,
            units: &s.units,
            changed: &s.changed,
            forecast,
            sight: s.sight.as_ref(),
        });
        from = s.log_len;
    }
    if from != rec.records.len() {
        return Err("the recording missed the battle's last records".into());
    }
    let end = rec.records.iter().rev().find_map(|r| match r {
        Record::End { round, outcome, reason } => Some(Ending {
            outcome: match outcome {
                Outcome::Win(s) => side_word(*s),
                Outcome::Draw => "draw",
            },
            round: *round,
            line: format!("Round {round}: {} ({reason})", oc_play::setup::outcome_word(*outcome)),
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
        resources: rules
            .ruleset
            .resources
            .iter()
            .map(|r| (r.name.clone(), r.title.clone().unwrap_or_else(|| r.name.clone())))
            .collect(),
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
