//! The `task-cost` table's instruction counts: what a join, a scope spawn
//! and a `spawn` + `TaskHandle::join` cost over the sequential program, in
//! instructions, at one worker, counted by `valgrind --tool=callgrind` —
//! for Prescient (the default adaptive inliner and `Inlining::Never`),
//! chili and rayon side by side. Instruction counts do not depend on what
//! else the machine runs, where times on a loaded machine do.
//!
//! Each count is one child process of this executable
//! (`prescient-bench task-cost --callgrind-child "PROGRAM RUNNER"`) under
//! `valgrind --tool=callgrind --collect-atstart=no
//! --toggle-collect=*callgrind_region*`: the child builds its pool with one
//! thread, runs the program `WARM_UP_RUNS` times (so that the inliner
//! has decided its sites and every cache and arena has grown), then runs it
//! once more inside [`callgrind_region`], on the pool's thread. Callgrind
//! counts only while that function is on the stack of the thread that
//! entered it, so the total of the output file is the program's run and
//! nothing of the process around it. The per-operation figure is the
//! runner's count minus the sequential program's, over the operations the
//! program makes (joins, or tasks).

use prescient::tuning::Inlining;
use prescient::{Params, Runtime};
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::Command;

use super::shapes::{self, Form, Shape, LOOP_TASKS};
use crate::annotated::delannoy;
use crate::dataflow::two_wave;
use crate::programs::{fib, tree};

/// How often a child runs its program before the counted run.
pub(crate) const WARM_UP_RUNS: usize = 3;

/// The function whose calls callgrind counts (`--toggle-collect`): calls
/// `body` once and returns its result. Out of line and not generic, so
/// that it is one function in the binary with this name.
#[inline(never)]
pub fn callgrind_region(body: &mut dyn FnMut() -> u64) -> u64 {
    black_box(body())
}

/// A program the instruction counts run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// `fib(n)`, a join per call with `n >= 2`.
    Fib(u64),
    /// The sum of a balanced tree of `2^k - 1` nodes, a join per node.
    Tree(u32),
    /// `D(n, n)`, the Delannoy number by naive recursion
    /// (`annotated::delannoy`: `#[task_program]` code, so its joins are
    /// analysed sites), two joins per inner call.
    Delannoy(u64),
    /// `units` scopes that spawn `LOOP_TASKS` (8) tiny tasks each.
    Scope(u64),
    /// `units` times: `LOOP_TASKS` (8) `spawn`s of a tiny task, then
    /// `TaskHandle::join` of each.
    Spawn(u64),
    /// The DAST paper's two-wave program (`dataflow::two_wave`) of
    /// `tasks` tasks per wave of the given task size: dataflow tasks.
    TwoWave {
        /// Tasks per wave.
        tasks: usize,
        /// Iterations of each task's recurrence.
        size: usize,
    },
}

impl Program {
    /// The program's name in the table and on the child's command line.
    pub(crate) fn name(self) -> String {
        match self {
            Program::Fib(n) => format!("fib({n})"),
            Program::Tree(k) => format!("tree(2^{k})"),
            Program::Delannoy(n) => format!("delannoy({n})"),
            Program::Scope(units) => format!("scope-spawn({units}x{LOOP_TASKS})"),
            Program::Spawn(units) => format!("spawn-join({units}x{LOOP_TASKS})"),
            Program::TwoWave { tasks, size } => format!("two-wave({tasks}x2,{size})"),
        }
    }

    /// What the per-operation figure divides by: joins, or tasks.
    pub(crate) fn operations(self) -> u64 {
        match self {
            Program::Fib(n) => fib::joins(n),
            Program::Tree(k) => tree::joins((1 << k) - 1),
            // (D - 1) / 2 inner calls, two joins each.
            Program::Delannoy(n) => delannoy::CENTRAL[n as usize] - 1,
            Program::Scope(units) | Program::Spawn(units) => units * LOOP_TASKS as u64,
            Program::TwoWave { tasks, .. } => 2 * tasks as u64,
        }
    }

    /// What one operation is, for the table.
    pub(crate) fn operation(self) -> &'static str {
        match self {
            Program::Fib(_) | Program::Tree(_) | Program::Delannoy(_) => "join",
            Program::Scope(_) => "scope spawn",
            Program::Spawn(_) => "spawn + join",
            Program::TwoWave { .. } => "dataflow task",
        }
    }

    /// The runners that have this program: chili has no scopes or handles,
    /// rayon no handles.
    pub(crate) fn runners(self) -> &'static [Runner] {
        match self {
            Program::Fib(_) | Program::Tree(_) => &Runner::ALL,
            Program::Scope(_) => &[
                Runner::Seq,
                Runner::Prescient,
                Runner::PrescientNever,
                Runner::Rayon,
            ],
            Program::Spawn(_) | Program::Delannoy(_) => {
                &[Runner::Seq, Runner::Prescient, Runner::PrescientNever]
            }
            Program::TwoWave { .. } => &[Runner::Seq, Runner::Prescient],
        }
    }

    fn parse(s: &str) -> Option<Program> {
        let (name, arg) = s.strip_suffix(')')?.split_once('(')?;
        let units = |arg: &str| arg.strip_suffix(&format!("x{LOOP_TASKS}"))?.parse().ok();
        match name {
            "fib" => arg.parse().ok().map(Program::Fib),
            "tree" => arg.strip_prefix("2^")?.parse().ok().map(Program::Tree),
            "delannoy" => arg.parse().ok().map(Program::Delannoy),
            "scope-spawn" => units(arg).map(Program::Scope),
            "spawn-join" => units(arg).map(Program::Spawn),
            "two-wave" => {
                let (tasks, size) = arg.split_once(',')?;
                Some(Program::TwoWave {
                    tasks: tasks.strip_suffix("x2")?.parse().ok()?,
                    size: size.parse().ok()?,
                })
            }
            _ => None,
        }
    }
}

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// The sequential program, no runtime.
    Seq,
    /// Prescient under `Params::DEFAULT` (the adaptive inliner).
    Prescient,
    /// Prescient with `Inlining::Never`: the scheduler's own path.
    PrescientNever,
    /// chili 0.2.1, `Scope::join`.
    Chili,
    /// rayon, `join` and `scope`.
    Rayon,
}

impl Runner {
    /// Every runner, the sequential one first.
    pub(crate) const ALL: [Runner; 5] = [
        Runner::Seq,
        Runner::Prescient,
        Runner::PrescientNever,
        Runner::Chili,
        Runner::Rayon,
    ];

    /// The runner's name in the table and on the child's command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runner::Seq => "sequential",
            Runner::Prescient => "prescient",
            Runner::PrescientNever => "prescient-never",
            Runner::Chili => "chili",
            Runner::Rayon => "rayon",
        }
    }

    fn parse(s: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// The child's argument for `program` under `runner`.
pub(crate) fn child_arg(program: Program, runner: Runner) -> String {
    format!("{} {}", program.name(), runner.name())
}

/// The tree of `2^k - 1` nodes.
fn tree_of(k: u32) -> Box<tree::Node> {
    tree::Node::balanced((1 << k) - 1)
}

/// rayon's twin of the scope loop: a scope spawning [`LOOP_TASKS`] tasks.
fn scope_rayon(base: u64) -> u64 {
    let mut out = [0u64; LOOP_TASKS];
    rayon::scope(|s| {
        for (i, slot) in out.iter_mut().enumerate() {
            s.spawn(move |_| *slot = shapes::work(base + i as u64));
        }
    });
    out.iter().fold(0, |a, &b| a.wrapping_add(b))
}

/// `units` units of the loop shape of `form`, with tasks or as plain calls.
fn loops(form: Form, units: u64, tasked: bool) -> u64 {
    (0..units).fold(0u64, |sum, u| {
        sum.wrapping_add(shapes::unit(form, Shape::Loop, u << 32, tasked))
    })
}

/// A checksum of two-wave's values (their bits, so that equal results
/// give equal sums).
fn checksum(values: &[f64]) -> u64 {
    values.iter().fold(0u64, |sum, v| {
        sum.wrapping_mul(31).wrapping_add(v.to_bits())
    })
}

/// One run of `program` by `runner` on the calling thread (inside the
/// runner's pool), its checksum.
fn run_once(program: Program, runner: Runner, tree: Option<&tree::Node>) -> u64 {
    let tree = || tree.expect("a tree program has its tree");
    match (program, runner) {
        (Program::Fib(n), Runner::Seq) => fib::fib_seq(black_box(n)),
        (Program::Fib(n), Runner::Prescient | Runner::PrescientNever) => {
            fib::fib_prescient(black_box(n))
        }
        (Program::Fib(n), Runner::Rayon) => fib::fib_rayon(black_box(n)),
        (Program::Tree(_), Runner::Seq) => tree::sum_seq(tree()),
        (Program::Tree(_), Runner::Prescient | Runner::PrescientNever) => {
            tree::sum_prescient(tree())
        }
        (Program::Tree(_), Runner::Rayon) => tree::sum_rayon(tree()),
        (Program::Delannoy(n), Runner::Seq) => delannoy::delannoy_seq(black_box(n), n),
        (Program::Delannoy(n), Runner::Prescient | Runner::PrescientNever) => {
            delannoy::delannoy(black_box(n), n)
        }
        (Program::Scope(units), Runner::Seq) => loops(Form::Scope, units, false),
        (Program::Scope(units), Runner::Prescient | Runner::PrescientNever) => {
            loops(Form::Scope, units, true)
        }
        (Program::Scope(units), Runner::Rayon) => {
            (0..units).fold(0u64, |sum, u| sum.wrapping_add(scope_rayon(u << 32)))
        }
        (Program::Spawn(units), Runner::Seq) => loops(Form::Spawn, units, false),
        (Program::Spawn(units), Runner::Prescient | Runner::PrescientNever) => {
            loops(Form::Spawn, units, true)
        }
        (Program::TwoWave { tasks, size }, Runner::Seq) => {
            checksum(&two_wave::sequential(tasks, size))
        }
        (Program::TwoWave { tasks, size }, Runner::Prescient | Runner::PrescientNever) => {
            checksum(&two_wave::dataflow(tasks, size))
        }
        (_, Runner::Chili)
        | (Program::Spawn(_) | Program::TwoWave { .. } | Program::Delannoy(_), Runner::Rayon) => {
            unreachable!("{runner:?} has no {program:?} (see Program::runners)")
        }
    }
}

/// The child: runs `arg` (`"PROGRAM RUNNER"`) `WARM_UP_RUNS` times and
/// once inside [`callgrind_region`], on a pool of one thread; prints the
/// checksum.
///
/// # Errors
/// An argument that names no program and runner, or a pair that does not
/// exist.
pub fn child(arg: &str) -> Result<(), String> {
    let bad = || format!("--callgrind-child: expected \"PROGRAM RUNNER\", got {arg:?}");
    let (program, runner) = arg.rsplit_once(' ').ok_or_else(bad)?;
    let (program, runner) = (
        Program::parse(program).ok_or_else(bad)?,
        Runner::parse(runner).ok_or_else(bad)?,
    );
    if !program.runners().contains(&runner) {
        return Err(format!(
            "{} has no {} program",
            runner.name(),
            program.name()
        ));
    }
    let tree = match program {
        Program::Tree(k) => Some(tree_of(k)),
        _ => None,
    };
    let tree = tree.as_deref();
    let measured = |body: &mut dyn FnMut() -> u64| {
        for _ in 0..WARM_UP_RUNS {
            black_box(body());
        }
        callgrind_region(body)
    };
    let sum = match runner {
        Runner::Seq => measured(&mut || run_once(program, runner, tree)),
        Runner::Prescient | Runner::PrescientNever => {
            let inlining = if runner == Runner::Prescient {
                Params::DEFAULT.inlining
            } else {
                Inlining::Never
            };
            let rt = Runtime::builder()
                .num_workers(1)
                .params(Params::DEFAULT.with_inlining(inlining))
                .build()
                .map_err(|e| format!("building Prescient: {e}"))?;
            rt.run(|| measured(&mut || run_once(program, runner, tree)))
        }
        Runner::Rayon => rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| format!("building the rayon pool: {e}"))?
            .install(|| measured(&mut || run_once(program, runner, tree))),
        Runner::Chili => {
            let pool = chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZeroUsize::new(1),
                ..Default::default()
            });
            let mut scope = pool.scope();
            let mut body = || match program {
                Program::Fib(n) => fib::fib_chili(&mut scope, black_box(n)),
                Program::Tree(_) => {
                    tree::sum_chili(&mut scope, tree.expect("a tree program has its tree"))
                }
                Program::Scope(_)
                | Program::Spawn(_)
                | Program::TwoWave { .. }
                | Program::Delannoy(_) => {
                    unreachable!("see Program::runners")
                }
            };
            measured(&mut body)
        }
    };
    println!("{sum}");
    Ok(())
}

/// Whether `valgrind` runs here; `None` if it does, else why not.
pub(crate) fn valgrind_missing() -> Option<String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!("`valgrind --version` exited with {}", out.status)),
        Err(e) => Some(format!("valgrind not found ({e})")),
    }
}

/// The instructions callgrind counted in the child for `program` under
/// `runner` (the region's total), and the child's checksum; the child is
/// this executable's `subcommand` (the table's) with `--callgrind-child`.
///
/// # Errors
/// The child or valgrind failed, or its output file has no total.
pub(crate) fn count(
    subcommand: &str,
    program: Program,
    runner: Runner,
    dir: &Path,
) -> Result<(u64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| format!("the benchmark's executable: {e}"))?;
    let out_file = dir.join(format!(
        "callgrind.{}.{}.out",
        program.name().replace(['(', ')', '^'], "_"),
        runner.name()
    ));
    let arg = child_arg(program, runner);
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg("--toggle-collect=*callgrind_region*")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(&exe)
        .args([subcommand, "--callgrind-child", &arg])
        .output()
        .map_err(|e| format!("starting valgrind: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "callgrind child {arg:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let checksum = String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .and_then(|line| line.trim().parse().ok())
        .ok_or_else(|| format!("callgrind child {arg:?} printed no checksum"))?;
    let text = std::fs::read_to_string(&out_file)
        .map_err(|e| format!("reading {}: {e}", out_file.display()))?;
    let _ = std::fs::remove_file(&out_file);
    let total = total_instructions(&text)
        .ok_or_else(|| format!("{} holds no instruction total", out_file.display()))?;
    Ok((total, checksum))
}

/// The `totals:` (or else `summary:`) line of a callgrind output file: its
/// first event, instructions executed.
fn total_instructions(text: &str) -> Option<u64> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
    };
    field("totals:").or_else(|| field("summary:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for program in [
            Program::Fib(25),
            Program::Tree(10),
            Program::Delannoy(8),
            Program::Scope(1000),
            Program::Spawn(10),
            Program::TwoWave {
                tasks: 10_000,
                size: 250,
            },
        ] {
            assert_eq!(Program::parse(&program.name()), Some(program));
            for &runner in program.runners() {
                assert_eq!(Runner::parse(runner.name()), Some(runner));
            }
        }
        assert_eq!(Program::parse("fib(x)"), None);
        assert_eq!(Program::parse("scope-spawn(10x9)"), None);
        assert_eq!(Program::Tree(10).operations(), 1023);
        assert_eq!(Program::Fib(25).operations(), 121_392);
        assert_eq!(Program::Delannoy(3).operations(), 62);
        assert_eq!(Program::TwoWave { tasks: 7, size: 1 }.operations(), 14);
    }

    #[test]
    fn totals_are_read() {
        let text = "events: Ir\nsummary: 123\nfn=x\n0 5\ntotals: 120\n";
        assert_eq!(total_instructions(text), Some(120));
        assert_eq!(total_instructions("summary: 77\n"), Some(77));
        assert_eq!(total_instructions("events: Ir\n"), None);
    }

    #[test]
    fn every_pair_runs_in_process() {
        for program in [
            Program::Fib(10),
            Program::Tree(5),
            Program::Delannoy(3),
            Program::Scope(3),
            Program::Spawn(3),
            Program::TwoWave { tasks: 20, size: 5 },
        ] {
            for &runner in program.runners() {
                child(&child_arg(program, runner)).unwrap();
            }
        }
        assert!(child("fib(10) chili-2").is_err());
        assert!(child("spawn-join(3x8) chili").is_err());
    }
}
