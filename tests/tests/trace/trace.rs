//! The critical-path profiler end to end: `Runtime::profile` records a run
//! of every construct (join, spawn, scope, group, event, dataflow,
//! suspension), the recording forms a valid DAG (`Dag::new` checks that
//! edges go from an ended strand to a later one, that a worker's strands do
//! not overlap, and that there is no cycle), edge counts match what the
//! scheduler did, and the analysis finds the path the program forces.

use prescient::profile::{Analysis, EdgeKind, Strand};
use prescient::profile::{ProfileError, MAX_TRACE_CAPACITY};
use prescient::{
    dataflow, tuning::DastMode, tuning::Inlining, BuildError, Event, Params, Runtime, TaskGroup,
};
use prescient_tests::fib_join as fib;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const MS: u64 = 1_000_000;

fn runtime_with(workers: usize, params: Params) -> Runtime {
    Runtime::builder()
        .num_workers(workers)
        .params(params)
        .trace(true)
        .build()
        .unwrap()
}

/// Inlining off: every spawn with room in the deque is a task.
fn runtime(workers: usize) -> Runtime {
    runtime_with(workers, Params::DEFAULT.with_inlining(Inlining::Never))
}

fn edges_of(profile: &prescient::profile::Profile<impl Sized>, kind: EdgeKind) -> usize {
    profile
        .dag()
        .edges()
        .iter()
        .filter(|e| e.kind == kind)
        .count()
}

/// The identities every analysis satisfies.
fn check_sums(analysis: &Analysis, workers: u64) {
    let path = &analysis.critical_path;
    assert_eq!(
        path.work + path.busy_delay + path.total_scheduler_delay(),
        analysis.elapsed
    );
    assert_eq!(analysis.run.total(), analysis.elapsed * workers);
    assert_eq!(analysis.per_worker.len() as u64, workers);
}

/// The strands of the critical path, with the kind of edge into each.
fn path_strands(
    profile: &prescient::profile::Profile<impl Sized>,
) -> Vec<(Strand, Option<EdgeKind>)> {
    let analysis = profile.analysis();
    analysis
        .critical_path
        .steps
        .iter()
        .map(|step| (*profile.dag().strand(step.strand), step.via))
        .collect()
}

fn sleep_ms(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

#[test]
fn fib_runs_are_recorded_as_valid_dags() {
    for inlining in [Inlining::Never, Inlining::Adaptive] {
        let runtime = runtime_with(4, Params::DEFAULT.with_inlining(inlining));
        for _ in 0..5 {
            let profile = runtime.profile(|| fib(22)).unwrap();
            assert_eq!(*profile.result(), 17711);
            check_sums(profile.analysis(), 4);
            let stats = profile.stats();
            assert_eq!(stats.strands, profile.dag().strands().len());
            assert!(stats.buffer_bytes > 0);
            // A published join forks its parent (create-continue) and
            // creates its child, unless the joiner took it back first.
            assert!(
                edges_of(&profile, EdgeKind::Create)
                    <= edges_of(&profile, EdgeKind::CreateContinue)
            );
        }
    }
}

#[test]
fn every_deferred_scope_spawn_is_one_task_with_one_create_edge() {
    let runtime = runtime(3);
    for _ in 0..5 {
        let before = runtime.counters();
        let sum = AtomicUsize::new(0);
        let profile = runtime
            .profile(|| {
                prescient::scope(|s| {
                    for i in 0..200 {
                        let sum = &sum;
                        s.spawn(move |_| {
                            sum.fetch_add(i, Ordering::Relaxed);
                        });
                    }
                })
            })
            .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 199 * 200 / 2);
        let deferred = runtime.counters().since(&before).spawns as usize;
        assert!(deferred > 0);
        // Each deferred task ran as a task (from a deque, or claimed back by
        // the scope's end and run nested), so each has one create edge into
        // its first strand; the root job has none.
        assert_eq!(edges_of(&profile, EdgeKind::Create), deferred);
        let dag = profile.dag();
        let tasks = dag
            .strands()
            .iter()
            .enumerate()
            .filter(|(i, s)| s.task as usize == *i)
            .count();
        assert_eq!(tasks, deferred + 1);
        for edge in dag.edges().iter().filter(|e| e.kind == EdgeKind::Create) {
            assert_eq!(
                dag.strand(edge.to).task,
                edge.to.0,
                "a create edge starts a task"
            );
        }
        check_sums(profile.analysis(), 3);
    }
}

#[test]
fn a_long_spawned_child_is_on_the_critical_path_into_its_joiner() {
    let runtime = runtime(2);
    let profile = runtime
        .profile(|| {
            let child = prescient::spawn(|| sleep_ms(30));
            child.join();
        })
        .unwrap();
    let path = path_strands(&profile);
    let long = path
        .iter()
        .position(|(s, _)| s.end - s.start >= 30 * MS)
        .expect("the child's strand is on the path");
    assert_eq!(path[long].1, Some(EdgeKind::Create));
    assert_eq!(
        path[long + 1].1,
        Some(EdgeKind::End),
        "the joiner waited for it"
    );
    assert!(profile.analysis().critical_path.work >= 30 * MS);
    check_sums(profile.analysis(), 2);
}

#[test]
fn an_event_wait_ends_at_the_setters_strand() {
    let runtime = runtime(2);
    let profile = runtime
        .profile(|| {
            let event = Arc::new(Event::new());
            let started = Arc::new(AtomicBool::new(false));
            let waiter = prescient::spawn({
                let event = event.clone();
                let started = started.clone();
                move || {
                    started.store(true, Ordering::Release);
                    event.wait();
                    sleep_ms(5);
                }
            });
            // The setter's 20 ms start only once the other worker has stolen
            // the waiter: on a loaded machine the steal itself can take
            // 20 ms, and a waiter that starts after the set never waits, so
            // the path the test looks for would not exist. Polling the handle
            // publishes the waiter (a bare spin on the flag would keep it
            // unseen on this worker for ever).
            while !started.load(Ordering::Acquire) {
                assert!(!waiter.is_finished());
                std::thread::yield_now();
            }
            sleep_ms(20);
            event.set();
            waiter.join();
        })
        .unwrap();
    let dag = profile.dag();
    // The setter's strand (the 20 ms sleep) ends at the set, and the waiter
    // resumes after it.
    assert!(dag
        .edges()
        .iter()
        .any(|e| { e.kind == EdgeKind::End && dag.strand(e.from).duration() >= 20 * MS }));
    let path = path_strands(&profile);
    assert!(path.iter().any(|(s, _)| s.duration() >= 20 * MS));
    assert!(path.iter().any(|(s, _)| s.duration() >= 5 * MS));
    check_sums(profile.analysis(), 2);
}

#[test]
fn a_group_waits_for_its_latest_child() {
    let runtime = runtime(3);
    let profile = runtime
        .profile(|| {
            let group = TaskGroup::new();
            for round in 0..2u64 {
                for i in 0..4 {
                    group.spawn(move || sleep_ms(1 + i + 10 * round));
                }
                group.wait();
            }
        })
        .unwrap();
    let path = path_strands(&profile);
    // The wait returns after the child that finished last: the path goes
    // through it, and on into the root by an end edge (straight into the
    // root's last strand, or — when the root ran that child itself while it
    // waited — into the root's strand after the nested run).
    let root_task = path.last().unwrap().0.task;
    let last_child_end = profile
        .dag()
        .strands()
        .iter()
        .filter(|s| s.task != root_task)
        .map(|s| s.end)
        .max()
        .unwrap();
    let last_child = path
        .iter()
        .position(|(s, _)| s.task != root_task && s.end == last_child_end)
        .expect("the latest child is on the path");
    assert_eq!(path[last_child + 1].0.task, root_task);
    assert_eq!(path[last_child + 1].1, Some(EdgeKind::End));
    assert!(profile.analysis().critical_path.work >= 11 * MS);
    check_sums(profile.analysis(), 3);
}

#[test]
fn a_dataflow_chain_is_a_path_of_create_edges() {
    for mode in [DastMode::Off, DastMode::Forced] {
        let runtime = runtime_with(
            3,
            Params::DEFAULT
                .with_inlining(Inlining::Never)
                .with_dast(mode),
        );
        let profile = runtime
            .profile(|| {
                dataflow(|df| {
                    let mut value = df.data(0u32);
                    for _ in 0..3 {
                        df.task(value.inout(), |v: &mut u32| {
                            sleep_ms(5);
                            *v += 1;
                        });
                    }
                    df.wait();
                    *value.get_mut()
                })
            })
            .unwrap();
        assert_eq!(*profile.result(), 3);
        let path = path_strands(&profile);
        let links = path
            .windows(2)
            .filter(|pair| pair[0].0.duration() >= 5 * MS && pair[1].1 == Some(EdgeKind::Create))
            .count();
        assert!(
            links >= 2,
            "{mode:?}: each task releases the next ({path:?})"
        );
        assert!(profile.analysis().critical_path.work >= 15 * MS);
        check_sums(profile.analysis(), 3);
    }
}

#[test]
fn a_suspended_join_resumes_with_a_wait_continue_edge() {
    let runtime = runtime(2);
    let profile = runtime
        .profile(|| {
            // The second half is published (the other worker is hungry) and
            // sleeps; the first half returns at once, so the joiner
            // suspends until the thief finishes.
            prescient::join(
                || (),
                || {
                    sleep_ms(10);
                },
            )
        })
        .unwrap();
    check_sums(profile.analysis(), 2);
    let counters = runtime.counters();
    if counters.suspensions > 0 {
        assert!(edges_of(&profile, EdgeKind::WaitContinue) > 0);
        assert!(edges_of(&profile, EdgeKind::End) > 0);
    }
}

#[test]
fn runs_outside_a_profile_are_not_recorded() {
    let runtime = runtime(2);
    runtime.run(|| fib(20));
    let small = runtime.profile(|| 1 + 1).unwrap();
    assert_eq!(small.dag().strands().len(), 1, "only the profiled job");
    runtime.run(|| fib(20));
    let again = runtime.profile(|| 2).unwrap();
    assert_eq!(again.dag().strands().len(), 1);
}

#[test]
fn misuse_is_an_error() {
    let untraced = Runtime::builder().num_workers(1).build().unwrap();
    assert!(matches!(
        untraced.profile(|| ()),
        Err(ProfileError::NotTracing)
    ));
    let runtime = Arc::new(runtime(2));
    let inner = runtime.clone();
    let nested = runtime.run(move || inner.profile(|| ()).map(|_| ()));
    assert!(matches!(nested, Err(ProfileError::OnWorker)));
    // A second profile while the first records.
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let first = {
        let runtime = runtime.clone();
        std::thread::spawn(move || {
            runtime
                .profile(move || {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                })
                .map(|_| ())
        })
    };
    started_rx.recv().unwrap();
    assert!(matches!(runtime.profile(|| ()), Err(ProfileError::Busy)));
    release_tx.send(()).unwrap();
    first.join().unwrap().unwrap();
    assert!(runtime.profile(|| ()).is_ok());
    assert!(ProfileError::NotTracing.to_string().contains("trace(true)"));
}

#[test]
fn the_trace_capacity_is_bounded() {
    let build = |strands| {
        Runtime::builder()
            .num_workers(1)
            .trace(prescient::profile::Tracing::Reserve(strands))
            .build()
    };
    // Built only: profiling would reserve 1.4 GiB.
    assert!(build(MAX_TRACE_CAPACITY).is_ok());
    for strands in [MAX_TRACE_CAPACITY + 1, usize::MAX / 2 + 1, usize::MAX] {
        match build(strands) {
            Err(BuildError::TraceCapacityTooLarge(got)) => assert_eq!(got, strands),
            other => panic!("trace_capacity({strands}): {other:?}"),
        }
    }
    let message = BuildError::TraceCapacityTooLarge(usize::MAX).to_string();
    assert!(
        message.contains(&MAX_TRACE_CAPACITY.to_string())
            && message.contains(&usize::MAX.to_string()),
        "{message}"
    );
    // Turning tracing off drops the capacity with it.
    assert!(Runtime::builder()
        .num_workers(1)
        .trace(prescient::profile::Tracing::Reserve(usize::MAX))
        .trace(false)
        .build()
        .is_ok());
    // Nothing reserved: the buffers grow as the run records. One strand
    // (the profiled job) and no edge take one chunk of 65,536 strands of
    // 40 bytes and no chunk of edges.
    let unreserved = build(0).unwrap();
    let profile = unreserved.profile(|| 1 + 1).unwrap();
    assert_eq!(*profile.result(), 2);
    assert_eq!(profile.stats().strands, 1);
    assert_eq!(profile.stats().buffer_bytes, 65_536 * 40);
}

#[test]
fn a_panic_propagates_and_the_runtime_profiles_again() {
    let runtime = runtime(2);
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        runtime.profile(|| {
            prescient::join(|| fib(15), || panic!("in a profiled task"));
        })
    }));
    assert!(caught.is_err());
    let profile = runtime.profile(|| fib(18)).unwrap();
    assert_eq!(*profile.result(), 2584);
    check_sums(profile.analysis(), 2);
}

#[test]
fn the_three_outputs_are_written() {
    let runtime = runtime(2);
    let profile = runtime.profile(|| fib(18)).unwrap();
    let dir = std::env::temp_dir().join(format!("prescient-trace-test-{}", std::process::id()));
    let files = profile.write(&dir).unwrap();
    let report = std::fs::read_to_string(&files.report).unwrap();
    assert!(report.contains("critical path"), "{report}");
    assert!(report.contains("bytes per strand"), "{report}");
    let json = std::fs::read_to_string(&files.chrome_trace).unwrap();
    assert!(json.starts_with('{') && json.contains("\"traceEvents\""));
    let svg = std::fs::read_to_string(&files.svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Many more workers than cores, every construct, many sessions: each
/// recording must assemble into a valid DAG.
#[test]
fn oversubscribed_mixed_programs_record_valid_dags() {
    for inlining in [Inlining::Never, Inlining::Adaptive] {
        let runtime = runtime_with(16, Params::DEFAULT.with_inlining(inlining));
        for round in 0..10u64 {
            let profile = runtime
                .profile(|| {
                    let event = Arc::new(Event::new());
                    let group = TaskGroup::new();
                    let total = AtomicUsize::new(0);
                    prescient::scope(|s| {
                        for i in 0..8 {
                            let event = event.clone();
                            let total = &total;
                            s.spawn(move |_| {
                                if i % 3 == 0 {
                                    event.wait();
                                }
                                total.fetch_add(
                                    fib(12 + (i + round) % 5) as usize,
                                    Ordering::Relaxed,
                                );
                            });
                        }
                        for i in 0..8u64 {
                            group.spawn(move || {
                                let _ = fib(10 + i % 4);
                            });
                        }
                        let handle = prescient::spawn(|| fib(16));
                        event.set();
                        group.wait();
                        handle.join()
                    });
                    let sum = dataflow(|df| {
                        let mut acc = df.data(0u64);
                        for i in 0..16u64 {
                            df.task(acc.inout(), move |a: &mut u64| *a += fib(8 + i % 6));
                        }
                        df.wait();
                        *acc.get_mut()
                    });
                    (total.load(Ordering::Relaxed), sum)
                })
                .unwrap();
            assert!(profile.result().0 > 0);
            check_sums(profile.analysis(), 16);
        }
    }
}

/// A loop spawner with room for one queued task runs most of its children
/// itself: they are no tasks, but their time shows as the spawner's inline
/// time on the critical path, and the report says so.
#[test]
fn children_a_full_deque_runs_inline_are_timed_into_their_spawner() {
    let runtime = runtime_with(
        2,
        Params::DEFAULT
            .with_inlining(Inlining::Never)
            .with_queue_capacity(1),
    );
    let profile = runtime
        .profile(|| {
            prescient::scope(|s| {
                for _ in 0..40 {
                    s.spawn(|_| sleep_ms(1));
                }
            })
        })
        .unwrap();
    let inline = profile.inline_on_path();
    assert!(inline.children >= 10, "{inline:?}");
    assert!(inline.ns >= 10 * MS, "{inline:?}");
    // The spawner is the root task, whose last strand ends the run.
    let (task, ns, children) = inline.by_task[0];
    let last_step = profile.analysis().critical_path.steps.last().unwrap();
    assert_eq!(task, profile.dag().strand(last_step.strand).task);
    assert!(ns <= inline.ns && children <= inline.children);
    // Inline time never exceeds its strand.
    for (i, strand) in profile.dag().strands().iter().enumerate() {
        assert!(profile.inlined_ns(prescient::profile::StrandId(i as u32)) <= strand.duration());
    }
    assert!(profile
        .report()
        .contains("children run inline by their spawner"));
    check_sums(profile.analysis(), 2);
}
