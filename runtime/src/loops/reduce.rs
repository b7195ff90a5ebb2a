//! `for_range_reduce`, `for_range_chunked_reduce` and `for_chunks_reduce`:
//! parallel folds over a range or a slice, deterministic for an associative
//! combination however the work was split — rayon's `fold(...).reduce(...)`
//! and OpenMP's `reduction` clause.
//!
//! They are the range loop's engine (`split.rs`) with a real accumulator:
//! a worker folds its piece chunk by chunk into one accumulator and, when a
//! thief asks, hands the upper half of what is left over to be folded from
//! a fresh `identity()`; the two results meet in `combine(lower, upper)`.
//! The order, and why it equals the sequential fold, is in `split.rs`.

use crate::analysis::SpawnSite;
use crate::loops::split::{assert_chunk_len, fold_pieces, Fold, RangePiece, SlicePiece};
use std::ops::Range;

/// Folds every index of `range` in parallel and returns the result: each
/// piece of the range folds its indices in order, `acc = fold(acc, i)`,
/// starting from `identity()`, and the results of adjacent pieces are
/// combined with `combine(lower, upper)`, in index order.
///
/// So with an associative `combine` for which `identity()` is neutral and
/// `fold(acc, i) == combine(acc, fold(identity(), i))`, the result is the
/// sequential `range.fold(identity(), fold)`, however the range was split;
/// `combine` need not be commutative. Which indices form a piece depends on
/// when other workers asked for work, so the grouping varies between runs:
/// a floating-point sum can differ from the sequential one (and from run to
/// run) in the last bits, as rayon's does. An empty range (including
/// `start > end`) returns `identity()`.
///
/// The range is split as [`for_range`](crate::for_range)'s, on request: a
/// worker folds it in chunks of `grain` indices and halves what is left only
/// when another worker has run out of work, so one worker folds the whole
/// range from one `identity()` and never calls `combine`. A `grain` of 0 is
/// taken as 1. Called outside any runtime, it runs in the global runtime.
///
/// This is rayon's `range.into_par_iter().with_min_len(grain).fold(identity,
/// fold).reduce(identity, combine)`, and OpenMP's `reduction` clause with a
/// user-declared reduction.
///
/// # Panics
/// A panic in `identity`, `fold` or `combine` propagates to the caller once
/// no piece of the loop is running any more, as
/// [`for_range`](crate::for_range)'s do: the payload of the lowest piece
/// among those that panicked wins, and pieces that would have run inline
/// after a panicking one may be skipped.
///
/// ```
/// // A sum of squares, and an order-sensitive fold: the indices as text.
/// let sum = prescient::for_range_reduce(0..1000, 64, || 0u64, |s, i| s + (i * i) as u64, |a, b| a + b);
/// assert_eq!(sum, 332_833_500);
/// let text = prescient::for_range_reduce(
///     0..20,
///     1,
///     String::new,
///     |mut s, i| {
///         s.push_str(&i.to_string());
///         s
///     },
///     |a, b| a + &b,
/// );
/// assert_eq!(text, "012345678910111213141516171819");
/// ```
pub fn for_range_reduce<T, I, F, C>(
    range: Range<usize>,
    grain: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, usize) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    for_range_chunked_reduce(
        range,
        grain,
        identity,
        move |acc, chunk| chunk.fold(acc, &fold),
        combine,
    )
}

/// Folds `range` chunk by chunk in parallel and returns the result: the
/// chunked form of [`for_range_reduce`], with its order and determinism.
///
/// The chunks are [`for_range_chunked`](crate::for_range_chunked)'s:
/// disjoint, non-empty, contiguous, at most `grain` indices each, cut from
/// the start of each piece a worker holds; each piece folds its chunks in
/// order, `acc = fold(acc, chunk)`, from `identity()`, and adjacent pieces'
/// results are combined with `combine(lower, upper)` in index order. With
/// an associative `combine`, a neutral `identity()` and
/// `fold(acc, c) == combine(acc, fold(identity(), c))`, the result is the
/// sequential fold over the chunks, however the range was split. Use it when
/// a chunk folds faster whole (a slice sum, a vectorised loop) than index
/// by index. A `grain` of 0 is taken as 1; an empty range returns
/// `identity()`. Called outside any runtime, it runs in the global runtime.
///
/// # Panics
/// As [`for_range_reduce`]'s.
///
/// ```
/// let values: Vec<f64> = (0..10_000).map(f64::from).collect();
/// let sum = prescient::for_range_chunked_reduce(
///     0..values.len(),
///     1024,
///     || 0.0,
///     |acc, chunk| acc + values[chunk].iter().sum::<f64>(),
///     |a, b| a + b,
/// );
/// assert_eq!(sum, 49_995_000.0); // exact: every partial sum is an integer
/// ```
pub fn for_range_chunked_reduce<T, I, F, C>(
    range: Range<usize>,
    grain: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, Range<usize>) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    if range.is_empty() {
        return identity();
    }
    let piece = RangePiece {
        range,
        grain: grain.max(1),
    };
    let fold = move |acc, chunk: RangePiece| fold(acc, chunk.range);
    fold_pieces(
        piece,
        &Fold {
            identity: &identity,
            fold: &fold,
            combine: &combine,
        },
    )
}

/// Folds the chunks of `slice.chunks(chunk_len)` in parallel and returns
/// the result: [`for_range_reduce`]'s order and determinism over
/// [`for_chunks`](crate::for_chunks)'s chunks.
///
/// Each piece folds its chunks in order, `acc = fold(acc, chunk_index,
/// chunk)`, from `identity()` (`chunk_index` is the chunk's offset divided
/// by `chunk_len`; the last chunk may be shorter), and adjacent pieces'
/// results are combined with `combine(lower, upper)` in index order. Pieces
/// are split only on request and only at chunk boundaries, so the chunks are
/// always exactly those of `slice.chunks(chunk_len)`. An empty slice returns
/// `identity()`. Called outside any runtime, it runs in the global runtime.
///
/// This is rayon's `slice.par_chunks(chunk_len).enumerate().fold(identity,
/// ...).reduce(identity, combine)`.
///
/// # Panics
/// If `chunk_len` is 0, with `slice::chunks`'s message, "chunk size must be
/// non-zero". A panic in `identity`, `fold` or `combine` propagates as
/// [`for_range_reduce`]'s do.
///
/// ```
/// let data: Vec<u32> = (0..1000).collect();
/// // The largest value and the index of the first chunk holding it.
/// let (max, chunk) = prescient::for_chunks_reduce(
///     &data,
///     100,
///     || (0, 0),
///     |best, i, chunk| {
///         let m = *chunk.iter().max().unwrap();
///         if m > best.0 { (m, i) } else { best }
///     },
///     |a, b| if b.0 > a.0 { b } else { a },
/// );
/// assert_eq!((max, chunk), (999, 9));
/// ```
pub fn for_chunks_reduce<E, T, I, F, C>(
    slice: &[E],
    chunk_len: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    E: Sync,
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, usize, &[E]) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    assert_chunk_len(chunk_len);
    if slice.is_empty() {
        return identity();
    }
    let piece = SlicePiece {
        slice,
        first_chunk: 0,
        chunk_len,
    };
    let fold = move |acc, chunk: SlicePiece<'_, E>| fold(acc, chunk.first_chunk, chunk.slice);
    fold_pieces(
        piece,
        &Fold {
            identity: &identity,
            fold: &fold,
            combine: &combine,
        },
    )
}

/// [`for_range_reduce`] at an analysed spawn site, as `for_range_at`: the
/// runtime does not use `site` yet, so this is exactly
/// `for_range_reduce(range, grain, identity, fold, combine)`.
#[inline]
pub fn for_range_reduce_at<T, I, F, C>(
    site: &'static SpawnSite,
    range: Range<usize>,
    grain: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, usize) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    let _ = site;
    for_range_reduce(range, grain, identity, fold, combine)
}

/// [`for_range_chunked_reduce`] at an analysed spawn site: exactly
/// `for_range_chunked_reduce(range, grain, identity, fold, combine)`.
#[inline]
pub fn for_range_chunked_reduce_at<T, I, F, C>(
    site: &'static SpawnSite,
    range: Range<usize>,
    grain: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, Range<usize>) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    let _ = site;
    for_range_chunked_reduce(range, grain, identity, fold, combine)
}

/// [`for_chunks_reduce`] at an analysed spawn site: exactly
/// `for_chunks_reduce(slice, chunk_len, identity, fold, combine)`.
#[inline]
pub fn for_chunks_reduce_at<E, T, I, F, C>(
    site: &'static SpawnSite,
    slice: &[E],
    chunk_len: usize,
    identity: I,
    fold: F,
    combine: C,
) -> T
where
    E: Sync,
    T: Send,
    I: Fn() -> T + Send + Sync,
    F: Fn(T, usize, &[E]) -> T + Send + Sync,
    C: Fn(T, T) -> T + Send + Sync,
{
    let _ = site;
    for_chunks_reduce(slice, chunk_len, identity, fold, combine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use crate::scheduler::worker::WorkerThread;

    /// A fold that asks for a split at every index (as a thief would) and
    /// records the indices in order: the concatenation is the sequential
    /// one, on any number of workers.
    #[test]
    fn a_fold_split_at_every_chunk_is_the_sequential_fold() {
        for workers in [1, 2, 4] {
            let runtime = Runtime::builder().num_workers(workers).build().unwrap();
            for (n, grain) in [(1, 1), (2, 1), (100, 1), (1000, 7), (513, 64)] {
                let indices = runtime.run(|| {
                    for_range_reduce(
                        0..n,
                        grain,
                        Vec::new,
                        |mut v, i| {
                            WorkerThread::with_current(|w| w.unwrap().ask_for_work());
                            v.push(i);
                            v
                        },
                        |mut a, b| {
                            a.extend(b);
                            a
                        },
                    )
                });
                assert_eq!(
                    indices,
                    (0..n).collect::<Vec<_>>(),
                    "{n}/{grain} on {workers}"
                );
                let data: Vec<usize> = (0..n).collect();
                let chunks = runtime.run(|| {
                    for_chunks_reduce(
                        &data,
                        grain,
                        Vec::new,
                        |mut v, i, chunk| {
                            WorkerThread::with_current(|w| w.unwrap().ask_for_work());
                            assert_eq!(chunk[0], i * grain);
                            v.extend_from_slice(chunk);
                            v
                        },
                        |mut a, b| {
                            a.extend(b);
                            a
                        },
                    )
                });
                assert_eq!(chunks, data, "{n}/{grain} on {workers}");
            }
        }
    }
}
