//! Per-task state: [`task_local!`](macro@crate::task_local) keys whose values are
//! bound for the duration of a closure with [`LocalKey::scope`].
//!
//! Why not a thread-local: tasks that suspend interleave on one thread out of
//! stack order, so a thread-local set by one task and restored later can be
//! observed (or clobbered) by another task that ran in between. Here the bound
//! values form a linked list of frames on the task's own stack, and the list
//! head lives in the fiber the task runs on; a suspended task's head is saved
//! with its fiber, so no other task sees it.
//!
//! Inheritance: a child run inline on the same stack (a `join` child taken
//! back, a spawn inlined at full capacity) sees its parent's values, as a
//! plain call would; a child that runs elsewhere starts with none.

use crate::scheduler::fiber::{self, TaskLocalFrame as Frame};
use std::cell::Cell;
use std::marker::PhantomData;

thread_local! {
    /// The head for code not running on a fiber (threads outside a runtime).
    static THREAD_HEAD: Cell<*const Frame> = const { Cell::new(std::ptr::null()) };
}

fn head() -> *const Frame {
    let fiber = fiber::current_fiber();
    if fiber.is_null() {
        THREAD_HEAD.with(Cell::get)
    } else {
        // SAFETY: the current fiber is alive while it runs (it is running
        // this code), and a fiber is only used by the thread that runs it
        // (tasks are tied: `scheduler/fiber`), so nothing writes this field
        // concurrently.
        unsafe { (*fiber).task_locals }
    }
}

fn set_head(frame: *const Frame) {
    let fiber = fiber::current_fiber();
    if fiber.is_null() {
        THREAD_HEAD.with(|h| h.set(frame));
    } else {
        // SAFETY: the current fiber is alive while it runs this code, and
        // only this thread uses it (tasks are tied), so this write races
        // with nothing.
        unsafe { (*fiber).task_locals = frame };
    }
}

/// A key for per-task values, declared with [`task_local!`](macro@crate::task_local).
pub struct LocalKey<T: 'static> {
    /// Gives every key a distinct address (zero-sized statics may share one).
    _unique: u8,
    _marker: PhantomData<fn() -> T>,
}

impl<T: 'static> LocalKey<T> {
    #[doc(hidden)]
    pub const fn new() -> LocalKey<T> {
        LocalKey {
            _unique: 0,
            _marker: PhantomData,
        }
    }

    fn id(&'static self) -> *const u8 {
        &self._unique
    }

    /// Binds `value` to this key while `f` runs (in this task and children run
    /// inline), then drops it. Nested scopes shadow outer ones.
    pub fn scope<R>(&'static self, value: T, f: impl FnOnce() -> R) -> R {
        struct Restore(*const Frame);
        impl Drop for Restore {
            fn drop(&mut self) {
                set_head(self.0);
            }
        }
        let frame = Frame {
            key: self.id(),
            value: &value,
            previous: head(),
        };
        let _restore = Restore(frame.previous);
        set_head(&frame);
        f()
    }

    /// Calls `f` with the value bound to this key, or returns `None` if the
    /// current task has none.
    pub fn try_with<R>(&'static self, f: impl FnOnce(&T) -> R) -> Option<R> {
        let id = self.id();
        let mut frame = head();
        while !frame.is_null() {
            // SAFETY: frames are linked only while their `scope` call is on
            // this task's stack (the guard unlinks them), so `frame` is alive.
            let current = unsafe { &*frame };
            if current.key == id {
                // SAFETY: the value is alive as long as its frame is linked
                // (it lives in the same `scope` call).
                let value = unsafe { &*current.value };
                let value = value
                    .downcast_ref::<T>()
                    .expect("a task-local frame holds its key's type");
                return Some(f(value));
            }
            frame = current.previous;
        }
        None
    }

    /// Calls `f` with the value bound to this key.
    ///
    /// # Panics
    /// If the current task has no value bound (no enclosing `scope`).
    pub fn with<R>(&'static self, f: impl FnOnce(&T) -> R) -> R {
        self.try_with(f)
            .expect("task_local value accessed outside its `scope`")
    }
}

/// Declares per-task keys.
///
/// ```
/// prescient::task_local! {
///     static REQUEST_ID: u64;
/// }
/// REQUEST_ID.scope(7, || {
///     assert_eq!(REQUEST_ID.with(|id| *id), 7);
/// });
/// assert!(REQUEST_ID.try_with(|id| *id).is_none());
/// ```
#[macro_export]
macro_rules! task_local {
    ($($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty;)+) => {
        $(
            $(#[$attr])*
            $vis static $name: $crate::LocalKey<$t> = $crate::LocalKey::new();
        )+
    };
}
