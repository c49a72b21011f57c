//! The walk of a plain exchange: one whose states differ only in hit points. Without reactions
//! (nothing spent, no riposte) and, on a side that strikes, without triggers on `hit`, `crit` or
//! `miss` (no status laid, no hit points healed mid-exchange) or several attack forms, where none
//! of `strikes`, `counter` and `follow_up` read after the first strike reads hit points, the
//! strikers come in a fixed order (attack, counter, follow-up), cut short only by a rout. That is
//! most exchanges of the first two seeds (not a strike trigger's), and seed 003's lone attacks.
//!
//! The walk is then over pairs of hit points: no state copied, hashed or compared beyond its two
//! numbers. A side's outcomes are worked out once where that read no hit points (most strikes),
//! else once for each pair of hit points a strike is made at (damage read from the foe's). It adds the same weights in the same order as [`Exchange::walk`]'s general
//! loop (each level's states in the order first reached, each state's outcomes in theirs), so
//! its forecasts are the same bits; `tests::plain_walks_equal_the_general_walk` holds it to that
//! on every matchup of every built-in ruleset.

use smallvec::SmallVec;

use super::*;

/// The most strikes a plain walk follows (an attack, a counter and a follow-up of at most
/// `MAX_STRIKES` each); a longer exchange is walked by the general loop.
pub(super) const MAX_PLAIN_STRIKES: usize = 3 * MAX_STRIKES as usize;

/// The room a level's states start with: most levels have fewer.
const ROOM: usize = 16;

/// The most pairs of hit points whose outcomes a plain walk finds in a table by the pair
/// (`Exchange::walk_plain`); a walk from more finds them in a map.
const KNOWN_PAIRS: usize = 1 << 12;

impl Exchange<'_> {
    /// The final hit points with their chances, in the order first reached, or `None` where the
    /// exchange is not plain (then the general walk goes on with what was worked out here); and
    /// where `planning`, all the walk read (its plan's part).
    pub(super) fn walk_plain(
        &self,
        initial: &State,
        cache: &mut OutcomeCache,
        planning: bool,
    ) -> Option<(Finals, Option<Plain>)> {
        if !self.engine.ir.strategy.plain_walks
            || !self.engine.reactions.is_empty()
            || self.engine.ir.settles
            || !self.at_start(initial)
            // A felled side still strikes in a simultaneous exchange: not cut short by a rout.
            || self.order.get().simultaneous
        {
            return None;
        }
        // The strikers in order, from the flags as the exchange begins. A flag read on the way
        // that read hit points (remembered with them, `Exchange::flag`) may differ in a later
        // state: then the walk is not plain. The first phase's flags (`strikes` reading a unit's
        // figures) were read before any strike, at the hit points every walk begins with: set
        // aside while the strikers are found, so a flag asked again is read again.
        let before = self.flags.take();
        let mut strikers = [0u8; MAX_PLAIN_STRIKES];
        let mut len = 0;
        let mut fits = true;
        let mut phase = initial.phase;
        while let Some(side) = phase.striker() {
            let Some(slot) = strikers.get_mut(len) else {
                fits = false;
                break;
            };
            *slot = side as u8;
            len += 1;
            phase = self.next_phase(initial, phase);
        }
        let read_hp = {
            let mut flags = self.flags.borrow_mut();
            let read = flags.iter().any(|f| f.hp.is_some());
            let during = std::mem::replace(&mut *flags, before);
            flags.extend(during);
            read
        };
        if !fits || read_hp {
            return None;
        }
        let strikers = strikers.get(..len)?;
        // A side that strikes: with several attack forms each strike's unit is its form's; a
        // trigger on its strike lays statuses or heals. (A side that never strikes, a target
        // that does not strike back, may have either.)
        for side in [0, 1] {
            if strikers.contains(&(side as u8))
                && (self.forms.get(side).is_none_or(|f| !f.is_empty())
                    || self.base.get(side).is_none_or(|u| u.fires_on_strike(false)))
            {
                return None;
            }
        }
        // Each side's outcomes for every amount of hit points, where working them out read none;
        // else worked out for each state's (`Exchange::outcomes_memo` keeps them by state).
        let mut fixed: [Option<Arc<Outcomes>>; 2] = [None, None];
        for side in [0, 1] {
            if strikers.contains(&(side as u8)) {
                let o = self.outcomes_memo(initial, side, cache);
                if self.memos.get(side)?.outcomes.get()?.is_some() {
                    *fixed.get_mut(side)? = Some(o);
                }
            }
        }
        // The states of this walk differ only in hit points: what a side's strike comes to at a
        // pair of them is asked again at every level that reaches the pair, found here by the
        // pair (no state copied or hashed, as `outcomes_memo`'s table keys them).
        // Hit points only fall in a plain walk: a pair lies between (1, 1) and where the walk
        // began, so it is found in a table by the pair where that is small (made as the first
        // is asked: most walks ask none), else in a map.
        let mut state = initial.clone();
        let mut known: FastMap<([i64; 2], usize), Arc<Outcomes>> = FastMap::default();
        let [a, d] = initial.hp;
        let width = d.saturating_add(1);
        let pairs = usize::try_from(a.saturating_add(1).saturating_mul(width)).ok().filter(|n| *n <= KNOWN_PAIRS);
        // By pair and side, the place of its outcomes in `found`, plus one (0: not yet asked).
        let (mut places, mut found): (Vec<u32>, Vec<Arc<Outcomes>>) = (Vec::new(), Vec::new());
        // Outcomes kept beyond the exchange are found there again: this walk's own table is
        // not asked (nor filled) too.
        let kept = self.across.is_some();
        let done = run(initial.hp, strikers, fixed.each_ref().map(|o| o.as_deref()), &mut |side, hp| {
            let mut work_out = |hp: [i64; 2]| {
                state.hp = hp;
                if kept {
                    self.outcomes_kept(&state, side, None)
                } else {
                    self.outcomes_memo(&state, side, cache)
                }
            };
            if places.is_empty() {
                places.resize(2 * pairs.unwrap_or(0), 0);
            }
            let inside = (hp[0] as u64) <= (a as u64) && (hp[1] as u64) <= (d as u64);
            let at = hp[0].wrapping_mul(width).wrapping_add(hp[1]).wrapping_mul(2).wrapping_add(side as i64);
            match places.get_mut(at as usize).filter(|_| inside) {
                Some(place) => {
                    if let Some(o) = place.checked_sub(1).and_then(|i| found.get(i as usize)) {
                        return o.clone();
                    }
                    let o = work_out(hp);
                    *place = u32::try_from(found.len() + 1).unwrap_or(0);
                    found.push(o.clone());
                    o
                }
                None => known.entry((hp, side)).or_insert_with(|| work_out(hp)).clone(),
            }
        })?;
        Some((done, planning.then_some(Plain)))
    }
}

/// The final hit points with their chances, in the order first reached.
pub(super) type Finals = Vec<([i64; 2], f64)>;

/// Said of a walk that was plain, where asked (`planning`): its forecast may be kept as the
/// matchup's plan (`plan.rs`).
pub(super) struct Plain;

/// The walk of a plain exchange from hit points `from`, `strikers` striking in turn, each with
/// its side's outcomes (`fixed`, else those `at_hp` works out for each pair of hit points): the
/// final hit points with their chances, in the order first reached.
pub(super) fn run(
    from: [i64; 2],
    strikers: &[u8],
    fixed: [Option<&Outcomes>; 2],
    at_hp: &mut dyn FnMut(usize, [i64; 2]) -> Arc<Outcomes>,
) -> Option<Finals> {
    let levels = u32::try_from(strikers.len()).ok()?;
    SLOTS.with(|cell| {
        // Busy only if a walk ran inside a walk (none does): then the states are searched,
        // in lists of their own.
        let mut scratch = cell.try_borrow_mut().ok();
        let (mut frontier, next_list) = match scratch.as_deref_mut() {
            Some(s) => (std::mem::take(&mut s.frontier), std::mem::take(&mut s.next)),
            None => (Vec::new(), Vec::new()),
        };
        let (frontier, next_list, done) = {
            let room = scratch.as_deref_mut().and_then(|s| s.room(from, levels));
            let (base, slots) = room.unwrap_or((0, &mut []));
            let half = slots.len() / 2;
            let (next_slots, done_slots) = slots.split_at_mut(half);
            // Each level's states, and the next level's: their lists' room is kept from walk to
            // walk.
            let mut next = Grid::new(from, next_slots, base, next_list);
            frontier.clear();
            frontier.push((from, 1.0));
            let mut done = Grid::new(from, done_slots, base, Vec::with_capacity(ROOM));
            for (level, &side) in (1..).zip(strikers) {
                let side = side as usize;
                next.restart(base.wrapping_add(level));
                match fixed.get(side).copied().flatten() {
                    Some(outcomes) => strike_level(&mut next, &mut done, &frontier, side, outcomes),
                    None => {
                        for &(hp, p) in &frontier {
                            // A rout ends the exchange (`Exchange::next_phase`).
                            if hp[0] <= 0 || hp[1] <= 0 {
                                done.add(hp, p);
                                continue;
                            }
                            strike_apart(&mut next, hp, p, side, &at_hp(side, hp));
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next.list);
            }
            for &(hp, p) in &frontier {
                done.add(hp, p);
            }
            (frontier, next.list, done.list)
        };
        if let Some(s) = scratch.as_deref_mut() {
            s.frontier = frontier;
            s.next = next_list;
        }
        Some(done)
    })
}

thread_local! {
    /// The tables a plain walk finds its states in, reused from walk to walk.
    static SLOTS: std::cell::RefCell<Slots> =
        const { std::cell::RefCell::new(Slots { stamp: 0, slots: Vec::new(), frontier: Vec::new(), next: Vec::new() }) };
}

/// The most pairs of hit points a walk's tables cover (each pair two entries of 8 bytes); an
/// exchange with more searches its states.
const MAX_PAIRS: usize = 1 << 16;

/// Where each pair of hit points sits in a level's list, by the pair: entries stamped with the
/// level they were set at, so the table is never cleared between levels or walks.
struct Slots {
    stamp: u32,
    slots: Vec<(u32, u32)>,
    /// A level's states and the next's, kept for their room.
    frontier: Vec<([i64; 2], f64)>,
    next: Vec<([i64; 2], f64)>,
}

impl Slots {
    /// Room for a walk from `start` over `levels` strikes: the first stamp of its own (the final
    /// states'; each level's next), and two tables (the next level's, the final states').
    fn room(&mut self, start: [i64; 2], levels: u32) -> Option<(u32, &mut [(u32, u32)])> {
        let side = |hp: i64| usize::try_from(hp).ok().and_then(|h| h.checked_add(1));
        let pairs = side(start[0])?.checked_mul(side(start[1])?).filter(|n| *n <= MAX_PAIRS)?;
        if self.slots.len() < 2 * pairs {
            self.slots.resize(2 * pairs, (0, 0));
        }
        // Stamps run out after 4 billion levels: then every entry is forgotten.
        let base = match self.stamp.checked_add(levels + 1) {
            Some(end) => std::mem::replace(&mut self.stamp, end).wrapping_add(1),
            None => {
                self.slots.fill((0, 0));
                self.stamp = levels + 1;
                1
            }
        };
        Some((base, self.slots.get_mut(..2 * pairs)?))
    }
}

/// Weights by pair of hit points, in the order first added. Hit points only fall in a plain
/// walk, so each pair lies between (0, 0) and where the exchange began: its place in the list is
/// found in a table by the pair (`Slots`), else by a search.
struct Grid<'s> {
    list: Vec<([i64; 2], f64)>,
    slots: &'s mut [(u32, u32)],
    stamp: u32,
    width: i64,
    start: [i64; 2],
}

impl<'s> Grid<'s> {
    fn new(start: [i64; 2], slots: &'s mut [(u32, u32)], stamp: u32, list: Vec<([i64; 2], f64)>) -> Grid<'s> {
        Grid { list, slots, stamp, width: start[1].saturating_add(1), start }
    }

    /// Empty, under a new stamp.
    fn restart(&mut self, stamp: u32) {
        self.list.clear();
        self.stamp = stamp;
    }

    #[inline(always)]
    fn add(&mut self, hp: [i64; 2], weight: f64) {
        add_to(&mut self.list, self.slots, self.stamp, self.width, self.start, hp, weight);
    }
}

/// [`Grid::add`] on the grid's parts, held apart (a strike's loop keeps them in registers, not
/// read again through the grid at every outcome).
#[inline(always)]
fn add_to(
    list: &mut Vec<([i64; 2], f64)>,
    slots: &mut [(u32, u32)],
    stamp: u32,
    width: i64,
    start: [i64; 2],
    hp: [i64; 2],
    weight: f64,
) -> usize {
    // Inside the table where each side's hit points lie between 0 and where the walk began
    // (compared unsigned: a negative amount is past any); its tables hold every such pair
    // (`Slots::room`), else they are empty.
    let inside = (hp[0] as u64) <= (start[0] as u64) && (hp[1] as u64) <= (start[1] as u64);
    let slot = if inside { slots.get_mut(hp[0].wrapping_mul(width).wrapping_add(hp[1]) as usize) } else { None };
    let found = match slot {
        Some(s) if s.0 == stamp => Some(s.1 as usize),
        Some(s) => {
            *s = (stamp, u32::try_from(list.len()).unwrap_or(u32::MAX));
            None
        }
        None => list.iter().position(|(k, _)| *k == hp),
    };
    match found.filter(|i| *i < list.len()) {
        Some(i) => {
            if let Some((_, w)) = list.get_mut(i) {
                *w += weight;
            }
            i
        }
        None => {
            list.push((hp, weight));
            list.len() - 1
        }
    }
}

// The strike loops below are not inlined into the walk: in a frame of their own they keep the
// grid's parts in registers (inlined, they were read from the stack at every outcome).

/// A level's strikes, all by `side` with the same `outcomes`: each state of `frontier` in turn,
/// into `next`, or into `done` where a side is routed (a rout ends the exchange,
/// `Exchange::next_phase`).
#[inline(never)]
fn strike_level(next: &mut Grid, done: &mut Grid, frontier: &[([i64; 2], f64)], side: usize, outcomes: &Outcomes) {
    for &(hp, p) in frontier {
        if hp[0] <= 0 || hp[1] <= 0 {
            done.add(hp, p);
            continue;
        }
        strike(next, hp, p, side, outcomes);
    }
}

/// [`strike`] for one state, its outcomes worked out for its hit points.
#[inline(never)]
fn strike_apart(next: &mut Grid, hp: [i64; 2], p: f64, side: usize, outcomes: &Outcomes) {
    strike(next, hp, p, side, outcomes);
}

/// The states a strike by `side` leads to from hit points `hp` (with chance `p`, neither side
/// routed), into `next`: each outcome's in turn, as [`Exchange::apply`] leaves them where no
/// trigger runs (the damage [`dealt`], held at 0).
#[inline(always)]
fn strike(next: &mut Grid, hp: [i64; 2], p: f64, side: usize, outcomes: &Outcomes) {
    if outcomes.list.len() > FEW_OUTCOMES {
        return strike_many(next, hp, p, side, outcomes);
    }
    let faces = outcomes.den;
    let Grid { list, slots, stamp, width, start } = next;
    let (stamp, width, start) = (*stamp, *width, *start);
    let first = side == 0;
    for &(count, o) in outcomes.list.iter() {
        // `dealt`, held at 0, without indexing by side: a hit's or a backfire's damage on the
        // side it falls on (the striker's on a backfire); the other side's is as it was.
        let damage = if o.hit || o.backfire { o.damage } else { 0 };
        let after = if first == o.backfire {
            [hp[0].saturating_sub(damage).max(0), hp[1].max(0)]
        } else {
            [hp[0].max(0), hp[1].saturating_sub(damage).max(0)]
        };
        add_to(list, slots, stamp, width, start, after, p * count / faces);
    }
}

/// [`strike`] with many outcomes (damage dice), by the strike's [`Row`] from these hit points:
/// the states it leads to are placed in the level's list first, in the order first reached (a
/// state not there yet with weight 0.0, which adding a weight to leaves that weight: weights are
/// never -0.0), then each state's outcomes' weights are added to its own in their order, as
/// adding each outcome's to its state one by one does (no other outcome adds to that state). The
/// same states, the same sums in the same order: the same bits.
#[inline(always)]
fn strike_many(next: &mut Grid, hp: [i64; 2], p: f64, side: usize, outcomes: &Outcomes) {
    let faces = outcomes.den;
    let Grid { list, slots, stamp, width, start } = next;
    let (stamp, width, start) = (*stamp, *width, *start);
    let done = with_row(hp, side, outcomes, |row| {
        // Each state in the order first reached: placed, then the outcomes that lead to it
        // (every blow past the struck unit's hit points, and from where every outcome left
        // fells it, all of them) summed there one after the other, as each outcome's would be.
        // Placing a state after another's outcomes were summed places it where placing it
        // before would: the states are placed in the same order.
        let counts = &row.counts[..];
        let mut from = 0;
        for (&end, state) in row.ends.iter().zip(&row.states) {
            let counts = counts.get(from..end as usize).unwrap_or_default();
            from = end as usize;
            let i = add_to(list, slots, stamp, width, start, *state, 0.0);
            if let Some((_, w)) = list.get_mut(i) {
                *w = summed(*w, p, faces, counts);
            }
        }
    });
    if done.is_none() {
        strike_each(next, hp, p, side, outcomes);
    }
}

/// Where the outcomes of a strike lead from one pair of hit points: each state in the order
/// first reached, and the outcomes' weights by state (each state's in the outcomes' order), with
/// where each state's end.
struct Row {
    states: SmallVec<[[i64; 2]; 8]>,
    ends: Box<[u32]>,
    /// Each outcome's weight ([`counts`]), each state's together (to its place in `ends`).
    counts: Box<[f64]>,
}

impl Row {
    /// The row of a strike by `side` from `hp` with `outcomes` (`None` past `u16::MAX` states or
    /// `u32::MAX` outcomes): each outcome's state as [`Exchange::apply`] leaves it where no
    /// trigger runs (the damage [`dealt`], held at 0).
    fn new(hp: [i64; 2], side: usize, outcomes: &Outcomes) -> Option<Row> {
        let first = side == 0;
        let foe = hp.get(1 - side).copied().unwrap_or(0);
        let felling = outcomes.felling();
        let mut states: SmallVec<[[i64; 2]; 8]> = SmallVec::new();
        // The place of each state that leaves the striker as it was, by the struck unit's hit
        // points after the strike (from 0 to its own: most states), else searched.
        let mut by_foe: Vec<u16> = if foe < 1 << 12 { vec![u16::MAX; usize::try_from(foe + 1).unwrap_or(0)] } else { Vec::new() };
        let striker = hp.get(side).copied().unwrap_or(0);
        let mut runs: Vec<(u32, u16)> = Vec::new();
        let len = u32::try_from(outcomes.list.len()).ok()?;
        for (k, &(_, o)) in (0u32..).zip(outcomes.list.iter()) {
            let felled = felling.get(k as usize).is_some_and(|least| *least >= foe);
            let after = if felled {
                // This outcome and every one after it: a hit of at least the struck unit's hit
                // points, which leaves it at 0 and the striker as it was.
                let mut after = hp;
                if let Some(h) = after.get_mut(1 - side) {
                    *h = 0;
                }
                after
            } else {
                let damage = if o.hit || o.backfire { o.damage } else { 0 };
                if first == o.backfire {
                    [hp[0].saturating_sub(damage).max(0), hp[1].max(0)]
                } else {
                    [hp[0].max(0), hp[1].saturating_sub(damage).max(0)]
                }
            };
            let slot = after
                .get(1 - side)
                .filter(|_| after.get(side) == Some(&striker))
                .and_then(|h| usize::try_from(*h).ok())
                .and_then(|h| by_foe.get_mut(h));
            let place = match slot {
                Some(known) if *known != u16::MAX => *known,
                slot => {
                    let place = states.iter().position(|s| *s == after).unwrap_or_else(|| {
                        states.push(after);
                        states.len() - 1
                    });
                    let place = u16::try_from(place).ok().filter(|p| *p != u16::MAX)?;
                    if let Some(known) = slot {
                        *known = place;
                    }
                    place
                }
            };
            let end = if felled { len } else { k + 1 };
            match runs.last_mut() {
                Some((last, state)) if *state == place => *last = end,
                _ => runs.push((end, place)),
            }
            if felled {
                break;
            }
        }
        // Each state's runs one after the other, in their order: a state's weight is added to
        // by its own outcomes alone, so its sum is the same taken before or after another
        // state's (one summing a few dozen outcomes at a time, not each run apart).
        let all = counts(outcomes);
        let mut grouped: Vec<f64> = Vec::with_capacity(all.len());
        let mut ends: Vec<u32> = Vec::with_capacity(states.len());
        for place in 0..states.len() {
            let mut from = 0;
            for &(end, state) in &runs {
                if usize::from(state) == place {
                    grouped.extend_from_slice(all.get(from..end as usize)?);
                }
                from = end as usize;
            }
            ends.push(u32::try_from(grouped.len()).ok()?);
        }
        Some(Row { states, ends: ends.into(), counts: grouped.into() })
    }
}

/// A thread's rows by the outcomes' list (its place: the entry holds the list, so no other takes
/// that place while it lasts), the striking side and the hit points, with the outcomes the
/// lists held hold: a strike with the same outcomes from the same hit points recurs at level
/// after level (a miss leaves them) and in walk after walk (exchanges of the same units from
/// other hit points: lists are shared by what they read, `outcomes::TABLE`).
type Rows = (FastMap<(usize, [i64; 2], u8), (OutcomeList, Row)>, usize);

thread_local! {
    static ROWS: std::cell::RefCell<Rows> = std::cell::RefCell::new((FastMap::default(), 0));
}

/// The most outcomes the lists a thread's rows hold may count (each list counted for each of its
/// rows); past it the rows start over.
const ROWS_MAX: usize = 1 << 20;

/// Calls `f` with the row of a strike by `side` from `hp` with `outcomes`: kept, or worked out
/// (and kept); `None` (`f` not called) where it has none.
fn with_row<R>(hp: [i64; 2], side: usize, outcomes: &Outcomes, f: impl FnOnce(&Row) -> R) -> Option<R> {
    let key = (Arc::as_ptr(&outcomes.list) as *const u8 as usize, hp, side as u8);
    let mut f = Some(f);
    let kept = ROWS.try_with(|rows| {
        let mut rows = rows.try_borrow_mut().ok()?;
        let (table, held) = &mut *rows;
        // Kept (most strikes): found with one look.
        if let Some((_, row)) = table.get(&key) {
            return Some(f.take()?(row));
        }
        let row = Row::new(hp, side, outcomes)?;
        let size = outcomes.list.len().max(1);
        if *held + size > ROWS_MAX {
            table.clear();
            *held = 0;
        }
        *held += size;
        let (_, row) = table.entry(key).or_insert((outcomes.list.clone(), row));
        Some(f.take()?(row))
    });
    if let Ok(Some(r)) = kept {
        return Some(r);
    }
    // No table (a thread torn down, a walk inside a walk): worked out here.
    let row = Row::new(hp, side, outcomes)?;
    Some(f.take()?(&row))
}

/// [`strike_many`] outcome by outcome, where no row is made (past `u16::MAX` states): many in a
/// row lead to one state, and from where every outcome left fells the struck unit, they all do.
#[inline(never)]
fn strike_each(next: &mut Grid, hp: [i64; 2], p: f64, side: usize, outcomes: &Outcomes) {
    let faces = outcomes.den;
    let Grid { list, slots, stamp, width, start } = next;
    let (stamp, width, start) = (*stamp, *width, *start);
    let first = side == 0;
    let foe = hp.get(1 - side).copied().unwrap_or(0);
    let felling = outcomes.felling();
    // Where the last outcome's state went (none yet: hit points are never negative here). Outcomes
    // in a row often lead to one state (every blow past the foe's hit points fells it): added
    // there again without looking it up.
    let mut last = ([-1, -1], 0);
    for (k, &(count, o)) in outcomes.list.iter().enumerate() {
        let weight = p * count / faces;
        if felling.get(k).is_some_and(|least| *least >= foe) {
            // This outcome and every one after it: a hit of at least the struck unit's hit
            // points, which leaves it at 0 and the striker as it was. Their weights are added to
            // that state one after the other, as each outcome's would be.
            let mut after = hp;
            if let Some(h) = after.get_mut(1 - side) {
                *h = 0;
            }
            let at = if after == last.0 {
                if let Some((_, w)) = list.get_mut(last.1) {
                    *w += weight;
                }
                last.1
            } else {
                add_to(list, slots, stamp, width, start, after, weight)
            };
            if let Some((_, w)) = list.get_mut(at) {
                let mut sum = *w;
                for &(count, _) in outcomes.list.get(k + 1..).unwrap_or_default() {
                    sum += p * count / faces;
                }
                *w = sum;
            }
            return;
        }
        let damage = if o.hit || o.backfire { o.damage } else { 0 };
        let after = if first == o.backfire {
            [hp[0].saturating_sub(damage).max(0), hp[1].max(0)]
        } else {
            [hp[0].max(0), hp[1].saturating_sub(damage).max(0)]
        };
        if after == last.0 {
            if let Some((_, w)) = list.get_mut(last.1) {
                *w += weight;
                continue;
            }
        }
        last = (after, add_to(list, slots, stamp, width, start, after, weight));
    }
}

/// The most outcomes a strike walks through without asking where every outcome left fells the
/// struck unit (`Outcomes::felling`).
const FEW_OUTCOMES: usize = 16;

/// `sum` with the weight of each of `counts` in turn added to it (`p * count / faces`, as a
/// strike's outcome adds its own): the same additions in the same order, the same bits. The
/// weights are worked out two at a time, apart from the sum (in one instruction each).
#[inline(always)]
pub(super) fn summed(mut sum: f64, p: f64, faces: f64, counts: &[f64]) -> f64 {
    let (pairs, rest) = counts.as_chunks::<2>();
    for [x, y] in pairs {
        let (a, b) = (p * x / faces, p * y / faces);
        sum += a;
        sum += b;
    }
    for x in rest {
        sum += p * x / faces;
    }
    sum
}

/// Each outcome's weight, in the outcomes' order, in a list of their own (kept with the rows and
/// runs made from them, which are kept by the outcomes held in bounded tables: summed in runs).
pub(super) fn counts(outcomes: &Outcomes) -> Box<[f64]> {
    outcomes.list.iter().map(|(count, _)| *count).collect()
}

impl Outcomes {
    /// From each outcome on, the least damage they deal the unit struck where every one of them
    /// is a hit on it (no miss, no backfire), else `i64::MIN`: worked out once.
    fn felling(&self) -> &[i64] {
        self.felling.get_or_init(|| {
            let mut out = vec![i64::MIN; self.list.len()];
            let mut least = i64::MAX;
            for ((_, o), slot) in self.list.iter().zip(out.iter_mut()).rev() {
                least = if o.hit && !o.backfire { least.min(o.damage) } else { i64::MIN };
                *slot = least;
            }
            out.into()
        })
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Engine;

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), walked plain where it may be and
    /// by the general loop: the same bits. And seed 000's are walked plain for the most part.
    #[test]
    fn plain_walks_equal_the_general_walk() {
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let plain = Engine::new(rules.clone()).expect("runs");
            let mut general = Engine::new(rules).expect("runs");
            general.ir.strategy.plain_walks = false;
            let (mut compared, mut walked_plain, mut figured, mut armed) = (0, 0, 0, 0);
            let matchups = crate::testing::matchups(&plain);
            // Units of figures too (seed 003's: `strikes` reads the striker's living figures,
            // its hit points, as the exchange begins), and defenders carrying every weapon they
            // may use (attack forms, where their weapons are: a target that may not strike back
            // has them in vain).
            let units = [(1, 1, false), (4, 1, false), (3, 5, false), (1, 1, true)];
            let variants =
                units.iter().flat_map(|f| matchups.iter().step_by(if *f == (1, 1, false) { 1 } else { 5 }).map(move |m| (f, m)));
            for (&(fa, fd, carry), (label, a, d, r)) in variants {
                let a = crate::Loadout { figures: fa, ..a.clone() };
                let carried = if carry {
                    plain.weapons_for(&d.class).iter().map(|w| crate::Atom::new(&w.name)).collect()
                } else {
                    Vec::new()
                };
                let d = crate::Loadout { figures: fd, carried, ..d.clone() };
                let Ok(x) = crate::Exchange::new(&plain, &a, &d, *r) else { continue };
                let mut cache = super::OutcomeCache::default();
                let walked = x.walk_plain(&x.initial(), &mut cache, false).is_some();
                walked_plain += usize::from(walked);
                figured += usize::from(walked && fa > 1);
                armed += usize::from(walked && !x.forms[1].is_empty());
                let (p, g) = (x.forecast(), general.forecast(&a, &d, *r).expect("the same matchup"));
                assert_eq!(p.bits(), g.bits(), "{name}: {label} ({fa}) against {} ({fd}, hp {:?})", d.class, d.hp);
                compared += 1;
            }
            assert!(compared > 100, "{name}: {compared} matchups");
            // The first built-in ruleset: seed 000's.
            if k == 0 {
                assert!(walked_plain * 10 > compared * 8, "{name}: {walked_plain} of {compared} walked plain");
            }
            // Seed 003's lone attacks are plain: by units of figures, on targets with attack forms.
            if *name == "battlestorm" {
                assert!(figured > 100, "{name}: {figured} units of figures walked plain");
                assert!(armed > 10, "{name}: {armed} targets with attack forms walked plain");
            }
            eprintln!("{name}: {compared} matchups, {walked_plain} walked plain ({figured} of figures, {armed} on forms)");
        }
    }
}
