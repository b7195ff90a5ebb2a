//! Stress: 400 random fork-join trees (at least 200 asked) on 32 workers, mixing every
//! API (join, spawn + handle join, scope, task groups, event chains,
//! task-locals, `Runtime::run` re-entry), under every queue policy (each on
//! two runtimes), random capacities and random live-stack caps. Each tree's
//! result is checked against a sequential evaluation. The ignored
//! `soak_random_fork_join_trees` runs the same with at least 1000 trees.
//!
//! The seed is printed first; replay a failure with
//! `PRESCIENT_STRESS_SEED=<seed> cargo test -p prescient-tests --test runtime --
//! stress::`.
//! A watchdog prints the seed and fails the process on a hang.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Params, Runtime, TaskGroup};
use prescient_tests::{seed_from_env, soak_programs, watchdog_diag, XorShift64, CAPACITIES};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TREES: usize = 400;
const RUNTIMES: usize = 8;
const WORKERS: usize = 32;
const MAX_NODES: usize = 1500;

prescient::task_local! {
    static TAG: u64;
}

#[derive(Debug)]
enum Node {
    Leaf(u64),
    Join(Arc<Node>, Arc<Node>),
    Spawn(Vec<Arc<Node>>),
    Scope(Vec<Arc<Node>>),
    Group(Vec<Arc<Node>>),
    /// Children run as tasks chained by events: task `i` waits for task
    /// `i - 1`'s event before it computes and sets its own.
    Events(Vec<Arc<Node>>),
    /// Binds TAG to the value for the child and checks it afterwards.
    TaskLocal(u64, Arc<Node>),
}

struct Gen<'a> {
    rng: &'a mut XorShift64,
    nodes: usize,
}

impl Gen<'_> {
    fn node(&mut self, depth: u32) -> Arc<Node> {
        self.nodes += 1;
        if depth == 0 || self.nodes >= MAX_NODES || self.rng.chance(15) {
            return Arc::new(Node::Leaf(self.rng.below(1000)));
        }
        let kids = |g: &mut Gen, max: u64| -> Vec<Arc<Node>> {
            let n = 1 + g.rng.below(max) as usize;
            (0..n).map(|_| g.node(depth - 1)).collect()
        };
        Arc::new(match self.rng.below(7) {
            0 | 1 => Node::Join(self.node(depth - 1), self.node(depth - 1)),
            2 => Node::Spawn(kids(self, 4)),
            3 => Node::Scope(kids(self, 5)),
            4 => Node::Group(kids(self, 5)),
            5 => Node::Events(kids(self, 4)),
            _ => Node::TaskLocal(self.rng.below(1 << 20), self.node(depth - 1)),
        })
    }
}

/// The sequential reference: every node sums its children (plus a per-kind
/// constant, so that a lost or duplicated child changes the result).
fn expected(node: &Node) -> u64 {
    match node {
        Node::Leaf(v) => *v,
        Node::Join(a, b) => expected(a) + expected(b) + 1,
        Node::Spawn(k) => k.iter().map(|n| expected(n)).sum::<u64>() + 2,
        Node::Scope(k) => k.iter().map(|n| expected(n)).sum::<u64>() + 3,
        Node::Group(k) => k.iter().map(|n| expected(n)).sum::<u64>() + 4,
        Node::Events(k) => k.iter().map(|n| expected(n)).sum::<u64>() + 5,
        Node::TaskLocal(_, c) => expected(c) + 6,
    }
}

fn eval(node: &Arc<Node>) -> u64 {
    match &**node {
        Node::Leaf(v) => {
            if v % 7 == 0 {
                std::thread::yield_now();
            }
            *v
        }
        Node::Join(a, b) => {
            let (x, y) = prescient::join(|| eval(a), || eval(b));
            x + y + 1
        }
        Node::Spawn(kids) => {
            let handles: Vec<_> = kids
                .iter()
                .map(|k| {
                    let k = k.clone();
                    prescient::spawn(move || eval(&k))
                })
                .collect();
            handles.into_iter().map(|h| h.join()).sum::<u64>() + 2
        }
        Node::Scope(kids) => {
            let mut results = vec![0u64; kids.len()];
            prescient::scope(|s| {
                for (k, slot) in kids.iter().zip(results.iter_mut()) {
                    s.spawn(move |_| *slot = eval(k));
                }
            });
            results.iter().sum::<u64>() + 3
        }
        Node::Group(kids) => {
            let sum = Arc::new(AtomicU64::new(0));
            let group = TaskGroup::new();
            for k in kids {
                let (k, sum) = (k.clone(), sum.clone());
                group.spawn(move || {
                    sum.fetch_add(eval(&k), Ordering::Relaxed);
                });
            }
            group.wait();
            sum.load(Ordering::Relaxed) + 4
        }
        Node::Events(kids) => {
            // Spawned in chain order, so a task that runs inline (full
            // deque) only ever waits for one spawned before it.
            let events: Arc<Vec<Event>> = Arc::new(kids.iter().map(|_| Event::new()).collect());
            let handles: Vec<_> = kids
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let (k, events) = (k.clone(), events.clone());
                    prescient::spawn(move || {
                        if i > 0 {
                            events[i - 1].wait();
                        }
                        let v = eval(&k);
                        events[i].set();
                        v
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join()).sum::<u64>() + 5
        }
        Node::TaskLocal(tag, child) => TAG.scope(*tag, || {
            let v = eval(child);
            let now = TAG.with(|t| *t);
            assert_eq!(now, *tag, "task-local changed across the child's waits");
            v + 6
        }),
    }
}

#[test]
fn random_fork_join_trees_on_32_workers() {
    run_trees(TREES);
}

/// The long soak: at least 1000 trees (`PRESCIENT_SOAK_PROGRAMS` raises it).
#[test]
#[ignore = "long soak: run with --ignored (see the README)"]
fn soak_random_fork_join_trees() {
    run_trees(soak_programs().next_multiple_of(RUNTIMES));
}

/// `trees` random trees on `RUNTIMES` runtimes of `WORKERS` workers, the
/// runtimes cycling through every queue policy.
fn run_trees(trees: usize) {
    let seed = seed_from_env("PRESCIENT_STRESS_SEED");
    let mut rng = XorShift64::new(seed);
    let progress = Arc::new(Mutex::new(String::from("starting")));
    let p = progress.clone();
    let diagnose = move || format!("seed {seed}, at {}", p.lock().unwrap());
    watchdog_diag(
        &format!("stress seed={seed} (replay with PRESCIENT_STRESS_SEED={seed})"),
        Duration::from_secs(120 + trees as u64 / 4),
        diagnose,
        || {
            let mut done = 0;
            let mut nodes = 0;
            for r in 0..RUNTIMES {
                let policy = QueuePolicy::ALL[r % QueuePolicy::ALL.len()];
                let capacity = CAPACITIES[rng.index(CAPACITIES.len())];
                let rt = Runtime::builder()
                    .params(
                        Params::DEFAULT
                            .with_queue_policy(policy)
                            .with_queue_capacity(capacity)
                            .with_stack_size(256 << 10),
                    )
                    .num_workers(WORKERS)
                    .max_live_stacks(1 + rng.below(64) as usize)
                    .build()
                    .unwrap();
                for t in 0..trees / RUNTIMES {
                    let mut gen = Gen {
                        rng: &mut rng,
                        nodes: 0,
                    };
                    let tree = gen.node(9);
                    nodes += gen.nodes;
                    let want = expected(&tree);
                    let what = format!(
                        "seed {seed}: runtime {r} (policy={policy} capacity={capacity} cap={}), tree {t}",
                        rt.max_live_stacks()
                    );
                    *progress.lock().unwrap() = what.clone();
                    let got = if rng.chance(20) {
                        // Enter from several plain threads at once.
                        let tree2 = tree.clone();
                        std::thread::scope(|s| {
                            let rt = &rt;
                            let other = s.spawn(move || rt.run(|| eval(&tree2)));
                            let got = rt.run(|| eval(&tree));
                            assert_eq!(other.join().unwrap(), got, "{what}");
                            got
                        })
                    } else {
                        rt.run(|| eval(&tree))
                    };
                    assert_eq!(got, want, "{what}: wrong result");
                    done += 1;
                }
                let c = rt.counters();
                // Every stack mapped beyond a worker's cap is counted.
                assert!(
                    c.live_stacks <= (rt.max_live_stacks() * WORKERS) as u64 + c.stacks_beyond_cap,
                    "seed {seed}: runtime {r} (policy={policy}): {c:?}"
                );
            }
            assert!(done >= 200 && done == trees);
            eprintln!("stress: {done} trees, {nodes} nodes, seed {seed}");
        },
    );
}
