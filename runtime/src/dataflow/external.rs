//! External events of a dataflow task (feature `mpi`): a task whose body
//! returned but whose completion waits for something outside the runtime —
//! MPI requests bound to it (`crate::mpi::bind`, TAMPI's non-blocking mode,
//! on the model of nanos6's per-task event counter). Its successors in the
//! dependency graph are released only when every event has happened, while
//! its worker goes on at once.
//!
//! # The protocol
//!
//! [`execute`](super::task) runs every body inside a task-local frame
//! ([`CURRENT`]) holding an empty slot. The first bind in the body creates
//! an [`ExternalEvents`] in that slot, with a count of 1: the body's own
//! hold. Each bind adds one; each completion of a bound group subtracts
//! one. When the body returns, `execute` takes the slot: empty, the task
//! finishes as always; otherwise it installs the rest of the task's finish
//! (uncount its regions, report it done, uncount it in its scope) as the
//! continuation and drops the body's hold. Whoever brings the count to zero
//! — the body's end, if everything completed already, or the thread that
//! completes the last event — runs the continuation: it queues it as a job
//! on the scope's runtime (`queue_continuation` in `dataflow/task.rs`: where
//! the completing worker takes its next job, whatever the queue policy,
//! when it is one of that runtime's, and the successors that finish
//! releases go there too, so that the tasks waiting for the messages run
//! next; else in the runtime's injector, because the completing thread may
//! be a worker of another runtime, or none).
//!
//! * **Why the continuation is set in time.** The body's hold keeps the
//!   count above zero until `execute` has installed the continuation, and
//!   only then is the hold dropped.
//! * **Why the task's borrows stay valid.** Until the continuation runs the
//!   task stays counted live on its regions and in its scope: no
//!   conflicting task is handed out, the handles' values are not freed, and
//!   the scope does not end (`task.rs`, links 1, 5 and 7). That is what
//!   lets bound requests write into the task's own `out` data after its
//!   body returned.
//! * **Whatever the body did after binding.** A body that panics after a
//!   bind is caught inside the frame (`run_body`), so the slot still holds
//!   the events and the task completes only after them; its panic is
//!   recorded and reaches the scope's next wait as any task's does. A task
//!   run at once on the submission fast path is not in the graph; if it
//!   bound events, the submitter registers a stand-in on its accesses
//!   (`task::boxed_bound`) that has no body to cancel: its own panic has
//!   poisoned those regions, and a cancelled stand-in would complete at
//!   once and let the scope free the data MPI still writes into.
//! * **Nesting.** The frame is task-local: a dataflow task run inline in
//!   another's body binds its own frame (the inner one shadows); a `join`
//!   child run inline inherits its task's frame, as a plain call would.

use crate::task::local::LocalKey;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The rest of a task's finish, run once its events have happened.
pub(crate) type Continuation = Box<dyn FnOnce() + Send>;

/// The pending external events of one dataflow task.
pub(crate) struct ExternalEvents {
    /// Bound groups not yet completed, plus one while the body runs.
    count: AtomicUsize,
    /// Set when the body returns with events pending.
    continuation: Mutex<Option<Continuation>>,
}

impl ExternalEvents {
    /// One more group of events to wait for.
    pub(crate) fn increase(&self) {
        // Relaxed: the caller holds a count (the body's hold, or a group's
        // not yet completed), so this cannot race with reaching zero.
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// One group completed (or the body returned): runs the continuation if
    /// that was the last.
    pub(crate) fn decrease(&self) {
        // AcqRel: the thread that reaches zero sees the continuation and
        // everything the other decrementers did before their decrement (the
        // requests' completions).
        if self.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            let continuation = self
                .continuation
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take()
                .expect("the body installs the continuation before dropping its hold");
            continuation();
        }
    }
}

/// The slot of the dataflow task running now.
type Slot = Cell<Option<Arc<ExternalEvents>>>;

/// The current dataflow task's slot (see the module docs).
static CURRENT: LocalKey<Slot> = LocalKey::new();

/// Runs a task's `body` with a fresh slot; returns the events it bound, if
/// any.
pub(crate) fn run_with_slot(body: impl FnOnce()) -> Option<Arc<ExternalEvents>> {
    CURRENT.scope(Cell::new(None), || {
        body();
        CURRENT.with(Cell::take)
    })
}

/// Whether the caller runs in the body of a dataflow task (where
/// [`bind_to_current_task`] succeeds).
pub(crate) fn in_task_body() -> bool {
    CURRENT.try_with(|_| ()).is_some()
}

/// The events of the dataflow task running now (created on first use),
/// with one more group counted; `None` outside any dataflow task's body.
pub(crate) fn bind_to_current_task() -> Option<Arc<ExternalEvents>> {
    CURRENT.try_with(|slot| {
        let events = slot.take().unwrap_or_else(|| {
            Arc::new(ExternalEvents {
                count: AtomicUsize::new(1),
                continuation: Mutex::new(None),
            })
        });
        events.increase();
        slot.set(Some(events.clone()));
        events
    })
}

/// The body returned with `events` pending: installs `continuation` and
/// drops the body's hold (running it at once if every event happened).
pub(crate) fn finish_after(events: Arc<ExternalEvents>, continuation: Continuation) {
    *events
        .continuation
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(continuation);
    events.decrease();
}
