//! Benchmark programs annotated with `#[task_program]`: the end-to-end check
//! of the analyzer on real programs, and the ports of the CF'17 benchmark
//! suite (BOTS and Cilk programs) so far: alignment, delannoy, fft, fib,
//! nqueens, sort, strassen, knapsack, uts, floorplan, health and sparselu.
//!
//! Each program file holds the sequential reference and the checks at its top
//! level, and its task code in an inline module `tasks` carrying
//! `#[prescient::task_program]`; the module's `PARAMS` and `ANALYSIS` are
//! re-exported next to the program (`annotated::fib::PARAMS`). Run a program
//! under its own parameters with
//! `prescient::Runtime::builder().params(fib::PARAMS).build()`.
//!
//! The table gives each set of decision trees' queue policy/capacity:
//! CF'17's (`ANALYSIS.params(Trees::Cf17)`, what
//! `#[task_program(trees = cf17)]` would give) and the calibrated ones
//! (`PARAMS`, the default: `DEF`/8 where the task effort is at least 7667,
//! i.e. the analysis sees real work in the tasks, else `BF`/32 for fine or
//! opaque tasks). Both give 256019 dependency buckets if ρ > 0, else 97, and
//! the analysed stack size.
//!
//! | program | parallel structure | CF'17 classification | CF'17 trees | calibrated trees (`PARAMS`) |
//! |---|---|---|---|---|
//! | [`fib`] | join at every level | recursive, ρ = 2, λ = 0, tiny effort | `DEF`/4 | `BF`/32 |
//! | [`nqueens`] | scope spawn per column in a loop, recursing | recursive, ρ = 1, λ = 1 | `DEF`/4 | `DEF`/8 |
//! | [`alignment`] | scope spawn per sequence pair in a loop | loop-like, ρ = 0, λ = 1 | `PF`/128 | `DEF`/8 |
//! | [`delannoy`] | three-way fork (nested joins) at every level | recursive, ρ = 3, λ = 0, tiny effort | `DEF`/4 | `BF`/32 |
//! | [`fft`] | join of the half transforms and over the combine loop | recursive, ρ = 2, λ = 0 | `DEF`/4 | `BF`/32 |
//! | [`sort`] | four quarter sorts in a scope, joins in the merges | recursive, ρ = 2, λ = 0 | `DEF`/4 | `BF`/32 |
//! | [`strassen`] | seven products in a scope | recursive, ρ = 7, λ = 0 | `PF`/4 | `BF`/32 |
//! | [`knapsack`] | branch and bound, a join of the two branches at every node | recursive, ρ = 2, λ = 0, tiny effort | `DEF`/4 | `BF`/32 |
//! | [`uts`] | scope spawn per child in a loop, recursing | recursive, ρ = 1, λ = 1 | `DEF`/4 | `BF`/32 |
//! | [`floorplan`] | scope spawn per shape and position in a loop, recursing | recursive, ρ = 1, λ = 1 | `DEF`/4 | `DEF`/8 |
//! | [`health`] | scope spawn per child village in a loop, recursing | recursive, ρ = 1, λ = 1 | `DEF`/4 | `BF`/32 |
//! | [`sparselu`] | per diagonal block, two scopes of spawns in loops (fwd/bdiv, then bmod) | loop-like, ρ = 0, λ = 3 | `DEF`/128 | `BF`/32 |
//!
//! [`PROGRAMS`] lists every annotated program of this crate with its analysis
//! and parameters: the rows of `cargo run --release -p prescient-examples
//! --example analysis_table`.

use prescient::analysis::ProgramAnalysis;
use prescient::Params;

pub mod alignment;
pub mod delannoy;
pub mod fft;
pub mod fib;
pub mod floorplan;
pub mod health;
pub mod input;
pub mod knapsack;
pub mod nqueens;
pub mod sort;
pub mod sparselu;
pub mod strassen;
pub mod uts;

/// One `#[task_program]` module of this crate: what the analyzer emitted.
#[derive(Clone, Copy, Debug)]
pub struct AnnotatedProgram {
    /// The program's short name (a table row label).
    pub name: &'static str,
    /// How its tasks are spawned, in a few words.
    pub structure: &'static str,
    /// The module's `ANALYSIS`.
    pub analysis: ProgramAnalysis,
    /// The module's `PARAMS`.
    pub params: Params,
}

/// Every `#[task_program]` module of this crate, in table order.
pub const PROGRAMS: &[AnnotatedProgram] = &[
    AnnotatedProgram {
        name: "fib",
        structure: "join at every level",
        analysis: fib::ANALYSIS,
        params: fib::PARAMS,
    },
    AnnotatedProgram {
        name: "nqueens",
        structure: "scope spawn per column in a loop, recursing",
        analysis: nqueens::ANALYSIS,
        params: nqueens::PARAMS,
    },
    AnnotatedProgram {
        name: "alignment",
        structure: "scope spawn per sequence pair in a loop",
        analysis: alignment::ANALYSIS,
        params: alignment::PARAMS,
    },
    AnnotatedProgram {
        name: "delannoy",
        structure: "three-way fork (nested joins) at every level",
        analysis: delannoy::ANALYSIS,
        params: delannoy::PARAMS,
    },
    AnnotatedProgram {
        name: "fft",
        structure: "join of the half transforms, joins over the combine loop",
        analysis: fft::ANALYSIS,
        params: fft::PARAMS,
    },
    AnnotatedProgram {
        name: "sort",
        structure: "scope spawn of four quarter sorts, joins in the merges",
        analysis: sort::ANALYSIS,
        params: sort::PARAMS,
    },
    AnnotatedProgram {
        name: "strassen",
        structure: "scope spawn of the seven products",
        analysis: strassen::ANALYSIS,
        params: strassen::PARAMS,
    },
    AnnotatedProgram {
        name: "knapsack",
        structure: "branch and bound, join of the two branches",
        analysis: knapsack::ANALYSIS,
        params: knapsack::PARAMS,
    },
    AnnotatedProgram {
        name: "uts",
        structure: "scope spawn per child in a loop, recursing",
        analysis: uts::ANALYSIS,
        params: uts::PARAMS,
    },
    AnnotatedProgram {
        name: "floorplan",
        structure: "scope spawn per shape and position in a loop, recursing",
        analysis: floorplan::ANALYSIS,
        params: floorplan::PARAMS,
    },
    AnnotatedProgram {
        name: "health",
        structure: "scope spawn per child village in a loop, recursing",
        analysis: health::ANALYSIS,
        params: health::PARAMS,
    },
    AnnotatedProgram {
        name: "sparselu",
        structure: "per diagonal block, two scopes of spawns in loops",
        analysis: sparselu::ANALYSIS,
        params: sparselu::PARAMS,
    },
];

/// The program of [`PROGRAMS`] called `name`.
///
/// # Errors
/// If [`PROGRAMS`] does not list it.
pub fn find(name: &str) -> Result<&'static AnnotatedProgram, String> {
    PROGRAMS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| format!("`{name}` is not in annotated::PROGRAMS"))
}
