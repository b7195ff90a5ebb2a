//! [`analyze`]: the whole analysis of one run, and its text report.
//!
//! The analysis is one pass to compute ready times (O(edges)), one sweep over
//! time ([`Timeline`](super::Timeline), O(n log n)), and the critical-path
//! trace-back with O(log n) interval queries per step. See the modules
//! `timeline` and `critical` for why each part is exact.

use std::collections::HashMap;
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
    /// The tasks whose strands make up most of the path's work, largest
    /// first (at most [`PATH_TASKS`]).
    pub path_tasks: Vec<PathTask>,
}

/// How many tasks [`Analysis::path_tasks`] lists.
pub const PATH_TASKS: usize = 5;

/// One task's share of the critical path's work.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PathTask {
    /// The task ([`Strand::task`](super::Strand::task)).
    pub task: u32,
    /// The work of its strands on the path (ns).
    pub work: u64,
    /// How many of its strands are on the path.
    pub strands: u32,
}

/// Share of the path (or of the run) from which a part is reported as a
/// finding.
const FINDING_SHARE: f64 = 5.0;

/// Analyses a validated run: critical path, its breakdown, the whole-run
/// breakdown and the nowork caused by critical-path scheduler delay.
///
/// Runs in O(n log n) time for n strands and edges. Temporary memory beyond
/// the [`Dag`]: 8 bytes per strand (ready times, sorted in place) plus the
/// [`Timeline`](super::Timeline)'s 29 bytes per change of rate (at most three
/// per strand).
pub fn analyze(dag: &Dag) -> Analysis {
    let sweep = sweep(dag, dag.ready_times());
    let (critical_path, nowork_from_critical_scheduler_delay) = critical_path(dag, &sweep.timeline);
    let path_tasks = path_tasks(dag, &critical_path);
    Analysis {
        workers: dag.workers(),
        strands: dag.strands().len(),
        elapsed: sweep.timeline.end(),
        critical_path,
        run: sweep.run,
        per_worker: sweep.per_worker,
        nowork_from_critical_scheduler_delay,
        path_tasks,
    }
}

/// The tasks with the most work on the path.
fn path_tasks(dag: &Dag, path: &CriticalPath) -> Vec<PathTask> {
    let mut by_task: HashMap<u32, PathTask> = HashMap::new();
    for step in &path.steps {
        let strand = dag.strand(step.strand);
        let task = by_task.entry(strand.task).or_insert(PathTask {
            task: strand.task,
            work: 0,
            strands: 0,
        });
        task.work += strand.duration();
        task.strands += 1;
    }
    let mut tasks: Vec<PathTask> = by_task.into_values().collect();
    tasks.sort_by(|a, b| b.work.cmp(&a.work).then(a.task.cmp(&b.task)));
    tasks.truncate(PATH_TASKS);
    tasks
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// One report line: a label, a value in ns and its share of `whole`.
fn line(f: &mut fmt::Formatter<'_>, label: &str, value: u64, whole: u64) -> fmt::Result {
    writeln!(
        f,
        "  {label:<28}{value:>16} ns {:>6.1}%",
        percent(value, whole)
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

impl Analysis {
    /// What the breakdown says about the run, in words: every part of the
    /// path above 5 % of its length and every idle part of the run above
    /// 5 % of elapsed × workers, largest first, each with what usually
    /// causes it and what to change. Empty for a run that lost nothing
    /// notable.
    pub fn findings(&self) -> Vec<String> {
        let path = &self.critical_path;
        let share = |part: u64| percent(part, path.length);
        let mut found: Vec<(f64, String)> = Vec::new();
        let work = share(path.work);
        if work >= FINDING_SHARE {
            let top = self.path_tasks.first().map_or(String::new(), |task| {
                format!(
                    "; task {} holds {:.1}% of it in {} strands",
                    task.task,
                    percent(task.work, path.work),
                    task.strands,
                )
            });
            found.push((
                work,
                format!("work is {work:.1}% of the critical path: the program's own span{top}"),
            ));
        }
        let busy = share(path.busy_delay);
        if busy >= FINDING_SHARE {
            found.push((
                busy,
                format!(
                    "busy delay is {busy:.1}% of the critical path: the path was ready while \
                     every worker was busy; more workers, or running path tasks first, \
                     would shorten the run"
                ),
            ));
        }
        for kind in EdgeKind::ALL {
            let delay = share(path.scheduler_delay_of(kind));
            if delay < FINDING_SHARE {
                continue;
            }
            let meaning = match kind {
                EdgeKind::Create => {
                    "new tasks waited to start while workers idled: work reached idle workers \
                     slowly (too few tasks visible to thieves, or sleeping workers)"
                }
                EdgeKind::CreateContinue => {
                    "a spawning task waited to continue after a spawn while workers idled: its \
                     worker ran a child first and nobody took the continuation (a loop \
                     spawner: more queue capacity, or spawn the loop as a recursive split)"
                }
                EdgeKind::End => "a waiting task resumed late after the child it waited for ended",
                EdgeKind::WaitContinue => {
                    "a task resumed late after a wait whose other side was already done: \
                     the cost of suspending and resuming"
                }
            };
            found.push((
                delay,
                format!("{kind} scheduler delay is {delay:.1}% of the critical path: {meaning}"),
            ));
        }
        let initial = share(path.initial_scheduler_delay);
        if initial >= FINDING_SHARE {
            found.push((
                initial,
                format!(
                    "{initial:.1}% of the critical path passed before its first strand \
                     started (the run reaching a worker)"
                ),
            ));
        }
        let total = self.run.total();
        let nowork = percent(self.run.nowork, total);
        if nowork >= FINDING_SHARE {
            let caused = percent(self.nowork_from_critical_scheduler_delay, self.run.nowork);
            found.push((
                nowork,
                format!(
                    "nowork is {nowork:.1}% of elapsed × workers: workers idle with nothing \
                     ready (too little parallelism); {caused:.1}% of it while the critical \
                     path waited for the scheduler"
                ),
            ));
        }
        let delay = percent(self.run.delay, total);
        if delay >= FINDING_SHARE {
            found.push((
                delay,
                format!(
                    "delay is {delay:.1}% of elapsed × workers: workers idle while tasks were \
                     ready (slow task distribution)"
                ),
            ));
        }
        found.sort_by(|a, b| b.0.total_cmp(&a.0));
        found.into_iter().map(|(_, text)| text).collect()
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
            percent(self.nowork_from_critical_scheduler_delay, total),
            percent(self.nowork_from_critical_scheduler_delay, self.run.nowork),
        )?;
        writeln!(f, "critical path work by task:")?;
        for task in &self.path_tasks {
            writeln!(
                f,
                "  task {:>10}: {:>16} ns {:>6.1}% in {} strands",
                task.task,
                task.work,
                percent(task.work, self.critical_path.work),
                task.strands
            )?;
        }
        let findings = self.findings();
        if !findings.is_empty() {
            writeln!(f, "findings:")?;
            for finding in findings {
                writeln!(f, "  - {finding}")?;
            }
        }
        Ok(())
    }
}
