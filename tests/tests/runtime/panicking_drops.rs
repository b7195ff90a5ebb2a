//! A worker survives anything a task does short of an abort: every user value
//! the runtime drops on its own account — a detached task's result, a panic
//! payload nobody receives, the second panic of a scope, group or dataflow
//! scope, a retired dataflow value, the other half of a panicking `join` — is
//! dropped under `catch_unwind`, so a panic in its `Drop` neither kills the
//! worker (stranding its suspended tasks: a hang) nor replaces the panic that
//! should propagate. Also: a panicking `thread_name` callback stops the
//! workers already started, and a closed stderr does not turn the runtime's
//! own reports into panics.
//!
//! The tests with dataflow scopes run once per DAST mode (`per_dast_mode!`:
//! `test_name::off`, `::forced`, ...): a task's panic and its scope's retired
//! values travel through the graph requests, which each mode executes on
//! other threads.

use prescient::tuning::{DastMode, QueuePolicy};
use prescient::{Event, Runtime, TaskGroup};
use prescient_tests::{
    assert_threads_gone, message, per_dast_mode, quiet_expected_panics, small_stack_runtime,
    small_stack_runtime_dast, test_path, watchdog,
};
use std::any::Any;
use std::io::{Read, Write};
use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);

/// A value whose `Drop` panics (with an "expected…" message, kept off
/// stderr by `quiet_expected_panics`), counting its drops.
#[derive(Debug)]
struct PanicOnDrop {
    what: &'static str,
    drops: Arc<AtomicUsize>,
}

impl PanicOnDrop {
    fn new(what: &'static str, drops: &Arc<AtomicUsize>) -> PanicOnDrop {
        PanicOnDrop {
            what,
            drops: drops.clone(),
        }
    }
}

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        panic!("expected: the drop of {} panics", self.what);
    }
}

/// Drops a payload the test received, whose `Drop` may panic.
fn drop_payload(payload: Box<dyn Any + Send>) {
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
}

fn one_worker(handler_calls: &Arc<AtomicUsize>) -> Runtime {
    let calls = handler_calls.clone();
    Runtime::builder()
        .num_workers(1)
        .panic_handler(move |payload| {
            calls.fetch_add(1, Ordering::SeqCst);
            drop_payload(payload);
        })
        .build()
        .unwrap()
}

#[test]
fn a_detached_result_whose_drop_panics_goes_to_the_handler() {
    quiet_expected_panics();
    let calls = Arc::new(AtomicUsize::new(0));
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = one_worker(&calls);
    watchdog("detached result dropped by the worker", LIMIT, || {
        // The handle is dropped first, so the worker drops the result.
        let gate = Arc::new(Event::new());
        let (g, d) = (gate.clone(), drops.clone());
        drop(rt.spawn(move || {
            g.wait();
            PanicOnDrop::new("a detached result", &d)
        }));
        gate.set();
        // Before the fix the worker's main loop died here: `run` hung.
        assert_eq!(rt.run(|| 1 + 1), 2);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    });
    watchdog("detached result dropped with the handle", LIMIT, || {
        // The task finishes first; dropping the handle drops the result.
        let d = drops.clone();
        let handle = rt.spawn(move || PanicOnDrop::new("a finished result", &d));
        while !handle.is_finished() {
            std::thread::yield_now();
        }
        drop(handle);
        assert_eq!(drops.load(Ordering::SeqCst), 2);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(rt.run(|| 2 + 2), 4);
    });
}

#[test]
fn payloads_whose_drop_panics_do_not_kill_the_worker() {
    quiet_expected_panics();
    let drops = Arc::new(AtomicUsize::new(0));
    // No handler: the runtime drops the payload itself.
    let rt = Runtime::builder().num_workers(1).build().unwrap();
    watchdog("payload dropped without a handler", LIMIT, || {
        let d = drops.clone();
        drop(rt.spawn(move || panic_any(PanicOnDrop::new("a payload", &d))));
        assert_eq!(rt.run(|| 1 + 1), 2);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    });
    // A handler that panics, with a payload whose drop panics too.
    let d = drops.clone();
    let rt = Runtime::builder()
        .num_workers(1)
        .panic_handler(move |payload| {
            drop_payload(payload);
            panic_any(PanicOnDrop::new("the handler's own payload", &d));
        })
        .build()
        .unwrap();
    watchdog("a panicking handler's payload", LIMIT, || {
        drop(rt.spawn(|| panic!("expected: a detached panic")));
        assert_eq!(rt.run(|| 1 + 1), 2);
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    });
}

/// Two tasks of a scope (group, dataflow scope) panic with payloads whose
/// drop panics: the first propagates, the second is dropped safely, nothing
/// hangs (before the fix the second payload's drop skipped the decrement of
/// the pending count).
fn second_panics_of_scopes_groups_and_dataflow_are_dropped_safely(mode: DastMode) {
    quiet_expected_panics();
    for workers in [1, 2] {
        for policy in QueuePolicy::ALL {
            let what = format!("policy={policy} workers={workers} dast={mode}");
            let rt = small_stack_runtime_dast(policy, 4, workers, mode);
            let drops = Arc::new(AtomicUsize::new(0));
            watchdog(&what, LIMIT, || {
                let d = &drops;
                let scope = catch_unwind(AssertUnwindSafe(|| {
                    rt.run(|| {
                        prescient::scope(|s| {
                            for _ in 0..2 {
                                s.spawn(move |_| panic_any(PanicOnDrop::new("scope payload", d)));
                            }
                        })
                    })
                }));
                drop_payload(scope.expect_err("the scope propagates a panic"));

                let group = TaskGroup::new();
                let waited = catch_unwind(AssertUnwindSafe(|| {
                    rt.run(|| {
                        for _ in 0..2 {
                            let d = d.clone();
                            group.spawn(move || panic_any(PanicOnDrop::new("group payload", &d)));
                        }
                        group.wait();
                    })
                }));
                drop_payload(waited.expect_err("the group propagates a panic"));

                let dataflow = catch_unwind(AssertUnwindSafe(|| {
                    rt.run(|| {
                        prescient::dataflow(|df| {
                            for _ in 0..2 {
                                let value = df.data(0u32);
                                df.task(value.inout(), move |_: &mut u32| {
                                    panic_any(PanicOnDrop::new("dataflow payload", d))
                                });
                            }
                        })
                    })
                }));
                drop_payload(dataflow.expect_err("the dataflow scope propagates a panic"));
                // Every payload was dropped exactly once.
                assert_eq!(drops.load(Ordering::SeqCst), 6, "{what}");
                assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2), "{what}");
            });
        }
    }
}
per_dast_mode!(second_panics_of_scopes_groups_and_dataflow_are_dropped_safely);

/// Values retired while tasks were live are all freed at the wait, even when
/// some of their `Drop`s panic; the first such panic is re-raised.
fn every_retired_dataflow_value_is_freed_when_one_drop_panics(mode: DastMode) {
    quiet_expected_panics();
    let rt = small_stack_runtime_dast(QueuePolicy::InsertBackStealBack, 4, 2, mode);
    let drops = Arc::new(AtomicUsize::new(0));
    watchdog(&format!("retired values dast={mode}"), LIMIT, || {
        let result = catch_unwind(AssertUnwindSafe(|| {
            rt.run(|| {
                let gate = Event::new();
                let gate_ref = &gate;
                prescient::dataflow(|df| {
                    let blocker = df.data(());
                    df.task(blocker.inout(), move |_: &mut ()| gate_ref.wait());
                    // Dropped while the blocking task is live: retired.
                    for what in ["retired value 1", "retired value 2", "retired value 3"] {
                        drop(df.data(PanicOnDrop::new(what, &drops)));
                    }
                    gate_ref.set();
                })
            })
        }));
        let payload = result.expect_err("the first drop panic is re-raised");
        assert!(message(payload).contains("retired value"));
        assert_eq!(drops.load(Ordering::SeqCst), 3, "a retired value leaked");
    });
}
per_dast_mode!(every_retired_dataflow_value_is_freed_when_one_drop_panics);

/// `a` panics, and `b` (taken back from the deque and run after it) returns a
/// value whose drop panics: `a`'s payload is the one that propagates.
#[test]
fn a_panicking_drop_of_bs_result_does_not_replace_as_panic() {
    quiet_expected_panics();
    let drops = Arc::new(AtomicUsize::new(0));
    for policy in QueuePolicy::ALL {
        let rt = small_stack_runtime(policy, 4, 1);
        let d = &drops;
        let result = catch_unwind(AssertUnwindSafe(|| {
            rt.run(|| {
                prescient::join(
                    || -> u32 { panic!("expected: a panics") },
                    || PanicOnDrop::new("b's result", d),
                )
            })
        }));
        let payload = result.expect_err("join propagates a's panic");
        assert_eq!(message(payload), "expected: a panics", "policy={policy}");
    }
    assert_eq!(drops.load(Ordering::SeqCst), QueuePolicy::ALL.len());
}

#[test]
fn a_panicking_thread_name_callback_stops_the_started_workers() {
    quiet_expected_panics();
    let built = catch_unwind(|| {
        Runtime::builder()
            .num_workers(4)
            .thread_name(|i| {
                if i == 2 {
                    panic!("expected: no name for worker 2");
                }
                format!("namepanic-{i}")
            })
            .build()
    });
    assert_eq!(
        message(built.expect_err("the callback's panic propagates")),
        "expected: no name for worker 2"
    );
    // The two workers started before the panic were stopped and joined.
    assert_threads_gone(
        "namepanic-",
        Duration::from_secs(10),
        "a panicking thread_name callback",
    );
}

const CHILD_ENV: &str = "PRESCIENT_TESTS_CLOSED_STDERR_CHILD";

/// With stderr a pipe nobody reads any more (writes fail with `EPIPE`), the
/// runtime's reports — here "a detached task panicked" — must not panic the
/// way `eprintln!` does. Runs in a child process whose parent closes the
/// pipe before telling the child to start.
#[test]
fn reports_on_a_closed_stderr_do_not_kill_workers() {
    const TEST: &str = "reports_on_a_closed_stderr_do_not_kill_workers";
    if std::env::var(CHILD_ENV).is_ok() {
        let mut go = [0u8; 1];
        std::io::stdin().read_exact(&mut go).unwrap();
        let rt = Runtime::builder().num_workers(1).build().unwrap();
        for _ in 0..3 {
            drop(rt.spawn(|| panic!("a detached panic")));
        }
        let result = rt.run(|| 40 + 2);
        let mut stdout = std::io::stdout();
        writeln!(stdout, "RESULT {result}").unwrap();
        stdout.flush().unwrap();
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test_path(module_path!(), TEST)])
        .args(["--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    child.stdin.take().unwrap().write_all(b"g").unwrap();
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the child hung: its worker died reporting to a closed stderr");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(stdout.contains("RESULT 42"), "{status}: {stdout}");
}
