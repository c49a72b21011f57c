//! A fast hash for maps that are only looked up, never iterated; and keys hashed once with a
//! fixed SipHash, for the maps whose iteration order reaches a result (a forecast's frontier).

use std::collections::HashMap;

/// A map only looked up, never iterated (so its order cannot reach a result), with a fast hash.
pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;

/// A key's [`Fx`] hash.
pub(crate) fn hash_of<T: std::hash::Hash + ?Sized>(key: &T) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<Fx>::default().hash_one(key)
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

/// The multiply-rotate hash of rustc's `FxHasher` (shared with the compiler's tables). Public only
/// as the hasher of [`crate::battle::Reach`].
pub use oc_model::hash::Fx;

/// SipHash with fixed keys: a map hashed with it iterates in an order that depends only on what
/// was inserted. (A forecast sums its states in that order, and floating-point sums depend on
/// order: a random hasher made forecasts differ in the last bits run to run.)
type Fixed = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// A key with its [`Fixed`] hash worked out once. In a [`HashedMap`] (whose hasher passes the
/// stored hash through) it lands in the bucket the key itself would in a map hashed with `Fixed`,
/// so the map iterates in the same order, and re-bucketing as it grows hashes nothing again.
pub(crate) struct Hashed<K>(pub(crate) u64, pub(crate) K);

impl<K: std::hash::Hash> Hashed<K> {
    pub(crate) fn new(key: K) -> Self {
        Hashed(fixed_hash(&key), key)
    }
}

/// `Fixed`'s hash of `key`, the same number: the bytes `Hash` writes are gathered first and the
/// SipHash-1-3 rounds run once over them, instead of `DefaultHasher` taking them a few at a time
/// (a forecast hashes every state it reaches; the streaming hasher was a sixth of its time).
pub(crate) fn fixed_hash<K: std::hash::Hash + ?Sized>(key: &K) -> u64 {
    use std::hash::Hasher;
    let mut sink = Gather { bytes: [0; GATHERED], len: 0, spilled: None };
    key.hash(&mut sink);
    sink.finish()
}

/// The bytes [`Gather`] holds before handing them to the streaming hasher.
const GATHERED: usize = 160;

/// Gathers the bytes a key's `Hash` writes (every `write_*` of the standard hashers is the write
/// of the value's native-endian bytes), then hashes them at once; a key longer than its buffer
/// goes on in `DefaultHasher` (the same hash, the slower way).
struct Gather {
    bytes: [u8; GATHERED],
    len: usize,
    spilled: Option<std::collections::hash_map::DefaultHasher>,
}

impl std::hash::Hasher for Gather {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if let Some(h) = &mut self.spilled {
            return h.write(bytes);
        }
        let end = self.len + bytes.len();
        match self.bytes.get_mut(self.len..end) {
            Some(to) => {
                to.copy_from_slice(bytes);
                self.len = end;
            }
            None => {
                let mut h = std::hash::BuildHasher::build_hasher(&Fixed::default());
                h.write(self.bytes.get(..self.len).unwrap_or_default());
                h.write(bytes);
                self.spilled = Some(h);
            }
        }
    }

    fn finish(&self) -> u64 {
        match &self.spilled {
            Some(h) => h.finish(),
            None => sip13(self.bytes.get(..self.len).unwrap_or_default()),
        }
    }
}

/// SipHash-1-3 with both keys 0 (what `DefaultHasher::default()` computes) of a whole message.
fn sip13(msg: &[u8]) -> u64 {
    let mut v = [0x736f_6d65_7073_6575u64, 0x646f_7261_6e64_6f6d, 0x6c79_6765_6e65_7261, 0x7465_6462_7974_6573];
    #[inline(always)]
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    let mut words = msg.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let m = u64::from_le_bytes(b);
        v[3] ^= m;
        round(&mut v);
        v[0] ^= m;
    }
    let mut last = (msg.len() as u64 & 0xff) << 56;
    for (i, byte) in words.remainder().iter().enumerate() {
        last |= u64::from(*byte) << (8 * i);
    }
    v[3] ^= last;
    round(&mut v);
    v[0] ^= last;
    v[2] ^= 0xff;
    round(&mut v);
    round(&mut v);
    round(&mut v);
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

impl<K: PartialEq> PartialEq for Hashed<K> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && self.1 == other.1
    }
}

impl<K: Eq> Eq for Hashed<K> {}

impl<K> std::hash::Hash for Hashed<K> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.0);
    }
}

/// Passes a [`Hashed`] key's stored hash through.
#[derive(Default)]
pub(crate) struct Stored(u64);

impl std::hash::Hasher for Stored {
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is called (by `Hashed`); anything else folds in, never panics.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Probabilities by pre-hashed key.
pub(crate) type HashedMap<K> = std::collections::HashMap<Hashed<K>, f64, std::hash::BuildHasherDefault<Stored>>;

#[cfg(test)]
mod tests {
    use super::{fixed_hash, hash_of, Checked, Fixed};

    #[test]
    fn the_gathered_hash_is_the_streaming_one() {
        use std::hash::BuildHasher;
        let streamed = |k: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = Fixed::default().build_hasher();
            k(&mut h);
            std::hash::Hasher::finish(&h)
        };
        // Every length from empty to past the buffer (the spill), in the shapes a state writes.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..400usize {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let bytes: Vec<u8> = (0..len).map(|i| (x >> (i % 57)) as u8).collect();
            assert_eq!(fixed_hash(&bytes[..]), streamed(&|h| std::hash::Hash::hash(&bytes[..], h)), "{len} bytes");
            let mixed = ([x as i64, -(len as i64)], [vec![len as u32; len % 5], vec![]], (len % 3) as u8, Some(len));
            assert_eq!(fixed_hash(&mixed), streamed(&|h| std::hash::Hash::hash(&mixed, h)), "{mixed:?}");
            let long = vec![x; len];
            assert_eq!(fixed_hash(&long), streamed(&|h| std::hash::Hash::hash(&long, h)), "{len} words");
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
