//! The free functions called outside any runtime use the lazily created
//! global runtime (as rayon does); `task_local!` works on plain threads; a
//! runtime can be entered from a task of another runtime.

use prescient::{Event, Runtime, TaskGroup};
use prescient_tests::watchdog;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use prescient_tests::fib_join as fib;

#[test]
fn free_functions_outside_any_runtime() {
    watchdog("global", Duration::from_secs(60), || {
        assert_eq!(prescient::current_worker_index(), None);
        let global = Runtime::global();
        assert_eq!(prescient::num_workers(), global.num_workers());
        assert!(std::ptr::eq(global, Runtime::global()));
        // join from a plain thread runs in the global runtime.
        let (a, b) = prescient::join(
            prescient::current_worker_index,
            prescient::current_worker_index,
        );
        assert!(a.is_some() && b.is_some());
        assert_eq!(fib(15), 610);
        // spawn, scope, groups and events.
        assert_eq!(prescient::spawn(|| fib(10)).join(), 55);
        let mut v = vec![0u32; 8];
        prescient::scope(|s| {
            for (i, x) in v.iter_mut().enumerate() {
                s.spawn(move |_| *x = i as u32);
            }
        });
        assert_eq!(v, [0, 1, 2, 3, 4, 5, 6, 7]);
        let count = Arc::new(AtomicUsize::new(0));
        let group = TaskGroup::new();
        for _ in 0..10 {
            let count = count.clone();
            group.spawn(move || {
                count.fetch_add(1, Ordering::SeqCst);
            });
        }
        group.wait();
        assert_eq!(count.load(Ordering::SeqCst), 10);
        let event = Arc::new(Event::new());
        let e = event.clone();
        let waiter = prescient::spawn(move || {
            e.wait();
            1
        });
        event.set();
        assert_eq!(waiter.join(), 1);
        // Many plain threads at once.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(fib(12), 144));
            }
        });
    });
}

prescient::task_local! {
    static K: &'static str;
}

#[test]
fn task_locals_on_plain_threads() {
    assert!(K.try_with(|_| ()).is_none());
    K.scope("outer", || {
        assert_eq!(K.with(|k| *k), "outer");
        K.scope("inner", || assert_eq!(K.with(|k| *k), "inner"));
        assert_eq!(K.with(|k| *k), "outer");
        // Another thread does not see this thread's value.
        std::thread::spawn(|| assert!(K.try_with(|_| ()).is_none()))
            .join()
            .unwrap();
        // A task of a runtime does not see the entering thread's value.
        let rt = Runtime::builder().num_workers(1).build().unwrap();
        assert!(rt.run(|| K.try_with(|_| ()).is_none()));
    });
    assert!(K.try_with(|_| ()).is_none());
    let r = std::panic::catch_unwind(|| K.with(|k| *k));
    assert!(r.is_err(), "`with` outside a scope panics");
}

#[test]
fn runtimes_nest() {
    watchdog("nested runtimes", Duration::from_secs(60), || {
        let outer = Runtime::builder().num_workers(2).build().unwrap();
        let inner = Runtime::builder().num_workers(2).build().unwrap();
        let v = outer.run(|| {
            let (a, b) =
                prescient::join(|| inner.run(|| fib(12) + inner.run(|| fib(5))), || fib(12));
            // A task of `outer` joins a handle of `inner`.
            a + b + inner.spawn(|| fib(6)).join()
        });
        assert_eq!(v, 144 + 5 + 144 + 8);
    });
}
