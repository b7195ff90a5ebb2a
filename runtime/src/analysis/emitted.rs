//! What the code `#[task_program]` emits refers to, and nothing else uses:
//! the spawn-site `static`s, the `const fn` helpers its effort and stack
//! expressions call, and the per-level join frame size of the stack analysis.
//!
//! Reachable only as `prescient::__private::…` (hidden from the docs, no
//! stability promise), so that these can change with the macro without a
//! breaking change to the public [`analysis`](crate::analysis) module.

use super::model::{SiteInfo, SiteKind};
use crate::inlining::{SiteDescriptor, SiteSlot};
use core::fmt;
use core::ops::Deref;

/// Bytes the runtime's own join/spawn machinery adds to a task stack per nested
/// spawn construct (the frames of [`join_at`](crate::__private::join_at)/`join` and the deferred child's job
/// record they keep live), added by the stack analysis once per level of spawn
/// nesting in a frame, and twice per level of a range loop's splitting
/// ([`for_range`](crate::for_range), whose body runs below the joins that
/// cut its range; the analysis charges at most 4 levels, see
/// [`committed_stack_size`](super::committed_stack_size)):
/// `tests/tests/runtime/for_range.rs` checks that one such level, its
/// splitting frame included, fits in two (it measures 1024 bytes in debug
/// and 288 in release).
///
/// Measured by `tests/tests/stacks/join_frame.rs` (`cargo test -p prescient-tests
/// --test stacks -- --nocapture join_frame::`, and with `--release`: a recursion whose only
/// frame content is one `join` per level): a deferred join costs 696 bytes per
/// level in the debug profile and 144 in release (rustc 1.95, x86-64); an
/// inlined one (deque full, or inlined by the adaptive inliner) about 372
/// and 77. The constants round the deferred
/// figure up with headroom for larger closures; `tests/tests/stacks/join_frame.rs`
/// fails if a change to the join path makes a level cost more than this in the
/// profile it runs under.
#[cfg(debug_assertions)]
pub const JOIN_FRAME_BYTES: usize = 1024;
/// See the debug-profile constant above: release figure.
#[cfg(not(debug_assertions))]
pub const JOIN_FRAME_BYTES: usize = 320;

/// A spawn site: one `static` per site, emitted by `#[task_program]` in the
/// annotated module; its address is the site's id, passed to
/// [`join_at`](crate::__private::join_at) and
/// [`spawn_at`](crate::__private::spawn_at).
///
/// It dereferences to its [`SiteInfo`], which is what
/// [`ProgramAnalysis::sites`](super::ProgramAnalysis::sites) shows users.
/// Next to it, the site's identity for the inliner (`crate::inlining`): its
/// process-wide id, assigned on first use, and the description — location,
/// function, static effort — from which the inliner seeds its decision.
/// Both are `const`-constructible in [`SpawnSite::new`], the only
/// constructor the macro uses; the run-time statistics live in each
/// runtime, indexed by the id, so that runtimes with different policies in
/// one process do not share decisions.
#[derive(Debug)]
pub struct SpawnSite {
    /// What the analyzer knows about the site.
    pub info: SiteInfo,
    slot: SiteSlot,
}

impl SpawnSite {
    /// A site with the given description, not registered with the inliner yet.
    #[allow(clippy::too_many_arguments)] // one per `SiteInfo` field, emitted code only
    pub const fn new(
        module: &'static str,
        index: u32,
        function: &'static str,
        kind: SiteKind,
        file: &'static str,
        line: u32,
        column: u32,
        in_loop: bool,
        static_effort: u64,
    ) -> SpawnSite {
        SpawnSite {
            info: SiteInfo {
                module,
                index,
                function,
                kind,
                file,
                line,
                column,
                in_loop,
                static_effort,
            },
            slot: SiteSlot::new(SiteDescriptor {
                file,
                line,
                column,
                module: Some(module),
                function: Some(function),
                static_effort: Some(static_effort),
            }),
        }
    }

    /// The site's identity for the inliner.
    pub(crate) fn slot(&'static self) -> &'static SiteSlot {
        &self.slot
    }
}

impl Deref for SpawnSite {
    type Target = SiteInfo;

    fn deref(&self) -> &SiteInfo {
        &self.info
    }
}

impl fmt::Display for SpawnSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.info, f)
    }
}

/// Saturating sum, for the effort and stack expressions the macro emits.
pub const fn sum(values: &[u64]) -> u64 {
    let mut total: u64 = 0;
    let mut i = 0;
    while i < values.len() {
        total = total.saturating_add(values[i]);
        i += 1;
    }
    total
}

/// Saturating product, for the effort expressions the macro emits.
pub const fn product(values: &[u64]) -> u64 {
    let mut total: u64 = 1;
    let mut i = 0;
    while i < values.len() {
        total = total.saturating_mul(values[i]);
        i += 1;
    }
    total
}

/// Maximum (0 for none), for the stack and effort expressions the macro emits.
pub const fn max(values: &[u64]) -> u64 {
    let mut best: u64 = 0;
    let mut i = 0;
    while i < values.len() {
        if values[i] > best {
            best = values[i];
        }
        i += 1;
    }
    best
}

/// Trip count of `start..end` (or `start..=end` if `inclusive`): 0 for an
/// empty range, saturated to `u64::MAX`.
pub const fn trip_count(start: i128, end: i128, inclusive: bool) -> u64 {
    let trips = end.saturating_sub(start);
    let trips = if inclusive {
        trips.saturating_add(1)
    } else {
        trips
    };
    if trips <= 0 {
        0
    } else if trips > u64::MAX as i128 {
        u64::MAX
    } else {
        trips as u64
    }
}

/// The levels of joins a range loop of `trips` iterations nests on one
/// stack when its pieces are halved down to at most `grain` iterations (0
/// is taken as 1): `⌈log2 ⌈trips / grain⌉⌉`, 0 for a single piece, at most
/// `at_most` (the stack analysis's charge for a loop whose length and grain
/// it sees).
pub const fn split_levels(trips: u64, grain: i128, at_most: u32) -> u64 {
    let grain = if grain < 1 {
        1
    } else if grain > u64::MAX as i128 {
        u64::MAX
    } else {
        grain as u64
    };
    let pieces = trips.div_ceil(grain);
    let levels = if pieces <= 1 {
        0
    } else {
        (u64::BITS - (pieces - 1).leading_zeros()) as u64
    };
    if levels < at_most as u64 {
        levels
    } else {
        at_most as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_saturate() {
        assert_eq!(sum(&[]), 0);
        assert_eq!(sum(&[u64::MAX, 1]), u64::MAX);
        assert_eq!(product(&[]), 1);
        assert_eq!(product(&[u64::MAX, 2]), u64::MAX);
        assert_eq!(max(&[]), 0);
        assert_eq!(max(&[3, 9, 4]), 9);
        assert_eq!(trip_count(0, 10, false), 10);
        assert_eq!(trip_count(0, 10, true), 11);
        assert_eq!(trip_count(10, 0, false), 0);
        assert_eq!(trip_count(i128::MIN, i128::MAX, true), u64::MAX);
        assert_eq!(split_levels(0, 1, 64), 0);
        assert_eq!(split_levels(1, 1, 64), 0);
        assert_eq!(split_levels(3, 1, 64), 2);
        assert_eq!(split_levels(1025, 16, 64), 7);
        assert_eq!(split_levels(100, 0, 64), 7);
        assert_eq!(split_levels(100, i128::MAX, 64), 0);
        assert_eq!(split_levels(u64::MAX, 1, 64), 64);
        assert_eq!(split_levels(1 << 20, 1, 8), 8);
    }
}
