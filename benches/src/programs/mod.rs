//! The benchmark programs.
//!
//! Each program has a sequential reference (`*_seq`) and one variant per
//! runner: `*_prescient` ([`prescient::join`]), `*_rayon` ([`rayon::join`]) and
//! `*_chili` ([`chili::Scope::join`]). The variants have the same shape as the
//! reference, call for call, and [`std::hint::black_box`] sits in the same
//! place in each of them (on the argument of every recursive call), so that
//! LLVM cannot turn one of the two recursive calls of the sequential
//! reference into a loop and make the baseline do less work than the
//! parallel variants. Every program also states its expected result and its
//! number of joins analytically, so that the suite checks every run and
//! reports the overhead per join.
//!
//! The parallel variants work from any thread: inside a pool (what the suite
//! measures) or, for Prescient and rayon, on their global pool.

pub mod fib;
pub mod tree;

/// The two-thread pools the programs' unit tests run each parallel variant
/// in, built as the fork-join table builds them
/// ([`crate::tables::fork_join::pool::build`]).
#[cfg(test)]
pub(crate) mod test_pools {
    use crate::tables::fork_join::programs::RUNNERS;
    use crate::tables::fork_join::Pool;

    fn build(runner: &str) -> Pool {
        crate::tables::fork_join::pool::build(runner, 2).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Calls `check` inside a two-worker runtime of each Prescient runner.
    pub(crate) fn in_each_prescient(check: impl Fn() + Sync) {
        for (runner, _, _) in RUNNERS {
            if let Pool::Prescient(rt) = build(runner) {
                rt.run(&check);
            }
        }
    }

    /// Calls `check` inside a two-thread rayon pool.
    pub(crate) fn in_rayon(check: impl FnOnce() + Send) {
        match build("rayon") {
            Pool::Rayon(pool) => pool.install(check),
            other => unreachable!("{other:?}"),
        }
    }

    /// Calls `check` with a scope of a two-thread chili pool.
    pub(crate) fn in_chili(check: impl FnOnce(&mut chili::Scope<'_>)) {
        match build("chili") {
            Pool::Chili(pool) => check(&mut pool.scope()),
            other => unreachable!("{other:?}"),
        }
    }
}
