//! What the graph crate's randomized tests share: their seeded generator.

// Each module of the binary uses only some of these.
#![allow(dead_code)]

/// xorshift64* (Vigna): tiny, deterministic, good enough for test
/// generation.
pub struct XorShift(u64);

impl XorShift {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        // Any non-zero state works; scramble so that nearby seeds diverge.
        XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-ish in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// [`below`](Self::below) for an index into something of length `n`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with probability `p` percent.
    pub fn percent(&mut self, p: usize) -> bool {
        self.index(100) < p
    }
}
