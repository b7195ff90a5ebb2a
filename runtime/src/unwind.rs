//! Panic containment: no panic of user code may unwind into the runtime.
//!
//! A job's `execute` never unwinds: every job catches the panic of its body
//! and stores or forwards it to whoever joins the task, so a panic can never
//! tear through a fiber's root or a worker's main loop. The same goes for
//! every user value the runtime drops on its own account (a detached task's
//! result, a panic payload nobody will see): it is dropped with
//! [`drop_caught`], because its `Drop` is user code too. Where the runtime
//! relies on nothing unwinding (a fiber's root, a worker's main loop), an
//! [`AbortOnUnwind`] guard turns a broken promise into an abort instead of a
//! stranded worker. [`report`] is the runtime's one way to say something on
//! stderr.
//!
//! The lowest layer of the runtime, with no runtime state: jobs, the
//! profiler's recorder and the scheduler all use it.

use parking_lot::Mutex;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// The payload of a caught panic.
pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;

/// Drops `value` — a user value the runtime owns, such as a detached task's
/// result or a panic payload that nobody will receive — so that a panic in its
/// `Drop` cannot unwind into the runtime. Returns that panic's payload, if
/// any, for the caller to report (see [`drop_caught`] for the usual choice).
pub(crate) fn try_drop<T>(value: T) -> Result<(), PanicPayload> {
    panic::catch_unwind(AssertUnwindSafe(move || drop(value)))
}

/// Drops `value` like [`try_drop`]; a panic in its `Drop` is reported on
/// stderr and its payload leaked (dropping that payload could panic again,
/// and so on without end).
pub(crate) fn drop_caught<T>(value: T) {
    if let Err(payload) = try_drop(value) {
        report(format_args!(
            "a value dropped by the runtime panicked in its Drop; that panic is ignored"
        ));
        std::mem::forget(payload);
    }
}

/// Stores `payload` in `slot` if it is the first panic; a later one is
/// dropped outside the lock and under `catch_unwind` (its `Drop` is user
/// code). Scopes and task groups propagate only the first panic of their
/// tasks, as rayon's scopes do.
pub(crate) fn keep_first_panic(slot: &Mutex<Option<PanicPayload>>, payload: PanicPayload) {
    let mut first = slot.lock();
    if first.is_none() {
        *first = Some(payload);
        return;
    }
    drop(first);
    drop_caught(payload);
}

/// Writes one `prescient: …` line to stderr, and never panics: a write
/// error (stderr a closed pipe) is ignored, since the runtime has no better
/// place to report to.
///
/// Through `eprintln!`, not a write to `io::stderr()`: the macro's output
/// goes where the test harness captures the thread's output (worker threads
/// inherit their builder's), so a test that provokes a report on purpose
/// keeps it out of the output unless it fails, as it does the panic
/// messages of its own threads. The macro panics when stderr cannot be
/// written; that panic is caught here (a custom panic hook sees it). Where
/// panics abort, a failed write must not abort the process, so the plain
/// write is used.
pub(crate) fn report(message: std::fmt::Arguments<'_>) {
    #[cfg(panic = "unwind")]
    {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| eprintln!("prescient: {message}")));
    }
    #[cfg(not(panic = "unwind"))]
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "prescient: {message}");
    }
}

/// Aborts the process if dropped, i.e. if a panic unwinds through the scope
/// that holds it; forgotten on the normal path. Guards the places where the
/// runtime promises that nothing unwinds (a fiber's root, a worker's main
/// loop), so that a broken promise is loud instead of a stranded worker.
pub(crate) struct AbortOnUnwind(pub(crate) &'static str);

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        report(format_args!(
            "a panic unwound out of {} into the runtime (a bug in prescient); aborting",
            self.0
        ));
        std::process::abort();
    }
}
