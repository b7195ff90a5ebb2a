//! `for_range` and `for_range_chunked`: a parallel loop over a range of
//! indices, with a grain size, split in halves by [`join`](fn@crate::join) (INSPIRE's job
//! ranges; rayon's `par_iter().for_each` shape).
//!
//! A worker runs its range as a plain loop over chunks of `grain` indices
//! and splits what is left in halves, `start..mid` and `mid..end` with `mid =
//! start + len / 2`, only when a thief has asked it for work: the splitting
//! engine of every loop, `split.rs`, over a range piece (its module docs say
//! how, why it is correct, and what it costs). A request is answered within
//! one chunk: choose `grain` so that a chunk takes a few microseconds at
//! most. Nobody asking means no split and no join at all: on one worker a
//! range loop costs a flag load per chunk.

use crate::analysis::SpawnSite;
use crate::loops::split::{for_each_chunk, RangePiece};
use std::ops::Range;

/// Runs `body(i)` for every `i` in `range`, exactly once each, possibly in
/// parallel, and returns when all calls have returned.
///
/// A worker runs the range as a plain loop, in chunks of `grain` indices,
/// and splits what is left in two halves — one for the asking worker — only
/// when another worker has run out of work (runtime-directed splitting; see
/// the module source for how). On one worker the loop costs one flag load
/// per chunk over a sequential loop. Choose `grain` so that `grain` calls
/// of `body` take well under a millisecond (a request for work waits for
/// the chunk in progress) and, for tiny bodies, a microsecond or more.
/// `body` must not wait for a later index (nobody could run it meanwhile).
///
/// A `grain` of 0 is taken as 1 (a grain computed as `n / k` is 0 for small
/// `n`, where the finest split is what is wanted). An empty range (including
/// `start > end`) does nothing.
///
/// This is rayon's `(range).into_par_iter().with_min_len(grain).for_each(body)`.
/// Called outside any runtime, it runs in the global runtime.
///
/// # Panics
/// A panic in `body` propagates to the caller once no piece of the loop is
/// running any more, as [`join`](fn@crate::join)'s do; when several pieces panic, the payload
/// of the panicking piece with the lowest indices wins (`join` propagates its
/// first closure's payload). Pieces that were deferred still run; pieces that
/// would have run inline after a panicking one, in the same plain call chain,
/// are skipped. So after a panic some indices may not have been visited.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let sum = AtomicU64::new(0);
/// prescient::for_range(0..1000, 64, |i| {
///     sum.fetch_add(i as u64, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 499_500);
/// ```
pub fn for_range<F>(range: Range<usize>, grain: usize, body: F)
where
    F: Fn(usize) + Send + Sync,
{
    for_range_chunked(range, grain, move |chunk: Range<usize>| {
        chunk.for_each(&body)
    });
}

/// Runs `body(chunk)` for disjoint, non-empty, contiguous chunks of `range`
/// that together cover it, each of at most `grain` indices, possibly in
/// parallel, and returns when all calls have returned.
///
/// The chunks are [`for_range`]'s: each piece of the range a worker holds is
/// cut into chunks of `grain` indices from its start, the last one shorter,
/// and a piece is halved only when another worker asks for work. So on one
/// worker the chunks are exactly `start..start + grain`, … in order, and a
/// range of at most `grain` indices is one chunk. Use it when a body does
/// better on a whole chunk at once (a slice operation, a local accumulator
/// flushed once per chunk) than per index.
///
/// A `grain` of 0 is taken as 1; an empty range calls nothing. Called outside
/// any runtime, it runs in the global runtime.
///
/// # Panics
/// As [`for_range`]: a panic in `body` propagates once no chunk is running,
/// the one of the lowest chunk among those that panicked; chunks that would
/// have run inline after it may be skipped.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let data: Vec<u32> = (0..10_000).collect();
/// let evens = AtomicUsize::new(0);
/// prescient::for_range_chunked(0..data.len(), 1024, |chunk| {
///     assert!(!chunk.is_empty() && chunk.len() <= 1024);
///     let local = data[chunk].iter().filter(|&&v| v % 2 == 0).count();
///     evens.fetch_add(local, Ordering::Relaxed);
/// });
/// assert_eq!(evens.into_inner(), 5_000);
/// ```
pub fn for_range_chunked<F>(range: Range<usize>, grain: usize, body: F)
where
    F: Fn(Range<usize>) + Send + Sync,
{
    if range.is_empty() {
        return;
    }
    let piece = RangePiece {
        range,
        grain: grain.max(1),
    };
    for_each_chunk(piece, move |chunk: RangePiece| body(chunk.range));
}

/// [`for_range`] at an analysed spawn site: `#[task_program]` rewrites the
/// `for_range` calls it recognises to `for_range_at(&SITE, range, grain,
/// body)`. The runtime does not use `site` yet: this is exactly
/// `for_range(range, grain, body)`.
#[inline]
pub fn for_range_at<F>(site: &'static SpawnSite, range: Range<usize>, grain: usize, body: F)
where
    F: Fn(usize) + Send + Sync,
{
    let _ = site;
    for_range(range, grain, body);
}

/// [`for_range_chunked`] at an analysed spawn site, as
/// [`for_range_at`]: exactly `for_range_chunked(range, grain, body)`.
#[inline]
pub fn for_range_chunked_at<F>(site: &'static SpawnSite, range: Range<usize>, grain: usize, body: F)
where
    F: Fn(Range<usize>) + Send + Sync,
{
    let _ = site;
    for_range_chunked(range, grain, body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use crate::scheduler::worker::WorkerThread;
    use std::sync::Mutex;

    /// The chunks on one worker, where nobody asks for a split: exactly
    /// `grain`-long chunks from the start, in order.
    fn chunks(range: Range<usize>, grain: usize) -> Vec<Range<usize>> {
        let runtime = Runtime::builder().num_workers(1).build().unwrap();
        let seen = Mutex::new(Vec::new());
        runtime.run(|| for_range_chunked(range, grain, |c| seen.lock().unwrap().push(c)));
        seen.into_inner().unwrap()
    }

    /// Bytes of stack between the caller of a chunked loop over `2^levels`
    /// indices with grain 1 and its deepest chunk, on one worker under `PF`,
    /// when every chunk asks for a split (as a thief would): each piece runs
    /// one chunk, then splits what is left, and the split's second half is
    /// published and taken back — the deepest path a split can take.
    fn stack_below_loop(levels: u32) -> usize {
        let params = crate::Params::DEFAULT
            .with_queue_policy(crate::params::QueuePolicy::InsertFrontStealBack)
            .checked();
        let runtime = Runtime::builder()
            .params(params)
            .num_workers(1)
            .build()
            .unwrap();
        runtime.run(|| {
            let top = 0u8;
            let top = std::hint::black_box(&top) as *const u8 as usize;
            let lowest = std::sync::atomic::AtomicUsize::new(usize::MAX);
            for_range_chunked(0..1 << levels, 1, |_| {
                let leaf = 0u8;
                let leaf = std::hint::black_box(&leaf) as *const u8 as usize;
                lowest.fetch_min(leaf, std::sync::atomic::Ordering::Relaxed);
                WorkerThread::with_current(|worker| worker.unwrap().ask_for_work());
            });
            top - lowest.into_inner()
        })
    }

    #[test]
    fn a_splitting_level_fits_two_join_frames() {
        use crate::analysis::emitted::JOIN_FRAME_BYTES;
        let (shallow, deep) = (stack_below_loop(2), stack_below_loop(12));
        assert!(deep > shallow, "no splitting: {shallow} vs {deep} B");
        let per_level = (deep - shallow) / 10;
        assert!(
            per_level <= 2 * JOIN_FRAME_BYTES,
            "a splitting level costs {per_level} B, more than 2 * JOIN_FRAME_BYTES"
        );
        // What the analyzer charges a range loop's body: two join frames per
        // splitting level and one for the piece itself.
        for (levels, bytes) in [(2, shallow), (12, deep)] {
            assert!(
                bytes <= (2 * levels + 1) * JOIN_FRAME_BYTES,
                "{levels} levels: {bytes} B below the caller"
            );
        }
    }

    #[test]
    // Lists of one chunk and a backwards (empty) range, on purpose.
    #[allow(clippy::single_range_in_vec_init, clippy::reversed_empty_ranges)]
    fn chunks_tile_the_range() {
        assert!(chunks(0..0, 4).is_empty());
        assert!(chunks(7..3, 4).is_empty());
        assert_eq!(chunks(3..5, 4), [3..5]);
        assert_eq!(chunks(0..8, 2), [0..2, 2..4, 4..6, 6..8]);
        assert_eq!(chunks(0..5, 2), [0..2, 2..4, 4..5]);
        assert_eq!(chunks(0..3, 0), [0..1, 1..2, 2..3], "grain 0 is 1");
        let top = usize::MAX - 4..usize::MAX;
        assert_eq!(chunks(top.clone(), 8), [top]);
    }
}
