//! The taker's own playout turns by the battle they were chosen for. Where `searcher` plays a
//! taker's own turns in its playouts as the tactician does (`takes_ground`), the copies meet the
//! same battles again and again: a candidate's copies whose dice fell alike (or drew nothing), and
//! copies of two candidates that came to the same position by two orders of the same moves. The
//! tactician's turn is a function of the battle as it stands (its caches are what it works out,
//! not what it remembers: no fog here, where it keeps no memory), so a battle met again plays the
//! turn chosen the first time, without ranking again: every copy plays as before, and a decision
//! is the same one. As greedy keeps its playout choices (`greedy.rs`, `Chosen`): a ring of at most
//! [`Memo::KEPT`] battles, each its state but for the dice ([`Battle::undiced`]), found by
//! [`Battle::undiced_hash`] and kept only where choosing rolled no die; a hit must match the whole
//! battle (two with one hash make a miss, never a wrong turn).
//!
//! Measured (instructions, `valgrind --tool=callgrind oc simulate scenarios/X.oc --games 2 --seed
//! 11 --attacker-ai searcher --defender-ai tactician`, one thread), the games move for move the
//! same: grado-keep 2.61G to 1.46G, ide 0.84G to 0.51G, jehanna-hall 0.67G to 0.43G, border-mulan
//! 1.00G to 0.58G, narube-river 0.56G to 0.39G (the tactician against itself: 0.18G, 0.09G,
//! 0.07G, 0.11G, 0.11G). A ring of 1,024 saved no more.

use crate::battle::{Battle, Turn, Undiced};
use crate::fx::FastMap;

/// The tactician's playout turns, by the battle they were chosen for.
#[derive(Default)]
pub(super) struct Memo {
    ring: Vec<(u64, Undiced, Option<Turn>)>,
    by_hash: FastMap<u64, usize>,
    /// The slot the next battle is copied into, once the ring is full.
    next: usize,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo").field("kept", &self.ring.len()).finish_non_exhaustive()
    }
}

impl Memo {
    /// The most battles kept (each a copy of its state).
    const KEPT: usize = 256;

    /// The turn `choose` makes in `b`: the one kept for `b`, or `choose`'s (kept if it rolled no die).
    pub fn turn(&mut self, b: &Battle, choose: impl FnOnce(&Battle) -> Option<Turn>) -> Option<Turn> {
        let hash = b.undiced_hash();
        if let Some(t) = self.get(hash, b) {
            return t;
        }
        let rolled = crate::dice::rolled();
        let t = choose(b);
        if crate::dice::rolled() == rolled {
            self.insert(hash, b, t.clone());
        }
        t
    }

    fn get(&self, hash: u64, b: &Battle) -> Option<Option<Turn>> {
        let (h, u, t) = self.by_hash.get(&hash).and_then(|k| self.ring.get(*k))?;
        (*h == hash && b.is_undiced(u)).then(|| t.clone())
    }

    fn insert(&mut self, hash: u64, b: &Battle, t: Option<Turn>) {
        if self.ring.len() < Memo::KEPT {
            self.by_hash.insert(hash, self.ring.len());
            self.ring.push((hash, b.undiced(), t));
            return;
        }
        let k = self.next;
        self.next = (k + 1) % Memo::KEPT;
        let Some((h, u, turn)) = self.ring.get_mut(k) else { return };
        if self.by_hash.get(h) == Some(&k) {
            self.by_hash.remove(h);
        }
        b.undiced_into(u);
        (*h, *turn) = (hash, t);
        self.by_hash.insert(hash, k);
    }
}
