//! The fork-join table's children: one configuration each, measured and
//! printed as the child's [`Record`] line; and the idle child, which
//! measures the CPU time a pool burns while nothing runs.

use std::time::{Duration, Instant};

use super::pool::Work;
use super::programs::Program;
use crate::cli::Size;
use crate::harness::record::{cpu_time_ns, peak_rss_kib, Record};
use crate::programs::tree::Layout;

/// The child of one configuration: builds the input and the pool,
/// measures, prints the record. Returns the exit code.
pub fn run_child(
    program: Program,
    runner: &str,
    threads: usize,
    size: Size,
    layout: Layout,
) -> i32 {
    let work = program.prepare(layout, size);
    let pool = match super::pool::build(runner, threads) {
        Ok(pool) => pool,
        Err(e) => return failure(e),
    };
    let m = pool.measure(&work, &program.sampling(size));
    Record {
        batch: m.batch,
        cpu_per_wall: Some(m.cpu_per_wall),
        ..Record::of_times(m.per_run_ns)
    }
    .with_counters(m.counters)
    .print();
    drop(pool);
    // A 16M-node tree takes a while to free; the process is about to exit.
    std::mem::forget(work);
    0
}

/// Prints the record of `error` (and the error on stderr); returns 1.
fn failure(error: String) -> i32 {
    eprintln!("error: {error}");
    Record::failure(error).print();
    1
}

/// Builds `runner`'s pool, runs one tiny job on it, then sleeps one second
/// (a tenth of one at [`Size::Test`]) and measures the process CPU time
/// burned meanwhile. For chili, the scope of the tiny job is dropped before
/// the sleep (a held scope keeps chili's heartbeat thread ticking). Prints
/// the record (the sleep's wall time as its one time, the CPU time over it
/// as its `cpu_per_wall`); returns the exit code.
pub fn run_idle_child(runner: &str, threads: usize, size: Size) -> i32 {
    let pool = match super::pool::build(runner, threads) {
        Ok(pool) => pool,
        Err(e) => return failure(e),
    };
    pool.time(&Work::fib(15), 1);
    let cpu0 = cpu_time_ns();
    let wall0 = Instant::now();
    std::thread::sleep(idle_time(size));
    let cpu = cpu_time_ns().saturating_sub(cpu0) as f64;
    let wall = wall0.elapsed().as_nanos() as f64;
    Record {
        cpu_per_wall: Some(cpu / wall),
        peak_rss_kib: Some(peak_rss_kib()),
        ..Record::of_times(vec![wall])
    }
    .print();
    0
}

/// How long an idle child sleeps: one second, a tenth of one at
/// [`Size::Test`].
pub const fn idle_time(size: Size) -> Duration {
    match size {
        Size::Test => Duration::from_millis(100),
        Size::Full | Size::Quick => Duration::from_secs(1),
    }
}
