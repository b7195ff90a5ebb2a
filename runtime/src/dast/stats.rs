//! Timing statistics of the dataflow graph's work, behind the cargo feature
//! `dast-stats` (without it this module is empty and nothing is timed): the
//! execution time of each request kind (`new` / `done` / `delete`) by who
//! executed it — the DAST paper's Fig. 7, harmonic means — and the time to
//! acquire a graph lock (its Fig. 8).
//!
//! Each thread accumulates into its own record (no shared cache line on the
//! measured path); [`DastStats::snapshot`] sums the records of every thread
//! that ever timed something. A timing costs two clock reads, so a stats
//! build is slower than a plain one: compare modes within stats builds
//! only.

use super::interface::{Executor, Kind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One series of durations: count, sum, and sum of reciprocals (for the
/// harmonic mean), in one thread's record (written by that thread only).
#[derive(Default)]
struct Series {
    count: AtomicU64,
    total_ns: AtomicU64,
    /// Σ 1/ns, as `f64` bits.
    inverse_sum: AtomicU64,
    max_ns: AtomicU64,
}

impl Series {
    fn record(&self, ns: u64) {
        let ns = ns.max(1);
        let add = |cell: &AtomicU64, value: u64| {
            cell.store(cell.load(Ordering::Relaxed) + value, Ordering::Relaxed)
        };
        add(&self.count, 1);
        add(&self.total_ns, ns);
        let inverse = f64::from_bits(self.inverse_sum.load(Ordering::Relaxed)) + 1.0 / ns as f64;
        self.inverse_sum.store(inverse.to_bits(), Ordering::Relaxed);
        if ns > self.max_ns.load(Ordering::Relaxed) {
            self.max_ns.store(ns, Ordering::Relaxed);
        }
    }

    fn add_to(&self, total: &mut Timing, inverse_total: &mut f64) {
        total.count += self.count.load(Ordering::Relaxed);
        total.total_ns += self.total_ns.load(Ordering::Relaxed);
        total.max_ns = total.max_ns.max(self.max_ns.load(Ordering::Relaxed));
        *inverse_total += f64::from_bits(self.inverse_sum.load(Ordering::Relaxed));
    }
}

/// One thread's record.
#[derive(Default)]
struct ThreadRecord {
    requests: [[Series; 2]; 3],
    lock: Series,
}

static RECORDS: Mutex<Vec<Arc<ThreadRecord>>> = Mutex::new(Vec::new());

thread_local! {
    static RECORD: Arc<ThreadRecord> = {
        let record = Arc::new(ThreadRecord::default());
        RECORDS.lock().unwrap_or_else(|e| e.into_inner()).push(record.clone());
        record
    };
}

fn elapsed_ns(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Runs `operation` (a graph request of `kind`, executed by `executor`) and
/// records how long it took.
pub(crate) fn time_request<R>(kind: Kind, executor: Executor, operation: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let result = operation();
    let ns = elapsed_ns(start);
    let _ = RECORD.try_with(|record| record.requests[kind as usize][executor as usize].record(ns));
    result
}

/// Runs `acquire` (taking a graph lock) and records how long it took.
pub(crate) fn time_lock<G>(acquire: impl FnOnce() -> G) -> G {
    let start = Instant::now();
    let guard = acquire();
    let ns = elapsed_ns(start);
    let _ = RECORD.try_with(|record| record.lock.record(ns));
    guard
}

/// Durations of one kind of graph work, summed over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// How many were timed.
    pub count: u64,
    /// Their total, in nanoseconds.
    pub total_ns: u64,
    /// The harmonic mean, in nanoseconds (0 when none was timed): the DAST
    /// paper's statistic, which a few preempted outliers do not dominate.
    pub harmonic_mean_ns: f64,
    /// The longest, in nanoseconds.
    pub max_ns: u64,
}

impl Timing {
    /// The arithmetic mean, in nanoseconds (0 when none was timed).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64
        }
    }
}

/// The graph-work timings of every thread since the process started (only
/// with the `dast-stats` feature). Take a snapshot before and after the work
/// of interest and compare with [`DastStats::since`].
///
/// ```
/// let runtime = prescient::Runtime::builder().num_workers(2).build().unwrap();
/// let before = prescient::dataflow::DastStats::snapshot();
/// runtime.run(|| {
///     prescient::dataflow(|df| {
///         let x = df.data(0u64);
///         for _ in 0..100 {
///             df.task(x.inout(), |x: &mut u64| *x += 1);
///         }
///     })
/// });
/// let stats = prescient::dataflow::DastStats::snapshot().since(&before);
/// assert!(stats.new_inline.count + stats.new_queued.count >= 1);
/// println!("new task: {:.0} ns (harmonic mean)", stats.new_inline.harmonic_mean_ns);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct DastStats {
    /// `new task` requests executed by the submitting worker.
    pub new_inline: Timing,
    /// `new task` requests executed from a queue (manager or idle worker).
    pub new_queued: Timing,
    /// `done task` requests executed by the finishing worker.
    pub done_inline: Timing,
    /// `done task` requests executed from a queue.
    pub done_queued: Timing,
    /// `delete task` requests executed by the finishing worker.
    pub delete_inline: Timing,
    /// `delete task` requests executed from a queue.
    pub delete_queued: Timing,
    /// Graph-lock acquisitions: the time from asking for a lock to holding it.
    pub lock_acquisition: Timing,
    /// Σ 1/ns per field above, kept so that `since` can subtract harmonic
    /// means exactly.
    inverse_sums: [f64; 7],
}

impl DastStats {
    /// Sums every thread's record now.
    pub fn snapshot() -> DastStats {
        DastStats::sum(&RECORDS.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn sum(records: &[Arc<ThreadRecord>]) -> DastStats {
        let mut stats = DastStats::default();
        for record in records {
            for (index, series) in record
                .requests
                .iter()
                .flat_map(|by_executor| by_executor.iter())
                .chain(std::iter::once(&record.lock))
                .enumerate()
            {
                let mut inverse = stats.inverse_sums[index];
                series.add_to(stats.field_mut(index), &mut inverse);
                stats.inverse_sums[index] = inverse;
            }
        }
        stats.finish()
    }

    /// What happened between `earlier` and `self` (counts, totals and
    /// harmonic means of the difference; `max_ns` is `self`'s, the maximum
    /// since the process started).
    pub fn since(&self, earlier: &DastStats) -> DastStats {
        let mut stats = *self;
        for index in 0..7 {
            let before = *earlier.field(index);
            let field = stats.field_mut(index);
            field.count = field.count.saturating_sub(before.count);
            field.total_ns = field.total_ns.saturating_sub(before.total_ns);
            stats.inverse_sums[index] =
                (self.inverse_sums[index] - earlier.inverse_sums[index]).max(0.0);
        }
        stats.finish()
    }

    fn finish(mut self) -> DastStats {
        for index in 0..7 {
            let inverse = self.inverse_sums[index];
            let field = self.field_mut(index);
            field.harmonic_mean_ns = if field.count == 0 || inverse <= 0.0 {
                0.0
            } else {
                field.count as f64 / inverse
            };
        }
        self
    }

    fn field(&self, index: usize) -> &Timing {
        [
            &self.new_inline,
            &self.new_queued,
            &self.done_inline,
            &self.done_queued,
            &self.delete_inline,
            &self.delete_queued,
            &self.lock_acquisition,
        ][index]
    }

    fn field_mut(&mut self, index: usize) -> &mut Timing {
        match index {
            0 => &mut self.new_inline,
            1 => &mut self.new_queued,
            2 => &mut self.done_inline,
            3 => &mut self.done_queued,
            4 => &mut self.delete_inline,
            5 => &mut self.delete_queued,
            _ => &mut self.lock_acquisition,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_means_and_differences() {
        // A record of its own, so that other tests' threads cannot interfere.
        let record = Arc::new(ThreadRecord::default());
        let series = &record.requests[Kind::Done as usize][Executor::Queued as usize];
        series.record(1000);
        let before = DastStats::sum(std::slice::from_ref(&record));
        series.record(10);
        series.record(40);
        let stats = DastStats::sum(std::slice::from_ref(&record)).since(&before);
        assert_eq!(stats.done_queued.count, 2);
        assert_eq!(stats.done_queued.total_ns, 50);
        // 2 / (1/10 + 1/40) = 16.
        assert!((stats.done_queued.harmonic_mean_ns - 16.0).abs() < 1e-9);
        assert_eq!(stats.done_queued.mean_ns(), 25.0);
        assert_eq!(stats.new_inline, Timing::default());
    }
}
