//! The measuring half of the `inlining` table: each program's workload at
//! a size (checked against its sequential reference), who runs it
//! ([`Runner`]), and one runner's median on a pool of its own.

use prescient::tuning::{Inlining, InliningReport};
use prescient::Params;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use crate::cf17::workloads::{self, expect_eq, timed};
use crate::cf17::Workload;
use crate::cli::Size;
use crate::harness::record::median;
use crate::harness::Pool;
use crate::inlining::{self as mixed, Mixed};
use crate::programs::tree;
use crate::samples;

/// The programs, in table order.
pub const PROGRAMS: [&str; 6] = ["mixed", "fib", "nqueens", "health", "tree1k", "tree16m"];

/// The policies measured when `--policies` is not given.
pub const DEFAULT_POLICIES: &str =
    "never,baseline,adaptive,fixed-1,fixed-4,fixed-16,fixed-64,fixed-256";

/// Sums of the 1 023-node tree per `tree1k` run: one sum takes a few
/// microseconds, too little to time alone.
pub const TREE1K_SUMS: u32 = 1000;

/// Sums of the 1 023-node tree per `tree1k` run at `--test-size`.
pub const TEST_TREE1K_SUMS: u32 = 10;

/// The `tree16m` tree of `--quick`: 2^20 − 1 nodes.
pub const QUICK_TREE_NODES: u64 = (1 << 20) - 1;

/// The `tree16m` tree of `--test-size`: 2^14 − 1 nodes.
pub const TEST_TREE_NODES: u64 = (1 << 14) - 1;

/// fib's `n` at `--test-size` (smaller than the CF'17 test size: the
/// table runs it 21 times per thread count, also in debug builds).
pub const TEST_FIB_N: u64 = 20;

/// nqueens' board at `--test-size` (see [`TEST_FIB_N`]).
pub const TEST_NQUEENS_N: usize = 8;

/// The steps health simulates on BOTS' `test.input` at `--test-size` (see
/// [`TEST_FIB_N`]; the file's own count is 365).
pub const TEST_HEALTH_STEPS: i32 = 30;

/// Whether `policy` is one of the fixed thresholds of the best-fixed sweep.
pub fn is_fixed(policy: Inlining) -> bool {
    policy.short_name().starts_with("fixed-")
}

/// Every program `--programs` accepts: [`PROGRAMS`] (the default list),
/// then the other CF'17 programs, in table order.
pub fn known_programs() -> Vec<&'static str> {
    let mut known = PROGRAMS.to_vec();
    known.extend(
        workloads::NAMES
            .iter()
            .filter(|name| !PROGRAMS.contains(name)),
    );
    known
}

/// The mixed workload, checked against its sequential result.
fn mixed_workload(size: Size) -> Workload {
    let m: Mixed = match size {
        Size::Full => mixed::FULL,
        Size::Quick => mixed::QUICK,
        Size::Test => mixed::TEST,
    };
    let expected = m.seq();
    Workload {
        program: "mixed",
        input: m.describe(),
        seq: Box::new(move || timed(|| black_box(m).seq(), |g| expect_eq("seq", g, expected))),
        prescient: Box::new(move || {
            timed(
                || black_box(m).prescient(),
                |g| expect_eq("prescient", g, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(|| black_box(m).rayon(), |g| expect_eq("rayon", g, expected))
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || black_box(m).chili(scope),
                |g| expect_eq("chili", g, expected),
            )
        })),
    }
}

/// Calls `sum` `sums` times; the first result that is not `expected`, if
/// any.
fn first_wrong(sums: u32, expected: u64, mut sum: impl FnMut() -> u64) -> Option<u64> {
    let mut wrong = None;
    for _ in 0..sums {
        let got = sum();
        if got != expected && wrong.is_none() {
            wrong = Some(got);
        }
    }
    wrong
}

/// `sums` sums of a balanced tree of `nodes` nodes per run (each one
/// checked), with `programs::tree` (one plain `prescient::join` site).
fn tree_workload(program: &'static str, nodes: u64, sums: u32) -> Workload {
    let root: Arc<tree::Node> = Arc::from(tree::Node::balanced(nodes));
    let expected = tree::expected(nodes);
    let input = if sums == 1 {
        format!("{nodes} nodes")
    } else {
        format!("{sums} sums of {nodes} nodes")
    };
    // Every sum must be right: a run's result is the first wrong one, if any.
    let check = move |what: &'static str| {
        move |got: Option<u64>| got.map_or(Ok(()), |g| expect_eq(what, g, expected))
    };
    let (r_seq, r_par, r_rayon, r_chili) = (root.clone(), root.clone(), root.clone(), root);
    Workload {
        program,
        input,
        seq: Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_seq(black_box(&r_seq))),
                check("seq"),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_prescient(black_box(&r_par))),
                check("prescient"),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_rayon(black_box(&r_rayon))),
                check("rayon"),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || {
                    first_wrong(sums, expected, || {
                        tree::sum_chili(scope, black_box(&r_chili))
                    })
                },
                check("chili"),
            )
        })),
    }
}

/// The workload of `program` at `size`, its reference computed: the CF'17
/// programs at the CF'17 size of the same name (`Paper` for full), except
/// fib, nqueens and health at `--test-size`, smaller still
/// ([`TEST_FIB_N`], [`TEST_NQUEENS_N`], [`TEST_HEALTH_STEPS`]).
///
/// # Errors
/// A CF'17 program that cannot be prepared (an input file missing, a
/// reference that disagrees with the known answer).
pub fn workload(program: &str, size: Size) -> Result<Workload, String> {
    Ok(match program {
        "mixed" => mixed_workload(size),
        "tree1k" => tree_workload(
            "tree1k",
            tree::NODES_1K,
            if size == Size::Test {
                TEST_TREE1K_SUMS
            } else {
                TREE1K_SUMS
            },
        ),
        "tree16m" => tree_workload(
            "tree16m",
            match size {
                Size::Full => tree::NODES_16M,
                Size::Quick => QUICK_TREE_NODES,
                Size::Test => TEST_TREE_NODES,
            },
            1,
        ),
        "fib" if size == Size::Test => workloads::fib_at(TEST_FIB_N),
        "nqueens" if size == Size::Test => workloads::nqueens_at(TEST_NQUEENS_N)?,
        "health" if size == Size::Test => workloads::health_at(
            &crate::annotated::health::test_input(),
            Some(TEST_HEALTH_STEPS),
        )?,
        cf17 => {
            let cf17_size = match size {
                Size::Full => crate::cf17::Size::Paper,
                Size::Quick => crate::cf17::Size::Quick,
                Size::Test => crate::cf17::Size::Test,
            };
            workloads::prepare(cf17, cf17_size).map_err(|e| format!("preparing {cf17}: {e}"))?
        }
    })
}

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// The sequential reference.
    Seq,
    /// Prescient with `Params::DEFAULT` and this inlining policy.
    Prescient(Inlining),
    /// rayon.
    Rayon,
    /// chili.
    Chili,
}

impl std::fmt::Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Runner::Seq => f.write_str("seq"),
            Runner::Prescient(policy) => write!(f, "{policy}"),
            Runner::Rayon => f.write_str("rayon"),
            Runner::Chili => f.write_str("chili"),
        }
    }
}

impl Runner {
    /// The runner's names in the shared samples ([`crate::samples`]):
    /// `sequential`, `rayon`, `chili`, and `prescient-<policy>` for each
    /// policy (`prescient-never`, `prescient-fixed-16`); the default
    /// policy (`Params::DEFAULT`'s, adaptive) is also `prescient`, the
    /// runtime as a user gets it.
    pub fn sample_names(self) -> Vec<String> {
        match self {
            Runner::Seq => vec![samples::SEQUENTIAL.to_string()],
            Runner::Rayon => vec![samples::RAYON.to_string()],
            Runner::Chili => vec![samples::CHILI.to_string()],
            Runner::Prescient(policy) => {
                let own = format!("prescient-{}", policy.short_name());
                if policy == Params::DEFAULT.inlining {
                    vec![samples::PRESCIENT.to_string(), own]
                } else {
                    vec![own]
                }
            }
        }
    }
}

/// A runner's median on `w` on a pool of its own, or `None` if it has no
/// version of the program; with the inliner's report for a Prescient
/// runner.
///
/// # Errors
/// A wrong result, a pool that could not be built.
pub fn measure(
    w: &Workload,
    runner: Runner,
    threads: usize,
    reps: usize,
) -> Result<Option<(Duration, Option<InliningReport>)>, String> {
    let what = format!("{} under {runner} on {threads} thread(s)", w.program);
    let (name, params) = match runner {
        Runner::Seq => ("seq", None),
        Runner::Prescient(policy) => ("prescient", Some(Params::DEFAULT.with_inlining(policy))),
        Runner::Rayon => ("rayon", None),
        Runner::Chili => ("chili", None),
    };
    let pool = Pool::build(name, params, threads).map_err(|e| format!("{what}: {e}"))?;
    let measured = w
        .measure(&pool, reps)
        .map_err(|e| format!("wrong result: {what}: {e}"))?;
    let Some((times, _)) = measured else {
        return Ok(None);
    };
    let ns: Vec<f64> = times.iter().map(|time| time.as_nanos() as f64).collect();
    let report = match &pool {
        Pool::Prescient(rt) => Some(rt.inlining_report()),
        _ => None,
    };
    Ok(Some((Duration::from_nanos(median(&ns) as u64), report)))
}

/// One program's medians: `seq`, and per thread count (in the thread list's
/// order) each runner's, `None` where it has no version.
#[derive(Clone, Debug)]
pub struct Results {
    /// The sequential median.
    pub seq: Duration,
    /// Per thread count: (runner, median).
    pub by_threads: Vec<Vec<(Runner, Option<Duration>)>>,
}

impl Results {
    /// The median of `runner` at the `k`-th thread count.
    pub fn get(&self, k: usize, runner: Runner) -> Option<Duration> {
        self.by_threads[k]
            .iter()
            .find(|(r, _)| *r == runner)
            .and_then(|(_, d)| *d)
    }

    /// The fastest fixed threshold at the `k`-th thread count.
    pub fn best_fixed(&self, k: usize) -> Option<(Inlining, Duration)> {
        self.by_threads[k]
            .iter()
            .filter_map(|(r, d)| match (r, d) {
                (Runner::Prescient(p), Some(d)) if is_fixed(*p) => Some((*p, *d)),
                _ => None,
            })
            .min_by_key(|&(_, d)| d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_size_workloads_check_their_results() {
        for program in PROGRAMS {
            let w = workload(program, Size::Test).unwrap();
            assert!((w.seq)().1.is_ok(), "{program}");
        }
        let w = workload("tree1k", Size::Test).unwrap();
        assert_eq!(
            measure(&w, Runner::Prescient(Inlining::Adaptive), 2, 1)
                .unwrap()
                .map(|(_, report)| report.is_some()),
            Some(true)
        );
        assert!(expect_eq("x", 1, 2).unwrap_err().contains("expected 2"));
    }

    #[test]
    fn runner_sample_names() {
        assert_eq!(Runner::Seq.sample_names(), ["sequential"]);
        assert_eq!(
            Runner::Prescient(Inlining::Adaptive).sample_names(),
            ["prescient", "prescient-adaptive"]
        );
        assert_eq!(
            Runner::Prescient(Inlining::fixed(16)).sample_names(),
            ["prescient-fixed-16"]
        );
        assert_eq!(Runner::Chili.sample_names(), ["chili"]);
    }
}
