//! The parallelism profile of a run: the step functions `running(t)` (strands
//! running) and `ready(t)` (strands ready but not started) over `[0, T]`, and
//! their downsampling into a few equal-width buckets for plotting.
//!
//! The definitions are the module's (see [`trace`](super)): a strand runs at
//! instant `t` when `start <= t < end` and is ready at `t` when
//! `ready <= t < start`, its ready time being the latest end of its
//! predecessors (0 for a root). So `running(t) = S(t) - E(t)` and
//! `ready(t) = A(t) - S(t)` with `S`, `E` and `A` the numbers of starts, ends
//! and ready times `<= t`; the sweep is the one of `timeline.rs`: each
//! worker's strands in time order (kept by the [`Dag`]) merged across workers
//! with a heap, ready times sorted once, O(n log n).
//!
//! Consequently `∫ running(t) dt` is [`RunBreakdown::work`](super::RunBreakdown)
//! and `min(workers - running(t), ready(t))` integrates to its `delay`.
//!
//! A run may have ten million strands, hence up to thirty million change
//! points; [`ParallelismProfile::downsample`] reduces them to a fixed number
//! of buckets with exact (integer) integrals; the SVG report downsamples
//! straight from the sweep without keeping the points.

use super::model::Dag;
use super::timeline::EventMerge;

/// A change point of the profile: from `time` until the next point's time,
/// `running` strands run and `ready` strands are ready but not started.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ProfilePoint {
    /// When the values start to hold (ns since the start of the run).
    pub time: u64,
    /// Strands running: `start <= t < end` (at most the number of workers).
    pub running: u32,
    /// Strands ready but not started: `ready <= t < start`.
    pub ready: u32,
}

/// The profile averaged over one time bucket `[start, end)`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ProfileBucket {
    /// First instant of the bucket (ns).
    pub start: u64,
    /// End of the bucket, exclusive (ns); `end > start`.
    pub end: u64,
    /// `∫ running(t) dt / (end - start)` over the bucket.
    pub mean_running: f64,
    /// `∫ ready(t) dt / (end - start)` over the bucket.
    pub mean_ready: f64,
    /// The largest `running(t)` within the bucket.
    pub max_running: u32,
    /// The largest `ready(t)` within the bucket.
    pub max_ready: u32,
}

/// The parallelism profile of a run: `running(t)` and `ready(t)` as step
/// functions over `[0, T]`, `T` the end of the run.
///
/// Built by [`parallelism_profile`]. Held as change points: the first at
/// time 0, each later one where a value changes, and the last at `T` with
/// both values 0 (the run is over). 16 bytes per point, at most three points
/// per strand plus one.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParallelismProfile {
    workers: u32,
    points: Vec<ProfilePoint>,
}

/// Computes the parallelism profile of a run in O(n log n) for n strands.
///
/// Temporary memory beyond the result: 8 bytes per strand (sorted ready
/// times) plus a heap of one event per worker.
pub fn parallelism_profile(dag: &Dag) -> ParallelismProfile {
    let mut points = Vec::new();
    for_each_change(dag, |p| points.push(p));
    ParallelismProfile {
        workers: dag.workers(),
        points,
    }
}

impl ParallelismProfile {
    /// The number of workers of the run (an upper bound of `running(t)`).
    pub fn workers(&self) -> u32 {
        self.workers
    }

    /// The change points in time order: the first at 0, the last at
    /// [`end`](Self::end) with both values 0. Consecutive points differ in
    /// at least one value, except the last one, which may repeat `(0, 0)` to
    /// mark the end of the run.
    pub fn points(&self) -> &[ProfilePoint] {
        &self.points
    }

    /// The end of the run `T` (ns): the latest end of any strand.
    pub fn end(&self) -> u64 {
        self.points.last().map_or(0, |p| p.time)
    }

    /// The point whose values hold at instant `t` (the last with
    /// `time <= t`); the final `(0, 0)` point from the end of the run on.
    fn point_at(&self, t: u64) -> &ProfilePoint {
        &self.points[self.points.partition_point(|p| p.time <= t) - 1]
    }

    /// `running(t)`: strands with `start <= t < end`; 0 from the end of the
    /// run on. O(log points).
    pub fn running(&self, t: u64) -> u32 {
        self.point_at(t).running
    }

    /// `ready(t)`: strands with `ready <= t < start`; 0 from the end of the
    /// run on. O(log points).
    pub fn ready(&self, t: u64) -> u32 {
        self.point_at(t).ready
    }

    /// Consecutive pieces `[from, to)` of positive length with their values.
    fn segments(&self) -> impl Iterator<Item = (u64, u64, u32, u32)> + '_ {
        self.points
            .windows(2)
            .map(|w| (w[0].time, w[1].time, w[0].running, w[0].ready))
    }

    /// `∫ running(t) dt` over the run (worker-ns): equal to the run's
    /// [`RunBreakdown::work`](super::RunBreakdown::work).
    pub fn running_integral(&self) -> u128 {
        self.segments()
            .map(|(from, to, running, _)| u128::from(running) * u128::from(to - from))
            .sum()
    }

    /// `∫ ready(t) dt` over the run (strand-ns).
    pub fn ready_integral(&self) -> u128 {
        self.segments()
            .map(|(from, to, _, ready)| u128::from(ready) * u128::from(to - from))
            .sum()
    }

    /// The profile averaged over `buckets` equal-width time buckets covering
    /// `[0, end)`, in time order: bucket `i` is
    /// `[end × i / k, end × (i + 1) / k)` (integer division) with
    /// `k = min(buckets, end)`, so that no bucket is empty; the bucket widths
    /// differ by at most 1 ns. Means are exact integrals divided by the
    /// width; maxima are over the instants of the bucket.
    ///
    /// Returns no bucket when `buckets` or the run's length is 0. Runs in
    /// O(points + buckets).
    pub fn downsample(&self, buckets: usize) -> Vec<ProfileBucket> {
        let mut down = Downsampler::new(self.end(), buckets);
        for (from, to, running, ready) in self.segments() {
            down.feed(from, to, running, ready);
        }
        down.finish()
    }
}

/// The boundaries of at most `wanted` equal-width buckets over `[0, end)`:
/// `count = min(wanted, end)` of them, so that none is empty, bucket `i`
/// being `[end × i / count, end × (i + 1) / count)` (integer division).
/// Shared by [`Downsampler`] and the SVG report's pixel columns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BucketBounds {
    end: u64,
    count: usize,
}

impl BucketBounds {
    pub(crate) fn new(end: u64, wanted: usize) -> BucketBounds {
        let count = usize::try_from(end).map_or(wanted, |end| wanted.min(end));
        BucketBounds { end, count }
    }

    /// The number of buckets (0 when `end` or `wanted` is 0).
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Start of bucket `i` (`i == count` gives `end`); 0 when there is no
    /// bucket.
    pub(crate) fn boundary(&self, i: usize) -> u64 {
        if self.count == 0 {
            return 0;
        }
        // end × i / count < 2^64 × 2^64: exact in u128, and the quotient is
        // at most `end`.
        (u128::from(self.end) * i as u128 / self.count as u128) as u64
    }
}

/// Accumulates consecutive segments of the profile into equal-width buckets
/// (see [`ParallelismProfile::downsample`]).
pub(crate) struct Downsampler {
    bounds: BucketBounds,
    buckets: Vec<ProfileBucket>,
    /// The current bucket `[start, stop)`.
    start: u64,
    stop: u64,
    /// Exact integrals of the current bucket so far.
    running_sum: u128,
    ready_sum: u128,
    max_running: u32,
    max_ready: u32,
}

impl Downsampler {
    /// Buckets over `[0, end)`: `min(buckets, end)` of them.
    pub(crate) fn new(end: u64, buckets: usize) -> Downsampler {
        let bounds = BucketBounds::new(end, buckets);
        Downsampler {
            bounds,
            buckets: Vec::with_capacity(bounds.count()),
            start: 0,
            stop: bounds.boundary(1),
            running_sum: 0,
            ready_sum: 0,
            max_running: 0,
            max_ready: 0,
        }
    }

    /// Adds the segment `[from, to)` with the given values; segments come in
    /// time order and cover `[0, end)` without gaps.
    pub(crate) fn feed(&mut self, mut from: u64, to: u64, running: u32, ready: u32) {
        while from < to && self.buckets.len() < self.bounds.count() {
            let piece_end = to.min(self.stop);
            let len = u128::from(piece_end - from);
            self.running_sum += u128::from(running) * len;
            self.ready_sum += u128::from(ready) * len;
            self.max_running = self.max_running.max(running);
            self.max_ready = self.max_ready.max(ready);
            from = piece_end;
            if from == self.stop {
                let width = (self.stop - self.start) as f64;
                self.buckets.push(ProfileBucket {
                    start: self.start,
                    end: self.stop,
                    mean_running: self.running_sum as f64 / width,
                    mean_ready: self.ready_sum as f64 / width,
                    max_running: self.max_running,
                    max_ready: self.max_ready,
                });
                self.start = self.stop;
                self.stop = self.bounds.boundary(self.buckets.len() + 1);
                self.running_sum = 0;
                self.ready_sum = 0;
                self.max_running = 0;
                self.max_ready = 0;
            }
        }
    }

    /// The buckets, once segments covering `[0, end)` have been fed.
    pub(crate) fn finish(self) -> Vec<ProfileBucket> {
        debug_assert_eq!(
            self.buckets.len(),
            self.bounds.count(),
            "segments cover the run"
        );
        self.buckets
    }
}

/// Sweeps the run and calls `emit` with each change point of the profile,
/// in time order: first at 0, last at the run's end with both values 0.
pub(crate) fn for_each_change(dag: &Dag, mut emit: impl FnMut(ProfilePoint)) {
    let mut merge = EventMerge::new(dag, dag.ready_times());
    let mut last: Option<ProfilePoint> = None;
    loop {
        merge.apply(|_, _| {});
        // Counts fit in u32: a trace holds fewer than 2^32 strands.
        let point = ProfilePoint {
            time: merge.now(),
            running: merge.running() as u32,
            ready: merge.ready() as u32,
        };
        let Some(next) = merge.next_time() else {
            // The end of the run: both values are 0 now.
            emit(point);
            return;
        };
        if last.is_none_or(|l| (l.running, l.ready) != (point.running, point.ready)) {
            emit(point);
            last = Some(point);
        }
        merge.advance(next);
    }
}

#[cfg(test)]
mod tests {
    use super::super::analysis::analyze;
    use super::super::model::EdgeKind;
    use super::super::test_support::{edge, fork_join_edges, strand};
    use super::*;

    fn point(time: u64, running: u32, ready: u32) -> ProfilePoint {
        ProfilePoint {
            time,
            running,
            ready,
        }
    }

    /// s0 w0 [0,10) forks; child s1 w1 [15,30) (stolen late); continuation
    /// s2 w0 [10,20); after the join s3 w0 [32,35). T = 35.
    fn late_steal() -> Dag {
        let strands = vec![
            strand(0, 0, 0, 10),
            strand(1, 1, 15, 30),
            strand(0, 0, 10, 20),
            strand(0, 0, 32, 35),
        ];
        Dag::new(2, strands, fork_join_edges()).unwrap()
    }

    #[test]
    fn profile_of_a_late_steal() {
        // Ready times: s0 0, s1 10, s2 10, s3 max(30, 20) = 30.
        // [0,10): s0 runs → (1, 0).
        // [10,15): s2 runs, s1 ready → (1, 1).
        // [15,20): s1 and s2 run → (2, 0).
        // [20,30): s1 runs → (1, 0).
        // [30,32): s3 ready → (0, 1).
        // [32,35): s3 runs → (1, 0). At 35: (0, 0).
        let profile = parallelism_profile(&late_steal());
        assert_eq!(
            profile.points(),
            &[
                point(0, 1, 0),
                point(10, 1, 1),
                point(15, 2, 0),
                point(20, 1, 0),
                point(30, 0, 1),
                point(32, 1, 0),
                point(35, 0, 0),
            ]
        );
        assert_eq!(profile.end(), 35);
        assert_eq!(profile.workers(), 2);
        assert_eq!((profile.running(0), profile.ready(0)), (1, 0));
        assert_eq!((profile.running(14), profile.ready(14)), (1, 1));
        assert_eq!((profile.running(31), profile.ready(31)), (0, 1));
        assert_eq!((profile.running(35), profile.ready(99)), (0, 0));
        // work: 10 + 5 + 10 + 10 + 3 = 38 = 10 + 15 + 10 + 3.
        assert_eq!(profile.running_integral(), 38);
        assert_eq!(analyze(&late_steal()).run.work, 38);
        // ready: 5 + 2 = 7.
        assert_eq!(profile.ready_integral(), 7);
    }

    #[test]
    fn downsample_integrates_exactly() {
        let profile = parallelism_profile(&late_steal());
        // 4 buckets of [0, 35): boundaries 0, 8, 17, 26, 35.
        // [0,8): running 1 → mean 1, ready 0.
        // [8,17): running 1×7 + 2×2 = 11 → 11/9; ready 1×5 = 5 → 5/9;
        //         max running 2, max ready 1.
        // [17,26): running 2×3 + 1×6 = 12 → 12/9; ready 0; max 2.
        // [26,35): running 1×4 + 0×2 + 1×3 = 7 → 7/9; ready 2 → 2/9.
        let b = profile.downsample(4);
        let bounds: Vec<(u64, u64)> = b.iter().map(|b| (b.start, b.end)).collect();
        assert_eq!(bounds, vec![(0, 8), (8, 17), (17, 26), (26, 35)]);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        let means = [(1.0, 0.0), (11.0 / 9.0, 5.0 / 9.0), (12.0 / 9.0, 0.0)];
        for (bucket, (running, ready)) in b.iter().zip(means) {
            assert!(close(bucket.mean_running, running), "{bucket:?}");
            assert!(close(bucket.mean_ready, ready), "{bucket:?}");
        }
        assert!(close(b[3].mean_running, 7.0 / 9.0) && close(b[3].mean_ready, 2.0 / 9.0));
        let maxima: Vec<(u32, u32)> = b.iter().map(|b| (b.max_running, b.max_ready)).collect();
        assert_eq!(maxima, vec![(1, 0), (2, 1), (2, 0), (1, 1)]);
    }

    #[test]
    fn downsample_never_makes_empty_buckets() {
        let profile = parallelism_profile(&late_steal());
        // More buckets than nanoseconds: one per nanosecond.
        let b = profile.downsample(1000);
        assert_eq!(b.len(), 35);
        assert!(b.iter().all(|b| b.end == b.start + 1));
        assert_eq!((b[12].mean_running, b[12].mean_ready), (1.0, 1.0));
        assert_eq!(profile.downsample(0), vec![]);
        let one = profile.downsample(1);
        assert_eq!((one[0].start, one[0].end), (0, 35));
        assert!((one[0].mean_running - 38.0 / 35.0).abs() < 1e-12);
    }

    #[test]
    fn zero_length_strands_and_idle_tail() {
        // s0 w0 [5,5) (a root, ready at 0), s1 w1 [5,9) after s0,
        // s2 w0 [12,12) after s1 (ready at 9).
        // [0,5): s0 ready → (0, 1); at 5 s0 starts and ends, s1 ready at 5
        // and starts at 5 → (1, 0) on [5,9); [9,12): s2 ready → (0, 1);
        // at 12: (0, 0), the end.
        let strands = vec![strand(0, 0, 5, 5), strand(0, 1, 5, 9), strand(0, 0, 12, 12)];
        let edges = vec![
            edge(0, 1, EdgeKind::CreateContinue),
            edge(1, 2, EdgeKind::WaitContinue),
        ];
        let dag = Dag::new(2, strands, edges).unwrap();
        let profile = parallelism_profile(&dag);
        assert_eq!(
            profile.points(),
            &[
                point(0, 0, 1),
                point(5, 1, 0),
                point(9, 0, 1),
                point(12, 0, 0)
            ]
        );
        assert_eq!(
            profile.running_integral(),
            u128::from(analyze(&dag).run.work)
        );
    }

    #[test]
    fn a_run_of_length_zero() {
        let dag = Dag::new(1, vec![strand(0, 0, 0, 0)], vec![]).unwrap();
        let profile = parallelism_profile(&dag);
        assert_eq!(profile.points(), &[point(0, 0, 0)]);
        assert_eq!(profile.end(), 0);
        assert_eq!(profile.running_integral(), 0);
        assert_eq!(profile.downsample(10), vec![]);
    }

    #[test]
    fn an_idle_stretch_keeps_the_final_point() {
        // s0 w0 [0,4), s1 w0 [10,20) a root (ready at 0): (1,1) on [0,4),
        // (0,1) on [4,10), (1,0) on [10,20), (0,0) at 20.
        let strands = vec![strand(0, 0, 0, 4), strand(1, 0, 10, 20)];
        let profile = parallelism_profile(&Dag::new(3, strands, vec![]).unwrap());
        assert_eq!(
            profile.points(),
            &[
                point(0, 1, 1),
                point(4, 0, 1),
                point(10, 1, 0),
                point(20, 0, 0)
            ]
        );
    }
}
