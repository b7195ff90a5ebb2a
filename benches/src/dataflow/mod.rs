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
//! table is the `dataflow_table` binary.

pub mod cholesky;
pub mod matmul;
pub mod overhead;
pub mod sparselu;
pub mod two_wave;

use prescient::{Params, Runtime};
use std::time::{Duration, Instant};

/// The environment variable with the thread counts to measure (`1,2`,
/// `1,2,4`, `all`), shared with the rest of the suite.
pub const THREADS_ENV: &str = "PRESCIENT_BENCH_THREADS";

/// The thread counts of [`THREADS_ENV`], capped at the available
/// parallelism; default 1 and 2 (capped).
///
/// # Panics
/// If the variable is set but not a list of positive integers or `all`.
pub fn bench_threads() -> Vec<usize> {
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    match std::env::var(THREADS_ENV) {
        Ok(spec) if !spec.trim().is_empty() => {
            parse_threads(&spec, available).unwrap_or_else(|e| panic!("{THREADS_ENV}: {e}"))
        }
        _ => parse_threads("1,2", available).expect("valid default"),
    }
}

/// Parses a thread list: comma-separated positive integers, or `all`
/// (1, 2, 4, … up to `available`, which is included). Counts above
/// `available` are kept (oversubscription is allowed when asked for
/// explicitly) except in the default list, which the caller caps.
///
/// # Errors
/// A message naming the bad entry.
pub fn parse_threads(spec: &str, available: usize) -> Result<Vec<usize>, String> {
    let spec = spec.trim();
    let mut threads = if spec == "all" {
        let mut list = Vec::new();
        let mut n = 1;
        while n < available {
            list.push(n);
            n *= 2;
        }
        list.push(available);
        list
    } else {
        spec.split(',')
            .map(|part| match part.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("{part:?} is not a positive thread count")),
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    if spec == "1,2" {
        threads.iter_mut().for_each(|n| *n = (*n).min(available));
    }
    threads.sort_unstable();
    threads.dedup();
    Ok(threads)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists_parse() {
        assert_eq!(parse_threads("1,2", 8), Ok(vec![1, 2]));
        assert_eq!(parse_threads("1,2", 1), Ok(vec![1]));
        assert_eq!(parse_threads(" 4, 1 ,4", 2), Ok(vec![1, 4]));
        assert_eq!(parse_threads("all", 6), Ok(vec![1, 2, 4, 6]));
        assert_eq!(parse_threads("all", 1), Ok(vec![1]));
        assert!(parse_threads("0", 4).is_err());
        assert!(parse_threads("two", 4).is_err());
    }
}
