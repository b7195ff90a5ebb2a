//! The lifetime-free part of a dataflow scope, [`ScopeCore`], which the
//! scope's handles point to: the state shared with its tasks, the region id
//! counter, and the allocations of handles dropped while tasks were live.
//! Below both `mod.rs` (the scope) and `handle.rs` (the handles), so that
//! neither imports the other.

use super::state::Shared;
use crate::scheduler::registry::Registry;
use crate::unwind::{drop_caught, PanicPayload};
use parking_lot::Mutex;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Makes a type `!Send` and `!Sync`: the scope and its handles are used only
/// by the thread running the scope's body.
pub(crate) type OwnerThreadOnly = PhantomData<*const ()>;

/// The lifetime-free part of a scope, which handles point to. Only the
/// owner thread uses it (through `Dataflow` and the handles, which are
/// `!Send`/`!Sync`); its own fields are thread-safe anyway, so that those
/// markers are the one reason the compiler names when a handle or the scope
/// is moved into a task.
pub(crate) struct ScopeCore {
    /// What tasks touch, from any worker.
    pub(crate) shared: Shared,
    /// The next region id (per scope: ids only need to be unique in one graph).
    next_region: AtomicU64,
    /// Allocations of handles dropped while tasks were live.
    retired: Mutex<Vec<Retired>>,
}

/// An allocation to free once no task of the scope is live.
struct Retired {
    pointer: *mut (),
    free: unsafe fn(*mut ()),
}

// SAFETY: a retired allocation is freed by the scope's owner thread only;
// the pointer is just an address until then.
unsafe impl Send for Retired {}

impl ScopeCore {
    /// A scope of the runtime `registry`, with no task and no region yet.
    pub(crate) fn new(registry: Arc<Registry>) -> ScopeCore {
        ScopeCore {
            shared: Shared::new(registry),
            next_region: AtomicU64::new(0),
            retired: Mutex::new(Vec::new()),
        }
    }

    /// Reserves `count` consecutive region ids; returns the first.
    pub(crate) fn new_regions(&self, count: u64) -> u64 {
        // Owner only; atomic just to keep `ScopeCore` `Sync` (see above).
        self.next_region.fetch_add(count, Ordering::Relaxed)
    }

    /// Frees `pointer` with `free` once no task of the scope is live.
    ///
    /// # Safety
    /// `free(pointer)` is sound once, after every task using it finished.
    pub(crate) unsafe fn retire(&self, pointer: *mut (), free: unsafe fn(*mut ())) {
        self.retired.lock().push(Retired { pointer, free });
    }

    /// Waits until no task is live, then frees retired allocations — every
    /// one of them, even when a value's `Drop` panics. Returns the first
    /// such panic for the caller to re-raise (later ones are dropped safely).
    #[must_use = "a panic of a value's Drop must be re-raised or reported"]
    pub(crate) fn wait_all(&self) -> Option<PanicPayload> {
        self.shared.live.wait();
        crate::trace::joined(self.shared.last_finished.take());
        let retired = std::mem::take(&mut *self.retired.lock());
        let mut first_panic = None;
        for item in retired {
            let freed = panic::catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: no task is live, so none uses the allocation, and
                // each retired item is freed once (we took the list).
                unsafe { (item.free)(item.pointer) }
            }));
            if let Err(payload) = freed {
                match first_panic {
                    None => first_panic = Some(payload),
                    Some(_) => drop_caught(payload),
                }
            }
        }
        first_panic
    }

    /// Waits, frees what was retired, then re-raises the first panic: of a
    /// retired value's `Drop`, else of a task since the last wait.
    pub(crate) fn wait_and_raise(&self) {
        let drop_panic = self.wait_all();
        let task_panic = self.shared.take_panic();
        if let Some(payload) = drop_panic {
            drop_caught(task_panic);
            panic::resume_unwind(payload);
        }
        if let Some(payload) = task_panic {
            panic::resume_unwind(payload);
        }
    }

    /// `Dataflow::wait`: waits, then re-raises the first task panic.
    pub(crate) fn wait(&self) {
        self.wait_and_raise();
    }
}

impl Drop for ScopeCore {
    fn drop(&mut self) {
        // Normally empty: `dataflow` waits before the scope is dropped. This
        // may run while unwinding, where a second panic would abort.
        drop_caught(self.wait_all());
    }
}
