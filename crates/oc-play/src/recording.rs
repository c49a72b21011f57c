//! A battle recorded for a replay: played again with [`battle::play_watched`] as `oc battle`
//! plays it (the same records), a snapshot of the units taken once they are deployed and after
//! every turn, and the exact forecast of each attack worked out as the AI declares it. Under fog
//! of war each snapshot also carries what each side sees (the engine's `Battle::sight`, as row
//! runs). A replay page (or any viewer) is drawn from its [`Frame`]s.

use oc_engine::battle::{self, Battle, Combatant, Controller, GameResult, Record, State, Turn};
use oc_model::SideId;
use serde::Serialize;

use crate::setup::Setup;

/// A battle played with the AI on both sides, with what a replay page shows of it.
pub struct Recording {
    pub result: GameResult,
    pub records: Vec<Record>,
    /// The battle once deployed and after every turn.
    pub snapshots: Vec<Snapshot>,
    /// Every turn the AIs chose, with the forecast of its attack.
    pub declared: Vec<Declared>,
    /// Every unit the battle had, as it was first seen: those deployed, then those it made
    /// (a unit divided off another: seed 003's "divide up (split the unit)").
    pub units: Vec<Combatant>,
}

/// The battle after a turn (or once deployed): `log_len` records written so far.
pub struct Snapshot {
    pub log_len: usize,
    pub round: u32,
    pub to_act: SideId,
    pub active: Option<usize>,
    pub units: Vec<UnitState>,
    /// Squares whose terrain changed since the start: (x, y, terrain now).
    pub changed: Vec<(i64, i64, String)>,
    /// Under fog: the tiles each side (attacker, defender) sees, as row runs.
    pub sight: Option<[Vec<Run>; 2]>,
}

/// Tiles `x0..=x1` of row `y`: `[y, x0, x1]`.
pub type Run = [i64; 3];

/// What `side` sees of the battle now, as row runs, by the engine's own fog rules.
pub fn sight_runs(b: &Battle<'_>, side: SideId) -> Vec<Run> {
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
pub struct Declared {
    pub at: usize,
    pub turn: Turn,
    pub forecast: Option<ForecastOut>,
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
    let mut units: Vec<Combatant> = Vec::new();
    let mut watch = |b: &Battle<'_>| {
        if snapshots.last().is_some_and(|s| s.log_len == b.log.len()) {
            return;
        }
        units.extend(b.units.iter().skip(units.len()).cloned());
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
    Ok(Recording { result, records, snapshots, declared: recorder.declared, units })
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

/// A unit as a frame shows it.
#[derive(Serialize)]
pub struct UnitState {
    pub hp: i64,
    /// Its hit points at full strength now (figures joining or dividing off change them).
    pub max_hp: i64,
    /// Its living figures and its figures at full strength now, where several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<[i64; 2]>,
    /// A unit joined to another (`State::Joined`): the unit it fights in, where it is a body of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with: Option<usize>,
    pub x: i64,
    pub y: i64,
    pub state: State,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub statuses: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facing: Option<(i64, i64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equipped: Option<String>,
    pub activated: bool,
}

impl UnitState {
    fn of(u: &Combatant) -> UnitState {
        let statuses = statuses(u);
        UnitState {
            hp: u.hp,
            max_hp: u.max_hp,
            figures: (u.figures > 1).then(|| [u.living(), i64::from(u.figures)]),
            with: u.with,
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

/// A unit's statuses (with the rounds left) and stat shifts as a page shows them: `poisoned (2)`, `hit-1`.
pub fn statuses(u: &Combatant) -> Vec<String> {
    u.statuses
        .iter()
        .map(|a| match a.left {
            Some(n) => format!("{} ({n})", a.status),
            None => a.status.to_string(),
        })
        .chain(u.debuffs.iter().map(|d| format!("{}{:+}", d.attr, d.shift)))
        .collect()
}

/// The exact forecast of an attack as the AI declared it.
#[derive(Serialize)]
pub struct ForecastOut {
    pub attacker: usize,
    pub target: usize,
    pub distance: i64,
    pub weapon: Option<String>,
    pub counter_weapon: Option<String>,
    pub hit: f64,
    pub crit: f64,
    pub damage: i64,
    pub crit_damage: i64,
    pub strikes: u32,
    pub counter_hit: f64,
    pub counter_crit: f64,
    pub counter_damage: i64,
    pub counter_crit_damage: i64,
    pub counter_strikes: u32,
    /// Chance the target is routed; chance the attacker is.
    pub rout: f64,
    pub counter_rout: f64,
    /// Expected damage the target takes; the attacker takes.
    pub dealt: f64,
    pub taken: f64,
}

/// One step of a replay: the records a turn wrote and the battle after it.
#[derive(Serialize)]
pub struct Frame<'r> {
    pub round: u32,
    pub to_act: SideId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<usize>,
    pub records: &'r [Record],
    pub units: &'r [UnitState],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub changed: &'r [(i64, i64, String)],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast: Option<&'r ForecastOut>,
    /// Under fog: what the attacker and the defender see after this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sight: Option<&'r [Vec<Run>; 2]>,
}

impl Recording {
    /// The frames a replay steps through: each snapshot with the records written since the
    /// last, and the forecast of the attack its turn declared (if the battle played the turn
    /// the AI chose).
    pub fn frames(&self) -> Result<Vec<Frame<'_>>, String> {
        let mut frames = Vec::new();
        let mut from = 0;
        for s in &self.snapshots {
            let records = self.records.get(from..s.log_len).ok_or("the recording and its log disagree")?;
            let forecast = self
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
        if from != self.records.len() {
            return Err("the recording missed the battle's last records".into());
        }
        Ok(frames)
    }
}
