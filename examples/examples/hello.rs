//! The first program to read: fork-join with `join`, tasks with `spawn`,
//! borrowed data with `scope`, task groups, and an `Event` a task blocks on
//! without blocking its worker.
//!
//! Run: `cargo run --release -p prescient-examples --example hello`
//!
//! What to look at: the results are the same on every run, whichever worker
//! ran each task; the last line's counters say how the runtime ran them
//! (spawns deferred to a deque or run inline, steals, suspended waits).

use prescient::tuning::QueuePolicy;
use prescient::{Event, Params, Runtime, TaskGroup};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(move || fib(n - 1), move || fib(n - 2));
    a + b
}

fn main() {
    // Parameters are a `const`: an invalid value is a compile error.
    const PARAMS: Params = Params::DEFAULT
        .with_queue_policy(QueuePolicy::InsertFrontStealBack)
        .with_queue_capacity(4)
        .with_stack_size(256 * 1024)
        .checked();
    let runtime = Runtime::builder()
        .params(PARAMS)
        .num_workers(4)
        .build()
        .expect("valid configuration");

    runtime.run(|| {
        // 1. join: two closures, potentially in parallel.
        println!("fib(30) = {}", fib(30));

        // 2. spawn: a 'static task with a handle.
        let handle = prescient::spawn(|| (1..=100u64).sum::<u64>());
        println!("sum 1..=100 = {}", handle.join());

        // 3. scope: tasks that borrow local data.
        let mut squares = vec![0u64; 8];
        prescient::scope(|s| {
            for (i, slot) in squares.iter_mut().enumerate() {
                s.spawn(move |_| *slot = (i * i) as u64);
            }
        });
        println!("squares = {squares:?}");

        // 4. A task group, and an event a task waits for: the waiting task
        //    suspends, and its worker runs other tasks meanwhile. The event
        //    is set by a task spawned *before* the waiter: a spawn may run
        //    its task inline, before `spawn` returns (lazy task creation),
        //    so a task must never wait for something its spawner does only
        //    after spawning it.
        let ready = Arc::new(Event::new());
        let total = Arc::new(AtomicU64::new(0));
        let group = TaskGroup::new();
        for i in 0..10 {
            let total = total.clone();
            group.spawn(move || {
                total.fetch_add(i, Ordering::Relaxed);
            });
        }
        {
            let ready = ready.clone();
            group.spawn(move || ready.set());
        }
        {
            let (ready, total) = (ready.clone(), total.clone());
            group.spawn(move || {
                ready.wait();
                total.fetch_add(1000, Ordering::Relaxed);
            });
        }
        group.wait();
        println!("group total = {}", total.load(Ordering::Relaxed));
    });

    let counters = runtime.counters();
    println!(
        "{} spawns deferred, {} inlined, {} steals, {} suspensions",
        counters.spawns, counters.inlined_spawns, counters.steals, counters.suspensions
    );
    println!(
        "What to look at: the results never change; the counters say how the runtime ran them \
         (spawns deferred or run inline, steals, suspended waits)."
    );
}
