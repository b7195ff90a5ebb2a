//! The `task-cost` table's whole-program check: BOTS nqueens (the annotated
//! scope version, [`crate::annotated::nqueens`]), whose tasks are tiny and
//! created in a loop at every level of a recursion, under the default queue
//! capacity and under 128, against its sequential version — how much of the
//! per-task cost a real fine-grained program pays.

use prescient::tuning::Counters;
use prescient::{Params, Runtime};
use std::hint::black_box;
use std::time::{Duration, Instant};

use super::measure::median;
use crate::annotated::nqueens;
use crate::dataflow::runtime;

/// The queue capacities nqueens runs under: `Params::DEFAULT`'s and 128.
pub(crate) const CAPACITIES: [usize; 2] = [Params::DEFAULT.queue_capacity, 128];

/// One runner's result.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    /// Worker threads (`None`: the sequential program).
    pub(crate) threads: Option<usize>,
    /// The queue capacity (`None`: the sequential program).
    pub(crate) capacity: Option<usize>,
    /// The median time of one run.
    pub(crate) time: Duration,
    /// The runtime's counters per run (`None`: the sequential program).
    pub(crate) counters_per_run: Option<[f64; 3]>,
}

/// A runner: the sequential program, or the task version on a runtime.
struct Runner {
    threads: Option<usize>,
    capacity: Option<usize>,
    runtime: Option<Runtime>,
    times: Vec<Duration>,
    before: Counters,
}

impl Runner {
    /// One checked run; its time.
    fn run(&self, n: usize, expected: u64) -> Result<Duration, String> {
        let start = Instant::now();
        let got = match &self.runtime {
            None => nqueens::nqueens_seq(black_box(n)),
            Some(rt) => rt.run(|| nqueens::find_queens(black_box(n))),
        };
        let time = start.elapsed();
        if got != expected {
            return Err(format!(
                "nqueens({n}) gave {got}, expected {expected} ({:?} threads, capacity {:?})",
                self.threads, self.capacity
            ));
        }
        Ok(time)
    }
}

/// nqueens(`n`) sequentially and at each of `threads` × [`CAPACITIES`]:
/// one untimed round, then `reps` rounds in which every runner runs once,
/// round robin (so a change in the machine's load hits them alike); the
/// median of each. The sequential runner comes first in the result.
///
/// # Errors
/// A wrong count, or an `n` without a known count.
pub(crate) fn measure(n: usize, threads: &[usize], reps: usize) -> Result<Vec<Run>, String> {
    let expected =
        nqueens::expected(n).ok_or_else(|| format!("nqueens({n}): no known solution count"))?;
    let mut runners = vec![Runner {
        threads: None,
        capacity: None,
        runtime: None,
        times: Vec::new(),
        before: Counters::default(),
    }];
    for &t in threads {
        for capacity in CAPACITIES {
            runners.push(Runner {
                threads: Some(t),
                capacity: Some(capacity),
                runtime: Some(runtime(t, Params::DEFAULT.with_queue_capacity(capacity))),
                times: Vec::new(),
                before: Counters::default(),
            });
        }
    }
    for r in &mut runners {
        r.run(n, expected)?;
        if let Some(rt) = &r.runtime {
            r.before = rt.counters();
        }
    }
    for _ in 0..reps.max(1) {
        for r in &mut runners {
            let time = r.run(n, expected)?;
            r.times.push(time);
        }
    }
    Ok(runners
        .into_iter()
        .map(|mut r| {
            let runs = r.times.len() as f64;
            Run {
                threads: r.threads,
                capacity: r.capacity,
                time: median(&mut r.times),
                counters_per_run: r.runtime.as_ref().map(|rt| {
                    let c = rt.counters().since(&r.before);
                    [c.spawns, c.inlined_spawns, c.steals].map(|v| v as f64 / runs)
                }),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runner_is_measured_and_checked() {
        let runs = measure(6, &[1, 2], 1).unwrap();
        assert_eq!(runs.len(), 1 + 2 * CAPACITIES.len());
        assert_eq!((runs[0].threads, runs[0].capacity), (None, None));
        assert!(runs[0].counters_per_run.is_none());
        assert_eq!(runs[1].capacity, Some(16));
        assert_eq!(runs[2].capacity, Some(128));
        assert!(runs[1..].iter().all(|r| r.counters_per_run.is_some()));
        assert!(measure(40, &[1], 1).is_err());
    }
}
