//! A site's state: [`SharedSite`], one per runtime and site (the decision
//! and its search), and [`LocalSite`], one per worker and site (exact
//! counts and the worker's copy of the decision, which its hot path reads).
//!
//! # Protocol
//! * A worker's hot path touches only its own cache entry for the site
//!   (`WorkerSites` in `mod.rs`), a copy of the `LocalSite`'s decision
//!   `word` (mode and mask) with a countdown of the executions left until
//!   the next visit of the slow path: it decrements the countdown. Every
//!   `mask + 1`-th execution visits the slow path, which adds the count to the
//!   `LocalSite`; one visit in `visit_mask + 1` is timed (one execution in
//!   `sample_mask + 1`), and an inlined site looks at its worker's `hungry`
//!   flag at every visit (every `check_mask + 1`-th execution; the mask is
//!   the smaller of the two periods).
//! * A timed execution adds to the worker's pending samples. Every
//!   [`FOLD_SAMPLES`] of them (every one while the site has not decided
//!   yet), the worker *folds* them into the `SharedSite` under its try-lock:
//!   a busy lock keeps them pending for the next fold, so no worker ever
//!   waits. A fold that completes a window runs the policy (`policy.rs`)
//!   and publishes the mode, the periods and a new `generation`.
//! * After each fold the worker copies the published decision into its
//!   `LocalSite`. Workers that run a site see its new mode within
//!   `FOLD_SAMPLES` samples of their own; nothing else synchronises them,
//!   and nothing needs to: a stale mode costs a little overhead or a little
//!   parallelism for a few executions, never correctness (inline or not,
//!   the task runs exactly once, before its `join` or `spawn` returns for an
//!   inlined one).
//!
//! `LocalSite`'s fields are atomics written only by their worker (`Relaxed`
//! load and store, plain moves on x86-64), so that reports can read every
//! worker's counts while it runs.

use super::calibrate::Calibration;
use super::policy::{self, Mode, SiteSearch, Window};
use crate::counters::bump;
use crate::params::Inlining;
use crate::spin_lock::SpinLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The mode bit of a decision word (`LocalSite::word`, the cache entries'
/// `word`): set while the site inlines. Masks and counts never reach it.
pub(crate) const INLINE_BIT: u64 = 1 << 63;

/// Pending samples a worker folds into the shared state at once.
pub(crate) const FOLD_SAMPLES: u32 = 4;

/// One worker's view of one site.
#[derive(Default)]
pub(crate) struct LocalSite {
    /// Executions on this worker (exact).
    pub(crate) executions: AtomicU64,
    /// Executions handed to the scheduler (the rest ran inline by decision).
    pub(crate) scheduled: AtomicU64,
    /// Scheduled because a thief was hungry while the site inlined.
    pub(crate) hunger_spawns: AtomicU64,
    /// The decision this worker follows, as its cache entry holds it: the
    /// fast path's mask (`pending & mask == 0` takes the slow path), with
    /// [`INLINE_BIT`] set while the site inlines.
    pub(crate) word: AtomicU64,
    /// Time one in `visit_mask + 1` visits of the slow path (which comes
    /// every `mask + 1` executions, so one in `sample_mask + 1` executions
    /// is timed).
    pub(crate) visit_mask: AtomicU64,
    /// Visits of the slow path.
    pub(crate) visits: AtomicU64,
    /// The shared `generation` copied last (0: not initialised).
    pub(crate) generation: AtomicU32,
    pending_samples: AtomicU32,
    pending_ns: AtomicU64,
    /// Sum of `log2` of the pending samples (`f64` bits).
    pending_log2: AtomicU64,
    pending_hungry: AtomicBool,
}

impl LocalSite {
    /// Copies the published decision of `shared`.
    pub(crate) fn refresh(&self, shared: &SharedSite) {
        let generation = shared.generation.load(Ordering::Acquire);
        if generation == self.generation.load(Ordering::Relaxed) {
            return;
        }
        let inline = shared.inline.load(Ordering::Relaxed);
        let sample_mask = (1u64 << shared.sample_shift.load(Ordering::Relaxed)) - 1;
        let check_mask = (1u64 << shared.check_shift.load(Ordering::Relaxed)) - 1;
        let (mask, mode) = if inline {
            (sample_mask.min(check_mask), INLINE_BIT)
        } else {
            (sample_mask, 0)
        };
        self.word.store(mask | mode, Ordering::Relaxed);
        self.visit_mask
            .store((sample_mask + 1) / (mask + 1) - 1, Ordering::Relaxed);
        self.generation.store(generation, Ordering::Relaxed);
    }

    /// Counts a visit of the slow path; whether this one is timed.
    pub(crate) fn visit_is_timed(&self) -> bool {
        let visits = self.visits.load(Ordering::Relaxed).wrapping_add(1);
        self.visits.store(visits, Ordering::Relaxed);
        visits & self.visit_mask.load(Ordering::Relaxed) == 0
    }

    /// Notes that a thief was hungry while this site inlined, for the
    /// window's decision.
    pub(crate) fn note_hunger(&self) {
        bump(&self.hunger_spawns);
        self.pending_hungry.store(true, Ordering::Relaxed);
    }

    /// Adds a sample of `elapsed_ns`; whether it is time to fold.
    pub(crate) fn add_sample(&self, elapsed_ns: f64, hungry: bool, undecided: bool) -> bool {
        let samples = self.pending_samples.load(Ordering::Relaxed) + 1;
        self.pending_samples.store(samples, Ordering::Relaxed);
        let ns = self.pending_ns.load(Ordering::Relaxed) + elapsed_ns.max(0.0) as u64;
        self.pending_ns.store(ns, Ordering::Relaxed);
        let log2 =
            f64::from_bits(self.pending_log2.load(Ordering::Relaxed)) + elapsed_ns.max(1.0).log2();
        self.pending_log2.store(log2.to_bits(), Ordering::Relaxed);
        if hungry {
            self.pending_hungry.store(true, Ordering::Relaxed);
        }
        samples >= FOLD_SAMPLES || undecided
    }
}

/// The state of a site's search, under the shared site's lock.
struct SearchState {
    search: SiteSearch,
    window_samples: u32,
    /// Sum of `log2` of the window's samples.
    window_log2: f64,
    window_hungry: bool,
    /// Sum of `log2` of all samples.
    total_log2: f64,
}

/// One runtime's view of one site: its decision, published for the workers
/// and the reports, and the search behind it.
pub(crate) struct SharedSite {
    state: SpinLock<Option<SearchState>>,
    /// Bumped (Release) at every publication; 0 until the site is seeded.
    pub(crate) generation: AtomicU32,
    pub(crate) inline: AtomicBool,
    pub(crate) sample_shift: AtomicU32,
    pub(crate) check_shift: AtomicU32,
    /// Whether a first window has completed.
    pub(crate) decided: AtomicBool,
    /// Totals for reports.
    pub(crate) samples: AtomicU64,
    pub(crate) sample_ns: AtomicU64,
    /// The geometric mean of all samples (`f64` bits): what decides.
    pub(crate) typical_ns_bits: AtomicU64,
    /// Algorithm 2's threshold, in spawn overheads (`f64` bits).
    pub(crate) threshold_bits: AtomicU64,
    pub(crate) frozen: AtomicBool,
    pub(crate) mode_changes: AtomicU32,
}

impl Default for SharedSite {
    fn default() -> Self {
        SharedSite {
            state: SpinLock::new(None),
            generation: AtomicU32::new(0),
            inline: AtomicBool::new(false),
            sample_shift: AtomicU32::new(0),
            check_shift: AtomicU32::new(0),
            decided: AtomicBool::new(false),
            samples: AtomicU64::new(0),
            sample_ns: AtomicU64::new(0),
            typical_ns_bits: AtomicU64::new(0),
            threshold_bits: AtomicU64::new(0),
            frozen: AtomicBool::new(false),
            mode_changes: AtomicU32::new(0),
        }
    }
}

impl SharedSite {
    /// Seeds the site under `policy` if nobody has: from its static effort
    /// (in effort units, asked for only then), converted to spawn overheads.
    pub(crate) fn seed(
        &self,
        policy: Inlining,
        calibration: Calibration,
        static_effort: impl FnOnce() -> Option<u64>,
    ) {
        if self.generation.load(Ordering::Acquire) != 0 {
            return;
        }
        let mut state = self.state.lock();
        if state.is_some() {
            return;
        }
        let static_effort = static_effort();
        let static_overheads = static_effort
            .map(|effort| effort as f64 * policy::EFFORT_UNIT_NS / calibration.spawn_overhead_ns);
        let search = SiteSearch::seed(policy, static_overheads);
        let inline = search.mode == Mode::Inline;
        *state = Some(SearchState {
            search,
            window_samples: 0,
            window_log2: 0.0,
            window_hungry: false,
            total_log2: 0.0,
        });
        self.threshold_bits.store(
            (policy::ADAPTIVE_START_THRESHOLD as f64).to_bits(),
            Ordering::Relaxed,
        );
        self.publish(inline, policy::FIRST_SAMPLE_SHIFT, 0);
    }

    fn publish(&self, inline: bool, sample_shift: u32, check_shift: u32) {
        self.inline.store(inline, Ordering::Relaxed);
        self.sample_shift.store(sample_shift, Ordering::Relaxed);
        self.check_shift.store(check_shift, Ordering::Relaxed);
        // Release: a worker that sees the new generation (Acquire) sees the
        // fields above.
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Folds `local`'s pending samples in, if the lock is free; runs the
    /// policy when a window completes.
    pub(crate) fn fold(&self, local: &LocalSite, policy: Inlining, calibration: Calibration) {
        let Some(mut guard) = self.state.try_lock() else {
            return;
        };
        let Some(state) = guard.as_mut() else {
            return;
        };
        let samples = local.pending_samples.load(Ordering::Relaxed);
        let ns = local.pending_ns.load(Ordering::Relaxed);
        let log2 = f64::from_bits(local.pending_log2.load(Ordering::Relaxed));
        state.window_samples += samples;
        state.window_log2 += log2;
        state.total_log2 += log2;
        state.window_hungry |= local.pending_hungry.load(Ordering::Relaxed);
        local.pending_samples.store(0, Ordering::Relaxed);
        local.pending_ns.store(0, Ordering::Relaxed);
        local.pending_log2.store(0f64.to_bits(), Ordering::Relaxed);
        local.pending_hungry.store(false, Ordering::Relaxed);
        let total = self.samples.load(Ordering::Relaxed) + samples as u64;
        self.samples.store(total, Ordering::Relaxed);
        self.sample_ns.fetch_add(ns, Ordering::Relaxed);
        self.typical_ns_bits.store(
            (state.total_log2 / total.max(1) as f64).exp2().to_bits(),
            Ordering::Relaxed,
        );
        if state.window_samples < SiteSearch::window_len(policy) {
            return;
        }
        // The window's geometric mean decides (see `policy::Window`); the
        // arithmetic mean of all samples so far says whether the site holds
        // work worth a thief (over all samples: in a heavy-tailed site most
        // windows hold none of the rare large tasks).
        let samples = state.window_samples as f64;
        let typical_ns = (state.window_log2 / samples).exp2();
        let mean_ns = self.sample_ns.load(Ordering::Relaxed) as f64 / total.max(1) as f64;
        let window = Window {
            typical: typical_ns / calibration.spawn_overhead_ns,
            mean: mean_ns / calibration.spawn_overhead_ns,
            hungry: state.window_hungry,
        };
        let mode = state.search.end_window(policy, window);
        state.window_samples = 0;
        state.window_log2 = 0.0;
        state.window_hungry = false;
        self.threshold_bits
            .store(state.search.threshold.to_bits(), Ordering::Relaxed);
        self.frozen.store(state.search.frozen, Ordering::Relaxed);
        self.mode_changes
            .store(state.search.mode_changes, Ordering::Relaxed);
        self.decided.store(true, Ordering::Relaxed);
        let mut sample_shift = policy::sample_shift(typical_ns, calibration.clock_ns);
        if state.search.frozen {
            // Converged: watch the site less closely.
            sample_shift = (sample_shift + 2).min(policy::MAX_SAMPLE_SHIFT);
        }
        let check_shift = policy::check_shift(typical_ns, calibration.spawn_overhead_ns);
        self.publish(mode == Mode::Inline, sample_shift, check_shift);
    }
}
