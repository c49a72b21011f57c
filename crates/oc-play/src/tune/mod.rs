//! `oc tune FILE`: searches a scenario's knobs — its time limit, its sample armies' sizes, its
//! war chests with the armies re-bought — for a 50% attacker win rate with the default AI, and
//! returns the suggested values beside the current ones with the win rate's 95% interval, and
//! the edits of the file's text that write them ([`Tuned::edits`]: ranges and new text, what an
//! editor's code action offers). Nothing is written here: the caller writes the edits, only
//! when asked and after [`Tuned::check`] says the result checks clean.

mod edit;
mod knobs;
mod search;
pub mod shards;

use std::path::Path;

use oc_compiler::Workspace;
use oc_diag::{CodeInfo, Diagnostic, Span};
use oc_model as m;
use oc_project::DiskHost;
use oc_syntax::ast;

use crate::error::Failure;
use crate::parts;
use crate::setup::Compiled;
use crate::stats::Score;
pub use edit::{apply, Edit};
use edit::{Base, Setting};
pub use search::{verdict, Verdict};
use search::{Failure as Stopped, Tuner};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// Both war chests, the armies re-bought to fit.
    WarChest,
    /// The time limit (`rounds N`).
    Rounds,
    /// The sample armies' sizes.
    ArmySize,
}

impl Knob {
    /// The knob's name on the command line (`--knob war-chest`).
    pub fn word(self) -> &'static str {
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

/// What to tune.
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
}

/// Where the definitions a tuning reads are.
struct Found<'w> {
    scenario: &'w ast::ScenarioDef,
    armies: [&'w ast::ArmyDef; 2],
    /// Whether each is written in the file given (not imported): [scenario, attacker, defender].
    here: [bool; 3],
}

/// A tuning ready to search: the file as written, its scenario and armies, and the knobs.
pub struct Prepared {
    base: Base,
    rules: m::Rules,
    ws: Workspace,
    host: DiskHost,
    logical: String,
    root: std::path::PathBuf,
    map: oc_atlas::Map,
    warnings: usize,
    pub knobs: Vec<Knob>,
}

impl Prepared {
    /// The scenario tuned.
    pub fn scenario(&self) -> &m::Scenario {
        &self.base.model
    }

    /// The armies played, [attacker, defender].
    pub fn armies(&self) -> &[m::Army; 2] {
        &self.base.army_models
    }

    /// The file's logical path in its project.
    pub fn logical(&self) -> &str {
        &self.logical
    }

    /// The root of the file's project.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Finds what `r` tunes in the rules compiled from its file: the scenario, its armies, the
/// knobs (a note on `say` for a default knob left out). A refusal about the file is a
/// diagnostic with its span.
pub fn prepare(r: &Request, compiled: Compiled, say: &dyn Fn(&str)) -> Result<Prepared, Failure> {
    let Compiled { rules, workspace: ws, root, .. } = compiled;
    let absolute = oc_project::manifest::absolute(r.file);
    let Some(logical) = oc_project::discover::logical(&root, &absolute) else {
        return Err(Failure::refused(format!("{} is not inside its project {}", r.file.display(), root.display())));
    };
    let Some(file_id) = ws.id_of(&logical) else {
        return Err(Failure::refused(format!("{}: not a `.oc` file of the project", r.file.display())));
    };
    let rejected = |ws: Workspace, d: Box<Diagnostic>| Failure::Rejected { workspace: Box::new(ws), diagnostics: vec![*d] };
    let scenario = match pick_scenario(&rules, &ws, file_id, r.scenario) {
        Ok(s) => s.clone(),
        Err(d) => return Err(rejected(ws, d)),
    };
    let scenario_span = find_scenario(&ws, &scenario.name).map_or(Span::new(file_id, 0, 0), |s| s.name.span);
    let armies = pick_army(&rules, &scenario, m::SideId::Attacker, r.attacker, scenario_span)
        .and_then(|a| Ok((a.clone(), pick_army(&rules, &scenario, m::SideId::Defender, r.defender, scenario_span)?.clone())));
    let (attacker, defender) = match armies {
        Ok(pair) => pair,
        Err(d) => return Err(rejected(ws, d)),
    };
    let Some(found) = find(&ws, file_id, &scenario.name, [&attacker.name, &defender.name]) else {
        return Err(Failure::refused(format!("the definitions of `{}` and its armies were not found", scenario.name)));
    };
    let knobs = match choose_knobs(r.knobs, &found, &ws, r.file, say) {
        Ok(k) => k,
        Err(d) => return Err(rejected(ws, d)),
    };
    let (map, _) = crate::setup::scenario_map(&root, &rules, &scenario)?;
    let base = Base {
        text: ws.file(file_id).map(|f| f.text.clone()).unwrap_or_default(),
        scenario: found.scenario.clone(),
        armies: [found.armies[0].clone(), found.armies[1].clone()],
        model: scenario,
        army_models: [attacker, defender],
    };
    let project = oc_project::discover(&[r.file.to_path_buf()])
        .map_err(Failure::refused)?
        .into_iter()
        .next()
        .ok_or_else(|| Failure::refused(format!("{}: no project", r.file.display())))?;
    let mut host = DiskHost::for_project(&project);
    let mut ws = ws;
    let (compiled, _) = ws.compile(&mut host, std::slice::from_ref(&logical));
    let warnings = compiled.diagnostics.iter().filter(|d| !d.is_error()).count();
    Ok(Prepared { base, rules, ws, host, logical, root, map, warnings, knobs })
}

/// What a tuning found.
pub struct Tuned {
    pub knobs: Vec<Knob>,
    /// The report's rows: each knob as written and as suggested.
    pub rows: Vec<Row>,
    /// The attacker's score as written, and with the suggested values on games the search did
    /// not use.
    pub now: Score,
    pub suggested: Score,
    /// Whether the file already holds the suggested values.
    pub unchanged: bool,
    /// The edits of the file's text that write the suggested values (none when unchanged).
    pub edits: Vec<Edit>,
    /// The file's text as read, and with the edits made.
    pub before: String,
    pub after: String,
    /// `Some` when asked for: the diagnostics of the text with the edits made, if it does not
    /// check clean (an error, or a warning the file as written does not have).
    pub check: Option<Result<(), Vec<Diagnostic>>>,
    /// The files' text, for the spans of those diagnostics.
    pub workspace: Workspace,
    /// Notes about the search and the suggestion, each once.
    pub notes: Vec<String>,
    /// Games played in all.
    pub played: u64,
}

impl Tuned {
    /// Whether the suggested values' 95% interval holds 50%.
    pub fn even(&self) -> bool {
        verdict(&self.suggested) == Verdict::Fair
    }
}

/// Why [`write`] wrote nothing.
pub enum NotWritten {
    /// The text with the suggested values does not check clean (over [`Tuned::workspace`]).
    Rejected(Vec<Diagnostic>),
    Refused(crate::error::Refusal),
}

/// Writes the suggested values into `file` (logical path `logical` under `root`): only when
/// the text with them checks clean and the file still holds the text read; atomically, confined
/// to the project. `Ok(false)` when the file already holds them.
pub fn write(file: &Path, root: &Path, logical: &str, t: &Tuned) -> Result<bool, NotWritten> {
    if t.after == t.before {
        return Ok(false);
    }
    // Every setting measured was checked like this; the check is repeated on the very text
    // written.
    if let Some(Err(diags)) = &t.check {
        return Err(NotWritten::Rejected(diags.clone()));
    }
    let refused = |m: String, help: &str| NotWritten::Refused(crate::error::Refusal::new(m).with_help(help));
    if std::fs::metadata(file).is_ok_and(|md| md.permissions().readonly()) {
        return Err(refused(
            format!("{} is read-only; nothing was written", file.display()),
            "make it writable, or copy the suggested values by hand",
        ));
    }
    let confined = oc_project::fsx::Confined::new(root);
    oc_project::output::rewrite_source(&confined, logical, t.before.as_bytes(), t.after.as_bytes())
        .map_err(|e| refused(format!("cannot write {}: {e}", file.display()), "the file was left as it was"))?;
    Ok(true)
}

/// Searches the knobs (each setting's games played with `seed`, up to `games` a setting; what
/// it plays said on `say`); with `check`, the suggested text is compiled once more.
pub fn run(p: Prepared, r: &Request, check: bool, say: &dyn Fn(&str), tick: &(dyn Fn() + Sync)) -> Result<Tuned, Failure> {
    match search(p, r, check, say, tick, None)? {
        (Some(tuned), _) => Ok(tuned),
        (None, _) => Err(Failure::refused("the search stopped short of its games")),
    }
}

/// What names the tuning `p` prepares in its parts (`shards::Run`).
pub fn run_id(p: &Prepared, r: &Request) -> shards::Run {
    shards::Run {
        file: p.logical.clone(),
        text: shards::fingerprint(&p.base.text),
        scenario: p.base.model.name.clone(),
        armies: [p.base.army_models[0].name.clone(), p.base.army_models[1].name.clone()],
        knobs: p.knobs.iter().map(|k| k.word().to_string()).collect(),
        games: r.games,
        seed: r.seed,
        ai: oc_engine::ai::DEFAULT.to_string(),
        oc: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Shard `shard`'s round of a sharded tuning (`shards.rs`): the search on the games `parts`
/// holds, and the games of the batch they lack that the shard owns, as its part of the next
/// round. `None` when the parts already hold every game the search asks for.
pub fn round(
    p: Prepared,
    r: &Request,
    shard: parts::Shard,
    parts: &shards::Parts,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Option<shards::Part>, Failure> {
    let run = run_id(&p, r);
    let (_, source) = search(p, r, false, say, tick, Some(shards::Source::new(Some(shard), parts)))?;
    Ok(source.filter(|s| s.missing > 0).map(|s| shards::Part {
        kind: shards::PART_KIND.to_string(),
        version: shards::PART_VERSION,
        run,
        shard,
        round: parts.rounds + 1,
        games: s.fresh,
        clock: s.fresh_clock,
    }))
}

/// The tuning from its parts alone: what [`run`] finds, once `parts` holds every game the
/// search asks for; `Err` the count of games still lacking.
pub fn merge(
    p: Prepared,
    r: &Request,
    parts: &shards::Parts,
    check: bool,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Result<Tuned, u64>, Failure> {
    match search(p, r, check, say, tick, Some(shards::Source::new(None, parts)))? {
        (Some(tuned), _) => Ok(Ok(tuned)),
        (None, source) => Ok(Err(source.map_or(0, |s| s.missing))),
    }
}

/// The search, with its games played here (`sharded` none) or read from parts. `None` for the
/// tuning when the parts lacked games (the source says how many, and holds a shard's new ones).
fn search(
    p: Prepared,
    r: &Request,
    check: bool,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
    sharded: Option<shards::Source>,
) -> Result<(Option<Tuned>, Option<shards::Source>), Failure> {
    let Prepared { base, rules, ws, host, logical, map, warnings, knobs, .. } = p;
    let mut tuner = Tuner::new(&base, ws, host, logical, map, r.seed, r.games, warnings, say);
    tuner.tick = tick;
    tuner.sharded = sharded;
    // A setting that plays no nearer 50% than the file as written, both on games the search did
    // not use, is no suggestion (a newcomer review: 4.0% suggested beside 6.0% as written): the
    // file as written is then the nearest found.
    let mut kept = false;
    let found = search_knobs(&mut tuner, &rules, &knobs).and_then(|(current, best)| {
        let now = tuner.measure(&current, 0)?;
        let confirmed = tuner.confirm(&best)?;
        if best != current {
            if let (Some(c), Some(w)) = (confirmed, tuner.confirm(&current)?) {
                if !nearer_even(&c, &w) {
                    kept = true;
                    return Ok((now, Some(w), current.clone(), current));
                }
            }
        }
        Ok((now, confirmed, current, best))
    });
    if tuner.sharded.as_ref().is_some_and(|s| s.missing > 0) {
        return Ok((None, tuner.sharded.take()));
    }
    let (current, best, now, suggested) = match found {
        Ok((Some(now), Some(s), current, best)) => (current, best, now, s),
        Err(Stopped(e)) => return Err(Failure::refused(e)),
        Ok(_) => return Err(Failure::refused("the suggested values no longer check clean")),
    };
    let outcome = Outcome { knobs: &knobs, current: &current, best: &best };
    let rows = rows(&base, &outcome);
    let mut notes = notes(&tuner, &outcome);
    if kept {
        notes.push(
            "no setting the search found played nearer 50% than the file as written, both on games the search did not use"
                .to_string(),
        );
    }
    let edits = base.edits(&best);
    let after = base.text(&best);
    let unchanged = current == best;
    let check = (check && after != base.text).then(|| tuner.check(&after).map(|_| ()));
    let played = tuner.played;
    let sharded = tuner.sharded.take();
    let tuned = Tuned {
        knobs,
        rows,
        now,
        suggested,
        unchanged,
        edits,
        before: base.text.clone(),
        after,
        check,
        workspace: tuner.ws,
        notes,
        played,
    };
    Ok((Some(tuned), sharded))
}

/// Each knob in turn from where the last left the setting, until one finds 50%.
fn search_knobs(tuner: &mut Tuner<'_>, rules: &m::Rules, knobs: &[Knob]) -> Result<(Setting, Setting), Stopped> {
    let current = tuner.base.current();
    let shop = knobs::Shop { rules, base: tuner.base };
    let mut best = current.clone();
    if tuner.probe(&current, "as written")?.is_none() {
        return Err(Stopped("the scenario as written does not check clean".into()));
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
fn refine(tuner: &mut Tuner<'_>, up: &[Setting], down: &[Setting], best: Setting) -> Result<Setting, Stopped> {
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
        (tuner.say)(&format!("  rounds again with the armies of rung {p:+}:"));
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
}

/// Whether score `a`'s attacker win rate is nearer 50% than `b`'s (a tie is not).
fn nearer_even(a: &Score, b: &Score) -> bool {
    let off = |s: &Score| (s.rate() - 0.5).abs();
    off(a) < off(b)
}

/// A row of the report: what, as written, as suggested, and for armies the units changed.
pub struct Row {
    pub what: String,
    pub current: String,
    pub suggested: String,
    pub changes: Vec<String>,
}

fn rows(base: &Base, o: &Outcome<'_>) -> Vec<Row> {
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
fn notes(tuner: &Tuner<'_>, o: &Outcome<'_>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    tuner
        .notes
        .iter()
        .filter(|(s, _)| s.as_ref().is_none_or(|s| s == o.best))
        .map(|(_, n)| n.as_str())
        .filter(|n| seen.insert(*n))
        .map(str::to_string)
        .collect()
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
fn choose_knobs(
    asked: &[Knob],
    found: &Found,
    ws: &Workspace,
    file: &Path,
    say: &dyn Fn(&str),
) -> Result<Vec<Knob>, Box<Diagnostic>> {
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
                say(&format!("note: the default knob `{}` is left out: {what} is written in {other}", k.word()));
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
