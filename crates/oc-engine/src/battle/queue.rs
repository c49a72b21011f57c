//! The queue of a shortest-path search (the battle's reach, the AI's walking guides).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Tiles waiting in a shortest-path search, taken cheapest first. Steps cost small whole numbers
/// (a terrain's movement cost), so when the dearest step is at most [`CostQueue::BUCKETS`] the
/// waiting tiles are kept in buckets by cost modulo a power of two above the dearest step
/// (Dial's algorithm: no heap to keep in order, and a mask, not a division, finds the bucket);
/// otherwise in a binary heap. Either way every tile is taken at its
/// least cost, so the costs a search finds are the same.
pub(crate) enum CostQueue<T> {
    Buckets { buckets: Vec<Vec<(i64, T)>>, mask: i64, here: i64, waiting: usize },
    Heap(BinaryHeap<Reverse<(i64, T)>>),
}

impl<T: Ord> CostQueue<T> {
    /// The most buckets kept: a dearer step uses the heap.
    const BUCKETS: i64 = 64;

    /// A queue for a search whose steps cost from `cheapest` to `dearest`.
    pub(crate) fn new(cheapest: i64, dearest: i64) -> Self {
        if cheapest >= 0 && (0..Self::BUCKETS).contains(&dearest) {
            // Waiting costs lie within the dearest step of the cost last taken: at most
            // `dearest + 1` of them, each in a bucket of its own.
            let n = ((dearest + 1).max(1) as u64).next_power_of_two() as i64;
            let buckets = (0..n).map(|_| Vec::new()).collect();
            CostQueue::Buckets { buckets, mask: n - 1, here: 0, waiting: 0 }
        } else {
            CostQueue::Heap(BinaryHeap::new())
        }
    }

    /// The queue emptied for a new search whose steps cost from `cheapest` to `dearest`, keeping
    /// its buckets and their room where it has at least as many as that search needs (a search a
    /// turn allocates nothing anew, whatever the movement type). More buckets take the tiles in
    /// the same order: the costs waiting still lie in distinct buckets, each one cost's alone.
    pub(crate) fn reset(&mut self, cheapest: i64, dearest: i64) {
        let bucketed = cheapest >= 0 && (0..Self::BUCKETS).contains(&dearest);
        let n = ((dearest + 1).max(1) as u64).next_power_of_two() as i64;
        match self {
            CostQueue::Buckets { buckets, mask, here, waiting } if bucketed && *mask >= n - 1 => {
                buckets.iter_mut().for_each(Vec::clear);
                *here = 0;
                *waiting = 0;
            }
            CostQueue::Heap(heap) if !bucketed => heap.clear(),
            _ => *self = Self::new(cheapest, dearest),
        }
    }

    /// Adds `t` at `cost`, which is no less than the cost last taken, and (in buckets) at most the
    /// dearest step more. Inlined: a search's inner loop pushes a tile a step.
    #[inline]
    pub(crate) fn push(&mut self, cost: i64, t: T) {
        match self {
            CostQueue::Buckets { buckets, mask, waiting, .. } => {
                if let Some(b) = buckets.get_mut((cost & *mask) as usize) {
                    b.push((cost, t));
                    *waiting += 1;
                }
            }
            CostQueue::Heap(heap) => heap.push(Reverse((cost, t))),
        }
    }

    /// The cheapest tile waiting, with its cost.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(i64, T)> {
        match self {
            CostQueue::Buckets { buckets, mask, here, waiting } => {
                while *waiting > 0 {
                    if let Some(next) = buckets.get_mut((*here & *mask) as usize).and_then(Vec::pop) {
                        *waiting -= 1;
                        return Some(next);
                    }
                    *here += 1;
                }
                None
            }
            CostQueue::Heap(heap) => heap.pop().map(|Reverse(x)| x),
        }
    }
}
