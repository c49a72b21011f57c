//! What a play session shows a side, as serde data for a page: the battle as the side sees it
//! (under fog, only the enemies and squares in its sight), a unit's choices, an attack's exact
//! forecast, and the steps played since the player's last turn in words.

use oc_engine::battle::{Battle, Combatant, Record, State, Tile};
use oc_engine::{Atom, Forecast as EngineForecast};
use oc_model::SideId;
use serde::Serialize;

use super::{Session, Staged};
use crate::recording::{self, Run};

/// A unit as the page draws it.
#[derive(Clone, Debug, Serialize)]
pub struct UnitView {
    pub index: usize,
    pub name: String,
    pub side: SideId,
    pub class: String,
    pub hp: i64,
    pub max_hp: i64,
    /// Its figures at full strength and those living, where several (seed 003's units of
    /// figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<[i64; 2]>,
    pub x: i64,
    pub y: i64,
    pub state: State,
    pub statuses: Vec<String>,
    pub resources: Vec<i64>,
    pub facing: Option<Tile>,
    pub equipped: Option<String>,
    pub items: Vec<String>,
    pub activated: bool,
    /// The squares it threatens (with threat zones).
    pub zone: Vec<Tile>,
    /// Where it is a mixed unit: the bodies joined to it (`State::Joined`), each with its own
    /// figures and HP; the unit is them and its own figures ("Spears (10 of 10) + Fenth").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<Body>,
    /// As a player reads it: its name, its figures, its bodies.
    pub shown: String,
}

/// A body joined to a unit (a mixed unit's other class or arms).
#[derive(Clone, Debug, Serialize)]
pub struct Body {
    pub index: usize,
    /// Its name with its figures ("Fenth", "Bows (3 of 4)").
    pub shown: String,
    pub hp: i64,
    pub max_hp: i64,
}

/// How the game ended, as the victory line reads.
#[derive(Clone, Debug, Serialize)]
pub struct Ending {
    /// `attacker`, `defender` or `draw`.
    pub outcome: String,
    pub reason: String,
    pub line: String,
}

/// One step the page shows: what was played in words, and the board after it.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub side: SideId,
    pub lines: Vec<String>,
    pub units: Vec<UnitView>,
    pub round: u32,
}

/// A step played before those the state carries, as the page showed it: its lines, without the
/// board (`/api/history`: a page opened again lists the whole game, not only its last turn).
#[derive(Clone, Debug, Serialize)]
pub struct Said {
    pub side: SideId,
    pub lines: Vec<String>,
    pub round: u32,
}

impl From<Step> for Said {
    fn from(s: Step) -> Said {
        Said { side: s.side, lines: s.lines, round: s.round }
    }
}

/// What `/api/history` answers: every step played before the state's `steps`, in order.
#[derive(Clone, Debug, Serialize)]
pub struct History<'a> {
    pub steps: &'a [Said],
}

/// The game as one side sees it now.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub version: u64,
    pub round: u32,
    pub rounds: Option<u32>,
    pub to_act: SideId,
    /// Whose eyes: the player's side (in hotseat, the side to act).
    pub viewer: SideId,
    /// Whether a person plays the side to act now.
    pub your_turn: bool,
    pub units: Vec<UnitView>,
    /// The units the player may activate now.
    pub may_act: Vec<usize>,
    /// The unit in the middle of its activation (steps paid from a resource).
    pub active: Option<usize>,
    pub staged: Option<Staged>,
    /// Under fog: the squares the viewer sees, as row runs.
    pub sight: Option<Vec<Run>>,
    /// Squares whose terrain changed (doors opened, walls fallen): x, y, terrain now.
    pub changed: Vec<(i64, i64, String)>,
    pub over: Option<Ending>,
    /// What was played since the player's last turn (the player's turn, then the AI's).
    pub steps: Vec<Step>,
    pub log_lines: usize,
    /// The viewer's standing reaction (`best`, `none` or a reaction's name).
    pub stance: String,
    /// An attack declared on one of the viewer's units that waits for its answer (the
    /// ruleset's `respond`): the unit may activate in answer or decline.
    pub answering: Option<Answering>,
}

/// An attack waiting for the answer of the unit it was declared on.
#[derive(Clone, Debug, Serialize)]
pub struct Answering {
    /// The unit attacked, which alone may act now, and the unit that declared the attack (none
    /// where the viewer's side does not see it: under fog, which enemy it is is not said).
    pub unit: usize,
    pub by: Option<usize>,
    /// As a player reads it.
    pub line: String,
}

/// What a unit may do now.
#[derive(Clone, Debug, Serialize)]
pub struct Choices {
    pub unit: usize,
    /// Where it stands, and where it would act from (its staged move).
    pub pos: Tile,
    pub from: Tile,
    /// The squares it can move to, with what each costs.
    pub reach: Vec<(Tile, i64)>,
    /// The enemies it can attack from `from` with the weapon asked about.
    pub targets: Vec<usize>,
    /// Where it must attack the weakest in range: those it may attack.
    pub must_attack: Vec<usize>,
    pub weapons: Vec<String>,
    pub equipped: Option<String>,
    /// Its special actions (by verb) with the distances they reach: those the rules let it take
    /// now, from where it would act, each with what it may be taken on.
    pub actions: Vec<ActionChoice>,
    /// The items it may use now (consumables), each with what it may be used on.
    pub items: Vec<ItemChoice>,
    /// Where activations are steps paid from a resource: what it has left.
    pub pool: Option<(String, i64)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ActionChoice {
    pub verb: oc_model::Verb,
    pub name: String,
    /// The tag whose action it is (`Act::Special`'s `from`): a unit's actions of one verb differ by it.
    pub tag: String,
    pub source: Option<String>,
    pub range: Option<(i64, i64)>,
    /// Its step of the sequence of play (`sequence`): it is taken before the move, staged.
    pub sequence: Option<i64>,
    /// What it may be taken on, as the engine accepts the turn.
    #[serde(flatten)]
    pub on: Aims,
    /// What it is aimed at, as the action says (`target`), and whether it heals.
    #[serde(skip)]
    pub(crate) aim: Aim,
}

/// An item the unit may use now.
#[derive(Clone, Debug, Serialize)]
pub struct ItemChoice {
    pub name: String,
    /// What it may be used on, as the engine accepts the turn.
    #[serde(flatten)]
    pub on: Aims,
    #[serde(skip)]
    pub(crate) aim: Aim,
}

/// What an action or an item may be taken on from where the unit would act: each unit and
/// square tried as the turn that takes it, on a copy of the battle (one the rules refuse is not
/// listed; an action or item with nothing to take it on is not offered at all).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Aims {
    /// The units it may be taken on (a heal's hurt units first).
    pub targets: Vec<usize>,
    /// The squares it may be taken on.
    pub tiles: Vec<Tile>,
    /// Whether it is taken naming no unit and no square: on the unit itself, where it stands,
    /// or on every enemy in reach.
    pub untargeted: bool,
    /// The units it would leave as they are (among `targets`, and the unit itself where it is
    /// taken `untargeted` on it): a heal on a unit at full HP, which the rules allow and which
    /// heals nothing. Never the one to take by default.
    pub idle: Vec<usize>,
}

impl Aims {
    /// Whether it may be taken at all.
    pub fn any(&self) -> bool {
        self.untargeted || !self.targets.is_empty() || !self.tiles.is_empty()
    }
}

/// What an action or an item's use is aimed at, as the rules say: what a turn names to take it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Aim {
    /// Taken naming nothing (the unit itself, its square, every enemy in reach).
    pub bare: bool,
    /// Taken on a unit (an ally, an enemy, any unit, the unit itself).
    pub units: bool,
    /// Taken on a square within this many squares (a door, a chest, a tile), where it names one.
    pub tiles: Option<i64>,
    /// Whether it heals (a heal on a unit at full HP does nothing).
    pub heals: bool,
}

impl Aim {
    /// The aim of an action aimed at `target`, reaching `reach` squares at most.
    pub(crate) fn of(target: oc_model::ActionTarget, reach: i64, heals: bool) -> Aim {
        use oc_model::ActionTarget as T;
        let (bare, units, tiles) = match target {
            T::SelfOnly | T::Enemies => (true, false, None),
            T::Ally | T::Enemy | T::Unit => (false, true, None),
            T::SelfOrAlly => (true, true, None),
            T::Tile | T::Door | T::Chest if reach <= 0 => (true, false, None),
            T::Tile | T::Door | T::Chest => (false, false, Some(reach)),
        };
        Aim { bare, units, tiles, heals }
    }

    /// The aim of using `item`: its use's action where it has one, else on its user.
    pub(crate) fn of_item(b: &Battle<'_>, item: &str) -> Aim {
        let uses = b.engine.rules.item(item).map_or(&[][..], |it| it.uses.as_slice());
        let heals = uses.iter().any(heals);
        match uses.iter().find_map(|e| match e {
            oc_model::Effect::Action(a) => Some(a),
            _ => None,
        }) {
            // A reach the rules write as a number; else a square next to the unit (a key's door).
            Some(a) => {
                let reach = match a.max_range.as_ref().or(a.min_range.as_ref()) {
                    Some(oc_model::Expr::Const(oc_model::Value::Int(n))) => *n,
                    _ => 1,
                };
                Aim::of(a.target, reach, heals)
            }
            None => Aim { bare: true, units: false, tiles: None, heals },
        }
    }
}

/// Whether an effect heals (a `heal` command, itself or in an action).
fn heals(e: &oc_model::Effect) -> bool {
    match e {
        oc_model::Effect::Command { verb, .. } => *verb == oc_model::Verb::Heal,
        oc_model::Effect::Action(a) => a.effects.iter().any(heals),
        oc_model::Effect::When { then, .. } => then.iter().any(heals),
        _ => false,
    }
}

/// The exact forecast of an attack, as a forecast window shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Forecast {
    pub attacker: usize,
    pub target: usize,
    pub from: Tile,
    pub distance: i64,
    pub sides: [ForecastSide; 2],
    /// Chance the target is routed; chance the attacker is.
    pub rout: f64,
    pub counter_rout: f64,
    /// Expected damage the target takes; the attacker takes.
    pub dealt: f64,
    pub taken: f64,
    /// The reactions the target may take, and how its side takes them (`best`: the one with the
    /// least expected damage; `none`; or a reaction's name, where it may be taken).
    pub reactions: Vec<String>,
    pub stance: String,
    /// Free attacks the move draws, from enemies whose threat zone it leaves.
    pub free_attacks: Vec<String>,
    /// Enemies (seen) that strike the attacker at once as its move ends there, and those that
    /// may activate before it acts; whether the target may activate in answer, its attack
    /// striking first. (A forecast of "no counter" preceded seven strikes of an answer.)
    pub opportunity: Vec<String>,
    pub interrupts: Vec<String>,
    pub answers: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ForecastSide {
    pub name: String,
    pub hp: i64,
    pub max_hp: i64,
    pub weapon: Option<String>,
    pub hit: f64,
    pub crit: f64,
    pub damage: i64,
    pub crit_damage: i64,
    pub strikes: u32,
    /// Rolled damage on a hit (damage dice): its mean, least and most; `None` where a hit's
    /// damage is fixed.
    pub rolled: Option<(f64, i64, i64)>,
}

fn side_of(f: &oc_engine::SideForecast, u: Option<&Combatant>) -> ForecastSide {
    ForecastSide {
        name: u.map(|u| u.name.clone()).unwrap_or_default(),
        hp: f.hp,
        max_hp: f.max_hp,
        weapon: f.weapon.clone(),
        hit: f.hit,
        crit: f.crit,
        damage: f.damage,
        crit_damage: f.crit_damage,
        strikes: f.strikes,
        rolled: f.rolled(),
    }
}

pub(super) fn forecast(b: &Battle<'_>, unit: usize, target: usize, from: Tile, f: &EngineForecast) -> Forecast {
    let reactions = b
        .engine
        .rules
        .ruleset
        .reactions
        .iter()
        .filter(|r| r.reroll.is_none())
        .map(|r| r.title.clone().unwrap_or_else(|| r.name.clone()))
        .collect();
    let free_attacks = free_attacks(b, unit, from);
    let sight = b.sight(b.units.get(unit).map_or(oc_model::SideId::Attacker, |u| u.side));
    let before = b.before_the_attack(unit, from, target, &sight);
    let seen_names = |ks: &[usize]| -> Vec<String> {
        ks.iter().filter_map(|k| b.units.get(*k).filter(|f| sight.spots(*k, f.pos)).map(|f| f.name.clone())).collect()
    };
    Forecast {
        attacker: unit,
        target,
        from,
        distance: f.distance,
        sides: [side_of(&f.attacker, b.units.get(unit)), side_of(&f.defender, b.units.get(target))],
        rout: f.defender_routed,
        counter_rout: f.attacker_routed,
        dealt: f.defender_damage_taken,
        taken: f.attacker_damage_taken,
        reactions,
        stance: b
            .units
            .get(target)
            .and_then(|t| b.stance.get(super::side_index(t.side)).cloned().flatten())
            .unwrap_or_else(|| "best".to_string()),
        free_attacks,
        opportunity: seen_names(&before.opportunity),
        interrupts: seen_names(&before.interrupt),
        answers: before.answers,
    }
}

/// The enemies (as the unit's side sees them) whose threat zone the unit leaves by moving to
/// `to` and that have a weapon to strike one with: each makes a free attack first.
fn free_attacks(b: &Battle<'_>, unit: usize, to: Tile) -> Vec<String> {
    let Some(u) = b.units.get(unit) else { return Vec::new() };
    if to == u.pos {
        return Vec::new();
    }
    let sight = b.sight(u.side);
    b.units
        .iter()
        .enumerate()
        .filter(|(_, f)| f.side != u.side && f.state == State::Ready && sight.sees(f.pos))
        .filter(|(k, _)| {
            let zone = b.threatened_by(*k);
            zone.contains(&u.pos) && !zone.contains(&to) && b.free_attack_weapon(*k, unit).is_some()
        })
        .map(|(_, f)| f.name.clone())
        .collect()
}

fn unit_view(b: &Battle<'_>, k: usize, u: &Combatant) -> UnitView {
    let statuses = recording::statuses(u);
    let bodies: Vec<Body> = b
        .bodies(k)
        .into_iter()
        .filter_map(|j| b.units.get(j).map(|f| Body { index: j, shown: f.shown(), hp: f.hp, max_hp: f.max_hp }))
        .collect();
    let shown = std::iter::once(u.shown()).chain(bodies.iter().map(|f| f.shown.clone())).collect::<Vec<_>>().join(" + ");
    UnitView {
        index: k,
        name: u.name.clone(),
        side: u.side,
        class: u.class.to_string(),
        hp: u.hp,
        max_hp: u.max_hp,
        figures: (u.figures > 1).then(|| [u.living(), i64::from(u.figures)]),
        x: u.pos.0,
        y: u.pos.1,
        state: u.state,
        statuses,
        resources: u.resources.clone(),
        facing: u.facing,
        equipped: u.equipped.map(String::from),
        items: u.items.iter().map(|i| i.to_string()).collect(),
        activated: u.activated,
        zone: b.threatened_by(k),
        bodies,
        shown,
    }
}

/// The units `side` knows of: its own, and the enemies in its sight (under fog, not hidden).
fn units_seen(b: &Battle<'_>, side: SideId) -> Vec<UnitView> {
    let sight = b.sight(side);
    b.units
        .iter()
        .enumerate()
        .filter(|(k, u)| u.side == side || (u.state == State::Ready && sight.spots(*k, u.pos)) || u.state != State::Ready)
        .map(|(k, u)| unit_view(b, k, u))
        .collect()
}

fn runs(b: &Battle<'_>, side: SideId) -> Option<Vec<Run>> {
    b.scenario.fog?;
    Some(recording::sight_runs(b, side))
}

fn outcome_word(o: oc_model::Outcome) -> &'static str {
    match o {
        oc_model::Outcome::Win(SideId::Attacker) => "attacker",
        oc_model::Outcome::Win(SideId::Defender) => "defender",
        oc_model::Outcome::Draw => "draw",
    }
}

/// The game as the session's viewer sees it.
pub fn view(s: &Session<'_>) -> View {
    let b = s.battle();
    let viewer = s.viewer();
    let your_turn = b.outcome.is_none() && s.players().get(super::side_index(b.to_act)).copied().unwrap_or(false);
    let original = &s.setup().map.terrain;
    let width = b.map.width.max(1);
    let changed = b
        .map
        .terrain
        .iter()
        .zip(original)
        .enumerate()
        .filter(|(_, (now, was))| now != was)
        .map(|(k, (now, _))| (k as i64 % width, k as i64 / width, now.clone()))
        .collect();
    // A battle called a draw at the round cap ended after its last round, not in the next (as
    // `oc simulate` counts it).
    let round = b.round.min(b.scenario.rounds.unwrap_or(oc_engine::battle::ROUND_CAP));
    let over = b.outcome.as_ref().map(|(o, reason)| {
        let line = match o {
            oc_model::Outcome::Win(side) => {
                let army = s.setup().armies.get(super::side_index(*side)).map_or("", |a| a.name.as_str());
                format!("The {} ({army}) wins in round {round}: {reason}", side.word())
            }
            oc_model::Outcome::Draw => format!("A draw in round {round}: {reason}"),
        };
        Ending { outcome: outcome_word(*o).to_string(), reason: reason.clone(), line }
    });
    View {
        version: s.version(),
        round,
        rounds: b.scenario.rounds,
        to_act: b.to_act,
        viewer,
        your_turn,
        // After staged steps, the board as the preview shows it (a formation taken, an enemy found).
        units: units_seen(s.previewed().as_ref().unwrap_or(b), viewer),
        may_act: if your_turn { b.may_act(b.to_act) } else { Vec::new() },
        active: b.active.as_ref().map(|a| a.unit),
        staged: s.staged().cloned(),
        sight: runs(b, viewer),
        changed,
        over,
        steps: s.steps().to_vec(),
        log_lines: b.log.len() + 1,
        stance: s.stance(),
        answering: answering(b, viewer, your_turn),
    }
}

/// The declared attack the viewer's unit may answer, when it is the viewer's turn.
fn answering(b: &Battle<'_>, viewer: SideId, your_turn: bool) -> Option<Answering> {
    let d = b.declared().filter(|_| your_turn)?;
    let target = b.units.get(d.target)?;
    // Under fog the declarer may be out of sight: it is not named.
    let seen = units_seen(b, viewer).iter().any(|u| u.index == d.by);
    let by = b.units.get(d.by).filter(|_| seen).map_or("An enemy out of sight", |u| u.name.as_str());
    let line = if d.then.is_some() && !d.before_move {
        // A move that came too near (the ruleset's `interrupt`).
        format!(
            "{by} comes too near {0}: activate {0} now, before {by} acts, or decline ({0} keeps its activation \
             for later).",
            target.name
        )
    } else if d.before_move {
        format!(
            "{by} declares an attack on {0} before it moves: activate {0} in answer (it may strike first), or \
             decline ({by} then moves and attacks, and {0} keeps its activation for later).",
            target.name
        )
    } else {
        format!(
            "{by} declares an attack on {0}: activate {0} in answer (its attack may strike first), or decline \
             (the attack resolves now and {0} keeps its activation for later).",
            target.name
        )
    };
    Some(Answering { unit: d.target, by: seen.then_some(d.by), line })
}

/// What unit `unit` may do in `b` (the battle, or the preview of its staged steps), acting
/// from `from` with `equip` held.
pub(super) fn choices(b: &Battle<'_>, unit: usize, from: Tile, equip: Option<Atom>) -> Choices {
    let u = b.units.get(unit);
    let weapons = u
        .map(|u| {
            u.items
                .iter()
                .filter(|i| b.engine.item(i).is_some_and(|it| it.kind == oc_model::ItemKind::Weapon))
                .map(|i| i.to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut items: Vec<ItemChoice> = Vec::new();
    for i in u.map_or(&[][..], |u| u.items.as_slice()) {
        let consumable = b.engine.item(i).is_some_and(|it| it.kind == oc_model::ItemKind::Consumable);
        // One of each (two Vulneraries are one choice).
        if consumable && !items.iter().any(|c| c.name == i.as_str()) {
            items.push(ItemChoice { name: i.to_string(), on: Aims::default(), aim: Aim::of_item(b, i) });
        }
    }
    let actions = actions(b, unit);
    let pool = b.engine.rules.ruleset.turn.spend.as_ref().and_then(|r| b.resource(unit, r).map(|v| (r.clone(), v)));
    let must_attack = if from == u.map_or(from, |u| u.pos) { b.weakest_in_range(unit) } else { b.weakest_from(unit, from) };
    Choices {
        unit,
        pos: u.map_or(from, |u| u.pos),
        from,
        reach: super::reach_in(b, unit),
        targets: b.targets_from(unit, from, equip),
        must_attack,
        weapons,
        equipped: equip.or_else(|| u.and_then(|u| u.equipped)).map(String::from),
        actions,
        items,
        pool,
    }
}

/// Unit `unit`'s special actions in `b` (with the weapon it would hold in hand: a weapon's
/// actions are its holder's), with what each is aimed at; what they may be taken on is the
/// session's to find.
pub(super) fn actions(b: &Battle<'_>, unit: usize) -> Vec<ActionChoice> {
    b.actions(unit)
        .into_iter()
        .filter_map(|a| {
            let verb = a.verb()?;
            let name = serde_json::to_value(verb).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let sequence = a.action.sequence;
            let (source, tag) = (a.source.clone(), a.tag.to_string());
            // This action's own reach (two of one verb may reach differently).
            let range = b.reach_of(unit, &a);
            let heals = verb == oc_model::Verb::Heal;
            let aim = Aim::of(a.action.target, range.map_or(0, |r| r.1), heals);
            Some(ActionChoice { verb, name, tag, source, range, sequence, on: Aims::default(), aim })
        })
        .collect()
}

/// The records from `before` on, as the session's viewer may read them, with the board after.
pub(super) fn step(s: &Session<'_>, before: usize) -> Step {
    let b = s.battle();
    let viewer = s.viewer();
    let records = b.log.get(before..).unwrap_or_default();
    let name = |k: usize| b.units.get(k).map_or_else(|| format!("unit {k}"), |u| u.name.clone());
    let sight = b.sight(viewer);
    let seen = |k: usize| b.units.get(k).is_some_and(|u| u.side == viewer || sight.spots(k, u.pos) || u.state != State::Ready);
    let mut lines = Vec::new();
    let mut side = b.to_act;
    for r in records {
        let line = match r {
            Record::Turn { turn, note, .. } => {
                side = b.units.get(turn.unit).map_or(side, |u| u.side);
                if seen(turn.unit) {
                    // Where it moved, and what it did without its name said twice ("Breguet:
                    // Breguet attacks Ephraim"; a move was logged as "waits" alone).
                    let who = name(turn.unit);
                    let did = note.strip_prefix(&format!("{who} ")).unwrap_or(note);
                    // Where it went only where the side sees that square (an enemy that walked
                    // back into sight through the dark is not tracked through it).
                    // An attack declared before the move has not moved yet: where it means to go
                    // is its side's secret until it does.
                    let moved = !note.ends_with(oc_engine::battle::DECLARED_BEFORE_MOVE);
                    let mine = |t: &(i64, i64)| b.units.get(turn.unit).is_some_and(|u| u.side == viewer) || sight.sees(*t);
                    match turn.to.filter(|t| moved && mine(t)) {
                        Some((x, y)) => format!("{who}: moves to ({x}, {y}); {did}"),
                        None => format!("{who}: {did}"),
                    }
                } else {
                    "An enemy out of sight acts.".to_string()
                }
            }
            // A declared attack resolving after its target's answer.
            Record::Resolved { unit, note, .. } if seen(*unit) => format!("{}: {note}", name(*unit)),
            Record::Courage { unit, note, .. } if seen(*unit) => format!("{}: {note}", name(*unit)),
            Record::Round { round, first } => format!("Round {round} begins; the {} leads.", first.word()),
            Record::Recover { unit, amount, hp } if seen(*unit) => format!("{} recovers {amount} HP ({hp}).", name(*unit)),
            Record::Trigger { unit, note, .. } if seen(*unit) => format!("{}: {note}", name(*unit)),
            Record::Affliction { unit, status, change } if seen(*unit) => format!("{}: {status} {change}", name(*unit)),
            Record::Order { units } => {
                let names: Vec<String> = units.iter().map(|k| name(*k)).collect();
                format!("This round's order: {}.", names.join(", "))
            }
            Record::Rolloff { rolls, side } => {
                let r: Vec<String> = rolls.iter().map(|[a, d]| format!("{a}–{d}")).collect();
                format!("Roll-off {}: the {} acts next.", r.join(", "), side.word())
            }
            Record::Refill { resource, .. } => format!("{resource} refilled."),
            Record::End { reason, .. } => format!("The battle ends: {reason}."),
            _ => continue,
        };
        lines.push(line);
    }
    Step { side, lines, units: units_seen(b, viewer), round: b.round }
}
