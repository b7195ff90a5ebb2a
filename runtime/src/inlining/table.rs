//! `SiteTable`: a per-site array indexed by the dense site id, grown in
//! chunks so that it never moves an entry.
//!
//! Spawn sites get small dense ids (`site_ids.rs`), so per-site state is an
//! array lookup: `chunks[id / CHUNK_LEN][id % CHUNK_LEN]`, two dependent
//! loads on the hot path. A chunk is allocated the first time one of its ids
//! is touched and lives as long as the table, so a reference into it stays
//! valid while other threads add chunks — which a `Vec` could not promise
//! (it reallocates), and which the inlining reports need: they read every
//! worker's table while the workers write it.
//!
//! # Orderings
//! A chunk is published by a compare-exchange (`AcqRel`) after it is fully
//! initialised; readers load the pointer with `Acquire`, so they see the
//! initialised entries. Two threads racing to add the same chunk both
//! allocate; the loser frees its copy and uses the winner's. The loom model
//! below (`RUSTFLAGS="--cfg loom" cargo test -p prescient --lib loom`) runs
//! that race.

use crate::sync::AtomicPtr;
use std::sync::atomic::Ordering;

/// Entries per chunk.
pub(crate) const CHUNK_LEN: usize = 64;
/// Chunks per table.
const CHUNKS: usize = 64;
/// The number of site ids a table can hold; sites registered beyond it are
/// not tracked (they always take the scheduler's path).
pub(crate) const MAX_SITES: usize = CHUNK_LEN * CHUNKS;

/// A chunked array of `T` indexed by site id (see the module docs).
pub(crate) struct SiteTable<T> {
    chunks: [AtomicPtr<T>; CHUNKS],
}

impl<T: Default> SiteTable<T> {
    /// An empty table: no chunk allocated.
    pub(crate) fn new() -> SiteTable<T> {
        SiteTable {
            chunks: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
        }
    }

    /// The entry of `id`, if its chunk exists.
    #[inline(always)]
    pub(crate) fn get(&self, id: usize) -> Option<&T> {
        let chunk = self.chunks.get(id / CHUNK_LEN)?.load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: a non-null chunk pointer came from `Box::into_raw` of a
        // `[T; CHUNK_LEN]`-sized boxed slice (`get_or_insert`), published
        // after initialisation (Acquire above), and freed only by `drop`,
        // which `&self` excludes; `id % CHUNK_LEN` is in bounds.
        Some(unsafe { &*chunk.add(id % CHUNK_LEN) })
    }

    /// The entry of `id`, allocating its chunk if needed; `None` if `id` is
    /// beyond [`MAX_SITES`].
    pub(crate) fn get_or_insert(&self, id: usize) -> Option<&T> {
        if let Some(entry) = self.get(id) {
            return Some(entry);
        }
        let slot = self.chunks.get(id / CHUNK_LEN)?;
        let fresh: Box<[T]> = (0..CHUNK_LEN).map(|_| T::default()).collect();
        let fresh = Box::into_raw(fresh) as *mut T;
        if let Err(_existing) = slot.compare_exchange(
            std::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: `fresh` came from `Box::into_raw` just above and was
            // never published: we own it.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(fresh, CHUNK_LEN)) });
        }
        self.get(id)
    }

    /// Every allocated entry with its id, in id order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (usize, &T)> {
        (0..MAX_SITES).filter_map(move |id| {
            if id % CHUNK_LEN == 0
                && self.chunks[id / CHUNK_LEN]
                    .load(Ordering::Acquire)
                    .is_null()
            {
                return None;
            }
            self.get(id).map(|entry| (id, entry))
        })
    }
}

impl<T> Drop for SiteTable<T> {
    fn drop(&mut self) {
        for slot in &self.chunks {
            // `&mut self`: no other thread can touch the table any more.
            let chunk = slot.load(Ordering::Acquire);
            if !chunk.is_null() {
                // SAFETY: published chunks came from `Box::into_raw` of a
                // boxed slice of `CHUNK_LEN` entries; `&mut self` means no
                // reference into it remains.
                drop(unsafe {
                    Box::from_raw(std::ptr::slice_from_raw_parts_mut(chunk, CHUNK_LEN))
                });
            }
        }
    }
}

// SAFETY: the table owns its chunks like a `Vec<T>` would, and sharing it
// shares `&T`s (needs `T: Sync`). But through a shared table any thread may
// also *create* an entry (`get_or_insert` builds the `T` on the calling
// thread and publishes it), and the table's owner drops every entry, on
// whichever thread drops the table: a `T` made on one thread is dropped on
// another, which needs `T: Send` too — `OnceLock<T>` and `Mutex<T>` have the
// same bounds for the same reason.
unsafe impl<T: Send + Sync> Sync for SiteTable<T> {}
// SAFETY: sending the table moves its chunks like a `Vec<T>` would, and the
// receiving thread drops every entry: a `T` made on one thread is dropped on
// another, which `T: Send` allows (a `Vec<T>`'s bound).
unsafe impl<T: Send> Send for SiteTable<T> {}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use std::sync::atomic::AtomicU64;

    /// Two threads add entries of the same chunk at once: both end up with
    /// the one published chunk, and a value one writes the other reads.
    #[test]
    fn loom_racing_chunk_publication() {
        loom::model(|| {
            let table = Arc::new(SiteTable::<AtomicU64>::new());
            let other = table.clone();
            let thread = loom::thread::spawn(move || {
                let entry = other.get_or_insert(1).unwrap();
                entry.store(5, Ordering::Relaxed);
                entry as *const AtomicU64 as usize
            });
            let mine = table.get_or_insert(2).unwrap() as *const AtomicU64 as usize;
            let theirs = thread.join().unwrap();
            assert_eq!(theirs + std::mem::size_of::<AtomicU64>(), mine, "one chunk");
            assert_eq!(table.get(1).unwrap().load(Ordering::Relaxed), 5);
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn entries_are_stable_and_sparse() {
        let table = SiteTable::<AtomicU64>::new();
        assert!(table.get(3).is_none());
        let entry = table.get_or_insert(3).unwrap();
        entry.store(7, Ordering::Relaxed);
        table
            .get_or_insert(CHUNK_LEN * 5 + 1)
            .unwrap()
            .store(9, Ordering::Relaxed);
        assert_eq!(table.get(3).unwrap().load(Ordering::Relaxed), 7);
        assert!(std::ptr::eq(entry, table.get(3).unwrap()));
        assert!(table.get_or_insert(MAX_SITES).is_none());
        let ids: Vec<usize> = table.entries().map(|(id, _)| id).collect();
        assert_eq!(ids.len(), 2 * CHUNK_LEN);
        assert!(ids.contains(&(CHUNK_LEN * 5 + 1)));
    }

    #[test]
    fn racing_inserts_agree() {
        let table = SiteTable::<AtomicU64>::new();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for id in 0..256 {
                        table
                            .get_or_insert(id)
                            .unwrap()
                            .fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        for id in 0..256 {
            assert_eq!(table.get(id).unwrap().load(Ordering::Relaxed), 4);
        }
    }
}
