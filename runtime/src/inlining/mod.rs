//! The inliner: adaptive task inlining per spawn site (Wagle et al.,
//! ICPP'19), seeded by the `#[task_program]` analyzer's static effort.
//!
//! # What it decides
//! Every `join`, `spawn`, scope spawn and group spawn call is a *site* with
//! a dense process-wide id (`site_ids.rs`). Under [`Inlining::Baseline`] or
//! [`Inlining::Adaptive`] a site counts its executions on each worker,
//! times every 2^k-th one, and decides from the geometric mean of the
//! sampled durations whether its tasks go to the scheduler (*spawn*: a
//! latent join, a deque push) or run as plain calls (*inline*). The rules
//! are `policy.rs`; the units, multiples of the spawn overhead measured at
//! start-up, are `calibrate.rs`; the per-runtime and per-worker state and
//! how workers share decisions without waiting for each other are
//! `site_state.rs`; the public report is `report.rs`.
//!
//! # The hot path
//! A site's state on a worker is a direct-mapped cache entry keyed by the
//! site's address, holding the mode, the period and a countdown of the
//! executions left in the period. What an inlined `join` pays is
//! [`SiteCache::inline_hit`], inlined into the caller: a thread-local
//! pointer to the cache, one compare of the entry's `fast_key` (the site's
//! address while it inlines, else 0) with the address — a constant there,
//! and so is the entry's position for a `#[track_caller]` location — and a
//! decrement of the countdown. The pointer is the worker's cache only while
//! an inlined join may be a plain call (`WorkerThread::keeps_outermost`),
//! else [`NO_SITES`], where every site misses; so the fast path tests
//! nothing else, not even that it runs on a worker. Spawns and a missed
//! fast path take the routed path, [`WorkerSites::route`]: the key, the
//! countdown, the mode. Only the last execution of a period, and a cache
//! miss, goes further ([`Inliner::slow_route`]): it moves the counts to
//! the worker's table, picks up a new decision, times the task at its
//! sampling period, and, for an inlined site, looks at the worker's
//! `hungry` flag.
//!
//! # Parallelism is never inlined away
//! An inlined site keeps handing out work, two ways (the worker's side,
//! `WorkerThread::task_path` in `worker/routing.rs`):
//! * its worker keeps its outermost work ready: an inlined `join` still
//!   records its second half while fewer than 2 latent joins are recorded,
//!   an inlined spawn still defers while the deque holds fewer than 2 tasks
//!   (`keeps_outermost`). In a recursion these are the outer levels, the
//!   large pieces that publication and steals take first;
//! * every 2^j executions, with 2^j tasks ≈ [`HEARTBEAT_OVERHEADS`](policy::HEARTBEAT_OVERHEADS) spawn
//!   overheads of work, it looks at the worker's `hungry` flag, and if a
//!   thief asked, the execution takes the scheduler's path once, which
//!   publishes the worker's oldest latent join to the thief (`scheduler/latent/join_chain.rs`).
//!   The kept joins above are recorded quietly, so these checks are the
//!   only answer: a thief waits at most about one period, and a job of a
//!   few microseconds (a 1 000-node tree) is not shared at all, which
//!   answering at every join would do at a loss.
//!
//! Under `Adaptive`, hungry thieves during an inlined window also lower the
//! threshold of a site whose tasks average enough to be worth a steal
//! (`policy::STEAL_WORTH_OVERHEADS`).
//!
//! # What it does not decide
//! Range loops (`for_range`) split only when a thief asks already; their
//! sites are not routed here, nor are dataflow tasks. Whatever the inliner
//! decides, lazy task creation still runs a task inline when the deque is
//! full. A site beyond
//! [`MAX_SITES`](table::MAX_SITES) in one process always spawns.

mod calibrate;
mod policy;
mod report;
mod site_ids;
mod site_state;
mod table;

pub use report::{InliningReport, SiteReport};
use site_ids::CACHE_LEN;
pub(crate) use site_ids::{SiteDescriptor, SiteId, SiteKey, SiteSlot};

use crate::counters::{add, bump};
use crate::params::Inlining;
use calibrate::Calibration;
use parking_lot::Mutex;
use site_state::{LocalSite, SharedSite, INLINE_BIT};
use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use table::SiteTable;

/// How one execution of a site runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Route {
    /// As a plain call; otherwise through the scheduler (which may still
    /// run it inline when the deque is full).
    inline: bool,
    /// Timed (wherever it runs).
    timed: bool,
}

impl Route {
    /// Whether the task is timed.
    #[inline(always)]
    pub(crate) fn timed(self) -> bool {
        self.timed
    }

    /// Whether the task runs as a plain call.
    #[inline(always)]
    pub(crate) fn inline(self) -> bool {
        self.inline
    }
}

/// One runtime's inliner: its policy, the process' calibration, and the
/// per-site decisions.
pub(crate) struct Inliner {
    policy: Inlining,
    calibration: Calibration,
    shared: SiteTable<SharedSite>,
}

/// A worker's per-site state: the exact counts and decisions per site
/// (`table`), and in front of it a small direct-mapped cache keyed by the
/// site's address (its `#[track_caller]` location or its `SpawnSite`
/// static), which holds what the hot path needs: the mode, the period, and
/// the executions left before the next visit of the slow path. Lives in
/// the worker's shared info so that reports can sum the counts; written
/// only by its worker (atomics with `Relaxed` load and store: plain moves).
pub(crate) struct WorkerSites {
    table: SiteTable<LocalSite>,
    cache: SiteCache,
    /// The ids of the locations this worker has run, for a cache miss.
    locations: LocationIds,
}

/// The direct-mapped site cache of a worker (see [`WorkerSites`]); also
/// what a `join`'s inlined fast path reads ([`SiteCache::inline_hit`]),
/// through a thread-local pointer that is either this worker's cache or
/// [`NO_SITES`].
pub(crate) struct SiteCache([CacheEntry; CACHE_LEN]);

/// A site cache that holds no site, so that [`SiteCache::inline_hit`]
/// misses on it: what a thread's fast-path pointer points to off a worker,
/// and on a worker while its inlined joins must take the routed path
/// (`WorkerThread::keeps_outermost`). Never written: only a hit writes,
/// and nothing hits here.
pub(crate) static NO_SITES: SiteCache = SiteCache([const { CacheEntry::empty() }; CACHE_LEN]);

/// A worker's map from a site's `#[track_caller]` location (its address)
/// to its id, or [`UNTRACKED`]: a cache miss of a location looks here
/// before the process-wide directory (`site_ids::register`, a global mutex and
/// a hash of the file name), so that two locations that evict each other
/// from the cache do not take the directory's lock at every execution.
/// Ids are never reused, and a full directory stays full, so an entry
/// never goes stale. Only [`Inliner::slow_route`] touches it, on the
/// owning worker, so its lock is never contended: it costs one uncontended
/// lock on a cache miss (the directory's lock and hash are what it saves),
/// and keeps the map safe without an owner-only invariant to uphold.
struct LocationIds(Mutex<HashMap<usize, u32>>);

/// One site in a worker's cache.
///
/// # Counting
/// `countdown` counts the executions left until the slow path's next
/// visit, from `period` (the decision's mask + 1) down: the executions
/// since the last visit, not yet in the table, are `period - countdown`.
/// The execution that brings it to 0 visits the slow path (it is counted
/// already); the visit adds the executions to the table and starts a new
/// period. Nothing else writes `countdown` but the owning worker.
struct CacheEntry {
    /// The site's address while the site inlines, else 0: the one compare
    /// of `join`'s fast path ([`SiteCache::inline_hit`]). Owner-only, so a
    /// plain word, which the compare reads as its memory operand.
    fast_key: OwnerWord,
    /// Executions left before the slow path visits (see *Counting*).
    countdown: AtomicU64,
    /// The site's address; 0 for an empty entry.
    key: AtomicUsize,
    /// The site's id, or `u32::MAX` for an untracked site.
    id: AtomicU32,
    /// The mask, with [`INLINE_BIT`] set while the site inlines.
    word: AtomicU64,
}

impl CacheEntry {
    /// An empty entry.
    const fn empty() -> CacheEntry {
        CacheEntry {
            fast_key: OwnerWord(UnsafeCell::new(0)),
            countdown: AtomicU64::new(0),
            key: AtomicUsize::new(0),
            id: AtomicU32::new(0),
            word: AtomicU64::new(0),
        }
    }

    /// The executions since the last visit: (all, scheduled ones).
    fn pending(&self) -> (u64, u64) {
        let word = self.word.load(Ordering::Relaxed);
        let executions = (word & !INLINE_BIT) + 1 - self.countdown.load(Ordering::Relaxed);
        let scheduled = if word & INLINE_BIT == 0 {
            executions
        } else {
            0
        };
        (executions, scheduled)
    }

    /// Starts a period of the decision `word` (see *Counting*).
    fn start_period(&self, key: usize, word: u64) {
        self.word.store(word, Ordering::Relaxed);
        self.countdown
            .store((word & !INLINE_BIT) + 1, Ordering::Relaxed);
        let fast_key = if word & INLINE_BIT != 0 { key } else { 0 };
        // SAFETY: `start_period` runs on the owning worker's thread only
        // (`Inliner::slow_route`, `WorkerSites::new`'s entries being
        // `empty`): see `OwnerWord`.
        unsafe { *self.fast_key.0.get() = fast_key };
    }
}

/// A word that only the thread of the worker owning its cache reads and
/// writes: written by that worker's slow path (`Inliner::slow_route`, on
/// its own thread), read by `join`'s fast path through that thread's
/// `fast_sites` pointer, which points to this worker's cache only on its
/// own thread. [`NO_SITES`]' words are read by every thread and written by
/// none. No report reads it.
struct OwnerWord(UnsafeCell<usize>);

// SAFETY: see the type: a word is written only by one thread, and read by
// other threads only if nobody ever writes it (`NO_SITES`).
unsafe impl Sync for OwnerWord {}

const UNTRACKED: u32 = u32::MAX;

/// What the hot path decided, before the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FastRoute {
    Inline,
    Schedule,
    /// Sample, check for hunger, or a cache miss: see [`Inliner::slow_route`].
    Slow,
}

impl SiteCache {
    /// `join`'s fast path, inlined into every `join` call: whether the
    /// site at `key` inlines and this execution need not visit the slow
    /// path; then it is counted, and the caller runs it as a plain call.
    /// One compare of the site's address with the entry's (constant where
    /// `join` is inlined, as is the entry's position for a location), one
    /// decrement and a test. A miss routes as [`WorkerSites::route`] does.
    #[inline(always)]
    pub(crate) fn inline_hit(&self, key: SiteKey) -> bool {
        let entry = &self.0[key.cache_slot()];
        // SAFETY: the caller reads this cache through its thread's
        // `fast_sites` pointer: its own worker's cache, or `NO_SITES` (see
        // `OwnerWord`).
        if unsafe { *entry.fast_key.0.get() } != key.address() {
            return false;
        }
        // The last execution of the period leaves the countdown to the
        // routed path, which then visits the slow path. Tested before the
        // decrement, which then is one instruction on the entry.
        if entry.countdown.load(Ordering::Relaxed) <= 1 {
            return false;
        }
        let countdown = entry.countdown.load(Ordering::Relaxed);
        entry.countdown.store(countdown - 1, Ordering::Relaxed);
        true
    }
}

impl WorkerSites {
    /// An empty table and cache.
    pub(crate) fn new() -> WorkerSites {
        WorkerSites {
            table: SiteTable::new(),
            cache: SiteCache([const { CacheEntry::empty() }; CACHE_LEN]),
            locations: LocationIds(Mutex::new(HashMap::new())),
        }
    }

    /// The cache, for the thread-local fast-path pointer.
    pub(crate) fn cache(&self) -> &SiteCache {
        &self.cache
    }

    /// The id of `site`, or [`UNTRACKED`], for a cache miss: a location is
    /// looked up in the directory once per worker, then in
    /// [`locations`](Self::locations); a static caches its id itself.
    fn id_of(&self, site: SiteKey) -> u32 {
        let raw = |id: Option<SiteId>| id.map_or(UNTRACKED, |id| id.0);
        match site {
            SiteKey::Static(_) => raw(site.id()),
            SiteKey::Location(_) => {
                // `site.id()`, called under the lock, never comes back here.
                *self
                    .locations
                    .0
                    .lock()
                    .entry(site.address())
                    .or_insert_with(|| raw(site.id()))
            }
        }
    }

    /// The routed path (every `spawn`, and a `join` that missed
    /// [`SiteCache::inline_hit`]): counts one execution of `site` and says
    /// how it runs, unless the slow path must decide. An execution whose
    /// fast path brought the countdown to 0 is counted already.
    #[inline(always)]
    pub(crate) fn route(&self, site: SiteKey) -> FastRoute {
        let entry = &self.cache.0[site.cache_slot()];
        if entry.key.load(Ordering::Relaxed) != site.address() {
            return FastRoute::Slow;
        }
        let countdown = entry.countdown.load(Ordering::Relaxed);
        if countdown <= 1 {
            // This execution ends the period (0: the fresh entry of a miss,
            // which counts as one execution already).
            entry.countdown.store(0, Ordering::Relaxed);
            return FastRoute::Slow;
        }
        entry.countdown.store(countdown - 1, Ordering::Relaxed);
        if entry.word.load(Ordering::Relaxed) & INLINE_BIT != 0 {
            FastRoute::Inline
        } else {
            FastRoute::Schedule
        }
    }

    /// Adds a cache entry's pending counts to its site's table entry;
    /// `visiting`: the execution visiting the slow path is among them (it
    /// counts itself as scheduled or not, `Inliner::slow_route`).
    fn flush(&self, entry: &CacheEntry, visiting: bool) {
        let id = entry.id.load(Ordering::Relaxed);
        if entry.key.load(Ordering::Relaxed) == 0 || id == UNTRACKED {
            return;
        }
        if let Some(local) = self.table.get(id as usize) {
            let (pending, scheduled) = entry.pending();
            let scheduled = scheduled.saturating_sub(u64::from(visiting));
            entry.countdown.store(
                (entry.word.load(Ordering::Relaxed) & !INLINE_BIT) + 1,
                Ordering::Relaxed,
            );
            add(&local.executions, pending);
            add(&local.scheduled, scheduled);
        }
    }

    /// Executions of site `id` on this worker that are still in the cache.
    fn pending(&self, id: usize) -> (u64, u64) {
        self.cache
            .0
            .iter()
            .filter(|entry| {
                entry.key.load(Ordering::Relaxed) != 0
                    && entry.id.load(Ordering::Relaxed) as usize == id
            })
            .fold((0, 0), |(executions, scheduled), entry| {
                let (pending, pending_scheduled) = entry.pending();
                (executions + pending, scheduled + pending_scheduled)
            })
    }
}

impl Inliner {
    /// The inliner of a runtime with `policy`; measures the calibration
    /// (once per process) unless the policy is `Never`.
    pub(crate) fn new(policy: Inlining) -> Inliner {
        let calibration = if policy == Inlining::Never {
            Calibration {
                spawn_overhead_ns: 1.0,
                clock_ns: 1.0,
            }
        } else {
            calibrate::calibration()
        };
        Inliner {
            policy,
            calibration,
            shared: SiteTable::new(),
        }
    }

    /// The slow path of an execution of `site` on the worker owning `sites`
    /// (after [`WorkerSites::route`] said [`FastRoute::Slow`]); only
    /// that worker calls it, on its own thread (see [`LocationIds`]). Fills
    /// the cache on a miss, moves the pending counts to the table, picks up
    /// a new decision, and decides whether this execution is timed and, for
    /// an inlined site, whether it takes the scheduler's path because a
    /// thief is `hungry`. `None` for an untracked site.
    #[cold]
    #[inline(never)]
    pub(crate) fn slow_route(
        &self,
        sites: &WorkerSites,
        site: SiteKey,
        hungry: &AtomicBool,
    ) -> Option<(SiteId, Route)> {
        let key = site.address();
        let entry = &sites.cache.0[site.cache_slot()];
        if entry.key.load(Ordering::Relaxed) != key {
            sites.flush(entry, false);
            let id = sites.id_of(site);
            entry.key.store(key, Ordering::Relaxed);
            entry.id.store(id, Ordering::Relaxed);
            // Mask 0, spawning: a period of one execution, this one.
            entry.start_period(key, 0);
            entry.countdown.store(0, Ordering::Relaxed);
        }
        let id = entry.id.load(Ordering::Relaxed);
        if id == UNTRACKED {
            // Never visits again: a period as long as the counter.
            entry.start_period(key, !INLINE_BIT);
            return None;
        }
        let id = SiteId(id);
        let (Some(local), Some(shared)) = (
            sites.table.get_or_insert(id.index()),
            self.shared.get_or_insert(id.index()),
        ) else {
            return None;
        };
        if local.generation.load(Ordering::Relaxed) == 0 {
            shared.seed(self.policy, self.calibration, || {
                site_ids::describe(id).and_then(|site| site.static_effort)
            });
        }
        sites.flush(entry, true);
        local.refresh(shared);
        let word = local.word.load(Ordering::Relaxed);
        entry.start_period(key, word);
        let timed = local.visit_is_timed();
        let mut inline = word & INLINE_BIT != 0;
        if inline && hungry.load(Ordering::Relaxed) {
            local.note_hunger();
            inline = false;
        }
        if !inline {
            bump(&local.scheduled);
        }
        Some((id, Route { inline, timed }))
    }

    /// Records a timed execution of site `id` that started at `start`, on
    /// the worker owning `sites` (whichever worker ran the task); `hungry`:
    /// whether workers were looking for work when it ended.
    #[cold]
    #[inline(never)]
    pub(crate) fn record_sample(
        &self,
        sites: &WorkerSites,
        id: SiteId,
        start: Instant,
        hungry: bool,
    ) {
        let elapsed_ns = start.elapsed().as_nanos() as f64 - self.calibration.clock_ns;
        let (Some(local), Some(shared)) = (
            sites.table.get_or_insert(id.index()),
            self.shared.get(id.index()),
        ) else {
            return;
        };
        let undecided = !shared.decided.load(Ordering::Relaxed);
        if local.add_sample(elapsed_ns, hungry, undecided) {
            shared.fold(local, self.policy, self.calibration);
        }
    }

    /// The per-site report, summing the counts of `workers`.
    pub(crate) fn report<'a>(
        &self,
        workers: impl Iterator<Item = &'a WorkerSites> + Clone,
    ) -> InliningReport {
        report::build(self.policy, self.calibration, &self.shared, |id| {
            workers
                .clone()
                .fold((0, 0, 0), |(executions, scheduled, hunger), sites| {
                    let (pending, pending_scheduled) = sites.pending(id);
                    match sites.table.get(id) {
                        Some(local) => (
                            executions + pending + local.executions.load(Ordering::Relaxed),
                            scheduled + pending_scheduled + local.scheduled.load(Ordering::Relaxed),
                            hunger + local.hunger_spawns.load(Ordering::Relaxed),
                        ),
                        None => (executions + pending, scheduled + pending_scheduled, hunger),
                    }
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::site_ids::tests::here;
    use super::*;

    #[test]
    fn aliasing_locations_are_looked_up_once_per_worker() {
        // 65 locations in 64 cache entries: two of them share an entry.
        #[rustfmt::skip]
        let locations = [
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(), here(), here(), here(), here(), here(),
            here(), here(), here(), here(), here(),
        ];
        let keys = locations.map(SiteKey::Location);
        let (a, b) = keys
            .iter()
            .enumerate()
            .find_map(|(i, a)| {
                keys[i + 1..]
                    .iter()
                    .find(|b| b.cache_slot() == a.cache_slot())
                    .map(|b| (*a, *b))
            })
            .unwrap();
        assert_ne!(a.address(), b.address());
        let inliner = Inliner::new(Inlining::Never);
        let sites = WorkerSites::new();
        let hungry = AtomicBool::new(false);
        for _ in 0..4 {
            for site in [a, b] {
                // The other location holds the entry.
                assert_eq!(sites.route(site), FastRoute::Slow);
                let route = inliner.slow_route(&sites, site, &hungry);
                assert_eq!(route.map(|(id, _)| id), site.id());
            }
        }
        let ids = sites.locations.0.lock();
        let raw = |site: SiteKey| site.id().map_or(UNTRACKED, |id| id.0);
        assert_eq!(ids.len(), 2);
        assert_eq!(ids.get(&a.address()), Some(&raw(a)));
        assert_eq!(ids.get(&b.address()), Some(&raw(b)));
    }
}
