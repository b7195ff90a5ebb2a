//! The fork-join table's description: its programs ([`Program`]), its own
//! runners ([`RUNNERS`], a peer's after them), how a child samples each
//! program ([`Sampling`]), and a run's [`Settings`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use prescient::tuning::{Inlining, QueuePolicy};
use prescient::Params;

use crate::cli::{self, default_output, Size};
use crate::harness::{Outcome, Plan, Runner};
use crate::programs::tree::Layout;
use crate::programs::{fib, tree};
use crate::samples;

/// `fib`'s argument at [`Size::Test`].
pub const TEST_FIB_N: u64 = 20;
/// The large tree's nodes at [`Size::Test`]: `2^16 - 1`.
pub const TEST_TREE_NODES: u64 = (1 << 16) - 1;

/// A benchmark program of the table, at its size.
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
    /// Every program, in the table's order.
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

    /// The program and its input at `size` as the samples name it:
    /// `fib(35)`, `tree 2^10`, `tree 2^24` (a tree of `2^k - 1` nodes).
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

    /// The joins one run at `size` makes, known analytically.
    pub const fn joins(self, size: Size) -> u64 {
        match self.nodes(size) {
            None => fib::joins(Program::fib_n(size)),
            Some(nodes) => tree::joins(nodes),
        }
    }

    /// The result of one run at `size`.
    pub const fn expected(self, size: Size) -> u64 {
        match self.nodes(size) {
            None => fib::expected(Program::fib_n(size)),
            Some(nodes) => tree::expected(nodes),
        }
    }

    /// How the child samples this program at `size`.
    pub const fn sampling(self, size: Size) -> Sampling {
        let (warmup_ms, samples) = match (self, size) {
            (_, Size::Test) => (10, 3),
            (Program::Fib, Size::Quick) => (300, 5),
            (Program::Fib, Size::Full) => (1000, 15),
            (Program::Tree1k, Size::Quick) => (300, 11),
            (Program::Tree1k, Size::Full) => (1000, 31),
            (Program::Tree16m, Size::Quick) => (100, 3),
            (Program::Tree16m, Size::Full) => (1000, 10),
        };
        Sampling {
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
        Program::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let all = Program::ALL.map(Program::name).join(", ");
                format!("unknown program `{name}` (one of {all})")
            })
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The table's own runners: the name (command line, tables, JSON), the
/// name in the samples, and for Prescient its parameters.
///
/// * `seq`: the sequential reference, no runtime (once, at one thread);
/// * `prescient-default`: [`Params::DEFAULT`] (`DEF`, capacity 16,
///   adaptive inlining), the runtime as a user gets it (`prescient`);
/// * `prescient-never`: the default without inlining
///   ([`Inlining::Never`]), what inlining is measured against;
/// * `prescient-def-c4`: `DEF`, capacity 4, what CF'17's decision tree
///   chooses for fib (ρ = 2, tiny effort); `prescient-pf-c4`: `PF`,
///   capacity 4;
/// * `rayon`: rayon 1.12, `rayon::join` inside `ThreadPool::install`;
/// * `chili`: chili 0.2.1, `Scope::join` on a scope of the pool.
pub const RUNNERS: [(&str, &str, Option<Params>); 7] = [
    ("seq", samples::SEQUENTIAL, None),
    (
        "prescient-default",
        samples::PRESCIENT,
        Some(Params::DEFAULT),
    ),
    (
        "prescient-never",
        "prescient-never",
        Some(Params::DEFAULT.with_inlining(Inlining::Never)),
    ),
    (
        "prescient-def-c4",
        "prescient-def-c4",
        Some(
            Params::DEFAULT
                .with_queue_policy(QueuePolicy::InsertBackStealBack)
                .with_queue_capacity(4)
                .checked(),
        ),
    ),
    (
        "prescient-pf-c4",
        "prescient-pf-c4",
        Some(
            Params::DEFAULT
                .with_queue_policy(QueuePolicy::InsertFrontStealBack)
                .with_queue_capacity(4)
                .checked(),
        ),
    ),
    ("rayon", samples::RAYON, None),
    ("chili", samples::CHILI, None),
];

/// The runners whose idle CPU the table measures (and every peer's that
/// has the idle program).
pub const IDLE: [&str; 3] = ["prescient-default", "rayon", "chili"];

/// The Prescient parameters of runner `name`, `None` for the others.
pub fn params(name: &str) -> Option<Params> {
    RUNNERS.iter().find(|r| r.0 == name).and_then(|r| r.2)
}

/// The table's runners: its own ([`RUNNERS`]), then the C/C++ peers'
/// ([`crate::peers`]).
pub fn runners() -> Vec<Runner> {
    crate::harness::table::with_peers(SUBCOMMAND, RUNNERS.map(|(name, sample, _)| (name, sample)))
}

/// How a child measures: warm up (and size the batches) for at least
/// `warmup`, then take `samples` timed batches, each of enough runs to last
/// at least `sample_target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    /// The least warm-up time.
    pub warmup: Duration,
    /// The least duration of one timed batch (fib and the 16M tree take one
    /// run per batch; the 1K tree takes thousands).
    pub sample_target: Duration,
    /// The number of timed batches.
    pub samples: usize,
}

/// The table's subcommand name: the `table` of its JSON and the first word
/// of its children's arguments.
pub const SUBCOMMAND: &str = "fork-join";
/// The JSON's file under cargo's target folder unless `--json` says
/// otherwise.
pub const DEFAULT_JSON: &str = "prescient-suite.json";

/// The outcomes of the idle children.
pub type IdleOutcome = Outcome<&'static str>;

/// The parent's settings, resolved from the table's options.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The table's description: programs, runners, thread counts, size,
    /// the children's timeout.
    pub plan: Plan<Program>,
    /// Where to write the JSON (none: nowhere).
    pub json: Option<PathBuf>,
    /// Whether to measure the idle CPU.
    pub idle: bool,
    /// The allocation order of the trees' nodes.
    pub tree_layout: Layout,
    /// The competing busy processes that run while the children measure
    /// (`--competing`; see [`crate::competing`]).
    pub competing: usize,
}

impl Settings {
    /// The settings of a run at `size` on `threads` with every default.
    pub fn new(size: Size, threads: Vec<usize>) -> Settings {
        Settings {
            plan: Plan {
                table: SUBCOMMAND,
                size,
                programs: Program::ALL.to_vec(),
                runners: runners(),
                threads,
                timeout: cli::default_timeout(size),
            },
            json: default_output(DEFAULT_JSON),
            idle: true,
            tree_layout: Layout::DEFAULT,
            competing: 0,
        }
    }

    /// The child arguments (after the executable) that measure one
    /// configuration: `fork-join --child PROGRAM RUNNER THREADS [--quick |
    /// --test-size] --tree-layout LAYOUT`.
    pub fn child_args(&self, program: Program, runner: &str, threads: usize) -> Vec<String> {
        let mut args = cli::child_args(
            SUBCOMMAND,
            "--child",
            &[program.name(), runner],
            threads,
            self.plan.size,
        );
        args.extend([
            "--tree-layout".to_string(),
            self.tree_layout.name().to_string(),
        ]);
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_params_and_sizes() {
        for p in Program::ALL {
            assert_eq!(p.name().parse::<Program>(), Ok(p));
        }
        assert!("nope"
            .parse::<Program>()
            .unwrap_err()
            .contains("fib, tree1k, tree16m"));
        assert_eq!(params("prescient-default"), Some(Params::DEFAULT));
        let pf4 = params("prescient-pf-c4").unwrap();
        assert_eq!(
            (pf4.queue_policy, pf4.queue_capacity),
            (QueuePolicy::InsertFrontStealBack, 4)
        );
        assert_eq!((params("rayon"), params("seq")), (None, None));
        assert_eq!(Program::Fib.joins(Size::Full), 14_930_351);
        assert_eq!(Program::Tree16m.joins(Size::Test), 65_535);
        assert_eq!(Program::Fib.label(Size::Test), "fib(20)");
        assert_eq!(Program::Tree16m.label(Size::Quick), "tree 2^24");
        let names: Vec<String> = runners().into_iter().take(7).map(|r| r.name).collect();
        assert_eq!(names, RUNNERS.map(|r| r.0));
    }
}
