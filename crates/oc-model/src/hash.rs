//! A fast hash for tables looked up by short keys (names, small integers).

/// The multiply-rotate hash of rustc's `FxHasher`: a few cycles a word. For maps only looked up,
/// never iterated (their order would follow the hash): the engine's caches and states, the
/// compiler's tables of definitions by name. Not for keys an adversary picks.
#[derive(Default)]
pub struct Fx(u64);

impl std::hash::Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word.iter_mut().zip(chunk).for_each(|(w, b)| *w = *b);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hasher builder for [`Fx`].
pub type FxBuild = std::hash::BuildHasherDefault<Fx>;
