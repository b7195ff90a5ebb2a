//! The parallel range loop, `for_range` and `for_range_chunked`:
//!
//! * every index is visited exactly once (a counter per index), for empty,
//!   one-element, grain ≥ n, grain 1, grain 0 (taken as 1) and ranges that
//!   are no multiple of the grain, under every queue policy, capacities 1, 16
//!   and 128, on 1, 2 and 16 workers (16 oversubscribe this 2-core machine);
//! * the chunked form covers the range with disjoint, non-empty chunks of at
//!   most the grain;
//! * loops nest;
//! * a panic in the body reaches the caller only once no piece runs any more,
//!   with the lowest panicking index's payload, and the runtime stays usable;
//! * outside any runtime the loop runs on the global runtime's workers;
//! * (the stack a level of splitting costs is checked by a unit test in
//!   `runtime/src/range.rs`, which can make every chunk ask for a split);
//! * a `#[task_program]` module using both forms compiles (its imports stay
//!   used: `deny(unused_imports)`), runs on its own `PARAMS` and analysed
//!   stack size, and its `ANALYSIS` shows range-loop sites, λ ≥ 1, CF'17's
//!   loop capacity 128 and the calibrated trees' BF/32 (`PARAMS`).

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::{for_range, for_range_chunked, Params};
use prescient_tests::{
    message, quiet_expected_panics, runtime_with, small_stack_runtime, watchdog,
};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// `(range, grain)` cases: empty (also `start > end`), one element, grain ≥
/// n, grain 1, grain 0, not a multiple of the grain, not starting at 0.
fn cases() -> Vec<(Range<usize>, usize)> {
    #[allow(clippy::reversed_empty_ranges)] // an empty range on purpose
    let backwards = 9..3;
    vec![
        (0..0, 1),
        (0..0, 0),
        (backwards, 2),
        (0..1, 1),
        (0..1, 64),
        (0..7, 8),
        (0..8, 8),
        (0..100, 100),
        (0..1000, 1),
        (0..1000, 0),
        (0..1000, 7),
        (0..1000, 64),
        (5..2005, 3),
        (0..10_000, 333),
    ]
}

/// Runs `for_range` over `range` and checks that every index of it was
/// visited exactly once, and no other.
fn check_once(range: Range<usize>, grain: usize, what: &str) {
    let n = range.end.max(range.start) + 1;
    let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    for_range(range.clone(), grain, |i| {
        counts[i].fetch_add(1, Ordering::Relaxed);
    });
    for (i, c) in counts.iter().enumerate() {
        let expected = usize::from(range.contains(&i));
        assert_eq!(
            c.load(Ordering::Relaxed),
            expected,
            "{what}: index {i} of {range:?} (grain {grain})"
        );
    }
}

/// Runs `for_range_chunked` and returns its chunks, sorted.
fn chunks_of(range: Range<usize>, grain: usize) -> Vec<Range<usize>> {
    let seen = Mutex::new(Vec::new());
    for_range_chunked(range, grain, |chunk| seen.lock().unwrap().push(chunk));
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by_key(|c| c.start);
    seen
}

/// Checks that `chunks` tile `range` with non-empty chunks of at most
/// `grain` (0 taken as 1) indices.
fn check_tiling(range: &Range<usize>, grain: usize, chunks: &[Range<usize>], what: &str) {
    let grain = grain.max(1);
    if range.is_empty() {
        assert!(chunks.is_empty(), "{what}: {range:?} gave {chunks:?}");
        return;
    }
    let mut next = range.start;
    for c in chunks {
        assert_eq!(
            c.start, next,
            "{what}: gap or overlap at {c:?} in {range:?}"
        );
        assert!(
            !c.is_empty() && c.len() <= grain,
            "{what}: {c:?}, grain {grain}"
        );
        next = c.end;
    }
    assert_eq!(next, range.end, "{what}: {range:?} not covered: {chunks:?}");
}

#[test]
fn every_index_once_under_every_policy_capacity_and_worker_count() {
    for policy in QueuePolicy::ALL {
        for capacity in [1, 16, 128] {
            for workers in [1, 2, 16] {
                let what = format!("policy={policy} capacity={capacity} workers={workers}");
                let rt = small_stack_runtime(policy, capacity, workers);
                watchdog(&what, LIMIT, || {
                    rt.run(|| {
                        for (range, grain) in cases() {
                            check_once(range, grain, &what);
                        }
                    })
                });
            }
        }
    }
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // a list of one chunk, on purpose
fn chunks_tile_the_range_under_every_policy() {
    for policy in QueuePolicy::ALL {
        for workers in [1, 16] {
            let what = format!("policy={policy} workers={workers}");
            let rt = small_stack_runtime(policy, 16, workers);
            watchdog(&what, LIMIT, || {
                rt.run(|| {
                    for (range, grain) in cases() {
                        let chunks = chunks_of(range.clone(), grain);
                        check_tiling(&range, grain, &chunks, &what);
                    }
                })
            });
        }
    }
    // On one worker nobody asks for a split: grain-long chunks in order.
    let one = small_stack_runtime(QueuePolicy::InsertBackStealBack, 16, 1);
    one.run(|| {
        assert_eq!(chunks_of(0..10, 3), [0..3, 3..6, 6..9, 9..10]);
        assert_eq!(chunks_of(0..10, 10), [0..10]);
    });
}

#[test]
fn loops_nest() {
    for policy in QueuePolicy::ALL {
        let what = format!("policy={policy}");
        let rt = small_stack_runtime(policy, 16, 16);
        let counts: Vec<AtomicUsize> = (0..64 * 64).map(|_| AtomicUsize::new(0)).collect();
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for_range(0..64, 4, |i| {
                    for_range(0..64, 1, |j| {
                        counts[i * 64 + j].fetch_add(1, Ordering::Relaxed);
                    })
                })
            })
        });
        assert!(
            counts.iter().all(|c| c.load(Ordering::Relaxed) == 1),
            "{what}"
        );
    }
}

#[test]
fn panics_propagate_after_the_running_pieces_and_the_runtime_stays_usable() {
    quiet_expected_panics();
    for policy in QueuePolicy::ALL {
        for capacity in [1, 16] {
            for workers in [1, 2, 16] {
                let what = format!("policy={policy} capacity={capacity} workers={workers}");
                let rt = small_stack_runtime(policy, capacity, workers);
                watchdog(&what, LIMIT, || {
                    let running = AtomicUsize::new(0);
                    let visited = AtomicUsize::new(0);
                    let result = rt.run(|| {
                        catch_unwind(AssertUnwindSafe(|| {
                            for_range(0..1000, 1, |i| {
                                running.fetch_add(1, Ordering::SeqCst);
                                if i % 97 == 0 {
                                    std::thread::sleep(Duration::from_micros(200));
                                }
                                visited.fetch_add(1, Ordering::Relaxed);
                                running.fetch_sub(1, Ordering::SeqCst);
                                if i == 3 || i == 900 {
                                    panic!("expected: {i}");
                                }
                            })
                        }))
                    });
                    // The lowest panicking index wins: index 3 always runs
                    // (no piece left of it panics), and `join` prefers the
                    // payload of its first (left) half.
                    let payload = result.expect_err("the panic propagates");
                    assert_eq!(message(payload), "expected: 3", "{what}");
                    assert_eq!(
                        running.load(Ordering::SeqCst),
                        0,
                        "{what}: unwound while a piece still ran"
                    );
                    assert!(visited.load(Ordering::Relaxed) >= 4, "{what}");
                    // The runtime is still usable, loops included.
                    assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2), "{what}");
                    rt.run(|| check_once(0..500, 3, &what));
                });
            }
        }
    }
}

#[test]
fn outside_a_runtime_the_loop_runs_on_the_global_runtime() {
    assert_eq!(prescient::current_worker_index(), None);
    check_once(0..2000, 16, "outside");
    let off_worker = AtomicUsize::new(0);
    // A single piece too (range ≤ grain): it runs on a worker, not here.
    for (range, grain) in [(0..1, 1), (0..100, 1000), (0..5000, 7)] {
        for_range(range.clone(), grain, |_| {
            if prescient::current_worker_index().is_none() {
                off_worker.fetch_add(1, Ordering::Relaxed);
            }
        });
        let chunks = chunks_of(range.clone(), grain);
        check_tiling(&range, grain, &chunks, "outside, chunked");
    }
    assert_eq!(off_worker.load(Ordering::Relaxed), 0);
    assert_eq!(prescient::current_worker_index(), None);
}

#[prescient::task_program]
#[deny(unused_imports)]
mod squares {
    use prescient::for_range;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// `out[i] = i * i` for every `i`, one index per task at most.
    pub fn squares(out: &[AtomicU64]) {
        for_range(0..out.len(), 1, |i| {
            out[i].store((i * i) as u64, Ordering::Relaxed);
        });
    }

    /// The sum of `values`, by chunks of at most 256.
    pub fn sum(values: &[u64]) -> u64 {
        let total = AtomicU64::new(0);
        prescient::for_range_chunked(0..values.len(), 256, |chunk| {
            let part: u64 = values[chunk].iter().sum();
            total.fetch_add(part, Ordering::Relaxed);
        });
        total.into_inner()
    }
}

#[test]
fn an_annotated_range_loop_is_loop_parallelism() {
    let a = squares::ANALYSIS;
    let report = a.to_string();
    println!("{report}");
    assert_eq!(a.sites.len(), 2, "{report}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::RangeLoop, "{report}");
        assert_eq!(site.kind.name(), "range loop");
        assert!(site.in_loop, "{report}");
    }
    assert!(report.contains("range loop in squares"), "{report}");
    assert!(report.contains("range loop in sum"), "{report}");
    assert_eq!(a.contexts.len(), 2, "{report}");
    assert!(a.lambda >= 1, "{report}");
    assert_eq!(a.rho, 0, "{report}");
    const P: Params = squares::PARAMS;
    assert_eq!(P, a.params(Trees::DEFAULT));
    // CF'17's trees: ρ = 0, λ > 0 is loop parallelism, capacity 128.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(cf17.queue_capacity, 128, "ρ = 0, λ > 0: the loop capacity");
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "effort <= 1M"
    );
    assert_eq!(cf17.dependency_buckets, 97);
    // The calibrated trees (`PARAMS`): effort < 7667: fine or opaque tasks,
    // BF/32; buckets as CF'17 (ρ = 0).
    assert_eq!(P, a.params(Trees::Calibrated));
    assert!(
        a.effort < prescient::analysis::calibrated::VISIBLE_EFFORT_MIN,
        "{report}"
    );
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{report}");
    assert_eq!(P.dependency_buckets, 97);
    // The body runs below the splitting joins: a loop of unknown length
    // is charged 4 levels of two join frames each, and its body's own.
    assert!(a.stack_estimate >= 9 * JOIN_FRAME_BYTES as u64, "{report}");
    assert_eq!(P.committed_stack_size, a.committed_stack_size);

    // It runs, on the analysed stack size, from 1 to 16 workers; 2^16
    // indices at grain 1 split 16 levels deep.
    for workers in [1, 2, 16] {
        let rt = runtime_with(workers, P);
        let out: Vec<AtomicU64> = (0..1 << 16).map(|_| AtomicU64::new(u64::MAX)).collect();
        watchdog("squares", LIMIT, || rt.run(|| squares::squares(&out)));
        for (i, v) in out.iter().enumerate() {
            assert_eq!(
                v.load(Ordering::Relaxed),
                (i * i) as u64,
                "{workers} workers"
            );
        }
        let values: Vec<u64> = (1..=10_000).collect();
        assert_eq!(rt.run(|| squares::sum(&values)), 50_005_000);
    }
    // And outside any runtime.
    let out: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
    squares::squares(&out);
    assert_eq!(out[99].load(Ordering::Relaxed), 99 * 99);
}
