//! The tables' programs as a peer runs them ([`Job`]): the peer program's
//! name and arguments at the table's size (the inputs of the Rust rows),
//! the table's measurement plan, and the row's program name in the samples
//! (its `label`, by which a table finds the job of a row). For the CF'17
//! programs, also the Rust sequential reference's result ([`cf17_reference`])
//! as the checksum a peer's result must have; the other tables have theirs
//! at hand (fork-join's closed forms, the dataflow and par-loops tables'
//! sequential results).

use std::path::Path;
use std::time::Duration;

use super::checksum;
use crate::annotated::{
    alignment, delannoy, fft, floorplan, health, knapsack, nqueens, sort, strassen, uts,
};
use crate::cf17::workloads as cf17_sizes;
use crate::cli::Size;
use crate::dataflow::{sparselu as dataflow_sparselu, two_wave};
use crate::programs::fib;
use crate::tables::dataflow::measure::{two_wave_program, Sizes as DataflowSizes};
use crate::tables::fork_join::programs::Program;
use crate::tables::par_loops::Sizes as LoopSizes;

/// How a peer measures a job (`--reps`, `--warmup-ms`, `--batch-ms`): the
/// plan of the table's own children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Timed runs (or batches).
    pub reps: usize,
    /// With `batch`: warm up at least this long, doubling the batch.
    pub warmup: Duration,
    /// Zero: one warm-up run, then single timed runs (cf17, dataflow,
    /// par-loops). Else the least duration of a timed batch (fork-join).
    pub batch: Duration,
}

impl Plan {
    /// One warm-up run and `reps` single timed runs.
    pub const fn single_runs(reps: usize) -> Plan {
        Plan {
            reps,
            warmup: Duration::ZERO,
            batch: Duration::ZERO,
        }
    }
}

/// A program of a table as a peer runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The table (`fork-join`, `dataflow`, `par-loops`, `cf17`).
    pub table: &'static str,
    /// The peer's program (`prescient-peer-omp-gcc --list` names them).
    pub program: &'static str,
    /// Its arguments.
    pub args: Vec<String>,
    /// The row's program in the table's samples (`fib(35)`, `two-wave
    /// 250`, `cholesky 1024/64`, `sort u64 random`, `nqueens`).
    pub label: String,
    /// How it is measured.
    pub plan: Plan,
}

impl Job {
    fn new(table: &'static str, program: &'static str, args: Vec<String>, label: String) -> Job {
        Job {
            table,
            program,
            args,
            label,
            plan: Plan::single_runs(1),
        }
    }

    /// The fork-join table's `program` at `size`, sampled as its children
    /// sample it (warm-up and batches).
    pub fn fork_join(program: Program, size: Size) -> Job {
        let s = program.sampling(size);
        let (name, arg) = match program.nodes(size) {
            None => ("fib", Program::fib_n(size)),
            Some(nodes) => ("tree", nodes),
        };
        Job {
            plan: Plan {
                reps: s.samples,
                warmup: s.warmup,
                batch: s.sample_target,
            },
            ..Job::new(
                "fork-join",
                name,
                vec![arg.to_string()],
                program.label(size),
            )
        }
    }

    /// The fork-join table's idle measurement: one tiny parallel job, then
    /// a sleep of `sleep`.
    pub fn idle(sleep: Duration) -> Job {
        Job::new(
            "fork-join",
            "idle",
            vec![sleep.as_millis().to_string()],
            "idle".to_string(),
        )
    }

    /// The job of the row `label` of `table` at `size` (`table` is
    /// `dataflow`, `par-loops` or `cf17`), timed `reps` times; `None` for a
    /// row no peer has (the dataflow table's task-cost rows, a size the
    /// table was not asked for).
    pub fn of_row(table: &str, label: &str, size: Size, reps: usize) -> Option<Job> {
        let jobs = match table {
            "dataflow" => dataflow(size),
            "par-loops" => par_loops(size),
            "cf17" => cf17_sizes::NAMES
                .iter()
                .filter_map(|name| cf17(name, cf17_size(size)).ok())
                .collect(),
            _ => Vec::new(),
        };
        let mut job = jobs.into_iter().find(|j| j.label == label)?;
        job.plan.reps = reps;
        Some(job)
    }
}

/// The dataflow table's kernels at `size`: two-wave at its four task
/// sizes, Cholesky, matmul and SparseLU.
pub fn dataflow(size: Size) -> Vec<Job> {
    let sizes = DataflowSizes::of(size);
    let job = |name, (nb, bs): (usize, usize), label: &str| {
        let label = format!("{label} {}/{bs}", nb * bs);
        Job::new(
            "dataflow",
            name,
            vec![nb.to_string(), bs.to_string()],
            label,
        )
    };
    let mut out: Vec<Job> = two_wave::TASK_SIZES
        .into_iter()
        .zip(sizes.two_wave_tasks)
        .map(|(task_size, tasks)| {
            Job::new(
                "dataflow",
                "two-wave",
                vec![tasks.to_string(), task_size.to_string()],
                two_wave_program(task_size, tasks),
            )
        })
        .collect();
    out.push(job("cholesky", sizes.cholesky, "cholesky"));
    out.push(job("matmul", sizes.matmul, "matmul"));
    out.push(job("sparselu-dataflow", sizes.sparselu, "sparselu"));
    out
}

/// The par-loops table's workloads at `size`: the sum, Mandelbrot, the
/// stencil, and the four sorts.
pub fn par_loops(size: Size) -> Vec<Job> {
    let sizes = LoopSizes::of(size);
    let job = |name, args: Vec<String>, label| Job::new("par-loops", name, args, label);
    let (n, m, s) = (sizes.sum_n, sizes.mandelbrot, sizes.stencil);
    let mut out = vec![
        job(
            "sum-of-squares",
            vec![n.to_string()],
            format!("sum of squares {n} f64"),
        ),
        job(
            "mandelbrot",
            vec![m.to_string()],
            format!("mandelbrot {m}x{m}"),
        ),
        job("stencil", vec![s.to_string()], format!("stencil {s}x{s}")),
    ];
    for shape in ["random", "nearly sorted"] {
        for (kind, kind_label) in [("stable", "sort"), ("unstable", "sort_unstable")] {
            out.push(job(
                "par-sort",
                vec![
                    sizes.sort_n.to_string(),
                    shape.replace(' ', "-"),
                    kind.into(),
                ],
                format!("{kind_label} {} u64 {shape}", sizes.sort_n),
            ));
        }
    }
    out
}

/// The cf17 size of a table size: full is the paper's.
pub const fn cf17_size(size: Size) -> crate::cf17::Size {
    match size {
        Size::Full => crate::cf17::Size::Paper,
        Size::Quick => crate::cf17::Size::Quick,
        Size::Test => crate::cf17::Size::Test,
    }
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The cf17 program `name` (one of [`cf17_sizes::NAMES`]) at `size`, with
/// the inputs of [`cf17_sizes`] (one timed run; the table sets its reps).
///
/// # Errors
/// An unknown program.
pub fn cf17(name: &str, size: crate::cf17::Size) -> Result<Job, String> {
    use crate::annotated::sparselu::{PAPER_BS, PAPER_NB, TEST_BS, TEST_NB};
    use crate::cf17::Size as S;
    let pick = |test: String, quick: String, paper: String| match size {
        S::Test => test,
        S::Quick => quick,
        S::Paper => paper,
    };
    let one = |test: &dyn ToString, quick: &dyn ToString, paper: &dyn ToString| {
        vec![pick(test.to_string(), quick.to_string(), paper.to_string())]
    };
    let args: Vec<String> = match name {
        "fib" => one(
            &crate::annotated::fib::TEST_N,
            &cf17_sizes::QUICK_FIB_N,
            &fib::SUITE_N,
        ),
        "nqueens" => one(
            &nqueens::TEST_SIZES[nqueens::TEST_SIZES.len() - 1],
            &cf17_sizes::QUICK_NQUEENS_N,
            &cf17_sizes::PAPER_NQUEENS_N,
        ),
        "sort" => one(
            &sort::TEST_SIZES[0],
            &cf17_sizes::QUICK_SORT_N,
            &sort::PAPER_N,
        ),
        "strassen" => vec![
            pick(
                strassen::TEST_N.to_string(),
                cf17_sizes::QUICK_STRASSEN_N.to_string(),
                strassen::PAPER_N.to_string(),
            ),
            pick(
                strassen::TEST_CUTOFF.to_string(),
                strassen::BOTS_CUTOFF.to_string(),
                strassen::BOTS_CUTOFF.to_string(),
            ),
        ],
        "health" => match size {
            S::Test => vec![path_arg(&health::test_input())],
            S::Quick => vec![
                path_arg(&health::paper_input()),
                cf17_sizes::QUICK_HEALTH_STEPS.to_string(),
            ],
            S::Paper => vec![path_arg(&health::paper_input())],
        },
        "sparselu" => {
            let (nb, bs) = match size {
                S::Test => (TEST_NB, TEST_BS),
                S::Quick => (cf17_sizes::QUICK_SPARSELU_NB, PAPER_BS),
                S::Paper => (PAPER_NB, PAPER_BS),
            };
            vec![nb.to_string(), bs.to_string()]
        }
        "alignment" => {
            let mut args = vec![path_arg(&match size {
                S::Paper => alignment::prot_100(),
                S::Test | S::Quick => alignment::prot_20(),
            })];
            match size {
                S::Test => args.push(cf17_sizes::TEST_ALIGNMENT_SEQUENCES.to_string()),
                S::Quick => args.push(cf17_sizes::QUICK_ALIGNMENT_SEQUENCES.to_string()),
                S::Paper => {}
            }
            args
        }
        "delannoy" => {
            let (m, n) = match size {
                S::Test => (delannoy::TEST_N, delannoy::TEST_N),
                S::Quick => cf17_sizes::QUICK_DELANNOY,
                S::Paper => (delannoy::PAPER_N, delannoy::PAPER_N),
            };
            vec![m.to_string(), n.to_string()]
        }
        "fft" => one(
            &fft::TEST_LOG2,
            &cf17_sizes::QUICK_FFT_LOG2,
            &fft::PAPER_LOG2,
        ),
        "knapsack" => vec![path_arg(&knapsack::input(match size {
            S::Test => knapsack::TEST_SIZE,
            S::Quick => cf17_sizes::QUICK_KNAPSACK_ITEMS,
            S::Paper => knapsack::BENCH_SIZE,
        }))],
        "uts" => {
            let (root_children, start) = match size {
                S::Test => (uts::TEST_ROOT_CHILDREN.to_string(), "root".to_string()),
                S::Quick => (
                    "all".to_string(),
                    cf17_sizes::QUICK_UTS_ROOT_CHILD.to_string(),
                ),
                S::Paper => ("all".to_string(), "root".to_string()),
            };
            vec![path_arg(&uts::test()), root_children, start]
        }
        "floorplan" => match size {
            S::Test => vec![path_arg(&floorplan::test_input())],
            S::Quick => vec![
                path_arg(&floorplan::input_15()),
                cf17_sizes::QUICK_FLOORPLAN_CELLS.to_string(),
            ],
            S::Paper => vec![path_arg(&floorplan::paper_input())],
        },
        other => return Err(format!("unknown cf17 program `{other}`")),
    };
    let name = cf17_sizes::known_name(name)?;
    Ok(Job::new("cf17", name, args, name.to_string()))
}

fn arg<T: std::str::FromStr>(job: &Job, i: usize) -> Result<T, String> {
    job.args
        .get(i)
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("{}: bad argument {i} in {:?}", job.program, job.args))
}

/// The checksum of the Rust sequential reference's result of the cf17
/// `job`: one run of it, its input read or built first. What the table
/// gives a peer's `--expect`.
///
/// # Errors
/// Arguments [`cf17`] did not make, or an unreadable input file.
pub fn cf17_reference(job: &Job) -> Result<String, String> {
    let file = |what: &str| -> Result<String, String> {
        job.args
            .first()
            .cloned()
            .ok_or_else(|| format!("{what}: no input file"))
    };
    let read = |path: &str, e: &dyn std::fmt::Display| format!("{}: {path}: {e}", job.program);
    Ok(match job.program {
        "fib" => checksum::of(&[fib::fib_seq(arg(job, 0)?)]),
        "nqueens" => checksum::of(&[nqueens::nqueens_seq(arg(job, 0)?)]),
        "sort" => {
            let mut keys = sort::bots_input(arg(job, 0)?);
            sort::sort_seq(&mut keys);
            checksum::of(&keys)
        }
        "strassen" => {
            let n = arg(job, 0)?;
            let (a, b) = (
                strassen::Matrix::random(n, 1),
                strassen::Matrix::random(n, 2),
            );
            checksum::of(strassen::strassen_seq(&a, &b, arg(job, 1)?).data())
        }
        "health" => {
            let path = file("health")?;
            let mut sim = health::read_simulation(&path).map_err(|e| read(&path, &e))?;
            if job.args.len() > 1 {
                sim.time = arg(job, 1)?;
            }
            let mut village = health::allocate_village(&sim);
            health::sim_main_seq(&mut village, &sim);
            checksum::of_village(&village)
        }
        "sparselu" => {
            let mut m = dataflow_sparselu::generate(arg(job, 0)?, arg(job, 1)?);
            dataflow_sparselu::sequential(&mut m);
            checksum::of_sparselu(&m)
        }
        "alignment" => {
            let path = file("alignment")?;
            let mut seqs = alignment::read_sequences(&path).map_err(|e| read(&path, &e))?;
            if job.args.len() > 1 {
                seqs.truncate(arg(job, 1)?);
            }
            let scores = alignment::pairalign_seq(&seqs, &alignment::Scoring::protein());
            checksum::of(scores.scores())
        }
        "delannoy" => checksum::of(&[delannoy::delannoy_seq(arg(job, 0)?, arg(job, 1)?)]),
        "fft" => {
            let points = fft::input(1 << arg::<u32>(job, 0)?, cf17_sizes::FFT_SEED);
            checksum::of_complex(&fft::fft_seq(&points))
        }
        "knapsack" => {
            let path = file("knapsack")?;
            let instance = knapsack::read_instance(&path).map_err(|e| read(&path, &e))?;
            checksum::of(&[knapsack::knapsack_seq(&instance.items, instance.capacity) as u64])
        }
        "uts" => {
            let path = file("uts")?;
            let mut tree = uts::read_tree(&path).map_err(|e| read(&path, &e))?;
            if job.args.get(1).map(String::as_str) != Some("all") {
                tree = tree.with_root_branching(arg(job, 1)?);
            }
            let mut start = tree.root();
            if job.args.get(2).map(String::as_str) != Some("root") {
                start = uts::child(&tree, &start, arg(job, 2)?);
            }
            checksum::of(&[uts::tree_search_seq(&tree, &start)])
        }
        "floorplan" => {
            let path = file("floorplan")?;
            let mut fp = floorplan::read_floorplan(&path).map_err(|e| read(&path, &e))?;
            if job.args.len() > 1 {
                // `cf17::workloads`' cut: the first CELLS cells, the last
                // placed last.
                let cells: usize = arg(job, 1)?;
                fp.cells.truncate(cells + 1);
                for cell in &mut fp.cells {
                    if cell.next > cells {
                        cell.next = 0;
                    }
                }
                fp.solution = None;
            }
            checksum::of(&[floorplan::floorplan_seq(&fp).0.area as u64])
        }
        other => return Err(format!("no Rust reference for the cf17 program `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_carry_the_table_plan_and_rows() {
        let fib = Job::fork_join(Program::Fib, Size::Test);
        assert_eq!((fib.program, fib.args[0].as_str()), ("fib", "20"));
        assert_eq!(
            (fib.plan.reps, fib.plan.batch),
            (3, Duration::from_millis(1))
        );
        assert_eq!(dataflow(Size::Test).len(), 7);
        let sort = Job::of_row("par-loops", "sort 10000 u64 nearly sorted", Size::Test, 4);
        assert_eq!(
            sort.map(|j| (j.args.join(" "), j.plan.reps)),
            Some(("10000 nearly-sorted stable".to_string(), 4))
        );
        for name in cf17_sizes::NAMES {
            for size in crate::cf17::Size::ALL {
                assert_eq!(cf17(name, size).unwrap().label, name);
            }
        }
        assert!(cf17("qap", crate::cf17::Size::Test).is_err());
        assert_eq!(Job::of_row("dataflow", "task cost", Size::Test, 1), None);
        let fib = cf17("fib", crate::cf17::Size::Test).unwrap();
        assert_eq!(
            cf17_reference(&fib),
            Ok(checksum::of(&[fib::fib_seq(arg(&fib, 0).unwrap())]))
        );
    }
}
