//! The sweep over time: the step functions `running(t)` and `ready(t)`, the
//! whole-run breakdown integrated from them, and a [`Timeline`] answering
//! interval queries afterwards.
//!
//! # Why the sweep is exact
//! Instant `t` stands for the nanosecond `[t, t + 1)`. A strand runs at `t`
//! when `start <= t < end` and is ready-but-not-started when
//! `ready <= t < start`. Hence, with `S(t)`, `E(t)` and `A(t)` the numbers of
//! strand starts, ends and ready times `<= t`,
//! `running(t) = S(t) - E(t)` and `ready(t) = A(t) - S(t)` (validation
//! guarantees `ready <= start` for every strand, so each strand adds exactly
//! one on `[ready, start)`). These counts change only at event times, so
//! between two consecutive event times every quantity of the breakdown is
//! constant and its integral is `value × length`, in integers.
//!
//! Starts and ends come from each worker's strands in time order (kept by the
//! [`Dag`]), merged across workers with a heap of one pending event per
//! worker; ready times are sorted once. The sweep is O(n log n) for the sort
//! of ready times plus O(n log workers) for the merge.
//!
//! Per-worker delay needs `∫ delay(t) / idle(t)` over each worker's idle
//! time. The sweep keeps the running integral `F(t) = ∫₀ᵗ delay / idle` (f64)
//! and, per worker, the value of `F` when it last became idle; when the
//! worker starts a strand (or the run ends) it adds the difference. That is
//! O(1) per event instead of O(workers) per segment.
//!
//! The [`Timeline`] records, at each time where one of the rates changes, the
//! cumulative integrals of `[running(t) == workers]` and of `nowork(t)`; an
//! integral over `[a, b]` is the difference of two cumulative values, each
//! found by binary search and interpolated exactly within its segment.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::model::Dag;

/// The whole-run breakdown: `work + delay + nowork == elapsed × workers`.
///
/// At each instant, `idle = workers - running` workers are idle; of them,
/// `delay = min(idle, ready)` could have run a ready strand (scheduler
/// delay) and `nowork = idle - delay` had nothing to run.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RunBreakdown {
    /// Worker-nanoseconds spent running strands.
    pub work: u64,
    /// Worker-nanoseconds idle while some strand was ready and not started.
    pub delay: u64,
    /// Worker-nanoseconds idle with no strand ready to run.
    pub nowork: u64,
}

impl RunBreakdown {
    /// `work + delay + nowork` (equal to elapsed × workers).
    pub fn total(&self) -> u64 {
        self.work + self.delay + self.nowork
    }
}

/// One worker's share of the run breakdown.
///
/// `work` is exact. An idle worker accrues, at each instant `t`,
/// `delay(t) / idle(t)` of delay and `nowork(t) / idle(t)` of nowork; these
/// shares are integrated in f64 (relative rounding error about 1e-15 of the
/// elapsed time), and `nowork` is computed as the worker's exact idle time
/// minus its `delay`, so `work + delay + nowork == elapsed` up to rounding.
/// Summed over workers they equal [`RunBreakdown::delay`] and
/// [`RunBreakdown::nowork`] up to the same rounding.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct WorkerBreakdown {
    /// Nanoseconds this worker spent running strands.
    pub work: u64,
    /// This worker's share of the scheduler delay (ns).
    pub delay: f64,
    /// This worker's share of the nowork time (ns).
    pub nowork: f64,
}

/// Interval queries on the step functions of a run.
///
/// Records, at each time where a rate changes, the cumulative integrals of
/// `[running(t) == workers]` and of `nowork(t)`; the integral over `[a, b]`
/// is the difference of two cumulative values, each found by binary search
/// and extended exactly (in integers) within its constant segment.
///
/// Holds 29 bytes per change of rate (at most three per strand, usually
/// far fewer).
#[derive(Clone, Debug)]
pub struct Timeline {
    /// Times where a rate changes, from 0; the last entry is the run's end.
    times: Vec<u64>,
    /// Whether all workers are busy on `[times[i], times[i + 1])`.
    all_busy: Vec<bool>,
    /// `nowork(t)` on `[times[i], times[i + 1])`.
    nowork: Vec<u32>,
    /// `∫₀^times[i] [all busy]`.
    all_busy_before: Vec<u64>,
    /// `∫₀^times[i] nowork`.
    nowork_before: Vec<u64>,
}

impl Timeline {
    /// Sweeps the run once: O(n log n) for n strands.
    pub fn new(dag: &Dag) -> Timeline {
        sweep(dag, dag.ready_times()).timeline
    }

    /// The end of the run (ns).
    pub fn end(&self) -> u64 {
        *self.times.last().expect("a timeline has at least one time")
    }

    /// How long, within `[a, b]`, every worker was running a strand (ns).
    /// Times past the end of the run count as not busy.
    pub fn all_busy_within(&self, a: u64, b: u64) -> u64 {
        self.all_busy_until(b) - self.all_busy_until(a)
    }

    /// `∫ nowork(t)` over `[a, b]` (worker-ns). Times past the end of the run
    /// count as no nowork.
    pub fn nowork_within(&self, a: u64, b: u64) -> u64 {
        self.nowork_until(b) - self.nowork_until(a)
    }

    /// The maximal runs of `[a, b]` on which "all workers busy" is constant,
    /// in time order, as `(from, to, all_busy)`.
    pub fn busy_runs(&self, a: u64, b: u64) -> Vec<(u64, u64, bool)> {
        let mut runs: Vec<(u64, u64, bool)> = Vec::new();
        let mut t = a;
        while t < b {
            let i = self.segment_of(t);
            let busy = i < self.all_busy.len() && self.all_busy[i];
            let until = self.times.get(i + 1).copied().unwrap_or(u64::MAX).min(b);
            match runs.last_mut() {
                Some(last) if last.2 == busy => last.1 = until,
                _ => runs.push((t, until, busy)),
            }
            t = until;
        }
        runs
    }

    /// Index of the segment containing `t`: the last `i` with `times[i] <= t`.
    fn segment_of(&self, t: u64) -> usize {
        self.times.partition_point(|&x| x <= t) - 1
    }

    fn all_busy_until(&self, t: u64) -> u64 {
        let i = self.segment_of(t);
        let rate = u64::from(i < self.all_busy.len() && self.all_busy[i]);
        self.all_busy_before[i] + rate * (t - self.times[i])
    }

    fn nowork_until(&self, t: u64) -> u64 {
        let i = self.segment_of(t);
        let rate = self.nowork.get(i).map_or(0, |&n| u64::from(n));
        self.nowork_before[i] + rate * (t - self.times[i])
    }

    /// Appends the segment `[from, from + len)` with the given rates, merging
    /// it into the previous one when the rates are the same.
    fn push(&mut self, from: u64, len: u64, all_busy: bool, nowork: u32) {
        let same = self.all_busy.last() == Some(&all_busy) && self.nowork.last() == Some(&nowork);
        if !same {
            self.all_busy.push(all_busy);
            self.nowork.push(nowork);
        } else {
            // Drop the breakpoint at `from`: the previous segment continues.
            self.times.pop();
            self.all_busy_before.pop();
            self.nowork_before.pop();
        }
        let (busy_before, nowork_before) = (
            *self.all_busy_before.last().expect("non-empty"),
            *self.nowork_before.last().expect("non-empty"),
        );
        let start = *self.times.last().expect("non-empty");
        let span = from + len - start;
        self.times.push(from + len);
        self.all_busy_before
            .push(busy_before + u64::from(all_busy) * span);
        self.nowork_before
            .push(nowork_before + u64::from(nowork) * span);
    }
}

/// Everything one sweep computes.
pub(crate) struct Sweep {
    pub(crate) timeline: Timeline,
    pub(crate) run: RunBreakdown,
    pub(crate) per_worker: Vec<WorkerBreakdown>,
}

/// One worker's position in the merge of start and end events.
#[derive(Clone, Copy, Default)]
struct WorkerCursor {
    /// Index (within the worker's strands) of its current or next strand.
    next: usize,
    /// Whether that strand has started (its end is the pending event).
    running: bool,
}

/// The merge of a run's events in time order: every worker's strand starts
/// and ends (each worker's strands are in time order in the [`Dag`]; a heap
/// holds one pending event per worker) and the sorted ready times. Between
/// two event times every count is constant. Shared by the analysis's sweep
/// and the parallelism profile's.
pub(crate) struct EventMerge<'a> {
    dag: &'a Dag,
    cursors: Vec<WorkerCursor>,
    /// The pending event of each worker: (time, worker).
    pending: BinaryHeap<Reverse<(u64, u32)>>,
    sorted_ready: Vec<u64>,
    started: u64,
    ended: u64,
    became_ready: usize,
    now: u64,
}

impl<'a> EventMerge<'a> {
    /// The merge at time 0, before any event is applied; `ready[s]` is
    /// strand `s`'s ready time (the vector is sorted in place).
    pub(crate) fn new(dag: &'a Dag, mut ready: Vec<u64>) -> EventMerge<'a> {
        ready.sort_unstable();
        let mut merge = EventMerge {
            dag,
            cursors: vec![WorkerCursor::default(); dag.workers() as usize],
            pending: BinaryHeap::new(),
            sorted_ready: ready,
            started: 0,
            ended: 0,
            became_ready: 0,
            now: 0,
        };
        for w in 0..dag.workers() {
            merge.push_pending(w);
        }
        merge
    }

    fn push_pending(&mut self, worker: u32) {
        let cursor = self.cursors[worker as usize];
        let Some(&id) = self.dag.worker_strand_slice(worker).get(cursor.next) else {
            return;
        };
        let s = &self.dag.strands()[id as usize];
        let t = if cursor.running { s.end } else { s.start };
        self.pending.push(Reverse((t, worker)));
    }

    /// Applies every start, end and ready time at [`now`](Self::now),
    /// calling `on_change(worker, started)` for each start (`true`) and end
    /// (`false`).
    pub(crate) fn apply(&mut self, mut on_change: impl FnMut(u32, bool)) {
        while let Some(&Reverse((t, w))) = self.pending.peek() {
            if t != self.now {
                break;
            }
            self.pending.pop();
            let cursor = &mut self.cursors[w as usize];
            if cursor.running {
                self.ended += 1;
                cursor.running = false;
                cursor.next += 1;
            } else {
                self.started += 1;
                cursor.running = true;
            }
            on_change(w, cursor.running);
            self.push_pending(w);
        }
        while self.sorted_ready.get(self.became_ready) == Some(&self.now) {
            self.became_ready += 1;
        }
    }

    /// The current time.
    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// Strands running at `now` (after [`apply`](Self::apply)).
    pub(crate) fn running(&self) -> u64 {
        self.started - self.ended
    }

    /// Strands ready and not started at `now` (after `apply`).
    pub(crate) fn ready(&self) -> u64 {
        self.became_ready as u64 - self.started
    }

    /// The next event time after `now`, `None` once every event is applied.
    pub(crate) fn next_time(&self) -> Option<u64> {
        match (
            self.pending.peek(),
            self.sorted_ready.get(self.became_ready),
        ) {
            (Some(&Reverse((t, _))), Some(&r)) => Some(t.min(r)),
            (Some(&Reverse((t, _))), None) => Some(t),
            (None, Some(&r)) => Some(r),
            (None, None) => None,
        }
    }

    /// Moves to `next` (a [`next_time`](Self::next_time)).
    pub(crate) fn advance(&mut self, next: u64) {
        self.now = next;
    }
}

/// Sweeps the run; `ready[s]` is strand `s`'s ready time (the vector is
/// sorted in place, as the merge's).
pub(crate) fn sweep(dag: &Dag, ready: Vec<u64>) -> Sweep {
    let workers = dag.workers();
    let mut merge = EventMerge::new(dag, ready);
    // Per worker, `F` (∫ delay / idle) when it last became idle.
    let mut idle_since_f = vec![0.0f64; workers as usize];
    let mut per_worker = vec![WorkerBreakdown::default(); workers as usize];
    let mut timeline = Timeline {
        times: vec![0],
        all_busy: Vec::new(),
        nowork: Vec::new(),
        all_busy_before: vec![0],
        nowork_before: vec![0],
    };
    let mut run = RunBreakdown::default();
    let mut f_delay_per_idle = 0.0f64;
    loop {
        merge.apply(|w, started| {
            if started {
                per_worker[w as usize].delay += f_delay_per_idle - idle_since_f[w as usize];
            } else {
                idle_since_f[w as usize] = f_delay_per_idle;
            }
        });
        let Some(next) = merge.next_time() else {
            break;
        };
        // The segment [now, next): every count is constant on it.
        let now = merge.now();
        let len = next - now;
        let running = merge.running();
        let idle = u64::from(workers) - running;
        let delay = idle.min(merge.ready());
        let nowork = idle - delay;
        run.work += running * len;
        run.delay += delay * len;
        run.nowork += nowork * len;
        if idle > 0 {
            f_delay_per_idle += (delay * len) as f64 / idle as f64;
        }
        timeline.push(now, len, idle == 0, nowork as u32);
        merge.advance(next);
    }
    let elapsed = merge.now();
    debug_assert_eq!(elapsed, dag.end_time());
    for (w, since) in idle_since_f.iter().enumerate() {
        let share = &mut per_worker[w];
        share.delay += f_delay_per_idle - since;
        share.work = dag
            .worker_strands(w as u32)
            .map(|id| dag.strand(id).duration())
            .sum();
        share.nowork = (elapsed - share.work) as f64 - share.delay;
    }
    Sweep {
        timeline,
        run,
        per_worker,
    }
}
