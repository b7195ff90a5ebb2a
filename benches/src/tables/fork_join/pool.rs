//! The child's side of the fork-join table: a program's prepared input
//! ([`Work`]), the runner's [`Pool`], which times runs of it inside itself,
//! and the [`Measurement`] it takes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use prescient::tuning::Counters;

use super::programs::{params, Program, Sampling};
use crate::cli::Size;
use crate::harness::record::cpu_time_ns;
pub use crate::harness::Pool;
use crate::programs::tree::Layout;
use crate::programs::{fib, tree};

/// What [`Pool::measure`] found.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Runs per timed batch.
    pub batch: u64,
    /// Nanoseconds per run of each batch, in the order taken.
    pub per_run_ns: Vec<f64>,
    /// For Prescient: the counters accumulated over the timed batches
    /// (`live_stacks` and `peak_live_stacks` are the values after them).
    pub counters: Option<Counters>,
    /// The process CPU time (user + system, every thread) over the wall time
    /// of the timed batches: about the number of busy threads (spinning
    /// counts). Below 1 at one thread, the machine was busy with others.
    pub cpu_per_wall: f64,
}

impl Measurement {
    /// The number of timed runs.
    pub fn runs(&self) -> u64 {
        self.batch * self.per_run_ns.len() as u64
    }

    /// The median time per run, in nanoseconds.
    pub fn median_ns(&self) -> f64 {
        crate::harness::record::median(&self.per_run_ns)
    }
}

/// The fork-join table's own runner `runner` ([`super::programs::RUNNERS`])
/// with `threads` threads (ignored by `seq`).
///
/// # Errors
/// An unknown runner, or a pool that cannot be built.
pub fn build(runner: &str, threads: usize) -> Result<Pool, String> {
    Pool::build(runner, params(runner), threads)
}

impl Pool {
    /// Enters the pool once and calls `body` there with a function that
    /// makes one run of `work` with this pool's runner.
    fn enter<R: Send>(
        &self,
        work: &Work,
        body: impl FnOnce(&mut dyn FnMut() -> u64) -> R + Send,
    ) -> R {
        match self {
            Pool::Seq => body(&mut || work.run_seq()),
            Pool::Prescient(rt) => rt.run(|| body(&mut || work.run_prescient())),
            Pool::Rayon(pool) => pool.install(|| body(&mut || work.run_rayon())),
            Pool::Chili(pool) => {
                let mut scope = pool.scope();
                body(&mut || work.run_chili(&mut scope))
            }
        }
    }

    /// Enters the pool once and times `iters` runs of `work` inside it (the
    /// entry is not timed). Every result is checked.
    pub fn time(&self, work: &Work, iters: u64) -> Duration {
        let expected = work.expected();
        self.enter(work, |one| time_runs(one, expected, iters))
    }

    /// Warms up for at least `warmup` inside the pool, doubling the batch
    /// until one batch lasts at least `sample_target`; returns that batch size.
    pub fn calibrate(&self, work: &Work, warmup: Duration, sample_target: Duration) -> u64 {
        let expected = work.expected();
        self.enter(work, |one| {
            let start = Instant::now();
            let mut batch = 1u64;
            loop {
                let elapsed = time_runs(one, expected, batch);
                if elapsed < sample_target {
                    batch = batch.saturating_mul(2);
                } else if start.elapsed() >= warmup {
                    return batch;
                }
            }
        })
    }

    /// Warms up and sizes batches ([`calibrate`](Self::calibrate)), then
    /// times `plan.samples` batches in one entry into the pool, reading the
    /// counters around that entry.
    pub fn measure(&self, work: &Work, plan: &Sampling) -> Measurement {
        let batch = self.calibrate(work, plan.warmup, plan.sample_target);
        let expected = work.expected();
        let before = self.counters();
        let cpu_before = cpu_time_ns();
        let wall_before = Instant::now();
        let per_run_ns = self.enter(work, |one| {
            (0..plan.samples.max(1))
                .map(|_| time_runs(one, expected, batch).as_nanos() as f64 / batch as f64)
                .collect::<Vec<f64>>()
        });
        let wall = wall_before.elapsed().as_nanos() as f64;
        let cpu = cpu_time_ns().saturating_sub(cpu_before) as f64;
        let counters = match (self.counters(), before) {
            (Some(after), Some(before)) => Some(after.since(&before)),
            _ => None,
        };
        Measurement {
            batch,
            per_run_ns,
            counters,
            cpu_per_wall: if wall > 0.0 { cpu / wall } else { f64::NAN },
        }
    }
}

/// Times `iters` calls of `one`, checking each result.
fn time_runs(one: &mut dyn FnMut() -> u64, expected: u64, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        let result = one();
        if result != expected {
            wrong_result(result, expected);
        }
    }
    start.elapsed()
}

#[cold]
#[inline(never)]
fn wrong_result(result: u64, expected: u64) -> ! {
    panic!("wrong result: got {result}, expected {expected}");
}

impl Program {
    /// Builds the program's input at `size`, a tree in `layout`.
    pub fn prepare(self, layout: Layout, size: Size) -> Work {
        match self.nodes(size) {
            None => Work::fib(Program::fib_n(size)),
            Some(nodes) => Work::tree(nodes, layout),
        }
    }
}

/// A program's prepared input and its expected result.
#[derive(Debug)]
pub struct Work {
    input: Input,
    expected: u64,
}

#[derive(Debug)]
enum Input {
    Fib(u64),
    Tree(Box<tree::Node>),
}

impl Work {
    /// `fib(n)`.
    pub fn fib(n: u64) -> Work {
        Work {
            input: Input::Fib(n),
            expected: fib::expected(n),
        }
    }

    /// The sum of a balanced tree of `nodes` nodes, built here in `layout`.
    pub fn tree(nodes: u64, layout: Layout) -> Work {
        Work {
            input: Input::Tree(tree::Node::balanced_in(nodes, layout)),
            expected: tree::expected(nodes),
        }
    }

    /// The result every run must return.
    pub fn expected(&self) -> u64 {
        self.expected
    }

    /// One run of the sequential reference.
    pub fn run_seq(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_seq(black_box(*n)),
            Input::Tree(root) => tree::sum_seq(black_box(root)),
        }
    }

    /// One run with Prescient (inside a Prescient runtime, or on its global one).
    pub fn run_prescient(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_prescient(black_box(*n)),
            Input::Tree(root) => tree::sum_prescient(black_box(root)),
        }
    }

    /// One run with rayon (inside a rayon pool, or on its global one).
    pub fn run_rayon(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_rayon(black_box(*n)),
            Input::Tree(root) => tree::sum_rayon(black_box(root)),
        }
    }

    /// One run with chili on `scope`.
    pub fn run_chili(&self, scope: &mut chili::Scope<'_>) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_chili(scope, black_box(*n)),
            Input::Tree(root) => tree::sum_chili(scope, black_box(root)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pool_measures_small_work() {
        let sampling = Sampling {
            warmup: Duration::from_millis(1),
            sample_target: Duration::from_micros(100),
            samples: 3,
        };
        for (runner, _, params) in super::super::programs::RUNNERS {
            let pool = build(runner, 2).expect("pool builds");
            for work in [Work::fib(12), Work::tree(255, Layout::DEFAULT)] {
                let m = pool.measure(&work, &sampling);
                assert_eq!(m.per_run_ns.len(), 3);
                assert!(m.batch >= 1 && m.median_ns() > 0.0);
                assert_eq!(m.counters.is_some(), params.is_some());
                assert!(pool.time(&work, 2) > Duration::ZERO);
            }
        }
        assert!(build("nope", 1).is_err());
    }
}
