//! A fast hash for maps that are only looked up, never iterated.

use std::collections::HashMap;

/// A map only looked up, never iterated (so its order cannot reach a result), with a fast hash.
pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;

/// The multiply-rotate hash of rustc's `FxHasher`: a few cycles a word (the states hashed here
/// are a handful of small integers).
#[derive(Default)]
pub(crate) struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word.iter_mut().zip(chunk).for_each(|(w, b)| *w = *b);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
