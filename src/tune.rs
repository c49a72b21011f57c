//! `oc tune FILE`: searches a scenario's knobs — its time limit, its sample armies' sizes, its
//! war chests with the armies re-bought — for a 50% attacker win rate with the default AI, and
//! prints the suggested values beside the current ones with the win rate's 95% interval. The
//! file changes only with `--write`: then only the tuned numbers (and the units hired or
//! dismissed) are rewritten in place, after the result checks clean, atomically.

mod edit;
mod knobs;
mod search;

use std::path::Path;

use clap::ValueEnum;
use oc_compiler::Workspace;
use oc_diag::{CodeInfo, Diagnostic, Span};
use oc_model as m;
use oc_project::DiskHost;
use oc_syntax::ast;

use crate::commands::style;
use oc_play::stats::Score;
use crate::report;
use crate::Format;
use edit::{Base, Setting};
use search::{verdict, Failure, Tuner, Verdict};

pub const UNKNOWN_SCENARIO: &str = "oc::tune::unknown_scenario";
pub const UNKNOWN_ARMY: &str = "oc::tune::unknown_army";
pub const NOT_APPLICABLE: &str = "oc::tune::knob_not_applicable";
pub const KNOBS_CLASH: &str = "oc::tune::knobs_clash";

pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: UNKNOWN_SCENARIO,
        title: "oc tune: no such scenario, or several to choose from",
        explanation: "`oc tune FILE` tunes one scenario of the rules FILE compiles to: the only \
one, or the one named with `--scenario NAME`. The name must be a scenario's name as written after \
`scenario` (not its title).\n\nFix: name one of the scenarios listed in the help line.",
    },
    CodeInfo {
        code: UNKNOWN_ARMY,
        title: "oc tune: no such army for the scenario, or several to choose from",
        explanation: "A tuning plays the scenario with one army on each side: the only army \
written `for` the scenario and side, or the one named with `--attacker ARMY` / `--defender ARMY` \
(an army's name as written after `army`).\n\nFix: name one of the armies listed in the help line, \
or write an army for the side.",
    },
    CodeInfo {
        code: NOT_APPLICABLE,
        title: "oc tune: a knob cannot be tuned in this file",
        explanation: "`oc tune` rewrites only the file it is given, so a knob must be written \
there: `rounds` and `war-chest` edit the scenario, `army-size` and `war-chest` the two armies \
played. A scenario or army imported from another file cannot be tuned through this one.\n\nFix: \
run `oc tune` on the file that holds it, or choose other knobs with `--knob`.",
    },
    CodeInfo {
        code: KNOBS_CLASH,
        title: "oc tune: two knobs change the same thing",
        explanation: "`--knob war-chest` re-buys the armies to fit the chests it tries, and \
`--knob army-size` hires and dismisses units of the same armies: tuned together they would \
fight over the armies' units, and the result would depend on their order.\n\nFix: tune one of \
them (with `rounds`, if you like), then the other in a second run.",
    },
];

/// What `oc tune` may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Knob {
    /// Both war chests, the armies re-bought to fit.
    WarChest,
    /// The time limit (`rounds N`).
    Rounds,
    /// The sample armies' sizes.
    ArmySize,
}

impl Knob {
    fn word(self) -> &'static str {
        match self {
            Knob::WarChest => "war-chest",
            Knob::Rounds => "rounds",
            Knob::ArmySize => "army-size",
        }
    }
}

/// The knobs tuned when none is named, in the order they are searched: whole units first,
/// then the time limit to close what a unit more or less cannot.
pub const DEFAULT_KNOBS: [Knob; 2] = [Knob::ArmySize, Knob::Rounds];

pub struct Request<'a> {
    pub file: &'a Path,
    pub scenario: Option<&'a str>,
    pub attacker: Option<&'a str>,
    pub defender: Option<&'a str>,
    /// The most games one setting gets.
    pub games: u64,
    pub seed: u64,
    /// Empty: the default knobs.
    pub knobs: &'a [Knob],
    pub write: bool,
    pub format: Format,
}

/// Where the definitions a tuning reads are.
struct Found<'w> {
    scenario: &'w ast::ScenarioDef,
    armies: [&'w ast::ArmyDef; 2],
    /// Whether each is written in the file given (not imported): [scenario, attacker, defender].
    here: [bool; 3],
}

pub fn tune(r: &Request) -> u8 {
    let (rules, ws, root) = match crate::load::rules(r.file) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let absolute = oc_project::manifest::absolute(r.file);
    let Some(logical) = oc_project::discover::logical(&root, &absolute) else {
        eprintln!("error: {} is not inside its project {}", r.file.display(), root.display());
        return 2;
    };
    let Some(file_id) = ws.id_of(&logical) else {
        eprintln!("error: {}: not a `.oc` file of the project", r.file.display());
        return 2;
    };
    let fail = |ws: &Workspace, d: Box<Diagnostic>| {
        eprint!("{}", report::render(ws, &d, style()));
        1u8
    };
    let scenario = match pick_scenario(&rules, &ws, file_id, r.scenario) {
        Ok(s) => s.clone(),
        Err(d) => return fail(&ws, d),
    };
    let scenario_span = find_scenario(&ws, &scenario.name).map_or(Span::new(file_id, 0, 0), |s| s.name.span);
    let attacker = match pick_army(&rules, &scenario, m::SideId::Attacker, r.attacker, scenario_span) {
        Ok(a) => a.clone(),
        Err(d) => return fail(&ws, d),
    };
    let defender = match pick_army(&rules, &scenario, m::SideId::Defender, r.defender, scenario_span) {
        Ok(a) => a.clone(),
        Err(d) => return fail(&ws, d),
    };
    let found = match find(&ws, file_id, &scenario.name, [&attacker.name, &defender.name]) {
        Some(f) => f,
        None => {
            eprintln!("error: the definitions of `{}` and its armies were not found", scenario.name);
            return 2;
        }
    };
    let knobs = match choose_knobs(r.knobs, &found, &ws, r.file) {
        Ok(k) => k,
        Err(d) => return fail(&ws, d),
    };
    let map = match oc_play::setup::scenario_map(&root, &rules, &scenario) {
        Ok((map, _)) => map,
        Err(e) => return crate::load::refused(&e),
    };
    let base = Base {
        text: ws.file(file_id).map(|f| f.text.clone()).unwrap_or_default(),
        scenario: found.scenario.clone(),
        armies: [found.armies[0].clone(), found.armies[1].clone()],
        model: scenario,
        army_models: [attacker, defender],
    };
    let project = match crate::commands::project_of(r.file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut host = DiskHost::for_project(&project);
    let mut ws = ws;
    let (compiled, _) = ws.compile(&mut host, std::slice::from_ref(&logical));
    let warnings = compiled.diagnostics.iter().filter(|d| !d.is_error()).count();
    let mut tuner = Tuner::new(&base, ws, host, logical.clone(), map, r.seed, r.games, warnings);
    eprintln!(
        "tuning {} ({} vs {}) for a 50% attacker win rate: knobs {}, up to {} games a setting, seed {}",
        base.model.name,
        base.army_models[0].name,
        base.army_models[1].name,
        knobs.iter().map(|k| k.word()).collect::<Vec<_>>().join(", "),
        r.games,
        r.seed
    );
    let (current, best) = match search_knobs(&mut tuner, &rules, &knobs) {
        Ok(pair) => pair,
        Err(Failure(e)) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let (now, suggested) = match (tuner.measure(&current, 0), tuner.confirm(&best)) {
        (Ok(Some(now)), Ok(Some(s))) => (now, s),
        (Err(Failure(e)), _) | (_, Err(Failure(e))) => {
            eprintln!("error: {e}");
            return 2;
        }
        _ => {
            eprintln!("error: the suggested values no longer check clean");
            return 2;
        }
    };
    let mut written = false;
    // Only values whose interval holds 50% are written: the nearest values found otherwise may
    // change the scenario's character without making it fair (a third sentry and 31 rounds).
    let even = verdict(&suggested) == Verdict::Fair;
    if r.write && even {
        match write(r.file, &root, &logical, &base, &best, &mut tuner) {
            Ok(w) => written = w,
            Err(code) => return code,
        }
    }
    let outcome = Outcome { knobs: &knobs, current: &current, best: &best, now, suggested, written };
    let text = match r.format {
        Format::Human => human(r, &base, &tuner, &outcome),
        Format::Json => json(r, &base, &tuner, &outcome),
    };
    print!("{text}");
    if r.write && !even && current != best {
        eprintln!("error: the suggested values' 95% interval does not hold 50%; nothing was written to {}", r.file.display());
        eprintln!(
            "help: these are the nearest values found: write them by hand if they suit, or give more knobs (--knob) or games"
        );
        return 1;
    }
    0
}

/// Each knob in turn from where the last left the setting, until one finds 50%.
fn search_knobs(tuner: &mut Tuner, rules: &m::Rules, knobs: &[Knob]) -> Result<(Setting, Setting), Failure> {
    let current = tuner.base.current();
    let shop = knobs::Shop { rules, base: tuner.base };
    let mut best = current.clone();
    if tuner.probe(&current, "as written")?.is_none() {
        return Err(Failure("the scenario as written does not check clean".into()));
    }
    // The ladder of armies searched, [toward the attacker, toward the defender], if any.
    let mut ladder: Option<[Vec<Setting>; 2]> = None;
    for knob in knobs {
        if tuner.probe(&best, "so far")? == Some(Verdict::Fair) {
            break;
        }
        best = match knob {
            Knob::Rounds => tuner.rounds(&best)?,
            Knob::ArmySize | Knob::WarChest => {
                let rungs = |up| if *knob == Knob::ArmySize { shop.army_sizes(&best, up) } else { shop.war_chests(&best, up) };
                let (up, down) = (rungs(true), rungs(false));
                let found = tuner.bisect(&up, &down, if *knob == Knob::ArmySize { "army size" } else { "war chests" })?;
                ladder = Some([up, down]);
                found
            }
        };
    }
    // Armies change by whole units and limits by whole rounds, each often a big step: near
    // the armies found, every time limit is tried again with each neighbouring rung.
    if let (Some([up, down]), true) = (&ladder, knobs.contains(&Knob::Rounds)) {
        if tuner.probe(&best, "so far")? != Some(Verdict::Fair) {
            best = refine(tuner, up, down, best)?;
        }
    }
    Ok((current, best))
}

/// The time limit searched again with the armies of the rungs within two of `best`'s: the
/// pair nearest 50% wins.
fn refine(tuner: &mut Tuner, up: &[Setting], down: &[Setting], best: Setting) -> Result<Setting, Failure> {
    let same = |a: &Setting, b: &Setting| a.armies == b.armies && a.chests == b.chests;
    let rung = |p: i64| if p >= 0 { up.get(p as usize) } else { down.get(p.unsigned_abs() as usize) };
    let span = -(down.len() as i64)..up.len() as i64;
    let Some(at) = span.clone().find(|p| rung(*p).is_some_and(|r| same(r, &best))) else { return Ok(best) };
    let mut nearest = (tuner.score(&best), best);
    for p in (at - 2..=at + 2).filter(|p| *p != at) {
        let Some(r) = rung(p) else { continue };
        if !tuner.feasible(r) {
            continue;
        }
        eprintln!("  rounds again with the armies of rung {p:+}:");
        let tuned = tuner.rounds(r)?;
        let score = tuner.score(&tuned);
        if (score.rate() - 0.5).abs() < (nearest.0.rate() - 0.5).abs() {
            nearest = (score, tuned);
        }
    }
    Ok(nearest.1)
}

struct Outcome<'a> {
    knobs: &'a [Knob],
    current: &'a Setting,
    best: &'a Setting,
    now: Score,
    suggested: Score,
    written: bool,
}

/// A row of the report: what, as written, as suggested, and for armies the units changed.
struct Row {
    what: String,
    current: String,
    suggested: String,
    changes: Vec<String>,
}

fn rows(base: &Base, o: &Outcome) -> Vec<Row> {
    let mut out = Vec::new();
    let limit = |r: Option<u32>| r.map_or("none".to_string(), |n| n.to_string());
    if o.knobs.contains(&Knob::Rounds) {
        out.push(Row {
            what: "rounds".into(),
            current: limit(o.current.rounds),
            suggested: limit(o.best.rounds),
            changes: vec![],
        });
    }
    for (i, side) in ["attacker", "defender"].iter().enumerate() {
        if o.knobs.contains(&Knob::WarChest) {
            let chest = |s: &Setting| s.chests.get(i).map_or(String::new(), i64::to_string);
            out.push(Row {
                what: format!("{side} war chest"),
                current: chest(o.current),
                suggested: chest(o.best),
                changes: vec![],
            });
        }
        if o.knobs.contains(&Knob::WarChest) || o.knobs.contains(&Knob::ArmySize) {
            let (Some(before), Some(plan)) = (base.army_models.get(i), o.best.armies.get(i)) else { continue };
            let after = base.army(i, plan);
            let mut changes: Vec<String> = plan
                .dropped
                .iter()
                .filter_map(|d| before.units.get(*d))
                .map(|u| format!("dismissed {} ({})", u.name, u.class))
                .collect();
            changes.extend(
                plan.added
                    .iter()
                    .filter_map(|(n, t)| before.units.get(*t).map(|u| format!("hired {n} ({}, as {})", u.class, u.name))),
            );
            out.push(Row {
                what: format!("{side} units"),
                current: before.units.len().to_string(),
                suggested: after.units.len().to_string(),
                changes,
            });
        }
    }
    out
}

/// The notes about the whole search and about the suggested setting, each once (a search that
/// reads the time limit again for several armies makes the same note again).
fn notes<'t>(tuner: &'t Tuner, o: &Outcome) -> Vec<&'t str> {
    let mut seen = std::collections::HashSet::new();
    tuner
        .notes
        .iter()
        .filter(|(s, _)| s.as_ref().is_none_or(|s| s == o.best))
        .map(|(_, n)| n.as_str())
        .filter(|n| seen.insert(*n))
        .collect()
}

fn human(r: &Request, base: &Base, tuner: &Tuner, o: &Outcome) -> String {
    let mut s = format!(
        "{} ({}) in {}: {} (attacker) vs {} (defender), seed {}\n",
        base.model.title.as_deref().unwrap_or(&base.model.name),
        base.model.name,
        r.file.display(),
        base.army_models[0].name,
        base.army_models[1].name,
        r.seed
    );
    s.push_str(&format!("  {:<20} {:>9}  {}\n", "knob", "current", "suggested"));
    for row in rows(base, o) {
        let changes = if row.changes.is_empty() { String::new() } else { format!(" ({})", row.changes.join(", ")) };
        s.push_str(&format!("  {:<20} {:>9}  {}{changes}\n", row.what, row.current, row.suggested));
    }
    s.push_str(&format!("  attacker win rate as written: {}\n", o.now.text()));
    s.push_str(&format!("  attacker win rate suggested:  {}, on games the search did not use\n", o.suggested.text()));
    let even = verdict(&o.suggested) == Verdict::Fair;
    s.push_str(&if even {
        "  the suggested values' 95% interval holds 50%\n".to_string()
    } else {
        "  the knobs could not bring the interval to 50%: these are the nearest values found\n".to_string()
    });
    for n in notes(tuner, o) {
        s.push_str(&format!("  note: {n}\n"));
    }
    let tail = if o.written {
        format!("the suggested values were written into {}", r.file.display())
    } else if r.write && o.current != o.best && !even {
        format!("{} is unchanged: --write writes only values whose interval holds 50%", r.file.display())
    } else if o.current == o.best {
        "the file already holds the suggested values".to_string()
    } else {
        format!("{} is unchanged (--write writes the suggested values)", r.file.display())
    };
    s.push_str(&format!("  {} games played; {tail}\n", tuner.played));
    s
}

fn json(r: &Request, base: &Base, tuner: &Tuner, o: &Outcome) -> String {
    let values: Vec<serde_json::Value> = rows(base, o)
        .into_iter()
        .map(|row| serde_json::json!({"knob": row.what, "current": row.current, "suggested": row.suggested, "changes": row.changes}))
        .collect();
    let value = serde_json::json!({
        "file": r.file.display().to_string(),
        "scenario": base.model.name,
        "attacker": base.army_models[0].name,
        "defender": base.army_models[1].name,
        "seed": r.seed,
        "games_per_setting": r.games,
        "knobs": o.knobs.iter().map(|k| k.word()).collect::<Vec<_>>(),
        "values": values,
        "current": o.now.json(),
        "suggested": o.suggested.json(),
        "games_played": tuner.played,
        "notes": notes(tuner, o),
        "written": o.written,
    });
    format!("{value}\n")
}

/// `--write`: the suggested values into the file, if they check clean and the file is as read.
fn write(file: &Path, root: &Path, logical: &str, base: &Base, best: &Setting, tuner: &mut Tuner) -> Result<bool, u8> {
    let text = base.text(best);
    if text == base.text {
        return Ok(false);
    }
    // Every setting measured was checked like this; the check is repeated on the very text
    // written.
    if let Err(diags) = tuner.check(&text) {
        let reports = report::Reports::new(&tuner.ws);
        for d in &diags {
            eprint!("{}", reports.render(d, style()));
        }
        eprintln!("error: with the suggested values {} does not check clean; nothing was written", file.display());
        return Err(1);
    }
    let readonly = std::fs::metadata(file).map(|md| md.permissions().readonly()).unwrap_or(false);
    if readonly {
        eprintln!("error: {} is read-only; nothing was written", file.display());
        eprintln!("help: make it writable, or copy the suggested values by hand");
        return Err(2);
    }
    let confined = oc_project::fsx::Confined::new(root);
    oc_project::output::rewrite_source(&confined, logical, base.text.as_bytes(), text.as_bytes()).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", file.display());
        2u8
    })?;
    eprintln!("wrote the suggested values into {}", file.display());
    Ok(true)
}

fn scenarios_in(ws: &Workspace, file: oc_diag::FileId) -> Vec<&ast::ScenarioDef> {
    let items = ws.file(file).map(|f| f.ast().items.as_slice()).unwrap_or_default();
    items.iter().filter_map(|i| if let ast::Item::Scenario(s) = i { Some(s) } else { None }).collect()
}

fn find_scenario<'w>(ws: &'w Workspace, name: &str) -> Option<&'w ast::ScenarioDef> {
    ws.files().flat_map(|(_, f)| f.ast().items.iter()).find_map(|i| match i {
        ast::Item::Scenario(s) if s.name.value == name => Some(s),
        _ => None,
    })
}

fn find<'w>(ws: &'w Workspace, file: oc_diag::FileId, scenario: &str, armies: [&str; 2]) -> Option<Found<'w>> {
    let army = |name: &str| {
        ws.files().flat_map(|(_, f)| f.ast().items.iter()).find_map(|i| match i {
            ast::Item::Army(a) if a.name.value == name => Some(a),
            _ => None,
        })
    };
    let (s, a, d) = (find_scenario(ws, scenario)?, army(armies[0])?, army(armies[1])?);
    Some(Found { scenario: s, armies: [a, d], here: [s.span.file == file, a.span.file == file, d.span.file == file] })
}

fn pick_scenario<'r>(
    rules: &'r m::Rules,
    ws: &Workspace,
    file: oc_diag::FileId,
    name: Option<&str>,
) -> Result<&'r m::Scenario, Box<Diagnostic>> {
    let here = scenarios_in(ws, file);
    let names: Vec<&str> = rules.scenarios.iter().map(|s| s.name.as_str()).collect();
    let at = here.first().map_or(Span::new(file, 0, 0), |s| s.name.span);
    let listed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
    match name {
        Some(n) => rules.scenario(n).ok_or_else(|| {
            let help = match oc_diag::did_you_mean(n, names.iter().copied()) {
                Some(close) => format!("did you mean `{close}`? the scenarios are: {listed}"),
                None => format!("the scenarios are: {listed}"),
            };
            Box::new(
                Diagnostic::error(UNKNOWN_SCENARIO, at, format!("no scenario `{n}` to tune"))
                    .with_label("the scenario written here is another")
                    .with_help(help),
            )
        }),
        None => match rules.scenarios.as_slice() {
            [one] => Ok(one),
            [] => Err(Box::new(
                Diagnostic::error(UNKNOWN_SCENARIO, at, "no scenario to tune")
                    .with_label("this file defines no scenario and imports none")
                    .with_help("write a `scenario Name { ... }`, or tune the file that has one"),
            )),
            _ => Err(Box::new(
                Diagnostic::error(UNKNOWN_SCENARIO, at, format!("{} scenarios to choose from", names.len()))
                    .with_label("one of them")
                    .with_help(format!("choose one with --scenario NAME: {listed}")),
            )),
        },
    }
}

fn pick_army<'r>(
    rules: &'r m::Rules,
    s: &m::Scenario,
    side: m::SideId,
    name: Option<&str>,
    at: Span,
) -> Result<&'r m::Army, Box<Diagnostic>> {
    let candidates: Vec<&m::Army> = rules.armies.iter().filter(|a| a.scenario == s.name && a.side == side).collect();
    let listed = candidates.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ");
    let flag = format!("--{}", side.word());
    match name {
        Some(n) => candidates.iter().find(|a| a.name == n).copied().ok_or_else(|| {
            let help = match (oc_diag::did_you_mean(n, candidates.iter().map(|a| a.name.as_str())), candidates.is_empty()) {
                (_, true) => format!("write an `army Name for {} {} {{ ... }}`", s.name, side.word()),
                (Some(close), _) => format!("did you mean `{close}`? the {} armies are: {listed}", side.word()),
                (None, _) => format!("the {} armies are: {listed}", side.word()),
            };
            Box::new(
                Diagnostic::error(UNKNOWN_ARMY, at, format!("no {} army `{n}` for `{}`", side.word(), s.name))
                    .with_label("the scenario played")
                    .with_help(help),
            )
        }),
        None => match candidates.as_slice() {
            [one] => Ok(one),
            [] => Err(Box::new(
                Diagnostic::error(UNKNOWN_ARMY, at, format!("no {} army is written for `{}`", side.word(), s.name))
                    .with_label("the scenario played")
                    .with_help(format!("write an `army Name for {} {} {{ ... }}` to play it with", s.name, side.word())),
            )),
            _ => Err(Box::new(
                Diagnostic::error(UNKNOWN_ARMY, at, format!("several {} armies for `{}`", side.word(), s.name))
                    .with_label("the scenario played")
                    .with_help(format!("choose one with {flag} ARMY: {listed}")),
            )),
        },
    }
}

/// The knobs asked for (or the default ones this file allows), refused when they clash or
/// cannot be tuned in this file.
fn choose_knobs(asked: &[Knob], found: &Found, ws: &Workspace, file: &Path) -> Result<Vec<Knob>, Box<Diagnostic>> {
    let mut knobs: Vec<Knob> = Vec::new();
    for k in if asked.is_empty() { &DEFAULT_KNOBS[..] } else { asked } {
        if !knobs.contains(k) {
            knobs.push(*k);
        }
    }
    if knobs.contains(&Knob::WarChest) && knobs.contains(&Knob::ArmySize) {
        return Err(Box::new(
            Diagnostic::error(
                KNOBS_CLASH,
                found.scenario.name.span,
                "`--knob war-chest` and `--knob army-size` would both re-buy the armies",
            )
            .with_label("the scenario tuned")
            .with_help("tune one of them at a time (each may go with `--knob rounds`)"),
        ));
    }
    let elsewhere = |k: Knob| -> Option<(Span, String)> {
        let needs_scenario = matches!(k, Knob::Rounds | Knob::WarChest);
        let needs_armies = matches!(k, Knob::ArmySize | Knob::WarChest);
        if needs_scenario && !found.here[0] {
            return Some((found.scenario.name.span, format!("the scenario `{}`", found.scenario.name.value)));
        }
        if needs_armies {
            for (i, a) in found.armies.iter().enumerate() {
                if !found.here.get(i + 1).copied().unwrap_or(false) {
                    return Some((a.name.span, format!("the army `{}`", a.name.value)));
                }
            }
        }
        None
    };
    let mut kept = Vec::new();
    for k in knobs {
        match elsewhere(k) {
            None => kept.push(k),
            Some((span, what)) => {
                let other = ws.file(span.file).map_or_else(String::new, |f| f.path.clone());
                let d = Diagnostic::error(
                    NOT_APPLICABLE,
                    span,
                    format!("`{}` cannot be tuned in {}: {what} is written in {other}", k.word(), file.display()),
                )
                .with_label("written here")
                .with_help(format!("run `oc tune {other}`, the file that holds it, or choose other knobs with --knob"));
                if !asked.is_empty() {
                    return Err(Box::new(d));
                }
                eprintln!("note: the default knob `{}` is left out: {what} is written in {other}", k.word());
            }
        }
    }
    kept.first().map(|_| kept.clone()).ok_or_else(|| {
        Box::new(
            Diagnostic::error(
                NOT_APPLICABLE,
                found.scenario.name.span,
                format!("nothing of `{}` can be tuned in {}", found.scenario.name.value, file.display()),
            )
            .with_label("written in another file")
            .with_help("run `oc tune` on the file that holds the scenario and its armies"),
        )
    })
}
