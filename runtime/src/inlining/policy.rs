//! The inlining decision of one site, as plain arithmetic: Wagle's
//! Algorithm 1 (fixed band) and Algorithm 2 (a threshold searched at run
//! time, frozen when converged), seeding from the static effort, and the
//! sampling and hunger-check periods. No atomics and no clock here: the
//! caller (`site_state.rs`) feeds windows of samples in and publishes what comes
//! out, so every rule is unit-tested below on made-up numbers.
//!
//! All durations are in **spawn overheads** (the calibrated cost of one
//! deferred task, `calibrate.rs`), so that the constants hold on any host.

use crate::params::Inlining;

/// Where Algorithm 2's threshold starts, in spawn overheads.
pub(crate) const ADAPTIVE_START_THRESHOLD: u32 = 8;
/// Algorithm 2's threshold stays within `MIN_THRESHOLD ..= MAX_THRESHOLD`.
const MIN_THRESHOLD: u32 = 1;
const MAX_THRESHOLD: u32 = 1024;
/// Algorithm 2's hysteresis band around its threshold: a site inlines while
/// its typical task is below `BAND_LOWER` × the threshold, spawns above
/// `BAND_UPPER` × the threshold, and keeps its mode in between.
const BAND_LOWER: f64 = 0.75;
const BAND_UPPER: f64 = 1.25;
/// Hungry thieves lower an inlined site's threshold only while the site's
/// tasks average at least this many spawn overheads (a steal, a wake-up and
/// the joiner's wait cost about that much):
/// a site whose tasks are all tiny is never worth a thief task by task —
/// its hunger checks hand out the oldest pending work instead — while a
/// site whose typical task is tiny but whose mean is large (an unbalanced
/// search, where a few tasks hold most of the work) is.
pub(crate) const STEAL_WORTH_OVERHEADS: f64 = 128.0;
/// Samples per Algorithm 2 window.
pub(crate) const ADAPTIVE_WINDOW: u32 = 8;
/// Algorithm 2 freezes after this many reversals of its search direction...
const FREEZE_REVERSALS: u32 = 3;
/// ... or this many windows in a row without a move ...
const FREEZE_STILL_WINDOWS: u32 = 4;
/// ... or after this many windows at all.
const FREEZE_WINDOWS: u32 = 64;

/// An inlined site checks its worker's `hungry` flag about once per this
/// many spawn overheads of its own work (the "heartbeat": how long a thief
/// waits at most for an inlined site to hand out work; tens of microseconds
/// with a spawn overhead of tens of nanoseconds). Long enough that a job of a few
/// microseconds is not shared at all — a steal, a wake-up and the joiner's
/// wait for the thief cost more than that — and short against any run a
/// second worker can speed up (chili's heartbeat is 100 µs).
pub(crate) const HEARTBEAT_OVERHEADS: f64 = 1024.0;
/// Sampling keeps the clock reads (two per sample) below 1/`SAMPLE_BUDGET`
/// of a site's time.
const SAMPLE_BUDGET: f64 = 64.0;
/// The sampling period before a site has data: every 2^2-th execution.
pub(crate) const FIRST_SAMPLE_SHIFT: u32 = 2;
/// The longest sampling period: every 2^16-th execution.
pub(crate) const MAX_SAMPLE_SHIFT: u32 = 16;
/// The longest hunger-check period: every 2^14-th execution.
const MAX_CHECK_SHIFT: u32 = 14;
/// One effort unit of the analyzer (one built-in operation) is taken as
/// this many nanoseconds when a site is seeded from its static effort.
pub(crate) const EFFORT_UNIT_NS: f64 = 1.0;

/// One window of samples, in spawn overheads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// The geometric mean: what the thresholds compare (a recursive site's
    /// samples include their subtasks, and the arithmetic mean is decided
    /// by the rare outermost one).
    pub(crate) typical: f64,
    /// The arithmetic mean of every sample so far: whether the site holds
    /// work worth a thief.
    pub(crate) mean: f64,
    /// Whether workers were looking for work during the window.
    pub(crate) hungry: bool,
}

/// What a site does with its tasks now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Hand them to the scheduler.
    Spawn,
    /// Run them as plain calls (checking for hungry thieves now and then).
    Inline,
}

/// The search state of one site under one policy.
#[derive(Clone, Debug)]
pub(crate) struct SiteSearch {
    pub(crate) mode: Mode,
    /// Algorithm 2's threshold (Algorithm 1's band is in the policy).
    pub(crate) threshold: f64,
    pub(crate) frozen: bool,
    last_direction: i8,
    previous_threshold: f64,
    reversals: u32,
    still_windows: u32,
    pub(crate) windows: u32,
    pub(crate) mode_changes: u32,
}

impl SiteSearch {
    /// A site's starting state: `static_overheads` is its static effort
    /// converted to spawn overheads, if the analyzer described it. A site
    /// with a static effort below the inline bound starts inlined; one
    /// without starts spawning (the scheduler's default) until measured.
    pub(crate) fn seed(policy: Inlining, static_overheads: Option<f64>) -> SiteSearch {
        let threshold = ADAPTIVE_START_THRESHOLD as f64;
        let inline_below = match policy {
            Inlining::Baseline { lower, .. } => lower as f64,
            _ => threshold * BAND_LOWER,
        };
        let mode = match static_overheads {
            Some(cost) if cost < inline_below && policy != Inlining::Never => Mode::Inline,
            _ => Mode::Spawn,
        };
        SiteSearch {
            mode,
            threshold,
            frozen: false,
            last_direction: 0,
            previous_threshold: threshold,
            reversals: 0,
            still_windows: 0,
            windows: 0,
            mode_changes: 0,
        }
    }

    /// Samples per decision window under `policy`.
    pub(crate) fn window_len(policy: Inlining) -> u32 {
        match policy {
            Inlining::Baseline { count, .. } => count.max(1),
            _ => ADAPTIVE_WINDOW,
        }
    }

    /// Ends a window; returns the mode for the next one.
    pub(crate) fn end_window(&mut self, policy: Inlining, window: Window) -> Mode {
        self.windows += 1;
        let typical = window.typical;
        let next = match policy {
            Inlining::Never => Mode::Spawn,
            Inlining::Baseline { lower, upper, .. } => {
                band(self.mode, typical, lower as f64, upper as f64)
            }
            _ => {
                if self.frozen && self.starves_thieves(window) {
                    // Frozen for want of moves, but now inlining starves
                    // thieves of work worth a steal (an unbalanced site's
                    // large tasks finish, and are sampled, last): search
                    // again. A search frozen by oscillation stays frozen.
                    self.frozen = self.reversals >= FREEZE_REVERSALS;
                    self.still_windows = 0;
                }
                if !self.frozen {
                    self.search(window);
                }
                band(
                    self.mode,
                    typical,
                    self.threshold * BAND_LOWER,
                    self.threshold * BAND_UPPER,
                )
            }
        };
        if next != self.mode {
            self.mode_changes += 1;
        }
        self.mode = next;
        next
    }

    /// Whether the site inlines while thieves starve and it holds work
    /// worth a steal: Algorithm 2 then lowers the threshold.
    fn starves_thieves(&self, window: Window) -> bool {
        self.mode == Mode::Inline
            && window.hungry
            && window.mean >= STEAL_WORTH_OVERHEADS
            && self.threshold > MIN_THRESHOLD as f64
    }

    /// One step of Algorithm 2's threshold search (see `Inlining::Adaptive`).
    fn search(&mut self, window: Window) {
        let direction: i8 = match self.mode {
            // Inlining starved someone, and this site has work worth a
            // thief: inline less.
            Mode::Inline if self.starves_thieves(window) => -1,
            // Spawning fed nobody: inline more, if the largest threshold
            // could change this site's decision at all.
            Mode::Spawn
                if !window.hungry
                    && self.threshold < MAX_THRESHOLD as f64
                    && window.typical < MAX_THRESHOLD as f64 * BAND_LOWER =>
            {
                1
            }
            _ => 0,
        };
        if direction == 0 {
            self.still_windows += 1;
        } else {
            self.still_windows = 0;
            if self.last_direction != 0 && direction != self.last_direction {
                self.reversals += 1;
            }
            self.last_direction = direction;
            self.previous_threshold = self.threshold;
            self.threshold = if direction > 0 {
                (self.threshold * 2.0).min(MAX_THRESHOLD as f64)
            } else {
                (self.threshold / 2.0).max(MIN_THRESHOLD as f64)
            };
        }
        if self.reversals >= FREEZE_REVERSALS {
            // Oscillating between two values: keep the lower one, which
            // inlines less and so never costs parallelism.
            self.threshold = self.threshold.min(self.previous_threshold);
            self.frozen = true;
        } else if self.still_windows >= FREEZE_STILL_WINDOWS || self.windows >= FREEZE_WINDOWS {
            self.frozen = true;
        }
    }
}

/// The hysteresis rule: inline below `lower`, spawn above `upper`, keep the
/// current mode in between.
fn band(current: Mode, mean: f64, lower: f64, upper: f64) -> Mode {
    if mean < lower {
        Mode::Inline
    } else if mean > upper {
        Mode::Spawn
    } else {
        current
    }
}

/// Sample every 2^k-th execution, with the smallest k that keeps two clock
/// reads of `clock_ns` under 1/`SAMPLE_BUDGET` of the site's time, for
/// tasks of `mean_ns` (a clock read costs about 20 ns; a 2 ns task is then
/// timed once in 2^11 executions, a 1 µs task every third).
pub(crate) fn sample_shift(mean_ns: f64, clock_ns: f64) -> u32 {
    shift_for(
        2.0 * clock_ns * SAMPLE_BUDGET / mean_ns.max(0.01),
        MAX_SAMPLE_SHIFT,
    )
}

/// An inlined site checks for hungry thieves every 2^j-th execution, with
/// 2^j tasks of `mean_ns` about [`HEARTBEAT_OVERHEADS`] spawn overheads.
pub(crate) fn check_shift(mean_ns: f64, overhead_ns: f64) -> u32 {
    let executions = HEARTBEAT_OVERHEADS * overhead_ns / mean_ns.max(0.01);
    // Round down: check at least as often as the heartbeat asks.
    let shift = shift_for(executions, MAX_CHECK_SHIFT);
    if (1u64 << shift) as f64 > executions {
        shift.saturating_sub(1)
    } else {
        shift
    }
}

/// The smallest k ≤ `max` with 2^k ≥ `executions`.
fn shift_for(executions: f64, max: u32) -> u32 {
    let mut shift = 0;
    while shift < max && ((1u64 << shift) as f64) < executions {
        shift += 1;
    }
    shift
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of homogeneous tasks of `overheads`.
    fn flat(overheads: f64, hungry: bool) -> Window {
        Window {
            typical: overheads,
            mean: overheads,
            hungry,
        }
    }

    #[test]
    fn seeding_follows_static_effort() {
        let adaptive = Inlining::Adaptive;
        assert_eq!(SiteSearch::seed(adaptive, Some(0.2)).mode, Mode::Inline);
        assert_eq!(SiteSearch::seed(adaptive, Some(100.0)).mode, Mode::Spawn);
        assert_eq!(SiteSearch::seed(adaptive, None).mode, Mode::Spawn);
        let baseline = Inlining::BASELINE;
        assert_eq!(SiteSearch::seed(baseline, Some(3.9)).mode, Mode::Inline);
        assert_eq!(SiteSearch::seed(baseline, Some(4.0)).mode, Mode::Spawn);
        assert_eq!(
            SiteSearch::seed(Inlining::Never, Some(0.0)).mode,
            Mode::Spawn
        );
    }

    #[test]
    fn baseline_keeps_its_mode_inside_the_band() {
        let policy = Inlining::BASELINE; // 4 ..= 16
        let mut site = SiteSearch::seed(policy, None);
        assert_eq!(site.end_window(policy, flat(10.0, false)), Mode::Spawn);
        assert_eq!(site.end_window(policy, flat(3.0, false)), Mode::Inline);
        assert_eq!(site.end_window(policy, flat(10.0, false)), Mode::Inline);
        assert_eq!(site.end_window(policy, flat(16.5, true)), Mode::Spawn);
        assert_eq!(site.mode_changes, 2);
        assert_eq!(SiteSearch::window_len(policy), 5);
    }

    #[test]
    fn a_fixed_threshold_has_no_band() {
        let policy = Inlining::fixed(32);
        let mut site = SiteSearch::seed(policy, None);
        assert_eq!(site.end_window(policy, flat(31.0, false)), Mode::Inline);
        assert_eq!(site.end_window(policy, flat(33.0, false)), Mode::Spawn);
    }

    #[test]
    fn decisions_follow_the_typical_task_not_the_mean() {
        let policy = Inlining::BASELINE;
        let mut site = SiteSearch::seed(policy, None);
        let recursive = Window {
            typical: 2.0,
            mean: 500.0,
            hungry: false,
        };
        assert_eq!(site.end_window(policy, recursive), Mode::Inline);
    }

    #[test]
    fn adaptive_raises_the_threshold_while_nobody_is_hungry() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        // 20 overheads: spawning at threshold 8; nobody hungry → 16 → 32,
        // where 20 < 24 inlines.
        assert_eq!(site.end_window(policy, flat(20.0, false)), Mode::Spawn);
        assert_eq!(site.threshold, 16.0);
        assert_eq!(site.end_window(policy, flat(20.0, false)), Mode::Inline);
        assert_eq!(site.threshold, 32.0);
        // Inlined and nobody hungry: stays, and freezes after four windows.
        for _ in 0..4 {
            assert_eq!(site.end_window(policy, flat(20.0, false)), Mode::Inline);
        }
        assert!(site.frozen);
        assert_eq!(site.threshold, 32.0);
    }

    #[test]
    fn adaptive_lowers_the_threshold_when_inlining_starves_thieves() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, Some(0.1));
        assert_eq!(site.mode, Mode::Inline);
        // Typical 5 overheads, but a mean worth a thief (an unbalanced
        // search): hungry windows lower 8 → 4 (5 is inside 3 ..= 5: keeps
        // inlining) → 2 (5 > 2.5: spawns).
        let unbalanced = Window {
            typical: 5.0,
            mean: 2.0 * STEAL_WORTH_OVERHEADS,
            hungry: true,
        };
        assert_eq!(site.end_window(policy, unbalanced), Mode::Inline);
        assert_eq!(site.threshold, 4.0);
        assert_eq!(site.end_window(policy, unbalanced), Mode::Spawn);
        assert_eq!(site.threshold, 2.0);
    }

    #[test]
    fn tiny_tasks_stay_inlined_however_hungry_the_workers() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, Some(0.1));
        assert_eq!(site.mode, Mode::Inline);
        for _ in 0..10 {
            assert_eq!(site.end_window(policy, flat(2.0, true)), Mode::Inline);
        }
        assert_eq!(site.threshold, ADAPTIVE_START_THRESHOLD as f64);
        assert!(site.frozen);
    }

    #[test]
    fn adaptive_freezes_when_the_search_oscillates() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        for _ in 0..20 {
            // Hungry exactly when inlining: the search turns every time.
            let hungry = site.mode == Mode::Inline;
            let window = Window {
                typical: 11.0,
                mean: 2.0 * STEAL_WORTH_OVERHEADS,
                hungry,
            };
            site.end_window(policy, window);
            if site.frozen {
                break;
            }
        }
        assert!(site.frozen, "{site:?}");
        assert_eq!(site.threshold, 8.0, "the lower of the two");
        site.end_window(policy, flat(11.0, false));
        assert_eq!(site.threshold, 8.0);
    }

    #[test]
    fn a_still_search_thaws_when_large_tasks_turn_up() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, Some(0.1));
        // Small tasks, hungry thieves: nothing worth a steal, so the
        // search holds still and freezes.
        for _ in 0..4 {
            site.end_window(policy, flat(3.0, true));
        }
        assert!(site.frozen);
        // The large tasks finish: the mean is worth a thief now.
        let unbalanced = Window {
            typical: 3.0,
            mean: 4.0 * STEAL_WORTH_OVERHEADS,
            hungry: true,
        };
        site.end_window(policy, unbalanced);
        assert!(!site.frozen);
        assert_eq!(site.threshold, 4.0);
        assert_eq!(site.end_window(policy, unbalanced), Mode::Spawn);
        assert_eq!(site.threshold, 2.0);
    }

    #[test]
    fn huge_tasks_do_not_move_the_threshold() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        for _ in 0..4 {
            assert_eq!(site.end_window(policy, flat(1e6, false)), Mode::Spawn);
        }
        assert_eq!(site.threshold, ADAPTIVE_START_THRESHOLD as f64);
        assert!(site.frozen);
    }

    #[test]
    fn periods_follow_task_size() {
        // 2 ns tasks, 20 ns clock: 1280 executions per sample → 2^11.
        assert_eq!(sample_shift(2.0, 20.0), 11);
        assert_eq!(sample_shift(1_000_000.0, 20.0), 0);
        assert_eq!(sample_shift(0.0, 20.0), MAX_SAMPLE_SHIFT);
        // 30 ns overhead, 1024 overheads = 30.7 µs between checks; 10 ns
        // tasks → 3072 executions → every 2048th.
        assert_eq!(check_shift(10.0, 30.0), 11);
        assert_eq!(check_shift(1e9, 30.0), 0);
        assert_eq!(check_shift(0.0, 30.0), MAX_CHECK_SHIFT);
    }
}
