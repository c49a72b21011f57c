//! A fast hash for maps whose order never reaches a result (looked up, or iterated only where
//! the order cannot matter: `any`, `all`, filling a set); and [`Tally`], weights in the
//! order their keys were first added, for the sums whose order reaches a result (a forecast's).

use std::collections::HashMap;

/// A map with a fast hash, looked up, or iterated only where the order cannot reach a result
/// (`any`, `all`, filling a set or a list only asked `contains`).
pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;

/// A key's [`Fx`] hash.
pub(crate) fn hash_of<T: std::hash::Hash + ?Sized>(key: &T) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<Fx>::default().hash_one(key)
}

/// Whether two short lists are equal, compared in place element by element. `==` on a list of
/// numbers or on a string calls the C library's `memcmp`, even for an empty one; the lists a
/// search compares again and again (names, places, statuses) are short, and those calls were
/// most of what comparing them cost: on this project's 2-core machine `memcmp` took 12-15% of a
/// night tournament's samples (`perf`) for about 1% of its instructions (callgrind).
#[inline]
pub(crate) fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A bounded cache by a key's hash, worked out once by the caller ([`hash_of`]): growing moves
/// numbers and never hashes a key again (loadouts are strings). Each entry keeps its key, which a
/// hit must match: two keys with one hash make a miss and the later replaces the earlier, never
/// a wrong answer. It holds at most `max` entries in two generations: when the newer fills half
/// of them it becomes the older and the older is dropped, so what was asked for lately survives
/// a turnover (a cache cleared whole when full started every long simulation over, cold).
pub(crate) struct Checked<K, V> {
    new: FastMap<u64, (Box<K>, V)>,
    old: FastMap<u64, (Box<K>, V)>,
    max: usize,
}

impl<K, V: Clone> Checked<K, V> {
    pub(crate) fn new(max: usize) -> Self {
        Checked { new: FastMap::default(), old: FastMap::default(), max }
    }

    /// The value kept for the key hashed to `hash`, if `is` says the kept key is the one asked for.
    pub(crate) fn get(&self, hash: u64, is: impl Fn(&K) -> bool) -> Option<V> {
        let hit = |map: &FastMap<u64, (Box<K>, V)>| map.get(&hash).filter(|(k, _)| is(k)).map(|(_, v)| v.clone());
        hit(&self.new).or_else(|| hit(&self.old))
    }

    pub(crate) fn insert(&mut self, hash: u64, key: K, value: V) {
        if self.new.len() >= (self.max / 2).max(1) {
            self.old = std::mem::take(&mut self.new);
        }
        self.new.insert(hash, (Box::new(key), value));
    }
}

/// A [`Checked`] cache kept a thread: what every game on the thread reads of an engine's
/// unchanging tables, worked out once.
pub(crate) type ThreadKept<K, V> = std::thread::LocalKey<std::cell::RefCell<Checked<K, V>>>;

/// The value `cache` keeps for `key`, else `make`'s, then kept (a cache busy or gone as its
/// thread ends answers `make`'s, unkept).
pub(crate) fn kept<K: std::hash::Hash + Eq, V: Clone, E>(
    cache: &'static ThreadKept<K, V>,
    key: K,
    make: impl FnOnce() -> Result<V, E>,
) -> Result<V, E> {
    let hash = hash_of(&key);
    if let Ok(Some(v)) = cache.try_with(|c| c.try_borrow().ok().and_then(|c| c.get(hash, |k| *k == key))) {
        return Ok(v);
    }
    let v = make()?;
    let _ = cache.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.insert(hash, key, v.clone());
        }
    });
    Ok(v)
}

/// The multiply-rotate hash of rustc's `FxHasher` (shared with the compiler's tables). Public only
/// as the hasher of [`crate::battle::Reach`].
pub use oc_model::hash::Fx;

/// Weights by key, in the order each key was first added: a forecast's states and final hit
/// points, and a strike's outcomes merged by equality, summed in an order that depends only on
/// what was added, never on a hash table's layout. A short list is searched; past [`Tally::SEARCHED`] keys an index finds them.
pub(crate) struct Tally<K> {
    pub(crate) list: Vec<(K, f64)>,
    index: Index,
}

/// Where a [`Tally`]'s keys sit in its list, by their hashes: open addressing over places in the
/// list (each plus one; 0 an empty slot), at most half full, with each key's hash kept beside the
/// list so growing never hashes a key again nor copies one (a map by key cloned every key,
/// and rehashed them all at every doubling).
#[derive(Default)]
struct Index {
    slots: Vec<u32>,
    /// Each listed key's hash, in the list's order.
    hashes: Vec<u64>,
}

impl<K> Default for Tally<K> {
    fn default() -> Self {
        Tally { list: Vec::new(), index: Index::default() }
    }
}

impl Index {
    /// The first slot to probe for `hash` in `size` slots, a power of two of at least 64 (its
    /// top bits: the multiply-rotate hash mixes upward).
    #[inline(always)]
    fn start(hash: u64, size: usize) -> usize {
        (hash >> (64 - size.trailing_zeros())) as usize
    }

    /// Sized for twice `len` keys at least, every listed key placed again from its kept hash.
    fn grow(&mut self, len: usize) {
        let size = (len * 4).next_power_of_two().max(64);
        self.slots.clear();
        self.slots.resize(size, 0);
        let mask = size - 1;
        for (i, hash) in self.hashes.iter().enumerate() {
            let mut at = Index::start(*hash, size);
            // At most `size` looks: a quarter of the slots at most are taken.
            for _ in 0..size {
                let Some(s) = self.slots.get_mut(at) else { break };
                if *s == 0 {
                    *s = u32::try_from(i + 1).unwrap_or(u32::MAX);
                    break;
                }
                at = (at + 1) & mask;
            }
        }
    }
}

impl<K: Clone + Eq + std::hash::Hash> Tally<K> {
    /// Keys searched one by one before an index is built.
    const SEARCHED: usize = 16;

    pub(crate) fn add(&mut self, key: K, weight: f64) {
        self.add_at(key, weight);
    }

    /// [`Tally::add`], telling where the key's weight is kept: later weights for that key may be
    /// added there ([`Tally::add_to`]) without the key being looked up again.
    pub(crate) fn add_at(&mut self, key: K, weight: f64) -> usize {
        if self.list.len() <= Self::SEARCHED {
            if let Some(i) = self.list.iter().position(|(k, _)| *k == key) {
                if let Some((_, w)) = self.list.get_mut(i) {
                    *w += weight;
                }
                return i;
            }
            self.list.push((key, weight));
            return self.list.len() - 1;
        }
        if self.index.slots.is_empty() {
            self.index.hashes = self.list.iter().map(|(k, _)| hash_of(k)).collect();
            self.index.grow(self.list.len());
        }
        let hash = hash_of(&key);
        let mask = self.index.slots.len() - 1;
        let mut at = Index::start(hash, self.index.slots.len());
        // Each slot looked at once at most (the index is at most half full: an empty one comes
        // first).
        for _ in 0..self.index.slots.len() {
            let Some(slot) = self.index.slots.get_mut(at) else { break };
            let Some(i) = (*slot as usize).checked_sub(1) else {
                // Not listed: placed here.
                let i = self.list.len();
                // (Past 4 billion keys, more than memory holds, a key would be listed twice.)
                *slot = u32::try_from(i + 1).unwrap_or(u32::MAX);
                self.index.hashes.push(hash);
                self.list.push((key, weight));
                if self.list.len() * 2 > self.index.slots.len() {
                    self.index.grow(self.list.len());
                }
                return i;
            };
            if self.index.hashes.get(i) == Some(&hash) {
                if let Some((k, w)) = self.list.get_mut(i) {
                    if *k == key {
                        *w += weight;
                        return i;
                    }
                }
            }
            at = (at + 1) & mask;
        }
        // No room (never: the index is at most half full): listed, and the index made again.
        self.index.hashes.push(hash);
        self.list.push((key, weight));
        self.index.grow(self.list.len());
        self.list.len() - 1
    }

    /// Sets the weight kept at `i` (where [`Tally::add_at`] said it is) to `f` of it.
    pub(crate) fn update(&mut self, i: usize, f: impl FnOnce(f64) -> f64) {
        if let Some((_, w)) = self.list.get_mut(i) {
            *w = f(*w);
        }
    }

    /// Adds `weight` to the key kept at `i` (where [`Tally::add_at`] said it is).
    pub(crate) fn add_to(&mut self, i: usize, weight: f64) {
        if let Some((_, w)) = self.list.get_mut(i) {
            *w += weight;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{hash_of, Checked, Tally};

    #[test]
    fn a_tally_sums_in_the_order_keys_were_first_added() {
        // Past the searched length too: the index must find the same entries the search did,
        // as it grows.
        for n in [3u64, 40, 1000] {
            let mut t: Tally<u64> = Tally::default();
            for round in 0..3u64 {
                for k in (0..n).rev() {
                    t.add(k, (round + 1) as f64);
                }
            }
            let keys: Vec<u64> = t.list.iter().map(|(k, _)| *k).collect();
            assert_eq!(keys, (0..n).rev().collect::<Vec<_>>());
            assert!(t.list.iter().all(|(_, w)| *w == 6.0), "{:?}", t.list);
        }
    }

    #[test]
    fn a_checked_cache_answers_only_for_the_key_it_kept() {
        let mut cache: Checked<String, u32> = Checked::new(8);
        let key = "first".to_string();
        cache.insert(hash_of(&key), key.clone(), 1);
        assert_eq!(cache.get(hash_of(&key), |k| *k == key), Some(1));
        // Another key landing on the same hash is a miss, never the kept key's value.
        assert_eq!(cache.get(hash_of(&key), |k| k == "second"), None);
        // The later of two keys with one hash replaces the earlier.
        cache.insert(hash_of(&key), "second".to_string(), 2);
        assert_eq!(cache.get(hash_of(&key), |k| k == "second"), Some(2));
        assert_eq!(cache.get(hash_of(&key), |k| *k == key), None);
    }

    #[test]
    fn a_checked_cache_keeps_the_latest_entries_within_its_bound() {
        let max = 8;
        let mut cache: Checked<u64, u64> = Checked::new(max);
        for n in 0..100u64 {
            cache.insert(hash_of(&n), n, n * 10);
            assert!(cache.new.len() + cache.old.len() <= max, "at most {max} entries");
            // The entry just made, and the one before it, are always still there.
            assert_eq!(cache.get(hash_of(&n), |k| *k == n), Some(n * 10));
            if n > 0 {
                assert_eq!(cache.get(hash_of(&(n - 1)), |k| *k == n - 1), Some((n - 1) * 10));
            }
        }
        // The last half of the bound at least survives a turnover; long-gone ones are dropped.
        assert!((96..100).all(|n| cache.get(hash_of(&n), |k| *k == n).is_some()));
        assert_eq!(cache.get(hash_of(&0u64), |k| *k == 0), None);
    }
}
