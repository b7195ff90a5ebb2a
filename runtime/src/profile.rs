//! [`Runtime::profile`]: run a closure with the critical-path profiler
//! recording, and get a [`Profile`] of the run — its computation DAG, the
//! analysis (`prescient_graph::critical_path`), a text report, a Chrome trace and
//! an SVG. Compiled with the cargo feature `trace` only.
//!
//! The analysis types are those of `prescient_graph::critical_path`, re-exported
//! here: a [`Profile`] gives its [`Dag`] and [`Analysis`].

pub use crate::runtime::{Tracing, MAX_TRACE_CAPACITY};
pub use crate::trace::TraceStats;
pub use prescient_graph::critical_path::{
    Analysis, CriticalPath, Dag, Edge, EdgeKind, ParallelismProfile, PathStep, PathTask,
    ProfileBucket, ProfilePoint, RunBreakdown, Strand, StrandId, TraceError, WorkerBreakdown,
};

use crate::runtime::Runtime;
use crate::trace::{self, AssembleError, Assembled, StartError};
use prescient_graph::critical_path::{analyze, chrome_trace, parallelism_profile, svg_report};
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why [`Runtime::profile`] could not profile the run.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProfileError {
    /// The runtime was built without [`RuntimeBuilder::trace`](crate::RuntimeBuilder::trace).
    NotTracing,
    /// Another `profile` call on this runtime is recording.
    Busy,
    /// Called from a task of this runtime: the profile of a run includes
    /// the whole runtime, so it is taken from outside it.
    OnWorker,
    /// The recording did not form a valid DAG (a bug in the recorder; the
    /// error says which check failed).
    InvalidTrace(TraceError),
    /// The run recorded more strands or edges than a [`Dag`] can number:
    /// its ids are `u32`, so it holds at most 2^32 − 2 of each (about
    /// 330 GB of recording). The counts are those recorded. Profile a
    /// smaller run, e.g. a smaller input of the same program.
    TraceTooLarge {
        /// Strands recorded.
        strands: usize,
        /// Edges recorded.
        edges: usize,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::NotTracing => f.write_str(
                "this runtime was built without tracing: use Runtime::builder().trace(true)",
            ),
            ProfileError::Busy => f.write_str("another profile of this runtime is recording"),
            ProfileError::OnWorker => f.write_str(
                "Runtime::profile was called from a task of the same runtime; \
                 call it from outside the runtime",
            ),
            ProfileError::InvalidTrace(error) => {
                write!(f, "the recorded trace is invalid: {error}")
            }
            ProfileError::TraceTooLarge { strands, edges } => write!(
                f,
                "the run recorded {strands} strands and {edges} edges; a profile holds at most \
                 {} of each: profile a smaller run",
                trace::MAX_DAG_LEN
            ),
        }
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProfileError::InvalidTrace(error) => Some(error),
            _ => None,
        }
    }
}

/// A profiled run: the closure's result, the recorded DAG and its analysis.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = prescient::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// let runtime = prescient::Runtime::builder().num_workers(2).trace(true).build()?;
/// let profile = runtime.profile(|| fib(20))?;
/// assert_eq!(*profile.result(), 6765);
/// let analysis = profile.analysis();
/// // The critical path's parts add up to the run's length…
/// let path = &analysis.critical_path;
/// assert_eq!(path.work + path.busy_delay + path.total_scheduler_delay(), analysis.elapsed);
/// // …and the run's parts to its length times the workers.
/// assert_eq!(analysis.run.total(), analysis.elapsed * 2);
/// let dir = std::env::temp_dir().join("prescient-profile-doc");
/// let files = profile.write(&dir)?;
/// assert!(files.svg.exists());
/// # Ok(())
/// # }
/// ```
pub struct Profile<R> {
    result: R,
    dag: Dag,
    analysis: Analysis,
    stats: TraceStats,
    /// Per strand: ns running children inline.
    inlined_ns: Vec<u64>,
    /// Per strand: children run inline that began in it.
    inlined_children: Vec<u32>,
}

/// The children their spawners ran inline on the critical path.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct InlineOnPath {
    /// Their time on the path (ns).
    pub ns: u64,
    /// How many began on the path.
    pub children: u64,
    /// The same per spawning task, largest first (at most 5):
    /// `(task, ns, children)`.
    pub by_task: Vec<(u32, u64, u64)>,
}

/// Share of the critical path's work, run as inline children, from which
/// the report names it as a finding (with nowork of at least 5 %).
const INLINE_FINDING_SHARE: f64 = 25.0;

/// The files [`Profile::write`] wrote.
#[derive(Clone, Debug)]
pub struct ProfileFiles {
    /// `report.txt`: the text report.
    pub report: PathBuf,
    /// `trace.json`: the Chrome trace (Perfetto, `chrome://tracing`).
    pub chrome_trace: PathBuf,
    /// `profile.svg`: timeline, critical path and parallelism profile.
    pub svg: PathBuf,
}

impl<R> Profile<R> {
    /// The closure's result.
    pub fn result(&self) -> &R {
        &self.result
    }

    /// The closure's result, by value.
    pub fn into_result(self) -> R {
        self.result
    }

    /// The recorded computation DAG: strands (serial pieces of tasks, with
    /// worker and times in nanoseconds since the profile began) and edges.
    pub fn dag(&self) -> &Dag {
        &self.dag
    }

    /// The analysis: critical path and its breakdown, the run's work,
    /// delay and nowork.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The number of strands running and ready at each instant.
    pub fn parallelism(&self) -> ParallelismProfile {
        parallelism_profile(&self.dag)
    }

    /// Nanoseconds of `strand` spent running children inline: `spawn`,
    /// scope, group and dataflow children that their spawner ran itself
    /// (lazy task creation with a full deque, or the inliner), outermost
    /// only. `join`'s inline second halves are not counted.
    pub fn inlined_ns(&self, strand: StrandId) -> u64 {
        self.inlined_ns[strand.index()]
    }

    /// How many inline children (see [`inlined_ns`](Self::inlined_ns))
    /// began in `strand`.
    pub fn inlined_children(&self, strand: StrandId) -> u32 {
        self.inlined_children[strand.index()]
    }

    /// The inline children on the critical path.
    pub fn inline_on_path(&self) -> InlineOnPath {
        let mut total = InlineOnPath::default();
        let mut by_task: std::collections::HashMap<u32, (u64, u64)> = Default::default();
        for step in &self.analysis.critical_path.steps {
            let ns = self.inlined_ns(step.strand);
            let children = u64::from(self.inlined_children(step.strand));
            if ns == 0 && children == 0 {
                continue;
            }
            total.ns += ns;
            total.children += children;
            let task = by_task
                .entry(self.dag.strand(step.strand).task)
                .or_default();
            task.0 += ns;
            task.1 += children;
        }
        let mut tasks: Vec<(u32, u64, u64)> = by_task
            .into_iter()
            .map(|(task, (ns, children))| (task, ns, children))
            .collect();
        tasks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        tasks.truncate(5);
        total.by_task = tasks;
        total
    }

    /// The inline-children lines of the report, and its finding (nothing
    /// when no inline child began on the path).
    fn inline_report(&self) -> String {
        use std::fmt::Write as _;
        let inline = self.inline_on_path();
        if inline.children == 0 {
            return String::new();
        }
        let path = &self.analysis.critical_path;
        let share = percent(inline.ns, path.work);
        let mut out = format!(
            "children run inline by their spawner on the critical path: {} ns ({share:.1}% \
             of its work), {} children\n",
            inline.ns, inline.children
        );
        for &(task, ns, children) in &inline.by_task {
            let _ = writeln!(out, "  task {task:>10}: {ns:>16} ns in {children} children");
        }
        let nowork = percent(self.analysis.run.nowork, self.analysis.run.total());
        if share >= INLINE_FINDING_SHARE && nowork >= 5.0 {
            let (task, _, children) = inline.by_task[0];
            let _ = writeln!(
                out,
                "finding: {share:.1}% of the critical path's work is children that their \
                 spawner ran itself (task {task}: {children} of them) while {nowork:.1}% of \
                 elapsed × workers had nothing to run: the spawner serialises its children \
                 (its deque was full — lazy task creation — or the inliner chose to run them); \
                 raise the queue capacity (Params::with_queue_capacity), or split the loop \
                 recursively (for_range) so that thieves take halves"
            );
        }
        out
    }

    /// What was recorded, its memory, and clock-skew repairs.
    pub fn stats(&self) -> TraceStats {
        self.stats
    }

    /// The text report: the analysis, then what was recorded.
    pub fn report(&self) -> String {
        let stats = self.stats;
        let per_strand = if stats.strands == 0 {
            0.0
        } else {
            stats.recorded_bytes as f64 / stats.strands as f64
        };
        format!(
            "{}{}\nrecorded: {} strands, {} edges, {:.1} MB ({per_strand:.0} bytes per strand; \
             {:.1} MB of buffers reserved); clock-skew repairs: {} (largest {} ns); edges \
             dropped: {}\nrun {:.3} s, assembled in {:.3} s, analysed in {:.3} s\n",
            self.analysis,
            self.inline_report(),
            stats.strands,
            stats.edges,
            stats.recorded_bytes as f64 / 1e6,
            stats.buffer_bytes as f64 / 1e6,
            stats.skew_repairs,
            stats.max_skew_ns,
            stats.dropped_edges,
            stats.run_ns as f64 / 1e9,
            stats.assemble_ns as f64 / 1e9,
            stats.analyze_ns as f64 / 1e9,
        )
    }

    /// The Chrome trace-event JSON: a track per worker and one for the
    /// critical path; open it in <https://ui.perfetto.dev> or
    /// `chrome://tracing`.
    pub fn chrome_trace(&self) -> String {
        chrome_trace(&self.dag, &self.analysis)
    }

    /// The SVG: per-worker timeline with the critical path highlighted, the
    /// parallelism profile (running and ready strands over time) and the
    /// breakdowns.
    pub fn svg(&self) -> String {
        svg_report(&self.dag, &self.analysis)
    }

    /// Writes `report.txt`, `trace.json` and `profile.svg` into `dir`
    /// (created if missing).
    pub fn write(&self, dir: impl AsRef<Path>) -> io::Result<ProfileFiles> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir)?;
        let files = ProfileFiles {
            report: dir.join("report.txt"),
            chrome_trace: dir.join("trace.json"),
            svg: dir.join("profile.svg"),
        };
        std::fs::write(&files.report, self.report())?;
        std::fs::write(&files.chrome_trace, self.chrome_trace())?;
        std::fs::write(&files.svg, self.svg())?;
        Ok(files)
    }
}

impl<R> fmt::Debug for Profile<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Profile")
            .field("strands", &self.dag.strands().len())
            .field("edges", &self.dag.edges().len())
            .field("elapsed_ns", &self.analysis.elapsed)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// Runs `f` on this runtime, as [`run`](Runtime::run) does, while
    /// recording the run's computation DAG, and returns its [`Profile`].
    ///
    /// Every task operation of the whole runtime is recorded while `f`
    /// runs: forks that became tasks (published joins, deferred spawns,
    /// scope and group spawns, dataflow tasks), waits, suspensions and
    /// completions. Inlined spawns — latent joins nobody stole, lazy task
    /// creation, the inliner's plain calls — are part of their parent's
    /// strand, as they ran. After `f` returns, the profile waits for tasks
    /// still running on workers (e.g. detached ones) to end or suspend.
    ///
    /// A panic in `f` propagates, as from `run`, after recording stopped.
    ///
    /// # Errors
    /// [`ProfileError::NotTracing`] if the runtime was built without
    /// [`RuntimeBuilder::trace`](crate::RuntimeBuilder::trace),
    /// [`ProfileError::Busy`] while another profile of it records,
    /// [`ProfileError::OnWorker`] from a task of this runtime,
    /// [`ProfileError::TraceTooLarge`] if the run recorded more than a
    /// [`Dag`] holds, [`ProfileError::InvalidTrace`] on a recorder bug.
    pub fn profile<R, F>(&self, f: F) -> Result<Profile<R>, ProfileError>
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        let tracer = self
            .registry()
            .tracer
            .as_ref()
            .ok_or(ProfileError::NotTracing)?;
        if crate::scheduler::worker::is_current(self.registry()) {
            return Err(ProfileError::OnWorker);
        }
        tracer.start().map_err(|error| match error {
            StartError::Busy => ProfileError::Busy,
        })?;
        let started = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| self.run(f)));
        let run_ns = started.elapsed().as_nanos() as u64;
        let recording = tracer.stop();
        let result = match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        };
        let recording = recording.expect("this call started the session");
        let assembling = Instant::now();
        let Assembled {
            dag,
            mut stats,
            inlined_ns,
            inlined_children,
        } = trace::assemble(recording).map_err(|error| match error {
            AssembleError::TooLarge { strands, edges } => {
                ProfileError::TraceTooLarge { strands, edges }
            }
            AssembleError::Invalid(error) => ProfileError::InvalidTrace(error),
        })?;
        let analysing = Instant::now();
        let analysis = analyze(&dag);
        stats.run_ns = run_ns;
        stats.assemble_ns = (analysing - assembling).as_nanos() as u64;
        stats.analyze_ns = analysing.elapsed().as_nanos() as u64;
        Ok(Profile {
            result,
            dag,
            analysis,
            stats,
            inlined_ns,
            inlined_children,
        })
    }
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
