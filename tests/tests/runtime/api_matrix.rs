//! Every public API under every queue policy, with capacities 1, 4, 16 and
//! 128, on 1, 2 and 16 workers (16 on a 2-core machine oversubscribes on
//! purpose: that is where lost wake-ups show). The trees are small so that the
//! 48 configurations stay cheap; every result is checked against a sequential
//! reference, and each configuration runs under a watchdog, so a lost wake-up
//! fails the test instead of hanging CI.

use prescient::{Event, Runtime, TaskGroup};
use prescient_tests::{fib_seq, matrix, watchdog, Config};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How many times each scenario repeats per configuration (wake-up races
/// need more than one try).
const ROUNDS: usize = 10;
const LIMIT: Duration = Duration::from_secs(60);

fn for_each_config(test: &str, f: impl Fn(&Config, &Runtime)) {
    for config in matrix() {
        watchdog(&format!("{test} [{config}]"), LIMIT, || {
            let rt = config.runtime();
            for _ in 0..ROUNDS {
                f(&config, &rt);
            }
            check_counters(&config, &rt);
        });
    }
}

/// Invariants of the counters that hold in every configuration.
fn check_counters(config: &Config, rt: &Runtime) {
    let c = rt.counters();
    let cap = (rt.max_live_stacks() * config.workers) as u64;
    assert!(
        c.live_stacks <= cap + c.stacks_beyond_cap,
        "{config}: {c:?}: more live stacks than the cap allows (cap {cap} total)"
    );
    if config.workers == 1 {
        assert_eq!(c.steals, 0, "{config}: a lone worker stole: {c:?}");
    }
}

fn in_task_checks(config: &Config) {
    let index = prescient::current_worker_index().expect("task code runs on a worker");
    assert!(index < config.workers, "{config}: worker index {index}");
    assert_eq!(prescient::num_workers(), config.workers, "{config}");
}

fn fib_join(config: &Config, n: u64) -> u64 {
    in_task_checks(config);
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(|| fib_join(config, n - 1), || fib_join(config, n - 2));
    a + b
}

/// Divide and conquer over a borrowed slice, writing through `&mut` halves.
fn double_all(data: &mut [u64]) {
    if data.len() <= 8 {
        for x in data {
            *x *= 2;
        }
        return;
    }
    let (left, right) = data.split_at_mut(data.len() / 2);
    prescient::join(|| double_all(left), || double_all(right));
}

#[test]
fn join_every_config() {
    for_each_config("join", |config, rt| {
        let config = *config;
        assert_eq!(rt.run(|| fib_join(&config, 13)), fib_seq(13), "{config}");
        let mut data: Vec<u64> = (0..1000).collect();
        rt.run(|| double_all(&mut data));
        assert!(
            data.iter().enumerate().all(|(i, &x)| x == 2 * i as u64),
            "{config}"
        );
        // Results of different types, and a join inside the other's closure.
        let (s, (x, y)) = rt.run(|| {
            prescient::join(
                || String::from("left"),
                || prescient::join(|| 1u8, || vec![2u16; 3]),
            )
        });
        assert_eq!((s.as_str(), x, y), ("left", 1, vec![2, 2, 2]), "{config}");
    });
}

fn spawn_tree(config: Config, depth: u32) -> u64 {
    in_task_checks(&config);
    if depth == 0 {
        return 1;
    }
    let left = prescient::spawn(move || spawn_tree(config, depth - 1));
    let right = prescient::spawn(move || spawn_tree(config, depth - 1));
    left.join() + right.join() + 1
}

#[test]
fn spawn_every_config() {
    for_each_config("spawn", |config, rt| {
        let config = *config;
        // Spawn trees joined inside the runtime: 2^(d+1) - 1 nodes.
        assert_eq!(rt.run(move || spawn_tree(config, 6)), 127, "{config}");
        // Handles from a plain thread (injected), joined outside.
        let handles: Vec<_> = (0..20u64)
            .map(|i| rt.spawn(move || spawn_tree(config, 2) * 100 + i))
            .collect();
        let total: u64 = handles.into_iter().map(|h| h.join()).sum();
        assert_eq!(total, 20 * 700 + 190, "{config}");
        // Detached tasks (handle dropped) still run, inside and outside.
        let (tx, rx) = mpsc::channel::<u32>();
        let inner_tx = tx.clone();
        rt.run(move || {
            for i in 0..10 {
                let tx = inner_tx.clone();
                drop(prescient::spawn(move || tx.send(i).unwrap()));
            }
        });
        for i in 10..20 {
            let tx = tx.clone();
            drop(rt.spawn(move || tx.send(i).unwrap()));
        }
        drop(tx);
        let mut got: Vec<u32> = rx.iter().collect();
        got.sort_unstable();
        assert_eq!(got, (0..20).collect::<Vec<_>>(), "{config}");
        // is_finished turns true without a join.
        let gate = Arc::new(Event::new());
        let handle = rt.spawn({
            let gate = gate.clone();
            move || {
                gate.wait();
                7
            }
        });
        assert!(
            !handle.is_finished(),
            "{config}: finished before its gate opened"
        );
        gate.set();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !handle.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "{config}: is_finished never true"
            );
            std::thread::yield_now();
        }
        assert_eq!(handle.join(), 7, "{config}");
        // A task spawning into this runtime through `Runtime::spawn` from inside.
        let rt_ref = rt;
        let v = rt.run(|| rt_ref.spawn(|| 5).join());
        assert_eq!(v, 5, "{config}");
    });
}

#[test]
fn scope_every_config() {
    for_each_config("scope", |config, rt| {
        let config = *config;
        let mut slots = vec![0u64; 64];
        let outside = 1000u64;
        let sum = rt.run(|| {
            prescient::scope(|s| {
                for (i, chunk) in slots.chunks_mut(8).enumerate() {
                    let outside = &outside;
                    s.spawn(move |s| {
                        in_task_checks(&config);
                        // Nested spawns through the scope handed to the task.
                        for (j, slot) in chunk.iter_mut().enumerate() {
                            s.spawn(move |_| *slot = *outside + (i * 8 + j) as u64);
                        }
                    });
                }
                42u64
            })
        });
        assert_eq!(sum, 42, "{config}");
        assert!(
            slots.iter().enumerate().all(|(i, &x)| x == 1000 + i as u64),
            "{config}: {slots:?}"
        );
        // A scope nested in a scope task, and a join inside a scope task.
        let counter = AtomicUsize::new(0);
        rt.run(|| {
            prescient::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|_| {
                        prescient::scope(|s2| {
                            for _ in 0..4 {
                                s2.spawn(|_| {
                                    prescient::join(
                                        || counter.fetch_add(1, Ordering::Relaxed),
                                        || counter.fetch_add(1, Ordering::Relaxed),
                                    );
                                });
                            }
                        });
                    });
                }
            })
        });
        assert_eq!(counter.load(Ordering::Relaxed), 32, "{config}");
        // A plain thread borrowing the scope spawns into it (injected).
        let hits = AtomicUsize::new(0);
        rt.run(|| {
            prescient::scope(|s| {
                std::thread::scope(|ts| {
                    ts.spawn(|| {
                        for _ in 0..5 {
                            s.spawn(|_| {
                                in_task_checks(&config);
                                hits.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                    });
                });
            })
        });
        assert_eq!(hits.load(Ordering::Relaxed), 5, "{config}");
    });
}

#[test]
fn group_every_config() {
    for_each_config("group", |config, rt| {
        let config = *config;
        let sum = Arc::new(AtomicUsize::new(0));
        let s = sum.clone();
        rt.run(move || {
            let group = TaskGroup::new();
            for i in 1..=20usize {
                let (s, g) = (s.clone(), group.clone());
                group.spawn(move || {
                    in_task_checks(&config);
                    s.fetch_add(i, Ordering::Relaxed);
                    // Tasks spawn more tasks into their own group.
                    for _ in 0..2 {
                        let s = s.clone();
                        g.spawn(move || {
                            s.fetch_add(1000, Ordering::Relaxed);
                        });
                    }
                });
            }
            group.wait();
            assert_eq!(group.pending(), 0);
            assert_eq!(s.load(Ordering::Relaxed), 210 + 40_000, "{config}");
            // The group is usable again after a wait.
            let s2 = s.clone();
            group.spawn(move || {
                s2.fetch_add(1, Ordering::Relaxed);
            });
            group.wait();
        });
        assert_eq!(sum.load(Ordering::Relaxed), 40_211, "{config}");
        // Tasks spawned inside the runtime, waited for from a plain thread.
        let group = TaskGroup::new();
        let done = Arc::new(AtomicUsize::new(0));
        let (g, d) = (group.clone(), done.clone());
        rt.run(move || {
            for _ in 0..16 {
                let d = d.clone();
                g.spawn(move || {
                    prescient_tests::spin_for(Duration::from_micros(200));
                    d.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        group.wait();
        assert_eq!(group.pending(), 0, "{config}");
        assert_eq!(done.load(Ordering::Relaxed), 16, "{config}");
    });
}

#[test]
fn event_every_config() {
    for_each_config("event", |config, rt| {
        let config = *config;
        // A chain of waiters spawned before their setters (injected from a
        // plain thread, so none runs inline): each waits, then sets the next.
        const N: usize = 24;
        let events: Arc<Vec<Event>> = Arc::new((0..=N).map(|_| Event::new()).collect());
        let order = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..N)
            .map(|i| {
                let (events, order) = (events.clone(), order.clone());
                rt.spawn(move || {
                    events[i].wait();
                    assert!(events[i].is_set());
                    let position = order.fetch_add(1, Ordering::SeqCst);
                    events[i + 1].set();
                    position
                })
            })
            .collect();
        events[0].set();
        // A plain thread waits for the last one.
        events[N].wait();
        let positions: Vec<usize> = handles.into_iter().map(|h| h.join()).collect();
        assert_eq!(positions, (0..N).collect::<Vec<_>>(), "{config}");
        // Broadcast: many tasks wait on one event set by a task. The waiters
        // are injected from this thread: a waiter spawned from a task whose
        // deque is full would run inline and suspend its spawner (documented).
        let gate = Arc::new(Event::new());
        let woken = Arc::new(AtomicUsize::new(0));
        let waiters: Vec<_> = (0..12)
            .map(|_| {
                let (g, w) = (gate.clone(), woken.clone());
                rt.spawn(move || {
                    g.wait();
                    w.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(2));
        let g = gate.clone();
        rt.spawn(move || g.set()).join();
        for waiter in waiters {
            waiter.join();
        }
        assert!(gate.is_set());
        assert_eq!(woken.load(Ordering::SeqCst), 12, "{config}");
        // Setting twice is harmless; waiting on a set event returns at once.
        gate.set();
        gate.wait();
        rt.run(|| gate.wait());
    });
}

prescient::task_local! {
    static DEPTH: u32;
}

/// Every level binds its depth; after its join it must see its own depth
/// again, and a child sees either its parent's depth (run inline on the
/// parent's stack, as a plain call) or nothing (run on a fiber of its own).
fn task_local_tree(config: &Config, depth: u32, max: u32) -> u32 {
    let parent = DEPTH.try_with(|d| *d);
    assert!(
        parent.is_none() || parent == Some(depth.wrapping_sub(1)),
        "{config}: depth {depth} sees {parent:?}"
    );
    DEPTH.scope(depth, || {
        if depth == max {
            return 1;
        }
        let (a, b) = prescient::join(
            || task_local_tree(config, depth + 1, max),
            || {
                let h = prescient::spawn({
                    let config = *config;
                    move || task_local_tree(&config, depth + 1, max)
                });
                h.join()
            },
        );
        assert_eq!(DEPTH.with(|d| *d), depth, "{config}: after the join");
        a + b
    })
}

#[test]
fn task_local_every_config() {
    for_each_config("task_local", |config, rt| {
        let config = *config;
        let leaves = rt.run(|| {
            assert!(
                DEPTH.try_with(|_| ()).is_none(),
                "{config}: a fresh task sees a value"
            );
            task_local_tree(&config, 0, 7)
        });
        assert_eq!(leaves, 128, "{config}");
        // Nothing leaks into the next task, nor onto this thread.
        assert!(rt.run(|| DEPTH.try_with(|_| ()).is_none()), "{config}");
        assert!(DEPTH.try_with(|_| ()).is_none());
    });
}

#[test]
fn run_every_config() {
    for_each_config("run", |config, rt| {
        let config = *config;
        // `run` on a worker of the same runtime just calls the closure.
        let v = rt.run(|| {
            let here = prescient::current_worker_index();
            rt.run(|| {
                assert_eq!(prescient::current_worker_index(), here);
                fib_join(&config, 8)
            })
        });
        assert_eq!(v, 21, "{config}");
        // `run` of another runtime from inside a task: the task suspends
        // while the other runtime works.
        let other = Runtime::builder().num_workers(2).build().unwrap();
        let v = rt.run(|| {
            let (a, b) =
                prescient::join(|| other.run(|| fib_join_any(10)), || fib_join(&config, 10));
            a + b
        });
        assert_eq!(v, 110, "{config}");
        // Many plain threads entering at once.
        std::thread::scope(|ts| {
            for t in 0..4u64 {
                let rt = &*rt;
                ts.spawn(move || {
                    for i in 0..5u64 {
                        assert_eq!(rt.run(move || fib_join_any(6) + t + i), 8 + t + i);
                    }
                });
            }
        });
    });
}

fn fib_join_any(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(|| fib_join_any(n - 1), || fib_join_any(n - 2));
    a + b
}

#[test]
fn builder_accessors_and_handlers_every_config() {
    for config in matrix() {
        watchdog(&format!("handlers [{config}]"), LIMIT, || {
            let started = Arc::new(std::sync::Mutex::new(Vec::new()));
            let exited = Arc::new(std::sync::Mutex::new(Vec::new()));
            let (s, e) = (started.clone(), exited.clone());
            let rt = Runtime::builder()
                .params(config.params(64 << 10))
                .num_workers(config.workers)
                .max_live_stacks(8)
                .thread_name(|i| format!("mx-{i}"))
                .start_handler(move |i| {
                    assert_eq!(
                        std::thread::current().name(),
                        Some(format!("mx-{i}").as_str())
                    );
                    s.lock().unwrap().push(i)
                })
                .exit_handler(move |i| e.lock().unwrap().push(i))
                .build()
                .unwrap();
            assert_eq!(rt.num_workers(), config.workers);
            assert_eq!(rt.max_live_stacks(), 8);
            assert_eq!(rt.params(), config.params(64 << 10));
            let names = rt.run(|| {
                let name = || std::thread::current().name().map(str::to_owned);
                prescient::join(name, name)
            });
            assert!(names.0.unwrap().starts_with("mx-"), "{config}");
            assert!(format!("{rt:?}").contains("num_workers"));
            drop(rt);
            let mut s = started.lock().unwrap().clone();
            let mut e = exited.lock().unwrap().clone();
            s.sort_unstable();
            e.sort_unstable();
            let all: Vec<usize> = (0..config.workers).collect();
            assert_eq!(s, all, "{config}: start handler");
            assert_eq!(e, all, "{config}: exit handler");
        });
    }
}
