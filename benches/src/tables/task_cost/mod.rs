//! The `task-cost` table: what a task nobody steals costs over a plain
//! call, for each way of creating one — `join`, a scope's `spawn`,
//! `TaskGroup::spawn` + `wait`, `spawn` + `TaskHandle::join` — in a loop of
//! tiny tasks and in a recursion, at queue capacities 4, 16 (the default)
//! and 128, on one worker; then nqueens(11) under the default capacity and
//! 128 against its sequential time, at each thread count; then, where
//! valgrind runs, the instructions per join, scope spawn, handle and
//! dataflow task over the sequential program at one worker, counted by
//! callgrind, for Prescient, chili and rayon. [`Options`] says what it
//! prints; [`run`] prints it.
//!
//! The programs are in `shapes`, the alternating batch timing in `measure`,
//! nqueens in `nqueens`, the instruction counts (and the child process
//! they run in) in `callgrind`; this module has the options, the Markdown
//! and the JSON ([`TaskCostJson`]). The JSON's `samples` hold one per-task sample
//! per form, shape and capacity (`task-cost scope loop c16`, runner
//! `prescient`, 1 thread, `per_task`: the seconds over a plain call), and
//! nqueens' runs (`nqueens(11)`: `sequential`, `prescient` at the default
//! capacity, `prescient-c128`).

pub mod callgrind;
mod measure;
mod nqueens;
mod shapes;

use prescient::tuning::Inlining;
use prescient::Params;
use serde::{Deserialize, Serialize};
use std::time::Duration;

use crate::cli::{self, progress, CommonArgs, Size};
use crate::dataflow::runtime;
use crate::harness::load_average;
use crate::samples::{Sample, TableHead, PRESCIENT, SEQUENTIAL};
use callgrind::Program;
use measure::{cost, Cost, Timing};
use shapes::{Form, Shape, LOOP_TASKS};

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "task-cost";

/// The queue capacities the per-task costs are measured at: lazy task
/// creation's limit, small, the default and large.
pub const CAPACITIES: [usize; 3] = [4, Params::DEFAULT.queue_capacity, 128];

/// The inliner settings the per-task costs are measured under: off (the
/// scheduler's own path: latent joins and spawns, the deque) and the
/// default adaptive inliner (what a user gets, which runs a site's tiny
/// tasks as plain calls).
pub const INLINERS: [(&str, Inlining); 2] =
    [("never", Inlining::Never), ("adaptive", Inlining::Adaptive)];

/// What a task nobody steals costs over a plain call, per form; nqueens at two capacities.
///
/// Part 1, on one worker: for each way of creating a task — join(a, b), a
/// scope's spawn, TaskGroup::spawn then wait, spawn then TaskHandle::join —
/// in two shapes, a loop of 8 tiny tasks (each an integer hash of its
/// index) and a binary recursion of depth 16 that creates its two children
/// as tasks at every node, the nanoseconds per task of the task version
/// minus those of the same closures called directly ("over a call"), at
/// queue capacities 4, 16 (the default) and 128, with the inliner off (the
/// scheduler's own path) and adaptive (the default). The runtime's counters
/// per task say which path the tasks took: deferred (recorded as latent
/// spawns or pushed to the deque), inlined because the capacity was full,
/// or neither (latent joins, or run inline by the adaptive inliner).
///
/// Timing: batches of units long enough (2 ms at least), task batches and
/// plain batches alternated, the median of each; all of it inside one
/// rt.run per capacity.
///
/// Part 2: nqueens(11), the annotated scope version, under Params::DEFAULT
/// and with capacity 128, at each thread count, against the sequential
/// program (median of round-robin runs). --quick: fewer batches and runs.
///
/// Part 3, where valgrind runs (else skipped, saying why): instructions per
/// operation over the sequential program at one worker, counted by
/// callgrind in a child process per program and runner (deterministic,
/// whatever the machine's load): a join in fib(25), in trees of 2^10 and
/// 2^16 nodes and in delannoy(8); a scope spawn and a spawn +
/// TaskHandle::join of a tiny task (1000 loops of 8); a dataflow task of
/// two-wave (10000 x 2 tasks of size 250). Prescient under the default
/// parameters and under Inlining::Never, chili and rayon where they have
/// the program.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Runs one program of the instruction counts ("PROGRAM RUNNER") and
    /// exits: the child the table runs under callgrind (`callgrind`).
    #[arg(long, hide = true, value_name = "PROGRAM RUNNER")]
    pub callgrind_child: Option<String>,
}

/// What one [`Size`] measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes {
    /// The shortest batch, in microseconds.
    pub batch_us: u64,
    /// Timed batches of each form per row.
    pub batches: usize,
    /// The depth of the recursion shape.
    pub tree_depth: u32,
    /// The nqueens board.
    pub nqueens: usize,
    /// Timed nqueens rounds.
    pub nqueens_reps: usize,
    /// The programs of the instruction counts (callgrind; the same at
    /// full and quick size, since counts need no repetitions).
    pub callgrind: Vec<callgrind::Program>,
}

impl Sizes {
    /// The measurements of `size`: full (2 ms batches, 61 of each, nqueens
    /// 11 rounds; about 30 s at two thread counts on 2 cores, plus about a
    /// minute of callgrind children), quick (15 batches, 3 rounds; about
    /// 8 s, the same callgrind children), test (tiny batches, a tree of
    /// depth 8, nqueens(8) once, callgrind on fib(10) only).
    pub fn of(size: Size) -> Sizes {
        match size {
            Size::Full => Sizes {
                batch_us: 2000,
                batches: 61,
                tree_depth: 16,
                nqueens: 11,
                nqueens_reps: 11,
                callgrind: vec![
                    Program::Fib(25),
                    Program::Tree(10),
                    Program::Tree(16),
                    Program::Delannoy(8),
                    Program::Scope(1000),
                    Program::Spawn(1000),
                    Program::TwoWave {
                        tasks: 10_000,
                        size: 250,
                    },
                ],
            },
            Size::Quick => Sizes {
                batches: 15,
                nqueens_reps: 3,
                ..Sizes::of(Size::Full)
            },
            Size::Test => Sizes {
                batch_us: 100,
                batches: 3,
                tree_depth: 8,
                nqueens: 8,
                nqueens_reps: 1,
                callgrind: vec![Program::Fib(10)],
            },
        }
    }
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskCostJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// The one-minute load average at the start.
    pub load_average: String,
    /// The shortest batch, in seconds.
    pub batch_seconds: f64,
    /// Timed batches of each form per row.
    pub batches: usize,
    /// Tasks per unit of the loop shape.
    pub loop_tasks: usize,
    /// The depth of the recursion shape.
    pub tree_depth: u32,
    /// The per-task rows (one worker).
    pub rows: Vec<CostRow>,
    /// The nqueens board.
    pub nqueens: usize,
    /// The nqueens rows.
    pub nqueens_rows: Vec<NqueensRow>,
    /// The instruction counts (callgrind, one worker); empty when skipped.
    #[serde(default)]
    pub instruction_rows: Vec<InstructionRow>,
    /// Why the instruction counts were skipped (no valgrind), if they were.
    #[serde(default)]
    pub instructions_skipped: Option<String>,
}

/// One instruction count: a program under a runner, one worker
/// (`callgrind`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstructionRow {
    /// The program (`fib(25)`, `tree(2^10)`, `scope-spawn(1000x8)`, ...).
    pub program: String,
    /// What one operation is: `join`, `scope spawn`, `spawn + join`.
    pub operation: String,
    /// Operations the program makes.
    pub operations: u64,
    /// The runner (`sequential`, `prescient`, `prescient-never`, `chili`,
    /// `rayon`).
    pub runner: String,
    /// Instructions callgrind counted in one run of the program.
    pub instructions: u64,
    /// `(instructions - the sequential program's) / operations`; `None`
    /// for the sequential row.
    pub per_operation: Option<f64>,
}

/// One per-task row: a form in a shape at a queue capacity, one worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostRow {
    /// `join`, `scope`, `group` or `spawn`.
    pub form: String,
    /// `loop` or `tree`.
    pub shape: String,
    /// The queue capacity.
    pub capacity: usize,
    /// The inliner: `never` or `adaptive` (the default).
    #[serde(default)]
    pub inliner: String,
    /// Its program name in the samples (`task-cost join loop c4`).
    pub program: String,
    /// Tasks per batch.
    pub tasks_per_batch: u64,
    /// Nanoseconds per task with tasks (median batch).
    pub task_ns: f64,
    /// Nanoseconds per task as plain calls (median batch).
    pub plain_ns: f64,
    /// `task_ns - plain_ns`.
    pub over_call_ns: f64,
    /// Deferred tasks (`Counters::spawns`) per task.
    pub deferred_per_task: f64,
    /// Tasks run inline because the deque was full
    /// (`Counters::inlined_spawns`) per task.
    pub inlined_per_task: f64,
}

/// One nqueens row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NqueensRow {
    /// The runner in the samples (`sequential`, `prescient`,
    /// `prescient-c128`).
    pub runner: String,
    /// Threads (1 for the sequential program).
    pub threads: usize,
    /// The queue capacity (`None`: the sequential program).
    pub capacity: Option<usize>,
    /// The median time of one run, in seconds.
    pub seconds: f64,
    /// Over the sequential time.
    pub vs_sequential: f64,
    /// Deferred tasks per run.
    pub deferred_per_run: Option<f64>,
    /// Tasks run inline because the deque was full, per run.
    pub inlined_per_run: Option<f64>,
    /// Steals per run.
    pub steals_per_run: Option<f64>,
}

/// The program name of a per-task sample: `task-cost join loop c4` under
/// the default inliner, `task-cost join loop c4 never` without it.
fn program(form: Form, shape: Shape, capacity: usize, inliner: &str) -> String {
    let suffix = if inliner == "adaptive" {
        String::new()
    } else {
        format!(" {inliner}")
    };
    format!(
        "{TABLE} {} {} c{capacity}{suffix}",
        form.name(),
        shape.name()
    )
}

/// The runner of an nqueens run at `capacity` in the samples: `prescient`
/// under the default parameters, `prescient-c<capacity>` otherwise.
fn nqueens_runner(capacity: Option<usize>) -> String {
    match capacity {
        None => SEQUENTIAL.to_string(),
        Some(c) if c == Params::DEFAULT.queue_capacity => PRESCIENT.to_string(),
        Some(c) => format!("{PRESCIENT}-c{c}"),
    }
}

/// The row of `cost`.
fn cost_row(form: Form, shape: Shape, capacity: usize, inliner: &str, cost: &Cost) -> CostRow {
    CostRow {
        form: form.name().to_string(),
        shape: shape.name().to_string(),
        capacity,
        inliner: inliner.to_string(),
        program: program(form, shape, capacity, inliner),
        tasks_per_batch: cost.tasks,
        task_ns: cost.task_ns,
        plain_ns: cost.plain_ns,
        over_call_ns: cost.over_call_ns(),
        deferred_per_task: cost.per_task(cost.counters.spawns),
        inlined_per_task: cost.per_task(cost.counters.inlined_spawns),
    }
}

/// The Markdown line of a per-task row.
fn render_cost(row: &CostRow) -> String {
    format!(
        "| {:<5} | {:<5} | {:<8} | {:>4} | {:>8.1} | {:>8.1} | {:>11.1} | {:>8.2} | {:>7.2} |",
        row.form,
        row.shape,
        row.inliner,
        row.capacity,
        row.task_ns,
        row.plain_ns,
        row.over_call_ns,
        row.deferred_per_task,
        row.inlined_per_task
    )
}

/// The Markdown line of an nqueens row.
fn render_nqueens(row: &NqueensRow) -> String {
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
    format!(
        "| {:<16} | {:>3} | {:>4} | {:>10.2} | {:>6.2} | {:>9} | {:>9} | {:>7} |",
        row.runner,
        row.threads,
        row.capacity.map_or("-".to_string(), |c| c.to_string()),
        row.seconds * 1e3,
        row.vs_sequential,
        opt(row.deferred_per_run),
        opt(row.inlined_per_run),
        opt(row.steals_per_run)
    )
}

/// Part 1: every form in every shape at every capacity, one worker; the
/// rows in table order (shape, form, capacity) and their samples.
fn per_task_costs(sizes: &Sizes) -> Result<Vec<CostRow>, String> {
    let timing = Timing {
        batch: Duration::from_micros(sizes.batch_us),
        batches: sizes.batches,
    };
    let shapes = [Shape::Loop, Shape::Tree(sizes.tree_depth)];
    let mut rows = Vec::new();
    // One runtime per capacity, entered once: every row of that capacity
    // is measured from inside it, so a batch is the program's own work and
    // nothing of entering the runtime.
    let mut by_capacity = Vec::new();
    for (inliner, inlining) in INLINERS {
        for capacity in CAPACITIES {
            progress(format!(
                "{TABLE}: per-task costs at capacity {capacity}, inliner {inliner}, one worker"
            ));
            let rt = runtime(
                1,
                Params::DEFAULT
                    .with_queue_capacity(capacity)
                    .with_inlining(inlining),
            );
            let costs = rt.run(|| {
                let mut costs = Vec::new();
                for shape in shapes {
                    for form in Form::ALL {
                        costs.push((form, shape, cost(&rt, form, shape, timing)?));
                    }
                }
                Ok::<_, String>(costs)
            })?;
            by_capacity.push((inliner, capacity, costs));
        }
    }
    for shape in shapes {
        for form in Form::ALL {
            for (inliner, capacity, costs) in &by_capacity {
                let (_, _, c) = costs
                    .iter()
                    .find(|(f, s, _)| *f == form && *s == shape)
                    .expect("every form and shape was measured");
                rows.push(cost_row(form, shape, *capacity, inliner, c));
            }
        }
    }
    Ok(rows)
}

/// Part 3: the instruction counts of every program in `sizes` under each
/// of its runners, one child under callgrind each; the rows in program
/// order, the sequential row first.
fn instruction_rows(sizes: &Sizes) -> Result<Vec<InstructionRow>, String> {
    let dir = std::env::temp_dir().join(format!("prescient-task-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let result = (|| {
        let mut rows = Vec::new();
        for &program in &sizes.callgrind {
            progress(format!(
                "{TABLE}: instructions of {} under callgrind, one worker",
                program.name()
            ));
            let mut sequential = None;
            for &runner in program.runners() {
                let (instructions, checksum) = callgrind::count(TABLE, program, runner, &dir)?;
                let per_operation = match sequential {
                    None => {
                        sequential = Some((instructions, checksum));
                        None
                    }
                    Some((seq, expected)) => {
                        if checksum != expected {
                            return Err(format!(
                                "{} under {}: checksum {checksum}, the sequential program's \
                                 {expected}",
                                program.name(),
                                runner.name()
                            ));
                        }
                        Some((instructions as f64 - seq as f64) / program.operations() as f64)
                    }
                };
                rows.push(InstructionRow {
                    program: program.name(),
                    operation: program.operation().to_string(),
                    operations: program.operations(),
                    runner: runner.name().to_string(),
                    instructions,
                    per_operation,
                });
            }
        }
        Ok(rows)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The Markdown of the instruction counts: one line per program, the
/// instructions per operation over the sequential program for each runner.
fn render_instructions(rows: &[InstructionRow]) -> Vec<String> {
    let runners = &callgrind::Runner::ALL[1..];
    let mut lines = vec![
        format!(
            "| program               | per           | sequential Ir |{}",
            runners
                .iter()
                .map(|r| format!(" {:>15} |", r.name()))
                .collect::<String>()
        ),
        format!(
            "|-----------------------|---------------|--------------:|{}",
            "----------------:|".repeat(runners.len())
        ),
    ];
    let mut programs: Vec<&str> = rows.iter().map(|r| r.program.as_str()).collect();
    programs.dedup();
    for program in programs {
        let of = |runner: &str| {
            rows.iter()
                .find(|r| r.program == program && r.runner == runner)
        };
        let Some(seq) = of(callgrind::Runner::Seq.name()) else {
            continue;
        };
        let cells: String = runners
            .iter()
            .map(|r| match of(r.name()).and_then(|row| row.per_operation) {
                Some(v) => format!(" {v:>15.1} |"),
                None => format!(" {:>15} |", "-"),
            })
            .collect();
        lines.push(format!(
            "| {:<21} | {:<13} | {:>13} |{cells}",
            program, seq.operation, seq.instructions
        ));
    }
    lines
}

/// Part 2: nqueens' rows, the sequential one first.
fn nqueens_rows(sizes: &Sizes, threads: &[usize]) -> Result<Vec<NqueensRow>, String> {
    progress(format!(
        "{TABLE}: nqueens({}), sequential and at threads {threads:?} x capacities {:?}",
        sizes.nqueens,
        nqueens::CAPACITIES
    ));
    let runs = nqueens::measure(sizes.nqueens, threads, sizes.nqueens_reps)?;
    let seq = runs[0].time.as_secs_f64();
    Ok(runs
        .iter()
        .map(|r| NqueensRow {
            runner: nqueens_runner(r.capacity),
            threads: r.threads.unwrap_or(1),
            capacity: r.capacity,
            seconds: r.time.as_secs_f64(),
            vs_sequential: r.time.as_secs_f64() / seq,
            deferred_per_run: r.counters_per_run.map(|c| c[0]),
            inlined_per_run: r.counters_per_run.map(|c| c[1]),
            steals_per_run: r.counters_per_run.map(|c| c[2]),
        })
        .collect())
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list in the environment, a task version whose result
/// differs from the plain one's, or a JSON file that cannot be written.
pub fn run(options: &Options) -> Result<(), String> {
    if let Some(arg) = &options.callgrind_child {
        return callgrind::child(arg);
    }
    let size = options.common.size();
    let sizes = Sizes::of(size);
    let threads = options.common.threads()?;
    let load = load_average();
    println!(
        "### The cost of a task nobody steals, over a plain call ({} size; one worker; {} \
         hardware threads; load average {load} at start)\n",
        size.name(),
        cli::available_threads(),
    );
    println!(
        "Each task hashes its index (a few ns). loop: {LOOP_TASKS} tasks spawned in a loop, \
         then the scope / group / handles end (join: {LOOP_TASKS} joins of two items); tree: a \
         binary recursion of depth {} whose every node creates its two children as tasks \
         (join: one join per node, one task per join). tasks / plain: ns per task, median of \
         {} batches of at least {} us each, task and plain batches alternated. over a call: \
         the difference. deferred / inlined: Counters::spawns / inlined_spawns per task (the \
         rest ran as latent joins or through the adaptive inliner as plain calls).\n",
        sizes.tree_depth, sizes.batches, sizes.batch_us,
    );
    let rows = per_task_costs(&sizes)?;
    println!(
        "| form  | shape | inliner  |  cap | tasks ns | plain ns | over a call | deferred | inlined |"
    );
    println!(
        "|-------|-------|----------|-----:|---------:|---------:|------------:|---------:|--------:|"
    );
    for row in &rows {
        println!("{}", render_cost(row));
    }
    println!();

    let nqueens = nqueens_rows(&sizes, &threads)?;
    println!(
        "### nqueens({}) under the default capacity ({}) and 128 (median of {} round-robin \
         runs; T/Tseq: time over the sequential program's; deferred, inlined, steals: the \
         runtime's counters per run)\n",
        sizes.nqueens,
        Params::DEFAULT.queue_capacity,
        sizes.nqueens_reps
    );
    println!(
        "| runner           | thr |  cap |  time (ms) | T/Tseq |  deferred |   inlined |  steals |"
    );
    println!(
        "|------------------|----:|-----:|-----------:|-------:|----------:|----------:|--------:|"
    );
    for row in &nqueens {
        println!("{}", render_nqueens(row));
    }
    println!();

    let (instruction_rows, instructions_skipped) = match callgrind::valgrind_missing() {
        None => (instruction_rows(&sizes)?, None),
        Some(why) => (Vec::new(), Some(why)),
    };
    println!(
        "### Instructions per operation over the sequential program, one worker (callgrind)\n"
    );
    match &instructions_skipped {
        Some(why) => println!("Skipped: {why}.\n"),
        None => {
            println!(
                "Each program once, after {} warm-up runs, under `valgrind --tool=callgrind \
                 --collect-atstart=no --toggle-collect=*callgrind_region*` (only the run, on \
                 the pool's one thread, is counted); a runner's figure is its count minus the \
                 sequential program's, over the joins (fib, tree, delannoy) or tasks (scope \
                 spawn; spawn + join: `spawn` then `TaskHandle::join`, {LOOP_TASKS} per unit; \
                 two-wave's dataflow tasks) of the program. prescient: Params::DEFAULT (the \
                 adaptive inliner); prescient-never: Inlining::Never. Instruction counts do not \
                 depend on the machine's load; the adaptive inliner's timed samples (a clock \
                 read) can move a small program's figure by a few instructions per operation.\n",
                callgrind::WARM_UP_RUNS
            );
            for line in render_instructions(&instruction_rows) {
                println!("{line}");
            }
            println!();
        }
    }

    if options.common.json.is_some() {
        let mut head = TableHead::new(TABLE, size, &threads);
        for row in &rows {
            head.samples.push(Sample::per_task(
                &row.program,
                PRESCIENT,
                1,
                row.over_call_ns * 1e-9,
            ));
        }
        let program = format!("nqueens({})", sizes.nqueens);
        for row in &nqueens {
            head.samples
                .push(Sample::new(&program, &row.runner, row.threads, row.seconds));
        }
        options.common.write_json(&TaskCostJson {
            head,
            load_average: load,
            batch_seconds: sizes.batch_us as f64 * 1e-6,
            batches: sizes.batches,
            loop_tasks: LOOP_TASKS,
            tree_depth: sizes.tree_depth,
            rows,
            nqueens: sizes.nqueens,
            nqueens_rows: nqueens,
            instruction_rows,
            instructions_skipped,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            program(Form::Join, Shape::Loop, 4, "adaptive"),
            "task-cost join loop c4"
        );
        assert_eq!(
            program(Form::Group, Shape::Tree(16), 128, "never"),
            "task-cost group tree c128 never"
        );
        assert_eq!(nqueens_runner(None), "sequential");
        assert_eq!(nqueens_runner(Some(16)), "prescient");
        assert_eq!(nqueens_runner(Some(128)), "prescient-c128");
        assert_eq!(CAPACITIES, [4, 16, 128]);
    }
}
