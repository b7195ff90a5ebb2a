//! The suite's configurations: which [`Program`] runs under which
//! [`Runner`], and the [`Plan`] a child measures each program by.

use std::fmt;
use std::time::Duration;

use prescient::{Params, QueuePolicy};

use super::work::Work;
use crate::programs::tree::Layout;
use crate::programs::{fib, tree};

/// A benchmark program of the suite, at its suite size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    /// `fib(35)` with a join at every level.
    Fib,
    /// The sum of a balanced binary tree of 1 023 nodes.
    Tree1k,
    /// The sum of a balanced binary tree of 16 777 215 nodes.
    Tree16m,
}

impl Program {
    /// Every program, in the suite's order.
    pub const ALL: [Program; 3] = [Program::Fib, Program::Tree1k, Program::Tree16m];

    /// The program's name on the command line, in tables and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Program::Fib => "fib",
            Program::Tree1k => "tree1k",
            Program::Tree16m => "tree16m",
        }
    }

    /// What the program computes, for humans.
    pub const fn description(self) -> &'static str {
        match self {
            Program::Fib => "fib(35), a join at every level",
            Program::Tree1k => "sum of a balanced binary tree of 1023 nodes",
            Program::Tree16m => "sum of a balanced binary tree of 16777215 nodes",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Program> {
        Program::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The joins one run makes, known analytically.
    pub const fn joins(self) -> u64 {
        match self {
            Program::Fib => fib::joins(fib::SUITE_N),
            Program::Tree1k => tree::joins(tree::NODES_1K),
            Program::Tree16m => tree::joins(tree::NODES_16M),
        }
    }

    /// Builds the program's input at its suite size, a tree in `layout`.
    pub fn prepare(self, layout: Layout) -> Work {
        match self {
            Program::Fib => Work::fib(fib::SUITE_N),
            Program::Tree1k => Work::tree(tree::NODES_1K, layout),
            Program::Tree16m => Work::tree(tree::NODES_16M, layout),
        }
    }

    /// How the child measures this program.
    pub const fn plan(self, quick: bool) -> Plan {
        let (warmup_ms, samples) = match (self, quick) {
            (Program::Fib, true) => (300, 5),
            (Program::Fib, false) => (1000, 15),
            (Program::Tree1k, true) => (300, 11),
            (Program::Tree1k, false) => (1000, 31),
            (Program::Tree16m, true) => (100, 3),
            (Program::Tree16m, false) => (1000, 10),
        };
        Plan {
            warmup: Duration::from_millis(warmup_ms),
            sample_target: Duration::from_millis(if quick { 5 } else { 20 }),
            samples,
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Runner {
    /// The sequential reference, no runtime (measured once, at one thread).
    Seq,
    /// Prescient with [`Params::DEFAULT`] (`DEF`, capacity 16, adaptive
    /// inlining).
    PrescientDefault,
    /// Prescient with [`Params::DEFAULT`] but no inlining
    /// ([`Inlining::Never`](prescient::Inlining::Never)): what the default
    /// was before per-site inlining, and what inlining is measured against.
    PrescientNever,
    /// Prescient with `DEF` and capacity 4: what CF'17's decision tree
    /// chooses for fib (ρ = 2, tiny effort).
    PrescientDefCap4,
    /// Prescient with `PF` and capacity 4.
    PrescientPfCap4,
    /// rayon 1.12: `rayon::join` inside `ThreadPool::install`.
    Rayon,
    /// chili 0.2.1: `Scope::join` on a scope of the pool.
    Chili,
}

impl Runner {
    /// Every runner, in the suite's order.
    pub const ALL: [Runner; 7] = [
        Runner::Seq,
        Runner::PrescientDefault,
        Runner::PrescientNever,
        Runner::PrescientDefCap4,
        Runner::PrescientPfCap4,
        Runner::Rayon,
        Runner::Chili,
    ];

    /// The parameters of the four Prescient runners, in their order.
    pub const PRESCIENT_PARAMS: [Params; 4] = [
        Params::DEFAULT,
        Params::DEFAULT.with_inlining(prescient::Inlining::Never),
        Params::DEFAULT
            .with_queue_policy(QueuePolicy::InsertBackStealBack)
            .with_queue_capacity(4)
            .checked(),
        Params::DEFAULT
            .with_queue_policy(QueuePolicy::InsertFrontStealBack)
            .with_queue_capacity(4)
            .checked(),
    ];

    /// The runners whose idle CPU the suite measures.
    pub const IDLE: [Runner; 3] = [Runner::PrescientDefault, Runner::Rayon, Runner::Chili];

    /// The runner's name on the command line, in tables and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Seq => "seq",
            Runner::PrescientDefault => "prescient-default",
            Runner::PrescientNever => "prescient-never",
            Runner::PrescientDefCap4 => "prescient-def-c4",
            Runner::PrescientPfCap4 => "prescient-pf-c4",
            Runner::Rayon => "rayon",
            Runner::Chili => "chili",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The Prescient parameters of this runner, `None` for the others.
    pub const fn params(self) -> Option<Params> {
        match self {
            Runner::PrescientDefault => Some(Runner::PRESCIENT_PARAMS[0]),
            Runner::PrescientNever => Some(Runner::PRESCIENT_PARAMS[1]),
            Runner::PrescientDefCap4 => Some(Runner::PRESCIENT_PARAMS[2]),
            Runner::PrescientPfCap4 => Some(Runner::PRESCIENT_PARAMS[3]),
            Runner::Seq | Runner::Rayon | Runner::Chili => None,
        }
    }

    /// Whether this runner uses threads (everything but [`Runner::Seq`]).
    pub const fn is_parallel(self) -> bool {
        !matches!(self, Runner::Seq)
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a child measures: warm up (and size the batches) for at least
/// `warmup`, then take `samples` timed batches, each of enough runs to last
/// at least `sample_target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The least warm-up time.
    pub warmup: Duration,
    /// The least duration of one timed batch (fib and the 16M tree take one
    /// run per batch; the 1K tree takes thousands).
    pub sample_target: Duration,
    /// The number of timed batches.
    pub samples: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Program::ALL {
            assert_eq!(Program::parse(p.name()), Some(p));
        }
        for r in Runner::ALL {
            assert_eq!(Runner::parse(r.name()), Some(r));
        }
        assert_eq!(Program::parse("nope"), None);
        assert_eq!(Runner::parse("nope"), None);
    }

    #[test]
    fn runner_params() {
        assert_eq!(Runner::PrescientDefault.params(), Some(Params::DEFAULT));
        let def4 = Runner::PrescientDefCap4.params().unwrap();
        assert_eq!(
            (def4.queue_policy, def4.queue_capacity),
            (QueuePolicy::InsertBackStealBack, 4)
        );
        let pf4 = Runner::PrescientPfCap4.params().unwrap();
        assert_eq!(
            (pf4.queue_policy, pf4.queue_capacity),
            (QueuePolicy::InsertFrontStealBack, 4)
        );
        assert_eq!(Runner::Rayon.params(), None);
        assert!(!Runner::Seq.is_parallel());
    }

    #[test]
    fn joins_are_analytic() {
        assert_eq!(Program::Fib.joins(), 14_930_351);
        assert_eq!(Program::Tree1k.joins(), 1023);
        assert_eq!(Program::Tree16m.joins(), 16_777_215);
    }
}
