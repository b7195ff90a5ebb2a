//! Dataflow benchmark programs (Prescient's `dataflow` tasks with `in` /
//! `out` / `inout` accesses), each with a sequential reference and a checker:
//!
//! * [`two_wave`]: the DAST paper's synthetic benchmark — two waves of
//!   `NUM_TASKS` tasks, task *i* of wave 2 depending on task *i* of wave 1,
//!   each a dependent floating-point chain of `TASK_SIZE` iterations;
//! * [`cholesky`]: blocked Cholesky factorisation (potrf / trsm / syrk / gemm
//!   tasks on tiles);
//! * [`matmul`]: blocked matrix multiply;
//! * [`sparselu`]: BOTS SparseLU on its sparse block layout, with
//!   dependencies (lu0 / fwd / bdiv / bmod);
//! * [`overhead`]: the cost of an empty task, dependent (one `inout` chain)
//!   versus independent (no accesses), and the dependency-table bucket sweep
//!   on a workload with many live handles.
//!
//! Every dataflow variant runs in whichever runtime calls it (inside
//! `Runtime::run`, or the global runtime), and does exactly the kernel calls
//! of its sequential reference, in the same order per tile, so its result is
//! bitwise equal to the reference's: the checkers compare exactly.
//!
//! The criterion benches are in `benches/dataflow.rs`; the quick side-by-side
//! table is the `dataflow_table` binary. Both take their thread counts by the
//! convention of [`crate::cli`].

pub mod cholesky;
pub mod matmul;
pub mod overhead;
pub mod sparselu;
pub mod two_wave;

use prescient::{Params, Runtime};
use std::time::{Duration, Instant};

/// A Prescient runtime of `threads` workers with `params`.
///
/// # Panics
/// If the runtime cannot be built.
pub fn runtime(threads: usize, params: Params) -> Runtime {
    Runtime::builder()
        .num_workers(threads)
        .params(params)
        .build()
        .unwrap_or_else(|e| panic!("cannot build a {threads}-worker runtime: {e}"))
}

/// Parameters whose deque never fills up (`queue_capacity` = 2^16), so that
/// every dataflow task is a real deferred task (never run inline at
/// submission): the task-cost and bucket-sweep measurements use them.
pub const DEFERRING: Params = Params::DEFAULT
    .with_queue_capacity(prescient::MAX_QUEUE_CAPACITY)
    .checked();

/// The best (shortest) of `reps` timings of `run`, after one untimed
/// warm-up run. On a shared machine other processes only ever add time, so
/// the minimum is the least disturbed measurement.
pub fn best_time(reps: usize, mut run: impl FnMut()) -> Duration {
    run();
    (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .min()
        .expect("at least one run")
}

/// Compares two results exactly (the dataflow variants do the reference's
/// floating-point operations in the same order).
///
/// # Errors
/// The first differing index and both values.
pub fn compare_exact<T: PartialEq + std::fmt::Debug>(
    got: &[T],
    expected: &[T],
    what: &str,
) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            expected.len()
        ));
    }
    match got.iter().zip(expected).position(|(g, e)| g != e) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: value {i} is {:?}, expected {:?}",
            got[i], expected[i]
        )),
    }
}

/// A deterministic pseudo-random `f64` in `[-1, 1)` for input generation.
pub(crate) fn unit_random(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}
