//! `planner`: the tactician's few best turns, each played ahead on copies of the battle (a
//! Monte Carlo search one activation wide and a few deep, Ludii's flat MC with a heuristic
//! playout), each copy valued by what the scenario's victory conditions value.
//!
//! The tactician ranks each unit's best turn. The planner takes the first [`WIDTH`], and plays
//! each on a few copies of the battle with their own dice (the same dice for every candidate:
//! common random numbers, so candidates differ by the turn, not by luck), then [`DEPTH`] more
//! turns of both sides ([`NIGHT_DEPTH`] for a side free to wait under fog) with `greedy` (the
//! cheap playout policy: a turn is an activation, or one step of it where activations are paid
//! in steps, and a copy then plays on to the end of the activation under way, up to
//! [`MAX_STEPS`]), and keeps the candidate whose copies end worth
//! most (`planner/leaf.rs`): material (each unit's worth as the tactician weighs it, with the
//! conditions' leaders and takers raised), a copy the conditions decide worth the battle, and
//! the race for every tile objective still open (each taker's chance to seize, escape or
//! raze in time, against the clock; a side free to wait, material alone). Ties go to the
//! tactician's order. A turn the rules refuse on a copy is refused in the battle too: it is no
//! candidate.
//!
//! Where it searches is its reach ([`Planner::wide`]). The default, `planner`, searches while
//! at most [`FULL_UNITS`] units stand: without fog only where material decides the battle (a
//! side free to wait, [`free_to_wait`]: no tiles at stake, no clock against it), under fog as
//! `searcher` does (a side with no ground of its own to take, `takes_ground`); elsewhere it
//! plays the tactician's turn, move for move. Under fog the tactician alone was no stronger
//! than greedy for the Woodcutter's Night's raiders (attacker wins 54.0% against greedy
//! v greedy's 45.5%; searching, 61.0%: 400 games, seed 11, the watch of five it had then). `searcher` ([`Planner::wide`])
//! searches wherever it was measured no weaker: also for the side that stops a seizure, escape
//! or raze, past a dozen units, and without fog for the side that must take ground itself,
//! whose playouts play its own turns as the tactician does: with greedy for both, a taker's
//! copies lost its leader or refugees to greedy's blunders, and searching lost to the
//! tactician (`takes_ground`). Without fog it plays the enemy's turns as the tactician too
//! where the enemy must take ground (greedy's takers let a defender's copies win turns that
//! lose to the tactician's: [`Planner::choose`] gives the figures); elsewhere greedy plays the
//! enemy's. Without fog, where activations are paid in steps, the copies of any search (the
//! default's too) play the searching side's own turns as the tactician ([`paid_in_steps`]:
//! the Elder Hall's keepers were weaker than the tactician's with greedy's own steps, and are
//! stronger with the tactician's). A battle its copies meet again plays the
//! turn the tactician chose there before (`ai/memo.rs`), as greedy's do. Without fog, where tiles are at stake, it
//! searches only in contact (an enemy within [`CONTACT`] tiles of one of its units), else plays the
//! tactician's turn: searched far apart, its defender left the tactician's positions for turns
//! greedy playouts liked (attacker wins against it, `oc simulate --games 100 --seed 11`, the
//! tactician's defender in brackets: Grado Keep 60% [53], the Dunes 79% [70]; in contact only,
//! 40% and 46%; the Keep of Mulan 25% to 31% [61], the other seven training sides alike, the
//! five held-out scenarios' ten sides game for game the same). It saves little: far apart the
//! copies draw no dice and the race settles on one copy. It shifts the shipped scenarios' balance
//! (toward the defender where it stops the takers, the attacker where it takes ground) and
//! costs 5 to 25 times the tactician there: without fog the default stays the narrow reach until the scenarios are
//! measured and rebalanced for it.
//!
//! Under fog of war a copy is the battle as the side has seen it (`sighting/seen.rs`): the
//! enemies it does not spot stand where it last saw them (the tactician's memory), and those
//! never seen on a tile drawn by the copy's dice from those they could stand on (`Fog`), so the
//! search reads nothing its side has not seen, and plays against enemies in the dark (taken off
//! instead, the Woodcutter's Night's raiders won 58.8% against the searching watch; sampled,
//! 54.2%; the tactician's watch, 49.0%: 400 games, seed 11).
//!
//! Where one unit may act (an order by initiative, an activation
//! under way, the last unit of a side to act) the tactician ranks one turn. Where units act by
//! initiative, `searcher` weighs greedy's turn for the unit against it for a side that must
//! take ground (without fog, in contact: its copies play that side as the tactician);
//! otherwise there is no search.
//!
//! A budget bounds each decision ([`samples`]): a playout turn weighs every unit of the side to
//! act, and an exchange of a unit of several figures strikes once for each of them, so the
//! copies per candidate fall as the figures standing grow (a unit of one figure counts one),
//! from [`SAMPLES`] at a dozen to [`MIN_SAMPLES`]; the playout turns per decision are at most
//! `candidates * samples * DEPTH` ([`Planner::budget`]; where activations are paid in steps, a
//! copy plays on to the end of the activation under way, up to [`MAX_STEPS`]). A side free to
//! wait, with at most [`FULL_UNITS`] figures standing, weighs greedy's turn as one more candidate
//! where the tactician ranks it none of its three (under fog once it sees or remembers an enemy,
//! without fog in contact: [`weighs_greedy`]), and under fog plays [`NIGHT_COPIES`] times as many
//! copies ([`copies`]). Counted by units,
//! the elves of the shipped Narube battle of seed 003 (a dozen units of up to ten figures)
//! searched on 16 copies, and their searches took a third of the CPU of `oc fairness` on it
//! (100 games, seed 1, one thread: 6.28 s, 4.20 s by figures, the savages winning 43.0% and
//! 39.0%). The elves keep about half of what searching gains them, within the noise of 800
//! games (`oc tournament --as-written` on it, `--ais planner X --games 400`, seeds 11 and 23,
//! the armies of its rebalance for routing on the way: the tactician attacking them wins 49.0%
//! by units, 51.9% by figures, 54.9% against its own elves; greedy, seed 11, 35.0% and 37.2%,
//! 37.8% against its own).
//! The candidates race for it (`planner/race.rs`): copy `s` is played for every candidate still
//! in the race, and after `race::MIN_COPIES` (4) copies one trailing the leader by more than
//! `race::Z` (2) standard errors of its paired differences is dropped; the race stops when one is
//! left. Measured (`oc simulate scenarios/X.oc --games 20 --seed 1`, playout turns per searching
//! decision): Narube's 155.8 before the race, 91.9 with it; the Woodcutter's Night's 111.4 and
//! 67.3; CPU (`--quiet`, `/usr/bin/time`) 5.7 s and 4.2 s, 2.3 s and 1.5 s. Against `greedy`
//! (`oc tournament tests/fixtures/mirror/fields/F.oc --ais planner greedy --games 10 --seed 7`,
//! F the tuning fields `plain` and `hill`, `-ratings` and `-v06`) it won 73.3%, 72.0%, 81.2% and
//! 80.0% (72.5%, 70.5%, 83.3% and 77.0% before); a bar of one standard error instead of two
//! played 58.3 turns a decision at Narube but won 66.2%, 74.5%, 74.2% and 68.5%; a
//! race four wide won 71.2%, 72.0%, 81.2% and 78.0% for 100.4 turns: neither kept.
//! Nor was playing the leader only where it beats the tactician's turn by two standard errors
//! of their paired differences (else the tactician's turn; seen where a last monk ahead walked
//! to and fro in the dark, each candidate a hair ahead in turn): by night on fresh fields 400 to
//! 407 (`--ais planner greedy --games 10 --seed 7`) the default's wins, draws and losses went
//! from 2,319-649-552 to 2,211-675-634 (65.9% to 62.8%); in the Woodcutter's Night (400 games,
//! seed 11) the tactician's raiders won 49.0% against its watch, not 53.0%, but greedy's 40.0%,
//! not 32.0%. A lead within the copies' noise still carries what they found.
//!
//! The settings were measured by tournaments against `greedy` (`oc tournament --ais planner
//! greedy`, 100 seeds, docs/commands.md): deeper playouts (10 turns) lost strength, greedy
//! standing in for our own units; 16 samples beat 8 and 4.
//!
//! It never changes the battle it is asked about ([`Battle::fork`]), and its dice are its own,
//! drawn from a count of its decisions: one seed, one game, on any number of threads.

mod leaf;
mod race;

use crate::battle::{Battle, Controller, State, Turn};

use super::memo::Memo;
use super::mix;
use super::recall;
use super::sighting::seen::{self, Fog, Seen};
use super::tactician::Walks;
use super::{free_to_wait, Greedy, Tactician};
use leaf::Leaf;
use race::Race;

/// How many of the tactician's ranked turns are played ahead.
pub const WIDTH: usize = 3;
/// Copies of the battle each is played on, with at most [`FULL_UNITS`] figures standing.
pub const SAMPLES: u64 = 16;
/// The fewest copies each is played on, however many figures stand.
pub const MIN_SAMPLES: u64 = 2;
/// Turns played after the candidate turn (where activations are paid in steps, a turn is a
/// step, and a copy plays on to the end of the activation under way).
pub const DEPTH: usize = 4;
/// The most turns a copy plays after the candidate where activations are paid in steps.
pub const MAX_STEPS: usize = 4 * DEPTH;
/// `searcher` without fog, for a side not free to wait, searches only where an enemy stands
/// within this many tiles of one of its units (`in_contact`); farther apart it plays the
/// tactician's turn.
pub const CONTACT: i64 = 4;
/// The units standing (both sides) up to which the default searches, and the figures standing
/// up to which each candidate gets [`SAMPLES`] copies; beyond it the copies fall in proportion
/// (the ratings and v0.6 mirror matches field twelve units of one figure).
pub const FULL_UNITS: usize = 12;

/// Copies per candidate with `standing` figures on the board ([`figures_standing`]): [`SAMPLES`]
/// up to [`FULL_UNITS`], then in inverse proportion, never below [`MIN_SAMPLES`]. (A side free
/// to wait under fog gets more: [`copies`].)
pub fn samples(standing: usize) -> u64 {
    let full = SAMPLES * FULL_UNITS as u64;
    (full / standing.max(1) as u64).clamp(MIN_SAMPLES, SAMPLES)
}

/// How many times [`samples`] copies a candidate gets where a side free to wait ([`free_to_wait`])
/// searches under fog with at most [`FULL_UNITS`] figures standing ([`copies`]). Its copies
/// sample the enemies it has not seen, and twice as many of them played a little better on
/// mirror fields no AI was tuned on (`tests/fresh_fields.rs`: `oc tournament FILE --ais planner
/// greedy --games 10 --seed 7` on fresh fields by night, the default's wins of 3,520): seeds 101
/// to 108, where it was tried, 2,148 -> 2,195; seeds 1 to 8, measured before and after only,
/// 2,067 -> 2,158 (58.7% -> 61.3%, one side at 70% -> five of 32). By day twice the copies
/// gained nothing there (2,551 -> 2,539 on seeds 1 to 8), so by day a candidate keeps
/// [`samples`]. On the fixtures' fourteen night fields it is even (1,994 -> 1,989 wins of 3,120:
/// `tests/fixtures/mirror/fields/README.md`). Where tiles are at stake (the Woodcutter's Night)
/// it is unmeasured: [`samples`].
pub const NIGHT_COPIES: u64 = 2;

/// Turns a copy plays after the candidate where a side free to wait ([`free_to_wait`]) searches
/// under fog with at most [`FULL_UNITS`] figures standing ([`depth`]), in place of [`DEPTH`].
/// (Why is not measured. A likely reading: with six units a side, four turns are two
/// activations a side, and a copy ends before most of the enemy's units answer the candidate.)
/// Measured on mirror fields no AI was tuned on (`tests/fresh_fields.rs`: `oc tournament FILE
/// --ais planner greedy --games 10 --seed 7` on fresh fields by night, the default's wins, draws
/// and losses of 3,520), on seeds 101 to 108, where it was tried: 4 turns 2,346-655-519; 3,
/// 2,291-675-554; 6, 2,355-686-479; 8, 2,376-667-477; 10, 2,417-633-470; 14, 2,387-655-478; 20,
/// 2,413-610-497. Ten turns on half the copies (about the cost of four turns on all of them)
/// lost: 2,257-736-527; the copies are worth more than their length.
/// Held out, measured once: seeds 1 to 8, 2,272-728-520 -> 2,306-765-449; seeds 201 to 208,
/// 2,326-700-494 -> 2,375-679-466 (8, on seeds 1 to 8: 2,281-773-466). It costs about 3.4
/// times the CPU of a night tournament (`fresh-201-night-ratings`: 14.9 s -> 51.4 s of user
/// time). By day a copy keeps [`DEPTH`] (5 turns there were within noise of 4 on the fixtures:
/// `tests/fixtures/mirror/fields/README.md`, "The first mover by day"). Where tiles are at stake
/// under fog (the two shipped scenarios under fog: no side free to wait there) a copy plays
/// [`DEPTH`]: the shipped scenarios play as before.
pub const NIGHT_DEPTH: usize = 10;

/// The turns a copy plays after the candidate with `standing` figures on the board
/// ([`figures_standing`]), where the side to act is free to wait under fog (`waiting_in_fog`) or
/// not: [`NIGHT_DEPTH`] for a side waiting in fog with at most [`FULL_UNITS`] figures standing
/// (where it gets [`NIGHT_COPIES`] times the copies too: [`copies`]), else [`DEPTH`].
pub fn depth(standing: usize, waiting_in_fog: bool) -> usize {
    if searches_the_night(standing, waiting_in_fog) {
        NIGHT_DEPTH
    } else {
        DEPTH
    }
}

/// Whether a side waiting in fog or not (`waiting_in_fog`) searches with `standing` figures on the
/// board as a side free to wait by night does, where it gets [`NIGHT_COPIES`] times the copies
/// ([`copies`]) and plays each [`NIGHT_DEPTH`] turns deep ([`depth`]): waiting in fog with at
/// most [`FULL_UNITS`] figures standing.
fn searches_the_night(standing: usize, waiting_in_fog: bool) -> bool {
    waiting_in_fog && standing <= FULL_UNITS
}

/// Copies per candidate with `standing` figures on the board ([`figures_standing`]), where the
/// side to act is free to wait under fog (`waiting_in_fog`) or not: [`samples`], times
/// [`NIGHT_COPIES`] for a side waiting in fog with at most [`FULL_UNITS`] figures standing.
pub fn copies(standing: usize, waiting_in_fog: bool) -> u64 {
    let each = samples(standing);
    if searches_the_night(standing, waiting_in_fog) {
        each * NIGHT_COPIES
    } else {
        each
    }
}

/// The most candidate turns a decision weighs: the tactician's first [`WIDTH`], and where
/// `greedy_too`, greedy's turn too where it is none of them. A side free to wait weighs it
/// ([`weighs_greedy`]): greedy plays the copies' turns after the candidate, so its turn is the
/// one they go on with.
pub fn candidates(greedy_too: bool) -> usize {
    WIDTH + usize::from(greedy_too)
}

/// Whether the side to act in `b`, free to wait ([`free_to_wait`]) with at most [`FULL_UNITS`]
/// figures standing ([`figures_standing`]: where each candidate gets its full copies), weighs
/// greedy's turn among its candidates ([`candidates`]): under fog once it sees or remembers an
/// enemy (`knows`: while it knows none, the tactician's three walk up to its watch line, and
/// greedy's would walk past it), without fog while an enemy stands within [`CONTACT`] tiles of
/// one of its units.
///
/// Measured on mirror fields (`oc tournament FILE --ais planner greedy --games 10 --seed 7`, the
/// default's wins of 3,520 on fresh fields, `tests/fresh_fields.rs`; of 3,120 by night and 3,080
/// by day on the fixtures' fourteen files). By night, tried on seeds 101 to 108: 2,195 -> 2,309
/// (62.4% -> 65.6%; weighed at every search, 2,307; in place of the tactician's third, 2,302).
/// Held out: seeds 1 to 8, 2,158 -> 2,234 (sides at 70% five -> seven of 32); seeds 201 to 208,
/// 2,195 -> 2,275 (five -> seven); the fixtures' night files, 1,989 -> 2,094 (better on 13). By
/// day, weighed at every search: seeds 101 to 108, 2,416 -> 2,467, but seeds 1 to 8, 2,551 ->
/// 2,511. In contact only: seeds 101 to 108, 2,416 -> 2,519 (sides 14 -> 19); held out, seeds 1
/// to 8, 2,551 -> 2,632 (23 -> 27 of 32); seeds 201 to 208, 2,468 -> 2,562; the fixtures' day
/// files, 2,324 -> 2,414; the mirror matches of seeds 002 and 003 (200 games each), 147 ->
/// 148 and 100 -> 112. (Our own side's playout turns played as the tactician by day instead:
/// 2,500 on seeds 101 to 108, at about twice the cost; both, 2,504.) Where tiles are at stake
/// (the Woodcutter's Night's watch) it was no weaker against the tactician's raiders (their wins
/// 49.5% -> 46.2%, `oc simulate --games 400 --seed 11`) but cost a fifth more of `oc fairness`
/// there (15.4 s -> 18.8 s of 1,000 games, past the minute that command has for every shipped
/// scenario): not done. Past a dozen figures neither: the elves of the shipped Narube battle of
/// seed 003 (free to wait, searching once a dozen units or fewer stand, of up to ten figures
/// each) weighing it in contact held the savages to 39.6% of 1,000 fairness games, against
/// 47.8%, but `oc fairness scenarios --games 1000` took 65.3 s instead of 61.8 s.
/// (`free`: whether the side is free to wait; `figures`: [`figures_standing`]; `knows` is asked
/// under fog only.)
fn weighs_greedy(
    b: &Battle,
    side: oc_model::SideId,
    (free, figures): (bool, usize),
    fogged: bool,
    knows: impl FnOnce() -> bool,
) -> bool {
    free && figures <= FULL_UNITS && if fogged { knows() } else { in_contact(b, side) }
}

/// The figures of the units standing, both sides (a unit of one figure counts one; one of
/// several, its living figures: `Combatant::living`): what a decision's budget is counted by
/// ([`samples`]).
pub fn figures_standing(b: &Battle<'_>) -> usize {
    b.units.iter().filter(|u| u.state == State::Ready).map(|u| usize::try_from(u.living()).unwrap_or(0).max(1)).sum()
}

/// The planner, as the battle's [`Controller`]. Use one per battle.
#[derive(Debug, Default)]
pub struct Planner {
    tactician: Tactician,
    playout: Greedy,
    walks: Walks,
    decisions: u64,
    played: u64,
    /// Copies played out for the last decision, and those left in the middle of an activation.
    copies: u64,
    cut: u64,
    /// The candidate turns weighed for the last decision (0 where it did not search).
    weighed: usize,
    wide: bool,
    /// The playout policy for the turns of a side that must take ground (`searcher`'s: its
    /// own, and without fog the enemy's), and without fog where activations are paid in steps
    /// for the searching side's own ([`paid_in_steps`]).
    taking: Tactician,
    /// Its turns by the battle they were chosen for (`ai/memo.rs`).
    memo: Memo,
    /// The walks from the enemy's deployment zone its fog reads (`sighting/seen.rs`).
    fog_walks: seen::Walks,
    /// Whether its opening decisions are recalled from the thread's earlier battles
    /// (`ai/recall.rs`).
    opening: recall::Opening,
}

impl Planner {
    /// The default planner whose opening decisions are recalled from the thread's earlier
    /// battles with the same engine where they were made in the same battle with the same mind
    /// (`ai/recall.rs`): the same turns, sooner.
    pub fn recalling() -> Planner {
        Planner { opening: recall::Opening::on(), ..Planner::default() }
    }

    /// `searcher`: the planner searching wherever it was measured no weaker (also for the
    /// side that stops the enemy taking ground, under fog, past a dozen units, and without fog
    /// for the side that takes it).
    pub fn wide() -> Planner {
        Planner { wide: true, ..Planner::default() }
    }

    /// `searcher`, its opening decisions recalled as [`Planner::recalling`]'s are. What it
    /// carries between decisions beyond the default's is what it works out, not what it
    /// remembers: its taker's prices are its own tactician's (shared before each of the taker's
    /// choices), and the taker plays only without fog (no memory), through a memo of turns by
    /// battle (`ai/memo.rs`).
    pub fn wide_recalling() -> Planner {
        Planner { wide: true, opening: recall::Opening::on(), ..Planner::default() }
    }

    /// Playout turns played for the last decision (0 where it did not search).
    pub fn playout_turns(&self) -> u64 {
        self.played
    }

    /// The candidate turns the last decision weighed: 0 where it did not search, else up to
    /// [`candidates`].
    pub fn candidates_weighed(&self) -> usize {
        self.weighed
    }

    /// Copies of the battle played out for the last decision, and how many of them were left
    /// in the middle of an activation (none, unless one reached [`MAX_STEPS`], had no turn to
    /// play, or a refused turn's stand-in was refused too).
    pub fn playout_copies(&self) -> (u64, u64) {
        (self.copies, self.cut)
    }

    /// The most playout turns one decision may play with `standing` figures on the board (both
    /// sides: [`figures_standing`]), for a side waiting in fog or not ([`copies`]) that weighs
    /// greedy's turn or not ([`candidates`]), where every turn is an activation: its
    /// [`Planner::copies_budget`] times its [`depth`]. Where activations are paid in steps, a copy
    /// may play up to [`MAX_STEPS`] (to finish the activation under way).
    pub fn budget(standing: usize, waiting_in_fog: bool, greedy_too: bool) -> u64 {
        Planner::copies_budget(standing, waiting_in_fog, greedy_too) * depth(standing, waiting_in_fog) as u64
    }

    /// The most copies of the battle one decision plays out with `standing` figures on the board
    /// ([`figures_standing`]): `candidates(greedy_too) * copies(standing, waiting_in_fog)`
    /// ([`Planner::playout_copies`]).
    pub fn copies_budget(standing: usize, waiting_in_fog: bool, greedy_too: bool) -> u64 {
        candidates(greedy_too) as u64 * copies(standing, waiting_in_fog)
    }
}

impl Controller for Planner {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        if !self.opening.asks(b) {
            return self.decide(b);
        }
        // The decision count before it: the count its look-ahead dice are seeded by, once made.
        let kind = if self.wide { recall::SEARCHER } else { recall::PLANNER };
        let mind = self.tactician.mind(b, kind, self.decisions);
        let (t, [played, copies, cut, weighed], recalled) = recall::or_decide(b, mind, || {
            let t = self.decide(b)?;
            Some((t, [self.played, self.copies, self.cut, self.weighed as u64]))
        })?;
        if recalled {
            // As the decision leaves it: counted, with the playouts and candidates it reported.
            self.decisions += 1;
            (self.played, self.copies, self.cut) = (played, copies, cut);
            self.weighed = usize::try_from(weighed).unwrap_or(usize::MAX);
        }
        Some(t)
    }
}

impl Planner {
    /// The decision in `b`, worked out.
    fn decide(&mut self, b: &Battle<'_>) -> Option<Turn> {
        let side = b.to_act;
        let standing = b.units.iter().filter(|u| u.state == State::Ready).count();
        let fogged = b.sight(side).fogged();
        let free = free_to_wait(&b.scenario, side);
        // Where `searcher` searches for a side that must take ground, its playouts play that
        // side's turns as the tactician does (`takes_ground`).
        let taking = self.wide && takes_ground(b, side);
        // Without fog, `searcher`'s playouts play the enemy's turns as the tactician does too
        // where the enemy must take ground: with greedy for it, a defender's copies were won
        // against greedy's takers (who win 0-30% against the tactician where the tactician's
        // win 43-55%), and it left the tactician's positions for turns that beat those
        // (attacker wins against it, tactician attacking, 400 games a cell, seed 1: Hamill
        // Canyon 68.5% -> 55.5%, Serafew 52.0% -> 49.8%, Grado Keep 44.2% -> 35.5%, Narube
        // 36.0% -> 14.8%; the Dunes 42.8% -> 58.5%, its gain there lost; the tactician's
        // defender 55.0%, 43.8%, 47.0%, 33.5%, 60.5%).
        let enemy_taking = self.wide && !fogged && takes_ground(b, side.other());
        // Without fog, where activations are paid in steps (a resource each step spends), the
        // copies play its own turns as the tactician does, the default's too ([`paid_in_steps`]).
        let own_stepped = !fogged && paid_in_steps(b);
        let searches = if self.wide {
            // Without fog and with tiles at stake, only in contact (`CONTACT`); under fog it
            // cannot read where unseen enemies stand, and a side free to wait searches as the
            // default does (unmeasured there).
            !(taking && fogged) && (fogged || free || in_contact(b, side))
        } else if fogged {
            !takes_ground(b, side) && standing <= FULL_UNITS
        } else {
            free && standing <= FULL_UNITS
        };
        // The first WIDTH where it searches (at least two to search), else the first.
        let mut ranked = self.tactician.ranked(b, if searches { WIDTH } else { 1 })?;
        self.decisions += 1;
        self.played = 0;
        (self.copies, self.cut, self.weighed) = (0, 0, 0);
        // Where units act by initiative, one unit may act: the tactician ranks one turn. For a
        // side whose copies play its own turns as the tactician (`taking`), greedy's turn for
        // the unit is the other candidate (not for an answer to a declared attack, which follows
        // its rules). Measured (`oc tournament --as-written FILE --ais searcher tactician`,
        // seed 1, the attacker's wins, the tactician's own in brackets): Taizel's company, 400
        // games a cell, 61.8% [44.0%]. Not for the side that stops it, whose copies play it with
        // greedy (greedy's turn now is the one they continue): Taizel's guard let the company
        // win 71.0% (45.0% before; 100 games). Not where one unit may act otherwise: within an
        // activation of steps under way (its first step was searched among the side's units),
        // the Elder Hall's raiders won 44.2% (49.2% without; [40.2%]); as the last unit of its
        // side to act this round, the Dunes' refugees 66.8% (77.0%; [60.5%]) and the Queen's
        // Hall's raiders 62.0% (57.8%; [54.8%]).
        let one_at_a_time = matches!(b.engine.rules.ruleset.turn.order, oc_model::Order::By { .. });
        if searches && taking && one_at_a_time && ranked.len() == 1 && b.answering().is_none() {
            let alt = self.playout.choose(b).filter(|alt| ranked.first().is_some_and(|(_, t)| t.unit == alt.unit && t != alt));
            ranked.extend(alt.map(|alt| (0.0, alt)));
        }
        // A side free to wait weighs greedy's turn too (under fog once it sees or remembers an
        // enemy, without fog in contact), where the tactician ranks it none of its first
        // [`WIDTH`] ([`weighs_greedy`]); not where one unit may act by initiative (no search
        // there: unmeasured).
        // (The figures standing are counted where it searches only: its budget reads them too.)
        let figures = if searches { figures_standing(b) } else { 0 };
        let knows = || self.tactician.memory(side).iter().any(|s| s.as_ref().is_some_and(|s| !s.lost));
        let greedy_too = searches && !one_at_a_time && weighs_greedy(b, side, (free, figures), fogged, knows);
        if greedy_too {
            // (The tactician ranked at most `WIDTH`: greedy's is the fourth.)
            ranked.extend(self.playout.choose(b).filter(|alt| !ranked.iter().any(|(_, t)| t == alt)).map(|alt| (0.0, alt)));
        }
        if ranked.len() < 2 || !searches {
            return ranked.into_iter().next().map(|(_, t)| t);
        }
        let (samples, depth) = (copies(figures, fogged && free), depth(figures, fogged && free));
        // The most turns a copy plays: `MAX_STEPS` where activations are paid in steps, and never
        // fewer than `depth`.
        let most = MAX_STEPS.max(depth);
        let prices = self.tactician.prices(b).to_vec();
        // The taker weighs units as the planner's own tactician weighs them (their items when
        // the battle began), not as those of the copy it first plays on: shared before each of
        // its choices (below).
        let memory = self.tactician.memory(side).to_vec();
        let fog = Fog::new(b, side, &memory, &mut self.fog_walks);
        let first = Seen::fork(b, &fog, 0, None);
        let leaf = Leaf::new(&first.copy, side, &prices, &memory, &mut self.walks);
        // Each copy is forked into the last one done with (its buffers used again).
        let mut spare = Some(first.copy);
        let fallback = ranked.first().map(|(_, t)| t.clone());
        let turns: Vec<Turn> = ranked.into_iter().take(candidates(greedy_too)).map(|(_, t)| t).collect();
        self.weighed = turns.len();
        let mut race = Race::new(turns.len());
        // The turns a copy played after the candidate (as played: a refused one's stand-in).
        let mut line: Vec<Turn> = Vec::with_capacity(most);
        for s in 0..samples {
            let seed = mix(self.decisions.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ s);
            for i in race.running() {
                let Some(turn) = turns.get(i) else { continue };
                // Nothing left to chance: every later copy plays the same.
                if let Some(v) = race.settled(i) {
                    race.push(i, v, true);
                    continue;
                }
                let mut seen = Seen::fork(b, &fog, seed, spare.take());
                line.clear();
                // The candidate. Without fog a turn refused on a copy is refused in the battle
                // too: no candidate (the copy is spoiled, and forked into again). Under fog the
                // copy holds enemies where the side last saw them or set them by its seed, which
                // may stand in the turn's way here and not in the battle: the copy plays it as a
                // whole game does (`Battle::play_turn`), the unit's stand-in where it is refused.
                // (Refused on one copy, a candidate was dropped, its copies' values with it: a
                // walk into the dark, the likelier the more copies, most often greedy's.)
                let stood_in = if fogged {
                    seen.copy.play_turn_as(turn.clone()).ok()
                } else {
                    seen.copy.turn_or_spoil(turn.clone()).ok().map(|()| None)
                };
                let Some(stood_in) = stood_in else {
                    race.refuse(i);
                    spare = Some(seen.copy);
                    continue;
                };
                // `depth` turns, then on to the end of the activation under way: where activations
                // are paid in steps, a copy cut after four steps was valued in the middle of an
                // activation, mostly the enemy's, before its last steps (h143: a reply of our own
                // after the enemy's in about a fifth of the searcher's copies at the Elder Hall).
                // (`line` holds every turn the copy played after the candidate.)
                while (line.len() < depth || seen.copy.active.is_some()) && line.len() < most {
                    if seen.copy.outcome.is_some() {
                        break;
                    }
                    let ours = seen.copy.to_act == side;
                    let tactician = if ours { taking || own_stepped } else { enemy_taking };
                    let t = if tactician {
                        // Its prices shared again for each choice: where a unit divided in a
                        // copy (more units than priced), the taker prices that copy's units
                        // itself (`Tactician::prices`), and a later copy must not find them
                        // kept (its turn a function of the copy and the shared prices alone,
                        // what its memo and the book of openings take it to be; h146).
                        self.memo.turn(&seen.copy, |c| {
                            self.taking.share_prices(&prices);
                            self.taking.choose(c)
                        })
                    } else {
                        self.playout.choose(&seen.copy)
                    };
                    let Some(t) = t else { break };
                    self.played += 1;
                    // Played as a whole game plays it (`Battle::play_turn`). A unit under a
                    // status (one may forbid its attack: most turns refused) plays it with a
                    // copy of the units to put back; any other without: where the rules refuse
                    // it, the copy is made again and played up to it (the same dice, the same
                    // battle), and the unit's stand-in (`Battle::instead`) is played there.
                    let played = 'play: {
                        if seen.copy.units.get(t.unit).is_some_and(|u| !u.statuses.is_empty()) {
                            if seen.copy.turn(t.clone()).is_ok() {
                                break 'play Some(t);
                            }
                            let instead = seen.copy.instead(t.unit);
                            break 'play seen.copy.turn(instead.clone()).is_ok().then_some(instead);
                        }
                        if seen.copy.turn_or_spoil(t.clone()).is_ok() {
                            break 'play Some(t);
                        }
                        let left = seen.copy.left();
                        seen = Seen::fork(b, &fog, seed, Some(seen.copy));
                        // The candidate as it was played: itself, or refused and its stand-in.
                        let opened = match &stood_in {
                            None => seen.copy.turn_or_spoil(turn.clone()).is_ok(),
                            Some(_) => seen.copy.play_turn_as(turn.clone()).ok().as_ref() == Some(&stood_in),
                        };
                        let again = opened && line.iter().all(|p| seen.copy.turn_or_spoil(p.clone()).is_ok());
                        debug_assert!(again, "a copy made again plays as before");
                        seen.copy.leave(left);
                        let instead = seen.copy.instead(t.unit);
                        (again && seen.copy.turn(instead.clone()).is_ok()).then_some(instead)
                    };
                    let Some(p) = played else { break };
                    line.push(p);
                }
                self.copies += 1;
                self.cut += u64::from(seen.copy.active.is_some() && seen.copy.outcome.is_none());
                let v = leaf.value(&seen, &mut self.walks);
                // Nothing left to chance where the copy drew no dice and set no enemy by its
                // seed: every later copy plays the same. (Under fog, copies that set enemies
                // never seen differ by where they set them, dice or none: a copy whose enemies
                // were set far off and drew nothing was every copy's value, and the race,
                // finding no spread, was decided by that one setting.)
                race.push(i, v, seen.copy.drawn() == 0 && !fog.places());
                spare = Some(seen.copy);
            }
            if race.left() <= 1 {
                break;
            }
            race.settle();
        }
        race.leader().and_then(|i| turns.get(i).cloned()).or(fallback)
    }
}

/// Whether `side` must take ground to win (a `seize`, `escape` or `raze` of its own, the race's
/// objectives). The default plays the tactician's turn for it; `searcher` searches for it
/// without fog, its playouts playing its own turns as the tactician does. Measured (attacker
/// wins, searcher against the tactician, `oc simulate --attacker-ai searcher --defender-ai
/// tactician --games 100 --seed 11`): with greedy playouts for both sides, searching lost on
/// Through the Dunes (46% against the tactician's 70%) and gained little elsewhere (Grado Keep
/// 55/53, the Queen's Hall 50/55, the Keep of Mulan 61/61, the Ferry 26/25), and leaving the
/// tactician's turn only for a candidate 2 standard errors better did no better (41% on the
/// Dunes): a bias, not noise. Greedy plays a taker badly (attacking the tactician, `--games
/// 100`: Grado Keep 45%, 50 games lost by its leader's rout; the Dunes 6%, 71 lost by three
/// refugees routed), so its playouts value a taker's candidates by the blunders after them.
/// With the tactician's turns for the taker: 61, 89, 63, 85 and 39%; with playouts of 2 turns,
/// 59, 81, 68, 80, 33; of 6, 54, 73, 71, 70. Held out from that choice: Hamill Canyon 43/53,
/// Rausten Court 61/70, Serafew 60/55, Taizel 48/48, Caer Pelyn 53/40 (no side weaker by two
/// standard errors). Searching for the side that stops them, or that routs,
/// gained with greedy playouts.
fn takes_ground(b: &Battle, side: oc_model::SideId) -> bool {
    super::tactician::race::objectives(b).iter().any(|o| o.side == side)
}

/// Whether activations are paid in steps from a resource (`turn { spend R }`: seeds 002 and
/// 004). There, without fog, the copies of a search play the searching side's own turns as the
/// tactician does (the default's, where it searches, and `searcher`'s), not greedy's. (Why greedy's own steps misled the search there is not
/// measured; a likely reading: greedy takes each step's best blow or move now, spending what
/// the side's later steps and answers are paid from, so the copies valued the candidates by
/// turns the tactician does not play.) Measured:
/// - `searcher`'s keepers (`oc simulate FILE --games 400 --seed 11 --attacker-ai tactician
///   --defender-ai searcher`, attacker wins; greedy's own steps -> the tactician's; the
///   tactician's keepers in brackets): the Elder Hall 49.2% -> 30.8% [40.8%], weaker than the
///   tactician's keepers -> stronger. Held out, the Elder Hall's armies and conditions on four
///   other maps (seize its throne, the rounds of its scenario): Grado Keep 34.5% -> 23.8%
///   [25.2%], the Keep of Mulan 37.5% -> 24.5% [28.2%], Jehanna Hall 45.0% -> 36.2% [48.5%],
///   Rausten Court 41.0% -> 25.2% [35.0%].
/// - The default in seed 002's mirror matches (`oc tournament FILE --ais planner greedy --games
///   25 --seed 7`, its wins of 500): the fixture (`tests/fixtures/mirror/`) 382 -> 367;
///   held out, its rosters on fresh fields 400-403 (`tests/fresh_fields.rs`) 408 -> 417, 370 ->
///   430, 402 -> 430, 390 -> 405 (1,580 -> 1,682 of 2,000; moving first, 61.5% -> 73.0%), for
///   about twice the CPU there (`fresh-401`, 10 games: 9.6 s -> 18.2 s).
/// - Where no steps are paid, `searcher`'s keepers playing their own turns as the tactician
///   lost (`oc tournament --as-written scenarios --ais searcher tactician --games 400 --seed
///   11`, the tactician attacking): Grado Keep 38.2% -> 44.0% [48.5%], the Holy Court 43.2% ->
///   55.2% [65.5%], the Dunes 51.7% -> 57.5% [66.2%], the other defenders within two points.
///   Under seed 004's initiative the same games were played: `searcher` at the Town Square
///   (400 games a cell), the default in its mirror fixture and on fresh field 400 (200 each).
fn paid_in_steps(b: &Battle) -> bool {
    b.engine.rules.ruleset.turn.spend.is_some()
}

/// Whether an enemy stands within [`CONTACT`] tiles (steps, terrain not counted) of one of
/// `side`'s units. Without fog only: it reads every enemy.
fn in_contact(b: &Battle, side: oc_model::SideId) -> bool {
    let standing = |s: bool| b.units.iter().filter(move |u| u.state == State::Ready && (u.side == side) == s);
    standing(true).any(|u| standing(false).any(|e| crate::battle::distance(u.pos, e.pos) <= CONTACT))
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests;
