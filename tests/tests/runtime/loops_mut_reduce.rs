//! The loops over slices and the reductions: `for_chunks_mut`,
//! `for_chunks`, `for_each_mut`, `for_range_reduce`,
//! `for_range_chunked_reduce` and `for_chunks_reduce`.
//!
//! * every element is handed out exactly once, as exactly the chunks of
//!   `chunks_mut(chunk_len)` (index and length), and written through the
//!   `&mut` the body gets, on 1, 2, 16 and 64 workers (16 and 64
//!   oversubscribe this 2-core machine); bodies sleep now and then so that
//!   idle workers ask for work and pieces really split (checked: more than
//!   one worker ran chunks);
//! * reductions equal the sequential fold for associative, non-commutative
//!   combinations (the indices concatenated; a product of 2×2 matrices mod a
//!   prime) at many worker counts and grains, with folds that sleep;
//! * empty inputs call nothing and return `identity()`; `chunk_len == 0`
//!   panics with `slice::chunks`'s message, empty slice or not;
//! * ranges at the top of `usize` (`0..usize::MAX` in four chunks, counted
//!   in `u128`; `usize::MAX - 10..usize::MAX`) and a slice of `usize::MAX`
//!   zero-sized elements;
//! * a panic in a body, a fold, an identity or a combination reaches the
//!   caller once no piece runs, the lowest one's payload, and the runtime
//!   stays usable;
//! * outside any runtime they run on the global runtime's workers.

use prescient::{
    current_worker_index, for_chunks, for_chunks_mut, for_chunks_reduce, for_each_mut,
    for_range_chunked_reduce, for_range_reduce, tuning::QueuePolicy, Runtime,
};
use prescient_tests::{
    message, quiet_expected_panics, quiet_panics_containing, small_stack_runtime, watchdog,
};
use std::collections::BTreeSet;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);
const WORKERS: [usize; 4] = [1, 2, 16, 64];

/// `(len, chunk_len)` cases: empty, one element, one chunk, exact
/// multiples, a shorter last chunk, chunk 1.
const SLICE_CASES: [(usize, usize); 10] = [
    (0, 1),
    (0, 5),
    (1, 1),
    (1, 5),
    (7, 8),
    (8, 8),
    (1000, 1),
    (1000, 7),
    (1000, 64),
    (10_000, 333),
];

/// Sleeps now and then (every 13th call), so that the other workers run out
/// of work while this one still has some, and ask for it.
fn now_and_then(i: usize) {
    if i.is_multiple_of(13) {
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// The runtimes of the tests: two policies (thieves take the newest or the
/// oldest) at each worker count.
fn runtimes() -> Vec<(String, Runtime)> {
    let mut out = Vec::new();
    for workers in WORKERS {
        for policy in [
            QueuePolicy::InsertBackStealBack,
            QueuePolicy::InsertBackStealFront,
        ] {
            let what = format!("policy={policy} workers={workers}");
            out.push((what, small_stack_runtime(policy, 16, workers)));
        }
    }
    out
}

/// `for_chunks_mut` over `len` elements: each chunk is `chunks_mut`'s
/// (its first element's index and its length), handed out once; every
/// element is written once. Returns the workers that ran chunks.
fn check_chunks_mut(len: usize, chunk_len: usize, what: &str) -> BTreeSet<usize> {
    let mut data: Vec<usize> = vec![0; len];
    let chunks = len.div_ceil(chunk_len);
    let calls: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
    let workers = Mutex::new(BTreeSet::new());
    for_chunks_mut(&mut data, chunk_len, |i, chunk| {
        calls[i].fetch_add(1, Ordering::Relaxed);
        let expected = chunk_len.min(len - i * chunk_len);
        assert_eq!(chunk.len(), expected, "{what}: chunk {i}");
        for (k, x) in chunk.iter_mut().enumerate() {
            *x += i * chunk_len + k + 1;
        }
        workers
            .lock()
            .unwrap()
            .insert(current_worker_index().unwrap());
        now_and_then(i);
    });
    for (i, c) in calls.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: chunk {i}");
    }
    for (k, x) in data.iter().enumerate() {
        assert_eq!(*x, k + 1, "{what}: element {k}");
    }
    workers.into_inner().unwrap()
}

#[test]
fn chunks_mut_hands_out_every_chunk_once() {
    for (what, rt) in runtimes() {
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for (len, chunk_len) in SLICE_CASES {
                    let what = format!("{what} len={len} chunk_len={chunk_len}");
                    check_chunks_mut(len, chunk_len, &what);
                }
            })
        });
    }
}

#[test]
fn pieces_really_split_among_workers() {
    // 200 chunks of 100 µs of sleep: idle workers ask for work long before
    // the loop ends, and take halves of it.
    for workers in [2, 16, 64] {
        let rt = small_stack_runtime(QueuePolicy::InsertBackStealBack, 16, workers);
        let what = format!("workers={workers}");
        let mut data = vec![0u8; 200];
        let seen = Mutex::new(BTreeSet::new());
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for_chunks_mut(&mut data, 1, |_, chunk| {
                    chunk[0] += 1;
                    seen.lock().unwrap().insert(current_worker_index().unwrap());
                    std::thread::sleep(Duration::from_micros(100));
                })
            })
        });
        assert!(data.iter().all(|&x| x == 1), "{what}");
        let seen = seen.into_inner().unwrap();
        assert!(seen.len() > 1, "{what}: only workers {seen:?} ran chunks");
    }
}

#[test]
fn each_mut_visits_every_element_once() {
    for (what, rt) in runtimes() {
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for (len, grain) in SLICE_CASES.into_iter().chain([(100, 0), (3, 0)]) {
                    let what = format!("{what} len={len} grain={grain}");
                    let mut data: Vec<usize> = vec![0; len];
                    for_each_mut(&mut data, grain, |i, x| {
                        *x += i + 1;
                        now_and_then(i);
                    });
                    for (k, x) in data.iter().enumerate() {
                        assert_eq!(*x, k + 1, "{what}: element {k}");
                    }
                }
            })
        });
    }
}

#[test]
fn chunks_reads_every_chunk_once() {
    for (what, rt) in runtimes() {
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for (len, chunk_len) in SLICE_CASES {
                    let what = format!("{what} len={len} chunk_len={chunk_len}");
                    let data: Vec<usize> = (0..len).collect();
                    let seen = Mutex::new(Vec::new());
                    for_chunks(&data, chunk_len, |i, chunk| {
                        seen.lock().unwrap().push((i, chunk.to_vec()));
                        now_and_then(i);
                    });
                    let mut seen = seen.into_inner().unwrap();
                    seen.sort();
                    let expected: Vec<(usize, Vec<usize>)> = data
                        .chunks(chunk_len)
                        .map(<[usize]>::to_vec)
                        .enumerate()
                        .collect();
                    assert_eq!(seen, expected, "{what}");
                }
            })
        });
    }
}

/// Appends `b` to `a`: associative, not commutative; `Vec::new()` is its
/// identity.
fn concat(mut a: Vec<usize>, b: Vec<usize>) -> Vec<usize> {
    a.extend(b);
    a
}

const P: u64 = 1_000_000_007;

/// A 2×2 matrix mod `P`, row-major.
type Matrix = [u64; 4];

const IDENTITY: Matrix = [1, 0, 0, 1];

/// `a · b` mod `P`: associative, not commutative.
fn mul(a: Matrix, b: Matrix) -> Matrix {
    let m = |x: u64, y: u64| x * y % P;
    [
        (m(a[0], b[0]) + m(a[1], b[2])) % P,
        (m(a[0], b[1]) + m(a[1], b[3])) % P,
        (m(a[2], b[0]) + m(a[3], b[2])) % P,
        (m(a[2], b[1]) + m(a[3], b[3])) % P,
    ]
}

/// The matrix of index `i`: no two of them commute in general.
fn matrix_of(i: usize) -> Matrix {
    let i = i as u64;
    [i % 7 + 1, i % 5, (i * i) % 11, 3]
}

/// `(range, grain)` cases of the reductions, empty ones included.
fn range_cases() -> Vec<(Range<usize>, usize)> {
    #[allow(clippy::reversed_empty_ranges)] // an empty range on purpose
    let backwards = 9..3;
    vec![
        (0..0, 1),
        (backwards, 4),
        (0..1, 1),
        (5..6, 0),
        (0..100, 0),
        (0..1000, 1),
        (3..1003, 7),
        (0..1000, 64),
        (0..10_000, 333),
    ]
}

#[test]
fn reductions_equal_the_sequential_fold() {
    for (what, rt) in runtimes().into_iter().chain([3, 7].map(|w| {
        (
            format!("workers={w}"),
            Runtime::builder().num_workers(w).build().unwrap(),
        )
    })) {
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                for (range, grain) in range_cases() {
                    let what = format!("{what} range={range:?} grain={grain}");
                    let indices: Vec<usize> = range.clone().collect();
                    let got = for_range_reduce(
                        range.clone(),
                        grain,
                        Vec::new,
                        |mut v, i| {
                            now_and_then(i);
                            v.push(i);
                            v
                        },
                        concat,
                    );
                    assert_eq!(got, indices, "{what}: concatenation");

                    let product = for_range_reduce(
                        range.clone(),
                        grain,
                        || IDENTITY,
                        |m, i| {
                            now_and_then(i);
                            mul(m, matrix_of(i))
                        },
                        mul,
                    );
                    let sequential = range.clone().map(matrix_of).fold(IDENTITY, mul);
                    assert_eq!(product, sequential, "{what}: matrix product");

                    // Chunked: the chunks flattened are the range, each at
                    // most `grain` (0 taken as 1) long.
                    let chunks = for_range_chunked_reduce(
                        range.clone(),
                        grain,
                        Vec::new,
                        |mut v, chunk| {
                            now_and_then(chunk.start);
                            assert!(!chunk.is_empty() && chunk.len() <= grain.max(1));
                            v.push(chunk);
                            v
                        },
                        |mut a, b| {
                            a.extend(b);
                            a
                        },
                    );
                    let flat: Vec<usize> = chunks.into_iter().flatten().collect();
                    assert_eq!(flat, indices, "{what}: chunks");

                    // Over a slice: exactly `chunks`'s chunks, in order.
                    let chunk_len = grain.max(1);
                    let seen = for_chunks_reduce(
                        &indices,
                        chunk_len,
                        Vec::new,
                        |mut v, i, chunk| {
                            now_and_then(i);
                            v.push((i, chunk.to_vec()));
                            v
                        },
                        |mut a, b| {
                            a.extend(b);
                            a
                        },
                    );
                    let expected: Vec<(usize, Vec<usize>)> = indices
                        .chunks(chunk_len)
                        .map(<[usize]>::to_vec)
                        .enumerate()
                        .collect();
                    assert_eq!(seen, expected, "{what}: slice chunks");
                }
            })
        });
    }
}

#[test]
fn empty_inputs_call_nothing_and_return_the_identity() {
    let rt = small_stack_runtime(QueuePolicy::InsertBackStealBack, 16, 2);
    rt.run(|| {
        fn never<R>(_: usize) -> R {
            panic!("called on an empty input")
        }
        for_chunks_mut(&mut [0u8; 0], 3, |i, _| never(i));
        for_chunks(&[0u8; 0], 3, |i, _| never(i));
        for_each_mut(&mut [0u8; 0], 0, |i, _| never(i));
        #[allow(clippy::reversed_empty_ranges)] // empty ranges on purpose
        for range in [0..0, 7..7, 9..3] {
            let r = for_range_reduce(range.clone(), 1, || 42, |_, i| never(i), |_, _| never(0));
            assert_eq!(r, 42);
            let r =
                for_range_chunked_reduce(range, 1, || 43, |_, c| never(c.start), |_, _| never(0));
            assert_eq!(r, 43);
        }
        let r = for_chunks_reduce(&[0u8; 0], 4, || 44, |_, i, _| never(i), |_, _| never(0));
        assert_eq!(r, 44);
    });
}

#[test]
fn a_chunk_len_of_zero_panics_as_chunks_does() {
    const MESSAGE: &str = "chunk size must be non-zero";
    quiet_panics_containing(&[MESSAGE]);
    // The same message as the standard library's.
    let std = catch_unwind(|| [1u8, 2].chunks(0).count()).unwrap_err();
    assert_eq!(message(std), MESSAGE);
    for len in [0, 5] {
        let mut data = vec![0u8; len];
        let payloads = [
            catch_unwind(AssertUnwindSafe(|| for_chunks_mut(&mut data, 0, |_, _| {}))).unwrap_err(),
            catch_unwind(|| for_chunks(&[0u8; 5][..len], 0, |_, _| {})).unwrap_err(),
            catch_unwind(|| for_chunks_reduce(&[0u8; 5][..len], 0, || 0, |a, _, _| a, |a, _| a))
                .unwrap_err(),
        ];
        for payload in payloads {
            assert_eq!(message(payload), MESSAGE, "len {len}");
        }
    }
}

#[test]
fn ranges_at_the_top_of_usize() {
    for workers in [1, 2, 16] {
        let rt = small_stack_runtime(QueuePolicy::InsertBackStealBack, 16, workers);
        let what = format!("workers={workers}");
        watchdog(&what, LIMIT, || {
            rt.run(|| {
                // Four chunks of the whole of usize (the last one shorter),
                // unsplit on one worker; their lengths add up to usize::MAX.
                let grain = usize::MAX / 4 + 1;
                let (total, chunks) = for_range_chunked_reduce(
                    0..usize::MAX,
                    grain,
                    || (0u128, 0usize),
                    |(total, n), chunk| {
                        assert!(!chunk.is_empty() && chunk.len() <= grain);
                        (total + chunk.len() as u128, n + 1)
                    },
                    |a, b| (a.0 + b.0, a.1 + b.1),
                );
                assert_eq!(total, usize::MAX as u128, "{what}");
                if workers == 1 {
                    assert_eq!(chunks, 4, "{what}");
                }
                let top = usize::MAX - 10..usize::MAX;
                let got = for_range_reduce(
                    top.clone(),
                    1,
                    Vec::new,
                    |mut v, i| {
                        v.push(i);
                        v
                    },
                    concat,
                );
                assert_eq!(got, top.clone().collect::<Vec<_>>(), "{what}");
                let chunks = for_range_chunked_reduce(
                    top.clone(),
                    3,
                    Vec::new,
                    |mut v, c| {
                        v.push(c);
                        v
                    },
                    |mut a, b| {
                        a.extend(b);
                        a
                    },
                );
                let flat: Vec<usize> = chunks.into_iter().flatten().collect();
                assert_eq!(flat, top.collect::<Vec<_>>(), "{what}");
                // A slice of usize::MAX zero-sized elements, in four chunks.
                // (An array: `vec![(); n]` would clone n times.)
                let mut units = [(); usize::MAX];
                let total = AtomicUsize::new(0);
                for_chunks_mut(&mut units, grain, |i, chunk| {
                    assert!(i < 4);
                    total.fetch_add(chunk.len(), Ordering::Relaxed);
                });
                assert_eq!(total.into_inner(), usize::MAX, "{what}");
                let n = for_chunks_reduce(
                    &units,
                    grain,
                    || 0u128,
                    |a, _, c| a + c.len() as u128,
                    |a, b| a + b,
                );
                assert_eq!(n, usize::MAX as u128, "{what}");
            })
        });
    }
}

#[test]
fn panics_reach_the_caller_and_the_runtime_stays_usable() {
    quiet_expected_panics();
    for workers in [1, 2, 16, 64] {
        let rt = small_stack_runtime(QueuePolicy::InsertBackStealBack, 16, workers);
        let what = format!("workers={workers}");
        watchdog(&what, LIMIT, || {
            let running = AtomicUsize::new(0);
            // A body of `for_chunks_mut`: the lowest panicking chunk's
            // payload wins, once no chunk runs.
            let mut data = vec![0u32; 1000];
            let result = rt.run(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    for_chunks_mut(&mut data, 1, |i, _| {
                        running.fetch_add(1, Ordering::SeqCst);
                        now_and_then(i);
                        running.fetch_sub(1, Ordering::SeqCst);
                        if i == 3 || i == 900 {
                            panic!("expected: {i}");
                        }
                    })
                }))
            });
            assert_eq!(message(result.unwrap_err()), "expected: 3", "{what}");
            assert_eq!(running.load(Ordering::SeqCst), 0, "{what}");
            // `for_each_mut`'s body.
            let result = rt.run(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    for_each_mut(&mut data, 4, |i, _| {
                        now_and_then(i);
                        if i == 5 || i == 700 {
                            panic!("expected: {i}");
                        }
                    })
                }))
            });
            assert_eq!(message(result.unwrap_err()), "expected: 5", "{what}");
            // A fold.
            let result = rt.run(|| {
                catch_unwind(|| {
                    for_range_reduce(
                        0..1000,
                        1,
                        || 0,
                        |a, i| {
                            now_and_then(i);
                            assert!(i != 10 && i != 800, "expected: {i}");
                            a + i
                        },
                        |a, b| a + b,
                    )
                })
            });
            assert_eq!(message(result.unwrap_err()), "expected: 10", "{what}");
            // An identity: the first one runs before any index.
            let result = rt.run(|| {
                catch_unwind(|| {
                    for_chunks_reduce(
                        &data,
                        8,
                        || -> usize { panic!("expected: identity") },
                        |a, _, _| a,
                        |a, b| a + b,
                    )
                })
            });
            assert_eq!(message(result.unwrap_err()), "expected: identity", "{what}");
            // A combination: it runs only after a split, which needs a
            // thief; try until one came (at once with more workers).
            if workers > 1 {
                let mut propagated = false;
                for _ in 0..50 {
                    let combined = AtomicUsize::new(0);
                    let result = rt.run(|| {
                        catch_unwind(AssertUnwindSafe(|| {
                            for_range_reduce(
                                0..200,
                                1,
                                || 0,
                                |a, i| {
                                    std::thread::sleep(Duration::from_micros(50));
                                    a + i
                                },
                                |_, _| -> usize {
                                    combined.fetch_add(1, Ordering::Relaxed);
                                    panic!("expected: combine")
                                },
                            )
                        }))
                    });
                    match result {
                        Ok(sum) => {
                            assert_eq!(combined.into_inner(), 0, "{what}");
                            assert_eq!(sum, 19_900, "{what}");
                        }
                        Err(payload) => {
                            assert_eq!(message(payload), "expected: combine", "{what}");
                            propagated = true;
                            break;
                        }
                    }
                }
                assert!(propagated, "{what}: no split in 50 tries");
            }
            // The runtime is still usable.
            let sum = rt.run(|| for_range_reduce(0..1000, 7, || 0, |a, i| a + i, |a, b| a + b));
            assert_eq!(sum, 499_500, "{what}");
            rt.run(|| check_chunks_mut(500, 3, &what));
        });
    }
}

#[test]
fn outside_a_runtime_they_run_on_the_global_runtime() {
    assert_eq!(current_worker_index(), None);
    let off_worker = AtomicUsize::new(0);
    let on_worker = || {
        if current_worker_index().is_none() {
            off_worker.fetch_add(1, Ordering::Relaxed);
        }
    };
    let mut data = vec![0usize; 3000];
    // One chunk, and many.
    for chunk_len in [5000, 7] {
        for_chunks_mut(&mut data, chunk_len, |_, chunk| {
            on_worker();
            chunk.iter_mut().for_each(|x| *x += 1);
        });
        for_chunks(&data, chunk_len, |_, _| on_worker());
    }
    for_each_mut(&mut data, 16, |_, x| {
        on_worker();
        *x += 1;
    });
    assert!(data.iter().all(|&x| x == 3));
    let sum = for_range_reduce(
        0..3000,
        16,
        || 0,
        |a, i| {
            on_worker();
            a + i
        },
        |a, b| a + b,
    );
    assert_eq!(sum, 4_498_500);
    let sum = for_range_chunked_reduce(
        0..1,
        16,
        || 0,
        |a, c| {
            on_worker();
            a + c.len()
        },
        |a, b| a + b,
    );
    assert_eq!(sum, 1);
    let n = for_chunks_reduce(
        &data,
        100,
        || 0,
        |a, _, c| {
            on_worker();
            a + c.len()
        },
        |a, b| a + b,
    );
    assert_eq!(n, 3000);
    assert_eq!(off_worker.into_inner(), 0);
    assert_eq!(current_worker_index(), None);
}
