//! What one unit striking another from a distance comes to as their exchange begins, kept by the
//! engine for every exchange between the two: the attack of one matchup is the counter of its
//! mirror, and an AI asks about the same pair again and again.
//!
//! A strike's outcomes and the flags read outside any roll are a function of the two units (their
//! statuses and resources as they begin), the distance and, where working them out read them,
//! the hit points. So each is kept only where it read none, and each is worked out by whichever
//! exchange first needs it: an answer kept is the same bits as one worked out again.

use std::sync::{Arc, OnceLock};

use super::phase::Flag;
use super::Outcomes;
use crate::ir::V;
use crate::unit::Unit;
use crate::{fx, Engine};

/// One unit striking another from a distance, as their exchange begins. Each entry is set once;
/// `Some(None)` where working it out read hit points (then each state works it out again).
#[derive(Default)]
pub(crate) struct StrikeMemo {
    /// The strike's outcomes (kept only where no reaction could change them: without reactions).
    pub(super) outcomes: OnceLock<Option<Arc<Outcomes>>>,
    /// The flags with the striker as `attacker`, by [`Flag`].
    pub(super) flags: [OnceLock<Option<V>>; Flag::ALL],
}

/// Strike memos by (striker, struck, distance, the striker's side where that counts), the units
/// by [`Unit::id`].
pub(crate) type StrikeCache = fx::Checked<(u64, u64, i64, Option<u8>), Arc<StrikeMemo>>;

/// The most strike memos an engine keeps (in two generations: `fx::Checked`).
pub(crate) const STRIKE_CACHE: usize = 1 << 16;

impl Engine {
    /// The memo of `striker` striking `struck` from `distance`, shared by every exchange between
    /// them; with `side`, only by those where the striker is on that side (0: it attacks).
    pub(crate) fn strike_memo(&self, striker: &Unit, struck: &Unit, distance: i64, side: Option<u8>) -> Arc<StrikeMemo> {
        let key = (striker.id.get(), struck.id.get(), distance, side);
        let hash = fx::hash_of(&key);
        if let Some(m) = self.strikes.read().ok().and_then(|c| c.get(hash, |k| *k == key)) {
            return m;
        }
        let Ok(mut cache) = self.strikes.write() else { return Arc::default() };
        // Another thread may have made it meanwhile: share that one.
        if let Some(m) = cache.get(hash, |k| *k == key) {
            return m;
        }
        let m = Arc::new(StrikeMemo::default());
        cache.insert(hash, key, m.clone());
        m
    }
}
