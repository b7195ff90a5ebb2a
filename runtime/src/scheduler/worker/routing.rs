//! Inliner routing: how each `join` and `spawn` runs ([`TaskPath`]) —
//! through the scheduler (a latent join, a deque push), as a plain call, or
//! timed for the inliner — decided by the site's inlining decision (see
//! `crate::inlining`) and then by lazy task creation (`capacity.rs`); and the
//! timed samples the inliner learns from.

use super::thread::{WorkerThread, THREAD};
use crate::inlining::{FastRoute, SiteId, SiteKey, NO_SITES};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How one `join` or `spawn` runs (see `WorkerThread::task_path`).
pub(crate) enum TaskPath {
    /// Through the scheduler: a latent join, a deque push.
    Deferred,
    /// Through the scheduler, for an inlined site that keeps its worker's
    /// outermost work ready (`WorkerThread::keeps_outermost`): a latent
    /// join that does not answer a hungry thief itself — the site's
    /// periodic checks do, so that a tiny recursion is not shared faster
    /// than a steal pays — or a deque push.
    Kept,
    /// As a plain call.
    Plain,
    /// Either (`true`: deferred), with the task timed for the inliner.
    Timed(SiteId, bool),
}

/// An inlined `join` records its second half while its worker holds fewer
/// latent joins than this (see `WorkerThread::keeps_outermost`).
const INLINE_LATENT_JOINS: usize = 2;

/// An inlined spawn defers its task while its worker's deque holds fewer
/// tasks than this (see `WorkerThread::keeps_outermost`).
const INLINE_QUEUED_TASKS: usize = 2;

impl WorkerThread {
    /// `join`'s fast path, inlined into every `join` call: whether the
    /// execution of the `join` at `site` is a plain call, decided already —
    /// the site inlines, its worker keeps enough of its outermost work for
    /// thieves (the thread's `fast_sites` points to its cache only then),
    /// and this execution need not visit the inliner's slow path. One
    /// thread-local load, one compare, one decrement and a test; no test
    /// for a worker (off a worker the pointer is `NO_SITES`, where every
    /// site misses). Otherwise `join` takes the routed path
    /// ([`current_task_path`](Self::current_task_path)), which decides
    /// everything this skipped. Out of line in the debug profile, as
    /// `current_task_path` is.
    #[cfg_attr(debug_assertions, inline(never))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn join_inlines_at(site: SiteKey) -> bool {
        let cache = THREAD.with(|thread| thread.fast_sites.get());
        // SAFETY: `NO_SITES` (a static), or the cache of the worker whose
        // main loop runs on this thread — in its `WorkerInfo`, which the
        // worker's registry keeps alive, and `worker_main` points this
        // back to `NO_SITES` before the worker goes; the reference does
        // not outlive this call.
        unsafe { &*cache }.inline_hit(site)
    }

    /// After this worker's latent joins changed: points the thread's
    /// `fast_sites` at
    /// its cache while an inlined `join` may be a plain call (its running
    /// task records at least [`INLINE_LATENT_JOINS`], see
    /// [`keeps_outermost`](Self::keeps_outermost)), else at `NO_SITES`. The
    /// chain changes only on the routed path (a recorded join's begin and
    /// end, a publication), so this costs the fast path nothing.
    #[inline(always)]
    pub(super) fn latent_joins_changed(&self) {
        if self.inlining {
            let cache = if self.latent.len() >= INLINE_LATENT_JOINS {
                self.sites().cache()
            } else {
                &NO_SITES
            };
            THREAD.with(|thread| thread.fast_sites.set(cache));
        }
    }

    /// [`task_path`](Self::task_path) on this thread's worker, `None` outside
    /// any runtime: what every `join` and `spawn` calls first. One function
    /// without a closure, so that it inlines into the caller's recursion
    /// (a closure passed to `with_current` was left out of line in some
    /// binaries: a call per `join`). Out of line in the debug profile, where
    /// an inlined callee's locals would stay in every recursive frame of
    /// the caller (`tests/tests/stacks/join_frame.rs`).
    #[cfg_attr(debug_assertions, inline(never))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn current_task_path(site: Option<SiteKey>, is_join: bool) -> Option<TaskPath> {
        let worker = THREAD.with(|thread| thread.worker.get());
        // SAFETY: the thread-local worker pointer is non-null only while the
        // worker's main loop runs on this thread (the rule of
        // `WorkerThread::with_current`), and the reference does not outlive
        // this call.
        let worker = unsafe { worker.as_ref() }?;
        Some(worker.task_path(site, is_join))
    }

    /// How this execution of the `join` (`is_join`) or `spawn` at `site`
    /// runs: through the inliner (`inlining`) when the runtime inlines and
    /// the call is a site, then through lazy task creation (`reserve_join`,
    /// `reserve`).
    ///
    /// An inlined task still takes the scheduler's path while its worker
    /// has little work for thieves (`keeps_outermost`), so that the
    /// outermost pending tasks of an inlined recursion stay ready for a
    /// hungry thief (publication and steals take the oldest): inlining
    /// removes the tasks below them, where fine-grained recursions spend
    /// their spawns.
    #[inline(always)]
    pub(crate) fn task_path(&self, site: Option<SiteKey>, is_join: bool) -> TaskPath {
        if let (Some(site), true) = (site, self.inlining) {
            match self.sites().route(site) {
                FastRoute::Inline => {
                    return if !self.keeps_outermost(is_join) || !self.reserve_for(is_join) {
                        TaskPath::Plain
                    } else {
                        TaskPath::Kept
                    };
                }
                FastRoute::Slow => return self.task_path_slow(site, is_join),
                FastRoute::Schedule => {}
            }
        }
        if self.reserve_for(is_join) {
            TaskPath::Deferred
        } else {
            TaskPath::Plain
        }
    }

    /// `task_path` past the inliner's fast path.
    #[cold]
    #[inline(never)]
    fn task_path_slow(&self, site: SiteKey, is_join: bool) -> TaskPath {
        let Some((id, route)) =
            self.registry
                .inliner
                .slow_route(self.sites(), site, &self.info().signals.hungry)
        else {
            return if self.reserve_for(is_join) {
                TaskPath::Deferred
            } else {
                TaskPath::Plain
            };
        };
        let kept = route.inline() && self.keeps_outermost(is_join);
        let inline = route.inline() && !kept;
        let deferred = !inline && self.reserve_for(is_join);
        match (route.timed(), deferred) {
            (true, _) => TaskPath::Timed(id, deferred),
            (false, true) if kept => TaskPath::Kept,
            (false, true) => TaskPath::Deferred,
            (false, false) => TaskPath::Plain,
        }
    }

    /// Whether an inlined site's task takes the scheduler's path anyway, to
    /// keep this worker's outermost pending work ready for thieves: a `join`
    /// while the worker records fewer than [`INLINE_LATENT_JOINS`] latent
    /// joins, a spawn while its deque holds fewer than
    /// [`INLINE_QUEUED_TASKS`] tasks. In a recursion these are the outer
    /// levels, whose tasks are the large ones; below them, inlined tasks
    /// are plain calls.
    #[inline(always)]
    fn keeps_outermost(&self, is_join: bool) -> bool {
        if is_join {
            self.latent.len() < INLINE_LATENT_JOINS
        } else {
            // The deque's real length: `local_len` does not see steals.
            self.deque.len() + self.latent_spawns.len() < INLINE_QUEUED_TASKS
        }
    }

    #[inline(always)]
    fn reserve_for(&self, is_join: bool) -> bool {
        if is_join {
            self.reserve_join()
        } else {
            self.reserve()
        }
    }

    /// Records a timed execution of site `id` that started at `start` on
    /// the worker running this thread, if any (a timed task runs on a
    /// worker of the runtime that timed it: its own, or a thief's).
    #[cold]
    pub(crate) fn record_site_sample_here(id: SiteId, start: Instant) {
        WorkerThread::with_current(|worker| {
            if let Some(worker) = worker {
                worker.record_site_sample(id, start);
            }
        });
    }

    /// Runs `f` as a timed execution of site `id`: reads the clock before
    /// it and, once it returns (not if it panics), records the sample on
    /// the worker running this thread
    /// ([`record_site_sample_here`](Self::record_site_sample_here)).
    #[inline]
    pub(crate) fn timed_sample<R>(id: SiteId, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = f();
        WorkerThread::record_site_sample_here(id, start);
        result
    }

    /// Records a timed execution of site `id` that started at `start` and
    /// ran on this worker.
    pub(crate) fn record_site_sample(&self, id: SiteId, start: Instant) {
        let hungry = self.registry.idle_spinning.load(Ordering::Relaxed) > 0
            || self.info().signals.hungry.load(Ordering::Relaxed);
        self.registry
            .inliner
            .record_sample(self.sites(), id, start, hungry);
    }
}
