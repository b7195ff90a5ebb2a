//! The splitting engine of every parallel loop (`range.rs`, `chunks.rs`,
//! `reduce.rs`): a [`Piece`] of work that knows whether it is one chunk and
//! can be cut at a chunk boundary, and one driver, [`fold_pieces`], that
//! folds a piece chunk by chunk and splits it on request.
//!
//! # How a piece is split: on request
//!
//! A worker runs its piece as a plain sequential loop over chunks. Between
//! two chunks it looks at its `hungry` flag (one load,
//! `WorkerThread::split_requested`), which a thief raises when it finds this
//! worker's deque empty (`registry.rs`). When it is up, the worker cuts what
//! is left of its piece in two halves ([`Piece::split_off_upper`]) and runs them
//! with one `join`, whose second half the worker publishes at once (a latent
//! join answering the request, `scheduler/latent/join_chain.rs`): the thief takes half of the
//! remaining work, runs it the same way, and splits it again when another
//! thief asks it. Nobody asking means no split and no join at all — on one
//! worker a loop costs a flag load per chunk over a plain loop — and a loop
//! whose iterations are uneven still balances, because a worker with much
//! left is asked again after its next chunk. This is Insieme's
//! runtime-directed splitting of work ranges, and it is what rayon's
//! adaptive splitter approximates by splitting a fixed number of times and
//! again after each steal. A request is answered within one chunk.
//!
//! When the worker already has a latent join of an enclosing `join`, it
//! publishes that one instead (it is older, hence larger), and the loop
//! goes on unsplit.
//!
//! # The fold: what a reduction combines, in which order
//!
//! Every loop is a fold: `fold(acc, chunk)` for each chunk in order, from
//! `identity()`. A plain loop folds `()` (and all of it compiles away). The
//! driver keeps one accumulator per *stretch*: the piece a loop starts
//! with, or the upper half of a split, begins from a fresh `identity()`; the
//! lower half of a split goes on with the accumulator of the stretch it was
//! cut from, which covers everything left of it. When both halves are done
//! the driver returns `combine(lower, upper)`. So the result is the chunks
//! folded in index order within each stretch and the stretches combined in
//! index order — with an associative `combine` for which `identity()` is
//! neutral and `fold(acc, c) == combine(acc, fold(identity(), c))`, exactly
//! the sequential fold, however the work was split. Only the grouping
//! depends on the splits (floating-point sums may differ in the last bits).
//!
//! * **Why it is correct.** A split happens only on a piece of more than
//!   one chunk, and [`Piece`] promises that both halves are then non-empty,
//!   disjoint and together exactly the piece, and that [`Piece::split_first`]
//!   gives one chunk and the non-empty rest. By induction every chunk is
//!   folded exactly once, and every piece of work ends. `join` runs each of
//!   its closures exactly once (unless one panics: see `for_range`'s
//!   `# Panics`). The fold, the identity and the combination are shared by
//!   reference between the threads that run pieces, hence `Sync`; the
//!   accumulators travel with their halves, hence `T: Send`.
//!
//! * **What it costs.** A flag load per chunk; a join per split, and a split
//!   per request. Halving keeps the recursion at most `usize::BITS` (64)
//!   levels deep: `#[task_program]` charges a loop's body two
//!   `JOIN_FRAME_BYTES` of stack per level, and the unit test in `range.rs`
//!   checks that one level of splitting fits in two (instruction counts
//!   and frame sizes: docs/measurements.md, "The splitting engine").
//!
//! * **What a body must not do.** Wait for a later iteration: the rest of
//!   the piece is not a task anyone could run while the body waits (as in
//!   a sequential loop, and as with rayon).

use crate::runtime::{current_worker_index, Runtime};
use crate::scheduler::worker::WorkerThread;
use crate::task::join::join_unrouted;
use std::ops::Range;

/// A non-empty piece of a loop's work, made of chunks, that can be cut at a
/// chunk boundary.
///
/// The driver calls the two splits only on a piece that is more than one
/// chunk: each must then return two non-empty pieces that are together
/// exactly `self`, in index order (lower first).
pub(crate) trait Piece: Send + Sized {
    /// Whether this piece is a single chunk (the driver folds it whole).
    fn is_one_chunk(&self) -> bool;
    /// Cuts the piece into two halves (as even as the chunks allow): keeps
    /// the lower one and returns the upper one. (Not `self -> (Self, Self)`:
    /// in a debug build every temporary takes a stack slot, and this runs
    /// once per level of splitting, whose frames add up.)
    fn split_off_upper(&mut self) -> Self;
    /// Cuts off the first chunk: `(chunk, rest)`.
    fn split_first(self) -> (Self, Self);
}

/// The shared operations of one fold, borrowed by every piece (one pointer
/// in each join's closures, however many operations there are).
pub(crate) struct Fold<'a, I, F, C> {
    /// A fresh accumulator, for a piece that starts on its own.
    pub identity: &'a I,
    /// Folds one chunk into an accumulator.
    pub fold: &'a F,
    /// Combines the results of two adjacent pieces, lower first.
    pub combine: &'a C,
}

/// Folds `piece` with `ops` and returns the result (see the module docs for
/// the order); `piece` is non-empty.
///
/// Called outside any runtime, the whole fold, even a single chunk, runs on
/// a worker of the global runtime (as `join` would put its halves).
#[inline]
pub(crate) fn fold_pieces<P, T, I, F, C>(piece: P, ops: &Fold<'_, I, F, C>) -> T
where
    P: Piece,
    T: Send,
    I: Fn() -> T + Sync,
    F: Fn(T, P) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    if current_worker_index().is_none() {
        return Runtime::global().run(|| drive(piece, (ops.identity)(), ops.fold, ops));
    }
    drive(piece, (ops.identity)(), ops.fold, ops)
}

/// Runs `body` on every chunk of `piece` (non-empty), splitting on request:
/// the plain loops' fold of `()`, which compiles to the loop alone.
#[inline]
pub(crate) fn for_each_chunk<P, B>(piece: P, body: B)
where
    P: Piece,
    B: Fn(P) + Sync,
{
    let fold = move |(), chunk: P| body(chunk);
    fold_pieces(
        piece,
        &Fold {
            identity: &|| (),
            fold: &fold,
            combine: &|(), ()| (),
        },
    );
}

/// Folds `piece` into `acc` chunk by chunk, splitting what is left with a
/// `join` when a thief asks this worker for work (see the module docs).
///
/// `fold` is `ops.fold`, passed on its own: as a reference argument of its
/// own, what it captures is known not to change while the loop runs, so
/// the compiler loads it once per piece instead of once per chunk
/// (docs/measurements.md, "The splitting engine").
fn drive<P, T, I, F, C>(piece: P, acc: T, fold: &F, ops: &Fold<'_, I, F, C>) -> T
where
    P: Piece,
    T: Send,
    I: Fn() -> T + Sync,
    F: Fn(T, P) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    match fold_until_asked(piece, acc, fold) {
        Stretch::Done(result) => result,
        Stretch::Asked(piece, acc) => split(piece, acc, fold, ops),
    }
}

/// Cuts `lower` (more than one chunk) in halves and folds them with one
/// `join`: the lower half goes on with `acc`, the upper one starts from
/// `identity()`; returns `combine(lower, upper)`.
///
/// Every level of splitting keeps this frame and `drive`'s on the stack,
/// so both hold as little as they can in a debug build, where every
/// temporary has a slot of its own: the loop is in `fold_until_asked`, the
/// halves are cut in place, and the closures capture one reference to the
/// operations (a closure is copied through several frames of `join`).
fn split<P, T, I, F, C>(mut lower: P, acc: T, fold: &F, ops: &Fold<'_, I, F, C>) -> T
where
    P: Piece,
    T: Send,
    I: Fn() -> T + Sync,
    F: Fn(T, P) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    // More than one chunk: both halves are non-empty (`Piece`).
    let upper = lower.split_off_upper();
    let shared = &(fold, ops);
    let (lower, upper) = join_unrouted(
        move || drive(lower, acc, shared.0, shared.1),
        move || drive(upper, (shared.1.identity)(), shared.0, shared.1),
    );
    (ops.combine)(lower, upper)
}

/// How [`fold_until_asked`] ended.
enum Stretch<P, T> {
    /// The piece is folded: the result.
    Done(T),
    /// A thief asked for work: what is left (more than one chunk) and the
    /// accumulator so far.
    Asked(P, T),
}

/// The sequential part of [`drive`]: folds `piece` into `acc` chunk by
/// chunk until it is done or a thief asks this worker for work.
///
/// Its own function so that, in a debug build (no inlining, a stack slot for
/// every temporary), the loop's temporaries are not part of `drive`'s frame,
/// which every level of splitting keeps on the stack; a release build
/// inlines it.
#[inline]
fn fold_until_asked<P, T, F>(piece: P, acc: T, fold: &F) -> Stretch<P, T>
where
    P: Piece,
    F: Fn(T, P) -> T,
{
    // Locals, not the arguments: `piece` is passed by reference to a copy,
    // and updating that copy in the loop kept it in memory (stores per
    // chunk and the captures reloaded after each: docs/measurements.md,
    // "The splitting engine").
    let (mut piece, mut acc) = (piece, acc);
    loop {
        if piece.is_one_chunk() {
            return Stretch::Done(fold(acc, piece));
        }
        if WorkerThread::with_current(|worker| worker.is_some_and(WorkerThread::split_requested)) {
            return Stretch::Asked(piece, acc);
        }
        let (chunk, rest) = piece.split_first();
        acc = fold(acc, chunk);
        piece = rest;
    }
}

/// A non-empty range of indices in chunks of `grain` (≥ 1) from its start.
/// It halves at the middle index, not at a chunk boundary: each half is
/// chunked from its own start (`for_range_chunked`'s documented chunks).
pub(crate) struct RangePiece {
    /// The indices, `start < end`.
    pub range: Range<usize>,
    /// The longest chunk, ≥ 1.
    pub grain: usize,
}

impl Piece for RangePiece {
    #[inline]
    fn is_one_chunk(&self) -> bool {
        self.range.end - self.range.start <= self.grain
    }

    #[inline]
    fn split_off_upper(&mut self) -> Self {
        let Range { start, end } = self.range;
        // `end - start > grain >= 1`: `start < mid < end`.
        let mid = start + (end - start) / 2;
        self.range.end = mid;
        RangePiece {
            range: mid..end,
            grain: self.grain,
        }
    }

    #[inline]
    fn split_first(self) -> (Self, Self) {
        let Range { start, end } = self.range;
        // More than `grain` indices: `start + grain < end`, no overflow.
        let cut = start + self.grain;
        let grain = self.grain;
        (
            RangePiece {
                range: start..cut,
                grain,
            },
            RangePiece {
                range: cut..end,
                grain,
            },
        )
    }
}

/// The number of chunks of `chunk_len` (≥ 1) in `len` elements, and the
/// element offset of the middle chunk boundary, for a slice of more than one
/// chunk.
#[inline]
fn middle_boundary(len: usize, chunk_len: usize) -> usize {
    // `len > chunk_len`, so at least two chunks and `0 < mid < len`.
    (len.div_ceil(chunk_len) / 2) * chunk_len
}

/// Defines a slice piece: a non-empty slice cut into chunks of `chunk_len`
/// (≥ 1) from its start, with the index of its first chunk in the whole
/// slice. Splits fall on chunk boundaries, so the chunks are always those of
/// `chunks(chunk_len)` over the whole slice.
macro_rules! slice_piece {
    ($(#[$doc:meta])* $name:ident, $slice:ty, $split_at:ident) => {
        $(#[$doc])*
        pub(crate) struct $name<'a, E> {
            /// The elements, non-empty.
            pub slice: $slice,
            /// The index of the first chunk in the whole slice.
            pub first_chunk: usize,
            /// Elements per chunk (the last one of the whole slice shorter), ≥ 1.
            pub chunk_len: usize,
        }

        impl<'a, E> $name<'a, E> {
            /// Cuts after `mid` elements, a chunk boundary with `0 < mid < len`.
            #[inline]
            fn cut(self, mid: usize) -> (Self, Self) {
                let (lower, upper) = self.slice.$split_at(mid);
                let chunk_len = self.chunk_len;
                (
                    $name {
                        slice: lower,
                        first_chunk: self.first_chunk,
                        chunk_len,
                    },
                    $name {
                        slice: upper,
                        first_chunk: self.first_chunk + mid / chunk_len,
                        chunk_len,
                    },
                )
            }

        }

        impl<'a, E> Piece for $name<'a, E>
        where
            $slice: Send,
        {
            #[inline]
            fn is_one_chunk(&self) -> bool {
                self.slice.len() <= self.chunk_len
            }

            #[inline]
            fn split_off_upper(&mut self) -> Self {
                let mid = middle_boundary(self.slice.len(), self.chunk_len);
                // Take the slice out (leaving an empty one) to cut it by
                // value: two disjoint borrows of the same lifetime.
                let whole = $name {
                    slice: std::mem::take(&mut self.slice),
                    first_chunk: self.first_chunk,
                    chunk_len: self.chunk_len,
                };
                let (lower, upper) = whole.cut(mid);
                *self = lower;
                upper
            }

            #[inline]
            fn split_first(self) -> (Self, Self) {
                let first = self.chunk_len;
                self.cut(first)
            }
        }
    };
}

slice_piece!(
    /// A piece of a mutable slice (`for_chunks_mut`, `for_each_mut`): the
    /// halves are disjoint `&mut` borrows (`split_at_mut`), so every element
    /// is lent to exactly one body call.
    SliceMutPiece,
    &'a mut [E],
    split_at_mut
);

slice_piece!(
    /// A piece of a shared slice (`for_chunks`, `for_chunks_reduce`).
    SlicePiece,
    &'a [E],
    split_at
);

/// Panics unless `chunk_len` is non-zero, with the message of
/// `slice::chunks` (the loops over chunks promise the same chunks).
#[inline]
#[track_caller]
pub(crate) fn assert_chunk_len(chunk_len: usize) {
    assert!(chunk_len != 0, "chunk size must be non-zero");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunks a piece yields when nobody asks for a split, by
    /// `split_first` (offsets and lengths).
    fn first_chunks(slice: &[u8], chunk_len: usize) -> Vec<(usize, usize)> {
        let mut piece = SlicePiece {
            slice,
            first_chunk: 0,
            chunk_len,
        };
        let mut out = Vec::new();
        while !piece.is_one_chunk() {
            let (chunk, rest) = piece.split_first();
            out.push((chunk.first_chunk, chunk.slice.len()));
            piece = rest;
        }
        out.push((piece.first_chunk, piece.slice.len()));
        out
    }

    #[test]
    fn slice_pieces_split_on_chunk_boundaries() {
        let data = [0u8; 10];
        assert_eq!(first_chunks(&data, 3), [(0, 3), (1, 3), (2, 3), (3, 1)]);
        assert_eq!(first_chunks(&data, 10), [(0, 10)]);
        assert_eq!(first_chunks(&data, 100), [(0, 10)]);
        for len in 2..40 {
            for chunk_len in 1..len {
                let data = vec![0u8; len];
                let piece = SlicePiece {
                    slice: &data[..],
                    first_chunk: 5,
                    chunk_len,
                };
                let mut lower = piece;
                let upper = lower.split_off_upper();
                assert!(!lower.slice.is_empty() && !upper.slice.is_empty());
                assert_eq!(lower.slice.len() % chunk_len, 0, "{len}/{chunk_len}");
                assert_eq!(lower.slice.len() + upper.slice.len(), len);
                assert_eq!(lower.first_chunk, 5);
                assert_eq!(upper.first_chunk, 5 + lower.slice.len() / chunk_len);
                let chunks = len.div_ceil(chunk_len);
                assert_eq!(lower.slice.len() / chunk_len, chunks / 2);
            }
        }
    }

    #[test]
    fn range_pieces_halve_at_the_middle() {
        let piece = RangePiece {
            range: 0..usize::MAX,
            grain: 1,
        };
        assert!(!piece.is_one_chunk());
        let mut lower = piece;
        let upper = lower.split_off_upper();
        assert_eq!(lower.range, 0..usize::MAX / 2);
        assert_eq!(upper.range, usize::MAX / 2..usize::MAX);
        let (first, rest) = upper.split_first();
        assert_eq!(first.range.len(), 1);
        assert_eq!(rest.range.end, usize::MAX);
    }
}
