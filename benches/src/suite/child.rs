//! The child processes: one configuration each, measured and reported on one
//! line of stdout; and the parent's side that spawns them and reads that line.
//!
//! The line is `RESULT key=value …` (or `IDLE key=value …`), with times in
//! nanoseconds and the peak RSS in KiB, so that it is easy to read by eye and
//! by the parent.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use prescient::tuning::Counters;

pub use super::rusage::{cpu_time_ns, peak_rss_kib};

use super::cli::Settings;
use super::config::{Program, Runner};
use super::pool::Pool;
use super::work::Work;
use crate::cli::Size;
use crate::programs::tree::Layout;

/// The prefix of a child's result line.
pub const RESULT_PREFIX: &str = "RESULT";
/// The prefix of an idle child's result line.
pub const IDLE_PREFIX: &str = "IDLE";

/// Fixes glibc's allocator thresholds for a measuring child: blocks up to
/// [`STEADY_MMAP_THRESHOLD`] come from the heap, and the heap keeps up to
/// [`STEADY_TRIM_THRESHOLD`] of free memory instead of returning it.
///
/// Why: by default glibc serves a block of 128 KiB or more with a fresh
/// `mmap`, raising that threshold (up to 32 MiB) the first time it frees such
/// a block. Whether and when a process crosses that step depends on which
/// thread frees what first, so a program that allocates megabyte buffers per
/// run (fft, strassen, sort) ran in one of two modes per process: reusing
/// heap memory, or faulting in fresh pages on every run, with clearly
/// different times from one process to the next. Fixed thresholds give every runner and every configuration the same
/// allocator. A no-op off glibc.
pub fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only sets two of glibc's allocator parameters; it
        // is called before the child builds any pool, so no other thread of
        // this process is allocating, and both values are in range.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, STEADY_MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, STEADY_TRIM_THRESHOLD);
        }
    }
}

/// Blocks up to this many bytes come from the heap in a measuring child
/// ([`steady_allocator`]): 64 MiB.
pub const STEADY_MMAP_THRESHOLD: i32 = 64 << 20;
/// Free heap memory a measuring child keeps ([`steady_allocator`]): 256 MiB.
pub const STEADY_TRIM_THRESHOLD: i32 = 256 << 20;

/// What one child measured.
#[derive(Clone, Debug)]
pub struct ChildResult {
    /// The median time per run.
    pub median_ns: f64,
    /// The fastest batch, per run.
    pub min_ns: f64,
    /// The slowest batch, per run.
    pub max_ns: f64,
    /// Runs per timed batch.
    pub batch: u64,
    /// Timed batches.
    pub samples: u64,
    /// The child's peak RSS in KiB.
    pub rss_kib: u64,
    /// Process CPU time over wall time during the timed runs (see
    /// [`Measurement::cpu_per_wall`](super::Measurement::cpu_per_wall)).
    pub cpu_per_wall: f64,
    /// For Prescient, the counters of the timed runs (all `runs` of them).
    pub counters: Option<Counters>,
}

impl ChildResult {
    /// The number of timed runs.
    pub fn runs(&self) -> u64 {
        self.batch * self.samples
    }

    /// The child's `RESULT` line.
    pub fn to_line(&self, program: Program, runner: Runner, threads: usize) -> String {
        let mut line = format!(
            "{RESULT_PREFIX} program={program} runner={runner} threads={threads} \
             median_ns={:.1} min_ns={:.1} max_ns={:.1} batch={} samples={} rss_kib={} \
             cpu_per_wall={:.3}",
            self.median_ns,
            self.min_ns,
            self.max_ns,
            self.batch,
            self.samples,
            self.rss_kib,
            self.cpu_per_wall
        );
        if let Some(c) = &self.counters {
            for (name, value) in c.iter() {
                line += &format!(" {name}={value}");
            }
        }
        line
    }

    /// Parses a `RESULT` line.
    pub fn parse_line(line: &str) -> Result<ChildResult, String> {
        let fields = LineFields::parse(line, RESULT_PREFIX)?;
        let float = |k: &str| fields.get::<f64>(k);
        let int = |k: &str| fields.get::<u64>(k);
        let counters = fields.counters()?;
        Ok(ChildResult {
            median_ns: float("median_ns")?,
            min_ns: float("min_ns")?,
            max_ns: float("max_ns")?,
            batch: int("batch")?,
            samples: int("samples")?,
            rss_kib: int("rss_kib")?,
            cpu_per_wall: float("cpu_per_wall")?,
            counters,
        })
    }
}

/// What an idle child measured.
#[derive(Clone, Debug, PartialEq)]
pub struct IdleResult {
    /// Process CPU time (user + system) burned while the main thread slept.
    pub cpu_ns: f64,
    /// The wall time of that sleep (about one second).
    pub wall_ns: f64,
    /// The child's peak RSS in KiB.
    pub rss_kib: u64,
}

impl IdleResult {
    /// The child's `IDLE` line.
    pub fn to_line(&self, runner: Runner, threads: usize) -> String {
        format!(
            "{IDLE_PREFIX} runner={runner} threads={threads} cpu_ns={:.0} wall_ns={:.0} rss_kib={}",
            self.cpu_ns, self.wall_ns, self.rss_kib
        )
    }

    /// Parses an `IDLE` line.
    pub fn parse_line(line: &str) -> Result<IdleResult, String> {
        let fields = LineFields::parse(line, IDLE_PREFIX)?;
        let get = |k: &str| fields.get::<f64>(k);
        Ok(IdleResult {
            cpu_ns: get("cpu_ns")?,
            wall_ns: get("wall_ns")?,
            rss_kib: get("rss_kib")? as u64,
        })
    }
}

/// The `key=value` words of a child's line, with typed getters whose errors
/// quote the line: the one parser of every benchmark child's output (the
/// suite's, the `cf17` suite's and its sweep's).
#[derive(Clone, Debug)]
pub struct LineFields<'a> {
    line: &'a str,
    fields: HashMap<&'a str, &'a str>,
}

impl<'a> LineFields<'a> {
    /// The fields of `line`, which must start with the word `prefix`.
    ///
    /// # Errors
    /// If the line does not start with `prefix`.
    pub fn parse(line: &'a str, prefix: &str) -> Result<LineFields<'a>, String> {
        let mut words = line.split_whitespace();
        if words.next() != Some(prefix) {
            return Err(format!("not a {prefix} line: `{line}`"));
        }
        Ok(LineFields {
            line,
            fields: words.filter_map(|w| w.split_once('=')).collect(),
        })
    }

    /// Field `key` parsed as a `T`.
    ///
    /// # Errors
    /// If it is missing or does not parse.
    pub fn get<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        self.fields
            .get(key)
            .and_then(|v| v.parse::<T>().ok())
            .ok_or_else(|| format!("missing or bad `{key}` in `{}`", self.line))
    }

    /// Field `key` as text.
    ///
    /// # Errors
    /// If it is missing.
    pub fn text(&self, key: &str) -> Result<&'a str, String> {
        self.fields
            .get(key)
            .copied()
            .ok_or_else(|| format!("missing `{key}` in `{}`", self.line))
    }

    /// The runtime's counters, if the line has them (one field per
    /// [`Counters::NAMES`] entry).
    ///
    /// # Errors
    /// If some are there but one is missing or not a number.
    pub fn counters(&self) -> Result<Option<Counters>, String> {
        if self.fields.contains_key(Counters::NAMES[0]) {
            Counters::try_from_fn(|k| self.get::<u64>(k)).map(Some)
        } else {
            Ok(None)
        }
    }
}

/// The child of one configuration: builds the input and the pool, measures,
/// prints the `RESULT` line. Returns the exit code.
pub fn run_child(
    program: Program,
    runner: Runner,
    threads: usize,
    size: Size,
    layout: Layout,
) -> i32 {
    let work = program.prepare(layout, size);
    let pool = match Pool::build(runner, threads) {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let m = pool.measure(&work, &program.plan(size));
    let result = ChildResult {
        median_ns: m.median_ns(),
        min_ns: m.per_run_ns.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: m.per_run_ns.iter().copied().fold(0.0, f64::max),
        batch: m.batch,
        samples: m.per_run_ns.len() as u64,
        rss_kib: peak_rss_kib(),
        cpu_per_wall: m.cpu_per_wall,
        counters: m.counters,
    };
    println!("{}", result.to_line(program, runner, threads));
    drop(pool);
    // A 16M-node tree takes a while to free; the process is about to exit.
    std::mem::forget(work);
    0
}

/// Builds `runner`'s pool, runs one tiny job on it, then sleeps one second
/// (a tenth of one at [`Size::Test`]) and measures the process CPU time
/// burned meanwhile. For chili, the scope
/// of the tiny job is dropped before the sleep (a held scope keeps chili's
/// heartbeat thread ticking). Prints the `IDLE` line; returns the exit code.
pub fn run_idle_child(runner: Runner, threads: usize, size: Size) -> i32 {
    let pool = match Pool::build(runner, threads) {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    pool.time(&Work::fib(15), 1);
    let cpu0 = cpu_time_ns();
    let wall0 = Instant::now();
    std::thread::sleep(idle_time(size));
    let cpu = cpu_time_ns().saturating_sub(cpu0);
    let wall = wall0.elapsed();
    let result = IdleResult {
        cpu_ns: cpu as f64,
        wall_ns: wall.as_nanos() as f64,
        rss_kib: peak_rss_kib(),
    };
    println!("{}", result.to_line(runner, threads));
    0
}

/// How long an idle child sleeps: one second, a tenth of one at
/// [`Size::Test`].
pub const fn idle_time(size: Size) -> Duration {
    match size {
        Size::Test => Duration::from_millis(100),
        Size::Full | Size::Quick => Duration::from_secs(1),
    }
}

/// One configuration's outcome, as the parent saw it.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The program.
    pub program: Program,
    /// The runner.
    pub runner: Runner,
    /// The thread count.
    pub threads: usize,
    /// What the child measured, or why it failed.
    pub result: Result<ChildResult, String>,
}

/// An idle measurement's outcome, as the parent saw it.
#[derive(Clone, Debug)]
pub struct IdleOutcome {
    /// The runner.
    pub runner: Runner,
    /// The thread count.
    pub threads: usize,
    /// What the child measured, or why it failed.
    pub result: Result<IdleResult, String>,
}

/// Runs `exe fork-join --child PROGRAM RUNNER THREADS ...`
/// ([`Settings::child_args`]) and reads its line.
pub fn spawn_run(
    exe: &Path,
    program: Program,
    runner: Runner,
    threads: usize,
    settings: &Settings,
) -> Outcome {
    let args = settings.child_args(program, runner, threads);
    let result = run_and_read(exe, &args, settings.timeout, RESULT_PREFIX)
        .and_then(|line| ChildResult::parse_line(&line));
    Outcome {
        program,
        runner,
        threads,
        result,
    }
}

/// Runs `exe fork-join --child-idle RUNNER THREADS ...`
/// ([`Settings::idle_args`]) and reads its line.
pub fn spawn_idle(exe: &Path, runner: Runner, threads: usize, settings: &Settings) -> IdleOutcome {
    let args = settings.idle_args(runner, threads);
    let result = run_and_read(exe, &args, settings.timeout, IDLE_PREFIX)
        .and_then(|line| IdleResult::parse_line(&line));
    IdleOutcome {
        runner,
        threads,
        result,
    }
}

/// Runs `exe args…` (stderr passed through), kills it after `timeout`, and
/// returns its last stdout line that starts with `prefix`.
fn run_and_read(
    exe: &Path,
    args: &[String],
    timeout: Duration,
    prefix: &str,
) -> Result<String, String> {
    let (status, out) = run_capture(exe, args, timeout)?;
    if !status.success() {
        return Err(format!("child exited with {status}"));
    }
    out.lines()
        .rev()
        .find(|l| l.starts_with(prefix))
        .map(str::to_string)
        .ok_or_else(|| format!("the child printed no {prefix} line"))
}

/// Runs `exe args…` with stdin closed and stderr passed through, kills it
/// after `timeout`, and returns its exit status and everything it printed
/// on stdout (also `prescient-bench cf17`'s way to run its children).
///
/// # Errors
/// If it cannot be spawned or waited for, or ran past `timeout`.
pub fn run_capture(
    exe: &Path,
    args: &[String],
    timeout: Duration,
) -> Result<(std::process::ExitStatus, String), String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", exe.display()))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                return Err(format!("timed out after {:.0} s", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting for the child: {e}")),
        }
    };
    Ok((status, reader.join().unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_line_round_trips() {
        let r = ChildResult {
            median_ns: 1234.5,
            min_ns: 1000.0,
            max_ns: 2000.5,
            batch: 8,
            samples: 5,
            rss_kib: 4096,
            cpu_per_wall: 1.25,
            counters: Some(
                Counters::try_from_fn(|name| {
                    let position = Counters::NAMES.iter().position(|&n| n == name);
                    Ok::<u64, ()>(position.unwrap() as u64 + 1)
                })
                .unwrap(),
            ),
        };
        let line = r.to_line(Program::Fib, Runner::PrescientPfCap4, 2);
        assert!(line.starts_with("RESULT program=fib runner=prescient-pf-c4 threads=2 "));
        let back = ChildResult::parse_line(&line).unwrap();
        assert_eq!(back.median_ns, 1234.5);
        assert_eq!(back.max_ns, 2000.5);
        assert_eq!(back.cpu_per_wall, 1.25);
        assert_eq!(back.runs(), 40);
        assert_eq!(back.counters, r.counters);

        let plain = ChildResult {
            counters: None,
            ..r.clone()
        };
        let line = plain.to_line(Program::Tree1k, Runner::Rayon, 1);
        assert!(ChildResult::parse_line(&line).unwrap().counters.is_none());
        assert!(ChildResult::parse_line("IDLE cpu_ns=1").is_err());
        assert!(ChildResult::parse_line("RESULT median_ns=1").is_err());
    }

    #[test]
    fn idle_line_round_trips() {
        let r = IdleResult {
            cpu_ns: 1.5e6,
            wall_ns: 1.0e9,
            rss_kib: 100,
        };
        let back = IdleResult::parse_line(&r.to_line(Runner::Chili, 2)).unwrap();
        assert_eq!(back, r);
    }
}
