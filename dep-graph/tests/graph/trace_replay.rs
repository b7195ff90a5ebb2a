//! Randomized test of the trace analysis against a brute-force replay.
//!
//! Random series-parallel programs (nested fork-joins, a few roots) are
//! scheduled on a few workers by a list scheduler with random worker choice
//! and random extra delays, which respects `from.end <= to.start` and
//! per-worker non-overlap by construction. A replay then steps through every
//! nanosecond `t` of `[0, T)`, recomputes `running`, `idle`, `ready`,
//! `delay` and `nowork` from their definitions, classifies each instant of
//! the critical path (work, busy delay, scheduler delay by kind), and
//! compares everything with `analyze` exactly (per-worker shares as exact
//! rationals over lcm(1..=workers)). The Chrome trace is checked with a
//! small JSON validator and an event count.
//!
//! Seeds are printed on failure; set `PRESCIENT_TRACE_SEED=<n>` to rerun one.
//! The scale test (`cargo test --release -p prescient-graph --test graph
//! -- --ignored --nocapture trace_replay::`) analyses 10 million strands.

use std::time::Instant;

use crate::common::XorShift;
use prescient_graph::critical_path::{
    analyze, chrome_trace, Analysis, Dag, Edge, EdgeKind, Strand, StrandId,
};

const CASES: u64 = 400;

/// Shape of the generated programs.
struct Shape {
    max_children: u64,
    /// Every task at depth > 0 has exactly `max_children` children.
    full: bool,
    max_duration: u64,
    /// One strand in `delay_one_in` gets a random extra delay.
    delay_one_in: u64,
    /// Pick the earliest-free worker (else, half the time, a random one).
    greedy: bool,
}

/// Builds a program and schedules it strand by strand (in creation order,
/// which is topological).
struct Generator {
    rng: XorShift,
    shape: Shape,
    workers_free_at: Vec<u64>,
    strands: Vec<Strand>,
    edges: Vec<Edge>,
    tasks: u32,
}

impl Generator {
    fn new(seed: u64, workers: u32, shape: Shape) -> Self {
        Generator {
            rng: XorShift::new(seed),
            shape,
            workers_free_at: vec![0; workers as usize],
            strands: Vec::new(),
            edges: Vec::new(),
            tasks: 0,
        }
    }

    fn pick_worker(&mut self) -> usize {
        let workers = self.workers_free_at.len() as u64;
        if !self.shape.greedy && self.rng.below(2) == 0 {
            return self.rng.below(workers) as usize;
        }
        let free = &self.workers_free_at;
        (0..free.len()).min_by_key(|&w| free[w]).expect("a worker")
    }

    /// Schedules a strand of `task` after `preds`; returns its id.
    fn strand(&mut self, task: u32, preds: &[(StrandId, EdgeKind)]) -> StrandId {
        let id = StrandId(self.strands.len() as u32);
        let ready = preds
            .iter()
            .map(|&(p, _)| self.strands[p.0 as usize].end)
            .max()
            .unwrap_or(0);
        let worker = self.pick_worker();
        let extra = if self.rng.below(self.shape.delay_one_in) == 0 {
            self.rng.below(6)
        } else {
            0
        };
        let start = ready.max(self.workers_free_at[worker]) + extra;
        let end = start + self.rng.below(self.shape.max_duration + 1);
        self.workers_free_at[worker] = end;
        self.strands.push(Strand {
            task,
            worker: worker as u32,
            start,
            end,
        });
        for &(from, kind) in preds {
            self.edges.push(Edge { from, to: id, kind });
        }
        id
    }

    /// Generates a task whose first strand follows `first_preds`; returns
    /// its last strand.
    fn task(&mut self, first_preds: &[(StrandId, EdgeKind)], depth: u32) -> StrandId {
        let task = self.tasks;
        self.tasks += 1;
        let mut current = self.strand(task, first_preds);
        let children = match depth {
            0 => 0,
            _ if self.shape.full => self.shape.max_children,
            _ => self.rng.below(self.shape.max_children + 1),
        };
        let mut joins = Vec::new();
        for _ in 0..children {
            let child_last = self.task(&[(current, EdgeKind::Create)], depth - 1);
            joins.push((child_last, EdgeKind::End));
            current = self.strand(task, &[(current, EdgeKind::CreateContinue)]);
        }
        if !joins.is_empty() {
            joins.insert(0, (current, EdgeKind::WaitContinue));
            current = self.strand(task, &joins);
        }
        current
    }

    fn dag(self) -> Dag {
        let workers = self.workers_free_at.len() as u32;
        Dag::new(workers, self.strands, self.edges).expect("generated traces are valid")
    }
}

fn random_dag(seed: u64) -> Dag {
    let mut rng = XorShift::new(seed ^ 0x5eed);
    let workers = 1 + rng.below(4) as u32;
    let shape = Shape {
        max_children: 1 + rng.below(3),
        full: false,
        max_duration: 1 + rng.below(10),
        delay_one_in: 1 + rng.below(4),
        greedy: rng.below(3) == 0,
    };
    let roots = 1 + rng.below(2);
    let depth = 1 + rng.below(3) as u32;
    let mut generator = Generator::new(seed, workers, shape);
    for _ in 0..roots {
        generator.task(&[], depth);
    }
    generator.dag()
}

/// Everything the replay recomputes from the definitions.
#[derive(Debug, PartialEq)]
struct Replay {
    path: Vec<(StrandId, Option<EdgeKind>)>,
    path_work: u64,
    path_busy: u64,
    path_scheduler: [u64; 4],
    path_initial_scheduler: u64,
    run: [u64; 3],
    /// Per worker: work, and delay and nowork numerators over `denominator`.
    per_worker: Vec<(u64, u64, u64)>,
    denominator: u64,
    nowork_in_path_scheduler_delay: u64,
    /// Maximal busy/scheduler pieces of the path's non-empty gaps.
    gap_pieces: usize,
}

/// The critical path by its definition, with plain scans of the edge list.
fn brute_force_path(dag: &Dag) -> Vec<(StrandId, Option<EdgeKind>)> {
    let strands = dag.strands();
    let mut current = 0;
    for (i, s) in strands.iter().enumerate() {
        if s.end > strands[current].end {
            current = i;
        }
    }
    let mut back = Vec::new();
    loop {
        let mut best: Option<&Edge> = None;
        for e in dag.edges().iter().filter(|e| e.to.0 as usize == current) {
            let key = |e: &Edge| (strands[e.from.0 as usize].end, std::cmp::Reverse(e.from));
            if best.is_none_or(|b| key(e) > key(b)) {
                best = Some(e);
            }
        }
        match best {
            Some(e) => {
                back.push((StrandId(current as u32), Some(e.kind)));
                current = e.from.0 as usize;
            }
            None => {
                back.push((StrandId(current as u32), None));
                break;
            }
        }
    }
    back.reverse();
    back
}

fn lcm_up_to(n: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    (1..=n).fold(1, |l, k| l / gcd(l, k) * k)
}

/// What the path is doing at each instant.
#[derive(Clone, Copy, PartialEq)]
enum PathAt {
    Work,
    /// In the gap before a step along this edge kind (None: the first gap).
    Gap(Option<EdgeKind>),
}

fn replay(dag: &Dag) -> Replay {
    let strands = dag.strands();
    let workers = u64::from(dag.workers());
    let end = strands.iter().map(|s| s.end).max().unwrap();
    let mut ready_at = vec![0u64; strands.len()];
    for e in dag.edges() {
        let r = &mut ready_at[e.to.0 as usize];
        *r = (*r).max(strands[e.from.0 as usize].end);
    }
    let path = brute_force_path(dag);
    let mut path_at = vec![PathAt::Work; end as usize];
    let mut previous_end = 0;
    for &(id, via) in &path {
        let s = strands[id.0 as usize];
        for t in previous_end..s.start {
            path_at[t as usize] = PathAt::Gap(via);
        }
        previous_end = s.end;
    }
    assert_eq!(previous_end, end);

    let denominator = lcm_up_to(workers);
    let mut r = Replay {
        path: path.clone(),
        path_work: 0,
        path_busy: 0,
        path_scheduler: [0; 4],
        path_initial_scheduler: 0,
        run: [0; 3],
        per_worker: vec![(0, 0, 0); workers as usize],
        denominator,
        nowork_in_path_scheduler_delay: 0,
        gap_pieces: 0,
    };
    let mut previous_piece: Option<(bool, usize)> = None;
    for t in 0..end {
        let runs = |s: &Strand| s.start <= t && t < s.end;
        let running = strands.iter().filter(|s| runs(s)).count() as u64;
        let idle = workers - running;
        let ready = (0..strands.len())
            .filter(|&i| ready_at[i] <= t && t < strands[i].start)
            .count() as u64;
        let delay = idle.min(ready);
        let nowork = idle - delay;
        r.run[0] += running;
        r.run[1] += delay;
        r.run[2] += nowork;
        for w in 0..workers {
            let share = &mut r.per_worker[w as usize];
            if strands.iter().any(|s| s.worker == w as u32 && runs(s)) {
                share.0 += 1;
            } else {
                share.1 += delay * (denominator / idle);
                share.2 += nowork * (denominator / idle);
            }
        }
        let all_busy = idle == 0;
        match path_at[t as usize] {
            PathAt::Work => {
                r.path_work += 1;
                previous_piece = None;
            }
            PathAt::Gap(via) => {
                // A new piece starts when the busy status changes or a new
                // gap starts (gaps are separated by work unless adjacent).
                let gap_id = path
                    .iter()
                    .position(|&(id, _)| strands[id.0 as usize].start > t)
                    .unwrap();
                if previous_piece != Some((all_busy, gap_id)) {
                    r.gap_pieces += 1;
                }
                previous_piece = Some((all_busy, gap_id));
                if all_busy {
                    r.path_busy += 1;
                } else {
                    r.nowork_in_path_scheduler_delay += nowork;
                    match via {
                        Some(kind) => r.path_scheduler[kind.index()] += 1,
                        None => r.path_initial_scheduler += 1,
                    }
                }
            }
        }
    }
    r
}

fn compare(seed: u64, dag: &Dag, a: &Analysis, r: &Replay) {
    let got_path: Vec<_> = a
        .critical_path
        .steps
        .iter()
        .map(|s| (s.strand, s.via))
        .collect();
    assert_eq!(got_path, r.path, "seed {seed}: path");
    let p = &a.critical_path;
    assert_eq!(p.work, r.path_work, "seed {seed}: path work");
    assert_eq!(p.busy_delay, r.path_busy, "seed {seed}: path busy delay");
    assert_eq!(
        p.scheduler_delay, r.path_scheduler,
        "seed {seed}: path scheduler delay"
    );
    assert_eq!(
        p.initial_scheduler_delay, r.path_initial_scheduler,
        "seed {seed}: initial scheduler delay"
    );
    assert_eq!(
        [a.run.work, a.run.delay, a.run.nowork],
        r.run,
        "seed {seed}: run breakdown"
    );
    assert_eq!(a.elapsed, dag.end_time(), "seed {seed}: elapsed");
    assert_eq!(
        a.nowork_from_critical_scheduler_delay, r.nowork_in_path_scheduler_delay,
        "seed {seed}: nowork in critical scheduler delay"
    );
    for (w, (got, &(work, delay, nowork))) in a.per_worker.iter().zip(&r.per_worker).enumerate() {
        let d = r.denominator as f64;
        assert_eq!(got.work, work, "seed {seed}: worker {w} work");
        assert!(
            (got.delay - delay as f64 / d).abs() < 1e-6,
            "seed {seed}: worker {w} delay {} != {}",
            got.delay,
            delay as f64 / d
        );
        assert!(
            (got.nowork - nowork as f64 / d).abs() < 1e-6,
            "seed {seed}: worker {w} nowork {} != {}",
            got.nowork,
            nowork as f64 / d
        );
    }
}

/// A minimal JSON validator (RFC 8259 syntax); returns the number of
/// objects that have a `"ph"` member equal to `"X"`.
mod json {
    pub fn complete_events(text: &str) -> Result<usize, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
            complete: 0,
        };
        p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing data at {}", p.i));
        }
        Ok(p.complete)
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
        complete: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                Ok(())
            } else {
                Err(format!("expected {:?} at {}", c as char, self.i))
            }
        }
        fn value(&mut self) -> Result<String, String> {
            self.ws();
            match self.s.get(self.i) {
                Some(b'{') => self.object().map(|_| String::new()),
                Some(b'[') => self.array().map(|_| String::new()),
                Some(b'"') => self.string(),
                Some(b't') | Some(b'f') | Some(b'n') => self.word(),
                Some(_) => self.number(),
                None => Err("unexpected end".into()),
            }
        }
        fn word(&mut self) -> Result<String, String> {
            for w in ["true", "false", "null"] {
                if self.s[self.i..].starts_with(w.as_bytes()) {
                    self.i += w.len();
                    return Ok(String::new());
                }
            }
            Err(format!("bad literal at {}", self.i))
        }
        fn number(&mut self) -> Result<String, String> {
            let start = self.i;
            while self.i < self.s.len() && b"-+.eE0123456789".contains(&self.s[self.i]) {
                self.i += 1;
            }
            let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
            text.parse::<f64>()
                .map(|_| String::new())
                .map_err(|_| format!("bad number {text:?} at {start}"))
        }
        fn string(&mut self) -> Result<String, String> {
            self.eat(b'"')?;
            let mut out = String::new();
            loop {
                match self.s.get(self.i) {
                    None => return Err("unterminated string".into()),
                    Some(b'"') => {
                        self.i += 1;
                        return Ok(out);
                    }
                    Some(b'\\') => {
                        let escaped = *self.s.get(self.i + 1).ok_or("bad escape")?;
                        self.i += if escaped == b'u' { 6 } else { 2 };
                        if !b"\"\\/bfnrtu".contains(&escaped) {
                            return Err(format!("bad escape at {}", self.i));
                        }
                    }
                    Some(&c) if c < 0x20 => return Err("control character in string".into()),
                    Some(&c) => {
                        out.push(c as char);
                        self.i += 1;
                    }
                }
            }
        }
        fn object(&mut self) -> Result<(), String> {
            self.eat(b'{')?;
            self.ws();
            if self.s.get(self.i) == Some(&b'}') {
                self.i += 1;
                return Ok(());
            }
            loop {
                self.ws();
                let key = self.string()?;
                self.eat(b':')?;
                let value = self.value()?;
                if key == "ph" && value == "X" {
                    self.complete += 1;
                }
                self.ws();
                match self.s.get(self.i) {
                    Some(b',') => self.i += 1,
                    Some(b'}') => {
                        self.i += 1;
                        return Ok(());
                    }
                    _ => return Err(format!("expected , or }} at {}", self.i)),
                }
            }
        }
        fn array(&mut self) -> Result<(), String> {
            self.eat(b'[')?;
            self.ws();
            if self.s.get(self.i) == Some(&b']') {
                self.i += 1;
                return Ok(());
            }
            loop {
                self.value()?;
                self.ws();
                match self.s.get(self.i) {
                    Some(b',') => self.i += 1,
                    Some(b']') => {
                        self.i += 1;
                        return Ok(());
                    }
                    _ => return Err(format!("expected , or ] at {}", self.i)),
                }
            }
        }
    }
}

/// Which parts of the breakdown a case exercised (the test checks that the
/// random cases, together, exercise every one).
#[derive(Default)]
struct Coverage {
    busy_delay: usize,
    scheduler_delay: [usize; 4],
    initial_scheduler_delay: usize,
    run_delay: usize,
    run_nowork: usize,
    nowork_in_critical_delay: usize,
    zero_length_strands: usize,
    max_strands: usize,
    max_elapsed: u64,
}

fn check_seed(seed: u64, coverage: &mut Coverage) {
    let dag = random_dag(seed);
    let analysis = analyze(&dag);
    let replayed = replay(&dag);
    compare(seed, &dag, &analysis, &replayed);
    let json = chrome_trace(&dag, &analysis);
    let events = json::complete_events(&json).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let expected = dag.strands().len() + analysis.critical_path.steps.len() + replayed.gap_pieces;
    assert_eq!(
        events, expected,
        "seed {seed}: complete events in the Chrome trace"
    );
    assert!(!analysis.to_string().is_empty());
    let p = &analysis.critical_path;
    let count = |c: &mut usize, yes: bool| *c += usize::from(yes);
    count(&mut coverage.busy_delay, p.busy_delay > 0);
    for kind in EdgeKind::ALL {
        count(
            &mut coverage.scheduler_delay[kind.index()],
            p.scheduler_delay_of(kind) > 0,
        );
    }
    count(
        &mut coverage.initial_scheduler_delay,
        p.initial_scheduler_delay > 0,
    );
    count(&mut coverage.run_delay, analysis.run.delay > 0);
    count(&mut coverage.run_nowork, analysis.run.nowork > 0);
    count(
        &mut coverage.nowork_in_critical_delay,
        analysis.nowork_from_critical_scheduler_delay > 0,
    );
    count(
        &mut coverage.zero_length_strands,
        dag.strands().iter().any(|s| s.start == s.end),
    );
    coverage.max_strands = coverage.max_strands.max(dag.strands().len());
    coverage.max_elapsed = coverage.max_elapsed.max(analysis.elapsed);
}

#[test]
fn analysis_matches_brute_force_replay() {
    if let Ok(seed) = std::env::var("PRESCIENT_TRACE_SEED") {
        let seed = seed.parse().expect("PRESCIENT_TRACE_SEED is a number");
        println!("seed {seed}");
        check_seed(seed, &mut Coverage::default());
        return;
    }
    let mut coverage = Coverage::default();
    for seed in 0..CASES {
        check_seed(seed, &mut coverage);
    }
    let c = &coverage;
    println!(
        "{CASES} cases, up to {} strands and {} ns; cases with busy delay {}, \
         scheduler delay by kind {:?}, initial {}, run delay {}, run nowork {}, \
         nowork in critical delay {}, zero-length strands {}",
        c.max_strands,
        c.max_elapsed,
        c.busy_delay,
        c.scheduler_delay,
        c.initial_scheduler_delay,
        c.run_delay,
        c.run_nowork,
        c.nowork_in_critical_delay,
        c.zero_length_strands
    );
    let every_part = [
        c.busy_delay,
        c.initial_scheduler_delay,
        c.run_delay,
        c.run_nowork,
        c.nowork_in_critical_delay,
        c.zero_length_strands,
    ]
    .into_iter()
    .chain(c.scheduler_delay)
    .all(|n| n > 0);
    assert!(every_part, "the random cases miss a part of the breakdown");
}

/// A binary fork-join tree of the given depth (5 × 2^depth - 4 strands)
/// scheduled greedily on `workers` workers with synthetic times.
fn fork_join_tree(depth: u32, workers: u32) -> Dag {
    let shape = Shape {
        max_children: 2,
        full: true,
        max_duration: 100,
        delay_one_in: 8,
        greedy: true,
    };
    let mut generator = Generator::new(42, workers, shape);
    generator.strands.reserve(5 << depth);
    generator.edges.reserve(8 << depth);
    generator.task(&[], depth);
    generator.dag()
}

/// Resident memory now and at peak (kB), where `/proc` tells.
fn memory_kb() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn scale(depth: u32) {
    let started = Instant::now();
    let (strands, edges) = {
        let dag = fork_join_tree(depth, 16);
        (dag.strands().to_vec(), dag.edges().to_vec())
    };
    let generated = started.elapsed();
    let n = strands.len();
    let started = Instant::now();
    let dag = Dag::new(16, strands, edges).expect("valid");
    let built = started.elapsed();
    let started = Instant::now();
    let analysis = analyze(&dag);
    let analysed = started.elapsed();
    let rss_after = memory_kb();
    let p = &analysis.critical_path;
    assert_eq!(
        p.work + p.busy_delay + p.total_scheduler_delay(),
        analysis.elapsed
    );
    assert_eq!(analysis.run.total(), analysis.elapsed * 16);
    println!(
        "{n} strands, {} edges: generated in {generated:?}, Dag::new {built:?}, analyze {analysed:?} \
         ({:.0} ns per strand)",
        dag.edges().len(),
        (built + analysed).as_nanos() as f64 / n as f64
    );
    if let Some((after, peak)) = rss_after {
        println!(
            "resident memory after analysis {:.0} B/strand (of which the inputs and DAG); \
             peak {:.0} B/strand over the whole test",
            (after as f64 * 1024.0) / n as f64,
            (peak as f64 * 1024.0) / n as f64,
        );
    }
    println!("{analysis}");
}

#[test]
fn scale_100k_strands() {
    scale(14);
}

#[test]
#[ignore = "10 million strands: run in release with --ignored --nocapture"]
fn scale_10m_strands() {
    scale(21);
}
