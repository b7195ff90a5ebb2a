//! `prescient-bench cf17`'s child processes: one configuration each, measured and
//! reported on one line of stdout; and the parent's side that spawns them and
//! reads that line.
//!
//! The line is `RESULT key=value … input=TEXT`: times in nanoseconds, the
//! peak RSS in KiB, for Prescient every counter by its
//! [`Counters::NAMES`] name; `input` comes last and its value is the rest of
//! the line (it may hold spaces). A wrong result or a pool that cannot be
//! built makes the child print `ERROR message` and exit with status 1.

use std::num::NonZeroUsize;
use std::path::Path;
use std::time::Duration;

use prescient::tuning::Counters;

use super::cli::{ChildSpec, Settings};
use super::runner::Runner;
use crate::cf17::{workloads, Timed, Workload};
use crate::suite::child::{peak_rss_kib, run_capture, steady_allocator, LineFields};

/// The prefix of a child's result line.
pub const RESULT_PREFIX: &str = "RESULT";
/// The prefix of a failed child's message line.
pub const ERROR_PREFIX: &str = "ERROR";

/// What one child measured.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildResult {
    /// The program's input, for humans (`n=30`).
    pub input: String,
    /// The median time of the timed runs, in nanoseconds.
    pub median_ns: f64,
    /// The fastest timed run, in nanoseconds.
    pub min_ns: f64,
    /// The number of timed runs.
    pub reps: u64,
    /// The child's peak RSS in KiB.
    pub rss_kib: u64,
    /// For Prescient, the counters of the timed runs (all `reps` of them;
    /// `live_stacks` and `peak_live_stacks` are the values after them).
    pub counters: Option<Counters>,
}

impl ChildResult {
    /// The child's `RESULT` line for `spec`.
    pub fn to_line(&self, spec: &ChildSpec) -> String {
        let mut line = format!(
            "{RESULT_PREFIX} program={} runner={} threads={} median_ns={:.1} min_ns={:.1} \
             reps={} rss_kib={}",
            spec.program,
            spec.runner,
            spec.threads,
            self.median_ns,
            self.min_ns,
            self.reps,
            self.rss_kib
        );
        if let Some(c) = &self.counters {
            for (name, value) in c.iter() {
                line += &format!(" {name}={value}");
            }
        }
        line += &format!(" input={}", self.input.replace('\n', " "));
        line
    }

    /// Parses a `RESULT` line.
    ///
    /// # Errors
    /// If it is not one, or a field is missing or not a number.
    pub fn parse_line(line: &str) -> Result<ChildResult, String> {
        // `input` is last and takes the rest of the line (it may hold spaces).
        let (head, input) = match line.find(" input=") {
            Some(at) => (&line[..at], &line[at + " input=".len()..]),
            None => return Err(format!("missing `input` in `{line}`")),
        };
        let fields = LineFields::parse(head, RESULT_PREFIX)?;
        let float = |k: &str| fields.get::<f64>(k);
        let int = |k: &str| fields.get::<u64>(k);
        let counters = fields.counters()?;
        Ok(ChildResult {
            input: input.to_string(),
            median_ns: float("median_ns")?,
            min_ns: float("min_ns")?,
            reps: int("reps")?,
            rss_kib: int("rss_kib")?,
            counters,
        })
    }

    /// A counter per timed run, by its [`Counters::NAMES`] name (Prescient
    /// only).
    pub fn per_run(&self, name: &str) -> Option<f64> {
        let value = self.counters.as_ref()?.get(name)?;
        Some(value as f64 / self.reps.max(1) as f64)
    }
}

/// The child of one configuration: measures it and prints the `RESULT` line,
/// or `ERROR message` (and the message on stderr). Returns the exit code.
pub fn run_child(spec: &ChildSpec) -> i32 {
    steady_allocator();
    match measure(spec) {
        Ok(result) => {
            println!("{}", result.to_line(spec));
            0
        }
        Err(e) => {
            let e = e.replace('\n', " ");
            println!("{ERROR_PREFIX} {e}");
            eprintln!(
                "error: {} {} {} thread(s): {e}",
                spec.program, spec.runner, spec.threads
            );
            1
        }
    }
}

/// Builds the pool, prepares the workload, and inside one entry into the
/// pool makes one warm-up run and `spec.reps` timed runs.
///
/// # Errors
/// If the pool cannot be built, the program cannot be prepared or lacks the
/// runner, or a run's result is wrong.
pub fn measure(spec: &ChildSpec) -> Result<ChildResult, String> {
    let (program, runner, threads, reps) = (spec.program, spec.runner, spec.threads, spec.reps);
    let params = runner.params(program)?;
    let pool = match (runner, params) {
        (Runner::Seq, _) => Pool::Seq,
        (Runner::Rayon, _) => Pool::Rayon(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| format!("building the rayon pool ({threads} threads): {e}"))?,
        ),
        (Runner::Chili, _) => Pool::Chili(chili::ThreadPool::with_config(chili::Config {
            thread_count: NonZeroUsize::new(threads),
            ..Default::default()
        })),
        (_, Some(params)) => Pool::Prescient(
            prescient::Runtime::builder()
                .params(params)
                .num_workers(threads)
                .build()
                .map_err(|e| format!("building Prescient ({runner}, {threads} workers): {e}"))?,
        ),
        (_, None) => unreachable!("a Prescient runner has params"),
    };
    let workload = workloads::prepare(program, spec.size)?;
    let (times, counters) = match &pool {
        Pool::Seq => repeat(&mut || (workload.seq)(), reps, None)?,
        Pool::Prescient(rt) => rt.run(|| {
            repeat(
                &mut || (workload.prescient)(),
                reps,
                Some(&|| rt.counters()),
            )
        })?,
        Pool::Rayon(pool) => {
            let run = workload
                .rayon
                .as_deref()
                .ok_or_else(|| absent(&workload, runner))?;
            pool.install(|| repeat(&mut || run(), reps, None))?
        }
        Pool::Chili(pool) => {
            let run = workload
                .chili
                .as_deref()
                .ok_or_else(|| absent(&workload, runner))?;
            let mut scope = pool.scope();
            repeat(&mut || run(&mut scope), reps, None)?
        }
    };
    let mut ns: Vec<f64> = times.iter().map(|t| t.as_nanos() as f64).collect();
    ns.sort_by(f64::total_cmp);
    let result = ChildResult {
        input: workload.input.clone(),
        median_ns: crate::suite::median(&ns),
        min_ns: ns.first().copied().unwrap_or(f64::NAN),
        reps: ns.len() as u64,
        rss_kib: peak_rss_kib(),
        counters,
    };
    drop(pool);
    // Large inputs take a while to free; the process is about to exit.
    std::mem::forget(workload);
    Ok(result)
}

fn absent(workload: &Workload, runner: Runner) -> String {
    format!("{} has no {runner} version", workload.program)
}

/// The pool a child builds once.
enum Pool {
    Seq,
    Prescient(prescient::Runtime),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
}

/// One warm-up run of `run`, then `reps` timed ones, every result checked;
/// `counters` (for Prescient) is read around the timed runs.
fn repeat(
    run: &mut dyn FnMut() -> Timed,
    reps: usize,
    counters: Option<&(dyn Fn() -> Counters + Sync)>,
) -> Result<(Vec<Duration>, Option<Counters>), String> {
    run().1.map_err(|e| format!("warm-up run: {e}"))?;
    let before = counters.map(|c| c());
    let mut times = Vec::with_capacity(reps);
    for i in 0..reps.max(1) {
        let (time, check) = run();
        check.map_err(|e| format!("timed run {}: {e}", i + 1))?;
        times.push(time);
    }
    let counters = match (counters, before) {
        (Some(c), Some(before)) => Some(c().since(&before)),
        _ => None,
    };
    Ok((times, counters))
}

/// One configuration's outcome, as the parent saw it.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The program.
    pub program: &'static str,
    /// The runner.
    pub runner: Runner,
    /// The thread count.
    pub threads: usize,
    /// What the child measured, or why it failed.
    pub result: Result<ChildResult, String>,
}

/// Runs `exe cf17 --child PROGRAM RUNNER THREADS --size … --reps …`
/// ([`ChildSpec::args`]) and reads its line: the `RESULT`, or the child's
/// `ERROR` message if it failed.
pub fn spawn(
    exe: &Path,
    program: &'static str,
    runner: Runner,
    threads: usize,
    options: &Settings,
) -> Outcome {
    let spec = ChildSpec {
        program,
        runner,
        threads,
        size: options.size,
        reps: options.reps,
    };
    let result = run_capture(exe, &spec.args(), options.timeout).and_then(|(status, out)| {
        read_output(&out, status.success()).map_err(|e| {
            if status.success() {
                e
            } else {
                format!("{e} (child exited with {status})")
            }
        })
    });
    Outcome {
        program,
        runner,
        threads,
        result,
    }
}

/// Reads a child's stdout: its last `RESULT` line if it `succeeded`, else
/// its `ERROR` message.
///
/// # Errors
/// The child's message, or what is missing.
pub fn read_output(stdout: &str, succeeded: bool) -> Result<ChildResult, String> {
    let last = |prefix: &str| {
        stdout
            .lines()
            .rev()
            .find(|l| l.starts_with(prefix))
            .map(str::to_string)
    };
    if !succeeded {
        return Err(match last(ERROR_PREFIX) {
            Some(line) => line[ERROR_PREFIX.len()..].trim().to_string(),
            None => "the child failed without a message (see its stderr above)".to_string(),
        });
    }
    let line =
        last(RESULT_PREFIX).ok_or_else(|| format!("the child printed no {RESULT_PREFIX} line"))?;
    ChildResult::parse_line(&line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cf17::Size;

    fn spec(runner: Runner) -> ChildSpec {
        ChildSpec {
            program: "fib",
            runner,
            threads: 2,
            size: Size::Test,
            reps: 2,
        }
    }

    fn numbered_counters() -> Counters {
        Counters::try_from_fn(|name| {
            let position = Counters::NAMES.iter().position(|&n| n == name);
            Ok::<u64, ()>(position.unwrap() as u64 + 1)
        })
        .unwrap()
    }

    #[test]
    fn result_line_round_trips() {
        let r = ChildResult {
            input: "2^24 points, seed=3".to_string(),
            median_ns: 1234.5,
            min_ns: 1000.0,
            reps: 4,
            rss_kib: 4096,
            counters: Some(numbered_counters()),
        };
        let line = r.to_line(&spec(Runner::Tuned));
        assert!(line.starts_with("RESULT program=fib runner=tuned threads=2 "));
        assert!(line.ends_with(" input=2^24 points, seed=3"));
        let back = ChildResult::parse_line(&line).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.per_run("spawns"), Some(0.25));
        assert_eq!(back.per_run("nope"), None);

        let plain = ChildResult {
            counters: None,
            input: "n=30".to_string(),
            ..r
        };
        let line = plain.to_line(&spec(Runner::Rayon));
        assert_eq!(ChildResult::parse_line(&line).unwrap(), plain);
        assert_eq!(plain.per_run("spawns"), None);
    }

    #[test]
    fn bad_lines() {
        assert!(ChildResult::parse_line("ERROR boom").is_err());
        assert!(ChildResult::parse_line("RESULTS median_ns=1 input=x").is_err());
        assert!(
            ChildResult::parse_line("RESULT median_ns=1 min_ns=1 reps=1 rss_kib=1")
                .unwrap_err()
                .contains("missing `input`")
        );
        assert!(
            ChildResult::parse_line("RESULT median_ns=1 min_ns=x reps=1 rss_kib=1 input=")
                .unwrap_err()
                .contains("`min_ns`")
        );
        // A partial counter set is an error, not silently zero.
        assert!(ChildResult::parse_line(&format!(
            "RESULT median_ns=1 min_ns=1 reps=1 rss_kib=1 {}=3 input=",
            Counters::NAMES[0]
        ))
        .is_err());
    }

    #[test]
    fn child_output() {
        let ok = "noise\nRESULT median_ns=2 min_ns=1 reps=3 rss_kib=9 input=n=5\n";
        assert_eq!(read_output(ok, true).unwrap().input, "n=5");
        assert_eq!(
            read_output("ERROR fib: got 1, expected 2\n", false),
            Err("fib: got 1, expected 2".to_string())
        );
        assert!(read_output("", false)
            .unwrap_err()
            .contains("without a message"));
        assert!(read_output("", true).unwrap_err().contains("no RESULT"));
    }

    #[test]
    fn every_runner_measures_fib_in_process() {
        for runner in Runner::ALL {
            let s = spec(runner);
            let r = measure(&s).unwrap_or_else(|e| panic!("{runner}: {e}"));
            assert_eq!(r.reps, 2);
            assert!(r.min_ns > 0.0 && r.min_ns <= r.median_ns, "{runner}: {r:?}");
            assert!(r.rss_kib > 0);
            assert_eq!(r.counters.is_some(), runner.is_prescient(), "{runner}");
            assert_eq!(ChildResult::parse_line(&r.to_line(&s)).unwrap(), r);
        }
    }
}
