//! BOTS `sort` (Cilk's `cilksort`), annotated with `#[task_program]`: a
//! parallel merge sort of 64-bit keys.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `sort`, itself Matteo
//! Frigo's `cilksort` from the Cilk distribution. [`cilksort`] cuts its array
//! into four quarters A, B, C, D and
//!
//! 1. sorts the four recursively, in four tasks, and waits for them (BOTS:
//!    four `#pragma omp task` and a `taskwait`; here a [`prescient::scope`]
//!    with four spawns);
//! 2. merges A with B and C with D into the two halves of a scratch array,
//!    in two tasks (a [`prescient::join`]);
//! 3. merges the two halves back into the array.
//!
//! Every merge is [`cilkmerge`], itself parallel (Akl and Santoro's merge):
//! take the middle element of the longer run, find by binary search where it
//! falls in the shorter run ([`binsplit`]), write it to its final place, and
//! merge the two lower parts and the two upper parts in two tasks (a join).
//!
//! **Cut-offs: BOTS' defaults.** BOTS' `app-desc.h` defines three, and this
//! port uses its defaults with its comparisons:
//!
//! * [`BOTS_QUICKSIZE`] = 2048 (`-a`, "Sequential Quicksort cutoff value",
//!   `bots_app_cutoff_value_1`): [`cilksort`] sorts an array of fewer than
//!   2048 elements with the sequential [`seqquick`] (`size < cutoff`);
//! * [`BOTS_MERGESIZE`] = 2048 (`-y`, "Sequential Merge cutoff value",
//!   `bots_app_cutoff_value`): [`cilkmerge`] merges sequentially
//!   ([`seqmerge`]) when the shorter run has at most 2048 elements (BOTS:
//!   `high2 - low2 < cutoff` on inclusive bounds);
//! * [`BOTS_INSERTIONSIZE`] = 20 (`-b`, "Sequential Insertion cutoff value",
//!   `bots_app_cutoff_value_2`): [`seqquick`] partitions (median-of-three
//!   Hoare partition, [`seqpart`]) while its range has more than 20
//!   elements (`high - low >= cutoff`) and finishes with [`insertion_sort`].
//!
//! BOTS' default input is `32 × 1024 × 1024` keys (2^25); the paper's is
//! 2^27 ([`PAPER_N`]). Keys are `i64` ([`Elm`], BOTS' `typedef long ELM`).
//!
//! **Input and check: BOTS'.** [`bots_input`] fills the array with `0 .. n`
//! and scrambles it as BOTS does (`n` swaps with positions drawn from the
//! linear congruential generator `x ← x · 1103515245 + 12345` on 64 bits,
//! seeded with 1, modulo `n`), so a correct sort yields exactly `0 .. n`
//! ([`is_identity`], BOTS' `sort_verify`): sorted *and* a permutation of the
//! input. The tests also compare with `slice::sort_unstable` on other inputs
//! (duplicates, presorted, reversed).
//!
//! **One deviation from BOTS.** BOTS' `cilkmerge_par` copies `high1 - low1`
//! elements when the shorter run is empty, one short of the longer run's
//! length (its bounds are inclusive). Its input practically never reaches
//! that case: a merge only splits runs of more than 2048 keys each, and the
//! case needs one of them to lie entirely above or below the other's median,
//! which on scrambled distinct keys is vanishingly unlikely. This port copies
//! the whole run, so it is correct on any input and any cut-off. Smaller
//! differences: [`seqmerge`] is one loop where BOTS' has two (a C
//! micro-optimisation of the end-of-run test), and [`binsplit`] returns the
//! number of keys below the split key, where BOTS returns the position
//! before it (the same split on distinct keys).
//!
//! **What the analysis finds.** Two task contexts. [`cilkmerge`] holds one
//! join whose two tasks call `cilkmerge` back: ρ = 2, λ = 0, and a task
//! effort of a few operations (a recursive call costs its arguments only).
//! [`cilksort`] holds five sites, the four scope spawns of step 1, each
//! calling `cilksort` back, and the join of step 2, whose tasks call
//! `cilkmerge`: its own four recursive paths plus the merge's two, ρ = 6,
//! λ = 0 (no spawn in a loop). The join's tasks reach the sequential merge
//! and binary-search loops, whose run-time bounds count 100 iterations each:
//! about 12 thousand operations; averaged with the four spawns' bare calls
//! the context's effort is about 2.3 thousand, fine-grained. CF'17
//! aggregates ρ by the minimum over contexts and effort by the mean: ρ = 2,
//! λ = 0, effort about 1.2 thousand, so CF'17's decision trees would give
//! queue policy `DEF` (ρ ≤ 5, effort ≤ 1M), queue capacity 4 (ρ > 0,
//! fine-grained) and 256019 dependency buckets: the recursive class of fib.
//! (`cilksort` on its own, ρ = 6 > 5, would get `PF`.) The calibrated trees
//! (`PARAMS`) give `BF`, capacity 32 (effort 1163 < 7667: fine or opaque
//! tasks, BF/32) and the same buckets. The real leaf tasks are
//! coarser than the estimate (a quicksort of up to 2047 keys, a merge of a
//! few thousand), but still well below the 1M-operation coarse band. Both
//! recursions work on slices through method calls the analysis cannot see
//! (`len`, `split_at_mut`) and have no halved integer parameter, so neither
//! has a depth the macro can bound: the stack estimate is the conservative 8
//! MiB (the runtime's default), although the real depth is only logarithmic.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`sort_seq`] is the same
//! algorithm without tasks (BOTS' serial `cilksort`), on the same kernels.

pub use tasks::{
    binsplit, cilkmerge, cilksort, insertion_sort, seqmerge, seqpart, seqquick, sort, Elm,
    ANALYSIS, BOTS_INSERTIONSIZE, BOTS_MERGESIZE, BOTS_QUICKSIZE, PARAMS,
};

/// The paper's input size: 2^27 keys (1 GiB of keys plus 1 GiB of scratch).
pub const PAPER_N: usize = 1 << 27;

/// BOTS' default input size (`BOTS_APP_DEF_ARG_SIZE`): 2^25 keys.
pub const BOTS_N: usize = 32 * 1024 * 1024;

/// The input sizes the integration tests run under both build profiles: a
/// power of two (three levels of quarters) and a size whose quarters are
/// uneven (the last quarter takes the remainder, as in BOTS).
pub const TEST_SIZES: [usize; 2] = [1 << 17, 100_003];

/// The seed of BOTS' scrambling generator (`my_srand(1)` in `fill_array`).
pub const BOTS_SEED: u64 = 1;

/// BOTS' input: `0 .. n` scrambled by `n` swaps, the `i`-th with the
/// position `x_i mod n` where `x_i = x_{i-1} · 1103515245 + 12345` (wrapping
/// 64-bit arithmetic, C's `unsigned long` on LP64) and `x_0` =
/// [`BOTS_SEED`] (BOTS' `fill_array` and `scramble_array`).
///
/// # Panics
/// If `n` does not fit in an [`Elm`].
pub fn bots_input(n: usize) -> Vec<Elm> {
    scrambled(n, BOTS_SEED)
}

/// [`bots_input`] with another seed of the generator.
///
/// # Panics
/// If `n` does not fit in an [`Elm`].
pub fn scrambled(n: usize, seed: u64) -> Vec<Elm> {
    let mut array: Vec<Elm> = (0..n)
        .map(|i| Elm::try_from(i).expect("sort: n fits in an Elm"))
        .collect();
    let len = n as u64; // usize is at most 64 bits
    let mut state = seed;
    for i in 0..n {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let j = usize::try_from(state % len).expect("below n");
        array.swap(i, j);
    }
    array
}

/// Whether `sorted` is `0, 1, …, n - 1`: the sorted [`bots_input`], i.e. the
/// result is sorted and a permutation of the input (BOTS' `sort_verify`).
pub fn is_identity(sorted: &[Elm]) -> bool {
    sorted
        .iter()
        .enumerate()
        .all(|(i, &x)| usize::try_from(x) == Ok(i))
}

/// The sequential reference: BOTS' serial `cilksort` — the same four-way
/// recursion, merges and cut-offs as [`sort`], with the task constructs
/// replaced by plain calls, on the same kernels ([`seqquick`], [`seqmerge`],
/// [`binsplit`]).
pub fn sort_seq(array: &mut [Elm]) {
    let mut tmp: Vec<Elm> = vec![0; array.len()];
    cilksort_seq(array, &mut tmp);
}

/// [`cilksort`] without tasks: sorts `low`, using `tmp` (as long as `low`)
/// as scratch space.
pub fn cilksort_seq(low: &mut [Elm], tmp: &mut [Elm]) {
    let size = low.len();
    if size < BOTS_QUICKSIZE {
        seqquick(low);
        return;
    }
    let quarter = size / 4;
    {
        let (a, rest) = low.split_at_mut(quarter);
        let (b, rest) = rest.split_at_mut(quarter);
        let (c, d) = rest.split_at_mut(quarter);
        let (ta, trest) = tmp.split_at_mut(quarter);
        let (tb, trest) = trest.split_at_mut(quarter);
        let (tc, td) = trest.split_at_mut(quarter);
        cilksort_seq(a, ta);
        cilksort_seq(b, tb);
        cilksort_seq(c, tc);
        cilksort_seq(d, td);
    }
    {
        let (ab, cd) = low.split_at(2 * quarter);
        let (tab, tcd) = tmp.split_at_mut(2 * quarter);
        cilkmerge_seq(&ab[..quarter], &ab[quarter..], tab);
        cilkmerge_seq(&cd[..quarter], &cd[quarter..], tcd);
    }
    let (tab, tcd) = tmp.split_at(2 * quarter);
    cilkmerge_seq(tab, tcd, low);
}

/// [`cilkmerge`] without tasks: merges the sorted runs `a` and `b` into
/// `dest` (of length `a.len() + b.len()`).
pub fn cilkmerge_seq(a: &[Elm], b: &[Elm], dest: &mut [Elm]) {
    let (a, b) = if b.len() > a.len() { (b, a) } else { (a, b) };
    if b.is_empty() {
        dest.copy_from_slice(a);
        return;
    }
    if b.len() <= BOTS_MERGESIZE {
        seqmerge(a, b, dest);
        return;
    }
    let split1 = a.len() / 2;
    let split2 = binsplit(a[split1], b);
    let (dest_low, dest_high) = dest.split_at_mut(split1 + split2);
    let (dest_mid, dest_high) = dest_high.split_at_mut(1);
    dest_mid[0] = a[split1];
    cilkmerge_seq(&a[..split1], &b[..split2], dest_low);
    cilkmerge_seq(&a[split1 + 1..], &b[split2..], dest_high);
}

/// The task code of sort, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use prescient::{join, scope};

    /// The key type (BOTS' `typedef long ELM`).
    pub type Elm = i64;

    /// Below this many elements [`cilksort`] runs the sequential
    /// [`seqquick`] (BOTS' "Sequential Quicksort cutoff value",
    /// `bots_app_cutoff_value_1`, default 2048).
    pub const BOTS_QUICKSIZE: usize = 2 * 1024;

    /// [`cilkmerge`] merges sequentially when the shorter run has at most this
    /// many elements (BOTS' "Sequential Merge cutoff value",
    /// `bots_app_cutoff_value`, default 2048).
    pub const BOTS_MERGESIZE: usize = 2 * 1024;

    /// [`seqquick`] finishes a range of at most this many elements with
    /// [`insertion_sort`] (BOTS' "Sequential Insertion cutoff value",
    /// `bots_app_cutoff_value_2`, default 20).
    pub const BOTS_INSERTIONSIZE: usize = 20;

    /// The median of three keys (BOTS' `med3`).
    pub fn med3(a: Elm, b: Elm, c: Elm) -> Elm {
        if a < b {
            if b < c {
                b
            } else if a < c {
                c
            } else {
                a
            }
        } else if b > c {
            b
        } else if a > c {
            c
        } else {
            a
        }
    }

    /// Partitions `v` (at least two elements) around the median of its first,
    /// middle and last keys (BOTS' `seqpart`, a Hoare partition) and returns
    /// the index `p < v.len() - 1` such that every key of `v[..=p]` is at
    /// most every key of `v[p + 1..]`.
    pub fn seqpart(v: &mut [Elm]) -> usize {
        let high = v.len() - 1;
        let pivot = med3(v[0], v[high], v[high / 2]);
        let mut curr_low: usize = 0;
        let mut curr_high: usize = high;
        loop {
            while v[curr_high] > pivot {
                curr_high -= 1;
            }
            while v[curr_low] < pivot {
                curr_low += 1;
            }
            if curr_low >= curr_high {
                break;
            }
            let (l, h) = (v[curr_low], v[curr_high]);
            v[curr_high] = l;
            v[curr_low] = h;
            curr_high -= 1;
            curr_low += 1;
        }
        if curr_high < high {
            curr_high
        } else {
            curr_high - 1
        }
    }

    /// Sorts `v` by straight insertion (BOTS' `insertion_sort`).
    pub fn insertion_sort(v: &mut [Elm]) {
        for q in 1..v.len() {
            let a = v[q];
            let mut p = q;
            while p > 0 && v[p - 1] > a {
                v[p] = v[p - 1];
                p -= 1;
            }
            v[p] = a;
        }
    }

    /// Sorts `v` sequentially: quicksort, recursing into the lower part and
    /// looping on the upper one, down to ranges of at most
    /// [`BOTS_INSERTIONSIZE`] elements, which [`insertion_sort`] finishes
    /// (BOTS' `seqquick`).
    pub fn seqquick(mut v: &mut [Elm]) {
        while v.len() > BOTS_INSERTIONSIZE {
            let p = seqpart(v);
            let whole = v;
            let (lower, upper) = whole.split_at_mut(p + 1);
            seqquick(lower);
            v = upper;
        }
        insertion_sort(v);
    }

    /// Merges the sorted runs `a` and `b` into `dest` sequentially (BOTS'
    /// `seqmerge`; on equal keys the one of `b` goes first, as there). The
    /// keys go out through an iterator over `dest`, which spares a bounds
    /// check per key: this loop is half of the sort's time.
    ///
    /// # Panics
    /// If `dest.len() != a.len() + b.len()`.
    pub fn seqmerge(a: &[Elm], b: &[Elm], dest: &mut [Elm]) {
        let (mut i, mut j) = (0, 0);
        let mut out = dest.iter_mut();
        while i < a.len() && j < b.len() {
            let Some(d) = out.next() else {
                break; // `dest` is too short: the copy below panics
            };
            if a[i] < b[j] {
                *d = a[i];
                i += 1;
            } else {
                *d = b[j];
                j += 1;
            }
        }
        let rest = out.into_slice();
        if i < a.len() {
            rest.copy_from_slice(&a[i..]);
        } else {
            rest.copy_from_slice(&b[j..]);
        }
    }

    /// The number of keys of the sorted run `b` below `val`, by binary
    /// search: where `val` splits `b` (BOTS' `binsplit`, which returns the
    /// position before that split).
    pub fn binsplit(val: Elm, b: &[Elm]) -> usize {
        let (mut low, mut high) = (0, b.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if b[mid] < val {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    /// Merges the sorted runs `a` and `b` into `dest` (of length `a.len() +
    /// b.len()`): the middle key of the longer run goes straight to its final
    /// place, then the two lower parts and the two upper parts are merged in
    /// two tasks (BOTS' `cilkmerge_par`). Runs whose shorter one has at most
    /// [`BOTS_MERGESIZE`] keys are merged by [`seqmerge`].
    pub fn cilkmerge(a: &[Elm], b: &[Elm], dest: &mut [Elm]) {
        let (a, b) = if b.len() > a.len() { (b, a) } else { (a, b) };
        if b.is_empty() {
            dest.copy_from_slice(a);
            return;
        }
        if b.len() <= BOTS_MERGESIZE {
            seqmerge(a, b, dest);
            return;
        }
        let split1 = a.len() / 2;
        let split2 = binsplit(a[split1], b);
        let (dest_low, dest_high) = dest.split_at_mut(split1 + split2);
        let (dest_mid, dest_high) = dest_high.split_at_mut(1);
        dest_mid[0] = a[split1];
        join(
            || cilkmerge(&a[..split1], &b[..split2], dest_low),
            || cilkmerge(&a[split1 + 1..], &b[split2..], dest_high),
        );
    }

    /// Sorts `low`, using `tmp` (as long as `low`) as scratch space: the four
    /// quarters in four tasks, then two merges into `tmp` in two tasks, then
    /// the merge back into `low` (BOTS' `cilksort_par`). Arrays of fewer than
    /// [`BOTS_QUICKSIZE`] keys are sorted by [`seqquick`].
    pub fn cilksort(low: &mut [Elm], tmp: &mut [Elm]) {
        let size = low.len();
        if size < BOTS_QUICKSIZE {
            seqquick(low);
            return;
        }
        let quarter = size / 4;
        {
            let (a, rest) = low.split_at_mut(quarter);
            let (b, rest) = rest.split_at_mut(quarter);
            let (c, d) = rest.split_at_mut(quarter);
            let (ta, trest) = tmp.split_at_mut(quarter);
            let (tb, trest) = trest.split_at_mut(quarter);
            let (tc, td) = trest.split_at_mut(quarter);
            scope(|s| {
                s.spawn(move |_| cilksort(a, ta));
                s.spawn(move |_| cilksort(b, tb));
                s.spawn(move |_| cilksort(c, tc));
                s.spawn(move |_| cilksort(d, td));
            });
        }
        {
            let (ab, cd) = low.split_at(2 * quarter);
            let (tab, tcd) = tmp.split_at_mut(2 * quarter);
            join(
                || cilkmerge(&ab[..quarter], &ab[quarter..], tab),
                || cilkmerge(&cd[..quarter], &cd[quarter..], tcd),
            );
        }
        let (tab, tcd) = tmp.split_at(2 * quarter);
        cilkmerge(tab, tcd, low);
    }

    /// Sorts `array` with [`cilksort`] and a scratch array of its length
    /// (BOTS' `sort_par`).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what the
    /// tests and the suite measure) or on the global runtime.
    pub fn sort(array: &mut [Elm]) {
        let mut tmp: Vec<Elm> = vec![0; array.len()];
        cilksort(array, &mut tmp);
    }
}
