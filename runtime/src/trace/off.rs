//! The hooks with the `trace` feature off: empty, inlined away, and the
//! values they pass around are zero-sized, so jobs, latches and events are
//! exactly as large as without the profiler.

/// No strand is ever recorded.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct StrandRef;

impl StrandRef {
    pub(crate) const NONE: StrandRef = StrandRef;
}

/// Holds nothing.
#[derive(Debug, Default)]
pub(crate) struct AtomicStrandRef;

impl AtomicStrandRef {
    pub(crate) const fn new() -> AtomicStrandRef {
        AtomicStrandRef
    }

    #[inline(always)]
    pub(crate) fn load(&self) -> StrandRef {
        StrandRef
    }

    #[inline(always)]
    pub(crate) fn store(&self, _strand: StrandRef) {}

    #[inline(always)]
    pub(crate) fn store_first(&self, _strand: StrandRef) {}

    #[inline(always)]
    pub(crate) fn take(&self) -> StrandRef {
        StrandRef
    }
}

/// Nothing to resume.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paused;

#[inline(always)]
pub(crate) fn task_start(_creator: StrandRef) {}

#[inline(always)]
pub(crate) fn task_end() {}

#[inline(always)]
pub(crate) fn task_finish() -> StrandRef {
    StrandRef
}

#[inline(always)]
pub(crate) fn fork() -> StrandRef {
    StrandRef
}

#[inline(always)]
pub(crate) fn suspend() -> Paused {
    Paused
}

#[inline(always)]
pub(crate) fn resume(_paused: Paused) {}

#[inline(always)]
pub(crate) fn joined(_from: StrandRef) {}

#[inline(always)]
pub(crate) fn inlined<R>(child: impl FnOnce() -> R) -> R {
    child()
}

#[inline(always)]
pub(crate) fn run_nested<R>(_creator: StrandRef, job: impl FnOnce() -> R) -> R {
    job()
}
