//! `for_chunks_mut`, `for_chunks` and `for_each_mut`: parallel loops over
//! the disjoint chunks (or elements) of a slice, in safe code — rayon's
//! `par_chunks_mut(n).enumerate().for_each`, `par_chunks(n).enumerate()
//! .for_each` and `par_iter_mut().enumerate().for_each`.
//!
//! They are the range loop's engine (`split.rs`) over a slice piece: a
//! worker runs its piece as a plain loop over chunks and splits what is
//! left only when a thief asks, always at a chunk boundary
//! (`split_at_mut`), so each body call gets exactly one chunk of
//! `slice.chunks_mut(chunk_len)` as its own `&mut [T]`, and no two calls
//! ever hold the same element.

use crate::analysis::SpawnSite;
use crate::loops::split::{assert_chunk_len, for_each_chunk, SliceMutPiece, SlicePiece};

/// Runs `body(chunk_index, chunk)` for every chunk of
/// `slice.chunks_mut(chunk_len)`, exactly once each, possibly in parallel,
/// and returns when all calls have returned.
///
/// `chunk_index` is the chunk's offset in `slice` divided by `chunk_len`;
/// every chunk has `chunk_len` elements except the last, which may be
/// shorter. Each call owns its chunk (`&mut`), so a body writes to it in
/// safe code. A worker runs its part of the slice as a plain loop over
/// chunks and hands half of what is left to another worker only when that
/// one has run out of work, cutting only at chunk boundaries (as
/// [`for_range`](crate::for_range) does with its indices): on one worker
/// this costs a flag load per chunk over `for (i, c) in
/// slice.chunks_mut(chunk_len).enumerate()`. Choose `chunk_len` so that a
/// chunk takes a few microseconds at most (a request for work waits for
/// the chunk in progress). An empty slice calls nothing.
///
/// This is rayon's `slice.par_chunks_mut(chunk_len).enumerate().for_each(|(i, c)|
/// body(i, c))`. Called outside any runtime, it runs in the global runtime.
///
/// # Panics
/// If `chunk_len` is 0, with `slice::chunks_mut`'s message, "chunk size
/// must be non-zero" (even for an empty slice).
///
/// A panic in `body` propagates to the caller once no chunk is running any
/// more, as [`for_range`](crate::for_range)'s do: the payload of the lowest
/// chunk among those that panicked wins, and chunks that would have run
/// inline after a panicking one may be skipped.
///
/// ```
/// // An image of 4 rows of 6 pixels, one row per chunk.
/// let width = 6;
/// let mut image = vec![0u32; 4 * width];
/// prescient::for_chunks_mut(&mut image, width, |row, pixels| {
///     for (x, p) in pixels.iter_mut().enumerate() {
///         *p = (row * 10 + x) as u32;
///     }
/// });
/// assert_eq!(image[2 * width + 5], 25);
/// ```
pub fn for_chunks_mut<T, F>(slice: &mut [T], chunk_len: usize, body: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Send + Sync,
{
    assert_chunk_len(chunk_len);
    if slice.is_empty() {
        return;
    }
    let piece = SliceMutPiece {
        slice,
        first_chunk: 0,
        chunk_len,
    };
    for_each_chunk(piece, move |chunk: SliceMutPiece<'_, T>| {
        body(chunk.first_chunk, chunk.slice)
    });
}

/// Runs `body(chunk_index, chunk)` for every chunk of
/// `slice.chunks(chunk_len)`, exactly once each, possibly in parallel, and
/// returns when all calls have returned: the read-only twin of
/// [`for_chunks_mut`], with the same chunks, splitting and costs.
///
/// This is rayon's `slice.par_chunks(chunk_len).enumerate().for_each(|(i, c)|
/// body(i, c))`. Called outside any runtime, it runs in the global runtime.
///
/// # Panics
/// If `chunk_len` is 0, with `slice::chunks`'s message, "chunk size must be
/// non-zero". A panic in `body` propagates as [`for_chunks_mut`]'s do.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let data: Vec<u64> = (1..=100).collect();
/// let total = AtomicU64::new(0);
/// prescient::for_chunks(&data, 16, |i, chunk| {
///     assert_eq!(chunk[0], 16 * i as u64 + 1);
///     total.fetch_add(chunk.iter().sum::<u64>(), Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 5050);
/// ```
pub fn for_chunks<T, F>(slice: &[T], chunk_len: usize, body: F)
where
    T: Sync,
    F: Fn(usize, &[T]) + Send + Sync,
{
    assert_chunk_len(chunk_len);
    if slice.is_empty() {
        return;
    }
    let piece = SlicePiece {
        slice,
        first_chunk: 0,
        chunk_len,
    };
    for_each_chunk(piece, move |chunk: SlicePiece<'_, T>| {
        body(chunk.first_chunk, chunk.slice)
    });
}

/// Runs `body(i, &mut slice[i])` for every index `i` of `slice`, exactly
/// once each, possibly in parallel, and returns when all calls have
/// returned.
///
/// The elements are visited in chunks of `grain`, split as
/// [`for_chunks_mut`]'s (on request, at chunk boundaries); within a chunk in
/// index order. Choose `grain` as for [`for_range`](crate::for_range): a
/// chunk of `grain` calls should take well under a millisecond and, for
/// tiny bodies, a microsecond or more. A `grain` of 0 is taken as 1, as
/// `for_range` does; an empty slice calls nothing.
///
/// This is rayon's `slice.par_iter_mut().enumerate().with_min_len(grain)
/// .for_each(|(i, x)| body(i, x))`. Called outside any runtime, it runs in
/// the global runtime.
///
/// # Panics
/// A panic in `body` propagates as [`for_chunks_mut`]'s do.
///
/// ```
/// let mut squares = vec![0u64; 1000];
/// prescient::for_each_mut(&mut squares, 64, |i, x| *x = (i * i) as u64);
/// assert_eq!(squares[999], 998_001);
/// ```
pub fn for_each_mut<T, F>(slice: &mut [T], grain: usize, body: F)
where
    T: Send,
    F: Fn(usize, &mut T) + Send + Sync,
{
    for_chunks_mut(slice, grain.max(1), |chunk, elements| {
        let offset = chunk * grain.max(1);
        for (k, element) in elements.iter_mut().enumerate() {
            body(offset + k, element);
        }
    });
}

/// [`for_chunks_mut`] at an analysed spawn site, as `for_range_at`: the
/// runtime does not use `site` yet, so this is exactly
/// `for_chunks_mut(slice, chunk_len, body)`.
#[inline]
pub fn for_chunks_mut_at<T, F>(site: &'static SpawnSite, slice: &mut [T], chunk_len: usize, body: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Send + Sync,
{
    let _ = site;
    for_chunks_mut(slice, chunk_len, body);
}

/// [`for_chunks`] at an analysed spawn site: exactly `for_chunks(slice,
/// chunk_len, body)`.
#[inline]
pub fn for_chunks_at<T, F>(site: &'static SpawnSite, slice: &[T], chunk_len: usize, body: F)
where
    T: Sync,
    F: Fn(usize, &[T]) + Send + Sync,
{
    let _ = site;
    for_chunks(slice, chunk_len, body);
}

/// [`for_each_mut`] at an analysed spawn site: exactly `for_each_mut(slice,
/// grain, body)`.
#[inline]
pub fn for_each_mut_at<T, F>(site: &'static SpawnSite, slice: &mut [T], grain: usize, body: F)
where
    T: Send,
    F: Fn(usize, &mut T) + Send + Sync,
{
    let _ = site;
    for_each_mut(slice, grain, body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use crate::scheduler::worker::WorkerThread;
    use std::sync::Mutex;

    /// Every chunk asks for a split (as a thief would), on `workers`
    /// workers: the chunks seen are still exactly `chunks_mut`'s, each once.
    fn chunks_under_requests(len: usize, chunk_len: usize, workers: usize) {
        let runtime = Runtime::builder().num_workers(workers).build().unwrap();
        let mut data: Vec<usize> = vec![usize::MAX; len];
        let seen = Mutex::new(Vec::new());
        runtime.run(|| {
            for_chunks_mut(&mut data, chunk_len, |i, chunk| {
                WorkerThread::with_current(|worker| worker.unwrap().ask_for_work());
                seen.lock().unwrap().push((i, chunk.len()));
                chunk.iter_mut().for_each(|x| *x = i);
            })
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        let expected: Vec<(usize, usize)> = (0..len)
            .collect::<Vec<_>>()
            .chunks(chunk_len)
            .enumerate()
            .map(|(i, c)| (i, c.len()))
            .collect();
        assert_eq!(seen, expected, "{len} by {chunk_len} on {workers}");
        for (k, x) in data.iter().enumerate() {
            assert_eq!(*x, k / chunk_len);
        }
    }

    #[test]
    fn chunks_are_those_of_chunks_mut_even_when_every_chunk_splits() {
        for workers in [1, 2, 4] {
            for (len, chunk_len) in [(1, 1), (10, 3), (64, 1), (100, 7), (1000, 10), (5, 9)] {
                chunks_under_requests(len, chunk_len, workers);
            }
        }
    }
}
