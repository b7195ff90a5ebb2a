//! A deterministic 64-bit integer hash, used for the region table's bucket
//! choice.
//!
//! Region ids are often addresses (aligned, so the low bits are zero) or small
//! consecutive numbers; taken modulo a bucket count directly they would pile
//! into a few buckets. The multiply-xorshift mix spreads every input bit over
//! the whole output. It is deterministic (no random seed) so that the bucket a
//! region lands in, and hence every diagnostic, is reproducible. Hash flooding
//! is not a concern: region and task ids come from the program, not from an
//! adversary.

/// The finaliser of SplitMix64 (Steele, Lea, Flood): a bijection on `u64` with
/// good avalanche behaviour, costing two multiplications.
pub(crate) const fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(keys: impl Iterator<Item = u64>, buckets: u64) -> (u64, u64) {
        let mut counts = vec![0u64; buckets as usize];
        for k in keys {
            counts[(mix64(k) % buckets) as usize] += 1;
        }
        (*counts.iter().min().unwrap(), *counts.iter().max().unwrap())
    }

    #[test]
    fn mix_is_deterministic_and_not_the_identity() {
        assert_eq!(mix64(12345), mix64(12345));
        assert_ne!(mix64(1), 1);
        assert_ne!(mix64(1), mix64(2));
    }

    #[test]
    fn consecutive_and_aligned_keys_spread_over_buckets() {
        // 97 * 100 keys: a fair hash puts about 100 in each bucket.
        let (lo, hi) = spread(0..9700, 97);
        assert!(lo > 50 && hi < 150, "consecutive keys: min {lo}, max {hi}");
        // Page-aligned "addresses" into a power-of-two bucket count: the worst
        // case for a plain modulo (every key would land in bucket 0).
        let (lo, hi) = spread((0..6400).map(|i| 0x7f00_0000_0000 + i * 4096), 64);
        assert!(lo > 50 && hi < 150, "aligned keys: min {lo}, max {hi}");
    }
}
