//! Measures what one task costs on a one-worker runtime, per spawn kind and
//! per path, and where the time goes: nanoseconds per task over a plain loop
//! calling the same tiny body, heap allocations and bytes per task (counted by
//! a counting global allocator), and suspensions per task (the runtime's
//! counters).
//!
//! The kinds: [`prescient::spawn`] + [`TaskHandle::join`], [`Scope::spawn`]
//! inside [`prescient::scope`], and [`TaskGroup::spawn`] + [`TaskGroup::wait`].
//! Each runs `N` tasks in batches of 1024: spawn the batch, then join its
//! handles newest first / end its scope / wait for the group.
//!
//! The paths:
//! * `inline`: queue capacity 1, and one task deferred first and left
//!   unstarted, so the deque is full and every spawn runs as a plain call
//!   before it returns (lazy task creation);
//! * `deferred`: queue capacity 65536, so every task is pushed to the deque
//!   and later claimed and run by its joiner (there is no other worker).
//!
//! Each figure is the best of several repetitions (allocations: the fewest);
//! the counters check that every task took the path its row names.
//!
//! Run: `cargo run --release -p prescient-examples --example spawn_cost`
//! (`-- N` for `N` tasks per repetition, default 200000; `-- --quick` for
//! 20000 tasks and fewer repetitions).
//!
//! What to look at: the deferred rows against the inline ones: a deferred
//! task pays one allocation (allocs/task), the deque push and the claim.

use prescient::{
    tuning::Inlining, tuning::MAX_QUEUE_CAPACITY, Params, Runtime, Scope, TaskGroup, TaskHandle,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Heap allocations (`alloc`, `alloc_zeroed` and `realloc` calls) so far.
static ALLOCS: AtomicU64 = AtomicU64::new(0);
/// Bytes asked for by those calls (a `realloc` counts its new size).
static BYTES: AtomicU64 = AtomicU64::new(0);

/// [`System`], counting allocations in [`ALLOCS`] and [`BYTES`].
struct CountingAlloc;

impl CountingAlloc {
    fn count(size: usize) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(size as u64, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are ours; counting touches only atomics
// and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::count(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::count(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract, and
        // `ptr` came from `System` (every method above forwards to it).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::count(new_size);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, and
        // `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Tasks spawned before they are joined or waited for.
const BATCH: u64 = 1024;

/// The task body: tiny, and a real call in every variant.
#[inline(never)]
fn body(i: u64) -> u64 {
    black_box(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7
}

#[derive(Clone, Copy)]
enum Kind {
    Spawn,
    Scope,
    Group,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Spawn, Kind::Scope, Kind::Group];

    fn name(self) -> &'static str {
        match self {
            Kind::Spawn => "spawn+join",
            Kind::Scope => "scope.spawn",
            Kind::Group => "group.spawn+wait",
        }
    }
}

/// The batches `[start, end)` of `0..n`.
fn batches(n: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..n)
        .step_by(BATCH as usize)
        .map(move |start| (start, (start + BATCH).min(n)))
}

/// The baseline: the same bodies as plain calls, in the same batches.
fn plain(n: u64) {
    for (start, end) in batches(n) {
        for i in start..end {
            black_box(body(i));
        }
    }
}

/// Runs `n` tasks of `kind` on the current worker. `handles` is empty and
/// holds `BATCH` handles without growing; `group` has no pending tasks.
fn tasks(kind: Kind, n: u64, handles: &mut Vec<TaskHandle<u64>>, group: &TaskGroup) {
    for (start, end) in batches(n) {
        match kind {
            Kind::Spawn => {
                for i in start..end {
                    handles.push(prescient::spawn(move || body(i)));
                }
                // Newest first: each join finds its own task on top.
                while let Some(handle) = handles.pop() {
                    black_box(handle.join());
                }
            }
            Kind::Scope => prescient::scope(|s: &Scope<'_>| {
                for i in start..end {
                    s.spawn(move |_| {
                        black_box(body(i));
                    });
                }
            }),
            Kind::Group => {
                for i in start..end {
                    group.spawn(move || {
                        black_box(body(i));
                    });
                }
                group.wait();
            }
        }
    }
}

/// One measurement: (seconds, allocations, bytes) of one call of `f`.
fn measure(f: impl FnOnce()) -> (f64, u64, u64) {
    let (allocs, bytes) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let t = Instant::now();
    f();
    let seconds = t.elapsed().as_secs_f64();
    (
        seconds,
        ALLOCS.load(Ordering::Relaxed) - allocs,
        BYTES.load(Ordering::Relaxed) - bytes,
    )
}

/// The best of `reps` measurements: the shortest time, the fewest
/// allocations and bytes.
fn best(reps: usize, mut f: impl FnMut()) -> (f64, u64, u64) {
    (0..reps)
        .map(|_| measure(&mut f))
        .fold((f64::MAX, u64::MAX, u64::MAX), |a, b| {
            (a.0.min(b.0), a.1.min(b.1), a.2.min(b.2))
        })
}

fn main() {
    let mut n: u64 = 200_000;
    let mut reps = 9;
    for arg in std::env::args().skip(1) {
        if arg == "--quick" {
            n = 20_000;
            reps = 3;
        } else {
            n = arg
                .parse()
                .unwrap_or_else(|_| panic!("usage: spawn_cost [N] [--quick]; got {arg:?}"));
        }
    }
    assert!(n > 0, "N must be positive");
    let policy = Params::DEFAULT.queue_policy;
    println!(
        "spawn cost on 1 worker, {policy} policy: {n} tasks per repetition in batches of \
         {BATCH}, best of {reps}"
    );
    println!(
        "{:<16} {:<8} {:>12} {:>12} {:>12} {:>10}",
        "kind", "path", "ns/task", "allocs/task", "bytes/task", "susp/task"
    );
    for (path, capacity) in [("inline", 1), ("deferred", MAX_QUEUE_CAPACITY)] {
        let rt = Runtime::builder()
            // The scheduler's own paths: no inliner deciding for the sites.
            .params(
                Params::DEFAULT
                    .with_queue_capacity(capacity)
                    .with_inlining(Inlining::Never),
            )
            .num_workers(1)
            .build()
            .unwrap();
        let rows = rt.run(|| {
            let mut handles = Vec::with_capacity(BATCH as usize);
            let group = TaskGroup::new();
            // Fills the one-slot deque for the inline path; never started
            // before its join below, since nothing here waits for it.
            let filler = (path == "inline").then(|| prescient::spawn(|| 0u64));
            let (seq, _, _) = best(reps, || plain(n));
            let rows: Vec<_> = Kind::ALL
                .iter()
                .map(|&kind| {
                    let before = rt.counters();
                    let (t, allocs, bytes) = best(reps, || tasks(kind, n, &mut handles, &group));
                    let delta = rt.counters().since(&before);
                    let all = n * reps as u64;
                    let (deferred, inlined) = if path == "inline" { (0, all) } else { (all, 0) };
                    assert_eq!(
                        (delta.spawns, delta.inlined_spawns),
                        (deferred, inlined),
                        "{} {path}: not every task took this path",
                        kind.name()
                    );
                    (kind, t, allocs, bytes, delta.suspensions)
                })
                .collect();
            if let Some(filler) = filler {
                black_box(filler.join());
            }
            (seq, rows)
        });
        let (seq, rows) = rows;
        let per_task = |count: u64| count as f64 / n as f64;
        for (kind, t, allocs, bytes, suspensions) in rows {
            println!(
                "{:<16} {:<8} {:>12.1} {:>12.3} {:>12.1} {:>10.3}",
                kind.name(),
                path,
                (t - seq) / n as f64 * 1e9,
                per_task(allocs),
                per_task(bytes),
                suspensions as f64 / (n * reps as u64) as f64,
            );
        }
    }
    println!(
        "What to look at: deferred against inline ns/task; a deferred task pays one \
         allocation (allocs/task), the deque push and the claim."
    );
}
