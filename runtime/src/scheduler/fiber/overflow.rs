//! Task stack overflow detection.
//!
//! Every started task runs on a corosensei coroutine whose stack is a
//! `TaskStack` (`stack.rs`): one `mmap` with a `PROT_NONE` guard page at its
//! lowest page (`stack.limit()` is the start of the guard, the usable stack
//! is `[limit + page_size, base)`: the reserve `Params::stack_size` plus the
//! runtime's headroom). A task that recurses past it touches the guard page
//! and the kernel raises `SIGSEGV` (`SIGBUS` on some platforms).
//!
//! **Why std cannot report it.** std's own `SIGSEGV` handler only knows the
//! guard page of each *thread* stack. A fault in a coroutine guard page is, for
//! std, an ordinary segmentation fault: it restores the default action and the
//! process dies with a bare "Segmentation fault", which says nothing about
//! tasks or about `Params::stack_size`. So we install our own
//! handler in front of std's (or whatever was installed before), recognise the
//! guard page of the task stack that is *currently running on the faulting
//! thread*, print a message naming the stack size, and chain to the previous
//! handler for every other fault.
//!
//! **Why abort is the only sound outcome.** The overflowed stack cannot be
//! recovered: unwinding out of a signal handler is undefined behaviour (the
//! fault may be in the middle of any instruction, with no landing pads, and
//! Rust's unwinder is not async-signal-safe), and even a clean unwind could
//! not make the task's state valid again — other tasks may hold borrows into
//! the overflowed stack (a parent waiting in a join lends its locals to its
//! children), so destroying that stack or letting it continue would let them
//! read freed or corrupted memory. So the handler writes its message with the
//! async-signal-safe `write(2)` (no allocation, no `std::fmt`) and calls
//! `abort()`.
//!
//! **What the runtime must do.**
//! * once, before any task runs: [`install_handler`];
//! * at the start of every thread that runs tasks (each worker, and any
//!   thread that resumes coroutines itself): keep an [`ensure_alt_stack`]
//!   guard alive for the thread's lifetime. The handler must run on an
//!   alternate signal stack, because the faulting stack has no room left;
//!   without one the kernel kills the process with a plain `SIGSEGV`;
//! * right before every switch into a task stack (`Coroutine::resume`):
//!   [`set_current_task_stack`] with that stack's guard page and its
//!   reserve; right after the switch back out (the resume
//!   returned, whether the task yielded or finished):
//!   [`clear_current_task_stack`]. Each is a few plain thread-local stores
//!   and a compiler fence (no instruction).

use core::cell::Cell;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;
use core::mem::{self, MaybeUninit};
use core::ptr;
use core::sync::atomic::{compiler_fence, Ordering};
use std::sync::{Once, OnceLock};

use crate::scheduler::fiber::stack::page_size;

/// The signals a guard-page hit raises: `SIGSEGV` on Linux, `SIGBUS` on some
/// BSDs and macOS.
const FAULT_SIGNALS: [c_int; 2] = [libc::SIGSEGV, libc::SIGBUS];

/// Usable size of the alternate signal stack [`ensure_alt_stack`] maps. The
/// handler itself needs a few hundred bytes; the rest is for the kernel's
/// signal frame (several KiB with AVX-512/AMX state) and for a chained
/// handler.
const ALT_STACK_SIZE: usize = 64 * 1024;

const MSG_PREFIX: &[u8] = b"prescient: task stack overflow: a task overflowed its ";
/// The message names the reserve and how to raise it. It never blames the
/// `#[task_program]` estimate: that decides only what is pre-faulted.
const MSG_SUFFIX: &[u8] = b"-byte stack reserve (Params::stack_size); raise it with \
`#[task_program(stack_size = ...)]` or `Params::with_stack_size`, up to 1 GiB \
(untouched reserve costs no memory)
";
/// Decimal digits of `usize::MAX` on 64-bit targets.
const MAX_DIGITS: usize = 20;
const MSG_CAPACITY: usize = MSG_PREFIX.len() + MAX_DIGITS + MSG_SUFFIX.len();

type SigInfoHandler = extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void);
type PlainHandler = extern "C" fn(c_int);

/// The task stack currently running on a thread, as recorded by
/// [`set_current_task_stack`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunningStack {
    /// First byte of the guard page (the stack's `limit()`).
    guard_start: usize,
    /// One past the last byte of the guard page (the lowest usable byte).
    guard_end: usize,
    /// The configured reserve, for the message.
    reserve: usize,
}

impl RunningStack {
    /// "No task stack is running": an empty range that contains no address.
    const NONE: Self = Self {
        guard_start: 0,
        guard_end: 0,
        reserve: 0,
    };

    /// Whether a fault at `addr` is this stack overflowing.
    ///
    /// The accepted range is the guard page plus a slack of one more
    /// guard-sized region *below* it. A frame larger than the guard could
    /// step over the guard and first touch memory below it; Rust emits stack
    /// probes for frames above a page on the targets we support, so this
    /// should not happen, but foreign code (C with big `alloca`s, hand-written
    /// assembly) need not probe. Memory below the guard belongs to another
    /// mapping; if touching it faults, it is unmapped or `PROT_NONE` (for
    /// example another stack's guard), and the likeliest culprit is still the
    /// running task's stack pointer. The slack is computed from the recorded
    /// range rather than from `sysconf`, which is not async-signal-safe.
    fn contains_fault(self, addr: usize) -> bool {
        let slack = self.guard_end.saturating_sub(self.guard_start);
        let low = self.guard_start.saturating_sub(slack);
        addr >= low && addr < self.guard_end
    }
}

thread_local! {
    /// Guard range of the coroutine stack currently running on this thread.
    ///
    /// `const` initialisation of a type without `Drop` makes this a plain
    /// `#[thread_local]` static: no lazy registration, no destructor state,
    /// so reading it from the signal handler is async-signal-safe.
    static CURRENT_TASK_STACK: Cell<RunningStack> = const { Cell::new(RunningStack::NONE) };
}

/// Records that the coroutine stack whose guard page is
/// `[guard_start, guard_end)` and whose reserve (`Params::stack_size`) is
/// `reserve` is about to run on this thread. Call right before every switch
/// into a task stack; it is a few thread-local stores.
#[inline]
pub(crate) fn set_current_task_stack(guard_start: usize, guard_end: usize, reserve: usize) {
    debug_assert!(guard_start < guard_end, "empty guard range");
    CURRENT_TASK_STACK.set(RunningStack {
        guard_start,
        guard_end,
        reserve,
    });
    // The record must be in memory before any instruction that may fault on
    // the task stack. A signal handler runs on this same thread, so a
    // compiler fence is enough (it emits no instruction).
    compiler_fence(Ordering::SeqCst);
}

/// Records that no task stack is running on this thread. Call right after
/// every switch back out of a task stack.
#[inline]
pub(crate) fn clear_current_task_stack() {
    CURRENT_TASK_STACK.set(RunningStack::NONE);
    compiler_fence(Ordering::SeqCst);
}

/// The actions that were installed for [`FAULT_SIGNALS`] before ours, read by
/// the handler to chain. Each is set once, inside `install_handler`'s `Once`
/// and before our handler is installed for that signal; `OnceLock::get` is
/// one atomic load, which a signal handler may do.
static PREVIOUS: [OnceLock<libc::sigaction>; 2] = [OnceLock::new(), OnceLock::new()];

/// An action with the default disposition (`SIG_DFL`, no flags, empty mask).
fn default_action() -> libc::sigaction {
    // SAFETY: `sigaction` is a plain C struct of integers, a `sigset_t` and
    // (on some targets) an `Option` of a function pointer, for all of which
    // all-zero bytes are valid; all zero is `SIG_DFL` with no flags and an
    // empty mask.
    unsafe { mem::zeroed() }
}

/// Installs the process-wide `SIGSEGV`/`SIGBUS` handler that reports task
/// stack overflows, remembering the previously installed actions to chain to.
/// Idempotent; call it before the first task runs (ideally while the process
/// is still single-threaded, so no other library swaps its handler in between
/// our query and our install).
pub(crate) fn install_handler() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        for (slot, &signum) in FAULT_SIGNALS.iter().enumerate() {
            let mut previous = default_action();
            // SAFETY: a null `act` only queries; `previous` is a valid,
            // writable `sigaction`.
            if unsafe { libc::sigaction(signum, ptr::null(), &mut previous) } != 0 {
                // Cannot learn what to chain to: leave this signal alone.
                continue;
            }
            if PREVIOUS[slot].set(previous).is_err() {
                // Only this `Once` sets it; a second set would mean chaining
                // to our own handler.
                unreachable!("the previous fault action was recorded twice");
            }

            let mut action = default_action();
            action.sa_sigaction = handle_fault as SigInfoHandler as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: `action.sa_mask` is a valid, writable `sigset_t`.
            unsafe { libc::sigemptyset(&mut action.sa_mask) };
            // SAFETY: `action` is fully initialised, its handler has the
            // `SA_SIGINFO` signature, and a null `oldact` is allowed.
            unsafe { libc::sigaction(signum, &action, ptr::null_mut()) };
        }
    });
}

/// The `SIGSEGV`/`SIGBUS` handler. Everything it calls is async-signal-safe:
/// thread-local `Cell` reads, atomics, `write`, `abort`, `sigaction`,
/// `pthread_sigmask`, `raise`.
extern "C" fn handle_fault(signum: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    if info.is_null() {
        chain_to_previous(signum, info, context, 0);
        return;
    }
    // SAFETY: installed with `SA_SIGINFO`, so the kernel passes a valid
    // `siginfo_t` for this signal, and `info` is not null.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // Only faults the kernel generated (`si_code > 0`) carry a fault address;
    // for `kill`/`raise`/`sigqueue` (`si_code <= 0`) those bytes hold the
    // sender's pid and uid.
    if code > 0 {
        let task = CURRENT_TASK_STACK
            .try_with(Cell::get)
            .unwrap_or(RunningStack::NONE);
        if task.contains_fault(addr) {
            report_overflow_and_abort(task.reserve);
        }
    }
    chain_to_previous(signum, info, context, code);
}

fn report_overflow_and_abort(reserve: usize) -> ! {
    let mut message = [0u8; MSG_CAPACITY];
    let len = overflow_message(reserve, &mut message);
    write_stderr(&message[..len]);
    // SAFETY: `abort` has no preconditions and is async-signal-safe.
    unsafe { libc::abort() }
}

/// Hands a fault that is not a task overflow to whatever was installed before
/// us.
fn chain_to_previous(signum: c_int, info: *mut libc::siginfo_t, context: *mut c_void, code: c_int) {
    let slot = FAULT_SIGNALS.iter().position(|&s| s == signum);
    let previous = slot
        .and_then(|slot| PREVIOUS[slot].get().copied())
        .unwrap_or_else(default_action);
    let handler = previous.sa_sigaction;

    if handler == libc::SIG_IGN && code <= 0 {
        // A *sent* signal (`kill`, `raise`) that the previous disposition
        // ignores: ignore it, as that disposition would have, and stay
        // installed. Re-installing `SIG_IGN` here (as for a real fault below)
        // would uninstall the overflow handler process-wide, and a later task
        // stack overflow would die as a bare segfault with no message.
        return;
    }

    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // Put the previous disposition back and return. A hardware fault
        // re-executes the faulting instruction, which faults again and now
        // gets the default action (the kernel also forces the default action
        // for an ignored synchronous fault): the process dies of the original
        // signal, exactly as if we had never been installed, and ordinary
        // crashes are not reported as task overflows.
        // SAFETY: `previous` is a complete action returned by `sigaction`
        // (or the default action); a null `oldact` is allowed.
        unsafe { libc::sigaction(signum, &previous, ptr::null_mut()) };
        if handler == libc::SIG_DFL && code <= 0 {
            // A sent signal is not re-raised by returning: raise it again. It
            // stays pending (blocked while we run) and is delivered with the
            // default action when the handler returns.
            // SAFETY: `raise` is async-signal-safe and has no preconditions.
            unsafe { libc::raise(signum) };
        }
        return;
    }

    if previous.sa_flags & libc::SA_RESETHAND != 0 {
        // Emulate the one-shot handler's reset, as the kernel would have.
        let reset = default_action();
        // SAFETY: `reset` is a valid action; a null `oldact` is allowed.
        unsafe { libc::sigaction(signum, &reset, ptr::null_mut()) };
    }
    // Block what the previous handler asked to be blocked while it runs.
    let mut saved_mask = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: `previous.sa_mask` is a valid `sigset_t` and `saved_mask` is
    // writable storage for one; `pthread_sigmask` is async-signal-safe.
    let masked = unsafe {
        libc::pthread_sigmask(libc::SIG_BLOCK, &previous.sa_mask, saved_mask.as_mut_ptr())
    } == 0;

    if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous action was installed with `SA_SIGINFO` and is
        // neither `SIG_DFL` nor `SIG_IGN`, so `sa_sigaction` holds a handler
        // with the three-argument signature.
        let previous_handler: SigInfoHandler = unsafe { mem::transmute(handler) };
        previous_handler(signum, info, context);
    } else {
        // SAFETY: without `SA_SIGINFO`, a handler other than `SIG_DFL` and
        // `SIG_IGN` has the one-argument `sa_handler` signature.
        let previous_handler: PlainHandler = unsafe { mem::transmute(handler) };
        previous_handler(signum);
    }

    if masked {
        // SAFETY: `saved_mask` was initialised by the successful
        // `pthread_sigmask` above; a null `oldset` is allowed.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, saved_mask.as_ptr(), ptr::null_mut()) };
    }
}

/// Writes `n` in decimal at the end of `buf` and returns the digits. No
/// allocation and no `std::fmt`, so it is usable in a signal handler.
fn format_decimal(mut n: usize, buf: &mut [u8; MAX_DIGITS]) -> &[u8] {
    let mut start = buf.len();
    loop {
        start -= 1;
        // `n % 10 < 10`, so the cast is lossless.
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[start..]
}

/// Writes the overflow message for a stack of `reserve` bytes into `out`;
/// returns its length.
fn overflow_message(reserve: usize, out: &mut [u8; MSG_CAPACITY]) -> usize {
    let mut digits = [0u8; MAX_DIGITS];
    let digits = format_decimal(reserve, &mut digits);
    let mut len = 0;
    for part in [MSG_PREFIX, digits, MSG_SUFFIX] {
        out[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    len
}

/// Writes `bytes` to file descriptor 2 with `write(2)`, retrying partial
/// writes and `EINTR`, giving up on any other error.
fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for reads of `bytes.len()` bytes; `write`
        // is async-signal-safe.
        let written =
            unsafe { libc::write(libc::STDERR_FILENO, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(written) {
            Ok(0) => return,
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(_) => {
                // Reading errno allocates nothing.
                if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    return;
                }
            }
        }
    }
}

/// Keeps an alternate signal stack installed on this thread while alive, if
/// [`ensure_alt_stack`] had to install one. Not `Send`: the alternate stack is
/// a per-thread setting, and dropping the guard must happen on the thread that
/// created it.
#[must_use = "dropping the guard removes the alternate signal stack it installed"]
pub(crate) struct AltStackGuard {
    mapping: Option<AltStackMapping>,
    _not_send: PhantomData<*mut ()>,
}

struct AltStackMapping {
    /// Start of the whole mapping (the guard page).
    base: *mut c_void,
    /// Length of the whole mapping.
    len: usize,
    /// `ss_sp` we installed (just above the guard page).
    stack: *mut c_void,
}

/// Makes sure this thread has an alternate signal stack, so the fault handler
/// can run when the faulting stack is exhausted. If `sigaltstack` reports one
/// already (std installs one on the threads it spawns when its own `SIGSEGV`
/// handler is active), this does nothing; otherwise it maps a 64 KiB stack
/// with a guard page below it and installs it. Keep the guard alive for as
/// long as the thread runs tasks; dropping it uninstalls and unmaps the stack
/// if (and only if) this call installed it.
///
/// Failures are silent: without an alternate stack a task overflow still
/// kills the process, only with a bare `SIGSEGV` instead of our message.
pub(crate) fn ensure_alt_stack() -> AltStackGuard {
    let none = AltStackGuard {
        mapping: None,
        _not_send: PhantomData,
    };

    let mut current = MaybeUninit::<libc::stack_t>::uninit();
    // SAFETY: a null `ss` only queries; `current` is writable storage for a
    // `stack_t`.
    if unsafe { libc::sigaltstack(ptr::null(), current.as_mut_ptr()) } != 0 {
        return none;
    }
    // SAFETY: `sigaltstack` succeeded, so it initialised `current`.
    let current = unsafe { current.assume_init() };
    if current.ss_flags & libc::SS_DISABLE == 0 {
        return none;
    }

    let page = page_size();
    let size = ALT_STACK_SIZE.max(libc::SIGSTKSZ).next_multiple_of(page);
    let len = size + page;
    // SAFETY: an anonymous private mapping at a kernel-chosen address
    // overlaps nothing; the result is checked for `MAP_FAILED`.
    let base = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return none;
    }
    // SAFETY: `base` is the start of a fresh `len`-byte mapping and
    // `page <= len`; turning its lowest page into a guard touches nothing
    // else.
    let guarded = unsafe { libc::mprotect(base, page, libc::PROT_NONE) } == 0;
    // SAFETY: `page < len`, so the offset stays inside the mapping.
    let stack = unsafe { base.cast::<u8>().add(page) }.cast::<c_void>();
    let alt = libc::stack_t {
        ss_sp: stack,
        ss_flags: 0,
        ss_size: size,
    };
    // SAFETY: `alt` describes `size` writable bytes that stay mapped until the
    // guard is dropped, which uninstalls them first; a null `old_ss` is
    // allowed.
    if !guarded || unsafe { libc::sigaltstack(&alt, ptr::null_mut()) } != 0 {
        // SAFETY: the mapping is ours and was never installed anywhere.
        unsafe { libc::munmap(base, len) };
        return none;
    }
    AltStackGuard {
        mapping: Some(AltStackMapping { base, len, stack }),
        _not_send: PhantomData,
    }
}

impl Drop for AltStackGuard {
    fn drop(&mut self) {
        let Some(mapping) = self.mapping.take() else {
            return;
        };
        let mut current = MaybeUninit::<libc::stack_t>::uninit();
        // SAFETY: a null `ss` only queries; `current` is writable storage.
        if unsafe { libc::sigaltstack(ptr::null(), current.as_mut_ptr()) } != 0 {
            // Cannot tell whether it is still installed: leak it.
            return;
        }
        // SAFETY: `sigaltstack` succeeded, so it initialised `current`.
        let current = unsafe { current.assume_init() };
        let ours = current.ss_sp == mapping.stack;
        if ours && current.ss_flags & libc::SS_ONSTACK != 0 {
            // Dropped from a handler running on it: leak rather than pull
            // the stack out from under ourselves.
            return;
        }
        if ours && current.ss_flags & libc::SS_DISABLE == 0 {
            let disable = libc::stack_t {
                ss_sp: ptr::null_mut(),
                ss_flags: libc::SS_DISABLE,
                ss_size: 0,
            };
            // SAFETY: disabling needs no stack memory; a null `old_ss` is
            // allowed.
            if unsafe { libc::sigaltstack(&disable, ptr::null_mut()) } != 0 {
                return;
            }
        }
        // SAFETY: the mapping was created by `ensure_alt_stack` with exactly
        // these bounds and is no longer installed as this thread's alternate
        // stack (we just disabled it, or someone else replaced it); it was
        // never installed on another thread.
        unsafe { libc::munmap(mapping.base, mapping.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::fiber::stack::TaskStack;
    use corosensei::{Coroutine, Yielder};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Output};

    /// Names the test (in this module) a child process should run as a child.
    const CHILD_ENV: &str = "PRESCIENT_OVERFLOW_CHILD";
    const TASK_STACK: usize = 64 * 1024;

    #[test]
    fn formats_decimals_by_hand() {
        let mut buf = [0u8; MAX_DIGITS];
        assert_eq!(format_decimal(0, &mut buf), b"0");
        assert_eq!(format_decimal(7, &mut buf), b"7");
        assert_eq!(format_decimal(65536, &mut buf), b"65536");
        assert_eq!(format_decimal(1_000_000, &mut buf), b"1000000");
        assert_eq!(
            format_decimal(usize::MAX, &mut buf),
            usize::MAX.to_string().as_bytes()
        );
    }

    #[test]
    fn message_names_the_reserve_and_how_to_raise_it() {
        let mut out = [0u8; MSG_CAPACITY];
        let len = overflow_message(65536, &mut out);
        assert_eq!(
            std::str::from_utf8(&out[..len]).unwrap(),
            "prescient: task stack overflow: a task overflowed its 65536-byte stack \
             reserve (Params::stack_size); raise it with `#[task_program(stack_size = ...)]` \
             or `Params::with_stack_size`, up to 1 GiB (untouched reserve costs no memory)\n"
        );
        let len = overflow_message(usize::MAX, &mut out);
        assert!(len <= MSG_CAPACITY);
        assert!(out[..len].ends_with(b"costs no memory)\n"));
    }

    #[test]
    fn guard_range_with_one_page_of_slack_below() {
        let page = 4096;
        let task = RunningStack {
            guard_start: 0x10_0000,
            guard_end: 0x10_0000 + page,
            reserve: TASK_STACK,
        };
        assert!(task.contains_fault(0x10_0000));
        assert!(task.contains_fault(0x10_0000 + page - 1));
        assert!(task.contains_fault(0x10_0000 - 1), "slack below the guard");
        assert!(
            task.contains_fault(0x10_0000 - page),
            "slack below the guard"
        );
        assert!(!task.contains_fault(0x10_0000 - page - 1));
        assert!(
            !task.contains_fault(0x10_0000 + page),
            "usable stack is not guard"
        );
        assert!(!task.contains_fault(0));
        for addr in [0, 1, 4096, usize::MAX] {
            assert!(!RunningStack::NONE.contains_fault(addr));
        }
    }

    #[test]
    fn set_and_clear_are_thread_local() {
        set_current_task_stack(0x2000, 0x3000, 1234);
        assert_eq!(
            CURRENT_TASK_STACK.get(),
            RunningStack {
                guard_start: 0x2000,
                guard_end: 0x3000,
                reserve: 1234,
            }
        );
        std::thread::spawn(|| assert_eq!(CURRENT_TASK_STACK.get(), RunningStack::NONE))
            .join()
            .unwrap();
        clear_current_task_stack();
        assert_eq!(CURRENT_TASK_STACK.get(), RunningStack::NONE);
    }

    #[test]
    fn install_handler_is_idempotent_and_chains_to_someone_else() {
        install_handler();
        install_handler();
        for (slot, &signum) in FAULT_SIGNALS.iter().enumerate() {
            let mut current = default_action();
            // SAFETY: query only; `current` is a valid out pointer.
            let rc = unsafe { libc::sigaction(signum, ptr::null(), &mut current) };
            assert_eq!(rc, 0);
            let ours = handle_fault as SigInfoHandler as libc::sighandler_t;
            assert_eq!(current.sa_sigaction, ours);
            assert_ne!(current.sa_flags & libc::SA_ONSTACK, 0);
            assert_ne!(current.sa_flags & libc::SA_SIGINFO, 0);
            let previous = *PREVIOUS[slot].get().expect("previous action recorded");
            assert_ne!(previous.sa_sigaction, ours, "must not chain to itself");
        }
    }

    fn query_alt_stack() -> libc::stack_t {
        let mut current = MaybeUninit::<libc::stack_t>::uninit();
        // SAFETY: query only; `current` is writable storage for a `stack_t`.
        let rc = unsafe { libc::sigaltstack(ptr::null(), current.as_mut_ptr()) };
        assert_eq!(rc, 0);
        // SAFETY: `sigaltstack` succeeded and initialised it.
        unsafe { current.assume_init() }
    }

    #[test]
    fn alt_stack_installed_only_when_missing() {
        std::thread::spawn(|| {
            let original = query_alt_stack();

            // Thread has none (disable std's if present): we install one.
            let disable = libc::stack_t {
                ss_sp: ptr::null_mut(),
                ss_flags: libc::SS_DISABLE,
                ss_size: 0,
            };
            // SAFETY: disabling needs no memory; std's stack stays mapped
            // until this thread exits, and is reinstalled below.
            let rc = unsafe { libc::sigaltstack(&disable, ptr::null_mut()) };
            assert_eq!(rc, 0);
            {
                let guard = ensure_alt_stack();
                let mine = query_alt_stack();
                assert_eq!(mine.ss_flags & libc::SS_DISABLE, 0);
                assert!(mine.ss_size >= ALT_STACK_SIZE);
                assert!(guard.mapping.is_some());
                // The installed stack is writable from end to end.
                // SAFETY: `mine` is the mapping we just installed, of
                // `ss_size` writable bytes, and no handler is running on it.
                unsafe {
                    let bytes = mine.ss_sp.cast::<u8>();
                    ptr::write_volatile(bytes, 1);
                    ptr::write_volatile(bytes.add(mine.ss_size - 1), 1);
                }
                // A second call sees ours and does nothing.
                let again = ensure_alt_stack();
                assert!(again.mapping.is_none());
                drop(again);
                assert_eq!(query_alt_stack().ss_sp, mine.ss_sp);
            }
            assert_ne!(query_alt_stack().ss_flags & libc::SS_DISABLE, 0);

            // Put std's back (if it had one) so its thread exit is unchanged.
            if original.ss_flags & libc::SS_DISABLE == 0 {
                // SAFETY: `original` is the stack std installed and still
                // owns; it is still mapped.
                let rc = unsafe { libc::sigaltstack(&original, ptr::null_mut()) };
                assert_eq!(rc, 0);
                // Thread already has one: nothing installed, nothing removed.
                let guard = ensure_alt_stack();
                assert!(guard.mapping.is_none());
                drop(guard);
                assert_eq!(query_alt_stack().ss_sp, original.ss_sp);
            }
        })
        .join()
        .unwrap();
    }

    // ----- child-process tests -----

    /// Whether this process is the child run for `test`.
    fn is_child_for(test: &str) -> bool {
        std::env::var_os(CHILD_ENV).is_some_and(|v| v == test)
    }

    /// Re-runs this test binary with only `test` (a function of this module),
    /// marked as the child.
    fn run_child(test: &str) -> Output {
        let module = module_path!();
        // libtest names exclude the crate name.
        let module = module.split_once("::").map_or(module, |(_, rest)| rest);
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &format!("{module}::{test}"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, test)
            .output()
            .unwrap()
    }

    /// A child that gets here was not killed: report it distinctly.
    fn child_survived() -> ! {
        eprintln!("child survived the fault");
        std::process::exit(99)
    }

    /// Unbounded, non-tail recursion with a real frame.
    #[inline(never)]
    fn recurse(depth: usize) -> usize {
        let mut frame = [0u8; 256];
        frame[depth % frame.len()] = depth as u8;
        std::hint::black_box(&mut frame);
        if std::hint::black_box(depth) == usize::MAX {
            return 0;
        }
        recurse(depth + 1) + usize::from(frame[0])
    }

    /// A fresh `PROT_NONE` page registered nowhere.
    fn unregistered_protected_page() -> *mut u8 {
        // SAFETY: anonymous private mapping at a kernel-chosen address.
        let page = unsafe {
            libc::mmap(
                ptr::null_mut(),
                page_size(),
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(page, libc::MAP_FAILED);
        page.cast()
    }

    /// Sets `signum`'s disposition to `SIG_DFL` (no std handler behind us).
    fn reset_to_default(signum: c_int) {
        // SAFETY: the default action is valid; null `oldact` is allowed.
        let rc = unsafe { libc::sigaction(signum, &default_action(), ptr::null_mut()) };
        assert_eq!(rc, 0);
    }

    fn assert_not_reported(out: &Output) -> String {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            !stderr.contains("task stack overflow"),
            "misreported as a task overflow: {stderr}"
        );
        assert!(!stderr.contains("child survived"), "{stderr}");
        stderr
    }

    #[test]
    fn task_overflow_aborts_with_message() {
        const NAME: &str = "task_overflow_aborts_with_message";
        if is_child_for(NAME) {
            install_handler();
            let _alt = ensure_alt_stack();
            let stack = TaskStack::new(TASK_STACK, 0).unwrap();
            let (start, end) = stack.region().guard_range();
            let mut task = Coroutine::with_stack(stack, |_: &Yielder<(), ()>, ()| recurse(0));
            set_current_task_stack(start, end, TASK_STACK);
            let result = task.resume(());
            clear_current_task_stack();
            std::hint::black_box(result.as_return());
            child_survived();
        }
        let out = run_child(NAME);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{out:?}");
        assert!(stderr.contains("task stack overflow"), "{stderr}");
        assert!(stderr.contains("65536-byte stack reserve"), "{stderr}");
        assert!(stderr.contains("Params::stack_size"), "{stderr}");
    }

    #[test]
    fn foreign_fault_chains_to_std_and_is_not_reported() {
        const NAME: &str = "foreign_fault_chains_to_std_and_is_not_reported";
        if is_child_for(NAME) {
            install_handler();
            let _alt = ensure_alt_stack();
            // A task stack is registered, but the fault is elsewhere.
            let stack = TaskStack::new(TASK_STACK, 0).unwrap();
            let (start, end) = stack.region().guard_range();
            set_current_task_stack(start, end, TASK_STACK);
            let page = unregistered_protected_page();
            // SAFETY: deliberately faults: the page is `PROT_NONE`.
            unsafe { ptr::write_volatile(page, 1) };
            child_survived();
        }
        let out = run_child(NAME);
        assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
        assert_not_reported(&out);
    }

    #[test]
    fn cleared_guard_fault_with_default_action_is_not_reported() {
        const NAME: &str = "cleared_guard_fault_with_default_action_is_not_reported";
        if is_child_for(NAME) {
            reset_to_default(libc::SIGSEGV);
            install_handler();
            let _alt = ensure_alt_stack();
            // The task switched out: its guard is no longer this thread's.
            let stack = TaskStack::new(TASK_STACK, 0).unwrap();
            let (start, end) = stack.region().guard_range();
            set_current_task_stack(start, end, TASK_STACK);
            clear_current_task_stack();
            // SAFETY: deliberately faults: `start` is the guard page.
            unsafe { ptr::write_volatile(start as *mut u8, 1) };
            child_survived();
        }
        let out = run_child(NAME);
        assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
        assert_not_reported(&out);
    }

    #[test]
    fn sent_sigsegv_with_default_action_still_kills() {
        const NAME: &str = "sent_sigsegv_with_default_action_still_kills";
        if is_child_for(NAME) {
            reset_to_default(libc::SIGSEGV);
            install_handler();
            // SAFETY: `raise` has no preconditions; our handler re-raises
            // with the default action, which kills the process.
            unsafe { libc::raise(libc::SIGSEGV) };
            child_survived();
        }
        let out = run_child(NAME);
        assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{out:?}");
        assert_not_reported(&out);
    }

    extern "C" fn custom_handler(_: c_int, _: *mut libc::siginfo_t, _: *mut c_void) {
        write_stderr(b"custom handler ran\n");
        // SAFETY: `_exit` is async-signal-safe and has no preconditions.
        unsafe { libc::_exit(42) }
    }

    #[test]
    fn foreign_fault_chains_to_previous_siginfo_handler() {
        const NAME: &str = "foreign_fault_chains_to_previous_siginfo_handler";
        if is_child_for(NAME) {
            let mut action = default_action();
            action.sa_sigaction = custom_handler as SigInfoHandler as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: `action` is valid with a three-argument handler.
            let rc = unsafe { libc::sigaction(libc::SIGSEGV, &action, ptr::null_mut()) };
            assert_eq!(rc, 0);
            install_handler();
            let page = unregistered_protected_page();
            // SAFETY: deliberately faults: the page is `PROT_NONE`.
            unsafe { ptr::write_volatile(page, 1) };
            child_survived();
        }
        let out = run_child(NAME);
        assert_eq!(out.status.code(), Some(42), "{out:?}");
        let stderr = assert_not_reported(&out);
        assert!(stderr.contains("custom handler ran"), "{stderr}");
    }

    #[test]
    fn thread_overflow_is_still_reported_by_std() {
        const NAME: &str = "thread_overflow_is_still_reported_by_std";
        if is_child_for(NAME) {
            install_handler();
            // Thread-local: a task stack recorded here does not leak into
            // the overflowing thread.
            let stack = TaskStack::new(TASK_STACK, 0).unwrap();
            let (start, end) = stack.region().guard_range();
            set_current_task_stack(start, end, TASK_STACK);
            let result = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(|| recurse(0))
                .unwrap()
                .join();
            std::hint::black_box(result.is_ok());
            child_survived();
        }
        let out = run_child(NAME);
        assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{out:?}");
        let stderr = assert_not_reported(&out);
        assert!(stderr.contains("has overflowed its stack"), "{stderr}");
    }
}
