//! The parallelism profile against its definitions on generated runs, and
//! (feature `svg`) the SVG report of small and large runs.
//!
//! Runs are binary fork-join trees scheduled by a list scheduler in order of
//! ready time, which gives each strand the earliest-free worker or, one time
//! in four, a random one, with occasional extra delays; so
//! `from.end <= to.start` and per-worker non-overlap hold by construction.
//!
//! The size test of huge reports is ignored by default:
//! `cargo test --release -p prescient-graph --features svg --test graph --
//! --ignored --nocapture trace_svg::` renders 1.6 and 12.6 million strands.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::common::XorShift;
use prescient_graph::critical_path::{
    analyze, parallelism_profile, Dag, Edge, EdgeKind, Strand, StrandId,
};

/// Generates binary fork-join trees, then schedules them.
struct ForkJoin {
    rng: XorShift,
    /// Strands with their durations in `end` (`start` 0) until scheduled.
    strands: Vec<Strand>,
    edges: Vec<Edge>,
    tasks: u32,
    /// Strand durations are `1..=max_duration` ns.
    max_duration: u64,
}

impl ForkJoin {
    fn strand(&mut self, task: u32, preds: &[(StrandId, EdgeKind)]) -> StrandId {
        let id = StrandId(self.strands.len() as u32);
        let duration = 1 + self.rng.below(self.max_duration);
        self.strands.push(Strand {
            task,
            worker: 0,
            start: 0,
            end: duration,
        });
        self.edges.extend(
            preds
                .iter()
                .map(|&(from, kind)| Edge { from, to: id, kind }),
        );
        id
    }

    /// A task's part of the tree below `depth`, its first strand after
    /// `preds`: forks a child task and continues with the other half, then
    /// joins. Returns its last strand. `3 × 2^depth - 2` strands.
    fn fork_join(&mut self, task: u32, depth: u32, preds: &[(StrandId, EdgeKind)]) -> StrandId {
        let first = self.strand(task, preds);
        if depth == 0 {
            return first;
        }
        self.tasks += 1;
        let child = self.tasks;
        let child_last = self.fork_join(child, depth - 1, &[(first, EdgeKind::Create)]);
        let own_last = self.fork_join(task, depth - 1, &[(first, EdgeKind::CreateContinue)]);
        self.strand(
            task,
            &[
                (own_last, EdgeKind::WaitContinue),
                (child_last, EdgeKind::End),
            ],
        )
    }

    /// List scheduling in order of ready time: each strand goes to the
    /// earliest-free worker (one time in four to a random one), sometimes
    /// after an extra delay.
    fn schedule(&mut self, workers: usize) {
        let n = self.strands.len();
        let mut missing = vec![0u32; n];
        let mut succ_start = vec![0usize; n + 1];
        for e in &self.edges {
            missing[e.to.index()] += 1;
            succ_start[e.from.index() + 1] += 1;
        }
        for i in 0..n {
            succ_start[i + 1] += succ_start[i];
        }
        let mut next = succ_start.clone();
        let mut succ = vec![0u32; self.edges.len()];
        for e in &self.edges {
            succ[next[e.from.index()]] = e.to.0;
            next[e.from.index()] += 1;
        }
        let mut ready_at = vec![0u64; n];
        let mut free_at = vec![0u64; workers];
        let mut queue: BinaryHeap<Reverse<(u64, u32)>> = (0..n)
            .filter(|&i| missing[i] == 0)
            .map(|i| Reverse((0, i as u32)))
            .collect();
        while let Some(Reverse((ready, id))) = queue.pop() {
            let worker = if self.rng.percent(25) {
                self.rng.index(workers)
            } else {
                (0..workers).min_by_key(|&w| free_at[w]).expect("a worker")
            };
            let extra = if self.rng.percent(3) {
                self.rng.below(4 * self.max_duration)
            } else {
                0
            };
            let s = &mut self.strands[id as usize];
            let duration = s.end;
            s.worker = worker as u32;
            s.start = ready.max(free_at[worker]) + extra;
            s.end = s.start + duration;
            free_at[worker] = s.end;
            let end = s.end;
            for &to in &succ[succ_start[id as usize]..succ_start[id as usize + 1]] {
                let to = to as usize;
                ready_at[to] = ready_at[to].max(end);
                missing[to] -= 1;
                if missing[to] == 0 {
                    queue.push(Reverse((ready_at[to], to as u32)));
                }
            }
        }
    }

    fn dag(seed: u64, workers: usize, depth: u32, max_duration: u64) -> Dag {
        let mut g = ForkJoin {
            rng: XorShift::new(seed),
            strands: Vec::new(),
            edges: Vec::new(),
            tasks: 0,
            max_duration,
        };
        g.fork_join(0, depth, &[]);
        g.schedule(workers);
        Dag::new(workers as u32, g.strands, g.edges).expect("generated traces are valid")
    }
}

#[test]
fn profile_matches_its_definition_and_the_analysis() {
    for seed in 0..40u64 {
        let workers = 1 + (seed % 5) as usize;
        let depth = 1 + (seed % 6) as u32;
        let dag = ForkJoin::dag(seed, workers, depth, 6);
        let analysis = analyze(&dag);
        let profile = parallelism_profile(&dag);
        assert_eq!(profile.end(), analysis.elapsed, "seed {seed}");
        assert_eq!(
            profile.running_integral(),
            u128::from(analysis.run.work),
            "seed {seed}"
        );
        // Every instant from the definitions; the delay integral too.
        let ready_at = dag.ready_times();
        let mut delay = 0u64;
        for t in 0..=profile.end() {
            let running = dag
                .strands()
                .iter()
                .filter(|s| s.start <= t && t < s.end)
                .count() as u32;
            let ready = dag
                .strands()
                .iter()
                .zip(&ready_at)
                .filter(|&(s, &r)| r <= t && t < s.start)
                .count() as u32;
            assert_eq!(
                (profile.running(t), profile.ready(t)),
                (running, ready),
                "seed {seed} t {t}"
            );
            if t < profile.end() {
                delay += u64::from((dag.workers() - running).min(ready));
            }
        }
        assert_eq!(delay, analysis.run.delay, "seed {seed}");
        // Change points really are changes, and the last one ends the run.
        let points = profile.points();
        assert_eq!(points[0].time, 0);
        let last = points[points.len() - 1];
        assert_eq!((last.time, last.running, last.ready), (profile.end(), 0, 0));
        for w in points[..points.len() - 1].windows(2) {
            assert!(w[0].time < w[1].time);
            assert_ne!((w[0].running, w[0].ready), (w[1].running, w[1].ready));
        }
        // Downsampling keeps the integrals and bounds the means.
        for buckets in [1, 3, 7, 1000] {
            let b = profile.downsample(buckets);
            assert_eq!(b.len(), buckets.min(profile.end() as usize));
            let running: f64 = b
                .iter()
                .map(|b| b.mean_running * (b.end - b.start) as f64)
                .sum();
            let ready: f64 = b
                .iter()
                .map(|b| b.mean_ready * (b.end - b.start) as f64)
                .sum();
            assert!((running - analysis.run.work as f64).abs() < 1e-6);
            assert!((ready - profile.ready_integral() as f64).abs() < 1e-6);
            for bucket in &b {
                assert!(bucket.mean_running <= f64::from(bucket.max_running) + 1e-9);
                assert!(bucket.mean_ready <= f64::from(bucket.max_ready) + 1e-9);
                assert!(bucket.max_running <= dag.workers());
            }
        }
    }
}

#[test]
fn profile_of_a_larger_run_integrates_to_its_work() {
    // 3 × 2^12 - 2 = 12 286 strands of up to 10 µs on 8 workers.
    let dag = ForkJoin::dag(7, 8, 12, 10_000);
    let analysis = analyze(&dag);
    let profile = parallelism_profile(&dag);
    assert_eq!(profile.running_integral(), u128::from(analysis.run.work));
    let idle_delay: u64 = profile
        .points()
        .windows(2)
        .map(|w| {
            let idle = dag.workers() - w[0].running;
            u64::from(idle.min(w[0].ready)) * (w[1].time - w[0].time)
        })
        .sum();
    assert_eq!(idle_delay, analysis.run.delay);
}

#[cfg(feature = "svg")]
mod svg {
    use std::time::Instant;

    use super::ForkJoin;
    use prescient_graph::critical_path::{analyze, svg_report, Dag, Strand};

    fn check_document(svg: &str) {
        assert!(svg.starts_with("<svg"), "{}", &svg[..60.min(svg.len())]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }

    /// Analyses and renders `dag`.
    fn render(dag: &Dag) -> String {
        svg_report(dag, &analyze(dag))
    }

    #[test]
    fn sample_report_of_a_fork_join_tree() {
        // 4 workers, 3 × 2^7 - 2 = 382 strands of up to 200 µs.
        let dag = ForkJoin::dag(3, 4, 7, 200_000);
        let svg = render(&dag);
        check_document(&svg);
        // One bar per strand plus the path's.
        assert!(svg.matches("<rect").count() > dag.strands().len());
        for label in ["time (ms)", "w3", "critical path", "busy delay", "nowork"] {
            assert!(svg.contains(label), "missing {label:?}");
        }
        let path = std::env::temp_dir().join("trace-svg-sample.svg");
        std::fs::write(&path, &svg).unwrap();
    }

    #[test]
    fn binned_report_of_a_larger_run() {
        // 3 × 2^13 - 2 = 24 574 strands (over the 20 000 of one bar each)
        // on 6 workers.
        let dag = ForkJoin::dag(11, 6, 13, 10_000);
        let svg = render(&dag);
        check_document(&svg);
        let rects = svg.matches("<rect").count();
        assert!(rects < dag.strands().len() / 2, "{rects} rectangles");
        assert!(svg.contains("binned per pixel column"));
        assert!(svg.len() < 1_000_000, "{} bytes", svg.len());
    }

    #[test]
    fn worst_case_binning_stays_under_two_megabytes() {
        // 64 workers, each busy on every other column of the binned rows
        // (32 000 / 64 = 500 columns of 100 ns), two strands per busy
        // column: 64 × 250 × 2 = 32 000 strands and no two busy columns
        // adjacent, so every busy column is a rectangle of its own.
        let workers = 64u32;
        let mut strands = Vec::new();
        for w in 0..workers {
            for column in (0..500u64).step_by(2) {
                for half in 0..2 {
                    let start = column * 100 + half * 50;
                    strands.push(Strand {
                        task: strands.len() as u32,
                        worker: w,
                        start,
                        end: start + 50,
                    });
                }
            }
        }
        // Let the run end at 50 000 ns, the end of the last column.
        strands.push(Strand {
            task: 0,
            worker: 0,
            start: 49_999,
            end: 50_000,
        });
        let dag = Dag::new(workers, strands, vec![]).unwrap();
        let svg = render(&dag);
        check_document(&svg);
        let rects = svg.matches("<rect").count();
        assert!(rects >= 64 * 250, "{rects} rectangles");
        assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        println!("worst case: {} bytes, {rects} rectangles", svg.len());
    }

    #[test]
    #[ignore = "renders millions of strands; run in release"]
    fn huge_reports_stay_small() {
        for (workers, depth) in [(16, 19), (64, 22)] {
            let started = Instant::now();
            let dag = ForkJoin::dag(5, workers, depth, 20_000);
            let built = started.elapsed().as_secs_f64();
            let started = Instant::now();
            let analysis = analyze(&dag);
            let analysed = started.elapsed().as_secs_f64();
            let started = Instant::now();
            let svg = svg_report(&dag, &analysis);
            let seconds = started.elapsed().as_secs_f64();
            check_document(&svg);
            println!(
                "{} strands on {workers} workers: generated in {built:.1} s, \
                 analysed in {analysed:.2} s, SVG of {} bytes in {seconds:.2} s ({} rects)",
                dag.strands().len(),
                svg.len(),
                svg.matches("<rect").count()
            );
            assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        }
    }
}
