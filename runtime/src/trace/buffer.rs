//! An append-only vector in fixed-size chunks: a worker's trace buffer.
//!
//! Appending never moves what is stored (no reallocation copy, no latency
//! spike proportional to the trace so far), and the chunks a session needs
//! are allocated and their pages touched before it starts
//! ([`ChunkedVec::reserve`]): a run that stays within the reserved capacity
//! neither allocates nor page-faults while it records (first-touch faults
//! cost about as much as the recording itself: docs/measurements.md,
//! "Trace buffers").
//! Beyond it, one chunk of [`CHUNK_LEN`] records is allocated every
//! [`CHUNK_LEN`] appends.

use std::mem::MaybeUninit;

/// Records per chunk.
pub(crate) const CHUNK_LEN: usize = 1 << 16;

/// An append-only sequence of `T` stored in chunks of [`CHUNK_LEN`].
pub(crate) struct ChunkedVec<T> {
    /// Full chunks, then the one being filled; chunks past `filled` are
    /// reserved and empty.
    chunks: Vec<Vec<T>>,
    /// The chunk being filled.
    filled: usize,
    len: usize,
}

impl<T: Copy> ChunkedVec<T> {
    pub(crate) const fn new() -> ChunkedVec<T> {
        ChunkedVec {
            chunks: Vec::new(),
            filled: 0,
            len: 0,
        }
    }

    /// The number of records.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Makes sure that `additional` more records fit without an allocation
    /// or a page fault.
    pub(crate) fn reserve(&mut self, additional: usize) {
        // Saturating: an overflow would panic in `Tracer::start`, which
        // holds every worker's lock.
        let wanted = self.len.saturating_add(additional).div_ceil(CHUNK_LEN);
        while self.chunks.len() < wanted {
            let mut chunk = Vec::with_capacity(CHUNK_LEN);
            // Touch every page now: zeroed bytes in the spare capacity,
            // which stays unused (`len` is unchanged).
            chunk.spare_capacity_mut().fill(MaybeUninit::zeroed());
            self.chunks.push(chunk);
        }
    }

    /// Appends `value`.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        if let Some(chunk) = self.chunks.get_mut(self.filled) {
            if chunk.len() < CHUNK_LEN {
                chunk.push(value);
                self.len += 1;
                return;
            }
        }
        self.push_to_next_chunk(value);
    }

    #[cold]
    #[inline(never)]
    fn push_to_next_chunk(&mut self, value: T) {
        if self
            .chunks
            .get(self.filled)
            .is_some_and(|c| c.len() == CHUNK_LEN)
        {
            self.filled += 1;
        }
        if self.filled == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(CHUNK_LEN));
        }
        self.chunks[self.filled].push(value);
        self.len += 1;
    }

    /// The records in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }

    /// Bytes allocated (reserved chunks included).
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.chunks.len() * CHUNK_LEN * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_across_chunks_and_reserves_ahead() {
        let mut v = ChunkedVec::new();
        v.reserve(CHUNK_LEN + 1);
        assert_eq!(v.allocated_bytes(), 2 * CHUNK_LEN * 8);
        for i in 0..(3 * CHUNK_LEN + 5) as u64 {
            v.push(i);
        }
        assert_eq!(v.len(), 3 * CHUNK_LEN + 5);
        assert!(v.iter().copied().eq(0..(3 * CHUNK_LEN + 5) as u64));
    }
}
