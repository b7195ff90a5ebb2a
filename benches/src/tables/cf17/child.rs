//! The CF'17 table's child: one configuration, measured and printed as the
//! child's [`Record`] line (the program's input in it). A wrong result or a
//! pool that cannot be built makes the child print a record with the error
//! and exit with status 1.

use std::num::NonZeroUsize;
use std::time::Duration;

use prescient::Counters;

use super::runner::params;
use super::ChildSpec;
use crate::cf17::{workloads, Timed, Workload};
use crate::harness::record::{steady_allocator, Record};

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
    let (program, runner, threads, reps) =
        (spec.program, spec.runner.as_str(), spec.threads, spec.reps);
    let pool = match (runner, params(runner, program)?) {
        ("seq", _) => Pool::Seq,
        ("rayon", _) => Pool::Rayon(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| format!("building the rayon pool ({threads} threads): {e}"))?,
        ),
        ("chili", _) => Pool::Chili(chili::ThreadPool::with_config(chili::Config {
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
        (_, None) => return Err(format!("`{runner}` is not a runner of this executable")),
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

fn absent(workload: &Workload, runner: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cf17::Size;

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
    }
}
