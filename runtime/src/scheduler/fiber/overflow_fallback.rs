//! Task stack overflow on targets without Unix signals: the same interface as
//! `overflow.rs`, doing nothing.
//!
//! A task stack there is still a corosensei stack with a guard page (see
//! `stack.rs`), so an overflow never corrupts memory: the operating system
//! stops the process with its own stack-overflow error. What is missing is
//! the message naming `Params::stack_size`, which needs a `SIGSEGV` handler
//! that knows the task stacks. Prescient is built and tested on Linux
//! (x86-64); other Unix systems take `overflow.rs`.

/// Nothing to record without a fault handler.
#[inline]
pub(crate) fn set_current_task_stack(_guard_start: usize, _guard_end: usize, _reserve: usize) {}

/// Nothing to clear without a fault handler.
#[inline]
pub(crate) fn clear_current_task_stack() {}

/// No handler to install.
pub(crate) fn install_handler() {}

/// No alternate signal stack to keep alive.
#[must_use]
pub(crate) struct AltStackGuard;

/// No alternate signal stack is needed.
pub(crate) fn ensure_alt_stack() -> AltStackGuard {
    AltStackGuard
}
