//! The inlining decision of one site, as plain arithmetic: Wagle's
//! Algorithm 1 (fixed band) and Algorithm 2 (a threshold searched at run
//! time, frozen when converged), seeding from the static effort, and the
//! sampling and hunger-check periods. No atomics and no clock here: the
//! caller (`site.rs`) feeds windows of samples in and publishes what comes
//! out, so every rule is unit-tested below on made-up numbers.
//!
//! All durations are in **spawn overheads** (the calibrated cost of one
//! deferred task, `calibrate.rs`), so that the constants hold on any host.

use crate::params::Inlining;

/// Where Algorithm 2's threshold starts, in spawn overheads.
pub const ADAPTIVE_START_THRESHOLD: u32 = 8;
/// Algorithm 2's threshold stays within `MIN_THRESHOLD ..= MAX_THRESHOLD`.
/// It never drops below where it starts: a task shorter than 6 spawn
/// overheads (the band's lower edge there) is never worth handing to a
/// thief on its own — a steal costs more than a spawn — and an inlined
/// site still feeds hungry thieves through its checks, which publish the
/// oldest pending work instead.
const MIN_THRESHOLD: u32 = ADAPTIVE_START_THRESHOLD;
const MAX_THRESHOLD: u32 = 1024;
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
/// waits at most for an inlined site to hand out work; about 17 µs with the
/// 17 ns overhead of the development VM). Long enough that a job of a few
/// microseconds is not shared at all — a steal, a wake-up and the joiner's
/// wait for the thief cost more than that — and short against any run a
/// second worker can speed up (chili's heartbeat is 100 µs).
pub const HEARTBEAT_OVERHEADS: f64 = 1024.0;
/// Sampling keeps the clock reads (two per sample) below 1/`SAMPLE_BUDGET`
/// of a site's time.
const SAMPLE_BUDGET: f64 = 64.0;
/// The sampling period before a site has data: every 2^2-th execution.
pub(crate) const FIRST_SAMPLE_SHIFT: u32 = 2;
/// The longest sampling period: every 2^16-th execution.
const MAX_SAMPLE_SHIFT: u32 = 16;
/// The longest hunger-check period: every 2^14-th execution.
const MAX_CHECK_SHIFT: u32 = 14;
/// One effort unit of the analyzer (one built-in operation) is taken as
/// this many nanoseconds when a site is seeded from its static effort.
pub(crate) const EFFORT_UNIT_NS: f64 = 1.0;

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
            _ => threshold * 0.75,
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

    /// Ends a window whose samples averaged `mean` spawn overheads, during
    /// which workers were (`hungry`) or were not looking for work; returns
    /// the mode for the next window.
    pub(crate) fn end_window(&mut self, policy: Inlining, mean: f64, hungry: bool) -> Mode {
        self.windows += 1;
        let next = match policy {
            Inlining::Never => Mode::Spawn,
            Inlining::Baseline { lower, upper, .. } => {
                band(self.mode, mean, lower as f64, upper as f64)
            }
            _ => {
                if !self.frozen {
                    self.search(mean, hungry);
                }
                band(
                    self.mode,
                    mean,
                    self.threshold * 0.75,
                    self.threshold * 1.25,
                )
            }
        };
        if next != self.mode {
            self.mode_changes += 1;
        }
        self.mode = next;
        next
    }

    /// One step of Algorithm 2's threshold search (see `Inlining::Adaptive`).
    fn search(&mut self, mean: f64, hungry: bool) {
        let direction: i8 = match self.mode {
            // Inlining starved someone: inline less.
            Mode::Inline if hungry && self.threshold > MIN_THRESHOLD as f64 => -1,
            // Spawning fed nobody: inline more, if the largest threshold
            // could change this site's decision at all.
            Mode::Spawn
                if !hungry
                    && self.threshold < MAX_THRESHOLD as f64
                    && mean < MAX_THRESHOLD as f64 * 0.75 =>
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
        assert_eq!(site.end_window(policy, 10.0, false), Mode::Spawn);
        assert_eq!(site.end_window(policy, 3.0, false), Mode::Inline);
        assert_eq!(site.end_window(policy, 10.0, false), Mode::Inline);
        assert_eq!(site.end_window(policy, 16.5, true), Mode::Spawn);
        assert_eq!(site.mode_changes, 2);
        assert_eq!(SiteSearch::window_len(policy), 5);
    }

    #[test]
    fn a_fixed_threshold_has_no_band() {
        let policy = Inlining::fixed(32);
        let mut site = SiteSearch::seed(policy, None);
        assert_eq!(site.end_window(policy, 31.0, false), Mode::Inline);
        assert_eq!(site.end_window(policy, 33.0, false), Mode::Spawn);
    }

    #[test]
    fn adaptive_raises_the_threshold_while_nobody_is_hungry() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        // 20 overheads: spawning at threshold 8; nobody hungry → 16 → 32,
        // where 20 < 24 inlines.
        assert_eq!(site.end_window(policy, 20.0, false), Mode::Spawn);
        assert_eq!(site.threshold, 16.0);
        assert_eq!(site.end_window(policy, 20.0, false), Mode::Inline);
        assert_eq!(site.threshold, 32.0);
        // Inlined and nobody hungry: stays, and freezes after four windows.
        for _ in 0..4 {
            assert_eq!(site.end_window(policy, 20.0, false), Mode::Inline);
        }
        assert!(site.frozen);
        assert_eq!(site.threshold, 32.0);
    }

    #[test]
    fn adaptive_lowers_the_threshold_when_inlining_starves_thieves() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        // Nobody hungry: 8 → 16 → 32, where 20 < 24 inlines.
        site.end_window(policy, 20.0, false);
        assert_eq!(site.end_window(policy, 20.0, false), Mode::Inline);
        assert_eq!(site.threshold, 32.0);
        // Hungry while inlining: 32 → 16 (20 is inside 12 ..= 20: keeps
        // inlining) → 8 (20 > 10: spawns).
        assert_eq!(site.end_window(policy, 20.0, true), Mode::Inline);
        assert_eq!(site.threshold, 16.0);
        assert_eq!(site.end_window(policy, 20.0, true), Mode::Spawn);
        assert_eq!(site.threshold, 8.0);
    }

    #[test]
    fn tiny_tasks_stay_inlined_however_hungry_the_workers() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, Some(0.1));
        assert_eq!(site.mode, Mode::Inline);
        for _ in 0..10 {
            assert_eq!(site.end_window(policy, 2.0, true), Mode::Inline);
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
            site.end_window(policy, 11.0, hungry);
            if site.frozen {
                break;
            }
        }
        assert!(site.frozen, "{site:?}");
        assert_eq!(site.threshold, 8.0, "the lower of the two");
        site.end_window(policy, 11.0, false);
        assert_eq!(site.threshold, 8.0);
    }

    #[test]
    fn huge_tasks_do_not_move_the_threshold() {
        let policy = Inlining::Adaptive;
        let mut site = SiteSearch::seed(policy, None);
        for _ in 0..4 {
            assert_eq!(site.end_window(policy, 1e6, false), Mode::Spawn);
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
