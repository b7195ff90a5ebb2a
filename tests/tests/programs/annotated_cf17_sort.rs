//! End-to-end checks of `#[task_program]` on BOTS' `sort` (cilksort,
//! `prescient_benches::annotated::sort`): a four-way parallel merge sort
//! whose merges are themselves parallel.
//!
//! * BOTS' input generator is reproduced (checked against its C code's
//!   output), and the kernels — quicksort, insertion sort, sequential and
//!   parallel merge, binary split — sort or merge like `slice::sort_unstable`
//!   on awkward inputs: duplicates, presorted, reversed, sizes around the
//!   cut-offs.
//! * The analysis finds two contexts: `cilkmerge` (one join, ρ = 2) and
//!   `cilksort` (four scope spawns and a join, ρ = 6: its own four recursive
//!   calls plus the two of the merge it calls). ρ aggregates by minimum, so
//!   the program's ρ is 2, with λ = 0 and a fine-grained effort: CF'17's
//!   trees give `DEF`, capacity 4, 256019 buckets (`cilksort` alone,
//!   ρ = 6 > 5, would get `PF`); the calibrated trees (`PARAMS`) `BF`,
//!   capacity 32 (effort 1163 < 7667: fine or opaque tasks, BF/32), 256019
//!   buckets. The slice-splitting recursion
//!   gets the conservative 8 MiB stack.
//! * It sorts BOTS' input correctly under its own `PARAMS` on 1, 2 and 8
//!   workers, on the analysed stack size.
//!
//! Runs in about a second in the debug profile.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::sort::{self, Elm};
use prescient_tests::{analysed_runtime, check_aggregation, watchdog, XorShift64};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(120);

/// 64-bit FNV-1a over whole keys (what the C check program printed).
fn fnv(keys: &[Elm]) -> u64 {
    keys.iter().fold(0xcbf2_9ce4_8422_2325, |h, &k| {
        (h ^ k as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `keys` sorted by the standard library: the expected result.
fn sorted(keys: &[Elm]) -> Vec<Elm> {
    let mut v = keys.to_vec();
    v.sort_unstable();
    v
}

/// Inputs that stress the partition and the merges: random keys with many
/// duplicates, presorted, reversed, all equal, organ pipe.
fn awkward_inputs(n: usize, seed: u64) -> Vec<Vec<Elm>> {
    let mut rng = XorShift64::new(seed);
    let len = n as Elm;
    vec![
        (0..n).map(|_| rng.below(7) as Elm).collect(),
        (0..n).map(|_| rng.next_u64() as Elm).collect(),
        (0..len).collect(),
        (0..len).rev().collect(),
        vec![42; n],
        (0..len).map(|i| i.min(len - i)).collect(),
    ]
}

#[test]
fn the_input_is_bots() {
    // The first values and the FNV of BOTS' own `fill_array` +
    // `scramble_array` (its C code compiled with gcc, 64-bit `long`).
    assert_eq!(sort::bots_input(10), [2, 5, 6, 1, 0, 7, 8, 9, 4, 3]);
    let input = sort::bots_input(1 << 17);
    assert_eq!(
        input[..10],
        [101894, 11241, 49236, 33925, 4562, 13435, 10272, 13025, 98984, 81201]
    );
    assert_eq!(fnv(&input), 0x84e2_30e6_779d_b671);
    assert_eq!(fnv(&sort::bots_input(100_003)), 0xb1d6_1508_1e57_1aee);
    assert!(!sort::is_identity(&input));
    assert!(sort::is_identity(&sorted(&input)));
    assert!(sort::is_identity(&[]));
    assert!(!sort::is_identity(&[1]));
    assert_ne!(sort::scrambled(100, 7), sort::bots_input(100));
    assert_eq!(sort::BOTS_N, 1 << 25);
    assert_eq!(sort::PAPER_N, 1 << 27);
    assert_eq!(
        (
            sort::BOTS_QUICKSIZE,
            sort::BOTS_MERGESIZE,
            sort::BOTS_INSERTIONSIZE
        ),
        (2048, 2048, 20),
        "BOTS' default cut-offs"
    );
}

#[test]
fn the_kernels_sort_and_merge() {
    for n in (0..=64).chain([255, 2047, 2048, 2049, 3 * 2048 + 5]) {
        for (k, input) in awkward_inputs(n, n as u64).into_iter().enumerate() {
            let expected = sorted(&input);
            let mut v = input.clone();
            sort::seqquick(&mut v);
            assert_eq!(v, expected, "seqquick, n = {n}, input {k}");
            if n <= 300 {
                let mut v = input.clone();
                sort::insertion_sort(&mut v);
                assert_eq!(v, expected, "insertion_sort, n = {n}, input {k}");
            }
            let mut v = input.clone();
            sort::sort_seq(&mut v);
            assert_eq!(v, expected, "sort_seq, n = {n}, input {k}");
            if n >= 2 {
                let mut v = input.clone();
                let p = sort::seqpart(&mut v);
                assert!(p < n - 1, "seqpart, n = {n}, input {k}");
                let top = v[..=p].iter().max().expect("nonempty");
                let bottom = v[p + 1..].iter().min().expect("nonempty");
                assert!(top <= bottom, "seqpart, n = {n}, input {k}");
                assert_eq!(sorted(&v), expected, "seqpart permutes");
            }
        }
    }
}

#[test]
fn the_merges_merge_uneven_runs() {
    let mut rng = XorShift64::new(0x5eed);
    // Run lengths around the merge cut-off, empty runs, one-sided runs.
    let lengths = [0, 1, 2, 100, 2048, 2049, 5000, 9000];
    for &la in &lengths {
        for &lb in &lengths {
            let mut a: Vec<Elm> = (0..la).map(|_| rng.below(3000) as Elm).collect();
            let mut b: Vec<Elm> = (0..lb).map(|_| rng.below(3000) as Elm).collect();
            a.sort_unstable();
            b.sort_unstable();
            let expected = sorted(&[a.clone(), b.clone()].concat());
            let mut dest = vec![-1; la + lb];
            sort::seqmerge(&a, &b, &mut dest);
            assert_eq!(dest, expected, "seqmerge {la} + {lb}");
            let mut dest = vec![-1; la + lb];
            sort::cilkmerge_seq(&a, &b, &mut dest);
            assert_eq!(dest, expected, "cilkmerge_seq {la} + {lb}");
            let rt = analysed_runtime(sort::PARAMS, &sort::ANALYSIS, 2);
            let mut dest = vec![-1; la + lb];
            watchdog(&format!("cilkmerge {la} + {lb}"), LIMIT, || {
                rt.run(|| sort::cilkmerge(&a, &b, &mut dest))
            });
            assert_eq!(dest, expected, "cilkmerge {la} + {lb}");
            if let Some(&val) = a.first() {
                let split = sort::binsplit(val, &b);
                assert!(b[..split].iter().all(|&x| x < val));
                assert!(b[split..].iter().all(|&x| x >= val));
            }
        }
    }
}

#[test]
fn sort_is_recursive_with_two_contexts() {
    let a = sort::ANALYSIS;
    let functions: Vec<&str> = a.contexts.iter().map(|c| c.function).collect();
    assert_eq!(functions, ["cilkmerge", "cilksort"], "{a}");
    let (merge, sort_ctx) = (&a.contexts[0], &a.contexts[1]);
    assert_eq!(a.sites.len(), 6, "{a}");
    let kinds: Vec<(&str, SiteKind)> = a.sites.iter().map(|s| (s.function, s.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("cilkmerge", SiteKind::Join),
            ("cilksort", SiteKind::ScopeSpawn),
            ("cilksort", SiteKind::ScopeSpawn),
            ("cilksort", SiteKind::ScopeSpawn),
            ("cilksort", SiteKind::ScopeSpawn),
            ("cilksort", SiteKind::Join),
        ],
        "{a}"
    );
    assert!(
        a.sites.iter().all(|s| !s.in_loop),
        "no spawn in a loop\n{a}"
    );
    assert_eq!(merge.sites.len(), 1, "{a}");
    assert_eq!(sort_ctx.sites.len(), 5, "{a}");
    // cilkmerge: its two halves; cilksort: its four quarters and the two
    // recursive paths of the merge it calls.
    assert_eq!((merge.rho, merge.lambda), (2, 0), "{a}");
    assert_eq!((sort_ctx.rho, sort_ctx.lambda), (6, 0), "{a}");
    // ρ aggregates by minimum: 2, and the program is classified as fib is.
    assert_eq!((a.rho, a.lambda), (2, 0), "{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "fine-grained\n{a}"
    );
    assert!(sort_ctx.effort < analysis::cf17::COARSE_EFFORT_MIN, "{a}");
    assert_eq!(
        analysis::cf17::queue_policy(sort_ctx.rho, sort_ctx.effort),
        QueuePolicy::InsertFrontStealBack,
        "CF'17: cilksort alone has ρ = 6 > 5"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 2 <= 5, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 4, "ρ > 0, fine-grained");
    assert_eq!(cf17.dependency_buckets, 256_019, "ρ > 0");
    // Calibrated (`PARAMS`): effort 1163 < 7667: fine or opaque tasks,
    // BF/32; buckets as CF'17.
    const P: Params = sort::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // Recursion over split slices: no depth the macro can bound.
    assert!(a.stack_estimate >= 64 * JOIN_FRAME_BYTES as u64, "{a}");
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("sort", P, &a);
    assert!(a.module.ends_with("annotated::sort::tasks"), "{}", a.module);
}

#[test]
fn sort_runs_under_its_params() {
    for n in sort::TEST_SIZES {
        let input = sort::bots_input(n);
        let mut expected = input.clone();
        sort::sort_seq(&mut expected);
        assert!(sort::is_identity(&expected), "sequential, n = {n}");
        for workers in WORKERS {
            let rt = analysed_runtime(sort::PARAMS, &sort::ANALYSIS, workers);
            let mut v = input.clone();
            watchdog(&format!("sort({n}) on {workers}"), LIMIT, || {
                rt.run(|| sort::sort(&mut v))
            });
            assert!(sort::is_identity(&v), "sort({n}) on {workers} worker(s)");
        }
    }
}

#[test]
fn sort_sorts_awkward_inputs_in_parallel() {
    let rt = analysed_runtime(sort::PARAMS, &sort::ANALYSIS, 8);
    for (k, input) in awkward_inputs(50_001, 3).into_iter().enumerate() {
        let expected = sorted(&input);
        let mut v = input.clone();
        watchdog(&format!("sort of input {k}"), LIMIT, || {
            rt.run(|| sort::sort(&mut v))
        });
        assert_eq!(v, expected, "input {k} on 8 workers");
    }
}
