//! The parallel sorts (`par_sort*`): equal to the standard library's sort
//! on many input shapes and lengths at 1, 2, 16 and 64 workers
//! (oversubscribed), stable where they say so, sound when the comparator
//! panics (the slice stays a permutation, every element dropped exactly
//! once), and usable inside a task and outside any runtime.

use prescient::{
    slice::par_sort, slice::par_sort_by, slice::par_sort_by_key, slice::par_sort_unstable,
    slice::par_sort_unstable_by, slice::par_sort_unstable_by_key, Runtime,
};
use prescient_tests::{quiet_panics_containing, watchdog, XorShift64};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

/// Input shapes of `len` elements.
fn inputs(len: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let mut rng = XorShift64::new(seed);
    let random: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
    let sorted: Vec<u64> = (0..len as u64).collect();
    let reversed: Vec<u64> = sorted.iter().rev().copied().collect();
    let mut nearly = sorted.clone();
    for _ in 0..len / 100 + 1 {
        if len > 1 {
            let (a, b) = (rng.next_u64() as usize % len, rng.next_u64() as usize % len);
            nearly.swap(a, b);
        }
    }
    let equal = vec![7u64; len];
    let few: Vec<u64> = (0..len).map(|_| rng.next_u64() % 4).collect();
    vec![
        ("random", random),
        ("sorted", sorted),
        ("reversed", reversed),
        ("nearly sorted", nearly),
        ("all equal", equal),
        ("few distinct", few),
    ]
}

const LENGTHS: [usize; 9] = [0, 1, 2, 17, 4095, 4097, 8193, 50_000, 300_001];

#[test]
fn every_sort_equals_the_standard_librarys() {
    for workers in [1, 2, 16, 64] {
        let rt = Runtime::builder().num_workers(workers).build().unwrap();
        watchdog(&format!("sorts on {workers} workers"), LIMIT, || {
            for len in LENGTHS {
                for (shape, input) in inputs(len, len as u64 + 1) {
                    let mut expected = input.clone();
                    expected.sort();
                    let what = format!("{shape}, {len} elements, {workers} workers");
                    let mut v = input.clone();
                    rt.run(|| par_sort(&mut v));
                    assert_eq!(v, expected, "par_sort: {what}");
                    let mut v = input.clone();
                    rt.run(|| par_sort_unstable(&mut v));
                    assert_eq!(v, expected, "par_sort_unstable: {what}");
                    let mut v = input.clone();
                    rt.run(|| par_sort_by(&mut v, |a, b| b.cmp(a)));
                    assert!(v.iter().rev().eq(expected.iter()), "par_sort_by: {what}");
                    let mut v = input.clone();
                    rt.run(|| par_sort_unstable_by(&mut v, |a, b| b.cmp(a)));
                    assert!(
                        v.iter().rev().eq(expected.iter()),
                        "par_sort_unstable_by: {what}"
                    );
                    let mut v = input.clone();
                    rt.run(|| par_sort_unstable_by_key(&mut v, |x| u64::MAX - x));
                    assert!(
                        v.iter().rev().eq(expected.iter()),
                        "unstable_by_key: {what}"
                    );
                }
            }
        });
    }
}

#[test]
fn the_stable_sorts_keep_equal_elements_in_order() {
    for workers in [1, 2, 16] {
        let rt = Runtime::builder().num_workers(workers).build().unwrap();
        for len in [100, 20_000, 200_000] {
            let mut rng = XorShift64::new(len as u64);
            // Keys with many repeats, tagged with their original position.
            let input: Vec<(u64, usize)> = (0..len).map(|i| (rng.next_u64() % 50, i)).collect();
            let mut expected = input.clone();
            expected.sort_by_key(|&(key, _)| key);
            let mut v = input.clone();
            rt.run(|| par_sort_by_key(&mut v, |&(key, _)| key));
            assert_eq!(v, expected, "by_key, {len} elements, {workers} workers");
            let mut v = input.clone();
            rt.run(|| par_sort_by(&mut v, |a, b| a.0.cmp(&b.0)));
            assert_eq!(v, expected, "by, {len} elements, {workers} workers");
        }
    }
}

/// An element that counts its drops.
struct Counted {
    key: u64,
    drops: &'static AtomicUsize,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panicking_comparator_leaves_a_permutation() {
    quiet_panics_containing(&["expected: comparator panic"]);
    for workers in [1, 2, 16] {
        let rt = Runtime::builder().num_workers(workers).build().unwrap();
        for (len, panic_at) in [
            (10_000, 5),
            (60_000, 100_000),
            (200_000, 1_500_000),
            (200_000, 2_900_000),
        ] {
            for stable in [true, false] {
                static DROPS: AtomicUsize = AtomicUsize::new(0);
                DROPS.store(0, Ordering::SeqCst);
                let mut rng = XorShift64::new(len as u64 + panic_at as u64);
                let mut v: Vec<Counted> = (0..len)
                    .map(|_| Counted {
                        key: rng.next_u64() % 1000,
                        drops: &DROPS,
                    })
                    .collect();
                let mut keys: Vec<u64> = v.iter().map(|c| c.key).collect();
                let calls = AtomicUsize::new(0);
                let compare = |a: &Counted, b: &Counted| {
                    if calls.fetch_add(1, Ordering::Relaxed) == panic_at {
                        panic!("expected: comparator panic");
                    }
                    a.key.cmp(&b.key)
                };
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    rt.run(|| {
                        if stable {
                            par_sort_by(&mut v, compare)
                        } else {
                            par_sort_unstable_by(&mut v, compare)
                        }
                    })
                }));
                let what = format!(
                    "{len} elements, panic at {panic_at}, {workers} workers, stable {stable}"
                );
                if calls.load(Ordering::Relaxed) > panic_at {
                    assert!(outcome.is_err(), "{what}");
                }
                assert_eq!(
                    DROPS.load(Ordering::SeqCst),
                    0,
                    "nothing dropped during the sort: {what}"
                );
                let mut after: Vec<u64> = v.iter().map(|c| c.key).collect();
                after.sort();
                keys.sort();
                assert_eq!(after, keys, "a permutation: {what}");
                drop(v);
                assert_eq!(
                    DROPS.load(Ordering::SeqCst),
                    len,
                    "each dropped once: {what}"
                );
            }
        }
        // Still usable.
        let mut v: Vec<u64> = (0..100_000).rev().collect();
        rt.run(|| par_sort(&mut v));
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}

#[test]
fn sorts_run_inside_tasks_and_outside_any_runtime() {
    let mut rng = XorShift64::new(99);
    let input: Vec<u64> = (0..100_000).map(|_| rng.next_u64()).collect();
    let mut expected = input.clone();
    expected.sort();
    // Outside any runtime: the global one.
    let mut v = input.clone();
    par_sort(&mut v);
    assert_eq!(v, expected);
    // Several sorts as tasks of one scope.
    let rt = Runtime::builder().num_workers(4).build().unwrap();
    let mut copies = vec![input.clone(); 4];
    rt.run(|| {
        prescient::scope(|s| {
            for copy in copies.iter_mut() {
                s.spawn(move |_| par_sort_unstable(copy));
            }
        })
    });
    assert!(copies.iter().all(|c| *c == expected));
}

/// A zero-sized element that counts its drops (issue 36, item 1).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct ZeroSized;

static ZERO_SIZED_DROPS: AtomicUsize = AtomicUsize::new(0);

impl Drop for ZeroSized {
    fn drop(&mut self) {
        ZERO_SIZED_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

/// Zero-sized elements: every sort form, on `()` and on a zero-sized type
/// that counts its drops, at lengths around the leaf size (where the merges
/// begin) on 1, 2, 16 and 64 workers. They are all equal, so any order is
/// sorted; what matters is that nothing aborts and that each value is
/// dropped exactly once, after the sort. (Before the fix, the merges'
/// pointer differences panicked for zero-sized types and the merge guard's
/// drop panicked again during the unwind: the process aborted.)
#[test]
fn zero_sized_elements_sort_and_drop_once() {
    assert_eq!(std::mem::size_of::<ZeroSized>(), 0);
    type Sort<T> = fn(&mut [T]);
    let unit_sorts: [(&str, Sort<()>); 6] = [
        ("par_sort", |v| par_sort(v)),
        ("par_sort_by", |v| par_sort_by(v, |a, b| a.cmp(b))),
        ("par_sort_by_key", |v| par_sort_by_key(v, |_| 0u8)),
        ("par_sort_unstable", |v| par_sort_unstable(v)),
        ("par_sort_unstable_by", |v| {
            par_sort_unstable_by(v, |a, b| a.cmp(b))
        }),
        ("par_sort_unstable_by_key", |v| {
            par_sort_unstable_by_key(v, |_| 0u8)
        }),
    ];
    let counted_sorts: [(&str, Sort<ZeroSized>); 6] = [
        ("par_sort", |v| par_sort(v)),
        ("par_sort_by", |v| par_sort_by(v, |a, b| a.cmp(b))),
        ("par_sort_by_key", |v| par_sort_by_key(v, |_| 0u8)),
        ("par_sort_unstable", |v| par_sort_unstable(v)),
        ("par_sort_unstable_by", |v| {
            par_sort_unstable_by(v, |a, b| a.cmp(b))
        }),
        ("par_sort_unstable_by_key", |v| {
            par_sort_unstable_by_key(v, |_| 0u8)
        }),
    ];
    for workers in [1, 2, 16, 64] {
        let rt = Runtime::builder().num_workers(workers).build().unwrap();
        watchdog(
            &format!("zero-sized sorts on {workers} workers"),
            LIMIT,
            || {
                for len in [0, 1, 4095, 4096, 4097, 8193, 20_000] {
                    for (name, sort) in unit_sorts {
                        let mut v = vec![(); len];
                        rt.run(|| sort(&mut v));
                        assert_eq!(v.len(), len, "{name}: {len} units, {workers} workers");
                    }
                    for (name, sort) in counted_sorts {
                        let what = format!("{name}: {len} elements, {workers} workers");
                        ZERO_SIZED_DROPS.store(0, Ordering::SeqCst);
                        let mut v: Vec<ZeroSized> = (0..len).map(|_| ZeroSized).collect();
                        rt.run(|| sort(&mut v));
                        assert_eq!(
                            ZERO_SIZED_DROPS.load(Ordering::SeqCst),
                            0,
                            "nothing dropped during the sort: {what}"
                        );
                        assert_eq!(v.len(), len, "{what}");
                        drop(v);
                        assert_eq!(
                            ZERO_SIZED_DROPS.load(Ordering::SeqCst),
                            len,
                            "each dropped once: {what}"
                        );
                    }
                }
            },
        );
    }
}
