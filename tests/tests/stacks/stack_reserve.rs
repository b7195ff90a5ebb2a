//! Task stacks are a reserve and a commitment (`runtime/src/stack.rs`):
//!
//! * the reserve (`Params::stack_size`) is the only limit, and a large one
//!   is cheap: 100,000 levels of recursion on a 256 MiB reserve;
//! * the commitment is never a limit: a task goes far below it;
//! * a pooled stack that went below its commitment is trimmed back to it
//!   plus one page — at once when the canary below the commitment changed,
//!   and before the worker parks when a frame spanned the canary without
//!   writing it;
//! * the runtime's own paths fit in the headroom it keeps below every
//!   reserve, whatever the task used of its reserve: a panic formatting its
//!   backtrace (`RUST_BACKTRACE=1`), dataflow submission under a forced DAST
//!   manager, and (with the `trace` feature) a profiled run, each at the
//!   bottom of a 16 KiB reserve (child processes: an overflow aborts).

use prescient::tuning::{DastMode, MIN_STACK_SIZE};
use prescient::{Params, Runtime};
use prescient_tests::{test_path, watchdog};
use std::mem::MaybeUninit;
use std::process::Command;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(300);
const CHILD_ENV: &str = "PRESCIENT_TESTS_STACK_RESERVE_CHILD";

/// Recursion with a real frame: `depth` levels, each holding 64 bytes.
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let local = std::hint::black_box([depth as u8; 64]);
    if depth == 0 {
        return 0;
    }
    recurse(depth - 1) + u64::from(std::hint::black_box(local)[3] & 1)
}

/// The expected value of [`recurse`]: the odd depths in `1..=depth`.
fn recurse_expected(depth: u64) -> u64 {
    depth.div_ceil(2)
}

/// Approximately this thread's stack pointer.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(std::ptr::addr_of!(marker)) as usize
}

/// Recurses until it is `bytes` below `top` (one 256-byte frame per level),
/// then runs `f` there.
#[inline(never)]
fn at_depth<R>(top: usize, bytes: usize, f: &mut dyn FnMut() -> R) -> R {
    let mut local = [0u8; 256];
    std::hint::black_box(&mut local);
    if top.saturating_sub(stack_address()) >= bytes {
        return f();
    }
    let r = at_depth(top, bytes, f);
    std::hint::black_box(&local);
    r
}

#[test]
fn a_hundred_thousand_levels_on_a_256_mib_reserve() {
    const DEPTH: u64 = 100_000;
    let rt = Runtime::builder()
        .params(Params::DEFAULT.with_stack_size(256 << 20))
        .num_workers(2)
        .build()
        .unwrap();
    // On the task running `Runtime::run`, in a spawned task and in both
    // halves of a join.
    let got = watchdog("deep recursion", LIMIT, || {
        rt.run(|| {
            let spawned = prescient::spawn(|| recurse(DEPTH));
            let (a, b) = prescient::join(|| recurse(DEPTH), || recurse(DEPTH));
            recurse(DEPTH) + spawned.join() + a + b
        })
    });
    assert_eq!(got, 4 * recurse_expected(DEPTH));
}

/// A closure with a 4 MiB local, run from a plain thread whose own stack is
/// 256 KiB: it runs on a task stack, and no frame on the calling thread
/// holds the local (in release, where `run`'s fast path could inline it).
#[test]
fn a_large_closure_runs_from_a_thread_with_a_small_stack() {
    let rt = Runtime::builder().num_workers(2).build().unwrap();
    let sum = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn_scoped(s, || {
                rt.run(|| {
                    let big = std::hint::black_box([7u8; 4 << 20]);
                    big.iter().map(|&b| u64::from(b)).sum::<u64>()
                })
            })
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(sum, 7 * (4 << 20));
}

/// The resident pages of the mapping that contains `address`, and the
/// mapping's bounds, from `/proc/self/maps` and `mincore`.
fn resident_pages_of_mapping(address: usize) -> (usize, usize, usize) {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let (low, high) = maps
        .lines()
        .filter_map(|line| {
            let range = line.split_whitespace().next()?;
            let (low, high) = range.split_once('-')?;
            let low = usize::from_str_radix(low, 16).ok()?;
            let high = usize::from_str_radix(high, 16).ok()?;
            (low <= address && address < high).then_some((low, high))
        })
        .next()
        .expect("the stack's mapping");
    let mut vec = vec![0u8; (high - low) / page()];
    // SAFETY: `[low, high)` is a mapping of this process, page aligned;
    // `vec` has one byte per page.
    let rc = unsafe { libc::mincore(low as *mut libc::c_void, high - low, vec.as_mut_ptr()) };
    assert_eq!(rc, 0);
    (vec.iter().filter(|&&b| b & 1 != 0).count(), low, high)
}

fn page() -> usize {
    // SAFETY: `sysconf` has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// Waits until `done()` holds, at most 10 s.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The commitment of the trimming tests.
const COMMITTED: usize = 32 << 10;

/// A one-worker runtime whose stacks commit [`COMMITTED`] bytes.
fn committing_runtime() -> Runtime {
    Runtime::builder()
        .params(Params::DEFAULT.with_committed_stack_size(COMMITTED))
        .num_workers(1)
        .build()
        .unwrap()
}

/// A task goes 1 MiB deep on a stack that commits 32 KiB: no overflow, and
/// its stack goes back to 32 KiB plus one page (at the job's end, as the
/// canary below the commitment was overwritten — `runtime/src/scheduler/fiber/mod.rs`'s unit tests
/// check that path alone — or at the latest before the worker parks).
#[test]
fn a_deep_task_runs_past_its_commitment_and_is_trimmed_when_it_ends() {
    let rt = committing_runtime();
    let before = rt.counters();
    let (sum, address) = rt.run(|| {
        let top = stack_address();
        // 1 MiB of 64-byte frames, far below the commitment.
        let sum = recurse((1 << 20) / 64);
        (sum, top)
    });
    assert_eq!(sum, recurse_expected((1 << 20) / 64));
    // The job's end is after `run` returns (the result is published first).
    wait_for("a trim", || rt.counters().since(&before).stack_trims >= 1);
    let (resident, low, high) = resident_pages_of_mapping(address);
    // The commitment and the canary page; the guard is a mapping of its own.
    assert_eq!(
        resident,
        COMMITTED / page() + 1,
        "resident pages of the stack [{low:#x}, {high:#x})"
    );
}

/// A frame that spans the canary without writing it (an uninitialised
/// buffer) escapes the check at the task's end; the worker trims the stack
/// before it parks.
#[test]
fn a_stack_whose_canary_survived_is_trimmed_before_its_worker_parks() {
    let rt = committing_runtime();
    let before = rt.counters();
    let address = rt.run(|| {
        let top = stack_address();
        // 256 KiB that nobody writes, around the canary (32 KiB below the
        // top), with recursion below it touching pages.
        let mut buffer = MaybeUninit::<[u8; 256 << 10]>::uninit();
        std::hint::black_box(&mut buffer);
        std::hint::black_box(recurse(1 << 12));
        top
    });
    // Whether the end-of-task check caught it (a compiler may write into the
    // buffer's frame) or not, the stack is back at its commitment once the
    // worker parked.
    wait_for("the worker trims its pooled stack", || {
        resident_pages_of_mapping(address).0 == COMMITTED / page() + 1
    });
    let delta = rt.counters().since(&before);
    assert!(delta.stack_trims >= 1, "{delta:?}");
}

/// Without a commitment (no analysis), a stack keeps what it touched, as a
/// thread's does: nothing is trimmed.
#[test]
fn without_a_commitment_a_stack_keeps_what_it_touched() {
    let rt = Runtime::builder().num_workers(1).build().unwrap();
    assert_eq!(rt.params().committed_stack_size, 0);
    let before = rt.counters();
    let address = rt.run(|| {
        let top = stack_address();
        std::hint::black_box(recurse((512 << 10) / 64));
        top
    });
    std::thread::sleep(Duration::from_millis(300));
    let (resident, _, _) = resident_pages_of_mapping(address);
    assert!(resident * page() >= 256 << 10, "{resident} pages");
    assert_eq!(rt.counters().since(&before).stack_trims, 0);
}

// ----- the runtime's own paths at the bottom of the smallest reserve -----

/// How far below the task's start each child goes before the runtime's
/// path runs: all of a 16 KiB reserve but 1 KiB.
const NEAR_THE_BOTTOM: usize = MIN_STACK_SIZE - 1024;

fn smallest_reserve(params: Params) -> Params {
    params.with_stack_size(MIN_STACK_SIZE)
}

fn child(role: &str) {
    match role {
        "panic" => {
            // The default panic hook prints the message and, with
            // RUST_BACKTRACE=1, a symbolised backtrace, on the panicking
            // task's stack.
            let rt = Runtime::builder()
                .params(smallest_reserve(Params::DEFAULT))
                .num_workers(2)
                .build()
                .unwrap();
            for _ in 0..3 {
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    rt.run(|| {
                        let top = stack_address();
                        at_depth(top, NEAR_THE_BOTTOM, &mut || -> u64 {
                            panic!("a panic at the bottom of the reserve")
                        })
                    })
                }));
                assert!(caught.is_err());
                // Also in a spawned task, joined by its parent.
                let joined = rt.run(|| {
                    let handle = prescient::spawn(|| {
                        let top = stack_address();
                        at_depth(top, NEAR_THE_BOTTOM, &mut || -> u64 {
                            panic!("a spawned panic at the bottom")
                        })
                    });
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()))
                });
                assert!(joined.is_err());
            }
            // The runtime is still usable.
            assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2));
            println!("CHILD OK");
        }
        "dast" => {
            let rt = Runtime::builder()
                .params(smallest_reserve(
                    Params::DEFAULT.with_dast(DastMode::Forced),
                ))
                .num_workers(2)
                .build()
                .unwrap();
            let total = rt.run(|| {
                let top = stack_address();
                at_depth(top, NEAR_THE_BOTTOM, &mut || {
                    let mut values = vec![1u64; 64];
                    prescient::dataflow(|df| {
                        let tiles = df.tiles(&mut values, 8);
                        for round in 0..4u64 {
                            for i in 0..tiles.len() {
                                df.task(tiles.inout(i), move |tile: &mut [u64]| {
                                    tile.iter_mut().for_each(|v| *v += round);
                                });
                            }
                        }
                    });
                    values.iter().sum::<u64>()
                })
            });
            assert_eq!(total, 64 * (1 + 6));
            println!("CHILD OK");
        }
        // The profiler exists only with the `trace` feature.
        #[cfg(feature = "trace")]
        "profile" => {
            let rt = Runtime::builder()
                .params(smallest_reserve(Params::DEFAULT))
                .num_workers(2)
                .trace(true)
                .build()
                .unwrap();
            let profile = rt
                .profile(|| {
                    let top = stack_address();
                    at_depth(top, NEAR_THE_BOTTOM, &mut || {
                        let spawned = prescient::spawn(|| 40u64);
                        let (a, b) = prescient::join(|| 1u64, || 1u64);
                        let event = prescient::Event::new();
                        prescient::scope(|s| s.spawn(|_| event.set()));
                        event.wait();
                        spawned.join() + a + b
                    })
                })
                .expect("the profile");
            assert_eq!(*profile.result(), 42);
            println!("CHILD OK");
        }
        other => panic!("unknown role {other}"),
    }
}

fn run_child(test: &str, role: &str) {
    if let Ok(role) = std::env::var(CHILD_ENV) {
        child(&role);
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test_path(module_path!(), test)])
        .args(["--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, role)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("re-execute the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("CHILD OK"),
        "{role}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(
        !stderr.contains("task stack overflow"),
        "{role}: stderr:\n{stderr}"
    );
    if role == "panic" {
        assert!(
            stderr.contains("a panic at the bottom of the reserve"),
            "{stderr}"
        );
        assert!(stderr.contains("stack backtrace"), "{stderr}");
    }
}

#[test]
fn a_panic_with_backtrace_at_the_bottom_of_the_smallest_reserve() {
    run_child(
        "a_panic_with_backtrace_at_the_bottom_of_the_smallest_reserve",
        "panic",
    );
}

#[test]
fn dataflow_under_dast_at_the_bottom_of_the_smallest_reserve() {
    run_child(
        "dataflow_under_dast_at_the_bottom_of_the_smallest_reserve",
        "dast",
    );
}

#[cfg(feature = "trace")]
#[test]
fn profiling_at_the_bottom_of_the_smallest_reserve() {
    run_child("profiling_at_the_bottom_of_the_smallest_reserve", "profile");
}
