//! `for_range` and `for_range_chunked`: a parallel loop over a range of
//! indices, with a grain size, split in halves by [`join`] (INSPIRE's job
//! ranges; rayon's `par_iter().for_each` shape).
//!
//! # How a range is split
//!
//! A range longer than the grain is cut in two halves, `start..mid` and
//! `mid..end` with `mid = start + len / 2`, and the halves go to one
//! [`join`]; each half is split again the same way, until a piece holds at
//! most `grain` indices and runs as one plain sequential loop (rayon's
//! `bridge` does the same, with its own splitter). The loop decides nothing
//! else: whether a half becomes parallel work is the runtime's decision, made
//! per `join` by lazy task creation.
//!
//! * **Runtime-directed splitting.** `join` defers its second half (pushes it
//!   as a job thieves may take) only while this worker's deque holds fewer
//!   than `queue_capacity` jobs; otherwise `join(a, b)` is `(a(), b())`. The
//!   splitting is depth first, so the deque holds at most one pending half
//!   per level of the current path, the largest (a half of the whole range)
//!   the oldest: a thief that steals the oldest job (`PF`, `BF`) takes the
//!   largest piece left and splits it further itself. Where nobody is hungry,
//!   nothing is stolen and the halves stay with their owner: under `PF` and
//!   `FF` it takes each one back and runs it on the same stack; under `DEF`
//!   and `BF`, whose owner takes its oldest job first, the joining piece
//!   suspends while the worker runs its pending halves, largest first. Once
//!   the deque is full the rest of the range runs as plain recursive calls.
//!
//! * **Why it is correct.** A piece is split only when `len > grain ≥ 1`, so
//!   `len ≥ 2` and `start < mid < end`: both halves are non-empty, disjoint,
//!   strictly shorter, and together exactly the piece. By induction every
//!   index of the range lies in exactly one leaf, the recursion ends, and
//!   every leaf holds between `⌊(grain + 1) / 2⌋` (when the range was longer
//!   than the grain) and `grain` indices. `join` runs each of its closures
//!   exactly once (unless one panics: see [`for_range`]'s `# Panics`), so
//!   every index is visited exactly once. The body is shared by reference between the threads that
//!   run pieces, hence `F: Sync`; nothing else is shared, so the loop itself
//!   needs no synchronisation beyond `join`'s.
//!
//! * **Why it is cheap.** The split tree of `p` leaves has `p - 1` joins, so
//!   the loop costs `O(1)` joins per leaf, i.e. per `grain` indices; a join
//!   that finds the deque full is a thread-local load, a compare and two
//!   calls, and a deferred one is a record in this frame plus a deque slot
//!   (and, under `DEF` and `BF`, a suspension of the joining piece). A grain
//!   of 1 on items of tens of nanoseconds therefore costs the loop a
//!   noticeable fraction of its time (`loop_table` in the benchmarks
//!   measures it against rayon, whose `with_min_len` is a lower bound it
//!   rarely splits down to); a grain whose pieces take microseconds does
//!   not.
//!   Each level halves the length, so the recursion is at most
//!   `usize::BITS` (64) levels deep: `#[task_program]` charges a range loop's
//!   body two `JOIN_FRAME_BYTES` of stack per level, 129 in all with its own,
//!   and `tests/tests/for_range.rs` checks that one level of splitting fits
//!   in two (it measures about one).

use crate::analysis::SpawnSite;
use crate::join::join;
use crate::runtime::{current_worker_index, Runtime};
use std::ops::Range;

/// Runs `body(i)` for every `i` in `range`, exactly once each, possibly in
/// parallel, and returns when all calls have returned.
///
/// The range is split in halves with [`join`] until a piece holds at most
/// `grain` indices; each piece then runs as a plain loop on one worker. The
/// splitting is runtime-directed: a half becomes a task other workers may
/// steal only while this worker's deque has room (lazy task creation, see
/// [`Params::queue_capacity`](crate::Params::queue_capacity)), and is stolen
/// only by a worker that has nothing else to do; otherwise halves run as
/// plain calls. Choose `grain` so that `grain` calls of `body` take at least
/// a few microseconds: the loop costs about one `join` per `grain` indices.
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
/// running any more, as [`join`]'s do; when several pieces panic, the payload
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
    for_range_chunked(range, grain, |chunk: Range<usize>| chunk.for_each(&body));
}

/// Runs `body(chunk)` for disjoint, non-empty, contiguous chunks of `range`
/// that together cover it, each of at most `grain` indices, possibly in
/// parallel, and returns when all calls have returned.
///
/// The chunks are the pieces of [`for_range`]'s splitting: the range is
/// halved until a piece holds at most `grain` indices, so when the range is
/// longer than `grain` every chunk also holds at least `(grain + 1) / 2`
/// indices (rounded down); a range of at most `grain` indices is one chunk.
/// Use it when a body does better on a whole chunk at once (a slice
/// operation, a local accumulator flushed once per chunk) than per index.
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
    let grain = grain.max(1);
    if current_worker_index().is_none() {
        // Outside any runtime: the whole loop, even a single piece, runs on
        // a worker of the global runtime (as `join` would put its halves).
        return Runtime::global().run(|| split(range, grain, &body));
    }
    split(range, grain, &body);
}

/// Splits `range` (non-empty) in halves until a piece holds at most `grain`
/// (≥ 1) indices, and runs `body` on each piece.
fn split<F>(range: Range<usize>, grain: usize, body: &F)
where
    F: Fn(Range<usize>) + Sync,
{
    let len = range.end - range.start;
    if len <= grain {
        body(range);
        return;
    }
    // `len > grain >= 1`: both halves are non-empty.
    let mid = range.start + len / 2;
    join(
        || split(range.start..mid, grain, body),
        || split(mid..range.end, grain, body),
    );
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
    use std::sync::Mutex;

    fn chunks(range: Range<usize>, grain: usize) -> Vec<Range<usize>> {
        let seen = Mutex::new(Vec::new());
        for_range_chunked(range, grain, |c| seen.lock().unwrap().push(c));
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|c| c.start);
        seen
    }

    #[test]
    // Lists of one chunk and a backwards (empty) range, on purpose.
    #[allow(clippy::single_range_in_vec_init, clippy::reversed_empty_ranges)]
    fn chunks_tile_the_range() {
        assert_eq!(chunks(0..0, 4), []);
        assert_eq!(chunks(7..3, 4), []);
        assert_eq!(chunks(3..5, 4), [3..5]);
        assert_eq!(chunks(0..8, 2), [0..2, 2..4, 4..6, 6..8]);
        assert_eq!(chunks(0..5, 2), [0..2, 2..3, 3..5]);
        assert_eq!(chunks(0..3, 0), [0..1, 1..2, 2..3], "grain 0 is 1");
        let top = usize::MAX - 4..usize::MAX;
        assert_eq!(chunks(top.clone(), 8), [top]);
    }
}
