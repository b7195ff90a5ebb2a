//! [`analyze`]: the whole analysis of one run, and its text report.
//!
//! The analysis is one pass to compute ready times (O(edges)), one sweep over
//! time ([`Timeline`](super::Timeline), O(n log n)), and the critical-path
//! trace-back with O(log n) interval queries per step. See the modules
//! `timeline` and `critical` for why each part is exact.

use std::fmt;

use super::critical::{critical_path, CriticalPath};
use super::model::{Dag, EdgeKind};
use super::timeline::{sweep, RunBreakdown, WorkerBreakdown};

/// Everything [`analyze`] finds out about a run.
#[derive(Clone, PartialEq, Debug)]
pub struct Analysis {
    /// The number of workers of the run.
    pub workers: u32,
    /// The number of strands in the trace.
    pub strands: usize,
    /// The run's length: the latest end of any strand (ns). The run spans
    /// `[0, elapsed]`.
    pub elapsed: u64,
    /// The critical path and the breakdown of its length.
    pub critical_path: CriticalPath,
    /// The whole-run breakdown of `elapsed × workers` (worker-ns).
    pub run: RunBreakdown,
    /// The same breakdown per worker, indexed by worker.
    pub per_worker: Vec<WorkerBreakdown>,
    /// `∫ nowork(t)` over the instants where the critical path was in
    /// scheduler delay (worker-ns): machine time that starved because the
    /// path was waiting to be scheduled.
    pub nowork_from_critical_scheduler_delay: u64,
}

/// Analyses a validated run: critical path, its breakdown, the whole-run
/// breakdown and the nowork caused by critical-path scheduler delay.
///
/// Runs in O(n log n) time for n strands and edges. Temporary memory beyond
/// the [`Dag`]: 16 bytes per strand (ready times, and a sorted copy) plus the
/// [`Timeline`](super::Timeline)'s 29 bytes per change of rate (at most three
/// per strand).
pub fn analyze(dag: &Dag) -> Analysis {
    let ready = dag.ready_times();
    let sweep = sweep(dag, &ready);
    drop(ready);
    let (critical_path, nowork_from_critical_scheduler_delay) = critical_path(dag, &sweep.timeline);
    Analysis {
        workers: dag.workers(),
        strands: dag.strands().len(),
        elapsed: sweep.timeline.end(),
        critical_path,
        run: sweep.run,
        per_worker: sweep.per_worker,
        nowork_from_critical_scheduler_delay,
    }
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
fn percent(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

/// One report line: a label, a value in ns and its share of `whole`.
fn line(f: &mut fmt::Formatter<'_>, label: &str, value: u64, whole: u64) -> fmt::Result {
    writeln!(
        f,
        "  {label:<28}{value:>16} ns {:>6.1}%",
        percent(value as f64, whole as f64)
    )
}

impl Analysis {
    fn fmt_critical_path(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.critical_path;
        writeln!(f, "critical path: {} strands", path.steps.len())?;
        line(f, "length", path.length, path.length)?;
        line(f, "work", path.work, path.length)?;
        line(f, "busy delay", path.busy_delay, path.length)?;
        line(
            f,
            "scheduler delay (total)",
            path.total_scheduler_delay(),
            path.length,
        )?;
        line(
            f,
            "  before first strand",
            path.initial_scheduler_delay,
            path.length,
        )?;
        for kind in EdgeKind::ALL {
            let label = format!("  after {kind}");
            line(f, &label, path.scheduler_delay_of(kind), path.length)?;
        }
        Ok(())
    }

    fn fmt_run(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.run.total();
        writeln!(f, "run breakdown (elapsed × workers = {total} worker-ns):")?;
        line(f, "work", self.run.work, total)?;
        line(f, "delay", self.run.delay, total)?;
        line(f, "nowork", self.run.nowork, total)?;
        writeln!(
            f,
            "  {:>6} {:>16} {:>18} {:>18}",
            "worker", "work ns", "delay ns", "nowork ns"
        )?;
        for (w, share) in self.per_worker.iter().enumerate() {
            writeln!(
                f,
                "  {w:>6} {:>16} {:>18.1} {:>18.1}",
                share.work, share.delay, share.nowork
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "run: {} workers, {} ns elapsed, {} strands",
            self.workers, self.elapsed, self.strands
        )?;
        self.fmt_critical_path(f)?;
        self.fmt_run(f)?;
        let total = self.run.total();
        writeln!(
            f,
            "nowork during critical-path scheduler delay: {} worker-ns \
             ({:.1}% of elapsed × workers, {:.1}% of all nowork)",
            self.nowork_from_critical_scheduler_delay,
            percent(
                self.nowork_from_critical_scheduler_delay as f64,
                total as f64
            ),
            percent(
                self.nowork_from_critical_scheduler_delay as f64,
                self.run.nowork as f64
            ),
        )
    }
}
