//! A game a person plays (`oc play`): one battle of a [`Setup`], some sides played by a person
//! and the others by an AI (the same code as `oc battle`), advanced one request at a time.
//!
//! The game *is* its battle log: every turn the player confirms is a [`Battle::turn`] the
//! engine accepts (a refused one changes nothing and comes back as a [`Denied`] naming the
//! rule), every AI turn is played as [`oc_engine::battle::play`] plays it, and the session's
//! lines ([`Session::lines`]) are the log `oc replay` checks byte for byte. A saved game is
//! resumed ([`Session::resume`]) by playing its log again — the AI chooses its turns anew, the
//! player's come from the log — so a resumed game ends as the uninterrupted one would.
//!
//! A move is staged ([`Session::stage`]) and can be taken back ([`Session::undo`]) until the
//! unit acts: the move and the act are one turn of the engine, and nothing is rolled before.
//! Before the move, the unit's actions with a step of the sequence of play (`sequence`) may be
//! staged ([`Session::step`]): the turn takes them first (`Turn::before`). The engine checks
//! them as it will check the turn, and what the page shows after them (the board, where the
//! unit can go, its targets and forecasts) is a preview of the battle with them taken, on dice
//! of its own, so that no roll of the battle's is revealed before the turn is played.
//! Every request that changes the game names the game's [`Session::version`]; an older one is
//! refused as stale. What the session shows a side is in `view` (under fog, only what it sees).
//! It returns data and refusals; it never prints, exits or writes.

mod denied;
mod trial;
pub mod view;

use oc_engine::ai;
use oc_engine::battle::{self, Act, Battle, Controller, Record, Tile, Turn};
use oc_engine::Atom;
use oc_model::{Outcome, SideId};
use serde::Serialize;

use crate::error::Refusal;
use crate::game::{self, side_index, Script, PLAYER};
use crate::log::{self, Source};
use crate::setup::{Ais, Setup};
use std::path::Path;

pub use denied::{Denied, BAD_REQUEST, CODES, FORBIDDEN, NOT_YOURS, RESUME, STALE};
use trial::Trial;
pub use view::{Aims, Choices, Step, View};

/// Who plays: the sides a person plays ([attacker, defender]; both is hotseat), the AI of the
/// others (by name), and the game's seed.
#[derive(Clone, Debug)]
pub struct Options {
    pub players: [bool; 2],
    pub ai: String,
    pub seed: u64,
}

/// A move staged and not yet played: where the unit goes (where it stands, if it does not
/// move), and the actions it takes before the move (`Turn::before`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Staged {
    pub unit: usize,
    pub to: Tile,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<Act>,
    /// The staged steps as the engine took them in the preview.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether the steps left something to chance: the preview is then one of their outcomes,
    /// and the turn rolls their dice anew.
    pub chance: bool,
}

/// The dice of a preview of staged steps: not the battle's, so that none of its rolls is shown
/// before the turn is played.
const PREVIEW_SEED: u64 = 0x005e_ed0f_5742;

/// One game in progress.
pub struct Session<'s> {
    setup: &'s Setup,
    battle: Battle<'s>,
    source: Source,
    players: [bool; 2],
    ais: [Option<Box<dyn Controller + Send>>; 2],
    staged: Option<Staged>,
    version: u64,
    /// Choices made, as [`oc_engine::battle::play`] counts them (its guard against a game without end).
    guard: u32,
    /// What was played since the player's last confirmed turn (the AI's turns, the round's end).
    steps: Vec<Step>,
    /// What was played before `steps`, as it was shown (a game resumed: as it would have been).
    earlier: Vec<view::Said>,
    /// A standing reaction a side chose, set with its next turn ([`Turn::reaction`]).
    stance: [Option<String>; 2],
}

impl<'s> Session<'s> {
    /// A new game of `setup`, the armies deployed as `oc battle` deploys them; the AI plays
    /// until it is a player's turn.
    pub fn new(setup: &'s Setup, options: &Options) -> Result<Session<'s>, Denied> {
        let names = options.players.map(|p| if p { PLAYER.to_string() } else { options.ai.clone() });
        let [attacker, defender] = names;
        let ais = Ais { attacker, defender };
        let source = game::source(setup, options.seed, &ais);
        let mut s = Session::start(setup, source, options.players)?;
        s.settle(None)?;
        Ok(s)
    }

    fn start(setup: &'s Setup, source: Source, players: [bool; 2]) -> Result<Session<'s>, Denied> {
        let make = |name: &str, player: bool| -> Result<Option<Box<dyn Controller + Send>>, Denied> {
            if player {
                return Ok(None);
            }
            ai::by_name(name).map(Some).ok_or_else(|| {
                Denied::new(BAD_REQUEST, format!("no AI `{name}`"), format!("the AIs are {}", ai::names().join(", ")))
            })
        };
        let ais = [make(&source.attacker_ai, players[0])?, make(&source.defender_ai, players[1])?];
        let armies = [&setup.armies[0], &setup.armies[1]];
        let battle =
            Battle::set_up(&setup.engine, &setup.scenario, &setup.map, armies, source.seed).map_err(|e| Denied::battle(&e))?;
        Ok(Session {
            setup,
            battle,
            source,
            players,
            ais,
            staged: None,
            version: 0,
            guard: 0,
            steps: Vec::new(),
            earlier: Vec::new(),
            stance: [None, None],
        })
    }

    /// A saved game (`text`: its log) played again to where it stopped: the AI chooses its turns
    /// anew, the player's come from the log; refused unless every line comes out the same.
    pub fn resume(setup: &'s Setup, text: &str) -> Result<Session<'s>, Denied> {
        let help = "resume a game `oc play --log` wrote, with the rules it was played under";
        let source =
            log::parse_source(text.lines().next().unwrap_or("")).map_err(|e| Denied::new(RESUME, e.to_string(), help))?;
        let players = game::players_of(&source);
        if players == [false, false] {
            return Err(Denied::new(RESUME, "the log is of a game the AI played on both sides", "replay it with `oc replay`"));
        }
        if source.scenario != setup.scenario.name
            || source.attacker != setup.armies[0].name
            || source.defender != setup.armies[1].name
        {
            return Err(Denied::new(RESUME, "the log is of another scenario or other armies", help));
        }
        let mut records = Vec::new();
        for (n, line) in text.lines().enumerate().skip(1) {
            let r: Record = serde_json::from_str(line)
                .map_err(|e| Denied::new(RESUME, format!("line {}: not a record of a battle log ({e})", n + 1), help))?;
            records.push(r);
        }
        let mut s = Session::start(setup, source, players)?;
        let mut script = Script::of(&records, players);
        s.settle(Some(&mut script))
            .map_err(|d| Denied::new(RESUME, format!("the saved game cannot be played again: {}", d.message), help))?;
        s.retire_steps();
        let lines = s.lines();
        log::verify(text, &lines).map_err(|m| {
            let at = match m {
                log::Mismatch::Line { line, .. } => format!("line {line}"),
                log::Mismatch::Length { logged, replayed } => format!("its length ({logged} lines, the replay {replayed})"),
                log::Mismatch::Stopped { line, .. } => format!("line {line}"),
            };
            Denied::new(
                RESUME,
                format!("the saved game differs from its replay at {at}"),
                "the rules, the scenario or the armies changed since it was saved, or the log was edited",
            )
        })?;
        Ok(s)
    }

    /// Reads a saved game (a bounded regular file): its text and its header, which names the
    /// scenario and armies to load.
    pub fn saved(path: &std::path::Path) -> Result<(String, Source), Denied> {
        let help = "resume a game `oc play --log` wrote";
        let bytes = oc_project::fsx::read_regular(path, oc_project::limits::MAX_LOG_BYTES)
            .map_err(|e| Denied::new(RESUME, format!("cannot read {}: {e}", path.display()), help))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let source = log::parse_source(text.lines().next().unwrap_or(""))
            .map_err(|e| Denied::new(RESUME, format!("{}: {e}", path.display()), help))?;
        Ok((text, source))
    }

    /// Whether a game may be logged to `log` (`--log`, else the game resumed: `resume`) with its
    /// page at `html`, refused before the game: the log on standard output (it carries the
    /// address to open, and the log is the file `--resume` reads), the log and the page one
    /// file, or, without `force`, a log that holds a game already (saved, replayable or
    /// resumable) where the game does not go on in it.
    pub fn log_ready(log: Option<&Path>, resume: Option<&Path>, html: Option<&Path>, force: bool) -> Result<(), Refusal> {
        let written = log.or(resume);
        if written.is_some_and(|l| l.as_os_str() == "-") {
            return Err(Refusal::new("the log is written to a file, not to standard output (it shows the address to open)")
                .with_help("name a file, such as `--log game.log`; `oc replay game.log` checks it"));
        }
        oc_project::output::apart(&[("--log", written), ("--html", html)])
            .map_err(|r| Refusal::new(r.message).with_help(r.help))?;
        // A log named apart from the game resumed (or with no game resumed) that holds a game,
        // however the two are spelt.
        let leads = oc_project::output::leads_to;
        let Some(log) = log.filter(|l| resume.is_none_or(|r| leads(l) != leads(r))) else { return Ok(()) };
        if force || !log.is_file() {
            return Ok(());
        }
        match Session::saved(log) {
            Ok((_, saved)) => Err(Refusal::new(format!(
                "{} holds a game's log ({}, {} against {}); a new game would replace it",
                log.display(),
                saved.scenario,
                saved.attacker,
                saved.defender
            ))
            .with_help(format!(
                "continue it with `--resume {}` if it is not over, name another --log, or pass --force to start over in it",
                log.display()
            ))),
            Err(_) => Ok(()),
        }
    }

    /// The log's header.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The game's log as it stands: the header, then one record per line.
    pub fn lines(&self) -> Vec<String> {
        log::lines(&self.source, &self.battle.log)
    }

    /// The game's records so far.
    pub fn records(&self) -> &[Record] {
        &self.battle.log
    }

    /// A count of the game's changes: every request that changes it names this.
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn over(&self) -> bool {
        self.battle.outcome.is_some()
    }

    /// The outcome and its reason, once the game is over.
    pub fn outcome(&self) -> Option<&(Outcome, String)> {
        self.battle.outcome.as_ref()
    }

    pub fn battle(&self) -> &Battle<'s> {
        &self.battle
    }

    pub fn setup(&self) -> &'s Setup {
        self.setup
    }

    pub fn players(&self) -> [bool; 2] {
        self.players
    }

    pub fn staged(&self) -> Option<&Staged> {
        self.staged.as_ref()
    }

    /// The side whose eyes the page shows: the player's, or in hotseat the side to act.
    pub fn viewer(&self) -> SideId {
        match self.players {
            [true, false] => SideId::Attacker,
            [false, true] => SideId::Defender,
            _ => self.battle.to_act,
        }
    }

    fn check_version(&self, version: u64) -> Result<(), Denied> {
        if version != self.version {
            return Err(Denied::new(
                STALE,
                format!("this request is for version {version} of the game, and it is at version {}", self.version),
                "reload the page: it shows the game as it stands",
            ));
        }
        Ok(())
    }

    /// Refuses an act of unit `unit` from `from` (holding `weapon`) whose target unit is none the
    /// player's side sees, nor, for an attack, one the page lists from there
    /// ([`Battle::targets_from`]: an enemy it sees only once its staged move is made), with one
    /// answer for a unit hidden under fog and for no unit at all (the engine's refusal names the
    /// hidden unit and says it is there: a review read the enemy's hidden units off it).
    fn seen_target(&self, unit: usize, act: &Act, (from, weapon): (Tile, Option<Atom>)) -> Result<(), Denied> {
        let target = match act {
            Act::Attack { target } => Some(*target),
            Act::Use { target, .. } | Act::Special { target, .. } => *target,
            _ => None,
        };
        let Some(target) = target else { return Ok(()) };
        let viewer = self.viewer();
        let seen = self.battle.units.get(target).is_some_and(|t| t.side == viewer || self.battle.sees(viewer, t.pos));
        let listed = || {
            let preview = self.preview_of(unit);
            let b = preview.as_ref().unwrap_or(&self.battle);
            matches!(act, Act::Attack { .. }) && b.targets_from(unit, from, weapon).contains(&target)
        };
        if seen || listed() {
            return Ok(());
        }
        let name = self.battle.units.get(unit).map_or("the unit", |u| u.name.as_str());
        Err(Denied::new(
            battle::Rule::Target.code(),
            format!("{name} has no target numbered {target}: no unit its side sees is"),
            "choose a target the page lists",
        ))
    }

    /// Unit `unit`, if the player may act with it now.
    fn playable(&self, unit: usize) -> Result<&battle::Combatant, Denied> {
        let help = "select one of your units that may act now";
        if let Some((_, why)) = &self.battle.outcome {
            return Err(Denied::new(battle::Rule::Over.code(), format!("the battle is over: {why}"), "start a new game"));
        }
        let to_act = self.battle.to_act;
        if !self.players.get(side_index(to_act)).copied().unwrap_or(false) {
            return Err(Denied::new(NOT_YOURS, format!("it is the {}'s turn, and the AI plays it", to_act.word()), help));
        }
        // One answer for a unit of the other side and for no unit at all: under fog, naming the
        // unit (or saying there is one) would tell where the enemy has what it hides.
        let u =
            self.battle.units.get(unit).filter(|u| u.side == to_act).ok_or_else(|| {
                Denied::new(NOT_YOURS, format!("unit {unit} is not one of the {}'s units", to_act.word()), help)
            })?;
        if !self.battle.may_act(to_act).contains(&unit) {
            let why = match self.battle.active.as_ref().and_then(|a| self.battle.units.get(a.unit)) {
                Some(other) => format!("{} cannot act now: {} is in the middle of its activation", u.name, other.name),
                None if u.activated => format!("{} has already acted this round", u.name),
                None => format!("{} cannot act now", u.name),
            };
            return Err(Denied::new(battle::Rule::Turn.code(), why, help));
        }
        Ok(u)
    }

    /// The battle as the staged steps leave it (a preview, on dice of its own), where steps
    /// are staged; `None` where none are.
    pub fn previewed(&self) -> Option<Battle<'s>> {
        let s = self.staged.as_ref().filter(|s| !s.before.is_empty())?;
        self.battle.with_steps(s.unit, &s.before, PREVIEW_SEED).ok().map(|(b, _)| b)
    }

    /// The preview of unit `unit`'s staged steps: what it may do after them.
    fn preview_of(&self, unit: usize) -> Option<Battle<'s>> {
        self.staged.as_ref().filter(|s| s.unit == unit)?;
        self.previewed()
    }

    /// Where unit `unit` stands for its act: where its staged move takes it, else where it is.
    fn acting_from(&self, unit: usize) -> Option<Tile> {
        match &self.staged {
            Some(s) if s.unit == unit => Some(s.to),
            _ => self.battle.units.get(unit).map(|u| u.pos),
        }
    }

    /// What unit `unit` may do now: where it can go, what it can reach from where it would act.
    pub fn choices(&self, unit: usize, equip: Option<&str>) -> Result<Choices, Denied> {
        self.playable(unit)?;
        let equip = self.weapon(unit, equip)?;
        let from = self.acting_from(unit).unwrap_or_default();
        let preview = self.preview_of(unit);
        let mut choices = view::choices(preview.as_ref().unwrap_or(&self.battle), unit, from, equip);
        // Only the targets the rules let it attack now (a step the ruleset refuses, a cost it
        // cannot pay): each tried on a copy of the battle, as the turn would be played. (The
        // page offered attacks the engine then refused.) A move refused under fog is no reason:
        // it is an ambush, and leaving the target out would tell what stands in the way.
        let mut trial = Trial::new(self, unit, equip);
        choices.targets.retain(|&target| trial.accepts(Act::Attack { target }));
        // The actions and items likewise: each kept with the units and squares the rules let it
        // be taken on from there, and left out where there are none (the page offered a seize
        // off the objective, a heal with nobody in reach). The actions are those of the weapon
        // it would hold (a staff's heal is its holder's).
        let b = preview.as_ref().unwrap_or(&self.battle);
        let swapped = equip.filter(|w| b.units.get(unit).is_some_and(|u| u.equipped != Some(*w))).map(|w| {
            let mut held = b.fork(Some(PREVIEW_SEED));
            if let Some(u) = held.state.units.get_mut(unit) {
                u.equipped = Some(w);
            }
            held
        });
        let mut actions = view::actions(swapped.as_ref().unwrap_or(b), unit);
        let moved =
            self.staged.as_ref().is_some_and(|s| s.unit == unit && Some(s.to) != self.battle.units.get(unit).map(|u| u.pos));
        for a in &mut actions {
            let from_tag = Some(Atom::new(&a.tag));
            let (verb, range) = (a.verb, a.range);
            let special = |target, tile| Act::Special { verb, target, tile, from: from_tag };
            a.on = match a.sequence {
                // A step of the sequence of play is staged before the move, and checked as the
                // engine takes it there (after the steps staged already); never after the move.
                Some(_) if moved => Aims::default(),
                Some(_) => {
                    self.aims(b, unit, from, a.aim, range, |(target, tile)| self.steps_accept(unit, special(target, tile)))
                }
                None => self.aims(b, unit, from, a.aim, range, |(target, tile)| trial.accepts(special(target, tile))),
            };
        }
        actions.retain(|a| a.on.any());
        choices.actions = actions;
        let items = std::mem::take(&mut choices.items);
        for mut it in items {
            let item = Atom::new(&it.name);
            it.on = self.aims(b, unit, from, it.aim, None, |(target, tile)| trial.accepts(Act::Use { item, target, tile }));
            if it.on.any() {
                choices.items.push(it);
            }
        }
        Ok(choices)
    }

    /// Unit `unit`'s turn as it stands: its staged steps and move, `weapon` taken in hand where
    /// it is not the one held, and `act` (what `act` plays, and what `choices` tries).
    fn staged_turn(&self, unit: usize, weapon: Option<Atom>, act: Act) -> Turn {
        let staged = self.staged.as_ref().filter(|s| s.unit == unit);
        let u = self.battle.units.get(unit);
        let to = staged.map(|s| s.to).filter(|t| Some(*t) != u.map(|u| u.pos));
        let before = staged.map(|s| s.before.clone()).unwrap_or_default();
        let equip = weapon.filter(|w| Some(*w) != u.and_then(|u| u.equipped));
        Turn { unit, before, to, equip, act, ..Turn::default() }
    }

    /// The weapon `name` of unit `unit` (its own with `None`).
    fn weapon(&self, unit: usize, name: Option<&str>) -> Result<Option<Atom>, Denied> {
        let Some(name) = name else { return Ok(None) };
        let u = self.battle.units.get(unit).ok_or_else(|| {
            Denied::new(NOT_YOURS, format!("unit {unit} is not one of yours"), "select one of your units that may act now")
        })?;
        u.items.iter().find(|i| i.as_str() == name).copied().map(Some).ok_or_else(|| {
            Denied::new(battle::Rule::Items.code(), format!("{} does not carry {name}", u.name), battle::Rule::Items.help())
        })
    }

    /// The exact forecast of unit `unit` attacking `target` from where it would act, holding
    /// `equip` (its own weapon with `None`).
    pub fn forecast(&self, unit: usize, target: usize, equip: Option<&str>) -> Result<view::Forecast, Denied> {
        self.playable(unit)?;
        let weapon = self.weapon(unit, equip)?;
        let from = self.acting_from(unit).unwrap_or_default();
        let preview = self.preview_of(unit);
        let b = preview.as_ref().unwrap_or(&self.battle);
        // Those the page lists: in reach and in sight from there, or within the unit's own
        // vision once its staged move is made, as the engine takes an attack.
        if !b.targets_from(unit, from, weapon).contains(&target) {
            let name = self.battle.units.get(unit).map_or("the unit", |u| u.name.as_str());
            return Err(Denied::new(
                battle::Rule::Target.code(),
                format!("{name} cannot reach unit {target} from {from:?}"),
                battle::Rule::Target.help(),
            ));
        }
        let f = b.attack_forecast(unit, from, target, weapon).map_err(|e| Denied::battle(&e))?;
        Ok(view::forecast(b, unit, target, from, &f))
    }

    /// Stages unit `unit`'s move to `to` (its own square takes the move back): nothing is played
    /// until it acts.
    pub fn stage(&mut self, version: u64, unit: usize, to: Tile) -> Result<(), Denied> {
        self.check_version(version)?;
        let u = self.playable(unit)?;
        if let Some(s) = &self.staged {
            if s.unit != unit {
                let other = self.battle.units.get(s.unit).map_or("another unit", |f| f.name.as_str());
                return Err(Denied::new(
                    battle::Rule::Turn.code(),
                    format!("{other} has moved and not acted yet"),
                    "act with it, or take its move back (undo) first",
                ));
            }
        }
        let pos = u.pos;
        let name = u.name.clone();
        // Where it can go after its staged steps.
        let reach = self.reach(unit);
        let staged = self.staged.take().filter(|s| s.unit == unit);
        let kept = staged.clone();
        let (before, notes, chance) = staged.map(|s| (s.before, s.notes, s.chance)).unwrap_or_default();
        if to == pos {
            self.staged = Some(Staged { unit, to, before, notes, chance }).filter(|s| !s.before.is_empty());
            self.version += 1;
            return Ok(());
        }
        if !reach.iter().any(|(t, _)| *t == to) {
            self.staged = kept;
            return Err(Denied::new(
                battle::Rule::Move.code(),
                format!("{name} cannot reach {to:?} this turn"),
                battle::Rule::Move.help(),
            ));
        }
        self.staged = Some(Staged { unit, to, before, notes, chance });
        self.version += 1;
        Ok(())
    }

    /// Stages `act`, an action of unit `unit` with a step of the sequence of play, before its
    /// move (after the steps staged already): the engine takes them in a preview, and refuses
    /// them as it would refuse the turn. Nothing is played until the unit acts.
    pub fn step(&mut self, version: u64, unit: usize, act: Act) -> Result<(), Denied> {
        self.check_version(version)?;
        // A step is taken before the move, where the unit stands.
        let here = self.battle.units.get(unit).map(|u| u.pos).unwrap_or_default();
        self.seen_target(unit, &act, (here, None))?;
        let u = self.playable(unit)?;
        let pos = u.pos;
        match &self.staged {
            Some(s) if s.unit != unit => {
                let other = self.battle.units.get(s.unit).map_or("another unit", |f| f.name.as_str());
                return Err(Denied::new(
                    battle::Rule::Turn.code(),
                    format!("{other} has moved and not acted yet"),
                    "act with it, or take its move back (undo) first",
                ));
            }
            Some(s) if s.to != pos => {
                return Err(Denied::new(
                    battle::Rule::Turn.code(),
                    format!("{} has moved: the actions of the sequence of play come before the move", u.name),
                    "take the move back (undo), take the action, then move",
                ));
            }
            _ => {}
        }
        let mut before = self.staged.as_ref().map(|s| s.before.clone()).unwrap_or_default();
        before.push(act);
        self.staged = Some(self.staging(unit, pos, before)?);
        self.version += 1;
        Ok(())
    }

    /// Unit `unit`'s steps `before` staged where it stands, as the engine's preview takes them.
    fn staging(&self, unit: usize, pos: Tile, before: Vec<Act>) -> Result<Staged, Denied> {
        let (b, notes) = self.battle.with_steps(unit, &before, PREVIEW_SEED).map_err(|e| Denied::battle(&e))?;
        Ok(Staged { unit, to: pos, before, notes, chance: b.drawn() > 0 })
    }

    /// Where unit `unit` can go, as its side sees the battle (under fog, a square an unseen
    /// enemy holds looks free; the engine refuses the move if it is not), after its staged steps.
    pub fn reach(&self, unit: usize) -> Vec<(Tile, i64)> {
        let preview = self.preview_of(unit);
        reach_in(preview.as_ref().unwrap_or(&self.battle), unit)
    }

    /// Takes back what was staged last: the move, else the last step staged before it.
    pub fn undo(&mut self, version: u64) -> Result<(), Denied> {
        self.check_version(version)?;
        let Some(mut s) = self.staged.take() else {
            return Err(Denied::new(
                battle::Rule::Move.code(),
                "there is no move to take back",
                "a move can be taken back until the unit acts; an act is final",
            ));
        };
        let pos = self.battle.units.get(s.unit).map_or(s.to, |u| u.pos);
        if s.to != pos {
            s.to = pos;
            self.staged = Some(s).filter(|s| !s.before.is_empty());
        } else {
            s.before.pop();
            // Steps the engine took with one more after them are taken without it too.
            self.staged = match s.before.is_empty() {
                true => None,
                false => Some(self.staging(s.unit, pos, s.before)?),
            };
        }
        self.version += 1;
        Ok(())
    }

    /// Plays unit `unit`'s turn: its staged move (if any), the weapon `equip` held, and `act`;
    /// then the AI plays until it is a player's turn again. The steps played after it are
    /// [`Session::steps`].
    pub fn act(&mut self, version: u64, unit: usize, equip: Option<&str>, act: Act) -> Result<(), Denied> {
        self.check_version(version)?;
        self.playable(unit)?;
        let weapon = self.weapon(unit, equip)?;
        self.seen_target(unit, &act, (self.acting_from(unit).unwrap_or_default(), weapon))?;
        if let Some(s) = self.staged.as_ref().filter(|s| s.unit != unit) {
            let other = self.battle.units.get(s.unit).map_or("another unit", |f| f.name.as_str());
            return Err(Denied::new(
                battle::Rule::Turn.code(),
                format!("{other} has moved and not acted yet"),
                "act with it, or take its move back (undo) first",
            ));
        }
        let k = side_index(self.battle.to_act);
        let reaction = self.stance.get(k).cloned().flatten();
        let turn = Turn { reaction, ..self.staged_turn(unit, weapon, act) };
        let before = self.battle.log.len();
        if let Err(e) = self.battle.turn(turn.clone()) {
            // Under fog, a move its side saw open and an enemy out of sight stops is an ambush:
            // the unit stops short and its turn ends there (a refusal, taken back for free, told
            // where unseen enemies stand).
            // Where its staged steps leave it (they may move it or change how far it walks).
            let preview = self.preview_of(unit);
            let on = preview.as_ref().unwrap_or(&self.battle);
            let stop = turn.to.and_then(|to| on.ambushed_at(unit, to, &on.sight(self.viewer())));
            let Some(stop) = stop else { return Err(Denied::battle(&e)) };
            let pos = self.battle.units.get(unit).map(|u| u.pos);
            let ambushed = Turn { to: Some(stop).filter(|s| Some(*s) != pos), equip: None, act: Act::Wait, ..turn };
            self.battle.turn(ambushed).map_err(|_| Denied::battle(&e))?;
        }
        if let Some(slot) = self.stance.get_mut(k) {
            *slot = None;
        }
        self.staged = None;
        self.version += 1;
        self.retire_steps();
        self.steps.push(view::step(self, before));
        self.settle(None)
    }

    /// Ends unit `unit`'s turn: it waits where its staged move takes it (with its staged steps),
    /// or where it stands ("End turn" after a move left the unit where it was, as a review
    /// found: Undo takes a move back). Where activations are steps, the unit in the middle of
    /// one stops where it stands.
    pub fn end(&mut self, version: u64, unit: usize) -> Result<(), Denied> {
        self.check_version(version)?;
        let pos = self.playable(unit)?.pos;
        // Where activations are paid in steps, a move played is a step of its own, after which
        // the activation would go on: ending it stops where the unit stands.
        if self.battle.engine.rules.ruleset.turn.spend.is_some() {
            self.staged = self.staged.take().filter(|s| s.unit == unit && !s.before.is_empty()).map(|s| Staged { to: pos, ..s });
        }
        self.act(self.version, unit, None, Act::Wait)
    }

    /// The viewer's standing reaction whenever one of its units is struck: a reaction's name,
    /// `none`, or `best` (the engine's choice, the default). It takes effect with the side's next
    /// turn, which the log records it with.
    pub fn set_stance(&mut self, version: u64, reaction: &str) -> Result<(), Denied> {
        self.check_version(version)?;
        if let Some((_, why)) = &self.battle.outcome {
            return Err(Denied::new(battle::Rule::Over.code(), format!("the battle is over: {why}"), "start a new game"));
        }
        // A reaction to a roll is no stance: it is taken once the dice are rolled.
        let rules: Vec<&oc_model::Reaction> =
            self.setup.engine.rules.ruleset.reactions.iter().filter(|r| r.reroll.is_none()).collect();
        if !rules.iter().any(|r| r.name == reaction) && reaction != "none" && reaction != "best" {
            let names: Vec<&str> = rules.iter().map(|r| r.name.as_str()).collect();
            return Err(Denied::new(
                battle::Rule::Requirement.code(),
                format!("no reaction `{reaction}`"),
                format!("the reactions are {}", battle::stances_in_words(&names)),
            ));
        }
        let viewer = side_index(self.viewer());
        if let Some(slot) = self.stance.get_mut(viewer) {
            *slot = Some(reaction.to_string());
        }
        self.version += 1;
        Ok(())
    }

    /// The viewer's standing reaction: the one chosen for its next turn, else the one in force.
    pub fn stance(&self) -> String {
        let k = side_index(self.viewer());
        self.stance
            .get(k)
            .cloned()
            .flatten()
            .or_else(|| self.battle.stance.get(k).cloned().flatten())
            .unwrap_or_else(|| "best".to_string())
    }

    /// What was played after the player's last confirmed turn, step by step: the player's own
    /// turn, then the AI's.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// What was played before [`Session::steps`], step by step, as it was shown: with them, the
    /// whole game so far.
    pub fn earlier(&self) -> &[view::Said] {
        &self.earlier
    }

    /// The steps shown so far become earlier ones (a new turn of the player's is played).
    fn retire_steps(&mut self) {
        self.earlier.extend(self.steps.drain(..).map(view::Said::from));
    }

    /// Plays on until it is a person's turn or the game is over, as `oc_engine::battle::play`
    /// plays: the round limit, then the AI's turns (or, resuming, the logged turns of a
    /// person's side, while there are any).
    fn settle(&mut self, mut script: Option<&mut Script>) -> Result<(), Denied> {
        let cap = self.setup.scenario.rounds.unwrap_or(battle::ROUND_CAP);
        while self.battle.outcome.is_none() {
            self.guard += 1;
            if let Some(why) = self.battle.past_bounds(cap, self.guard) {
                let before = self.battle.log.len();
                self.battle.finish(Outcome::Draw, why);
                self.steps.push(view::step(self, before));
                break;
            }
            let side = self.battle.to_act;
            let before = self.battle.log.len();
            let turn = match self.ais.get_mut(side_index(side)).and_then(Option::as_mut) {
                Some(ai) => ai.choose(&self.battle),
                // A person's side with nobody to act ends the game as `play` ends it.
                None if self.battle.may_act(side).is_empty() => None,
                None => match script.as_mut().and_then(|s| s.next(&self.battle, side)) {
                    Some(t) => Some(t),
                    // The person's turn (resuming: the log's turns for this side are spent). The
                    // guard has counted it, as `play` counts every choice.
                    None => return Ok(()),
                },
            };
            match turn {
                None => self.battle.finish(Outcome::Draw, "nobody can act".to_string()),
                Some(t) => self.battle.play_turn(t).map_err(|e| Denied::battle(&e))?,
            }
            self.version += 1;
            self.steps.push(view::step(self, before));
        }
        Ok(())
    }
}

/// Where unit `unit` can go in battle `b`, as its side sees it.
pub(crate) fn reach_in(b: &Battle<'_>, unit: usize) -> Vec<(Tile, i64)> {
    let sight = b.sight(b.units.get(unit).map_or(SideId::Attacker, |u| u.side));
    let reach = b.reachable_as_seen(unit, &sight);
    let mut out: Vec<(Tile, i64)> = reach.map(|r| r.into_iter().collect()).unwrap_or_default();
    out.sort();
    out
}
