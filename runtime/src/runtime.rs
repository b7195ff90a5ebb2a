//! The public entry point: [`Runtime`], its [`RuntimeBuilder`], the lazily
//! created global runtime that the free functions use outside any runtime, and
//! a snapshot of the scheduler [`Counters`].

use crate::counters::Counters;
use crate::params::{Params, ParamsError};
use crate::scheduler::registry::{self, Handlers, Registry};
use crate::scheduler::stack_job::StackJob;
use crate::scheduler::worker::{self, WorkerThread};
use crate::topology;
use std::any::Any;
use std::fmt;
use std::panic;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

/// The most worker threads a runtime accepts (from
/// [`RuntimeBuilder::num_workers`] or `PRESCIENT_WORKERS`): 4096, sixteen
/// times the largest hosts we target. A larger count is a
/// [`BuildError::TooManyWorkers`], not an allocation failure or thousands of
/// threads started before the mistake shows.
pub const MAX_WORKERS: usize = 4096;

/// Whether and how a runtime records for the profiler: the argument of
/// [`RuntimeBuilder::trace`] (`true` and `false` convert to it). Requires
/// the cargo feature `trace`; reachable as `prescient::profile::Tracing`.
#[cfg(feature = "trace")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tracing {
    /// No recording: [`Runtime::profile`] answers
    /// `ProfileError::NotTracing`. The builder's default.
    Off,
    /// Record, reserving room for this many strands per worker (and twice
    /// as many edges) before each profiled run, so that a run of that size
    /// allocates nothing while it records. Longer runs still record
    /// everything: a worker then allocates one more chunk of 65,536 records
    /// when it fills one. At most [`MAX_TRACE_CAPACITY`]:
    /// [`build`](RuntimeBuilder::build) fails with
    /// [`BuildError::TraceCapacityTooLarge`] above it. `0` is valid: nothing
    /// is reserved, and every chunk is allocated (and its pages faulted in)
    /// while the run records, which shows in the recorded times.
    Reserve(usize),
}

#[cfg(feature = "trace")]
impl Tracing {
    /// What `true` means: record, reserving 16,384 strands per worker.
    pub const ON: Tracing = Tracing::Reserve(1 << 14);
}

#[cfg(feature = "trace")]
impl From<bool> for Tracing {
    fn from(enabled: bool) -> Tracing {
        if enabled {
            Tracing::ON
        } else {
            Tracing::Off
        }
    }
}

/// The most strands [`Tracing::Reserve`] reserves per worker:
/// 2^24 (16,777,216). A larger value is a
/// [`BuildError::TraceCapacityTooLarge`], not a profile that faults in
/// memory until the OOM killer comes.
///
/// The reservation is allocated and its pages touched before every
/// profiled run, for each worker: at 40 bytes a strand and room for two
/// 24-byte edges per strand, the maximum is 1.375 GiB (1.48 GB) per
/// worker, 22 GiB on 16 workers — the most a profile on a large host
/// plausibly wants up front, while 2^40 (a typo's worth) would be 88 TiB.
/// It bounds only what is reserved, not what is recorded: a run that
/// records more than it reserved goes on, its buffers growing by chunks of
/// 65,536 records as they fill. And with 256 workers the reservations
/// alone reach the 2^32 − 2 strands one profile can hold
/// ([`ProfileError::TraceTooLarge`](crate::profile::ProfileError::TraceTooLarge)).
#[cfg(feature = "trace")]
pub const MAX_TRACE_CAPACITY: usize = 1 << 24;

/// A pool of worker threads running stackful tasks.
///
/// ```
/// let runtime = prescient::Runtime::builder().num_workers(2).build().unwrap();
/// let (a, b) = runtime.run(|| prescient::join(|| 1 + 1, || 2 + 2));
/// assert_eq!((a, b), (2, 4));
/// ```
///
/// Dropping a runtime runs every task still queued or suspended to completion
/// (a suspended stack cannot be unwound out of order safely), then joins the
/// worker threads; see [`Drop`](#impl-Drop-for-Runtime) for what that implies.
pub struct Runtime {
    registry: Arc<Registry>,
    threads: Vec<JoinHandle<()>>,
}

/// Why a runtime could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// The parameters are invalid.
    InvalidParams(ParamsError),
    /// More than [`MAX_WORKERS`] workers were requested.
    TooManyWorkers(usize),
    /// `max_live_stacks(0)` was requested.
    ZeroStackCap,
    /// [`Tracing::Reserve`] asked for more than
    /// [`MAX_TRACE_CAPACITY`] strands per worker.
    #[cfg(feature = "trace")]
    TraceCapacityTooLarge(usize),
    /// A worker thread could not be spawned.
    Spawn(std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::InvalidParams(error) => error.fmt(f),
            BuildError::TooManyWorkers(n) => {
                write!(f, "a runtime has at most {MAX_WORKERS} workers (got {n})")
            }
            BuildError::ZeroStackCap => f.write_str("max_live_stacks must be at least 1"),
            #[cfg(feature = "trace")]
            BuildError::TraceCapacityTooLarge(strands) => write!(
                f,
                "Tracing::Reserve reserves at most {MAX_TRACE_CAPACITY} strands per worker \
                 (got {strands}); a run may record more than it reserves"
            ),
            BuildError::Spawn(error) => write!(f, "could not spawn a worker thread: {error}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::InvalidParams(error) => Some(error),
            BuildError::Spawn(error) => Some(error),
            BuildError::TooManyWorkers(_) | BuildError::ZeroStackCap => None,
            #[cfg(feature = "trace")]
            BuildError::TraceCapacityTooLarge(_) => None,
        }
    }
}

type ThreadName = Box<dyn FnMut(usize) -> String>;

/// Configures a [`Runtime`].
pub struct RuntimeBuilder {
    params: Params,
    num_workers: Option<usize>,
    max_live_stacks: Option<usize>,
    thread_name: Option<ThreadName>,
    handlers: Handlers,
    /// Strands reserved per worker when tracing (`None`: no tracing).
    #[cfg(feature = "trace")]
    trace_capacity: Option<usize>,
}

impl RuntimeBuilder {
    /// The runtime parameters (default: [`Params::DEFAULT`]), e.g. the
    /// `PARAMS` constant the `#[task_program]` analyzer emits.
    pub fn params(mut self, params: Params) -> Self {
        self.params = params;
        self
    }

    /// The number of worker threads, at most [`MAX_WORKERS`]. Without it, or
    /// with `0` (as rayon's `num_threads(0)`), `PRESCIENT_WORKERS` decides,
    /// else one worker per hardware thread; `PRESCIENT_WORKERS=0` also
    /// means one per hardware thread. A `PRESCIENT_WORKERS` that is not a
    /// whole number in `0 ..= MAX_WORKERS` is ignored, with a warning on
    /// stderr (once per process).
    ///
    /// ```
    /// let runtime = prescient::Runtime::builder().num_workers(0).build().unwrap();
    /// assert!(runtime.num_workers() >= 1);
    /// ```
    pub fn num_workers(mut self, num_workers: usize) -> Self {
        self.num_workers = Some(num_workers);
        self
    }

    /// The soft cap on stacks each worker maps (default: 16384 / workers,
    /// clamped to 16 ..= 1024; each stack costs two memory mappings).
    ///
    /// It is soft: a worker at its cap first resumes its own ready tasks and
    /// takes no new ones; only when nothing became ready for 2 ms does it map
    /// one more stack (counted in [`Counters::stacks_beyond_cap`]), so a
    /// program that keeps more tasks suspended than the cap allows slows down
    /// by 2 ms per extra stack. The hard limit is the kernel's: Linux allows
    /// about 65,000 mappings per process (`vm.max_map_count`), i.e. roughly
    /// 32,000 stacks in all. A worker that cannot map a stack any more prints
    /// the reason and aborts the process; raise `vm.max_map_count` or restructure
    /// the program so fewer tasks wait at once.
    pub fn max_live_stacks(mut self, stacks: usize) -> Self {
        self.max_live_stacks = Some(stacks);
        self
    }

    /// Names worker threads (default: `prescient-worker-{index}`). A panic in
    /// `name` stops the workers already started and propagates from
    /// [`build`](RuntimeBuilder::build).
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// Called on each worker thread when it starts, with its index. A panic
    /// in it goes to the [`panic_handler`](Self::panic_handler) (without one,
    /// a line on stderr); the worker goes on.
    pub fn start_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.handlers.start = Some(Box::new(handler));
        self
    }

    /// Called on each worker thread when it exits, with its index. A panic
    /// in it goes to the [`panic_handler`](Self::panic_handler) (without one,
    /// a line on stderr).
    pub fn exit_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.handlers.exit = Some(Box::new(handler));
        self
    }

    /// Receives the panic payload of detached tasks (spawned tasks whose
    /// handle was dropped) and of panicking start and exit handlers, as
    /// rayon's does. Without it the runtime prints a line to stderr.
    pub fn panic_handler(
        mut self,
        handler: impl Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    ) -> Self {
        self.handlers.panic = Some(Box::new(handler));
        self
    }

    /// Whether [`Runtime::profile`] may record this runtime's runs, and how
    /// much it reserves for them (default: [`Tracing::Off`]). `true` is
    /// [`Tracing::ON`]: each worker reserves room for 16,384 strands and
    /// 32,768 edges before each profiled run, in whole chunks of 65,536
    /// records: one chunk of 40-byte strands and one of 24-byte edges,
    /// 4 MiB (about 4.2 MB), its pages touched; [`Tracing::Reserve`] sets
    /// the reservation. A runtime built without tracing runs exactly as an
    /// untraced one, apart from one thread-local check per task operation.
    /// Requires the cargo feature `trace`.
    ///
    /// ```
    /// let runtime = prescient::Runtime::builder().num_workers(2).trace(true).build().unwrap();
    /// let profile = runtime
    ///     .profile(|| prescient::join(|| 1, || 2))
    ///     .unwrap();
    /// assert_eq!(*profile.result(), (1, 2));
    /// assert!(profile.dag().strands().len() >= 1);
    /// ```
    #[cfg(feature = "trace")]
    pub fn trace(mut self, tracing: impl Into<Tracing>) -> Self {
        self.trace_capacity = match tracing.into() {
            Tracing::Off => None,
            Tracing::Reserve(strands) => Some(strands),
        };
        self
    }

    /// Validates the configuration and starts the workers.
    pub fn build(mut self) -> Result<Runtime, BuildError> {
        self.params.validate().map_err(BuildError::InvalidParams)?;
        let num_workers = match self.num_workers {
            Some(0) => default_num_workers(),
            Some(n) if n > MAX_WORKERS => return Err(BuildError::TooManyWorkers(n)),
            Some(n) => n,
            None => default_num_workers(),
        };
        let cap = match self.max_live_stacks {
            Some(0) => return Err(BuildError::ZeroStackCap),
            Some(cap) => cap,
            None => (16384 / num_workers).clamp(16, 1024),
        };
        #[cfg(feature = "trace")]
        if let Some(strands) = self.trace_capacity.filter(|&s| s > MAX_TRACE_CAPACITY) {
            return Err(BuildError::TraceCapacityTooLarge(strands));
        }
        crate::scheduler::fiber::overflow::install_handler();
        let pus = match self.params.pinning {
            crate::params::Pinning::None => vec![None; num_workers],
            pinning => topology::worker_pus(&topology::detect(), pinning, num_workers),
        };
        let (registry, deques) = Registry::new(
            self.params,
            num_workers,
            cap,
            self.handlers,
            #[cfg(feature = "trace")]
            self.trace_capacity,
        );
        // Built before the threads, so that an early return or a panic in the
        // `thread_name` callback drops it, which stops and joins the workers
        // already started instead of leaving them waiting for work forever.
        let mut runtime = Runtime {
            registry,
            threads: Vec::with_capacity(num_workers),
        };
        for (index, deque) in deques.into_iter().enumerate() {
            let name = match &mut self.thread_name {
                Some(name) => name(index),
                None => format!("prescient-worker-{index}"),
            };
            let worker_registry = runtime.registry.clone();
            let pin_to = pus[index];
            runtime.registry.running.increment();
            let spawned = std::thread::Builder::new()
                .name(name)
                .spawn(move || worker::worker_main(worker_registry, index, deque, pin_to));
            match spawned {
                Ok(thread) => runtime.threads.push(thread),
                Err(error) => {
                    runtime.registry.running.decrement();
                    return Err(BuildError::Spawn(error));
                }
            }
        }
        if runtime.registry.dast.has_manager_thread() {
            let manager_registry = runtime.registry.clone();
            let spawned = std::thread::Builder::new()
                .name("prescient-dast-manager".to_string())
                .spawn(move || registry::dast_manager_main(&manager_registry));
            match spawned {
                Ok(thread) => runtime.threads.push(thread),
                Err(error) => return Err(BuildError::Spawn(error)),
            }
        }
        Ok(runtime)
    }
}

/// Calls `f` in a frame of its own. [`Runtime::run`] calls a closure directly
/// when it is already on one of its workers; inlined there, a closure with a
/// large local (a task's 2 MiB buffer) would make `run`'s own frame that
/// large, reserved and probed in every call — also from a plain thread with a
/// small stack whose closure then runs on a task stack — and that thread
/// would overflow before the closure ever runs.
#[inline(never)]
fn call_here<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The worker count from `PRESCIENT_WORKERS`, else the hardware threads. An
/// unusable value is ignored with a warning (once): rayon silently ignores
/// such a `RAYON_NUM_THREADS`, which hides the typo.
fn default_num_workers() -> usize {
    let hardware = || std::thread::available_parallelism().map_or(1, |n| n.get());
    let Ok(text) = std::env::var("PRESCIENT_WORKERS") else {
        return hardware();
    };
    match text.trim().parse::<usize>() {
        Ok(0) => hardware(),
        Ok(n) if n <= MAX_WORKERS => n,
        _ => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                crate::unwind::report(format_args!(
                    "ignoring PRESCIENT_WORKERS={text:?}: not a whole number in 0..={MAX_WORKERS}; \
                     using one worker per hardware thread ({})",
                    hardware()
                ))
            });
            hardware()
        }
    }
}

impl Runtime {
    /// A builder with [`Params::DEFAULT`].
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder {
            params: Params::DEFAULT,
            num_workers: None,
            max_live_stacks: None,
            thread_name: None,
            handlers: Handlers::default(),
            #[cfg(feature = "trace")]
            trace_capacity: None,
        }
    }

    /// The global runtime the free functions use outside any runtime, created
    /// on first use with [`Params::DEFAULT`] and `PRESCIENT_WORKERS` workers
    /// (default: one per hardware thread).
    pub fn global() -> &'static Runtime {
        static GLOBAL: OnceLock<Runtime> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            Runtime::builder()
                .build()
                .expect("prescient: cannot start the global runtime")
        })
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Runs `f` on a worker of this runtime and returns its result; the
    /// calling thread blocks (a calling task of another runtime suspends).
    /// Called on a worker of this runtime, it just calls `f`. A panic in `f`
    /// propagates to the caller.
    pub fn run<R, F>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        if worker::is_current(&self.registry) {
            return call_here(f);
        }
        let job = StackJob::new(f);
        // SAFETY: `job` stays in this frame until `wait_for` returns, which
        // is after a worker ran it and set its latch; nothing between unwinds.
        self.registry.inject(unsafe { job.as_job_ref() });
        worker::wait_for(&job.latch);
        // SAFETY: the latch is set, and the result is taken once.
        match unsafe { job.take_result() } {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    }

    /// The number of worker threads.
    pub fn num_workers(&self) -> usize {
        self.registry.num_workers()
    }

    /// The parameters this runtime runs with.
    pub fn params(&self) -> Params {
        self.registry.params
    }

    /// The soft cap on stacks per worker.
    pub fn max_live_stacks(&self) -> usize {
        self.registry.live_stack_cap
    }

    /// The inliner's per-site statistics and decisions (see
    /// [`Inlining`](crate::tuning::Inlining)): executions, inlined executions,
    /// samples and their mean duration, per spawn site that ran in this
    /// runtime. Empty under [`Inlining::Never`](crate::tuning::Inlining::Never).
    pub fn inlining_report(&self) -> crate::inlining::InliningReport {
        self.registry.inlining_report()
    }

    /// A snapshot of the scheduler counters.
    pub fn counters(&self) -> Counters {
        let mut total = Counters::default();
        for info in &self.registry.workers {
            info.counters.add_to(&mut total);
        }
        total.dast_executed_by_manager += self
            .registry
            .dast
            .executed_by_manager
            .load(std::sync::atomic::Ordering::Relaxed);
        total
    }
}

impl Drop for Runtime {
    /// Lets the workers finish every task — queued, running or suspended —
    /// then joins them.
    ///
    /// * It waits like [`Runtime::run`] does: a plain thread blocks, and a
    ///   task of *another* runtime suspends (its worker goes on with other
    ///   tasks, which this runtime's tasks may be waiting for).
    /// * It does not return while a task of this runtime waits for something
    ///   that never happens, e.g. an [`Event`](crate::Event) nobody sets: a
    ///   suspended task cannot be abandoned (its stack may hold borrows) or
    ///   unwound out of order. The idle workers park meanwhile.
    /// * Dropped from one of its own tasks (the last `Arc<Runtime>` moved into
    ///   a task), it cannot wait for the task it runs in: the workers are told
    ///   to terminate and are detached instead; they exit once every task has
    ///   finished.
    fn drop(&mut self) {
        self.registry.terminate();
        if worker::is_current(&self.registry) {
            self.threads.clear();
            return;
        }
        // Suspends a task of another runtime rather than blocking its worker
        // thread; the workers decrement `running` as the last thing they do,
        // so the joins below return at once.
        worker::wait_for(&self.registry.running);
        // The workers are gone, so no request can come: the DAST manager
        // thread (if any) sees that and exits; wake it to see it now.
        self.registry.dast.manager.notify();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("num_workers", &self.num_workers())
            .field("params", &self.params())
            .finish()
    }
}

/// Runs `f` on a worker, with that worker's registry: on this thread if it
/// is a worker, else on a worker of the global runtime (the caller blocks
/// until `f` returns, as in [`Runtime::run`]).
pub(crate) fn with_registry<R: Send>(f: impl FnOnce(Arc<Registry>) -> R + Send) -> R {
    match WorkerThread::with_current(|worker| worker.map(|worker| worker.registry.clone())) {
        Some(registry) => f(registry),
        None => Runtime::global().run(|| with_registry(f)),
    }
}

/// Runs `f` on a worker, with a reference to that worker's registry, like
/// [`with_registry`] but without cloning the registry's `Arc`: that count is
/// one cache line shared by every worker, and a `scope` per recursion level
/// would bounce it between all of them. On a worker the reference is valid
/// for all of `f`: the worker holds the registry and outlives every task it
/// runs, across suspensions too (tasks are tied; see
/// `WorkerThread::with_current`).
///
/// Never inlined: `f` is a scope's whole body, and inlined into a recursive
/// task function it makes that function's frame and code larger for every
/// level of the recursion, which cost a scope-based recursion more on one
/// worker than the call saves (docs/measurements.md, "Scope bodies").
#[inline(never)]
pub(crate) fn in_registry<R: Send>(f: impl FnOnce(&Registry) -> R + Send) -> R {
    match WorkerThread::with_current(|worker| worker.map(|worker| Arc::as_ptr(&worker.registry))) {
        // SAFETY: this thread's worker holds an `Arc` of the registry and
        // outlives every task it runs, across suspensions too (tasks are
        // tied), and `f` runs in the calling task.
        Some(registry) => f(unsafe { &*registry }),
        None => Runtime::global().run(|| in_registry(f)),
    }
}

/// The index of the worker running the caller, or `None` outside a runtime.
pub fn current_worker_index() -> Option<usize> {
    WorkerThread::with_current(|worker| worker.map(|worker| worker.index))
}

/// The number of workers of the runtime running the caller, or of the global
/// runtime outside any runtime.
pub fn num_workers() -> usize {
    WorkerThread::with_current(|worker| worker.map(|worker| worker.registry.num_workers()))
        .unwrap_or_else(|| Runtime::global().num_workers())
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::job::HeapJob;
    use std::sync::mpsc;
    use std::time::Duration;

    /// The deque push's sleeper check is relaxed and may miss a worker that
    /// is falling asleep (see `sleep.rs`). Here the miss is forced: a job is
    /// pushed with no wake-up at all while the other worker is parked, and
    /// the pushing task then blocks its OS thread on that job. Only the park
    /// timeout can get the job run; without it this waits forever.
    #[test]
    fn a_missed_wake_up_is_repaired_by_the_park_timeout() {
        let runtime = Runtime::builder().num_workers(2).build().unwrap();
        let ran = runtime.run(|| {
            WorkerThread::with_current(|worker| {
                let worker = worker.expect("`run` executes on a worker");
                let other = &worker.registry.workers[1 - worker.index].wake;
                while !other.is_sleeping() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let (sender, receiver) = mpsc::channel();
                worker.push_unannounced(HeapJob::into_job_ref(move || {
                    let _ = sender.send(());
                }));
                receiver.recv_timeout(Duration::from_secs(20)).is_ok()
            })
        });
        assert!(ran, "the parked worker never noticed the job");
    }
}
