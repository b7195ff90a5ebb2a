//! Runtime parameters: the `const`-constructible, validated knobs that the
//! `#[task_program]` analyzer chooses at compile time (CF'17 §3.3.4) and that a
//! user may also set by hand.
//!
//! Every field has an effect on the runtime; a parameter arrives together with
//! the feature that reads it. Validation is a `const fn`, so an invalid constant
//! is a compile-time error (`Params::checked`), and the runtime builder returns
//! the same [`ParamsError`] as a value at run time.

use core::fmt;

/// Where a worker inserts new tasks in its own deque and from which end thieves
/// steal (Thoman et al., CF'17 §3.1.2). The owner always takes from the front.
///
/// `PF` runs on crossbeam-deque's LIFO worker; the other three on a deque
/// of our own that lets the owner take a specific job back (crossbeam's FIFO
/// worker cannot), which the live-stack cap needs.
///
/// | policy | insert | owner takes | thieves take | deque |
/// |---|---|---|---|---|
/// | [`InsertBackStealBack`](Self::InsertBackStealBack) (`DEF`) | back | front (oldest) | back (newest) | our own |
/// | [`InsertFrontStealBack`](Self::InsertFrontStealBack) (`PF`) | front | front (newest) | back (oldest) | crossbeam LIFO |
/// | [`InsertBackStealFront`](Self::InsertBackStealFront) | back | front (oldest) | front (oldest) | our own |
/// | [`InsertFrontStealFront`](Self::InsertFrontStealFront) | front | front (newest) | front (newest) | our own |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueuePolicy {
    /// Insieme's default (`DEF`): insert at the back, thieves steal from the back.
    InsertBackStealBack,
    /// "Self push front" (`PF`): insert at the front, thieves steal from the back.
    /// The owner works depth-first, thieves take the oldest (largest) tasks.
    InsertFrontStealBack,
    /// Insert at the back, thieves steal from the front: a FIFO queue for everyone.
    InsertBackStealFront,
    /// Insert at the front, thieves steal from the front: everyone works at one end.
    InsertFrontStealFront,
}

impl QueuePolicy {
    /// All four policies, for tests and sweeps.
    pub const ALL: [QueuePolicy; 4] = [
        QueuePolicy::InsertBackStealBack,
        QueuePolicy::InsertFrontStealBack,
        QueuePolicy::InsertBackStealFront,
        QueuePolicy::InsertFrontStealFront,
    ];

    /// Whether the owner takes tasks from the end it inserts them at, so that a
    /// join can pop its own child back and run it inline (`PF` and
    /// insert-front/steal-front). Under the other two the joining task suspends.
    pub const fn owner_takes_newest(self) -> bool {
        matches!(
            self,
            QueuePolicy::InsertFrontStealBack | QueuePolicy::InsertFrontStealFront
        )
    }

    /// A short name for tables: `DEF`, `PF`, `BF` (back/front) or `FF`.
    pub const fn short_name(self) -> &'static str {
        match self {
            QueuePolicy::InsertBackStealBack => "DEF",
            QueuePolicy::InsertFrontStealBack => "PF",
            QueuePolicy::InsertBackStealFront => "BF",
            QueuePolicy::InsertFrontStealFront => "FF",
        }
    }
}

impl fmt::Display for QueuePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// How workers are bound to processing units (requires topology discovery;
/// without the `hwloc` feature the runtime falls back to a flat topology read
/// from the OS and pins with `sched_setaffinity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pinning {
    /// Workers are not pinned; the OS schedules them.
    None,
    /// Fill one socket (package) core by core before using the next (the CF'17
    /// methodology): worker *i* goes to the *i*-th core in package order, one PU
    /// per core first, hyper-threads only once every core has a worker.
    FillSocketFirst,
    /// Spread workers round-robin over the packages, then over cores.
    Scatter,
}

/// Who maintains the dataflow dependency graph: the workers themselves, or a
/// decoupled manager that they send requests to (the DAST paper, Bosch et
/// al.; its follow-up DDAST for [`IdleWorkers`](Self::IdleWorkers)). See the
/// `dast` module documentation for the protocol and the push policies.
///
/// | mode | who executes `new` / `done` / `delete` requests | extra thread |
/// |---|---|---|
/// | [`Off`](Self::Off) | the worker that submits or finishes the task, under the graph's lock | no |
/// | [`Forced`](Self::Forced) | always the manager thread | yes |
/// | [`Adaptive`](Self::Adaptive) | the paper's push policies decide per request: inline, or queued for the manager (a thread when the machine has a core to spare for it and the runtime has two workers or more, else idle workers) | if a core is spare |
/// | [`IdleWorkers`](Self::IdleWorkers) | the push policies decide; queued requests are drained by workers that find no task | no |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DastMode {
    /// Workers update the graph themselves, under its lock.
    Off,
    /// Every request goes to the manager thread.
    Forced,
    /// The paper's adaptive push policies; the manager is a thread only when
    /// the host has more hardware threads than the runtime has workers, and
    /// the runtime has at least two.
    Adaptive,
    /// The push policies, with no extra thread: idle workers drain the
    /// request queues.
    IdleWorkers,
}

impl DastMode {
    /// All four modes, for tests and benchmarks.
    pub const ALL: [DastMode; 4] = [
        DastMode::Off,
        DastMode::Forced,
        DastMode::Adaptive,
        DastMode::IdleWorkers,
    ];

    /// A short name for tables: `off`, `forced`, `adaptive`, `idle`.
    pub const fn short_name(self) -> &'static str {
        match self {
            DastMode::Off => "off",
            DastMode::Forced => "forced",
            DastMode::Adaptive => "adaptive",
            DastMode::IdleWorkers => "idle",
        }
    }

    /// The mode named `name` (a [`short_name`](Self::short_name), or the
    /// variant's name in any case), if any.
    pub fn from_name(name: &str) -> Option<DastMode> {
        let name = name.to_ascii_lowercase();
        DastMode::ALL.into_iter().find(|mode| {
            mode.short_name() == name || format!("{mode:?}").to_ascii_lowercase() == name
        })
    }
}

impl fmt::Display for DastMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// The smallest task stack reserve accepted: 16 KiB.
pub const MIN_STACK_SIZE: usize = 16 * 1024;
/// The largest task stack reserve accepted: 1 GiB. A reserve is mapped
/// without commit charge, so a large one costs address space, not memory,
/// until a task goes that deep.
pub const MAX_STACK_SIZE: usize = 1 << 30;
/// The default task stack reserve: 8 MiB, a main thread's.
pub const DEFAULT_STACK_SIZE: usize = 8 * 1024 * 1024;
/// Stack the runtime keeps below every task's reserve for its own paths:
/// catching a panic and formatting its backtrace (`RUST_BACKTRACE=1`: std's
/// backtrace printer, the deepest of them, fit in 24 KiB in our tests, so
/// this leaves more than twice that), submitting a dataflow task under DAST,
/// and the profiler's hooks (`tests/stack_reserve.rs` runs each at the
/// bottom of the smallest reserve). Task code gets the whole `stack_size`, and a panic
/// at its very bottom still reaches its joiner. Mapped like the reserve: it
/// costs nothing until used. A user's own panic hook runs in this budget
/// too; one that needs more needs a larger `stack_size`.
pub(crate) const RUNTIME_STACK_HEADROOM: usize = 64 * 1024;
/// The largest deque capacity accepted: 2^16.
pub const MAX_QUEUE_CAPACITY: usize = 1 << 16;
/// The most dependency-table buckets accepted: 2^24 (16,777,216). The table
/// is allocated whole by every dataflow scope, so a mistyped count must be an
/// error, not an allocation that aborts the process; the largest count the
/// analyzer and the sweeps use (256,019) is 65 times below it.
pub const MAX_DEPENDENCY_BUCKETS: usize = 1 << 24;

/// The runtime's parameters. Construct them in a `const`:
///
/// ```
/// use prescient::tuning::QueuePolicy;
/// use prescient::Params;
/// const TUNED: Params = Params::DEFAULT
///     .with_queue_policy(QueuePolicy::InsertFrontStealBack)
///     .with_queue_capacity(4)
///     .with_stack_size(64 * 1024)
///     .checked(); // an invalid value here fails compilation
/// assert_eq!(TUNED.queue_capacity, 4);
/// ```
///
/// The fields are public to read; a value is built from [`Params::DEFAULT`]
/// with the `with_*` methods, so that new parameters (each with its own
/// method and default) are not a breaking change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Params {
    /// Where new tasks go in the spawning worker's deque and where thieves steal.
    pub queue_policy: QueuePolicy,
    /// How many tasks a worker's deque holds before a spawn runs inline as a
    /// plain call (lazy task creation). `1 ..= 2^16`.
    pub queue_capacity: usize,
    /// The task stack *reserve*: how deep a task may go, a hard limit like a
    /// thread's stack size. A power of two in `16 KiB ..= 1 GiB`; 8 MiB by
    /// default. Each stack maps it without commit charge (untouched pages
    /// cost nothing), plus 64 KiB for the runtime's own paths (a panic
    /// caught at the bottom of the reserve still reaches its joiner) and a
    /// guard page; a task
    /// that goes deeper aborts the process with a message naming this size.
    pub stack_size: usize,
    /// The task stack *commitment*: the bytes at the top of each stack that
    /// are pre-faulted when the stack is made, and that a recycled stack is
    /// trimmed back to when a task went deeper. Never a limit: a task may use
    /// the whole reserve. `0` (the default, and what `#[task_program]` gives
    /// a recursion it cannot bound) pre-faults nothing and never trims: a
    /// stack keeps what it touched, as a thread's does. A nonzero value is
    /// used as at least [`MIN_STACK_SIZE`] and at most the reserve.
    pub committed_stack_size: usize,
    /// Buckets of the dataflow region hash table. `>= 1`.
    pub dependency_buckets: usize,
    /// How workers are pinned to processing units.
    pub pinning: Pinning,
    /// Who maintains the dataflow dependency graph (see [`DastMode`]).
    pub dast: DastMode,
    /// Whether spawn sites inline their tasks by measured duration (see
    /// [`Inlining`]).
    pub inlining: Inlining,
}

/// Whether and how spawn sites run their tasks inline instead of through the
/// scheduler (adaptive task inlining, Wagle et al., ICPP'19; see the
/// `inlining` module of the runtime and ARCHITECTURE.md, *Adaptive inlining*).
///
/// Each spawn site (`join`, `spawn`, and the sites `#[task_program]` names)
/// keeps its own statistics: it counts its executions and times every
/// 2<sup>k</sup>-th one (k grows as the site's tasks shrink, so the ~20 ns
/// clock read never dominates), and decides from the mean sampled duration
/// whether its tasks are worth handing to the scheduler. Thresholds are
/// multiples of the **spawn overhead** the runtime measures once per process
/// when it starts (one deferred task: allocate, push, pop, run), so that they
/// mean the same from a laptop to a 256-thread host.
///
/// An inlined site never removes all parallelism: it checks its worker's
/// "a thief is hungry" flag every few executions (about every 1,024 spawn
/// overheads of its work) and, when a thief asked, takes the spawning path
/// once, which hands the thief the oldest pending work.
///
/// ```
/// use prescient::tuning::Inlining;
/// use prescient::{Params, Runtime};
/// let params = Params::DEFAULT.with_inlining(Inlining::Baseline { count: 5, lower: 4, upper: 16 });
/// let runtime = Runtime::builder().params(params).num_workers(2).build().unwrap();
/// assert_eq!(runtime.run(|| prescient::join(|| 1, || 2)), (1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Inlining {
    /// No site inlines by decision: every task goes through the scheduler as
    /// far as the queue capacity allows (lazy task creation still runs a task
    /// inline when the deque is full). Nothing is counted or timed.
    Never,
    /// Wagle's Algorithm 1, the fixed-threshold policy: after `count` timed
    /// executions of a site, it inlines while the mean of its last `count`
    /// samples is below `lower` spawn overheads, spawns while it is above
    /// `upper`, and keeps its last mode in between. `lower == upper` is a
    /// single fixed threshold. Until `count` samples, a site starts as its
    /// static effort says (see [`Inlining::Adaptive`]).
    Baseline {
        /// Timed executions per decision, `>= 1`.
        count: u32,
        /// Inline below this many spawn overheads of mean task time.
        lower: u32,
        /// Spawn above this many spawn overheads; `lower <= upper <=
        /// 65,536` (2^16).
        upper: u32,
    },
    /// Wagle's Algorithm 2: each site searches its own threshold at run time.
    /// It starts at 8 spawn
    /// overheads with a hysteresis band around it; after each window of
    /// samples the threshold halves (down to 1) when workers went hungry
    /// while the site inlined and its tasks average at least 128 spawn
    /// overheads (too little parallelism, and work worth a steal), doubles
    /// (up to 1024) when the site spawned and nobody was hungry (overhead
    /// for nothing), and stays otherwise. It freezes once the search has
    /// turned back three times (for good) or held still for four windows
    /// (until thieves starve for work worth a steal again). A site whose
    /// static effort (from `#[task_program]`) is tiny starts inlined;
    /// measurements can overturn that.
    Adaptive,
}

impl Inlining {
    /// The baseline policy with Wagle's count (5) and our default band: inline
    /// below 4 spawn overheads, spawn above 16.
    pub const BASELINE: Inlining = Inlining::Baseline {
        count: 5,
        lower: 4,
        upper: 16,
    };

    /// A fixed threshold of `threshold` spawn overheads (a baseline without
    /// a band), deciding after every 5 samples: what a threshold sweep runs.
    pub const fn fixed(threshold: u32) -> Inlining {
        Inlining::Baseline {
            count: 5,
            lower: threshold,
            upper: threshold,
        }
    }

    /// A short name for tables and command lines: `never`, `baseline`,
    /// `adaptive`, or `fixed-T` for a baseline with `lower == upper == T`
    /// and count 5, `baseline-C-L-U` for another baseline.
    pub fn short_name(&self) -> String {
        match *self {
            Inlining::Never => "never".to_string(),
            Inlining::Adaptive => "adaptive".to_string(),
            Inlining::Baseline {
                count: 5,
                lower,
                upper,
            } if lower == upper => {
                format!("fixed-{lower}")
            }
            Inlining::Baseline { .. } if *self == Inlining::BASELINE => "baseline".to_string(),
            Inlining::Baseline {
                count,
                lower,
                upper,
            } => format!("baseline-{count}-{lower}-{upper}"),
        }
    }

    /// Parses a [`short_name`](Self::short_name).
    pub fn from_name(name: &str) -> Option<Inlining> {
        match name {
            "never" => return Some(Inlining::Never),
            "adaptive" => return Some(Inlining::Adaptive),
            "baseline" => return Some(Inlining::BASELINE),
            _ => {}
        }
        if let Some(threshold) = name.strip_prefix("fixed-") {
            return threshold.parse().ok().map(Inlining::fixed);
        }
        let mut parts = name.strip_prefix("baseline-")?.split('-');
        let mut next = || parts.next()?.parse::<u32>().ok();
        let (count, lower, upper) = (next()?, next()?, next()?);
        Some(Inlining::Baseline {
            count,
            lower,
            upper,
        })
    }
}

impl fmt::Display for Inlining {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.short_name())
    }
}

/// The largest `lower`/`upper` of [`Inlining::Baseline`], in spawn overheads
/// (2^16: with a 30 ns overhead, about 2 ms of task time).
pub(crate) const MAX_INLINING_THRESHOLD: u32 = 1 << 16;

/// Why a [`Params`] value is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamsError {
    /// `queue_capacity` is zero.
    ZeroQueueCapacity,
    /// `queue_capacity` exceeds [`MAX_QUEUE_CAPACITY`].
    QueueCapacityTooLarge(usize),
    /// `stack_size` is within range but not a power of two.
    StackSizeNotPowerOfTwo(usize),
    /// `stack_size` is outside `MIN_STACK_SIZE ..= MAX_STACK_SIZE` (16 KiB ..= 1 GiB);
    /// checked before the power of two.
    StackSizeOutOfRange(usize),
    /// `dependency_buckets` is zero.
    ZeroDependencyBuckets,
    /// `dependency_buckets` exceeds [`MAX_DEPENDENCY_BUCKETS`].
    DependencyBucketsTooLarge(usize),
    /// [`Inlining::Baseline`] with `count == 0`.
    ZeroInliningCount,
    /// [`Inlining::Baseline`] with `lower > upper`; holds `lower`.
    InliningBandInverted(u32),
    /// [`Inlining::Baseline`] with `upper` above 65,536 (2^16) spawn
    /// overheads; holds `upper`.
    InliningThresholdTooLarge(u32),
}

impl ParamsError {
    /// The message of this error, as a `&'static str` usable in `const` panics.
    pub const fn message(&self) -> &'static str {
        match self {
            ParamsError::ZeroQueueCapacity => "invalid Params: queue_capacity must be at least 1",
            ParamsError::QueueCapacityTooLarge(_) => {
                "invalid Params: queue_capacity must be at most 65536 (2^16)"
            }
            // One rule, stated whole by both errors.
            ParamsError::StackSizeNotPowerOfTwo(_) | ParamsError::StackSizeOutOfRange(_) => {
                "invalid Params: stack_size must be a power of two between 16 KiB and 1 GiB"
            }
            ParamsError::ZeroDependencyBuckets => {
                "invalid Params: dependency_buckets must be at least 1"
            }
            ParamsError::DependencyBucketsTooLarge(_) => {
                "invalid Params: dependency_buckets must be at most 16777216 (2^24)"
            }
            ParamsError::ZeroInliningCount => {
                "invalid Params: Inlining::Baseline needs count of at least 1"
            }
            ParamsError::InliningBandInverted(_) => {
                "invalid Params: Inlining::Baseline needs lower <= upper"
            }
            ParamsError::InliningThresholdTooLarge(_) => {
                "invalid Params: Inlining::Baseline thresholds must be at most 65536 spawn overheads"
            }
        }
    }
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())?;
        match *self {
            ParamsError::StackSizeNotPowerOfTwo(v) => {
                write!(f, " (got {v}: not a power of two)")
            }
            ParamsError::StackSizeOutOfRange(v) if v < MIN_STACK_SIZE => {
                write!(f, " (got {v}: too small)")
            }
            ParamsError::StackSizeOutOfRange(v) => write!(f, " (got {v}: too large)"),
            ParamsError::QueueCapacityTooLarge(v) | ParamsError::DependencyBucketsTooLarge(v) => {
                write!(f, " (got {v})")
            }
            ParamsError::InliningBandInverted(v) => write!(f, " (got lower = {v})"),
            ParamsError::InliningThresholdTooLarge(v) => write!(f, " (got upper = {v})"),
            ParamsError::ZeroQueueCapacity
            | ParamsError::ZeroDependencyBuckets
            | ParamsError::ZeroInliningCount => Ok(()),
        }
    }
}

impl std::error::Error for ParamsError {}

impl Params {
    /// Insieme's defaults: `DEF`, capacity 16, 97 buckets, no pinning; 8 MiB
    /// stack reserves with no commitment; the adaptive DAST manager and
    /// adaptive inlining.
    pub const DEFAULT: Params = Params {
        queue_policy: QueuePolicy::InsertBackStealBack,
        queue_capacity: 16,
        stack_size: DEFAULT_STACK_SIZE,
        committed_stack_size: 0,
        dependency_buckets: 97,
        pinning: Pinning::None,
        dast: DastMode::Adaptive,
        inlining: Inlining::Adaptive,
    };

    /// Returns these parameters with `queue_policy` replaced.
    pub const fn with_queue_policy(mut self, queue_policy: QueuePolicy) -> Params {
        self.queue_policy = queue_policy;
        self
    }

    /// Returns these parameters with `queue_capacity` replaced.
    pub const fn with_queue_capacity(mut self, queue_capacity: usize) -> Params {
        self.queue_capacity = queue_capacity;
        self
    }

    /// Returns these parameters with `stack_size`, the stack reserve,
    /// replaced. The commitment is kept (and used as at most the reserve).
    pub const fn with_stack_size(mut self, stack_size: usize) -> Params {
        self.stack_size = stack_size;
        self
    }

    /// Returns these parameters with `committed_stack_size`, the stack
    /// commitment, replaced; [`ProgramAnalysis::params`](crate::analysis::ProgramAnalysis::params) sets it to
    /// the `#[task_program]` estimate.
    pub const fn with_committed_stack_size(mut self, committed_stack_size: usize) -> Params {
        self.committed_stack_size = committed_stack_size;
        self
    }

    /// The commitment a stack gets: 0, or `committed_stack_size` within
    /// [`MIN_STACK_SIZE`] ..= `stack_size`.
    pub(crate) const fn effective_committed_stack_size(&self) -> usize {
        let committed = self.committed_stack_size;
        if committed == 0 {
            0
        } else if committed < MIN_STACK_SIZE {
            MIN_STACK_SIZE
        } else if committed > self.stack_size {
            self.stack_size
        } else {
            committed
        }
    }

    /// Returns these parameters with `dependency_buckets` replaced.
    pub const fn with_dependency_buckets(mut self, dependency_buckets: usize) -> Params {
        self.dependency_buckets = dependency_buckets;
        self
    }

    /// Returns these parameters with `pinning` replaced.
    pub const fn with_pinning(mut self, pinning: Pinning) -> Params {
        self.pinning = pinning;
        self
    }

    /// Returns these parameters with `dast` replaced.
    pub const fn with_dast(mut self, dast: DastMode) -> Params {
        self.dast = dast;
        self
    }

    /// Returns these parameters with `inlining` replaced.
    pub const fn with_inlining(mut self, inlining: Inlining) -> Params {
        self.inlining = inlining;
        self
    }

    /// Checks every field; the first invalid one is the error.
    pub const fn validate(&self) -> Result<(), ParamsError> {
        if self.queue_capacity == 0 {
            return Err(ParamsError::ZeroQueueCapacity);
        }
        if self.queue_capacity > MAX_QUEUE_CAPACITY {
            return Err(ParamsError::QueueCapacityTooLarge(self.queue_capacity));
        }
        // The range first: 0 is "too small" to a reader, not "not a power
        // of two", though it is both.
        if self.stack_size < MIN_STACK_SIZE || self.stack_size > MAX_STACK_SIZE {
            return Err(ParamsError::StackSizeOutOfRange(self.stack_size));
        }
        if !self.stack_size.is_power_of_two() {
            return Err(ParamsError::StackSizeNotPowerOfTwo(self.stack_size));
        }
        if self.dependency_buckets == 0 {
            return Err(ParamsError::ZeroDependencyBuckets);
        }
        if self.dependency_buckets > MAX_DEPENDENCY_BUCKETS {
            return Err(ParamsError::DependencyBucketsTooLarge(
                self.dependency_buckets,
            ));
        }
        if let Inlining::Baseline {
            count,
            lower,
            upper,
        } = self.inlining
        {
            if count == 0 {
                return Err(ParamsError::ZeroInliningCount);
            }
            if lower > upper {
                return Err(ParamsError::InliningBandInverted(lower));
            }
            if upper > MAX_INLINING_THRESHOLD {
                return Err(ParamsError::InliningThresholdTooLarge(upper));
            }
        }
        Ok(())
    }

    /// Returns `self` if valid and panics with the [`ParamsError`] message
    /// otherwise. In a `const` item the panic is a compile-time error.
    pub const fn checked(self) -> Params {
        match self.validate() {
            Ok(()) => self,
            Err(error) => panic!("{}", error.message()),
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_insieme() {
        assert_eq!(Params::DEFAULT.validate(), Ok(()));
        assert_eq!(
            Params::DEFAULT.queue_policy,
            QueuePolicy::InsertBackStealBack
        );
        assert_eq!(Params::DEFAULT.queue_capacity, 16);
        assert_eq!(Params::DEFAULT.stack_size, 8 << 20);
        assert_eq!(Params::DEFAULT.dependency_buckets, 97);
        assert_eq!(Params::DEFAULT.dast, DastMode::Adaptive);
    }

    #[test]
    fn dast_modes_have_names() {
        for mode in DastMode::ALL {
            assert_eq!(DastMode::from_name(mode.short_name()), Some(mode));
            assert_eq!(DastMode::from_name(&format!("{mode:?}")), Some(mode));
        }
        assert_eq!(
            DastMode::from_name("IDLEWORKERS"),
            Some(DastMode::IdleWorkers)
        );
        assert_eq!(DastMode::from_name("sometimes"), None);
        assert_eq!(Params::DEFAULT.with_dast(DastMode::Off).dast, DastMode::Off);
    }

    #[test]
    fn invalid_values_are_reported() {
        let p = Params::DEFAULT;
        assert_eq!(
            p.with_queue_capacity(0).validate(),
            Err(ParamsError::ZeroQueueCapacity)
        );
        assert_eq!(
            p.with_queue_capacity(MAX_QUEUE_CAPACITY + 1).validate(),
            Err(ParamsError::QueueCapacityTooLarge(MAX_QUEUE_CAPACITY + 1))
        );
        assert_eq!(p.with_queue_capacity(MAX_QUEUE_CAPACITY).validate(), Ok(()));
        assert_eq!(
            p.with_stack_size(100_000).validate(),
            Err(ParamsError::StackSizeNotPowerOfTwo(100_000))
        );
        assert_eq!(
            p.with_stack_size(8192).validate(),
            Err(ParamsError::StackSizeOutOfRange(8192))
        );
        assert_eq!(
            p.with_stack_size(2 << 30).validate(),
            Err(ParamsError::StackSizeOutOfRange(2 << 30))
        );
        assert_eq!(p.with_stack_size(16 << 10).validate(), Ok(()));
        assert_eq!(p.with_stack_size(256 << 20).validate(), Ok(()));
        assert_eq!(p.with_stack_size(1 << 30).validate(), Ok(()));
        assert_eq!(
            p.with_dependency_buckets(0).validate(),
            Err(ParamsError::ZeroDependencyBuckets)
        );
        assert!(p
            .with_stack_size(100_000)
            .validate()
            .unwrap_err()
            .to_string()
            .contains("100000"));
    }

    #[test]
    fn the_commitment_is_clamped_to_the_reserve_and_the_minimum() {
        let p = Params::DEFAULT;
        assert_eq!(p.committed_stack_size, 0);
        assert_eq!(p.effective_committed_stack_size(), 0);
        assert_eq!(
            p.with_committed_stack_size(1)
                .effective_committed_stack_size(),
            MIN_STACK_SIZE
        );
        assert_eq!(
            p.with_committed_stack_size(100_000)
                .effective_committed_stack_size(),
            100_000
        );
        let small = p
            .with_committed_stack_size(1 << 20)
            .with_stack_size(64 << 10);
        assert_eq!(small.committed_stack_size, 1 << 20);
        assert_eq!(small.effective_committed_stack_size(), 64 << 10);
        // Any commitment is valid: it is a memory policy, never a limit.
        assert_eq!(p.with_committed_stack_size(usize::MAX).validate(), Ok(()));
    }

    #[test]
    #[should_panic(expected = "queue_capacity must be at least 1")]
    fn checked_panics_at_run_time_too() {
        let _ = std::hint::black_box(Params::DEFAULT.with_queue_capacity(0)).checked();
    }
}
