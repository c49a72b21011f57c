//! What each side's strike comes to as the exchange begins: its outcomes and the flags read
//! outside any roll, worked out once for every state that holds the statuses and resources the
//! exchange began with (most states), where working them out read no hit points.
//!
//! (An engine-wide table of these, shared by every exchange between two units, was tried: on
//! `oc matrix` — every weapon against every class's first, so a matchup's mirror is rarely in
//! the table — it cost more to fill, lock and free than it saved: 43 ms -> 80 ms on two cores,
//! peak 13 -> 30 MiB.)

use std::cell::OnceCell;
use std::sync::Arc;

use super::phase::Flag;
use super::Outcomes;
use crate::ir::V;

/// One side's strike as the exchange begins. Each entry is set once; `Some(None)` where working
/// it out read hit points (then each state works it out again).
#[derive(Default)]
pub(crate) struct StrikeMemo {
    /// The strike's outcomes (with the reaction the struck unit takes, where it has any).
    pub(super) outcomes: OnceCell<Option<Arc<Outcomes>>>,
    /// The flags with the striker as `attacker`, by [`Flag`].
    pub(super) flags: [OnceCell<Option<V>>; Flag::ALL],
}
