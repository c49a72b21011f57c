//! Playout turns by the battle they were chosen for, shared by greedy's playouts
//! (`Greedy::chosen`) and the planner's tactician playouts (`Planner::memo`: `searcher`'s taker,
//! and without fog where activations are paid in steps any searching side's own turns). The
//! copies of a search meet the same battles again and again: a candidate's copies whose dice
//! fell alike (or drew nothing), and copies of two candidates that came to the same position by
//! two orders of the same moves.
//! Both AIs' turns there are functions of the battle as it stands (their caches are what they
//! work out, not what they remember: the taker's memo is used only without fog, where the
//! tactician keeps no memory), so a battle met again plays the turn chosen the first time: every
//! copy plays as before, and a decision is the same one. A ring of at most [`Memo::KEPT`]
//! battles, each its state but for the dice ([`Battle::undiced`]), each new one copied into the
//! oldest's room (its units' names and lists reused) or, until the ring is full, into one a memo
//! dropped on its thread left, found by [`Battle::undiced_hash`] and kept
//! only where choosing rolled no die (on a look-ahead copy: `dice::rolled`); a hit must match
//! the whole battle (two with one hash make a miss and the later replaces the earlier, never a
//! wrong turn).
//! Greedy's memo keeps with a turn that moves the cost its choice found for the move
//! (`Battle::hint_move`) and gives it again with the turn: the move is not searched again
//! (`Battle::move_cost`; a hint is read only where what its search read is the same).
//!
//! Measured for `searcher`'s taker (instructions, `valgrind --tool=callgrind oc simulate
//! scenarios/X.oc --games 2 --seed 11 --attacker-ai searcher --defender-ai tactician`, one
//! thread), the games move for move the same: grado-keep 2.61G to 1.46G, ide 0.84G to 0.51G,
//! jehanna-hall 0.67G to 0.43G, border-mulan 1.00G to 0.58G, narube-river 0.56G to 0.39G (the
//! tactician against itself: 0.18G, 0.09G, 0.07G, 0.11G, 0.11G). A ring of 1,024 saved no more,
//! for either.

use std::cell::RefCell;

use crate::battle::{Battle, MoveHint, Turn, Undiced};
use crate::fx::FastMap;

/// One battle kept: its hash, the battle, the turn chosen there and its move's hint.
type Kept = (u64, Undiced, Option<Turn>, Option<MoveHint>);

#[cfg(test)]
thread_local! {
    /// Tests: whether every memo on this thread checks each hit against a fresh choice, the
    /// unchecked ones (`searcher`'s taker's) too.
    pub(crate) static CHECK_EVERY_HIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a test asked every memo on this thread to check its hits ([`CHECK_EVERY_HIT`]).
fn every_hit_checked() -> bool {
    #[cfg(test)]
    return CHECK_EVERY_HIT.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

thread_local! {
    /// The rings of memos dropped on this thread (at most [`Memo::ROOMS`]): a new memo copies
    /// its battles into their rooms (names and lists reused) instead of copying each afresh.
    /// Nothing in them is read: only the battles a memo kept itself are found (`by_hash`).
    static ROOMS: RefCell<Vec<Vec<Kept>>> = const { RefCell::new(Vec::new()) };
}

/// The tactician's playout turns, by the battle they were chosen for.
pub(super) struct Memo {
    /// Whether a debug build checks each hit against a fresh choice (greedy's, cheap).
    checked: bool,
    /// Whether a choice leaves its move's cost for the turn to read (`Battle::hint_move`,
    /// greedy's): kept with the turn and given again with it, the move not searched again.
    hinted: bool,
    /// The battles kept (the first `kept`), then rooms a dropped memo left ([`ROOMS`]).
    ring: Vec<Kept>,
    kept: usize,
    by_hash: FastMap<u64, usize>,
    /// The slot the next battle is copied into, once the ring is full.
    next: usize,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo").field("kept", &self.kept).finish_non_exhaustive()
    }
}

/// Hits unchecked (`searcher`'s taker: a fresh tactician's turn costs ~5 greedy ones), no hints.
impl Default for Memo {
    fn default() -> Self {
        Memo::new(false, false)
    }
}

impl Memo {
    /// The most battles kept (each a copy of its state).
    const KEPT: usize = 256;
    /// The most rings of dropped memos a thread keeps (a battle of two planners holds four memos).
    const ROOMS: usize = 4;

    /// An empty memo; `checked`: whether debug builds check each hit against a fresh choice;
    /// `hinted`: whether a choice hints its move ([`Memo::hinted`]).
    pub fn new(checked: bool, hinted: bool) -> Self {
        Memo { checked, hinted, ring: Vec::new(), kept: 0, by_hash: FastMap::default(), next: 0 }
    }

    /// The turn `choose` makes in `b`: the one kept for `b`, or `choose`'s (kept if it rolled no die).
    pub fn turn(&mut self, b: &Battle, mut choose: impl FnMut(&Battle) -> Option<Turn>) -> Option<Turn> {
        let hash = b.undiced_hash();
        if let Some((t, hint)) = self.get(hash, b) {
            // The turn a fresh choice makes: checked in the debug builds, where asked (and
            // in a test that asks it of every memo, `searcher`'s taker's too).
            debug_assert!(!(self.checked || every_hit_checked()) || t == choose(b), "a memo's turn is a fresh choice's");
            // Its move's cost as the choice found it, in this very battle.
            if let Some(hint) = hint {
                hint.given();
            }
            return t;
        }
        let rolled = crate::dice::rolled();
        let t = choose(b);
        if crate::dice::rolled() == rolled {
            self.insert(hash, b, t.clone());
        }
        t
    }

    fn get(&self, hash: u64, b: &Battle) -> Option<(Option<Turn>, Option<&MoveHint>)> {
        let (h, u, t, hint) = self.by_hash.get(&hash).and_then(|k| self.ring.get(*k))?;
        (*h == hash && b.is_undiced(u)).then(|| (t.clone(), hint.as_ref()))
    }

    /// The hint the choice of `t` left (`Battle::hint_move`) into `into`, where it moves and the
    /// memo keeps hints: the thread's last, which (read only where what its search read is the
    /// same, `MoveHint::cost`) is the choice's, or one the turn's move does not read.
    fn hint(hinted: bool, t: &Option<Turn>, into: &mut Option<MoveHint>) {
        if hinted && t.as_ref().is_some_and(|t| t.to.is_some()) {
            MoveHint::last_into(into);
        } else {
            *into = None;
        }
    }

    fn insert(&mut self, hash: u64, b: &Battle, t: Option<Turn>) {
        if self.kept < Memo::KEPT {
            if self.kept == 0 {
                // A dropped memo's ring, where one is left ([`ROOMS`]).
                if self.ring.is_empty() {
                    self.ring =
                        ROOMS.try_with(|r| r.try_borrow_mut().ok().and_then(|mut r| r.pop())).ok().flatten().unwrap_or_default();
                }
                // Its room once (a battle's copy moved on each growth otherwise).
                self.ring.reserve_exact(Memo::KEPT.saturating_sub(self.ring.len()));
                self.by_hash.reserve(Memo::KEPT);
            }
            let k = self.kept;
            self.kept += 1;
            self.by_hash.insert(hash, k);
            // Into a dropped memo's room where there is one left.
            if let Some((h, u, turn, hint)) = self.ring.get_mut(k) {
                b.undiced_into(u);
                Memo::hint(self.hinted, &t, hint);
                (*h, *turn) = (hash, t);
                return;
            }
            let mut hint = None;
            Memo::hint(self.hinted, &t, &mut hint);
            self.ring.push((hash, b.undiced(), t, hint));
            return;
        }
        let k = self.next;
        self.next = (k + 1) % Memo::KEPT;
        let Some((h, u, turn, hint)) = self.ring.get_mut(k) else { return };
        if self.by_hash.get(h) == Some(&k) {
            self.by_hash.remove(h);
        }
        b.undiced_into(u);
        Memo::hint(self.hinted, &t, hint);
        (*h, *turn) = (hash, t);
        self.by_hash.insert(hash, k);
    }
}

/// Its ring left to the next memo of its thread ([`ROOMS`]).
impl Drop for Memo {
    fn drop(&mut self) {
        let ring = std::mem::take(&mut self.ring);
        if ring.is_empty() {
            return;
        }
        let _ = ROOMS.try_with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                if r.len() < Memo::ROOMS {
                    r.push(ring);
                }
            }
        });
    }
}
