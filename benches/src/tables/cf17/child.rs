//! The CF'17 table's child: one configuration, measured and printed as the
//! child's [`Record`] line (the program's input in it). A wrong result or a
//! pool that cannot be built makes the child print a record with the error
//! and exit with status 1.

use super::runner::params;
use crate::cf17::workloads;
use crate::cf17::{Size, SUBCOMMAND};
use crate::cli;
use crate::harness::record::{steady_allocator, Record};
use crate::harness::Pool;

/// One configuration, as a child measures it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildSpec {
    /// The program's name (one of [`workloads::NAMES`]).
    pub program: &'static str,
    /// The runner (one of [`super::runner::RUNNERS`]).
    pub runner: String,
    /// The threads of its pool.
    pub threads: usize,
    /// The input size.
    pub size: Size,
    /// The timed runs.
    pub reps: usize,
}

impl ChildSpec {
    /// The arguments (after the executable) that make it measure this
    /// configuration: `cf17 --child PROGRAM RUNNER THREADS --size SIZE
    /// --reps N`.
    pub fn args(&self) -> Vec<String> {
        let mut args = cli::child_args(
            SUBCOMMAND,
            "--child",
            &[self.program, &self.runner],
            self.threads,
            cli::Size::Full,
        );
        args.extend(["--size", self.size.name(), "--reps"].map(String::from));
        args.push(self.reps.to_string());
        args
    }
}

/// The child of one configuration: measures it and prints its record (or
/// the error's, with the message on stderr too). Returns the exit code.
pub fn run_child(spec: &ChildSpec) -> i32 {
    steady_allocator();
    match measure(spec) {
        Ok(record) => {
            record.print();
            0
        }
        Err(e) => {
            let e = e.replace('\n', " ");
            eprintln!(
                "error: {} {} {} thread(s): {e}",
                spec.program, spec.runner, spec.threads
            );
            Record::failure(e).print();
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
pub fn measure(spec: &ChildSpec) -> Result<Record, String> {
    let (program, runner) = (spec.program, spec.runner.as_str());
    let pool = Pool::build(runner, params(runner, program)?, spec.threads)?;
    let workload = workloads::prepare(program, spec.size)?;
    let (times, counters) = workload
        .measure(&pool, spec.reps)?
        .ok_or_else(|| format!("{program} has no {runner} version"))?;
    let record = Record {
        input: Some(workload.input.clone()),
        ..Record::of_times(times.iter().map(|t| t.as_nanos() as f64).collect())
    }
    .with_counters(counters);
    drop(pool);
    // Large inputs take a while to free; the process is about to exit.
    std::mem::forget(workload);
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runner_measures_fib_in_process() {
        for (runner, _) in super::super::runner::RUNNERS {
            let spec = ChildSpec {
                program: "fib",
                runner: runner.to_string(),
                threads: 2,
                size: Size::Test,
                reps: 2,
            };
            let r = measure(&spec).unwrap_or_else(|e| panic!("{runner}: {e}"));
            assert_eq!(r.times_ns.len(), 2);
            assert!(
                r.min_ns() > 0.0 && r.min_ns() <= r.median_ns(),
                "{runner}: {r:?}"
            );
            assert!(r.peak_rss_kib.unwrap() > 0);
            let prescient = super::super::runner::PRESCIENT_RUNNERS.contains(&runner);
            assert_eq!(r.counters.is_some(), prescient, "{runner}");
            assert!(r.input.as_deref().unwrap().starts_with("n="));
        }
        let spec = |program| ChildSpec {
            program,
            runner: "chili".into(),
            threads: 1,
            size: Size::Test,
            reps: 1,
        };
        assert_eq!(
            measure(&spec("nqueens")).unwrap_err(),
            "nqueens has no chili version"
        );
    }
}
