//! Turns recalled from one battle to the next of a run: the openings the battles of `oc
//! simulate`, `oc fairness`, `oc tune` and `oc tournament` share. Every battle of a scenario
//! starts from the same field, and the default AI's turns are functions of the battle as it
//! stands and of what the AI carries from its earlier decisions (its [`Mind`]: the units'
//! prices, what it saw under fog, the decisions it made, by which its look-ahead dice are
//! seeded): until the dice first fall differently, battle after battle plays the same opening
//! move for move, and each decision of it was worked out again. Measured on `oc battle` logs of
//! seeds 1 to 6: every battle of Grado Keep after the first repeats the first's 29 turns (a third
//! of its decision time), of the Woodcutter's Night 22 (a fifth); the Narube storm none (its
//! weather, deployment and roll-offs are drawn, and its first turn strikes).
//!
//! A thread's book keeps the turns its AIs (the tactician, the default planner, `searcher`,
//! `greedy` outside look-aheads) chose in the first [`OPENING`] decisions of a battle, each with
//! the battle as it stood but for its dice ([`Battle::undiced`], its terrain compared by the
//! field's tiles, not by the stamp each battle takes) and the mind it was chosen with; a
//! decision that meets both again (the whole battle and the whole mind equal, not a hash of
//! them) plays the turn kept, and the AI's mind moves on as the decision would have moved it.
//! Nothing else an AI keeps between decisions changes what it chooses (its caches answer as
//! fresh ones), and only a decision that made no copy going on with the battle's own dice is
//! kept (`dice::carried`): one that tried an action on such a copy (a search for a hidden enemy,
//! a disengagement) may have read the dice, which differ from battle to battle. The planner's
//! look-ahead copies roll dice of their own seeding (by its decision count, in the mind). So
//! every battle plays as it did without the book, move for move: only the time changes. Later
//! decisions meet a kept battle too (a blow that missed), so the book is not stopped at the
//! first blow (so stopped, `oc fairness scenarios --games 60` took 10% less CPU time, not 16%:
//! one run each).
//!
//! At most [`KEPT`] decisions a thread; past it the one used longest ago makes room (an opening
//! met in every battle stays).

use std::cell::RefCell;

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests;

use crate::battle::{Battle, Turn, Undiced};
use crate::fx::FastMap;

/// The decisions of a battle (each AI's own count) the book keeps: openings, not the battles'
/// later turns, which the dice make their own.
const OPENING: u64 = 48;

/// Whether an AI recalls its opening decisions, and how many it has been asked for in the
/// book's reach: what each recalling AI keeps ([`Opening::asks`]).
#[derive(Debug, Default)]
pub(crate) struct Opening {
    on: bool,
    decided: u64,
}

impl Opening {
    /// An AI's that recalls.
    pub fn on() -> Opening {
        Opening { on: true, decided: 0 }
    }

    /// Whether the decision now asked for in `b` is one the book is asked for (counted): a
    /// recalling AI's, among its first [`OPENING`], where a unit may act (where none may, a
    /// decision notes nothing in its mind).
    pub fn asks(&mut self, b: &Battle) -> bool {
        if !self.on || self.decided >= OPENING || b.may_act(b.to_act).is_empty() {
            return false;
        }
        self.decided += 1;
        true
    }
}

/// The AIs that recall ([`Mind::kind`]).
pub(crate) const TACTICIAN: u8 = 0;
pub(crate) const PLANNER: u8 = 1;
pub(crate) const GREEDY: u8 = 2;
pub(crate) const SEARCHER: u8 = 3;

/// The most decisions a thread's book keeps.
const KEPT: usize = 256;

/// What an AI carries from one decision to the next that its turns read: the units' prices
/// (worked out at its first decision), what each side saw under fog and when (the tactician's
/// memory), and how many decisions it made (the planner's look-ahead dice are seeded by it).
/// Compared whole.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct Mind {
    /// Which AI (the tactician, the planner, `greedy`, `searcher`): each has entries of its own.
    pub kind: u8,
    pub prices: Vec<f64>,
    pub last_seen: [Vec<Option<super::sighting::Sighting>>; 2],
    pub swept: [Vec<u32>; 2],
    pub decisions: u64,
}

/// What a decision reports beside its turn, kept with it: the planner's playout turns, copies,
/// copies cut and candidates weighed (zeros for the other AIs).
pub(crate) type Report = [u64; 4];

/// One decision kept: the engine, the battle and mind it was made in, the turn, what it
/// reported ([`Report`]), when it was last used.
struct Entry {
    hash: u64,
    engine: u64,
    mind: Mind,
    battle: Undiced,
    turn: Turn,
    report: Report,
    used: u64,
}

#[derive(Default)]
struct Book {
    entries: Vec<Entry>,
    by_hash: FastMap<u64, usize>,
    clock: u64,
    /// Decisions recalled on this thread.
    hits: u64,
}

thread_local! {
    static BOOK: RefCell<Book> = RefCell::new(Book::default());
}

fn hash_of(engine: u64, mind: &Mind, b: &Battle) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fx::Fx::default();
    (engine, mind.kind, mind.decisions, b.undiced_hash_across()).hash(&mut h);
    h.finish()
}

/// The turn for `b` decided with `mind`: the one the book keeps for them, else `decide`'s (with
/// what it reports: the planner's playout counts), kept where deciding made no copy going on
/// with the battle's own dice (`dice::carried`). With what the decision reported and whether
/// it was recalled.
pub(crate) fn or_decide(b: &Battle, mind: Mind, decide: impl FnOnce() -> Option<(Turn, Report)>) -> Option<(Turn, Report, bool)> {
    let engine = b.engine.serial();
    if let Some((t, report)) = recall(engine, &mind, b) {
        return Some((t, report, true));
    }
    let carried = crate::dice::carried();
    let (t, report) = decide()?;
    if crate::dice::carried() == carried {
        keep(engine, mind, b, &t, report);
    }
    Some((t, report, false))
}

/// The turn kept for `b` decided with `mind` (and what that decision reported), if the book
/// holds it.
fn recall(engine: u64, mind: &Mind, b: &Battle) -> Option<(Turn, Report)> {
    let hash = hash_of(engine, mind, b);
    BOOK.try_with(|book| {
        let mut book = book.try_borrow_mut().ok()?;
        let book = &mut *book;
        book.clock += 1;
        let at = *book.by_hash.get(&hash)?;
        let e = book.entries.get_mut(at)?;
        if e.hash != hash || e.engine != engine || e.mind != *mind || !b.is_undiced_across(&e.battle) {
            return None;
        }
        e.used = book.clock;
        book.hits += 1;
        Some((e.turn.clone(), e.report))
    })
    .ok()
    .flatten()
}

/// How many decisions this thread has recalled.
#[cfg(test)]
pub(crate) fn hits() -> u64 {
    BOOK.with(|b| b.borrow().hits)
}

/// Keeps `turn`, decided in `b` with `mind` (which reported `report`).
fn keep(engine: u64, mind: Mind, b: &Battle, turn: &Turn, report: Report) {
    let hash = hash_of(engine, &mind, b);
    let _ = BOOK.try_with(|book| {
        let Ok(mut book) = book.try_borrow_mut() else { return };
        let book = &mut *book;
        book.clock += 1;
        let used = book.clock;
        if book.entries.len() < KEPT {
            let battle = b.undiced();
            book.by_hash.insert(hash, book.entries.len());
            book.entries.push(Entry { hash, engine, mind, battle, turn: turn.clone(), report, used });
            return;
        }
        // The one used longest ago makes room (its battle's lists reused).
        let Some((at, _)) = book.entries.iter().enumerate().min_by_key(|(_, e)| e.used) else { return };
        let Some(e) = book.entries.get_mut(at) else { return };
        if book.by_hash.get(&e.hash) == Some(&at) {
            book.by_hash.remove(&e.hash);
        }
        b.undiced_into(&mut e.battle);
        (e.hash, e.engine, e.mind, e.turn, e.report, e.used) = (hash, engine, mind, turn.clone(), report, used);
        book.by_hash.insert(hash, at);
    });
}
