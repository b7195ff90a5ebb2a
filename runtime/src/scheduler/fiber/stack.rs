//! Task stacks: a *reserve* that is a hard limit, like a thread's, and a
//! *commitment* that is only a memory policy.
//!
//! # The two sizes
//! * The **reserve** (`Params::stack_size`, 8 MiB by default, up to 1 GiB)
//!   is how deep a task may go: a stack maps the reserve, plus
//!   [`RUNTIME_STACK_HEADROOM`] for the runtime's own paths, plus one
//!   `PROT_NONE` guard page below. The mapping is `MAP_NORESERVE`, so an
//!   untouched page costs neither memory nor commit charge (as a thread's
//!   stack), and a 1 GiB reserve is as cheap as 8 MiB until it is used.
//! * The **commitment** (`Params::committed_stack_size`, what the
//!   `#[task_program]` analysis estimates) is what the pool expects a task
//!   to use. It is pre-faulted when a stack is made, so the hot path takes
//!   no first-touch faults inside it, and a recycled stack that went deeper
//!   is trimmed back to it (`madvise(MADV_DONTNEED)`) before the next task,
//!   so a deep phase does not keep its memory for the life of the pool.
//!
//! No estimate is ever a limit. A macro that reads one module's syntax cannot
//! bound the stack of other modules, other crates, std, generic
//! instantiations or debug builds, so a wrong estimate costs page faults (too
//! small: a deep task faults pages in again after each trim) or memory (too
//! large: pre-faulted pages no task touches), never an overflow. A
//! commitment of 0 (no analysis, or one that could not bound the recursion)
//! pre-faults nothing and never trims: the stack keeps what it touched, as
//! a thread's stack does.
//!
//! # How a trim knows the stack went deep
//! Asking the kernel (`mincore`) costs a system call per finished task,
//! more than the task itself on fine grains. Instead a *canary* word is
//! written just below the commitment when the stack is made and after each
//! trim (it commits that one page: the "plus one page" of what a pooled
//! stack keeps). A task that goes deeper almost always overwrites it (a
//! return address, a spilled register); the worker reads it when the task
//! finishes, one load, and trims when it changed. A frame that spans the
//! canary without writing it escapes that check, so a worker also trims
//! every stack used since the last trim before it parks: what a deep phase
//! leaves behind is returned at the latest when the workers go idle. A
//! missed trim costs memory until then, never correctness.
//!
//! # Invariants
//! * **R1 — mapped.** A `TaskStack`'s mapping (guard page, headroom,
//!   reserve, commitment) lives from `TaskStack::new` until the stack is
//!   dropped; the canary, when there is one, is an 8-aligned word of the
//!   usable range one page below the commitment.
//! * **R2 — a trim never touches a live frame.** The canary is read or
//!   written and pages are discarded only while no task runs on the stack:
//!   its coroutine is idle between jobs, when its only frames are the
//!   fiber's body loop and the suspension below it, at the top of the
//!   stack. `Fiber` measures where they end (a local of the loop, less a
//!   margin for the rest of its frame and the suspension, which a test
//!   measures) and [`StackRegion::trim`] checks, in every build, that the
//!   canary and every page it discards lie below that: a commitment too
//!   small to clear the idle frames costs its trims, never a frame.
//! * **R3 — a policy, never a limit.** Nothing here stops a task from going
//!   below the commitment; only the guard page below the reserve does
//!   (`overflow.rs`). A missed or needless trim costs memory or page
//!   faults, never correctness.
//!
//! # Layout (addresses grow to the right; the stack grows to the left)
//! ```text
//! | guard | headroom | reserve ...... | canary page | commitment | <- base
//! ```
//! The headroom and the reserve are one usable range; the split only says
//! what the runtime promises: task code gets `stack_size` bytes and the
//! runtime's own paths (catching a panic and formatting its backtrace,
//! dataflow submission under DAST, the profiler's hooks) fit in the
//! headroom below it.

use corosensei::stack::{Stack, StackPointer};
use std::io;

pub(crate) use crate::params::RUNTIME_STACK_HEADROOM;

/// The canary value written below the commitment.
const CANARY: u64 = 0x5ca1_ab1e_c0de_57ac;

/// The system page size (cached).
pub(crate) fn page_size() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);
    let cached = PAGE_SIZE.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    #[cfg(unix)]
    // SAFETY: `sysconf` has no preconditions; `_SC_PAGESIZE` is a valid name.
    let raw = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    #[cfg(not(unix))]
    let raw = 4096i64;
    let page = usize::try_from(raw)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096);
    PAGE_SIZE.store(page, Ordering::Relaxed);
    page
}

/// Where a stack lies, as plain addresses: what the worker needs to check and
/// trim a stack that a coroutine owns. `Copy`, so the fiber keeps one while
/// the coroutine holds the [`TaskStack`] itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StackRegion {
    /// Lowest address of the mapping: the guard page starts here.
    low: usize,
    /// One past the highest address: the stack's base.
    base: usize,
    /// Bytes of one page.
    page: usize,
    /// Committed bytes at the top (page multiple), 0 for none.
    committed: usize,
    /// The reserve, as configured (for the overflow message).
    reserve: usize,
}

impl StackRegion {
    /// The guard page `[start, end)`.
    pub(crate) fn guard_range(&self) -> (usize, usize) {
        (self.low, self.low + self.page)
    }

    /// One past the highest address: where the stack starts.
    pub(crate) fn base(&self) -> usize {
        self.base
    }

    /// The configured reserve (`Params::stack_size`).
    pub(crate) fn reserve(&self) -> usize {
        self.reserve
    }

    /// The usable range `[low, base)`: headroom and reserve.
    fn usable(&self) -> (usize, usize) {
        (self.low + self.page, self.base)
    }

    /// The canary's address, if this stack has a commitment with room for a
    /// canary page below it.
    fn canary(&self) -> Option<usize> {
        let (usable_low, _) = self.usable();
        let boundary = self.base - self.committed;
        (self.committed != 0 && boundary - self.page >= usable_low).then(|| boundary - 8)
    }

    /// Whether a task went below the commitment since the canary was last
    /// written: one load.
    ///
    /// # Safety
    /// The stack is mapped (its coroutine is alive) and no task runs on it.
    #[inline]
    pub(crate) unsafe fn went_past_commitment(&self) -> bool {
        match self.canary() {
            // SAFETY: invariants R1 and R2 (module docs): the canary lies in
            // the usable range of a mapped stack, is 8-aligned (the
            // commitment is a page multiple) and was written by
            // `write_canary`; no task runs on the stack, so nothing writes it
            // concurrently. Volatile: task code wrote it
            // through other pointers the compiler cannot see.
            Some(address) => unsafe { std::ptr::read_volatile(address as *const u64) != CANARY },
            None => false,
        }
    }

    /// Writes the canary (committing its page).
    ///
    /// # Safety
    /// As [`went_past_commitment`](Self::went_past_commitment), and no live
    /// frame holds the canary's address.
    unsafe fn write_canary(&self) {
        if let Some(address) = self.canary() {
            // SAFETY: invariants R1 and R2 (module docs): the canary is an
            // aligned word of the mapped usable range, no task runs on the
            // stack and no live frame holds the address (this function's
            // contract), so nothing else reads or writes the word.
            unsafe { std::ptr::write_volatile(address as *mut u64, CANARY) };
        }
    }

    /// Returns every page below the canary page to the kernel and rewrites
    /// the canary: the stack keeps its commitment plus one page. Nothing for
    /// a stack without a commitment, and nothing unless the canary lies
    /// below `live_low`: where the idle coroutine's frames may reach, the
    /// canary would overwrite one and the discard zero others (a checked
    /// bound, in every build: a commitment too small for the idle frames
    /// costs the trims, never a frame). Returns whether it trimmed.
    ///
    /// # Safety
    /// The stack is mapped, its coroutine is idle between jobs (not running,
    /// not suspended inside a task), and no live frame lies below
    /// `live_low` (`Fiber` measures it, with a margin).
    pub(crate) unsafe fn trim(&self, live_low: usize) -> bool {
        let Some(canary) = self.canary() else {
            return false;
        };
        if canary + 8 > live_low {
            return false;
        }
        let canary_page = canary & !(self.page - 1);
        let (usable_low, _) = self.usable();
        if canary_page > usable_low {
            discard(usable_low, canary_page - usable_low);
        }
        // SAFETY: the stack is mapped and no task runs on it (this
        // function's contract), which is what `write_canary` asks (R2).
        unsafe { self.write_canary() };
        true
    }
}

/// A task stack: `reserve + RUNTIME_STACK_HEADROOM` usable bytes mapped
/// without commit charge, a guard page below, `committed` bytes at the top
/// pre-faulted (module documentation). Owned by one coroutine.
pub(crate) struct TaskStack {
    region: StackRegion,
    /// Tells Valgrind this range is a stack (a no-op without Valgrind), so
    /// that callgrind follows the switches; deregistered before unmapping.
    #[cfg(unix)]
    valgrind: std::mem::ManuallyDrop<corosensei::stack::valgrind::ValgrindStackRegistration>,
    /// Where the mapping is not ours to make: corosensei's own stack.
    #[cfg(not(unix))]
    inner: corosensei::stack::DefaultStack,
}

impl TaskStack {
    /// Maps a stack of `reserve` bytes (plus the runtime's headroom and a
    /// guard page) and pre-faults `committed` bytes at its top (rounded up to
    /// pages, at most the usable size; 0 for none).
    pub(crate) fn new(reserve: usize, committed: usize) -> io::Result<TaskStack> {
        let page = page_size();
        let overflow = || io::Error::new(io::ErrorKind::InvalidInput, "task stack size overflows");
        let usable = reserve
            .checked_add(RUNTIME_STACK_HEADROOM)
            .and_then(|n| n.checked_next_multiple_of(page))
            .ok_or_else(overflow)?;
        let committed = committed
            .checked_next_multiple_of(page)
            .ok_or_else(overflow)?
            .min(usable);
        let len = usable.checked_add(page).ok_or_else(overflow)?;
        Self::map(len, page, reserve, committed)
    }

    #[cfg(unix)]
    fn map(len: usize, page: usize, reserve: usize, committed: usize) -> io::Result<TaskStack> {
        // MAP_NORESERVE: untouched pages are not charged against the commit
        // limit (under `vm.overcommit_memory = 2` the kernel charges them
        // anyway, and a large reserve fails here, with an error). MAP_STACK:
        // the kernel (6.7 and later) then never backs the range with
        // transparent huge pages, which would turn a 4 KiB touch into 2 MiB.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK;
        #[cfg(target_os = "openbsd")]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK;
        #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "openbsd")))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choice touches no existing memory.
        let low = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if low == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let low = low as usize;
        let region = StackRegion {
            low,
            base: low + len,
            page,
            committed,
            reserve,
        };
        let stack = TaskStack {
            region,
            valgrind: std::mem::ManuallyDrop::new(
                corosensei::stack::valgrind::ValgrindStackRegistration::new(low as *mut u8, len),
            ),
        };
        // From here on, an error drops `stack`, which unmaps it.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            // For kernels before 6.7, where MAP_STACK does not imply it.
            // Advice only: a kernel that refuses it still runs the stack.
            // SAFETY: the range is our own fresh mapping.
            unsafe { libc::madvise(low as *mut libc::c_void, len, libc::MADV_NOHUGEPAGE) };
        }
        // SAFETY: the first page of our own mapping becomes the guard; no
        // reference into it exists.
        if unsafe { libc::mprotect(low as *mut libc::c_void, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        prefault(region.base - committed, committed);
        // SAFETY: mapped just above, and no task runs on it yet.
        unsafe { region.write_canary() };
        Ok(stack)
    }

    #[cfg(not(unix))]
    fn map(len: usize, page: usize, reserve: usize, committed: usize) -> io::Result<TaskStack> {
        // corosensei maps the stack and its guard page; it has no
        // commitment here (nothing pre-faulted, nothing trimmed).
        let inner = corosensei::stack::DefaultStack::new(len - page)?;
        let region = StackRegion {
            low: inner.limit().get(),
            base: inner.base().get(),
            page,
            committed: 0,
            reserve,
        };
        let _ = committed;
        Ok(TaskStack { region, inner })
    }

    /// The stack's addresses and sizes.
    pub(crate) fn region(&self) -> StackRegion {
        self.region
    }
}

#[cfg(unix)]
impl Drop for TaskStack {
    fn drop(&mut self) {
        // SAFETY: dropped exactly once, here, before the range it names is
        // unmapped (Valgrind must not see a stack vanish under it).
        unsafe { std::mem::ManuallyDrop::drop(&mut self.valgrind) };
        let StackRegion { low, base, .. } = self.region;
        // SAFETY: `[low, base)` is the mapping `map` made, owned by this
        // stack; its coroutine has finished with it (corosensei drops the
        // stack after the coroutine).
        let result = unsafe { libc::munmap(low as *mut libc::c_void, base - low) };
        debug_assert_eq!(result, 0, "munmap of a task stack failed");
    }
}

// SAFETY: `base` is the end of the mapping and `low` its start, both page
// aligned (so aligned to `STACK_ALIGNMENT`); the lowest page is a guard page
// (`PROT_NONE`, made in `map` before the stack is handed out; elsewhere
// corosensei's `DefaultStack` made both, and its bounds are forwarded), and
// the usable part is at least `RUNTIME_STACK_HEADROOM` (64 KiB), above
// corosensei's minimum.
unsafe impl Stack for TaskStack {
    #[inline]
    fn base(&self) -> StackPointer {
        StackPointer::new(self.region.base).expect("a mapped stack is not at address 0")
    }

    #[inline]
    fn limit(&self) -> StackPointer {
        StackPointer::new(self.region.low).expect("a mapped stack is not at address 0")
    }

    // Windows keeps the stack's bounds in the thread environment block:
    // corosensei's own stack, which this one wraps there, knows them.
    #[cfg(windows)]
    fn teb_fields(&self) -> corosensei::stack::StackTebFields {
        self.inner.teb_fields()
    }

    #[cfg(windows)]
    fn update_teb_fields(&mut self, stack_limit: usize, guaranteed_stack_bytes: usize) {
        self.inner
            .update_teb_fields(stack_limit, guaranteed_stack_bytes)
    }
}

/// Makes `[start, start + len)` resident, writable and zero.
#[cfg(unix)]
fn prefault(start: usize, len: usize) {
    if len == 0 {
        return;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // One system call where the kernel has it (Linux 5.14 and later).
        // SAFETY: the range is part of a fresh private mapping of ours;
        // populating it changes no content (the pages are zero either way).
        if unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) } == 0
        {
            return;
        }
    }
    let page = page_size();
    let mut address = start;
    while address < start + len {
        // SAFETY: inside a fresh writable mapping of ours; nothing refers to
        // it yet. Writing a zero over a zero page faults in a private page.
        unsafe { std::ptr::write_volatile(address as *mut u8, 0) };
        address += page;
    }
}

/// Returns the pages of `[start, start + len)` to the kernel: they read as
/// zero and cost nothing until touched again.
#[cfg(unix)]
fn discard(start: usize, len: usize) {
    // SAFETY: the caller passes part of a stack mapping of ours below every
    // live frame (`StackRegion::trim`'s contract), so no Rust value lives
    // there. Advice on a private anonymous mapping cannot fail for a valid
    // range; if it did, the pages would stay resident (memory, not safety).
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
}

#[cfg(not(unix))]
fn discard(_start: usize, _len: usize) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Which pages of `[start, start + len)` are resident.
    fn resident_pages(start: usize, len: usize) -> usize {
        let page = page_size();
        let pages = len.div_ceil(page);
        let mut vec = vec![0u8; pages];
        // SAFETY: `start` is page aligned and the range is mapped; `vec` has
        // one byte per page.
        let result = unsafe { libc::mincore(start as *mut libc::c_void, len, vec.as_mut_ptr()) };
        assert_eq!(result, 0, "mincore: {}", io::Error::last_os_error());
        vec.iter().filter(|&&b| b & 1 != 0).count()
    }

    #[test]
    fn reserve_is_mapped_and_only_the_commitment_is_resident() {
        let page = page_size();
        let stack = TaskStack::new(8 << 20, 64 * 1024).unwrap();
        let region = stack.region();
        assert_eq!(
            region.base - region.low,
            (8 << 20) + RUNTIME_STACK_HEADROOM + page
        );
        assert_eq!(region.committed, 64 * 1024);
        let (usable_low, base) = region.usable();
        // The commitment plus the canary page.
        assert_eq!(
            resident_pages(usable_low, base - usable_low),
            64 * 1024 / page + 1
        );
        // SAFETY: no task runs on it.
        assert!(!unsafe { region.went_past_commitment() });
    }

    #[test]
    fn a_deep_touch_is_seen_and_trimmed_back() {
        let page = page_size();
        let stack = TaskStack::new(1 << 20, 32 * 1024).unwrap();
        let region = stack.region();
        let (usable_low, base) = region.usable();
        // Play a task that went 512 KiB deep, writing every page.
        let deep = base - 512 * 1024;
        let mut address = deep;
        while address < base {
            // SAFETY: inside the usable range of our own stack, unused.
            unsafe { std::ptr::write_volatile(address as *mut u64, 1) };
            address += 8;
        }
        assert!(resident_pages(usable_low, base - usable_low) >= 512 * 1024 / page);
        // SAFETY: no task runs on it.
        assert!(unsafe { region.went_past_commitment() });
        // SAFETY: no task runs on it.
        assert!(unsafe { region.trim(region.base - 16 * 1024) });
        assert_eq!(
            resident_pages(usable_low, base - usable_low),
            32 * 1024 / page + 1
        );
        // SAFETY: no task runs on it.
        assert!(!unsafe { region.went_past_commitment() });
    }

    /// The idle frames' bound is checked: a trim whose canary or discarded
    /// pages would reach below `live_low` does nothing; one just clear of
    /// it keeps everything from the canary up.
    #[test]
    fn a_trim_never_reaches_below_the_live_bound() {
        let page = page_size();
        let stack = TaskStack::new(1 << 20, 16 * 1024).unwrap();
        let region = stack.region();
        let (usable_low, base) = region.usable();
        let canary = region.canary().unwrap();
        // Play a task that went 256 KiB deep (every word written).
        let mut address = base - 256 * 1024;
        while address < base {
            // SAFETY: inside the usable range of our own stack, unused.
            unsafe { std::ptr::write_volatile(address as *mut u64, 1) };
            address += 8;
        }
        let read = |address: usize| {
            // SAFETY: the addresses read are inside our own mapped stack,
            // 8-aligned, and nothing runs on it.
            unsafe { std::ptr::read_volatile(address as *const u64) }
        };
        // Idle frames said to reach the canary, or a page below it: no trim.
        for live_low in [canary, canary - page, usable_low] {
            // SAFETY: no task runs on it; nothing lives below `live_low`.
            assert!(!unsafe { region.trim(live_low) });
            assert_eq!(read(canary), 1, "the canary was written into a live frame");
            assert_eq!(read(base - 256 * 1024), 1, "a live page was discarded");
        }
        // Clear of the canary: trimmed below the canary page, nothing above.
        // SAFETY: no task runs on it; nothing lives below the canary's end.
        assert!(unsafe { region.trim(canary + 8) });
        assert_eq!(read(canary), CANARY);
        assert_eq!(read(canary + 8), 1);
        assert_eq!(read(base - 8), 1);
        assert_eq!(
            resident_pages(usable_low, base - usable_low),
            16 * 1024 / page + 1
        );
    }

    #[test]
    fn without_a_commitment_nothing_is_resident_or_trimmed() {
        let stack = TaskStack::new(64 * 1024, 0).unwrap();
        let region = stack.region();
        let (usable_low, base) = region.usable();
        assert_eq!(resident_pages(usable_low, base - usable_low), 0);
        // Touch the top page, as a task would.
        // SAFETY: inside our own stack, unused.
        unsafe { std::ptr::write_volatile((base - 8) as *mut u64, 1) };
        // SAFETY: no task runs on it.
        unsafe {
            assert!(!region.went_past_commitment());
            assert!(!region.trim(region.base));
        }
        assert_eq!(resident_pages(usable_low, base - usable_low), 1);
    }

    #[test]
    fn a_commitment_beyond_the_stack_is_the_whole_stack_without_canary() {
        let page = page_size();
        let stack = TaskStack::new(16 * 1024, 1 << 30).unwrap();
        let region = stack.region();
        let (usable_low, base) = region.usable();
        assert_eq!(region.committed, base - usable_low);
        assert_eq!(
            resident_pages(usable_low, base - usable_low),
            (base - usable_low) / page
        );
        assert_eq!(region.canary(), None);
    }

    #[test]
    fn a_gibibyte_reserve_costs_nothing_until_touched() {
        let stacks: Vec<TaskStack> = (0..64)
            .map(|_| TaskStack::new(1 << 30, 16 * 1024).unwrap())
            .collect();
        for stack in &stacks {
            let (usable_low, base) = stack.region().usable();
            assert_eq!(
                resident_pages(usable_low, base - usable_low),
                16 * 1024 / page_size() + 1
            );
        }
    }

    #[test]
    fn the_guard_page_is_the_lowest_page() {
        let stack = TaskStack::new(16 * 1024, 0).unwrap();
        let (start, end) = stack.region().guard_range();
        assert_eq!(start, stack.limit().get());
        assert_eq!(end - start, page_size());
        assert_eq!(stack.base().get() - end, 16 * 1024 + RUNTIME_STACK_HEADROOM);
    }

    #[test]
    fn absurd_sizes_are_errors_not_panics() {
        assert!(TaskStack::new(usize::MAX - 10, 0).is_err());
        assert!(TaskStack::new(16 * 1024, usize::MAX).is_err());
    }
}
