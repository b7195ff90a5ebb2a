//! The mixed-granularity workload of the inlining table
//! (`prescient-bench inlining`, [`crate::tables::inlining`]): an
//! iterative program whose sweeps mix many tiny tasks and a few large ones
//! from *different* spawn sites, as an alternating-least-squares sweep mixes
//! per-row updates with a few whole-factor products. It is what per-site
//! adaptive inlining is for: the tiny site should run its tasks as plain
//! calls, the large site should keep spawning.
//!
//! `cargo bench-run prescient-bench -- inlining [--quick] [--threads LIST] [--policies LIST] [--programs LIST]`
//!
//! # The work
//! A sweep runs [`Mixed::tiny`] tiny tasks of [`TINY_ROUNDS`] rounds of a
//! 64-bit mixing function (roughly 20–50 ns) and then [`Mixed::large`] large
//! tasks of [`LARGE_ROUNDS`] rounds (roughly 20–50 µs). Every task's input is
//! the sweep's seed and its index; the wrapping sums of the tiny and of the
//! large results, mixed with the seed, are the next sweep's seed, so the
//! sweeps run one after the other and the final seed checks every task of
//! every sweep. The sums do not depend on the order the tasks finish in.
//!
//! # The variants
//! * [`Mixed::seq`]: plain loops, the reference.
//! * [`Mixed::prescient`]: [`prescient::spawn`] and [`TaskHandle::join`] —
//!   the tiny tasks from one call site, in groups of [`GROUP`] (spawned, then
//!   joined newest first, so the deque never fills and every spawn is the
//!   inliner's to decide), the large ones from another, all spawned, then
//!   joined newest first.
//! * [`Mixed::rayon`] and [`Mixed::chili`]: the same tasks, forked by a
//!   recursive halving of each phase's task list with `rayon::join` and
//!   chili's `Scope::join` (one leaf per task).
//!
//! [`black_box`] sits on every task's index in each variant, alike.

use prescient::TaskHandle;
use std::hint::black_box;

/// Rounds of the mixing function in a tiny task: about 30–40 ns of
/// dependent multiplies on a current x86 core.
pub const TINY_ROUNDS: u32 = 12;

/// Rounds of the mixing function in a large task: about 30 µs.
pub const LARGE_ROUNDS: u32 = 10_000;

/// Tiny tasks the Prescient variant spawns before joining them (fewer than
/// the default queue capacity, 16).
pub const GROUP: u32 = 8;

/// The seed of the first sweep.
pub const SEED: u64 = 0x5eed_1a7e_0f1e_1d5a;

/// The shape of a mixed workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mixed {
    /// Sweeps, run one after the other.
    pub sweeps: u32,
    /// Tiny tasks per sweep.
    pub tiny: u32,
    /// Large tasks per sweep.
    pub large: u32,
}

/// The `--quick` shape: 20 sweeps of 2 000 tiny and 16 large tasks (about
/// 11 ms sequentially on the 2-core development host).
pub const QUICK: Mixed = Mixed {
    sweeps: 20,
    tiny: 2000,
    large: 16,
};

/// The `--test-size` shape: 2 sweeps of 200 tiny and 4 large tasks (every
/// kind of task and site, in well under a millisecond in release).
pub const TEST: Mixed = Mixed {
    sweeps: 2,
    tiny: 200,
    large: 4,
};

/// The full shape: 100 sweeps of 2 000 tiny and 16 large tasks.
pub const FULL: Mixed = Mixed {
    sweeps: 100,
    tiny: 2000,
    large: 16,
};

/// One round of mixing (splitmix64's finaliser).
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `rounds` dependent rounds of [`mix`] from `x`.
#[inline(always)]
fn rounds(mut x: u64, rounds: u32) -> u64 {
    for _ in 0..rounds {
        x = mix(x);
    }
    x
}

/// Tiny task `k` of the sweep with seed `seed`.
#[inline]
pub fn tiny_task(seed: u64, k: u32) -> u64 {
    rounds(
        seed ^ (u64::from(k) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        TINY_ROUNDS,
    )
}

/// Large task `b` of the sweep with seed `seed`.
#[inline(never)]
pub fn large_task(seed: u64, b: u32) -> u64 {
    rounds(
        seed.rotate_left(17) ^ (u64::from(b) + 1).wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
        LARGE_ROUNDS,
    )
}

/// The seed of the sweep after the one with `seed`, whose tiny and large
/// results summed (wrapping) to `tiny` and `large`.
fn next_seed(seed: u64, tiny: u64, large: u64) -> u64 {
    mix(seed ^ tiny ^ large.rotate_left(32))
}

impl Mixed {
    /// The input, for humans.
    pub fn describe(self) -> String {
        format!(
            "{} sweeps x ({} tiny tasks of {TINY_ROUNDS} rounds + {} large of {LARGE_ROUNDS})",
            self.sweeps, self.tiny, self.large
        )
    }

    /// The sequential reference: plain loops.
    pub fn seq(self) -> u64 {
        let mut seed = SEED;
        for _ in 0..self.sweeps {
            let tiny = (0..self.tiny)
                .map(|k| tiny_task(seed, black_box(k)))
                .fold(0, u64::wrapping_add);
            let large = (0..self.large)
                .map(|b| large_task(seed, black_box(b)))
                .fold(0, u64::wrapping_add);
            seed = next_seed(seed, tiny, large);
        }
        seed
    }

    /// The Prescient variant: every task a [`prescient::spawn`], the tiny
    /// ones from one call site in groups of [`GROUP`], the large ones from
    /// another. On a worker it uses that worker's runtime, elsewhere the
    /// global one.
    pub fn prescient(self) -> u64 {
        let mut seed = SEED;
        let mut handles: Vec<TaskHandle<u64>> = Vec::with_capacity(GROUP.max(self.large) as usize);
        for _ in 0..self.sweeps {
            let mut tiny = 0;
            let mut k = 0;
            while k < self.tiny {
                let end = (k + GROUP).min(self.tiny);
                handles.extend(
                    (k..end).map(|k| prescient::spawn(move || tiny_task(seed, black_box(k)))),
                );
                tiny = join_all(&mut handles, tiny);
                k = end;
            }
            handles.extend(
                (0..self.large).map(|b| prescient::spawn(move || large_task(seed, black_box(b)))),
            );
            let large = join_all(&mut handles, 0);
            seed = next_seed(seed, tiny, large);
        }
        seed
    }

    /// The rayon variant: each phase's tasks forked by recursive halving
    /// with [`rayon::join`] (in the current pool, or rayon's global one).
    pub fn rayon(self) -> u64 {
        let mut seed = SEED;
        for _ in 0..self.sweeps {
            let tiny = sum_rayon(0, self.tiny, &|k| tiny_task(seed, black_box(k)));
            let large = sum_rayon(0, self.large, &|b| large_task(seed, black_box(b)));
            seed = next_seed(seed, tiny, large);
        }
        seed
    }

    /// The chili variant: each phase's tasks forked by recursive halving
    /// with chili's [`Scope::join`](chili::Scope::join).
    pub fn chili(self, scope: &mut chili::Scope<'_>) -> u64 {
        let mut seed = SEED;
        for _ in 0..self.sweeps {
            let tiny = sum_chili(scope, 0, self.tiny, &|k| tiny_task(seed, black_box(k)));
            let large = sum_chili(scope, 0, self.large, &|b| large_task(seed, black_box(b)));
            seed = next_seed(seed, tiny, large);
        }
        seed
    }
}

/// Joins and empties `handles`, newest first, adding their results to `acc`.
fn join_all(handles: &mut Vec<TaskHandle<u64>>, acc: u64) -> u64 {
    handles
        .drain(..)
        .rev()
        .fold(acc, |acc, h| acc.wrapping_add(h.join()))
}

/// The wrapping sum of `task(i)` for `i` in `lo..hi`, halved with
/// `rayon::join` down to single tasks.
fn sum_rayon(lo: u32, hi: u32, task: &(impl Fn(u32) -> u64 + Sync)) -> u64 {
    match hi - lo {
        0 => 0,
        1 => task(lo),
        n => {
            let mid = lo + n / 2;
            let (a, b) = rayon::join(|| sum_rayon(lo, mid, task), || sum_rayon(mid, hi, task));
            a.wrapping_add(b)
        }
    }
}

/// The wrapping sum of `task(i)` for `i` in `lo..hi`, halved with chili's
/// `Scope::join` down to single tasks.
fn sum_chili(
    scope: &mut chili::Scope<'_>,
    lo: u32,
    hi: u32,
    task: &(impl Fn(u32) -> u64 + Sync),
) -> u64 {
    match hi - lo {
        0 => 0,
        1 => task(lo),
        n => {
            let mid = lo + n / 2;
            let (a, b) = scope.join(
                |s| sum_chili(s, lo, mid, task),
                |s| sum_chili(s, mid, hi, task),
            );
            a.wrapping_add(b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::test_pools::{in_chili, in_each_prescient, in_rayon};

    const SMALL: Mixed = Mixed {
        sweeps: 3,
        tiny: 101,
        large: 3,
    };

    #[test]
    fn sweeps_depend_on_every_task() {
        let base = SMALL.seq();
        assert_ne!(base, SEED);
        for other in [
            Mixed { sweeps: 2, ..SMALL },
            Mixed { tiny: 100, ..SMALL },
            Mixed { large: 2, ..SMALL },
        ] {
            assert_ne!(other.seq(), base, "{other:?}");
        }
    }

    #[test]
    fn variants_match_the_reference() {
        let expected = SMALL.seq();
        let empty = Mixed {
            sweeps: 2,
            tiny: 0,
            large: 0,
        };
        in_each_prescient(|| {
            assert_eq!(SMALL.prescient(), expected);
            assert_eq!(empty.prescient(), empty.seq());
        });
        in_rayon(|| {
            assert_eq!(SMALL.rayon(), expected);
            assert_eq!(empty.rayon(), empty.seq());
        });
        in_chili(|scope| {
            assert_eq!(SMALL.chili(scope), expected);
            assert_eq!(empty.chili(scope), empty.seq());
        });
    }
}
