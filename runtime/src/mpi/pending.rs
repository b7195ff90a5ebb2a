//! The table of MPI requests that suspended tasks wait for, and its poll:
//! the [`ProgressSource`] the workers drive (`progress.rs`).
//!
//! # Invariants
//!
//! * The table holds *copies* of the waiters' raw `MPI_Request` handles;
//!   the waiter keeps its `mpi::request::Request` and does not touch it until
//!   its completion says the request finished. When `MPI_Testsome` /
//!   `MPI_Testany` completes a copy, MPI frees the request and nulls the
//!   copy; the waiter then forgets its `Request` (`into_raw`, as rsmpi's own
//!   `wait_any` does) instead of dropping it.
//! * Every entry is counted in `progress::pending` from its insertion to its
//!   completion, so the workers poll exactly while the table is not empty.
//! * Only the poller completes entries, under the table's lock; the waiter's
//!   [`Completion`] is filled before its event is set, and the event's
//!   release/acquire orders the statuses for the waiter.

use crate::dataflow::external::ExternalEvents;
use crate::progress::{self, ProgressSource};
use crate::task::event::Event;
use mpi::ffi::{MPI_Request, MPI_Status};
use std::sync::{Arc, Mutex};

/// What a waiting task is woken by when the wait is over (all of its
/// requests completed for an all-wait, one for an any-wait), and the
/// statuses.
pub(super) struct Completion {
    notify: Notify,
    state: Mutex<CompletionState>,
}

/// Who learns that a wait is over.
enum Notify {
    /// A task suspended in `wait`/`wait_all`/`wait_any`.
    Waiter(Event),
    /// A dataflow task whose completion the requests are bound to
    /// (`crate::mpi::bind`): one group of its external events.
    Bound(Arc<ExternalEvents>),
}

/// A completion's statuses, filled by the poller before it sets the event.
#[derive(Default)]
pub(super) struct CompletionState {
    /// Requests of an all-wait not yet completed.
    remaining: usize,
    /// Per request of an all-wait, its status once completed.
    pub(super) statuses: Vec<Option<MPI_Status>>,
    /// For an any-wait: the index of the request that completed and its
    /// status (`None` index: MPI found no active request).
    pub(super) any: Option<(Option<usize>, MPI_Status)>,
}

impl Completion {
    /// For a task that will wait for `requests`.
    pub(super) fn new(requests: usize) -> Arc<Completion> {
        Completion::with(requests, Notify::Waiter(Event::new()))
    }

    /// For `requests` bound to a dataflow task's completion.
    pub(super) fn bound(requests: usize, events: Arc<ExternalEvents>) -> Arc<Completion> {
        Completion::with(requests, Notify::Bound(events))
    }

    fn with(requests: usize, notify: Notify) -> Arc<Completion> {
        Arc::new(Completion {
            notify,
            state: Mutex::new(CompletionState {
                remaining: requests,
                statuses: vec![None; requests],
                any: None,
            }),
        })
    }

    /// Suspends the calling task until the wait is over.
    pub(super) fn wait(&self) {
        match &self.notify {
            Notify::Waiter(event) => event.wait(),
            Notify::Bound(_) => unreachable!("nobody waits for bound requests"),
        }
    }

    /// The wait is over: wakes the waiter, or counts one group of the bound
    /// task's events as happened. After the statuses are stored.
    fn notify(&self) {
        match &self.notify {
            Notify::Waiter(event) => event.set(),
            Notify::Bound(events) => events.decrease(),
        }
    }

    /// The statuses, once the event is set.
    pub(super) fn take(&self) -> CompletionState {
        std::mem::take(&mut *lock(&self.state))
    }
}

/// Locks a mutex that a panic elsewhere cannot have left inconsistent (its
/// holders do not panic while holding it).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A wait for all of its requests: one entry per request.
struct AllEntry {
    completion: Arc<Completion>,
    slot: usize,
}

/// A wait for any one of its requests.
struct AnyWait {
    requests: Vec<MPI_Request>,
    completion: Arc<Completion>,
}

#[derive(Default)]
struct Table {
    /// All-wait requests, side by side with their entries, contiguous for
    /// `MPI_Testsome`.
    requests: Vec<MPI_Request>,
    entries: Vec<AllEntry>,
    anys: Vec<AnyWait>,
    /// Scratch for `MPI_Testsome`'s outputs, kept to avoid allocating per poll.
    indices: Vec<i32>,
    statuses: Vec<MPI_Status>,
}

/// The table behind its lock.
pub(super) struct Requests(Mutex<Table>);

// SAFETY: `MPI_Request` is a handle (a pointer in Open MPI); the table only
// passes it to MPI calls. `crate::mpi` lets tasks wait (and so the workers
// poll) only when MPI provides `MPI_THREAD_MULTIPLE`, under which any
// thread may make MPI calls on any handle; the lock serialises the table's
// own calls.
unsafe impl Send for Requests {}
// SAFETY: as for `Send`: all access goes through the mutex.
unsafe impl Sync for Requests {}

/// The process's table (MPI is one per process).
pub(super) static REQUESTS: Requests = Requests(Mutex::new(Table {
    requests: Vec::new(),
    entries: Vec::new(),
    anys: Vec::new(),
    indices: Vec::new(),
    statuses: Vec::new(),
}));

impl Requests {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        lock(&self.0)
    }

    /// Watches `requests` (copies) until every one completes.
    pub(super) fn watch_all(&'static self, requests: &[MPI_Request], completion: &Arc<Completion>) {
        register_once();
        let mut table = self.lock();
        for (slot, &request) in requests.iter().enumerate() {
            table.requests.push(request);
            table.entries.push(AllEntry {
                completion: completion.clone(),
                slot,
            });
        }
        progress::pending_add(requests.len());
    }

    /// Watches `requests` (copies) until one of them completes.
    pub(super) fn watch_any(
        &'static self,
        requests: Vec<MPI_Request>,
        completion: &Arc<Completion>,
    ) {
        register_once();
        let mut table = self.lock();
        table.anys.push(AnyWait {
            requests,
            completion: completion.clone(),
        });
        progress::pending_add(1);
    }

    /// Requests watched now.
    pub(super) fn len(&self) -> usize {
        let table = self.lock();
        table.requests.len() + table.anys.len()
    }
}

impl ProgressSource for Requests {
    fn poll(&self) -> usize {
        let mut guard = self.lock();
        let table = &mut *guard;
        let mut completed = 0;
        let count = table.requests.len();
        if count > 0 {
            table.indices.resize(count, 0);
            // SAFETY: an all-zero `MPI_Status` is a valid value of the plain
            // C struct; MPI overwrites the ones it reports.
            table.statuses.resize(count, unsafe { std::mem::zeroed() });
            let mut outcount: i32 = 0;
            // SAFETY: the arrays hold `count` elements each; the requests are
            // live copies of handles whose waiters do not use them until
            // completed (the module's invariant); MPI_THREAD_MULTIPLE was
            // checked before any was inserted.
            unsafe {
                mpi::ffi::MPI_Testsome(
                    count as i32,
                    table.requests.as_mut_ptr(),
                    &mut outcount,
                    table.indices.as_mut_ptr(),
                    table.statuses.as_mut_ptr(),
                );
            }
            if outcount > 0 {
                let mut done: Vec<(usize, MPI_Status)> = (0..outcount as usize)
                    .map(|k| (table.indices[k] as usize, table.statuses[k]))
                    .collect();
                // Remove from the highest index down, so that each
                // swap_remove moves an entry not yet visited.
                done.sort_unstable_by_key(|&(index, _)| std::cmp::Reverse(index));
                for (index, status) in done {
                    table.requests.swap_remove(index);
                    let entry = table.entries.swap_remove(index);
                    complete_one(&entry.completion, entry.slot, status);
                }
                completed += outcount as usize;
            }
        }
        let mut k = 0;
        while k < table.anys.len() {
            let wait = &mut table.anys[k];
            let mut index: i32 = 0;
            let mut flag: i32 = 0;
            // SAFETY: an all-zero status is a valid plain C struct.
            let mut status: MPI_Status = unsafe { std::mem::zeroed() };
            // SAFETY: as for `MPI_Testsome` above.
            unsafe {
                mpi::ffi::MPI_Testany(
                    wait.requests.len() as i32,
                    wait.requests.as_mut_ptr(),
                    &mut index,
                    &mut flag,
                    &mut status,
                );
            }
            if flag != 0 {
                let wait = table.anys.swap_remove(k);
                // `MPI_UNDEFINED` (negative): no active request.
                let index = usize::try_from(index).ok();
                lock(&wait.completion.state).any = Some((index, status));
                wait.completion.notify();
                completed += 1;
            } else {
                k += 1;
            }
        }
        drop(guard);
        progress::pending_sub(completed);
        completed
    }
}

/// Records request `slot`'s status; sets the event when it was the last.
fn complete_one(completion: &Completion, slot: usize, status: MPI_Status) {
    let last = {
        let mut state = lock(&completion.state);
        state.statuses[slot] = Some(status);
        state.remaining -= 1;
        state.remaining == 0
    };
    if last {
        completion.notify();
    }
}

/// Completes `requests` at once if MPI has finished every one of them
/// already (`MPI_Testall`): a send under the transport's eager limit, or a
/// receive whose message was there before it was posted. Returns their
/// statuses, in order, with the requests freed and nulled as a poll would
/// leave them; `None`, with nothing changed, if any is still in progress
/// (then the caller watches them as usual).
///
/// Why: such a request would otherwise cost a trip through the table and
/// a poll, and its task a suspension (a wait) or a deferred finish (a
/// bind) for nothing; TAMPI tests before it blocks, too.
pub(super) fn test_all(requests: &mut [MPI_Request]) -> Option<Vec<MPI_Status>> {
    let mut flag: i32 = 0;
    // SAFETY: an all-zero `MPI_Status` is a valid value of the plain C
    // struct; MPI overwrites the ones it reports.
    let mut statuses: Vec<MPI_Status> = vec![unsafe { std::mem::zeroed() }; requests.len()];
    // SAFETY: both arrays hold `requests.len()` elements; the handles are
    // live requests the caller owns and has not handed to the table; the
    // caller checked `MPI_THREAD_MULTIPLE` (a worker may be polling other
    // requests on another thread). `MPI_Testall` modifies no request unless
    // all completed.
    unsafe {
        mpi::ffi::MPI_Testall(
            requests.len() as i32,
            requests.as_mut_ptr(),
            &mut flag,
            statuses.as_mut_ptr(),
        );
    }
    (flag != 0).then_some(statuses)
}

/// Registers the table as the process's progress source, once.
fn register_once() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        progress::register_source(&REQUESTS);
    });
}
