//! The CF'17 benchmark suite: the twelve programs of Thoman, Zangerl and
//! Fahringer's evaluation (Table 2), each prepared at a chosen size and runnable
//! under every runner the suite compares.
//!
//! The programs themselves (sequential reference, `#[task_program]` task code)
//! live in [`crate::annotated`]; this module turns each into a [`Workload`]: its
//! input prepared once, and one closure per runner that makes a timed,
//! verified run. Every closure times only the computation (input copies, for
//! the in-place programs, happen before the clock starts) and checks its result
//! against the sequential reference after the clock stops.
//!
//! * [`workloads`] prepares a program by name at a [`Size`];
//! * [`baselines`] holds the rayon and chili versions of the task code;
//! * [`crate::tables::cf17`] runs them all, each program × runner × thread
//!   count in its own child process, behind `prescient-bench cf17` (its
//!   documentation explains the output and its conventions); [`sweep`] and
//!   [`calibrate`] are its `--sweep` and `--calibrate`.

pub mod baselines;
pub mod calibrate;
pub mod sweep;
pub mod workloads;

use std::time::Duration;

use prescient::tuning::Counters;

use crate::harness::Pool;

/// The CF'17 table's subcommand name: the `table` of its JSON and the
/// first word of its children's arguments (the suite's and the sweep's).
pub const SUBCOMMAND: &str = "cf17";

/// A run's time and whether its result was right (`Err` says what was wrong).
pub type Timed = (Duration, Result<(), String>);

/// A closure that makes one timed, verified run.
pub type RunFn = Box<dyn Fn() -> Timed + Send + Sync>;

/// A closure that makes one timed, verified run on a chili scope.
pub type ChiliRunFn = Box<dyn Fn(&mut chili::Scope<'_>) -> Timed + Send + Sync>;

/// How big a program's input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// Small enough for a debug-build test: milliseconds.
    Test,
    /// The suite's `--quick` size: a sequential run of roughly 20–300 ms on
    /// one core of a laptop-class machine.
    Quick,
    /// The input of the CF'17 evaluation (Table 2), or BOTS' nearest one.
    Paper,
}

impl Size {
    /// Every size, smallest first.
    pub const ALL: [Size; 3] = [Size::Test, Size::Quick, Size::Paper];

    /// The size's name on the command line and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Size::Test => "test",
            Size::Quick => "quick",
            Size::Paper => "paper",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Size> {
        Size::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One program prepared at one size: a closure per runner.
///
/// `prescient` must be called on a Prescient worker (inside
/// `Runtime::run`), `rayon` inside `ThreadPool::install`; both use the
/// pool they are called in. `chili` receives a scope of a chili pool.
pub struct Workload {
    /// The program's name, as in [`crate::annotated::PROGRAMS`].
    pub program: &'static str,
    /// The input, for humans: `n=35`, `prot.100`, `2^24 points`.
    pub input: String,
    /// The sequential reference.
    pub seq: RunFn,
    /// The `#[task_program]` task code on the current Prescient runtime.
    pub prescient: RunFn,
    /// The rayon version, for every fork–join program.
    pub rayon: Option<RunFn>,
    /// The chili version, where chili's two-way join fits the program.
    pub chili: Option<ChiliRunFn>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workload")
            .field("program", &self.program)
            .field("input", &self.input)
            .field("rayon", &self.rayon.is_some())
            .field("chili", &self.chili.is_some())
            .finish_non_exhaustive()
    }
}

/// What [`Workload::measure`] gives: the timed runs, and Prescient's
/// counters over them.
pub type Measured = (Vec<Duration>, Option<Counters>);

impl Workload {
    /// One warm-up run and `reps` timed ones (at least one) on `pool`,
    /// inside it, every result checked; for Prescient, the counters over the
    /// timed runs. `None`: the workload has no version for this pool.
    ///
    /// # Errors
    /// The first wrong result (the warm-up's included).
    pub fn measure(&self, pool: &Pool, reps: usize) -> Result<Option<Measured>, String> {
        let repeat = |run: &mut dyn FnMut() -> Timed| {
            run().1.map_err(|e| format!("warm-up run: {e}"))?;
            let before = pool.counters();
            let mut times = Vec::with_capacity(reps);
            for i in 0..reps.max(1) {
                let (time, check) = run();
                check.map_err(|e| format!("timed run {}: {e}", i + 1))?;
                times.push(time);
            }
            let counters = pool
                .counters()
                .zip(before)
                .map(|(after, b)| after.since(&b));
            Ok(Some((times, counters)))
        };
        match pool {
            Pool::Seq => repeat(&mut || (self.seq)()),
            Pool::Prescient(rt) => rt.run(|| repeat(&mut || (self.prescient)())),
            Pool::Rayon(pool) => match self.rayon.as_deref() {
                Some(run) => pool.install(|| repeat(&mut || run())),
                None => Ok(None),
            },
            Pool::Chili(pool) => match self.chili.as_deref() {
                Some(run) => {
                    let mut scope = pool.scope();
                    repeat(&mut || run(&mut scope))
                }
                None => Ok(None),
            },
        }
    }
}
