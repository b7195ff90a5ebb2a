//! The peers' programs as each table runs them: the peer program's name and
//! arguments at a table's size (the same sizes as the Rust rows), the
//! table's measurement plan, the row's program name in the samples, and the
//! Rust sequential reference of the same computation — timed by `peers` to
//! put the peers beside it, and hashed ([`super::checksum`]) to check that a
//! peer computed what the Rust programs compute.

use std::path::Path;
use std::time::{Duration, Instant};

use super::checksum;
use crate::annotated::{
    alignment, delannoy, fft, floorplan, health, knapsack, nqueens, sort, strassen, uts,
};
use crate::cf17::workloads as cf17_sizes;
use crate::cli::Size;
use crate::dataflow::{cholesky, matmul, sparselu, two_wave};
use crate::programs::{fib, tree};
use crate::tables::fork_join::programs::Program;
use crate::tables::dataflow::measure::{two_wave_program, Sizes as DataflowSizes};
use crate::tables::par_loops::{self, Sizes as LoopSizes};

/// The table a peer program belongs to: it decides how the peer measures
/// it, as that table's Rust children do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerTable {
    /// `fork-join`: warm-up and batches (`suite::Plan`), median of batches.
    ForkJoin,
    /// `dataflow`: one warm-up run, best of `reps`.
    Dataflow,
    /// `par-loops`: one warm-up run, best of `reps`.
    ParLoops,
    /// `cf17`: one warm-up run, median of `reps`.
    Cf17,
}

impl PeerTable {
    /// Every table with peers.
    pub const ALL: [PeerTable; 4] = [
        PeerTable::ForkJoin,
        PeerTable::Dataflow,
        PeerTable::ParLoops,
        PeerTable::Cf17,
    ];

    /// The table's subcommand name.
    pub const fn name(self) -> &'static str {
        match self {
            PeerTable::ForkJoin => "fork-join",
            PeerTable::Dataflow => "dataflow",
            PeerTable::ParLoops => "par-loops",
            PeerTable::Cf17 => "cf17",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<PeerTable> {
        PeerTable::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Every peer program of the table at `size`, in the table's row order.
    pub fn programs(self, size: Size) -> Vec<PeerProgram> {
        match self {
            PeerTable::ForkJoin => Program::ALL
                .iter()
                .map(|&p| PeerProgram::fork_join(p, size))
                .collect(),
            PeerTable::Dataflow => PeerProgram::dataflow(size),
            PeerTable::ParLoops => PeerProgram::par_loops(size),
            PeerTable::Cf17 => cf17_sizes::NAMES
                .iter()
                .map(|name| PeerProgram::cf17(name, cf17_size(size)))
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("a cf17 peer program: {e}")),
        }
    }
}

/// The cf17 size of a table size: full is the paper's.
pub const fn cf17_size(size: Size) -> crate::cf17::Size {
    match size {
        Size::Full => crate::cf17::Size::Paper,
        Size::Quick => crate::cf17::Size::Quick,
        Size::Test => crate::cf17::Size::Test,
    }
}

/// How a peer measures a program (the flags `--reps`, `--warmup-ms`,
/// `--batch-ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerPlan {
    /// Timed runs (or batches).
    pub reps: usize,
    /// With `batch`: warm up at least this long, doubling the batch.
    pub warmup: Duration,
    /// Zero: one warm-up run and single timed runs. Else the least duration
    /// of a timed batch (the fork-join plan).
    pub batch: Duration,
}

/// A program as a peer runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerProgram {
    /// Its table.
    pub table: PeerTable,
    /// The peer's program name (`prescient-peer-* --list`).
    pub name: &'static str,
    /// Its size arguments.
    pub args: Vec<String>,
    /// The program's name in the table's samples (`fib(35)`, `two-wave
    /// 250`, `cholesky 1024/64`, `sum of squares 10000000 f64`, `nqueens`).
    pub label: String,
    /// How it is measured.
    pub plan: PeerPlan,
}

impl PeerProgram {
    /// The cf17 programs that have peers.
    pub const CF17: [&'static str; 6] =
        ["fib", "nqueens", "sort", "strassen", "health", "sparselu"];

    /// The fork-join table's `program` at `size`.
    pub fn fork_join(program: Program, size: Size) -> PeerProgram {
        let plan = program.sampling(size);
        let (name, arg) = match program.nodes(size) {
            None => ("fib", Program::fib_n(size)),
            Some(nodes) => ("tree", nodes),
        };
        PeerProgram {
            table: PeerTable::ForkJoin,
            name,
            args: vec![arg.to_string()],
            label: program.label(size),
            plan: PeerPlan {
                reps: plan.samples,
                warmup: plan.warmup,
                batch: plan.sample_target,
            },
        }
    }

    /// The dataflow table's kernels at `size`: two-wave at its four task
    /// sizes, Cholesky, matmul and SparseLU.
    pub fn dataflow(size: Size) -> Vec<PeerProgram> {
        let sizes = DataflowSizes::of(size);
        let plan = single_runs(sizes.reps);
        let program = |name, args: Vec<usize>, label| PeerProgram {
            table: PeerTable::Dataflow,
            name,
            args: args.iter().map(usize::to_string).collect(),
            label,
            plan,
        };
        let mut out: Vec<PeerProgram> = two_wave::TASK_SIZES
            .into_iter()
            .zip(sizes.two_wave_tasks)
            .map(|(task_size, tasks)| {
                program(
                    "two-wave",
                    vec![tasks, task_size],
                    two_wave_program(task_size, tasks),
                )
            })
            .collect();
        let (nb, bs) = sizes.cholesky;
        out.push(program(
            "cholesky",
            vec![nb, bs],
            format!("cholesky {}/{bs}", nb * bs),
        ));
        let (nb, bs) = sizes.matmul;
        out.push(program(
            "matmul",
            vec![nb, bs],
            format!("matmul {}/{bs}", nb * bs),
        ));
        let (nb, bs) = sizes.sparselu;
        out.push(program(
            "sparselu-dataflow",
            vec![nb, bs],
            format!("sparselu {}/{bs}", nb * bs),
        ));
        out
    }

    /// The par-loops table's workloads at `size`: the sum, Mandelbrot, the
    /// stencil, and the four sorts.
    pub fn par_loops(size: Size) -> Vec<PeerProgram> {
        let sizes = LoopSizes::of(size);
        let plan = single_runs(sizes.reps);
        let program = |name, args: Vec<String>, label| PeerProgram {
            table: PeerTable::ParLoops,
            name,
            args,
            label,
            plan,
        };
        let (n, m, s) = (sizes.sum_n, sizes.mandelbrot, sizes.stencil);
        let mut out = vec![
            program(
                "sum-of-squares",
                vec![n.to_string()],
                format!("sum of squares {n} f64"),
            ),
            program(
                "mandelbrot",
                vec![m.to_string()],
                format!("mandelbrot {m}x{m}"),
            ),
            program("stencil", vec![s.to_string()], format!("stencil {s}x{s}")),
        ];
        for (shape, shape_label) in [("random", "random"), ("nearly-sorted", "nearly sorted")] {
            for (kind, kind_label) in [("stable", "sort"), ("unstable", "sort_unstable")] {
                out.push(program(
                    "par-sort",
                    vec![sizes.sort_n.to_string(), shape.into(), kind.into()],
                    format!("{kind_label} {} u64 {shape_label}", sizes.sort_n),
                ));
            }
        }
        out
    }

    /// The cf17 program `name` (one of `cf17::workloads::NAMES`, all
    /// twelve) at `size`, with the inputs of `cf17::workloads`.
    ///
    /// # Errors
    /// An unknown program.
    pub fn cf17(name: &str, size: crate::cf17::Size) -> Result<PeerProgram, String> {
        use crate::cf17::Size as S;
        let args: Vec<String> = match name {
            "fib" => vec![match size {
                S::Test => crate::annotated::fib::TEST_N,
                S::Quick => cf17_sizes::QUICK_FIB_N,
                S::Paper => fib::SUITE_N,
            }
            .to_string()],
            "nqueens" => vec![match size {
                S::Test => nqueens::TEST_SIZES[nqueens::TEST_SIZES.len() - 1],
                S::Quick => cf17_sizes::QUICK_NQUEENS_N,
                S::Paper => cf17_sizes::PAPER_NQUEENS_N,
            }
            .to_string()],
            "sort" => vec![match size {
                S::Test => sort::TEST_SIZES[0],
                S::Quick => cf17_sizes::QUICK_SORT_N,
                S::Paper => sort::PAPER_N,
            }
            .to_string()],
            "strassen" => {
                let (n, cutoff) = match size {
                    S::Test => (strassen::TEST_N, strassen::TEST_CUTOFF),
                    S::Quick => (cf17_sizes::QUICK_STRASSEN_N, strassen::BOTS_CUTOFF),
                    S::Paper => (strassen::PAPER_N, strassen::BOTS_CUTOFF),
                };
                vec![n.to_string(), cutoff.to_string()]
            }
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
                    S::Test => (
                        crate::annotated::sparselu::TEST_NB,
                        crate::annotated::sparselu::TEST_BS,
                    ),
                    S::Quick => (
                        cf17_sizes::QUICK_SPARSELU_NB,
                        crate::annotated::sparselu::PAPER_BS,
                    ),
                    S::Paper => (
                        crate::annotated::sparselu::PAPER_NB,
                        crate::annotated::sparselu::PAPER_BS,
                    ),
                };
                vec![nb.to_string(), bs.to_string()]
            }
            "alignment" => match size {
                S::Test => vec![
                    path_arg(&alignment::prot_20()),
                    cf17_sizes::TEST_ALIGNMENT_SEQUENCES.to_string(),
                ],
                S::Quick => vec![
                    path_arg(&alignment::prot_20()),
                    cf17_sizes::QUICK_ALIGNMENT_SEQUENCES.to_string(),
                ],
                S::Paper => vec![path_arg(&alignment::prot_100())],
            },
            "delannoy" => {
                let (m, n) = match size {
                    S::Test => (delannoy::TEST_N, delannoy::TEST_N),
                    S::Quick => cf17_sizes::QUICK_DELANNOY,
                    S::Paper => (delannoy::PAPER_N, delannoy::PAPER_N),
                };
                vec![m.to_string(), n.to_string()]
            }
            "fft" => vec![match size {
                S::Test => fft::TEST_LOG2,
                S::Quick => cf17_sizes::QUICK_FFT_LOG2,
                S::Paper => fft::PAPER_LOG2,
            }
            .to_string()],
            "knapsack" => vec![path_arg(&knapsack::input(match size {
                S::Test => knapsack::TEST_SIZE,
                S::Quick => cf17_sizes::QUICK_KNAPSACK_ITEMS,
                S::Paper => knapsack::BENCH_SIZE,
            }))],
            "uts" => {
                let (root_children, start) = match size {
                    S::Test => (format!("{}", uts::TEST_ROOT_CHILDREN), "root".to_string()),
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
        let name = cf17_sizes::NAMES
            .iter()
            .copied()
            .find(|&n| n == name)
            .expect("matched above");
        Ok(PeerProgram {
            table: PeerTable::Cf17,
            name,
            args,
            label: name.to_string(),
            plan: single_runs(crate::tables::cf17::runner::default_reps(size)),
        })
    }

    /// The peer's command-line words for this program: the name, then the
    /// arguments.
    pub fn words(&self) -> Vec<String> {
        std::iter::once(self.name.to_string())
            .chain(self.args.iter().cloned())
            .collect()
    }

    /// The Rust sequential reference of this program, ready to run (its
    /// input built).
    ///
    /// # Errors
    /// Arguments this module did not make, or an unreadable input file.
    pub fn rust_sequential(&self) -> Result<RustSequential, String> {
        rust_sequential(self)
    }
}

/// One warm-up run and `reps` single timed runs.
fn single_runs(reps: usize) -> PeerPlan {
    PeerPlan {
        reps,
        warmup: Duration::ZERO,
        batch: Duration::ZERO,
    }
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The steps of a sequential reference, over its state.
trait Steps {
    fn setup(&mut self);
    fn run(&mut self);
    fn checksum(&self) -> String;
}

struct Closures<S, A, B, C> {
    state: S,
    setup: A,
    run: B,
    checksum: C,
}

impl<S, A, B, C> Steps for Closures<S, A, B, C>
where
    A: FnMut(&mut S),
    B: FnMut(&mut S),
    C: Fn(&S) -> String,
{
    fn setup(&mut self) {
        (self.setup)(&mut self.state);
    }
    fn run(&mut self) {
        (self.run)(&mut self.state);
    }
    fn checksum(&self) -> String {
        (self.checksum)(&self.state)
    }
}

/// A Rust sequential reference: the program's input, its untimed setup
/// (copying an in-place program's input, as the Rust table does before the
/// clock) and its timed run, and the checksum of the last run's result.
pub struct RustSequential(Box<dyn Steps>);

impl std::fmt::Debug for RustSequential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RustSequential")
    }
}

impl RustSequential {
    fn new<S: 'static>(
        state: S,
        setup: impl FnMut(&mut S) + 'static,
        run: impl FnMut(&mut S) + 'static,
        checksum: impl Fn(&S) -> String + 'static,
    ) -> RustSequential {
        RustSequential(Box::new(Closures {
            state,
            setup,
            run,
            checksum,
        }))
    }

    /// Runs it once (setup and run) and returns the checksum of its result:
    /// what a peer's `--expect` takes.
    pub fn checksum(&mut self) -> String {
        self.0.setup();
        self.0.run();
        self.0.checksum()
    }

    /// The checksum of the last run's result (after [`time`](Self::time)).
    pub fn last_checksum(&self) -> String {
        self.0.checksum()
    }

    /// Times it by `plan`, as a peer would: a warm-up, then `plan.reps`
    /// timed runs, or with a batch target batches of runs doubled until one
    /// lasts that long. Returns the time per run of each, and the process's
    /// CPU time over the wall time of the timed runs (as a peer reports it).
    pub fn time(&mut self, plan: &PeerPlan) -> (Vec<Duration>, f64) {
        let steps = &mut self.0;
        let mut batch = 1u32;
        if plan.batch.is_zero() {
            steps.setup();
            steps.run();
        } else {
            let start = Instant::now();
            loop {
                let t = Instant::now();
                for _ in 0..batch {
                    steps.setup();
                    steps.run();
                }
                if t.elapsed() < plan.batch {
                    batch = batch.saturating_mul(2);
                } else if start.elapsed() >= plan.warmup {
                    break;
                }
            }
        }
        let (cpu0, wall0) = (crate::harness::record::cpu_time_ns(), Instant::now());
        let times = (0..plan.reps.max(1))
            .map(|_| {
                if plan.batch.is_zero() {
                    steps.setup();
                    let t = Instant::now();
                    steps.run();
                    t.elapsed()
                } else {
                    let t = Instant::now();
                    for _ in 0..batch {
                        steps.setup();
                        steps.run();
                    }
                    t.elapsed() / batch
                }
            })
            .collect();
        let cpu = crate::harness::record::cpu_time_ns().saturating_sub(cpu0) as f64;
        (times, cpu / wall0.elapsed().as_nanos().max(1) as f64)
    }
}

fn arg<T: std::str::FromStr>(p: &PeerProgram, i: usize) -> Result<T, String> {
    p.args
        .get(i)
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("{}: bad argument {i} in {:?}", p.name, p.args))
}

/// No setup step.
fn none<S>(_: &mut S) {}

fn rust_sequential(p: &PeerProgram) -> Result<RustSequential, String> {
    Ok(match p.name {
        "fib" => {
            let n: u64 = arg(p, 0)?;
            RustSequential::new(
                (n, 0u64),
                none,
                |s: &mut (u64, u64)| s.1 = fib::fib_seq(std::hint::black_box(s.0)),
                |s| checksum::of_u64(s.1),
            )
        }
        "tree" => {
            let nodes: u64 = arg(p, 0)?;
            let root = tree::Node::balanced(nodes);
            RustSequential::new(
                (root, 0u64),
                none,
                |s: &mut (Box<tree::Node>, u64)| s.1 = tree::sum_seq(&s.0),
                |s| checksum::of_u64(s.1),
            )
        }
        "two-wave" => {
            let (tasks, size): (usize, usize) = (arg(p, 0)?, arg(p, 1)?);
            RustSequential::new(
                Vec::new(),
                none,
                move |v: &mut Vec<f64>| *v = two_wave::sequential(tasks, size),
                |v| checksum::of_f64s(v),
            )
        }
        "cholesky" => {
            let original = cholesky::generate(arg(p, 0)?, arg(p, 1)?, 42);
            RustSequential::new(
                (original, None),
                |s: &mut (cholesky::Tiled, Option<cholesky::Tiled>)| s.1 = None,
                |s| s.1 = Some(cholesky::KERNEL.reference(&s.0)),
                |s| {
                    s.1.as_ref()
                        .map_or_else(String::new, |m| checksum::of_f64s(&m.data))
                },
            )
        }
        "matmul" => {
            let original = matmul::generate(arg(p, 0)?, arg(p, 1)?, 7);
            RustSequential::new(
                (original, None),
                |s: &mut (matmul::Problem, Option<matmul::Problem>)| s.1 = None,
                |s| s.1 = Some(matmul::KERNEL.reference(&s.0)),
                |s| {
                    s.1.as_ref()
                        .map_or_else(String::new, |m| checksum::of_f64s(&m.c))
                },
            )
        }
        "sparselu-dataflow" => {
            let original = sparselu::generate(arg(p, 0)?, arg(p, 1)?);
            RustSequential::new(
                (original, None),
                |s: &mut (sparselu::Matrix, Option<sparselu::Matrix>)| s.1 = None,
                |s| s.1 = Some(sparselu::KERNEL.reference(&s.0)),
                |s| s.1.as_ref().map_or_else(String::new, checksum::of_sparselu),
            )
        }
        "sum-of-squares" => {
            let data = par_loops::sum_input(arg(p, 0)?);
            RustSequential::new(
                (data, 0.0),
                none,
                |s: &mut (Vec<f64>, f64)| {
                    s.1 = par_loops::sum_of_squares(std::hint::black_box(&s.0))
                },
                |s| checksum::of_f64s(&[s.1]),
            )
        }
        "mandelbrot" => {
            let m: usize = arg(p, 0)?;
            RustSequential::new(
                vec![0u32; m * m],
                none,
                move |image: &mut Vec<u32>| {
                    image
                        .chunks_mut(m)
                        .enumerate()
                        .for_each(|(row, pixels)| par_loops::mandelbrot_row(m, row, pixels))
                },
                |image| checksum::of_u32s(image),
            )
        }
        "stencil" => {
            let s: usize = arg(p, 0)?;
            RustSequential::new(
                (par_loops::stencil_input(s), vec![0.0f64; s * s]),
                none,
                move |st: &mut (Vec<f64>, Vec<f64>)| {
                    let (input, grid) = st;
                    grid.chunks_mut(s)
                        .enumerate()
                        .for_each(|(row, cells)| par_loops::stencil_row(input, s, row, cells))
                },
                |st| checksum::of_f64s(&st.1),
            )
        }
        "par-sort" => {
            let n: usize = arg(p, 0)?;
            let nearly = p.args.get(1).map(String::as_str) == Some("nearly-sorted");
            let stable = p.args.get(2).map(String::as_str) == Some("stable");
            RustSequential::new(
                (par_loops::sort_input(n, nearly), vec![0u64; n]),
                none,
                move |s: &mut (Vec<u64>, Vec<u64>)| {
                    s.1.copy_from_slice(&s.0);
                    if stable {
                        s.1.sort()
                    } else {
                        s.1.sort_unstable()
                    }
                },
                |s| checksum::of_u64s(&s.1),
            )
        }
        "nqueens" => {
            let n: usize = arg(p, 0)?;
            RustSequential::new(
                0u64,
                none,
                move |r: &mut u64| *r = nqueens::nqueens_seq(std::hint::black_box(n)),
                |r| checksum::of_u64(*r),
            )
        }
        "sort" => {
            let keys = sort::bots_input(arg(p, 0)?);
            RustSequential::new(
                (keys, Vec::new()),
                |s: &mut (Vec<sort::Elm>, Vec<sort::Elm>)| s.1 = s.0.clone(),
                |s| sort::sort_seq(&mut s.1),
                |s| checksum::of_i64s(&s.1),
            )
        }
        "strassen" => {
            let (n, cutoff): (usize, usize) = (arg(p, 0)?, arg(p, 1)?);
            let (a, b) = (
                strassen::Matrix::random(n, 1),
                strassen::Matrix::random(n, 2),
            );
            RustSequential::new(
                (a, b, None),
                |s: &mut (strassen::Matrix, strassen::Matrix, Option<strassen::Matrix>)| s.2 = None,
                move |s| s.2 = Some(strassen::strassen_seq(&s.0, &s.1, cutoff)),
                |s| {
                    s.2.as_ref()
                        .map_or_else(String::new, |c| checksum::of_f64s(c.data()))
                },
            )
        }
        "health" => {
            let path = p.args.first().ok_or("health: no input file")?;
            let mut sim =
                health::read_simulation(path).map_err(|e| format!("health: {path}: {e}"))?;
            if p.args.len() > 1 {
                sim.time = arg(p, 1)?;
            }
            let village = health::allocate_village(&sim);
            let top = village.clone();
            RustSequential::new(
                (sim, village, top),
                |s: &mut (health::Simulation, health::Village, health::Village)| s.2 = s.1.clone(),
                |s| health::sim_main_seq(&mut s.2, &s.0),
                |s| checksum::of_village(&s.2),
            )
        }
        "sparselu" => {
            let original = sparselu::generate(arg(p, 0)?, arg(p, 1)?);
            let m = original.clone();
            RustSequential::new(
                (original, m),
                |s: &mut (sparselu::Matrix, sparselu::Matrix)| s.1 = s.0.clone(),
                |s| sparselu::sequential(&mut s.1),
                |s| checksum::of_sparselu(&s.1),
            )
        }
        "alignment" => {
            let path = p.args.first().ok_or("alignment: no input file")?;
            let mut seqs =
                alignment::read_sequences(path).map_err(|e| format!("alignment: {path}: {e}"))?;
            if p.args.len() > 1 {
                seqs.truncate(arg(p, 1)?);
            }
            RustSequential::new(
                (seqs, alignment::Scoring::protein(), Vec::new()),
                none,
                |s: &mut (Vec<alignment::Sequence>, alignment::Scoring, Vec<i32>)| {
                    s.2 = alignment::pairalign_seq(&s.0, &s.1).scores().to_vec()
                },
                |s| checksum::of_i32s(&s.2),
            )
        }
        "delannoy" => {
            let (m, n): (u64, u64) = (arg(p, 0)?, arg(p, 1)?);
            RustSequential::new(
                0u64,
                none,
                move |r: &mut u64| {
                    *r = delannoy::delannoy_seq(std::hint::black_box(m), std::hint::black_box(n))
                },
                |r| checksum::of_u64(*r),
            )
        }
        "fft" => {
            let log2: u32 = arg(p, 0)?;
            let points = fft::input(1 << log2, cf17_sizes::FFT_SEED);
            RustSequential::new(
                (points, Vec::new()),
                none,
                |s: &mut (Vec<fft::Complex>, Vec<fft::Complex>)| s.1 = fft::fft_seq(&s.0),
                |s| checksum::of_complex(&s.1),
            )
        }
        "knapsack" => {
            let path = p.args.first().ok_or("knapsack: no input file")?;
            let instance =
                knapsack::read_instance(path).map_err(|e| format!("knapsack: {path}: {e}"))?;
            RustSequential::new(
                (instance, 0i64),
                none,
                |s: &mut (knapsack::Instance, i64)| {
                    s.1 = knapsack::knapsack_seq(&s.0.items, s.0.capacity)
                },
                |s| checksum::of_u64(s.1 as u64),
            )
        }
        "uts" => {
            let path = p.args.first().ok_or("uts: no input file")?;
            let mut tree = uts::read_tree(path).map_err(|e| format!("uts: {path}: {e}"))?;
            if p.args.get(1).map(String::as_str) != Some("all") {
                tree = tree.with_root_branching(arg(p, 1)?);
            }
            let mut start = tree.root();
            if p.args.get(2).map(String::as_str) != Some("root") {
                start = uts::child(&tree, &start, arg(p, 2)?);
            }
            RustSequential::new(
                (tree, start, 0u64),
                none,
                |s: &mut (uts::Tree, uts::Node, u64)| s.2 = uts::tree_search_seq(&s.0, &s.1),
                |s| checksum::of_u64(s.2),
            )
        }
        "floorplan" => {
            let path = p.args.first().ok_or("floorplan: no input file")?;
            let mut fp =
                floorplan::read_floorplan(path).map_err(|e| format!("floorplan: {path}: {e}"))?;
            if p.args.len() > 1 {
                // `cf17::workloads`' cut: the first CELLS cells, the last
                // placed last.
                let cells: usize = arg(p, 1)?;
                fp.cells.truncate(cells + 1);
                for cell in &mut fp.cells {
                    if cell.next > cells {
                        cell.next = 0;
                    }
                }
                fp.solution = None;
            }
            RustSequential::new(
                (fp, 0i32),
                none,
                |s: &mut (floorplan::Floorplan, i32)| s.1 = floorplan::floorplan_seq(&s.0).0.area,
                |s| checksum::of_u64(s.1 as u64),
            )
        }
        other => return Err(format!("no Rust reference for the peer program `{other}`")),
    })
}
