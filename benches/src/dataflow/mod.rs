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
//! table is [`crate::tables::dataflow`] (`prescient-bench dataflow`). Both take their thread counts by the
//! convention of [`crate::cli`].

pub mod cholesky;
pub mod matmul;
pub mod overhead;
pub mod sparselu;
pub mod two_wave;

use prescient::{Params, Runtime};
use std::time::{Duration, Instant};

/// Tile `write` of `tiles` (tiles of `len` values, numbered from 0)
/// mutably and the tiles `reads`, each different from `write`, shared: the
/// borrows of one kernel call of a sequential reference, without copying
/// the tiles it reads.
///
/// # Panics
/// If a tile of `reads` is `write`, or a tile is out of range.
pub fn write_and_read<T, const N: usize>(
    tiles: &mut [T],
    len: usize,
    write: usize,
    reads: [usize; N],
) -> (&mut [T], [&[T]; N]) {
    let (before, rest) = tiles.split_at_mut(write * len);
    let (tile, after) = rest.split_at_mut(len);
    let (before, after) = (&*before, &*after);
    let reads = reads.map(|read| {
        assert_ne!(
            read, write,
            "a tile both read and written by one kernel call"
        );
        if read < write {
            &before[read * len..][..len]
        } else {
            &after[(read - write - 1) * len..][..len]
        }
    });
    (tile, reads)
}

/// A blocked kernel of the dataflow benchmarks (Cholesky, matmul,
/// SparseLU): its sequential reference and its dataflow version, both in
/// place on a matrix `M`, and its checker. Each kernel module has its own as
/// `KERNEL`, which the table, the criterion bench and the tests drive.
#[derive(Clone, Copy, Debug)]
pub struct Kernel<M> {
    /// The sequential reference, in place.
    pub sequential: fn(&mut M),
    /// The dataflow version, in place, in whichever runtime calls it.
    pub dataflow: fn(&mut M),
    /// Compares a result (first) with the reference's (second).
    pub check: fn(&M, &M) -> Result<(), String>,
}

impl<M> Kernel<M> {
    /// The kernel of these three functions.
    pub const fn new(
        sequential: fn(&mut M),
        dataflow: fn(&mut M),
        check: fn(&M, &M) -> Result<(), String>,
    ) -> Kernel<M> {
        Kernel {
            sequential,
            dataflow,
            check,
        }
    }
}

impl<M: Clone + Send> Kernel<M> {
    /// The sequential reference's result on a copy of `input`.
    pub fn reference(&self, input: &M) -> M {
        let mut m = input.clone();
        (self.sequential)(&mut m);
        m
    }

    /// The dataflow version's result on a copy of `input`, run in `runtime`.
    pub fn run_dataflow(&self, runtime: &Runtime, input: &M) -> M {
        let mut m = input.clone();
        runtime.run(|| (self.dataflow)(&mut m));
        m
    }

    /// Runs the dataflow version on a copy of `input` in `runtime` and
    /// checks its result against `reference`.
    ///
    /// # Errors
    /// The checker's message.
    pub fn run_checked(&self, runtime: &Runtime, input: &M, reference: &M) -> Result<(), String> {
        (self.check)(&self.run_dataflow(runtime, input), reference)
    }
}

#[cfg(test)]
impl<M: Clone + Send> Kernel<M> {
    /// For the kernels' tests: the reference's result on `original`, after
    /// checking that the dataflow version on two workers matches it and that
    /// the checker rejects `original` itself (it can fail).
    pub(crate) fn verified_reference(&self, original: &M) -> M {
        let reference = self.reference(original);
        let runtime = runtime(2, Params::DEFAULT);
        self.run_checked(&runtime, original, &reference).unwrap();
        assert!(
            (self.check)(original, &reference).is_err(),
            "the checker never fails"
        );
        reference
    }
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
    .with_queue_capacity(prescient::tuning::MAX_QUEUE_CAPACITY)
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
