//! The spawn overhead and the clock cost, measured once per process: the
//! units of every inlining threshold.
//!
//! Our task overhead is nanoseconds, HPX's microseconds, and either varies by
//! host, so Wagle's thresholds in absolute time would not carry over. Every
//! threshold is instead a multiple of the **spawn overhead**: what one
//! deferred task costs the spawner on this machine — allocate its job, push
//! it to a deque, pop it, run the empty closure, free the job — measured
//! through the runtime's own `HeapJob` and `TaskDeque` when the first
//! runtime with inlining starts. The clock read (`Instant::now`) is measured
//! alongside, to subtract it from samples and to size sampling periods.
//!
//! Each figure is the minimum over several rounds of the mean of a batch:
//! the minimum discards rounds an interrupt or another process disturbed
//! (what it costs: docs/measurements.md, "Calibration").

use crate::job::deque::TaskDeque;
use crate::job::HeapJob;
use crate::params::QueuePolicy;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// The process' calibration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calibration {
    /// One deferred empty task: allocate, push, pop, run, free.
    pub(crate) spawn_overhead_ns: f64,
    /// One `Instant::now()`.
    pub(crate) clock_ns: f64,
}

const ROUNDS: usize = 7;
const BATCH: usize = 256;

/// The calibration, measured on first use.
pub(crate) fn calibration() -> Calibration {
    static CALIBRATION: OnceLock<Calibration> = OnceLock::new();
    *CALIBRATION.get_or_init(measure)
}

fn measure() -> Calibration {
    let clock_ns = min_over_rounds(|| {
        for _ in 0..BATCH {
            black_box(Instant::now());
        }
    });
    let (deque, _stealer) = TaskDeque::new(QueuePolicy::InsertFrontStealBack);
    let spawn_overhead_ns = min_over_rounds(|| {
        for i in 0..BATCH {
            deque.push(HeapJob::into_job_ref(move || {
                black_box(i);
            }));
            let job = deque.pop().expect("the job just pushed");
            // SAFETY: a `HeapJob` that has not run, executed once.
            unsafe { job.execute() };
        }
    });
    Calibration {
        // Never zero: thresholds divide by it.
        spawn_overhead_ns: spawn_overhead_ns.max(1.0),
        clock_ns: clock_ns.max(0.1),
    }
}

/// The smallest per-iteration time of `ROUNDS` runs of `batch`.
fn min_over_rounds(mut batch: impl FnMut()) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            batch();
            start.elapsed().as_nanos() as f64 / BATCH as f64
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_positive_and_stable() {
        let first = calibration();
        assert!(
            first.spawn_overhead_ns >= 1.0 && first.spawn_overhead_ns < 1e6,
            "{first:?}"
        );
        assert!(first.clock_ns > 0.0 && first.clock_ns < 1e6, "{first:?}");
        let again = calibration();
        assert_eq!(first.spawn_overhead_ns, again.spawn_overhead_ns);
    }
}
