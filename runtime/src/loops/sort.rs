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
        left_end: source.wrapping_add(mid),
        right: source.wrapping_add(mid),
        right_end: source.wrapping_add(len),
        dest,
    };
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    merge.run(&is_less);
}

/// A merge of two sorted runs of the scratch buffer, `left..left_end` and
/// `right..right_end`, into `dest..dest + (both lengths)` of the slice.
///
/// It owns the runs' elements and the destination slots it has not written.
/// Dropped before it finished, it moves what it has not merged, left run
/// first, into those slots: so after any panic every slot of the slice holds
/// exactly one element.
struct Merge<T> {
    left: *const T,
    left_end: *const T,
    right: *const T,
    right_end: *const T,
    dest: *mut T,
}

// SAFETY: a `Merge` moves `T`s between the scratch buffer and the slice,
// both owned by the sort for its duration; it is sent to another worker
// only inside a `join` of that sort, so it never outlives them. `T: Send`
// makes moving the elements to another thread sound.
unsafe impl<T: Send> Send for Merge<T> {}

impl<T> Merge<T> {
    fn left_len(&self) -> usize {
        // SAFETY: both pointers are in (or one past) the same run.
        unsafe { self.left_end.offset_from(self.left) as usize }
    }

    fn right_len(&self) -> usize {
        // SAFETY: `right` and `right_end` are in (or one past) the same run,
        // the right one.
        unsafe { self.right_end.offset_from(self.right) as usize }
    }

    /// Merges, in parallel above `MERGE_LEAF` elements.
    fn run<F>(self, is_less: &F)
    where
        T: Send,
        F: Fn(&T, &T) -> bool + Sync,
    {
        let (left_len, right_len) = (self.left_len(), self.right_len());
        if left_len + right_len <= MERGE_LEAF || left_len == 0 || right_len == 0 {
            return self.run_sequential(is_less);
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
            left_end: self.left.wrapping_add(left_cut),
            right: self.right,
            right_end: self.right.wrapping_add(right_cut),
            dest: self.dest,
        };
        let upper = Merge {
            left: self.left.wrapping_add(left_cut),
            left_end: self.left_end,
            right: self.right.wrapping_add(right_cut),
            right_end: self.right_end,
            dest: self.dest.wrapping_add(left_cut + right_cut),
        };
        // The halves now own everything `self` did.
        mem::forget(self);
        join_unrouted(move || lower.run(is_less), move || upper.run(is_less));
    }

    /// Merges with a loop. Each step moves one element and advances the
    /// pointers, so a panic in `is_less` leaves `self` describing exactly
    /// what is not merged, which its drop then moves.
    fn run_sequential<F>(mut self, is_less: &F)
    where
        F: Fn(&T, &T) -> bool,
    {
        while self.left < self.left_end && self.right < self.right_end {
            // SAFETY: both pointers are below their ends, so they point to
            // initialised elements this merge owns.
            let take_right = unsafe { is_less(&*self.right, &*self.left) };
            let from = if take_right { self.right } else { self.left };
            // SAFETY: `from` is an owned element; `dest` is an owned slot of
            // the slice, not overlapping the scratch buffer. After the copy
            // the element's owner is the slot; advancing both pointers
            // records it.
            unsafe { ptr::copy_nonoverlapping(from, self.dest, 1) };
            if take_right {
                self.right = self.right.wrapping_add(1);
            } else {
                self.left = self.left.wrapping_add(1);
            }
            self.dest = self.dest.wrapping_add(1);
        }
        // The rest (one run is empty) is moved by the drop.
    }
}

impl<T> Drop for Merge<T> {
    fn drop(&mut self) {
        let (left_len, right_len) = (self.left_len(), self.right_len());
        // SAFETY: the runs' remaining elements are owned by this merge, and
        // exactly `left_len + right_len` destination slots from `dest` are
        // still its to write; the ranges do not overlap (scratch vs slice).
        unsafe {
            ptr::copy_nonoverlapping(self.left, self.dest, left_len);
            ptr::copy_nonoverlapping(self.right, self.dest.add(left_len), right_len);
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

    /// The merge alone, on one thread (no runtime: `join_unrouted` outside
    /// one would start the global runtime, so this stays below the
    /// parallel size): stable, and a permutation after a panic.
    #[test]
    fn a_sequential_merge_is_stable_and_panic_safe() {
        let run = |left: Vec<(u32, u32)>, right: Vec<(u32, u32)>, panic_after: usize| {
            let mut all: Vec<(u32, u32)> = left.iter().chain(&right).cloned().collect();
            let mut scratch: Vec<(u32, u32)> = Vec::with_capacity(all.len());
            let source = scratch
                .spare_capacity_mut()
                .as_mut_ptr()
                .cast::<(u32, u32)>();
            // SAFETY: a test of the merge's own protocol: copies of plain
            // `Copy` values.
            unsafe { ptr::copy_nonoverlapping(all.as_ptr(), source, all.len()) };
            let merge = Merge {
                left: source,
                left_end: source.wrapping_add(left.len()),
                right: source.wrapping_add(left.len()),
                right_end: source.wrapping_add(all.len()),
                dest: all.as_mut_ptr(),
            };
            let calls = std::cell::Cell::new(0);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                merge.run_sequential(&|a: &(u32, u32), b: &(u32, u32)| {
                    calls.set(calls.get() + 1);
                    assert!(calls.get() <= panic_after, "expected: comparator panic");
                    a.0 < b.0
                });
            }));
            (all, outcome.is_err())
        };
        let left = vec![(1, 0), (2, 1), (2, 2), (5, 3)];
        let right = vec![(2, 4), (3, 5), (5, 6)];
        let (merged, panicked) = run(left.clone(), right.clone(), usize::MAX);
        assert!(!panicked);
        assert_eq!(
            merged,
            [(1, 0), (2, 1), (2, 2), (2, 4), (3, 5), (5, 3), (5, 6)]
        );
        for k in 0..6 {
            let (mut after, panicked) = run(left.clone(), right.clone(), k);
            assert!(panicked, "panic after {k} comparisons");
            after.sort();
            let mut expected: Vec<_> = left.iter().chain(&right).cloned().collect();
            expected.sort();
            assert_eq!(after, expected, "a permutation after {k} comparisons");
        }
    }
}
