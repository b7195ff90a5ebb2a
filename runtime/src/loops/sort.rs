//! Parallel sorts of slices — `par_sort`, `par_sort_by`, `par_sort_by_key`
//! (stable) and their `par_sort_unstable*` twins — as a merge sort on the
//! runtime's tasks: cilksort's algorithm (split, sort the halves with a
//! `join`, merge them with a parallel merge) with the standard library's
//! sorts at the leaves.
//!
//! # The algorithm
//!
//! A slice longer than a leaf is cut in two halves, sorted with a `join`,
//! moved into a scratch buffer (one per sort, `len` elements, never
//! dropped: it only ever holds bitwise copies) and merged back into the
//! slice. The merge is parallel: the longer run is cut at its middle, the
//! other run at the matching position (a binary search), and the two pairs
//! are merged into disjoint parts of the destination with a `join`, down to
//! [`MERGE_LEAF`] elements merged by a plain loop. The leaves are sorted by
//! `slice::sort_by` (stable) or `slice::sort_unstable_by`; the merges are
//! stable (on equal elements the left run's go first, and the split points
//! keep every element of the left run that equals an element of the right
//! run on the same side as or before it), so the stable sort is stable.
//!
//! # The leaf rule
//!
//! On one worker the whole slice is one leaf: exactly the standard
//! library's sort, with no merge and no buffer. On `N > 1` workers a leaf
//! has `max(MIN_LEAF, ⌈len / (LEAVES_PER_WORKER × N)⌉)` elements. `N` workers get about
//! `LEAVES_PER_WORKER × N` leaves, enough for the halving joins to spread
//! them (the latent joins cost nothing where nobody steals) and few enough
//! that the merges, `log₂` of the leaf count passes over the data, stay a
//! small part of the work. Slices of at most `MIN_LEAF` elements are sorted
//! by the standard library directly.
//!
//! # Panics in the comparator
//!
//! As with the standard library's sorts, a panicking comparator leaves the
//! slice a permutation of what it held (in an unspecified order) and the
//! panic reaches the caller: no element is lost or duplicated. The leaves
//! inherit this from the standard library. A merge keeps it with
//! [`Merge`], which owns the part of the destination it has not written
//! yet and, when dropped before it finished — by a panic in a comparison,
//! or because `join` dropped its closure unrun after the other half
//! panicked — moves every element it has not merged into that part, in
//! order. Its children take over its whole destination before it forgets
//! itself, so at every moment each destination slot is owned by exactly
//! one `Merge` or already written.
//!
//! # Zero-sized elements
//! Elements of a zero-sized type are all alike (there is nothing to
//! order), so the sorts return at once, as rayon's do, and call neither the
//! comparator nor the key function. `Merge` is sound for them anyway: it
//! keeps its runs' lengths as counts, never as pointer differences (which
//! are undefined for zero-sized types, and panic), and its drop does no
//! arithmetic that can fail.

use crate::analysis::SpawnSite;
use crate::runtime::{current_worker_index, num_workers, Runtime};
use crate::task::join::join_unrouted;
use std::cmp::Ordering;
use std::mem::{self, MaybeUninit};
use std::ptr;

/// Below this many elements a slice is one leaf, whatever the workers.
pub(crate) const MIN_LEAF: usize = 4096;

/// Leaves per worker (see the module docs).
pub(crate) const LEAVES_PER_WORKER: usize = 4;

/// Runs of at most this many elements (together) are merged by a loop.
pub(crate) const MERGE_LEAF: usize = 4096;

/// Sorts `v` in parallel, stably (equal elements keep their order).
///
/// A merge sort on the runtime's tasks, with `slice::sort` at the leaves:
/// on one worker it is `v.sort()`. Called outside any runtime, it runs in
/// the global runtime. rayon's `v.par_sort()`.
///
/// # Panics
/// If `Ord::cmp` panics, the panic propagates and `v` holds its elements in
/// an unspecified order (none lost or duplicated).
///
/// ```
/// let mut v = vec![5, 1, 4, 2, 3];
/// prescient::slice::par_sort(&mut v);
/// assert_eq!(v, [1, 2, 3, 4, 5]);
/// ```
pub fn par_sort<T: Ord + Send>(v: &mut [T]) {
    sort(v, &T::cmp, Leaves::Stable);
}

/// Sorts `v` in parallel with `compare`, stably. rayon's `par_sort_by`.
///
/// `compare` must be a total order (as for `slice::sort_by`); if it is
/// not, the order is unspecified but every element stays in `v`.
///
/// # Panics
/// As [`par_sort`], if `compare` panics.
///
/// ```
/// let mut v = vec![(1, 'b'), (0, 'z'), (1, 'a')];
/// prescient::slice::par_sort_by(&mut v, |x, y| x.0.cmp(&y.0));
/// assert_eq!(v, [(0, 'z'), (1, 'b'), (1, 'a')]); // stable
/// ```
pub fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    sort(v, &compare, Leaves::Stable);
}

/// Sorts `v` in parallel by the keys `key` extracts, stably. rayon's
/// `par_sort_by_key`. The key is computed at every comparison.
///
/// # Panics
/// As [`par_sort`], if `key` or `K::cmp` panics.
///
/// ```
/// let mut v = vec![-3i32, 1, -2];
/// prescient::slice::par_sort_by_key(&mut v, |x| x.abs());
/// assert_eq!(v, [1, -2, -3]);
/// ```
pub fn par_sort_by_key<T, K, F>(v: &mut [T], key: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    sort(v, &|a: &T, b: &T| key(a).cmp(&key(b)), Leaves::Stable);
}

/// Sorts `v` in parallel; equal elements may be reordered. The leaves use
/// `slice::sort_unstable`: on one worker it is `v.sort_unstable()`.
/// rayon's `par_sort_unstable`.
///
/// # Panics
/// As [`par_sort`].
///
/// ```
/// let mut v = vec![3u64, 1, 2];
/// prescient::slice::par_sort_unstable(&mut v);
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub fn par_sort_unstable<T: Ord + Send>(v: &mut [T]) {
    sort(v, &T::cmp, Leaves::Unstable);
}

/// [`par_sort_unstable`] with `compare`. rayon's `par_sort_unstable_by`.
///
/// # Panics
/// As [`par_sort`], if `compare` panics.
///
/// ```
/// let mut v = vec![1, 3, 2];
/// prescient::slice::par_sort_unstable_by(&mut v, |a, b| b.cmp(a));
/// assert_eq!(v, [3, 2, 1]);
/// ```
pub fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    sort(v, &compare, Leaves::Unstable);
}

/// [`par_sort_unstable`] by key. rayon's `par_sort_unstable_by_key`.
///
/// # Panics
/// As [`par_sort`], if `key` or `K::cmp` panics.
///
/// ```
/// let mut v = vec!["ccc", "a", "bb"];
/// prescient::slice::par_sort_unstable_by_key(&mut v, |s| s.len());
/// assert_eq!(v, ["a", "bb", "ccc"]);
/// ```
pub fn par_sort_unstable_by_key<T, K, F>(v: &mut [T], key: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    sort(v, &|a: &T, b: &T| key(a).cmp(&key(b)), Leaves::Unstable);
}

/// How the leaves are sorted.
#[derive(Clone, Copy)]
enum Leaves {
    Stable,
    Unstable,
}

/// The sort behind every public function.
fn sort<T, F>(v: &mut [T], compare: &F, leaves: Leaves)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if mem::size_of::<T>() == 0 {
        // Nothing to order (module docs, *Zero-sized elements*).
        return;
    }
    if v.len() <= MIN_LEAF {
        return sort_leaf(v, compare, leaves);
    }
    if current_worker_index().is_none() {
        return Runtime::global().run(|| sort(v, compare, leaves));
    }
    let leaf = leaf_len(v.len(), num_workers());
    if v.len() <= leaf {
        return sort_leaf(v, compare, leaves);
    }
    // The scratch buffer: capacity only, never a length, so it never drops
    // what is copied into it.
    let mut buffer: Vec<T> = Vec::with_capacity(v.len());
    let scratch = &mut buffer.spare_capacity_mut()[..v.len()];
    sort_into_place(v, scratch, leaf, compare, leaves);
}

/// The leaf length for `len` elements on `workers` workers (module docs).
fn leaf_len(len: usize, workers: usize) -> usize {
    if workers <= 1 {
        return len;
    }
    len.div_ceil(LEAVES_PER_WORKER * workers).max(MIN_LEAF)
}

fn sort_leaf<T, F>(v: &mut [T], compare: &F, leaves: Leaves)
where
    F: Fn(&T, &T) -> Ordering,
{
    match leaves {
        Leaves::Stable => v.sort_by(compare),
        Leaves::Unstable => v.sort_unstable_by(compare),
    }
}

/// Sorts `v` using `scratch` (as long as `v`) for its merges.
fn sort_into_place<T, F>(
    v: &mut [T],
    scratch: &mut [MaybeUninit<T>],
    leaf: usize,
    compare: &F,
    leaves: Leaves,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    if len <= leaf {
        return sort_leaf(v, compare, leaves);
    }
    let mid = len / 2;
    {
        let (left, right) = v.split_at_mut(mid);
        let (left_scratch, right_scratch) = scratch.split_at_mut(mid);
        join_unrouted(
            || sort_into_place(left, left_scratch, leaf, compare, leaves),
            || sort_into_place(right, right_scratch, leaf, compare, leaves),
        );
    }
    // Both halves are sorted: move them into the scratch buffer and merge
    // them back. From here until every `Merge` is done or dropped, the
    // elements' owners are the merges (see `Merge`), and `v` is their
    // destination.
    let source = scratch.as_mut_ptr().cast::<T>();
    let dest = v.as_mut_ptr();
    // SAFETY: `scratch` and `v` are distinct allocations of `len` elements;
    // `v`'s elements are all initialised. After the copy the scratch holds
    // the only logical copy of each (the merge below writes every slot of
    // `v` exactly once, or its drop does, before anyone reads `v` again).
    unsafe { ptr::copy_nonoverlapping(dest, source, len) };
    let merge = Merge {
        left: source,
        left_len: mid,
        right: source.wrapping_add(mid),
        right_len: len - mid,
        dest,
    };
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    merge.run(&is_less);
}

/// A merge of two sorted runs of the scratch buffer, `left_len` elements
/// from `left` and `right_len` from `right`, into the `left_len +
/// right_len` slots of the slice from `dest`.
///
/// It owns the runs' elements and the destination slots it has not written.
/// Dropped before it finished, it moves what it has not merged, left run
/// first, into those slots: so after any panic every slot of the slice holds
/// exactly one element.
///
/// The lengths are counts, not end pointers: a pointer difference is
/// undefined for a zero-sized `T` (whose pointers never move), and the drop
/// must not be able to panic — a panic there, during the unwind of a
/// comparator's panic, aborts the process.
struct Merge<T> {
    left: *const T,
    left_len: usize,
    right: *const T,
    right_len: usize,
    dest: *mut T,
}

/// What [`Merge::split`] made of a merge.
enum Split<T> {
    /// Two merges of disjoint parts, lower then upper.
    Halves(Merge<T>, Merge<T>),
    /// The merge itself, to run with a loop.
    Whole(Merge<T>),
}

// SAFETY: a `Merge` moves `T`s between the scratch buffer and the slice,
// both owned by the sort for its duration; it is sent to another worker
// only inside a `join` of that sort, so it never outlives them. `T: Send`
// makes moving the elements to another thread sound.
unsafe impl<T: Send> Send for Merge<T> {}

impl<T> Merge<T> {
    /// Merges, in parallel above `MERGE_LEAF` elements.
    fn run<F>(self, is_less: &F)
    where
        T: Send,
        F: Fn(&T, &T) -> bool + Sync,
    {
        match self.split(MERGE_LEAF, is_less) {
            Split::Halves(lower, upper) => {
                join_unrouted(move || lower.run(is_less), move || upper.run(is_less));
            }
            Split::Whole(merge) => merge.run_sequential(is_less),
        }
    }

    /// Cuts a merge of more than `leaf` elements (both runs non-empty) into
    /// two that together own everything it did: the lower merges every
    /// element that goes before the upper's, into the destination's first
    /// slots. A smaller merge comes back whole.
    fn split<F>(self, leaf: usize, is_less: &F) -> Split<T>
    where
        F: Fn(&T, &T) -> bool,
    {
        let (left_len, right_len) = (self.left_len, self.right_len);
        if left_len + right_len <= leaf || left_len == 0 || right_len == 0 {
            return Split::Whole(self);
        }
        // The split points; a panic in a comparison here drops `self`, which
        // moves both runs into its destination.
        // SAFETY: the runs hold initialised elements owned by this merge.
        let (left_run, right_run) = unsafe {
            (
                std::slice::from_raw_parts(self.left, left_len),
                std::slice::from_raw_parts(self.right, right_len),
            )
        };
        let (left_cut, right_cut) = if left_len >= right_len {
            // Left's middle element: right elements strictly less go first.
            let cut = left_len / 2;
            let pivot = &left_run[cut];
            (cut, right_run.partition_point(|r| is_less(r, pivot)))
        } else {
            // Right's middle element: left elements not greater go first.
            let cut = right_len / 2;
            let pivot = &right_run[cut];
            (left_run.partition_point(|l| !is_less(pivot, l)), cut)
        };
        let lower = Merge {
            left: self.left,
            left_len: left_cut,
            right: self.right,
            right_len: right_cut,
            dest: self.dest,
        };
        let upper = Merge {
            left: self.left.wrapping_add(left_cut),
            left_len: left_len - left_cut,
            right: self.right.wrapping_add(right_cut),
            right_len: right_len - right_cut,
            dest: self.dest.wrapping_add(left_cut + right_cut),
        };
        // The halves now own everything `self` did.
        mem::forget(self);
        Split::Halves(lower, upper)
    }

    /// Merges with a loop. Each step moves one element and advances the
    /// pointers and counts, so a panic in `is_less` leaves `self` describing
    /// exactly what is not merged, which its drop then moves.
    fn run_sequential<F>(mut self, is_less: &F)
    where
        F: Fn(&T, &T) -> bool,
    {
        while self.left_len > 0 && self.right_len > 0 {
            // SAFETY: both runs are non-empty, so their first pointers point
            // to initialised elements this merge owns.
            let take_right = unsafe { is_less(&*self.right, &*self.left) };
            let from = if take_right { self.right } else { self.left };
            // SAFETY: `from` is an owned element; `dest` is an owned slot of
            // the slice, not overlapping the scratch buffer. After the copy
            // the element's owner is the slot; advancing the pointers and
            // counts records it.
            unsafe { ptr::copy_nonoverlapping(from, self.dest, 1) };
            if take_right {
                self.right = self.right.wrapping_add(1);
                self.right_len -= 1;
            } else {
                self.left = self.left.wrapping_add(1);
                self.left_len -= 1;
            }
            self.dest = self.dest.wrapping_add(1);
        }
        // The rest (one run is empty) is moved by the drop.
    }
}

impl<T> Drop for Merge<T> {
    fn drop(&mut self) {
        // Nothing here can panic: two copies and one pointer offset within
        // the destination, no comparison and no length arithmetic.
        // SAFETY: the runs' remaining elements are owned by this merge, and
        // exactly `left_len + right_len` destination slots from `dest` are
        // still its to write (so `dest + left_len` is within them); the
        // ranges do not overlap (scratch vs slice).
        unsafe {
            ptr::copy_nonoverlapping(self.left, self.dest, self.left_len);
            ptr::copy_nonoverlapping(self.right, self.dest.add(self.left_len), self.right_len);
        }
    }
}

/// [`par_sort`] at an analysed site: `#[task_program]` rewrites the calls
/// it recognises to this. The runtime does not use `site` yet.
#[inline]
pub fn par_sort_at<T: Ord + Send>(site: &'static SpawnSite, v: &mut [T]) {
    let _ = site;
    par_sort(v);
}

/// [`par_sort_by`] at an analysed site (see [`par_sort_at`]).
#[inline]
pub fn par_sort_by_at<T, F>(site: &'static SpawnSite, v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let _ = site;
    par_sort_by(v, compare);
}

/// [`par_sort_by_key`] at an analysed site (see [`par_sort_at`]).
#[inline]
pub fn par_sort_by_key_at<T, K, F>(site: &'static SpawnSite, v: &mut [T], key: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    let _ = site;
    par_sort_by_key(v, key);
}

/// [`par_sort_unstable`] at an analysed site (see [`par_sort_at`]).
#[inline]
pub fn par_sort_unstable_at<T: Ord + Send>(site: &'static SpawnSite, v: &mut [T]) {
    let _ = site;
    par_sort_unstable(v);
}

/// [`par_sort_unstable_by`] at an analysed site (see [`par_sort_at`]).
#[inline]
pub fn par_sort_unstable_by_at<T, F>(site: &'static SpawnSite, v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let _ = site;
    par_sort_unstable_by(v, compare);
}

/// [`par_sort_unstable_by_key`] at an analysed site (see [`par_sort_at`]).
#[inline]
pub fn par_sort_unstable_by_key_at<T, K, F>(site: &'static SpawnSite, v: &mut [T], key: F)
where
    T: Send,
    K: Ord,
    F: Fn(&T) -> K + Sync,
{
    let _ = site;
    par_sort_unstable_by_key(v, key);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_is_one_leaf_and_many_get_about_four_each() {
        assert_eq!(leaf_len(10_000_000, 1), 10_000_000);
        assert_eq!(leaf_len(10_000_000, 16), 156_250);
        assert_eq!(leaf_len(10_000, 64), MIN_LEAF);
    }

    // The tests below exercise `Merge` directly, without a runtime (its
    // `join` would start workers and fibers, which Miri cannot run): their
    // names contain `miri_`, the filter of CI's Miri stage. A merge is
    // split as `run` splits it, at a smaller leaf, and its halves run one
    // after the other, as `join` runs them on one thread: when the lower
    // half panics, the upper is dropped unrun.

    /// Runs `merge` as [`Merge::run`] does, serially, splitting above `leaf`
    /// (at least 2, so that every half is smaller than its merge).
    fn merge_serially<T, F>(merge: Merge<T>, leaf: usize, is_less: &F)
    where
        F: Fn(&T, &T) -> bool,
    {
        match merge.split(leaf, is_less) {
            Split::Halves(lower, upper) => {
                merge_serially(lower, leaf, is_less);
                merge_serially(upper, leaf, is_less);
            }
            Split::Whole(merge) => merge.run_sequential(is_less),
        }
    }

    /// Merges the sorted runs `all[..left_len]` and `all[left_len..]` back
    /// into `all` through a scratch buffer, as `sort_into_place` does;
    /// whether the merge panicked. Either way `all` then holds each of its
    /// elements exactly once.
    fn merge_in_place<T, F>(all: &mut [T], left_len: usize, leaf: usize, is_less: &F) -> bool
    where
        F: Fn(&T, &T) -> bool,
    {
        let len = all.len();
        let mut scratch: Vec<T> = Vec::with_capacity(len);
        let source = scratch.spare_capacity_mut().as_mut_ptr().cast::<T>();
        // SAFETY: as in `sort_into_place`: distinct allocations of `len`
        // elements; from here the merge owns the elements and writes every
        // slot of `all` once (or its drop does) before `all` is used again.
        unsafe { ptr::copy_nonoverlapping(all.as_ptr(), source, len) };
        let merge = Merge {
            left: source,
            left_len,
            right: source.wrapping_add(left_len),
            right_len: len - left_len,
            dest: all.as_mut_ptr(),
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            merge_serially(merge, leaf, is_less)
        }))
        .is_err()
    }

    /// A comparison that panics (without the panic hook's message) at its
    /// `panic_at`-th call, counting its calls.
    fn panicking<'a, T>(
        calls: &'a Cell<usize>,
        panic_at: usize,
        is_less: impl Fn(&T, &T) -> bool + 'a,
    ) -> impl Fn(&T, &T) -> bool + 'a {
        move |a, b| {
            calls.set(calls.get() + 1);
            if calls.get() == panic_at {
                std::panic::resume_unwind(Box::new("expected: comparator panic"));
            }
            is_less(a, b)
        }
    }

    use std::cell::Cell;

    /// An element that counts its drops in its own cell of `drops`.
    struct Counted<'a> {
        key: u32,
        id: usize,
        drops: &'a [Cell<u32>],
    }

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.drops[self.id].set(self.drops[self.id].get() + 1);
        }
    }

    /// Runs of `left` and `right` keys (each sorted) as `Counted` elements
    /// numbered in order; merged serially at `leaf`, the comparison
    /// panicking at its `panic_at`-th call. Checks what must hold whether
    /// it panicked or not, and returns the merged (key, id) pairs and
    /// whether it panicked.
    fn merge_counted(
        left: &[u32],
        right: &[u32],
        leaf: usize,
        panic_at: usize,
    ) -> (Vec<(u32, usize)>, bool) {
        let len = left.len() + right.len();
        let drops: Vec<Cell<u32>> = (0..len).map(|_| Cell::new(0)).collect();
        let mut all: Vec<Counted<'_>> = left
            .iter()
            .chain(right)
            .enumerate()
            .map(|(id, &key)| Counted {
                key,
                id,
                drops: &drops,
            })
            .collect();
        let calls = Cell::new(0);
        let is_less = panicking(&calls, panic_at, |a: &Counted<'_>, b: &Counted<'_>| {
            a.key < b.key
        });
        let panicked = merge_in_place(&mut all, left.len(), leaf, &is_less);
        assert_eq!(panicked, calls.get() >= panic_at);
        assert!(
            drops.iter().all(|d| d.get() == 0),
            "dropped during the merge"
        );
        let merged: Vec<(u32, usize)> = all.iter().map(|c| (c.key, c.id)).collect();
        let mut ids: Vec<usize> = merged.iter().map(|&(_, id)| id).collect();
        ids.sort_unstable();
        assert!(ids.iter().copied().eq(0..len), "a permutation: {merged:?}");
        drop(all);
        assert!(drops.iter().all(|d| d.get() == 1), "each dropped once");
        (merged, panicked)
    }

    /// Sorted keys with repeats, so that stability matters.
    fn runs() -> Vec<Vec<u32>> {
        vec![
            vec![],
            vec![2],
            vec![1, 2, 2, 5],
            vec![2, 3, 5],
            vec![0, 0, 0, 0, 0, 0, 0],
            vec![1, 1, 2, 3, 3, 3, 4, 6, 7, 9, 9],
        ]
    }

    #[test]
    fn miri_merges_are_stable_at_every_split_size() {
        for left in runs() {
            for right in runs() {
                for leaf in [2, 5, usize::MAX] {
                    let (merged, panicked) = merge_counted(&left, &right, leaf, usize::MAX);
                    assert!(!panicked);
                    // Stable: by key, then by original position (left's
                    // ids come before right's).
                    assert!(
                        merged.windows(2).all(|w| w[0] < w[1]),
                        "{left:?} + {right:?} at leaf {leaf}: {merged:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn miri_a_panicking_comparison_leaves_every_element_once() {
        // Fewer shapes than above: each panic point is a merge of its own.
        let runs = [
            vec![],
            vec![2],
            vec![1, 2, 2, 5],
            vec![1, 1, 2, 3, 3, 3, 4, 6, 7, 9, 9],
        ];
        for left in &runs {
            for right in &runs {
                for leaf in [3, usize::MAX] {
                    // Each comparison in turn panics, until one merge makes
                    // fewer comparisons than that.
                    for panic_at in 1.. {
                        if !merge_counted(left, right, leaf, panic_at).1 {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// A zero-sized element that counts its drops (in a thread-local: tests
    /// run on several threads).
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct ZeroSized;

    thread_local! {
        static ZERO_SIZED_DROPS: Cell<usize> = const { Cell::new(0) };
    }

    impl Drop for ZeroSized {
        fn drop(&mut self) {
            ZERO_SIZED_DROPS.with(|drops| drops.set(drops.get() + 1));
        }
    }

    /// Zero-sized elements in a merge: their pointers never move, so the
    /// merge must count, not subtract pointers (`offset_from`
    /// panicked, and again in the drop during the unwind, which aborted).
    /// Merged whole and split, with and without a panicking comparison,
    /// each element is dropped exactly once.
    #[test]
    fn miri_zero_sized_merges_keep_every_element_once() {
        for (left_len, right_len) in [(0, 0), (1, 0), (0, 3), (1, 1), (4, 3), (9, 17)] {
            let len = left_len + right_len;
            for leaf in [2, 5, usize::MAX] {
                let mut units = vec![(); len];
                assert!(!merge_in_place(
                    &mut units,
                    left_len,
                    leaf,
                    &|_: &(), _: &()| false
                ));
                assert_eq!(units.len(), len);
                for panic_at in 1..=len + 1 {
                    ZERO_SIZED_DROPS.with(|drops| drops.set(0));
                    let mut all: Vec<ZeroSized> = (0..len).map(|_| ZeroSized).collect();
                    let calls = Cell::new(0);
                    let is_less = panicking(&calls, panic_at, |a: &ZeroSized, b| a < b);
                    let panicked = merge_in_place(&mut all, left_len, leaf, &is_less);
                    assert_eq!(panicked, calls.get() >= panic_at);
                    assert_eq!(ZERO_SIZED_DROPS.with(Cell::get), 0);
                    assert_eq!(all.len(), len);
                    drop(all);
                    assert_eq!(ZERO_SIZED_DROPS.with(Cell::get), len);
                }
            }
        }
    }

    /// The sorts return at once on zero-sized elements, even above the leaf
    /// length (no comparison, no runtime: this runs under Miri, which has
    /// no fibers), and nothing is dropped.
    #[test]
    fn miri_zero_sized_sorts_return_at_once() {
        let never = |_: &ZeroSized, _: &ZeroSized| -> Ordering { unreachable!("compared") };
        ZERO_SIZED_DROPS.with(|drops| drops.set(0));
        let mut all: Vec<ZeroSized> = (0..MIN_LEAF + 1).map(|_| ZeroSized).collect();
        par_sort(&mut all);
        par_sort_unstable(&mut all);
        par_sort_by(&mut all, never);
        par_sort_unstable_by(&mut all, never);
        par_sort_by_key(&mut all, |_| -> u8 { unreachable!("keyed") });
        par_sort_unstable_by_key(&mut all, |_| -> u8 { unreachable!("keyed") });
        assert_eq!(ZERO_SIZED_DROPS.with(Cell::get), 0);
        drop(all);
        assert_eq!(ZERO_SIZED_DROPS.with(Cell::get), MIN_LEAF + 1);
    }
}
