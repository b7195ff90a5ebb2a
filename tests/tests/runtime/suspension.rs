//! A task holding an `Rc` and a `task_local!` value across a wait that really
//! suspends sees both unchanged, on the same thread, after resuming — while
//! another task ran on that worker in between, bound its own value of the
//! same key, and is still suspended (with its value bound) when the first
//! task resumes. That is exactly what a `scoped-tls`-style thread-local would
//! get wrong.
//!
//! One worker, so the interleaving is deterministic; every policy, the
//! capacities that defer three jobs (4, 16, 128), and every kind of wait:
//! `join`, `TaskHandle::join`, `TaskGroup::wait`, the end of a `scope`, and
//! `Event::wait`. A joiner claims its own unstarted child and runs it inline,
//! so on one worker the join, handle, group and scope waits suspend because
//! the child waits: for an event that the first bystander sets.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime, TaskGroup, TaskHandle};
use prescient_tests::{small_stack_runtime, watchdog};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

prescient::task_local! {
    static TAG: String;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Join,
    Handle,
    Group,
    Scope,
    Event,
}

const WAITS: [Wait; 5] = [
    Wait::Join,
    Wait::Handle,
    Wait::Group,
    Wait::Scope,
    Wait::Event,
];

/// What a bystander task (one that runs on the worker while the main task
/// waits) saw.
#[derive(Clone, Debug)]
struct Seen {
    name: &'static str,
    seq: usize,
    worker: Option<usize>,
    thread: ThreadId,
    inherited: Option<String>,
}

struct Shared {
    seq: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
    /// Set by the main task after its wait returned: bystanders stay
    /// suspended, with their own TAG bound, until then.
    release: Event,
    /// Set by bystander Q when it starts; the child waits for it, so the
    /// main task's wait suspends even when it runs the child inline.
    child_go: Event,
}

/// A task that binds TAG to its own name and suspends until released.
fn bystander(shared: &Arc<Shared>, name: &'static str) -> TaskHandle<()> {
    let shared = shared.clone();
    prescient::spawn(move || {
        if name == "Q" {
            shared.child_go.set();
        }
        let inherited = TAG.try_with(|t| t.clone());
        shared.seen.lock().unwrap().push(Seen {
            name,
            seq: shared.seq.fetch_add(1, Ordering::SeqCst),
            worker: prescient::current_worker_index(),
            thread: std::thread::current().id(),
            inherited,
        });
        TAG.scope(name.to_owned(), || {
            shared.release.wait();
            assert_eq!(
                TAG.with(|t| t.clone()),
                name,
                "a bystander lost its own value"
            );
        });
    })
}

fn check(policy: QueuePolicy, capacity: usize, wait: Wait, rt: &Runtime) {
    let what = format!("{wait:?} policy={policy} capacity={capacity}");
    let shared = Arc::new(Shared {
        seq: AtomicUsize::new(0),
        seen: Mutex::new(Vec::new()),
        release: Event::new(),
        child_go: Event::new(),
    });
    let (before_seq, after_seq, worker, thread, suspensions) = rt.run(|| {
        let rc = Rc::new(RefCell::new(vec![1, 2, 3]));
        let alias = rc.clone();
        let thread = std::thread::current().id();
        let worker = prescient::current_worker_index();
        TAG.scope(String::from("main"), || {
            let suspensions_before = rt.counters().suspensions;
            let before_seq = shared.seq.fetch_add(1, Ordering::SeqCst);
            // Q is queued before the wait begins, and the child waits for
            // Q to start: so the wait suspends and Q runs meanwhile, under
            // every policy, whether the child runs inline (claimed by its
            // joiner) or as a job of its own.
            let mut bystanders = Vec::new();
            let child = {
                let shared = shared.clone();
                move || {
                    shared.child_go.wait();
                    assert_ne!(
                        TAG.try_with(|t| t.clone()).as_deref(),
                        Some("Q"),
                        "the child sees a bystander's value"
                    );
                }
            };
            match wait {
                Wait::Join => {
                    bystanders.push(bystander(&shared, "Q"));
                    prescient::join(|| bystanders.push(bystander(&shared, "R")), child);
                }
                Wait::Handle => {
                    bystanders.push(bystander(&shared, "Q"));
                    let h = prescient::spawn(child);
                    bystanders.push(bystander(&shared, "R"));
                    h.join();
                }
                Wait::Group => {
                    let group = TaskGroup::new();
                    bystanders.push(bystander(&shared, "Q"));
                    group.spawn(child);
                    bystanders.push(bystander(&shared, "R"));
                    group.wait();
                }
                Wait::Scope => prescient::scope(|s| {
                    bystanders.push(bystander(&shared, "Q"));
                    s.spawn(|_| child());
                    bystanders.push(bystander(&shared, "R"));
                }),
                Wait::Event => {
                    let done = Arc::new(Event::new());
                    bystanders.push(bystander(&shared, "Q"));
                    let d = done.clone();
                    drop(prescient::spawn(move || d.set()));
                    bystanders.push(bystander(&shared, "R"));
                    done.wait();
                }
            }
            let after_seq = shared.seq.fetch_add(1, Ordering::SeqCst);
            // Unchanged after resuming, on the same thread.
            assert_eq!(
                std::thread::current().id(),
                thread,
                "{what}: resumed on another thread"
            );
            assert_eq!(prescient::current_worker_index(), worker, "{what}");
            assert_eq!(
                TAG.with(|t| t.clone()),
                "main",
                "{what}: task-local clobbered"
            );
            assert_eq!(Rc::strong_count(&rc), 2, "{what}");
            assert_eq!(*alias.borrow(), [1, 2, 3], "{what}");
            rc.borrow_mut().push(4);
            assert_eq!(alias.borrow().len(), 4);
            let suspensions = rt.counters().suspensions - suspensions_before;
            shared.release.set();
            for b in bystanders {
                b.join();
            }
            assert_eq!(
                TAG.with(|t| t.clone()),
                "main",
                "{what}: after the bystanders"
            );
            (before_seq, after_seq, worker, thread, suspensions)
        })
    });
    let seen = shared.seen.lock().unwrap().clone();
    assert!(suspensions >= 1, "{what}: the wait did not suspend");
    let between: Vec<&Seen> = seen
        .iter()
        .filter(|s| before_seq < s.seq && s.seq < after_seq)
        .collect();
    if std::env::var_os("SHOW").is_some() {
        eprintln!("{what}: suspensions {suspensions}, between: {between:?}");
    }
    assert!(
        !between.is_empty(),
        "{what}: no other task ran on the worker during the wait: {seen:?}"
    );
    for s in &between {
        assert!(["Q", "R"].contains(&s.name), "{what}: {s:?}");
        assert_eq!(s.worker, worker, "{what}: {s:?}");
        assert_eq!(s.thread, thread, "{what}: {s:?}");
        // Deferred tasks start on a fiber of their own: they inherit nothing.
        assert_eq!(
            s.inherited, None,
            "{what}: {s:?} inherited the waiter's value"
        );
    }
}

#[test]
fn rc_and_task_local_survive_a_suspending_wait() {
    for policy in QueuePolicy::ALL {
        for capacity in [4, 16, 128] {
            let rt = small_stack_runtime(policy, capacity, 1);
            for wait in WAITS {
                let what = format!("{wait:?} policy={policy} capacity={capacity}");
                watchdog(&what, Duration::from_secs(30), || {
                    check(policy, capacity, wait, &rt)
                });
            }
        }
    }
}

/// On many workers nothing is deterministic, but the invariants still hold
/// on every resumption: same thread, same task-local value, same `Rc`.
#[test]
fn invariants_hold_on_many_workers() {
    for policy in QueuePolicy::ALL {
        for capacity in [1, 4, 128] {
            let rt = small_stack_runtime(policy, capacity, 4);
            let what = format!("policy={policy} capacity={capacity}");
            watchdog(&what, Duration::from_secs(30), || {
                let before = rt.counters();
                let total = rt.run(|| tree(0, 9));
                assert_eq!(total, 1 << 9, "{what}");
                assert!(
                    rt.counters().since(&before).suspensions > 0 || capacity == 1,
                    "{what}"
                );
            });
        }
    }
}

fn tree(depth: u32, max: u32) -> u64 {
    if depth == max {
        return 1;
    }
    let rc = Rc::new(depth);
    let thread = std::thread::current().id();
    TAG.scope(format!("d{depth}"), || {
        let (a, b) = prescient::join(
            || tree(depth + 1, max),
            || {
                // The task waits for an event its spawned child sets, so it
                // suspends whenever the child was deferred (a join would
                // claim the child back and run it inline instead).
                let done = Arc::new(Event::new());
                let set = done.clone();
                let child = prescient::spawn(move || {
                    let value = tree(depth + 1, max);
                    set.set();
                    value
                });
                done.wait();
                child.join()
            },
        );
        assert_eq!(std::thread::current().id(), thread);
        assert_eq!(TAG.with(|t| t.clone()), format!("d{depth}"));
        assert_eq!((*rc, Rc::strong_count(&rc)), (depth, 1));
        a + b
    })
}
