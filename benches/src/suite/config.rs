//! The suite's configurations: which [`Program`] runs under which
//! [`Runner`], and the [`Plan`] a child measures each program by.

use std::fmt;
use std::time::Duration;

use prescient::tuning::QueuePolicy;
use prescient::Params;

use super::work::Work;
use crate::cli::Size;
use crate::programs::tree::Layout;
use crate::programs::{fib, tree};

/// `fib`'s argument at [`Size::Test`].
pub const TEST_FIB_N: u64 = 20;
/// The large tree's nodes at [`Size::Test`]: `2^16 - 1`.
pub const TEST_TREE_NODES: u64 = (1 << 16) - 1;

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

    /// `fib`'s argument at `size`: 35, or 20 at [`Size::Test`].
    pub const fn fib_n(size: Size) -> u64 {
        match size {
            Size::Full | Size::Quick => fib::SUITE_N,
            Size::Test => TEST_FIB_N,
        }
    }

    /// The nodes of a tree program at `size` (`2^k - 1`), `None` for fib:
    /// the 1K tree is the same at every size, the 16M tree has `2^16 - 1`
    /// nodes at [`Size::Test`].
    pub const fn nodes(self, size: Size) -> Option<u64> {
        match (self, size) {
            (Program::Fib, _) => None,
            (Program::Tree1k, _) => Some(tree::NODES_1K),
            (Program::Tree16m, Size::Full | Size::Quick) => Some(tree::NODES_16M),
            (Program::Tree16m, Size::Test) => Some(TEST_TREE_NODES),
        }
    }

    /// The program and its input at `size` as the samples of the JSON name
    /// it: `fib(35)`, `tree 2^10`, `tree 2^24` (a tree of `2^k - 1` nodes).
    pub fn label(self, size: Size) -> String {
        match self.nodes(size) {
            None => format!("fib({})", Program::fib_n(size)),
            Some(nodes) => format!("tree 2^{}", (nodes + 1).trailing_zeros()),
        }
    }

    /// What the program computes at `size`, for humans.
    pub fn description(self, size: Size) -> String {
        match self.nodes(size) {
            None => format!("fib({}), a join at every level", Program::fib_n(size)),
            Some(nodes) => format!("sum of a balanced binary tree of {nodes} nodes"),
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Program> {
        Program::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The joins one run at `size` makes, known analytically.
    pub const fn joins(self, size: Size) -> u64 {
        match self.nodes(size) {
            None => fib::joins(Program::fib_n(size)),
            Some(nodes) => tree::joins(nodes),
        }
    }

    /// Builds the program's input at `size`, a tree in `layout`.
    pub fn prepare(self, layout: Layout, size: Size) -> Work {
        match self.nodes(size) {
            None => Work::fib(Program::fib_n(size)),
            Some(nodes) => Work::tree(nodes, layout),
        }
    }

    /// How the child measures this program at `size`.
    pub const fn plan(self, size: Size) -> Plan {
        let (warmup_ms, samples) = match (self, size) {
            (_, Size::Test) => (10, 3),
            (Program::Fib, Size::Quick) => (300, 5),
            (Program::Fib, Size::Full) => (1000, 15),
            (Program::Tree1k, Size::Quick) => (300, 11),
            (Program::Tree1k, Size::Full) => (1000, 31),
            (Program::Tree16m, Size::Quick) => (100, 3),
            (Program::Tree16m, Size::Full) => (1000, 10),
        };
        Plan {
            warmup: Duration::from_millis(warmup_ms),
            sample_target: Duration::from_millis(match size {
                Size::Full => 20,
                Size::Quick => 5,
                Size::Test => 1,
            }),
            samples,
        }
    }
}

impl std::str::FromStr for Program {
    type Err = String;

    fn from_str(name: &str) -> Result<Program, String> {
        Program::parse(name).ok_or_else(|| {
            format!(
                "unknown program `{name}` (one of {})",
                Program::ALL.map(Program::name).join(", ")
            )
        })
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
    /// ([`Inlining::Never`](prescient::tuning::Inlining::Never)): what the default
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
        Params::DEFAULT.with_inlining(prescient::tuning::Inlining::Never),
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

    /// The runner's name in the shared samples of the JSON
    /// ([`crate::samples`]): `sequential`, `prescient` (the default
    /// parameters: the runtime as a user gets it), `prescient-never`,
    /// `prescient-def-c4`, `prescient-pf-c4`, `rayon`, `chili`.
    pub const fn sample_name(self) -> &'static str {
        match self {
            Runner::Seq => crate::samples::SEQUENTIAL,
            Runner::PrescientDefault => crate::samples::PRESCIENT,
            Runner::PrescientNever => "prescient-never",
            Runner::PrescientDefCap4 => "prescient-def-c4",
            Runner::PrescientPfCap4 => "prescient-pf-c4",
            Runner::Rayon => crate::samples::RAYON,
            Runner::Chili => crate::samples::CHILI,
        }
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

impl std::str::FromStr for Runner {
    type Err = String;

    fn from_str(name: &str) -> Result<Runner, String> {
        Runner::parse(name).ok_or_else(|| {
            format!(
                "unknown runner `{name}` (one of {})",
                Runner::ALL.map(Runner::name).join(", ")
            )
        })
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
        assert_eq!(Program::Fib.joins(Size::Full), 14_930_351);
        assert_eq!(Program::Tree1k.joins(Size::Quick), 1023);
        assert_eq!(Program::Tree16m.joins(Size::Full), 16_777_215);
        assert_eq!(Program::Tree16m.joins(Size::Test), 65_535);
    }

    #[test]
    fn labels_name_the_size() {
        assert_eq!(Program::Fib.label(Size::Full), "fib(35)");
        assert_eq!(Program::Fib.label(Size::Test), "fib(20)");
        assert_eq!(Program::Tree1k.label(Size::Test), "tree 2^10");
        assert_eq!(Program::Tree16m.label(Size::Quick), "tree 2^24");
        assert_eq!(Program::Tree16m.label(Size::Test), "tree 2^16");
        assert_eq!(Runner::PrescientDefault.sample_name(), "prescient");
        assert_eq!(Runner::Seq.sample_name(), "sequential");
    }
}
