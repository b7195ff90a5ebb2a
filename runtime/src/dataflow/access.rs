//! Access declarations: the tokens a task is given ([`In`], [`Out`],
//! [`InOut`] for a [`Data`] handle; [`TileIn`], [`TileOut`], [`TileInOut`] for
//! one tile of [`Tiles`]), tuples of them, and how each maps to the borrow the
//! task body receives — `&T` / `&[T]` for `in`, `&mut T` / `&mut [T]` for
//! `out` and `inout`.
//!
//! Both traits are sealed: only this module implements them, because their
//! raw halves hold the pointers that the runtime's `unsafe` code turns into
//! borrows.
//!
//! # Why two traits
//! [`Accesses`] is what a task declares (tokens borrowing handles, branded
//! with the scope's `'df`). [`Accesses::into_raw`] turns it into a raw,
//! lifetime-free value ([`Accesses::Raw`]) that travels with the task, and
//! [`TaskArgs`] maps that raw value to the body's arguments for a
//! higher-ranked borrow lifetime `'t`. The second type parameter of
//! `TaskArgs` defaults to `&'t Self`, which is the usual way to give a
//! `for<'t>` bound the implied bound `Self: 't` (a lifetime GAT would demand
//! `Self: 'static` there); `'t` being higher-ranked is what stops a body from
//! keeping its borrow beyond the task.

use super::handle::{Data, RegionState, Slot, Tiles};
use prescient_graph::{AccessMode, RegionId};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

mod sealed {
    /// Seals [`Accesses`](super::Accesses) and [`TaskArgs`](super::TaskArgs).
    pub trait Sealed {}
}
use sealed::Sealed;

/// The most region accesses one task may declare (a tuple may nest tuples;
/// the total counts). Stated in [`Accesses`]' documentation.
pub(crate) const MAX_ACCESSES: usize = 16;

/// A set of region accesses a dataflow task declares: one access token
/// ([`Data::read`], [`Data::out`], [`Data::inout`], [`Tiles::read`], …), a
/// tuple of them (nested tuples too; at most 16 accesses in all), or `()` for
/// none. Sealed.
///
/// The brand `'df` ties the tokens to the scope that created their handles,
/// so a task can only name handles of its own scope.
pub trait Accesses<'df>: Sealed {
    /// How many region accesses this set declares.
    const COUNT: usize;
    /// The accesses with their lifetimes erased, carried by the task until it
    /// runs, where [`TaskArgs`] turns them into the body's arguments.
    type Raw: for<'t> TaskArgs<'t> + Send + 'df;
    /// Writes the `COUNT` region accesses to `regions` (which holds at least
    /// `COUNT` entries) and returns the raw pointers. Internal to the runtime;
    /// it is safe to call, but the result is useless without `unsafe`.
    #[doc(hidden)]
    fn into_raw(self, regions: &mut [(RegionId, AccessMode)]) -> Self::Raw;
}

/// Maps the raw accesses of a task to the arguments its body receives for the
/// borrow lifetime `'t`: `&'t T` for `in`, `&'t mut T` for `out`/`inout`, and
/// tuples of those. Sealed; the second parameter only carries the implied
/// bound `Self: 't` (see the module documentation).
pub trait TaskArgs<'t, Implied = &'t Self>: Sealed {
    /// The body's argument (tuple) type.
    type Args;

    /// Creates the borrows.
    ///
    /// # Safety
    /// The task holding these accesses may run now — handed out by the
    /// dependency graph and not done, or run unregistered by the scope's
    /// owner with no conflicting task live (the invariant in `task.rs`) — so
    /// no other live task holds a conflicting access to the same regions;
    /// and the handles' values are alive.
    #[doc(hidden)]
    unsafe fn borrow(&'t mut self) -> Self::Args;

    /// Whether any accessed region is poisoned.
    ///
    /// # Safety
    /// The regions' states are alive (the task is live, or its handles are
    /// borrowed by the caller).
    #[doc(hidden)]
    unsafe fn any_poisoned(&self) -> bool;

    /// Poisons every region this task writes (`out`/`inout`).
    ///
    /// # Safety
    /// As for [`any_poisoned`](Self::any_poisoned).
    #[doc(hidden)]
    unsafe fn poison_writes(&self);

    /// Whether no registered, unfinished task has an access that conflicts
    /// with these (no live writer of a region read; no live task at all on a
    /// region written). Acquire: the finished tasks' writes are visible.
    ///
    /// # Safety
    /// As for [`any_poisoned`](Self::any_poisoned).
    #[doc(hidden)]
    unsafe fn is_idle(&self) -> bool;

    /// Counts a registered task on its regions (see [`is_idle`](Self::is_idle)).
    ///
    /// # Safety
    /// As for [`any_poisoned`](Self::any_poisoned); called once per
    /// registered task, by the scope's owner, before it is registered.
    #[doc(hidden)]
    unsafe fn count_live(&self);

    /// Uncounts a registered task once its body finished (Release).
    ///
    /// # Safety
    /// As for [`any_poisoned`](Self::any_poisoned); once, after
    /// [`count_live`](Self::count_live).
    #[doc(hidden)]
    unsafe fn uncount_live(&self);
}

/// One live reader in `RegionState::live`.
const READER: u64 = 1;
/// One live writer in `RegionState::live`.
const WRITER: u64 = 1 << 32;

/// The region-state part of the raw accesses: shared by all six kinds.
///
/// # Safety
/// Every function requires `state` to point to a live `RegionState`.
unsafe fn state_poisoned(state: *const RegionState) -> bool {
    // SAFETY: `state` points to a live `RegionState` (this function's
    // contract; link 7 of `task.rs` keeps it alive while tasks live).
    unsafe { (*state).poisoned.load(Ordering::Acquire) }
}

/// See [`state_poisoned`].
unsafe fn state_poison(state: *const RegionState) {
    // SAFETY: `state` points to a live `RegionState` (this function's
    // contract; link 7 of `task.rs` keeps it alive while tasks live).
    unsafe { (*state).poisoned.store(true, Ordering::Release) }
}

/// See [`state_poisoned`]. A reader may run while other readers are live.
unsafe fn state_idle(state: *const RegionState, write: bool) -> bool {
    // SAFETY: `state` points to a live `RegionState` (this function's
    // contract; link 7 of `task.rs` keeps it alive while tasks live).
    let live = unsafe { (*state).live.load(Ordering::Acquire) };
    if write {
        live == 0
    } else {
        live < WRITER
    }
}

/// See [`state_poisoned`]. Only the scope's owner counts, and only it reads
/// the count for `state_idle`, so Relaxed suffices.
unsafe fn state_count(state: *const RegionState, write: bool) {
    let unit = if write { WRITER } else { READER };
    // SAFETY: `state` points to a live `RegionState` (this function's
    // contract; link 7 of `task.rs` keeps it alive while tasks live).
    unsafe { (*state).live.fetch_add(unit, Ordering::Relaxed) };
}

/// See [`state_poisoned`].
unsafe fn state_uncount(state: *const RegionState, write: bool) {
    let unit = if write { WRITER } else { READER };
    // SAFETY: `state` points to a live `RegionState` (this function's
    // contract; link 7 of `task.rs` keeps it alive while tasks live).
    unsafe { (*state).live.fetch_sub(unit, Ordering::Release) };
}

// ---------------------------------------------------------------------------
// Tokens of a `Data` handle.

/// An `in` access to a [`Data`] handle: the body receives `&T`. Made by
/// [`Data::read`].
pub struct In<'a, 'df, T> {
    data: &'a Data<'df, T>,
}

/// An `out` access to a [`Data`] handle: the body receives `&mut T`, which
/// still holds the previous value (Rust has no write-only borrows); ordered
/// like `inout`. Made by [`Data::out`].
pub struct Out<'a, 'df, T> {
    data: &'a Data<'df, T>,
}

/// An `inout` access to a [`Data`] handle: the body receives `&mut T`. Made by
/// [`Data::inout`].
pub struct InOut<'a, 'df, T> {
    data: &'a Data<'df, T>,
}

impl<'df, T> Data<'df, T> {
    /// Declares an `in` (read) access: the task body receives `&T`, and runs
    /// after the last earlier task that writes this handle.
    pub fn read(&self) -> In<'_, 'df, T> {
        In { data: self }
    }

    /// Declares an `out` access: the task body receives `&mut T` (holding the
    /// previous value), and runs after every earlier task that reads or
    /// writes this handle.
    pub fn out(&self) -> Out<'_, 'df, T> {
        Out { data: self }
    }

    /// Declares an `inout` (read-write) access: the task body receives
    /// `&mut T`, and runs after every earlier task that reads or writes this
    /// handle.
    pub fn inout(&self) -> InOut<'_, 'df, T> {
        InOut { data: self }
    }
}

/// The raw form of a shared access to one value.
pub struct RawRead<T> {
    slot: *const Slot<T>,
}

/// The raw form of an exclusive access to one value.
pub struct RawWrite<T> {
    slot: *const Slot<T>,
}

/// The address of `slot`'s region state, by address arithmetic only: no
/// place is formed through `slot`, so this is sound even where the slot is
/// gone; the `state_*` functions that dereference the result require it
/// alive (their callers, the trait methods, are `unsafe` with that
/// contract).
fn slot_state<T>(slot: *const Slot<T>) -> *const RegionState {
    slot.wrapping_byte_add(core::mem::offset_of!(Slot<T>, state))
        .cast::<RegionState>()
}

impl<T> RawRead<T> {
    fn state(&self) -> *const RegionState {
        slot_state(self.slot)
    }
}

impl<T> RawWrite<T> {
    fn state(&self) -> *const RegionState {
        slot_state(self.slot)
    }
}

// SAFETY: moving a RawRead to another thread lets that thread create `&T`
// (shared with the handle's other readers): needs T: Sync, and T: Send since
// `in` is only offered for such T (the rule).
unsafe impl<T: Send + Sync> Send for RawRead<T> {}
// SAFETY: moving a RawWrite to another thread lets it create `&mut T`, which
// moves access to the value there: T: Send.
unsafe impl<T: Send> Send for RawWrite<T> {}

impl<T> Sealed for RawRead<T> {}
impl<T> Sealed for RawWrite<T> {}

impl<'t, T> TaskArgs<'t> for RawRead<T> {
    type Args = &'t T;

    unsafe fn borrow(&'t mut self) -> &'t T {
        // SAFETY: the slot is alive (contract); the task runs only while no
        // task writing the region is live (the invariant in `task.rs`).
        unsafe { &*(*self.slot).value.get() }
    }

    unsafe fn any_poisoned(&self) -> bool {
        // SAFETY: the slot is alive (contract).
        unsafe { state_poisoned(self.state()) }
    }

    unsafe fn poison_writes(&self) {}

    unsafe fn is_idle(&self) -> bool {
        // SAFETY: the slot is alive (contract).
        unsafe { state_idle(self.state(), false) }
    }

    unsafe fn count_live(&self) {
        // SAFETY: the slot is alive (contract).
        unsafe { state_count(self.state(), false) }
    }

    unsafe fn uncount_live(&self) {
        // SAFETY: the slot is alive (contract).
        unsafe { state_uncount(self.state(), false) }
    }
}

impl<'t, T> TaskArgs<'t> for RawWrite<T> {
    type Args = &'t mut T;

    unsafe fn borrow(&'t mut self) -> &'t mut T {
        // SAFETY: the slot is alive (contract); the task runs only while no
        // other task accessing the region is live, and the submission check
        // ensures this task names the region only once when it writes it
        // (the invariant in `task.rs`).
        unsafe { &mut *(*self.slot).value.get() }
    }

    unsafe fn any_poisoned(&self) -> bool {
        // SAFETY: the slot is alive (contract).
        unsafe { state_poisoned(self.state()) }
    }

    unsafe fn poison_writes(&self) {
        // SAFETY: the slot is alive (contract).
        unsafe { state_poison(self.state()) }
    }

    unsafe fn is_idle(&self) -> bool {
        // SAFETY: the slot is alive (contract).
        unsafe { state_idle(self.state(), true) }
    }

    unsafe fn count_live(&self) {
        // SAFETY: the slot is alive (contract).
        unsafe { state_count(self.state(), true) }
    }

    unsafe fn uncount_live(&self) {
        // SAFETY: the slot is alive (contract).
        unsafe { state_uncount(self.state(), true) }
    }
}

macro_rules! data_token {
    ($token:ident, $raw:ident, $mode:expr, $($bound:tt)+) => {
        impl<T> Sealed for $token<'_, '_, T> {}

        impl<'a, 'df, T: $($bound)+ + 'df> Accesses<'df> for $token<'a, 'df, T> {
            const COUNT: usize = 1;
            type Raw = $raw<T>;

            #[inline]
            fn into_raw(self, regions: &mut [(RegionId, AccessMode)]) -> $raw<T> {
                regions[0] = (self.data.region(), $mode);
                $raw {
                    slot: self.data.slot(),
                }
            }
        }
    };
}

data_token!(In, RawRead, AccessMode::In, Send + Sync);
data_token!(Out, RawWrite, AccessMode::Out, Send);
data_token!(InOut, RawWrite, AccessMode::InOut, Send);

// ---------------------------------------------------------------------------
// Tokens of one tile of a `Tiles` handle.

/// An `in` access to one tile of [`Tiles`]: the body receives `&[T]`. Made by
/// [`Tiles::read`].
pub struct TileIn<'a, 'df, T> {
    tiles: &'a Tiles<'df, T>,
    index: usize,
}

/// An `out` access to one tile of [`Tiles`]: the body receives `&mut [T]`
/// (holding the previous values). Made by [`Tiles::out`].
pub struct TileOut<'a, 'df, T> {
    tiles: &'a Tiles<'df, T>,
    index: usize,
}

/// An `inout` access to one tile of [`Tiles`]: the body receives `&mut [T]`.
/// Made by [`Tiles::inout`].
pub struct TileInOut<'a, 'df, T> {
    tiles: &'a Tiles<'df, T>,
    index: usize,
}

impl<'df, T> Tiles<'df, T> {
    /// Declares an `in` access to tile `index`: the body receives `&[T]`.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn read(&self, index: usize) -> TileIn<'_, 'df, T> {
        self.check_index(index);
        TileIn { tiles: self, index }
    }

    /// Declares an `out` access to tile `index`: the body receives `&mut [T]`
    /// (holding the previous values).
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn out(&self, index: usize) -> TileOut<'_, 'df, T> {
        self.check_index(index);
        TileOut { tiles: self, index }
    }

    /// Declares an `inout` access to tile `index`: the body receives
    /// `&mut [T]`.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn inout(&self, index: usize) -> TileInOut<'_, 'df, T> {
        self.check_index(index);
        TileInOut { tiles: self, index }
    }
}

/// The raw form of a shared access to one tile.
pub struct RawTileRead<T> {
    ptr: *const T,
    len: usize,
    state: *const RegionState,
}

/// The raw form of an exclusive access to one tile.
pub struct RawTileWrite<T> {
    ptr: *mut T,
    len: usize,
    state: *const RegionState,
}

// SAFETY: as for RawRead: another thread creates `&[T]`.
unsafe impl<T: Send + Sync> Send for RawTileRead<T> {}
// SAFETY: as for RawWrite: another thread creates `&mut [T]`.
unsafe impl<T: Send> Send for RawTileWrite<T> {}

impl<T> Sealed for RawTileRead<T> {}
impl<T> Sealed for RawTileWrite<T> {}

impl<'t, T> TaskArgs<'t> for RawTileRead<T> {
    type Args = &'t [T];

    unsafe fn borrow(&'t mut self) -> &'t [T] {
        // SAFETY: `ptr..ptr+len` is one tile of a slice borrowed for the
        // scope (alive); no task writing this tile's region is live (the
        // invariant in `task.rs`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    unsafe fn any_poisoned(&self) -> bool {
        // SAFETY: the states are alive (contract).
        unsafe { state_poisoned(self.state) }
    }

    unsafe fn poison_writes(&self) {}

    unsafe fn is_idle(&self) -> bool {
        // SAFETY: the states are alive (contract).
        unsafe { state_idle(self.state, false) }
    }

    unsafe fn count_live(&self) {
        // SAFETY: the states are alive (contract).
        unsafe { state_count(self.state, false) }
    }

    unsafe fn uncount_live(&self) {
        // SAFETY: the states are alive (contract).
        unsafe { state_uncount(self.state, false) }
    }
}

impl<'t, T> TaskArgs<'t> for RawTileWrite<T> {
    type Args = &'t mut [T];

    unsafe fn borrow(&'t mut self) -> &'t mut [T] {
        // SAFETY: `ptr..ptr+len` is one tile of a slice borrowed mutably for
        // the scope, disjoint from every other tile; no other task accessing
        // this tile's region is live, and this task names it once (the
        // invariant in `task.rs`).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    unsafe fn any_poisoned(&self) -> bool {
        // SAFETY: the states are alive (contract).
        unsafe { state_poisoned(self.state) }
    }

    unsafe fn poison_writes(&self) {
        // SAFETY: the states are alive (contract).
        unsafe { state_poison(self.state) }
    }

    unsafe fn is_idle(&self) -> bool {
        // SAFETY: the states are alive (contract).
        unsafe { state_idle(self.state, true) }
    }

    unsafe fn count_live(&self) {
        // SAFETY: the states are alive (contract).
        unsafe { state_count(self.state, true) }
    }

    unsafe fn uncount_live(&self) {
        // SAFETY: the states are alive (contract).
        unsafe { state_uncount(self.state, true) }
    }
}

macro_rules! tile_token {
    ($token:ident, $raw:ident, $mode:expr, $($bound:tt)+) => {
        impl<T> Sealed for $token<'_, '_, T> {}

        impl<'a, 'df, T: $($bound)+ + 'df> Accesses<'df> for $token<'a, 'df, T> {
            const COUNT: usize = 1;
            type Raw = $raw<T>;

            #[inline]
            fn into_raw(self, regions: &mut [(RegionId, AccessMode)]) -> $raw<T> {
                regions[0] = (self.tiles.region(self.index), $mode);
                let (ptr, len) = self.tiles.tile_range(self.index);
                $raw {
                    ptr: ptr as _,
                    len,
                    state: self.tiles.region_state(self.index),
                }
            }
        }
    };
}

tile_token!(TileIn, RawTileRead, AccessMode::In, Send + Sync);
tile_token!(TileOut, RawTileWrite, AccessMode::Out, Send);
tile_token!(TileInOut, RawTileWrite, AccessMode::InOut, Send);

// ---------------------------------------------------------------------------
// No accesses, and tuples.

/// The raw form of "no accesses" (and of `()` in tuples).
pub struct RawNone {
    _private: PhantomData<()>,
}

impl Sealed for () {}
impl Sealed for RawNone {}

impl<'df> Accesses<'df> for () {
    const COUNT: usize = 0;
    type Raw = RawNone;

    #[inline]
    fn into_raw(self, _regions: &mut [(RegionId, AccessMode)]) -> RawNone {
        RawNone {
            _private: PhantomData,
        }
    }
}

impl<'t> TaskArgs<'t> for RawNone {
    type Args = ();

    unsafe fn borrow(&'t mut self) {}

    unsafe fn any_poisoned(&self) -> bool {
        false
    }

    unsafe fn poison_writes(&self) {}

    unsafe fn is_idle(&self) -> bool {
        true
    }

    unsafe fn count_live(&self) {}

    unsafe fn uncount_live(&self) {}
}

macro_rules! tuple_accesses {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Sealed),+> Sealed for ($($name,)+) {}

        impl<'df, $($name: Accesses<'df>),+> Accesses<'df> for ($($name,)+) {
            const COUNT: usize = 0 $(+ $name::COUNT)+;
            type Raw = ($($name::Raw,)+);

            #[inline]
            fn into_raw(self, regions: &mut [(RegionId, AccessMode)]) -> Self::Raw {
                let mut start = 0;
                ($(
                    {
                        let end = start + $name::COUNT;
                        let raw = self.$index.into_raw(&mut regions[start..end]);
                        #[allow(unused_assignments)]
                        {
                            start = end;
                        }
                        raw
                    },
                )+)
            }
        }

        impl<'t, $($name: TaskArgs<'t>),+> TaskArgs<'t> for ($($name,)+) {
            type Args = ($($name::Args,)+);

            unsafe fn borrow(&'t mut self) -> Self::Args {
                // SAFETY: this tuple's contract is each element's (the task is
                // handed out and live: links 1–7 of `task.rs`), and the
                // elements are distinct fields, so their borrows are disjoint
                // (link 4).
                unsafe { ($(self.$index.borrow(),)+) }
            }

            unsafe fn any_poisoned(&self) -> bool {
                // SAFETY: the handles' states outlive the live task (link 7
                // of `task.rs`): each element's contract is this one's.
                unsafe { false $(|| self.$index.any_poisoned())+ }
            }

            unsafe fn poison_writes(&self) {
                // SAFETY: the handles' states outlive the live task (link 7
                // of `task.rs`): each element's contract is this one's.
                unsafe { $(self.$index.poison_writes();)+ }
            }

            unsafe fn is_idle(&self) -> bool {
                // SAFETY: the handles' states are alive (link 7 of
                // `task.rs`): each element's contract is this one's.
                unsafe { true $(&& self.$index.is_idle())+ }
            }

            unsafe fn count_live(&self) {
                // SAFETY: the handles' states are alive (link 7 of
                // `task.rs`): each element's contract is this one's.
                unsafe { $(self.$index.count_live();)+ }
            }

            unsafe fn uncount_live(&self) {
                // SAFETY: the handles' states are alive (link 7 of
                // `task.rs`): each element's contract is this one's.
                unsafe { $(self.$index.uncount_live();)+ }
            }
        }
    };
}

tuple_accesses!(A 0);
tuple_accesses!(A 0, B 1);
tuple_accesses!(A 0, B 1, C 2);
tuple_accesses!(A 0, B 1, C 2, D 3);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_accesses!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// Rejects a task that names one region twice when either access writes it:
/// its body would receive two borrows of one value, one of them mutable.
/// Two `in` accesses to one region are fine (two shared borrows; the graph
/// merges them into one `in` access).
///
/// # Panics
/// With a message naming both modes, before anything is registered.
pub(crate) fn check_duplicates(regions: &[(RegionId, AccessMode)]) {
    for (i, &(region, mode)) in regions.iter().enumerate() {
        for &(other, other_mode) in &regions[i + 1..] {
            if region == other && (mode.is_write() || other_mode.is_write()) {
                duplicate_panic(mode, other_mode);
            }
        }
    }
}

#[cold]
#[inline(never)]
fn duplicate_panic(first: AccessMode, second: AccessMode) -> ! {
    panic!(
        "prescient::dataflow: a task names the same data twice, as {} and {}; its body \
         would get two borrows of one value, one of them mutable. Name it once, with \
         the strongest mode it needs ({}). The task was not submitted.",
        mode_name(first),
        mode_name(second),
        mode_name(AccessMode::strongest(first, second)),
    )
}

fn mode_name(mode: AccessMode) -> &'static str {
    match mode {
        AccessMode::In => "`in` (read)",
        AccessMode::Out => "`out`",
        AccessMode::InOut => "`inout`",
    }
}

/// The raw accesses on real handles, without a runtime (a scope's state is
/// built by hand; no task is run by the graph): the borrows tasks get, the
/// live counts and poisoning, on several threads at once as workers would;
/// and the scope's live count (`state.rs`) with a handle retired while its
/// tasks run, the owner parking as a plain thread does. Here, at the top of
/// the module's chain, because they use every file below. Their names
/// contain `miri_`, the filter of CI's Miri stage, whose borrow, data-race
/// and use-after-free checks watch them.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::dataflow::handle::{Data, Slot, Tiles};
    use crate::dataflow::scope_core::ScopeCore;
    use crate::dataflow::state::LiveCount;
    use crate::scheduler::registry::Registry;

    /// A dataflow scope's state, with a registry whose workers never start.
    fn scope_core() -> ScopeCore {
        ScopeCore::new(Registry::without_threads(2))
    }

    /// The raw form of `accesses`, as a task's submission makes it, after
    /// the duplicate check.
    fn raw<'df, A: Accesses<'df>>(accesses: A) -> A::Raw {
        let mut regions = [(RegionId(u64::MAX), AccessMode::In); MAX_ACCESSES];
        let raw = accesses.into_raw(&mut regions[..A::COUNT]);
        check_duplicates(&regions[..A::COUNT]);
        raw
    }

    #[test]
    fn miri_tasks_borrow_values_and_disjoint_tiles_on_several_threads() {
        let mut backing = vec![0u32; 10];
        let core = scope_core();
        let mut numbers = Data::new(&core, vec![1u64, 2, 3]);
        let mut text = Data::new(&core, String::from("x"));
        let mut tiles = Tiles::new(&core, &mut backing, 3);
        assert_eq!(tiles.len(), 4);
        // Two readers of `numbers` and tile 0, and two writers of disjoint
        // regions, all live at once, as the graph would let them be.
        let mut readers = [
            raw((numbers.read(), tiles.read(0))),
            raw((numbers.read(), tiles.read(0))),
        ];
        let mut writers = (
            raw((text.inout(), tiles.out(1))),
            raw((tiles.inout(2), tiles.out(3))),
        );
        // SAFETY: the handles' values and region states are alive (the
        // handles outlive every use of the raw accesses in this test), and
        // only this thread counts.
        unsafe {
            for reader in &readers {
                assert!(reader.is_idle() && !reader.any_poisoned());
                reader.count_live();
            }
            assert!(writers.0.is_idle() && writers.1.is_idle());
            writers.0.count_live();
            writers.1.count_live();
            // A writer of a region with live readers, or a reader of a
            // region with a live writer, may not run.
            assert!(!raw(numbers.out()).is_idle());
            assert!(raw(numbers.read()).is_idle());
            assert!(!raw(tiles.read(1)).is_idle());
            assert!(!raw(text.read()).is_idle());
        }
        std::thread::scope(|s| {
            for reader in &mut readers {
                s.spawn(move || {
                    // SAFETY: the values are alive (the handles outlive the
                    // scoped threads) and no task writing `numbers` or tile
                    // 0 is live (the counts above): shared borrows.
                    let (numbers, tile) = unsafe { reader.borrow() };
                    assert_eq!(numbers.iter().sum::<u64>(), 6);
                    assert_eq!(tile, [0, 0, 0]);
                    // SAFETY: the states are alive (as for the borrow); this
                    // task's count, released once, after the borrow's use.
                    unsafe { reader.uncount_live() };
                });
            }
            let (first, second) = &mut writers;
            s.spawn(move || {
                // SAFETY: alive as above, and no other task accessing `text`
                // or tile 1 is live: exclusive borrows.
                let (text, tile) = unsafe { first.borrow() };
                text.push('y');
                tile.fill(1);
                // SAFETY: the states are alive; this task's count, once.
                unsafe { first.uncount_live() };
            });
            s.spawn(move || {
                // SAFETY: alive as above, and no other task accessing tiles
                // 2 or 3 is live: exclusive borrows of disjoint tiles.
                let (tile, last) = unsafe { second.borrow() };
                tile.fill(2);
                last.fill(3);
                // A task that panics poisons what it writes.
                // SAFETY: the states are alive; this task's count, once.
                unsafe {
                    second.poison_writes();
                    second.uncount_live();
                }
            });
        });
        // SAFETY: the region states are alive (the handles are), and the
        // scoped threads are joined.
        unsafe {
            assert!(raw(numbers.out()).is_idle());
            assert!(raw((text.inout(), tiles.inout(1))).is_idle());
            assert!(!raw(tiles.read(1)).any_poisoned());
            assert!(raw(tiles.read(2)).any_poisoned());
            assert!(raw((numbers.read(), tiles.read(3))).any_poisoned());
        }
        assert!(tiles.is_poisoned(3) && !tiles.is_poisoned(0));
        tiles.clear_poison();
        assert_eq!(tiles.get_mut(), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
        assert_eq!(text.get_mut(), "xy");
        assert_eq!(numbers.get_mut(), &[1, 2, 3]);
    }

    #[test]
    fn miri_naming_a_written_region_twice_is_refused() {
        let core = scope_core();
        let data = Data::new(&core, 0u8);
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            raw((data.read(), data.inout()))
        }));
        assert!(refused.is_err());
        // Two reads are fine.
        let _ = raw((data.read(), data.read()));
    }

    /// A value that checks, when freed, that the tasks' writes reached it.
    struct Checked([u64; 4]);

    impl Drop for Checked {
        fn drop(&mut self) {
            assert_eq!(self.0, [1, 2, 3, 4], "freed before the tasks wrote it");
        }
    }

    /// Tasks on other threads write into a value whose handle the owner
    /// drops while they are live (the value is retired to the scope), then
    /// release their counts as their last access; the owner's wait — asleep
    /// or not, depending on how far the tasks got — frees the value only
    /// after them. Two tasks, each started after `delay` yields of the
    /// owner's, so that both of the owner's paths are taken.
    #[test]
    fn miri_a_value_dropped_while_tasks_are_live_is_freed_after_them() {
        struct SlotPtr(*const Slot<Checked>, *const LiveCount);
        // SAFETY: the test's tasks use the pointers as the runtime's do:
        // the slot and the count stay alive until the owner's wait returns.
        unsafe impl Send for SlotPtr {}
        for delay in [0, 3, 50] {
            let core = scope_core();
            let data = Data::new(&core, Checked([0; 4]));
            let live = &core.shared.live as *const LiveCount;
            std::thread::scope(|s| {
                for half in 0..2 {
                    core.shared.live.increment();
                    let task = SlotPtr(data.slot(), live);
                    s.spawn(move || {
                        let task = task;
                        for _ in 0..delay {
                            std::thread::yield_now();
                        }
                        // SAFETY: the slot is alive while this task is live
                        // (its count is held), and the two tasks write
                        // disjoint halves through raw places (no `&mut`
                        // to the whole value).
                        unsafe {
                            let value = (*task.0).value.get();
                            for word in [2 * half, 2 * half + 1] {
                                std::ptr::addr_of_mut!((*value).0[word]).write(word as u64 + 1);
                            }
                        }
                        // SAFETY: this task's count, released as its last
                        // access to the scope.
                        unsafe { LiveCount::decrement(task.1) };
                    });
                }
                // Retired: tasks are live.
                drop(data);
                assert!(core.wait_all().is_none());
                assert!(core.shared.live.is_zero());
            });
        }
    }
}
