//! `fib(n)` with a join at every level, annotated with `#[task_program]`.
//!
//! The classic fine-grained fork–join program (BOTS' `fib` without a
//! cut-off): `fib(n) = n` for `n < 2`, else `fib(n - 1) + fib(n - 2)`, the
//! two calls forked by [`prescient::join`].
//!
//! **What the analysis finds** (CF'17 Table 3 classifies fib the same way):
//! one task context, `fib`, whose join site forks two calls back into `fib`:
//! two recursive parallel paths, ρ = 2, and no spawn in a loop, λ = 0. Each
//! task is a call plus an argument computation, a tiny effort far below the
//! 1M-operation coarse band. CF'17's decision trees would give queue policy
//! `DEF` (ρ = 2 ≤ 5, effort ≤ 1M), queue capacity 4 (ρ > 0, fine-grained)
//! and 256019 dependency buckets (ρ > 0); the calibrated trees (`PARAMS`)
//! give `BF`, capacity 32 (effort 6 < 7667: fine or opaque tasks, BF/32)
//! and the same buckets. The recursion `fib(n - 1)` is `n`
//! levels deep, a depth the analysis cannot bound, so the stack estimate is
//! the conservative 8 MiB (the runtime's default) rather than a guess.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`fib_seq`] and the closed form
//! [`expected`] check every run.

use std::hint::black_box;

pub use tasks::{fib, ANALYSIS, PARAMS};

/// The `n` the integration tests run under both build profiles.
pub const TEST_N: u64 = 27;

/// `fib(n)` computed iteratively: the expected result of every run (the
/// fork-join programs' reference).
pub use crate::programs::fib::expected;

/// The sequential reference: the same recursion without a runtime
/// ([`black_box`] keeps LLVM from turning one of the calls into a loop).
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(black_box(n - 1)) + fib_seq(black_box(n - 2))
}

/// The task code of fib, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use prescient::join;

    /// `fib(n)`, forking the two recursive calls with a join at every level.
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what the
    /// tests and the suite measure) or on the global runtime.
    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
}
