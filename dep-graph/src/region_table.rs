//! The region table: a chained hash table with a fixed number of buckets that
//! maps each live data region to its last writer and the readers since that
//! write — the state `new task` consults to find a task's predecessors.
//!
//! The bucket count is a tuning parameter of the runtime
//! (`Params::dependency_buckets`, chosen by the analyzer): Gautier et al. show
//! that LLVM's fixed 997 buckets cost up to 30% on dependency-heavy programs.
//! A `std::collections::HashMap` grows itself, which would make the parameter
//! meaningless, so this is a hand-written table whose bucket count never
//! changes: region `r` lives in bucket `mix64(r) % bucket_count`, and regions
//! sharing a bucket form a chain that lookups walk.
//!
//! Layout: the buckets are an array of chain heads, and entries live in a slab
//! and link to the next entry of their chain (as LLVM's table does). The heads
//! array is all-zero when empty, so creating even a 256019-bucket table is one
//! zeroed allocation that the OS maps lazily (a few microseconds), where a
//! `Vec<Vec<_>>` would write ~6 MB up front — and the runtime makes one graph
//! per (possibly nested) dataflow scope.
//!
//! The table forgets a region once every task that references it has been
//! deleted, so it does not grow with the length of a run.

use std::fmt;
use std::num::NonZeroUsize;

use crate::ids::{RegionId, TaskId};
use crate::mix::mix64;

/// Identifies one *version* of a region entry: the entry's state since it was
/// created or last written. Epochs come from a table-wide counter and are
/// never reused, so a task's remembered epoch tells whether it is still the
/// entry's last writer / one of its current readers, even if the entry has
/// been removed and re-created since.
pub(crate) type Epoch = u64;

/// A reference to a slab slot: `index + 1`, so that `None` is all-zero and an
/// empty heads array is a zeroed allocation.
type Link = Option<NonZeroUsize>;

fn link_to(index: usize) -> Link {
    NonZeroUsize::new(index + 1)
}

fn index_of(link: NonZeroUsize) -> usize {
    link.get() - 1
}

/// Readers are removed from an entry lazily (a deleted reader only decrements
/// `live_readers`), so that deleting each of `n` readers of one region is not
/// `O(n)` apiece. The list is compacted once it holds more than twice as many
/// ids as live readers, plus this slack: each compaction removes at least half
/// of the list, so its cost is amortised over the deletions that preceded it.
const COMPACT_SLACK: usize = 8;

/// One live region: its last writer and the readers since that write.
#[derive(Debug)]
struct RegionEntry {
    region: RegionId,
    /// The next entry in the same bucket's chain.
    next: Link,
    /// The current version; see [`Epoch`].
    epoch: Epoch,
    /// The last task that wrote the region, unless it has been deleted.
    last_writer: Option<TaskId>,
    /// The readers since the last write, in submission order. May still hold
    /// deleted readers (see [`COMPACT_SLACK`]); the graph skips them.
    readers: Vec<TaskId>,
    /// How many of `readers` have not been deleted.
    live_readers: usize,
}

impl RegionEntry {
    fn is_unreferenced(&self) -> bool {
        self.last_writer.is_none() && self.live_readers == 0
    }
}

/// The dependency hash table of a [`DependencyGraph`](crate::DependencyGraph),
/// exposed read-only for diagnostics (bucket count, occupancy, chain lengths).
pub struct RegionTable {
    /// Exactly `bucket_count` chain heads.
    heads: Vec<Link>,
    slots: Vec<Option<RegionEntry>>,
    free_slots: Vec<usize>,
    /// Emptied reader lists of removed entries, reused by new entries so that
    /// a region coming and going does not allocate each time.
    spare_readers: Vec<Vec<TaskId>>,
    len: usize,
    next_epoch: Epoch,
}

/// A summary: printing every bucket of a 256019-bucket table would help no one.
impl fmt::Debug for RegionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegionTable")
            .field("buckets", &self.bucket_count())
            .field("regions", &self.len)
            .finish_non_exhaustive()
    }
}

impl RegionTable {
    /// An empty table with exactly `buckets` buckets.
    pub(crate) fn new(buckets: NonZeroUsize) -> Self {
        RegionTable {
            // All `None`, i.e. all-zero: allocated zeroed, mapped lazily.
            heads: vec![None; buckets.get()],
            slots: Vec::new(),
            free_slots: Vec::new(),
            spare_readers: Vec::new(),
            len: 0,
            next_epoch: 0,
        }
    }

    /// The number of buckets, fixed at creation (`dependency_buckets`).
    pub fn bucket_count(&self) -> usize {
        self.heads.len()
    }

    /// The number of regions the table currently tracks: those referenced by
    /// at least one task that has not been deleted.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table tracks no region.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The length of the longest bucket chain: the worst number of entries a
    /// lookup walks. Diagnostic only; it visits every bucket (`O(buckets)`).
    pub fn max_chain_len(&self) -> usize {
        (0..self.heads.len())
            .map(|bucket| self.chain(bucket).count())
            .max()
            .unwrap_or(0)
    }

    /// The bucket a region hashes to.
    fn bucket_of(&self, region: RegionId) -> usize {
        // The remainder is below `heads.len()`, so it fits in `usize`.
        (mix64(region.0) % self.heads.len() as u64) as usize
    }

    /// The slab slots of one bucket's chain, head first.
    fn chain(&self, bucket: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.heads[bucket].map(index_of), |&slot| {
            self.entry(slot).next.map(index_of)
        })
    }

    fn entry(&self, slot: usize) -> &RegionEntry {
        self.slots[slot]
            .as_ref()
            .expect("region table: a chain links to a free slot")
    }

    fn entry_mut(&mut self, slot: usize) -> &mut RegionEntry {
        self.slots[slot]
            .as_mut()
            .expect("region table: a chain links to a free slot")
    }

    fn fresh_epoch(&mut self) -> Epoch {
        self.next_epoch += 1;
        self.next_epoch
    }

    /// The slot holding `region`, if the table tracks it.
    fn find(&self, region: RegionId) -> Option<usize> {
        self.chain(self.bucket_of(region))
            .find(|&slot| self.entry(slot).region == region)
    }

    /// The slot holding `region`, creating a fresh entry (no writer, no
    /// readers) at the head of its chain if the table does not track it yet.
    fn find_or_insert(&mut self, region: RegionId) -> usize {
        if let Some(slot) = self.find(region) {
            return slot;
        }
        let bucket = self.bucket_of(region);
        let entry = RegionEntry {
            region,
            next: self.heads[bucket],
            epoch: self.fresh_epoch(),
            last_writer: None,
            readers: self.spare_readers.pop().unwrap_or_default(),
            live_readers: 0,
        };
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                self.slots[slot] = Some(entry);
                slot
            }
            None => {
                self.slots.push(Some(entry));
                self.slots.len() - 1
            }
        };
        self.heads[bucket] = link_to(slot);
        self.len += 1;
        slot
    }

    /// Unlinks the entry in `slot` from its chain and frees the slot.
    fn remove(&mut self, slot: usize) {
        let mut entry = self.slots[slot]
            .take()
            .expect("region table: removing a free slot");
        let bucket = self.bucket_of(entry.region);
        if self.heads[bucket].map(index_of) == Some(slot) {
            self.heads[bucket] = entry.next;
        } else {
            let prev = self
                .chain(bucket)
                .find(|&s| self.entry(s).next.map(index_of) == Some(slot))
                .expect("region table: entry missing from its chain");
            self.entry_mut(prev).next = entry.next;
        }
        self.free_slots.push(slot);
        self.len -= 1;
        if entry.readers.capacity() > 0 {
            entry.readers.clear();
            self.spare_readers.push(entry.readers);
        }
    }

    /// Records that `task` reads `region`. Returns the region's last writer
    /// (the only task a reader can conflict with: readers between two writes
    /// run concurrently) and the epoch `task` must hand back to
    /// [`release`](Self::release).
    pub(crate) fn add_reader(&mut self, region: RegionId, task: TaskId) -> (Option<TaskId>, Epoch) {
        let slot = self.find_or_insert(region);
        let entry = self.entry_mut(slot);
        entry.readers.push(task);
        entry.live_readers += 1;
        (entry.last_writer, entry.epoch)
    }

    /// Records that `task` writes `region`: calls `conflict` with every task it
    /// must follow — the last writer (write-after-write) and each reader since
    /// that write (write-after-read) — then makes `task` the last writer of a
    /// new version with no readers. Returns the epoch `task` must hand back to
    /// [`release`](Self::release).
    ///
    /// `conflict` may receive deleted or finished tasks; the graph skips those.
    pub(crate) fn add_writer(
        &mut self,
        region: RegionId,
        task: TaskId,
        mut conflict: impl FnMut(TaskId),
    ) -> Epoch {
        let slot = self.find_or_insert(region);
        let epoch = self.fresh_epoch();
        let entry = self.entry_mut(slot);
        if let Some(writer) = entry.last_writer {
            conflict(writer);
        }
        for &reader in &entry.readers {
            conflict(reader);
        }
        // The previous readers and writer now belong to an older epoch, so
        // their deletion will leave this entry alone.
        entry.readers.clear();
        entry.live_readers = 0;
        entry.last_writer = Some(task);
        entry.epoch = epoch;
        epoch
    }

    /// Drops a deleted task's reference to `region`, made at `epoch` with a
    /// write (`was_write`) or a read. Does nothing if a later write has already
    /// superseded that reference. Removes the entry once no live task
    /// references it. `is_live` tells whether a task has not been deleted; it
    /// is consulted only when compacting the reader list.
    pub(crate) fn release(
        &mut self,
        region: RegionId,
        task: TaskId,
        epoch: Epoch,
        was_write: bool,
        is_live: impl Fn(TaskId) -> bool,
    ) {
        let Some(slot) = self.find(region) else {
            // The entry was removed, so nothing referenced it any more.
            return;
        };
        let entry = self.entry_mut(slot);
        if entry.epoch != epoch {
            return;
        }
        if was_write {
            debug_assert_eq!(entry.last_writer, Some(task));
            entry.last_writer = None;
        } else {
            debug_assert!(entry.live_readers > 0 && entry.readers.contains(&task));
            entry.live_readers -= 1;
            if entry.live_readers == 0 {
                entry.readers.clear();
            } else if entry.readers.len() > 2 * entry.live_readers + COMPACT_SLACK {
                entry.readers.retain(|&reader| is_live(reader));
                debug_assert_eq!(entry.readers.len(), entry.live_readers);
            }
        }
        if entry.is_unreferenced() {
            self.remove(slot);
        }
    }

    /// The ids in `region`'s current reader list (including deleted readers
    /// not yet compacted away), for tests of this crate.
    #[cfg(test)]
    pub(crate) fn readers_of(&self, region: RegionId) -> Option<&[TaskId]> {
        self.find(region)
            .map(|slot| self.entry(slot).readers.as_slice())
    }

    /// `region`'s last writer, for tests of this crate.
    #[cfg(test)]
    pub(crate) fn last_writer_of(&self, region: RegionId) -> Option<TaskId> {
        self.find(region)
            .and_then(|slot| self.entry(slot).last_writer)
    }

    /// The number of regions in each bucket, for tests of this crate.
    #[cfg(test)]
    pub(crate) fn chain_lengths(&self) -> Vec<usize> {
        (0..self.heads.len())
            .map(|bucket| self.chain(bucket).count())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(buckets: usize) -> RegionTable {
        RegionTable::new(NonZeroUsize::new(buckets).unwrap())
    }

    const ALWAYS_LIVE: fn(TaskId) -> bool = |_| true;

    #[test]
    fn has_exactly_the_configured_bucket_count() {
        for buckets in [1, 2, 97, 997, 256_019] {
            let t = table(buckets);
            assert_eq!(t.bucket_count(), buckets);
            assert_eq!(t.chain_lengths().len(), buckets);
            assert!(t.is_empty());
            assert_eq!(t.max_chain_len(), 0);
        }
    }

    #[test]
    fn debug_output_is_a_summary() {
        let mut t = table(256_019);
        t.add_reader(RegionId(1), TaskId::new(0, 0));
        assert_eq!(
            format!("{t:?}"),
            "RegionTable { buckets: 256019, regions: 1, .. }"
        );
    }

    #[test]
    fn regions_land_in_hash_mod_buckets() {
        let mut t = table(97);
        for r in 0..500 {
            t.add_reader(RegionId(r), TaskId::new(r, 0));
        }
        assert_eq!(t.len(), 500);
        let mut expected = vec![0; 97];
        for r in 0..500u64 {
            expected[(mix64(r) % 97) as usize] += 1;
        }
        assert_eq!(t.chain_lengths(), expected);
        assert_eq!(t.max_chain_len(), *expected.iter().max().unwrap());
    }

    #[test]
    fn one_bucket_chains_every_region() {
        let mut t = table(1);
        for r in 0..50 {
            t.add_writer(RegionId(r), TaskId::new(r, 0), |_| {
                panic!("fresh region has no conflicts")
            });
        }
        assert_eq!(t.len(), 50);
        assert_eq!(t.max_chain_len(), 50);
        for r in 0..50 {
            assert_eq!(t.last_writer_of(RegionId(r)), Some(TaskId::new(r, 0)));
        }
    }

    #[test]
    fn reader_sees_last_writer_and_writer_sees_writer_then_readers() {
        let mut t = table(7);
        let r = RegionId(1);
        let (w, _) = t.add_reader(r, TaskId::new(0, 0));
        assert_eq!(w, None);
        t.add_writer(r, TaskId::new(1, 0), |_| {});
        let (w, _) = t.add_reader(r, TaskId::new(2, 0));
        assert_eq!(w, Some(TaskId::new(1, 0)));
        t.add_reader(r, TaskId::new(3, 0));
        let mut seen = Vec::new();
        t.add_writer(r, TaskId::new(4, 0), |c| seen.push(c));
        assert_eq!(
            seen,
            [TaskId::new(1, 0), TaskId::new(2, 0), TaskId::new(3, 0)]
        );
        assert_eq!(t.readers_of(r), Some(&[][..]));
        assert_eq!(t.last_writer_of(r), Some(TaskId::new(4, 0)));
    }

    #[test]
    fn release_removes_unreferenced_entries_from_any_chain_position() {
        // One bucket, so removals hit the head, the middle and the tail.
        let mut t = table(1);
        let epochs: Vec<Epoch> = (0..5)
            .map(|r| t.add_writer(RegionId(r), TaskId::new(r, 0), |_| {}))
            .collect();
        for r in [2u64, 4, 0, 3, 1] {
            t.release(
                RegionId(r),
                TaskId::new(r, 0),
                epochs[r as usize],
                true,
                ALWAYS_LIVE,
            );
            assert_eq!(t.find(RegionId(r)), None);
        }
        assert!(t.is_empty());
        assert_eq!(t.max_chain_len(), 0);
        // Freed slots are reused rather than growing the slab.
        for r in 10..15 {
            t.add_reader(RegionId(r), TaskId::new(r, 0));
        }
        assert_eq!(t.slots.len(), 5);
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn superseded_references_do_not_release() {
        let mut t = table(3);
        let r = RegionId(9);
        let (_, reader_epoch) = t.add_reader(r, TaskId::new(0, 0));
        let writer_epoch = t.add_writer(r, TaskId::new(1, 0), |_| {});
        // The reader was superseded by the write: its release changes nothing.
        t.release(r, TaskId::new(0, 0), reader_epoch, false, ALWAYS_LIVE);
        assert_eq!(t.last_writer_of(r), Some(TaskId::new(1, 0)));
        let writer2_epoch = t.add_writer(r, TaskId::new(2, 0), |_| {});
        t.release(r, TaskId::new(1, 0), writer_epoch, true, ALWAYS_LIVE);
        assert_eq!(t.last_writer_of(r), Some(TaskId::new(2, 0)));
        t.release(r, TaskId::new(2, 0), writer2_epoch, true, ALWAYS_LIVE);
        assert!(t.is_empty());
    }

    #[test]
    fn stale_epoch_does_not_match_a_recreated_entry() {
        let mut t = table(3);
        let r = RegionId(4);
        let (_, old) = t.add_reader(r, TaskId::new(0, 0));
        let w = t.add_writer(r, TaskId::new(1, 0), |_| {});
        t.release(r, TaskId::new(1, 0), w, true, ALWAYS_LIVE);
        assert!(t.is_empty(), "only a superseded reader referenced it");
        t.add_reader(r, TaskId::new(2, 0));
        // Task 0's reference is from before the removal: it must not count
        // as task 2's.
        t.release(r, TaskId::new(0, 0), old, false, ALWAYS_LIVE);
        assert_eq!(t.readers_of(r), Some(&[TaskId::new(2, 0)][..]));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn deleted_readers_are_compacted_away() {
        let mut t = table(5);
        let r = RegionId(0);
        let n = 1000u64;
        let epochs: Vec<Epoch> = (0..n)
            .map(|i| t.add_reader(r, TaskId::new(i, 0)).1)
            .collect();
        // Delete all but the last reader, oldest first.
        let mut live: Vec<bool> = vec![true; n as usize];
        for i in 0..n - 1 {
            live[i as usize] = false;
            t.release(r, TaskId::new(i, 0), epochs[i as usize], false, |task| {
                live[task.seq as usize]
            });
            let readers = t.readers_of(r).unwrap().len();
            let remaining = (n - 1 - i) as usize;
            assert!(
                readers <= 2 * remaining + COMPACT_SLACK + 1,
                "{readers} ids for {remaining} readers"
            );
        }
        t.release(
            r,
            TaskId::new(n - 1, 0),
            epochs[(n - 1) as usize],
            false,
            |_| false,
        );
        assert!(t.is_empty());
    }
}
