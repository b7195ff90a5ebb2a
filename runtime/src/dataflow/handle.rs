//! Data handles: [`Data`] owns one value for the runtime; [`Tiles`] splits
//! one borrowed slice into tiles with one handle (region) each.
//!
//! A handle's value is reachable only through task bodies (which the
//! dependency graph orders) and, on the scope's own thread, through
//! [`Data::get_mut`] / [`Data::into_inner`] / [`Tiles::get_mut`], which first
//! wait for every task of the scope. Handles are `!Send`, so a task cannot
//! capture one (it could only wait for its own scope from inside it), and
//! branded with the scope's invariant lifetime `'df`, so they can neither
//! leave their scope nor be named by another scope's tasks.
//!
//! Memory: a handle's value (or a tile set's region states) must outlive every
//! task that accesses it. Dropping a handle while tasks of the scope are live
//! therefore *retires* the allocation to the scope, which frees it at its next
//! wait; with no live task it is freed at once.

use super::scope_core::{OwnerThreadOnly, ScopeCore};
use prescient_graph::RegionId;
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A scope's brand: invariant in `'df`, so handles of two scopes never unify.
type Brand<'df> = &'df mut &'df ();

/// What the runtime tracks per region (one [`Data`] value or one tile).
pub(crate) struct RegionState {
    /// Set when a task writing the region panicked or was cancelled.
    pub(crate) poisoned: AtomicBool,
    /// Registered, unfinished tasks accessing the region: readers in the low
    /// 32 bits, writers (`out`/`inout`) from bit 32 (see `access.rs`).
    pub(crate) live: AtomicU64,
}

impl RegionState {
    fn new() -> RegionState {
        RegionState {
            poisoned: AtomicBool::new(false),
            live: AtomicU64::new(0),
        }
    }
}

/// The heap cell of a [`Data`] handle.
pub(crate) struct Slot<T> {
    pub(crate) value: UnsafeCell<T>,
    pub(crate) state: RegionState,
}

/// A value owned by a dataflow scope, which tasks access by declaring
/// [`read`](Data::read) (`in`), [`out`](Data::out) or [`inout`](Data::inout)
/// accesses. Made by [`Dataflow::data`](crate::dataflow::Dataflow::data).
///
/// After the scope's tasks are done, the value is readable again through
/// [`get_mut`](Data::get_mut) or [`into_inner`](Data::into_inner) (both wait
/// for the scope's tasks first, as [`Dataflow::wait`](crate::dataflow::Dataflow::wait)
/// does).
///
/// # Poisoning
/// When a task that writes the value (`out`/`inout`) panics, or is cancelled
/// because data it needed was poisoned, the value is *poisoned*: later tasks
/// that access it are cancelled (their bodies do not run), and
/// [`get_mut`](Data::get_mut) / [`into_inner`](Data::into_inner) panic.
/// [`clear_poison`](Data::clear_poison) accepts the value as it is.
pub struct Data<'df, T> {
    slot: SlotPtr<T>,
    region: RegionId,
    scope: &'df ScopeCore,
    /// Invariant in `'df` (the scope's brand).
    _brand: PhantomData<Brand<'df>>,
    /// Invariant in `T`: tasks write `T` through `&mut T`.
    _value: PhantomData<fn(T) -> T>,
    _owner_thread: OwnerThreadOnly,
}

/// The owning pointer to a [`Data`] handle's slot.
struct SlotPtr<T>(NonNull<Slot<T>>);

// SAFETY: only an address; `Data` itself is `!Send`/`!Sync` through its
// `OwnerThreadOnly` marker, which is the one reason the compiler gives.
unsafe impl<T> Send for SlotPtr<T> {}
// SAFETY: only an address, shared by nothing but its `!Sync` `Data` (its
// `OwnerThreadOnly` marker); tasks reach the slot through their accesses,
// under links 1–7 of `task.rs`.
unsafe impl<T> Sync for SlotPtr<T> {}

impl<'df, T> Data<'df, T> {
    pub(crate) fn new(scope: &'df ScopeCore, value: T) -> Data<'df, T> {
        let slot = Box::new(Slot {
            value: UnsafeCell::new(value),
            state: RegionState::new(),
        });
        Data {
            // SAFETY: `Box::into_raw` never returns null.
            slot: SlotPtr(unsafe { NonNull::new_unchecked(Box::into_raw(slot)) }),
            region: RegionId(scope.new_regions(1)),
            scope,
            _brand: PhantomData,
            _value: PhantomData,
            _owner_thread: PhantomData,
        }
    }

    pub(crate) fn region(&self) -> RegionId {
        self.region
    }

    pub(crate) fn slot(&self) -> *const Slot<T> {
        self.slot.0.as_ptr()
    }

    /// Whether a task writing this value panicked or was cancelled (see the
    /// type's documentation). Tasks still running may change the answer.
    pub fn is_poisoned(&self) -> bool {
        // SAFETY: the slot is alive while the handle is.
        unsafe { self.slot.0.as_ref() }
            .state
            .poisoned
            .load(Ordering::Acquire)
    }

    /// Waits for every task of the scope (as [`Dataflow::wait`] does, so a
    /// task's panic is re-raised here), then borrows the value.
    ///
    /// The borrow of `self` keeps tasks on this handle from being submitted
    /// while the value is borrowed.
    ///
    /// # Panics
    /// If a task of the scope panicked since the last wait (re-raised), or if
    /// the value is poisoned.
    ///
    /// [`Dataflow::wait`]: crate::dataflow::Dataflow::wait
    pub fn get_mut(&mut self) -> &mut T {
        self.scope.wait();
        self.check_poison();
        // SAFETY: no task of the scope is live (we waited, and only this
        // thread submits), and `&mut self` stops new tasks on this handle
        // until the borrow ends.
        unsafe { &mut *self.slot.0.as_ref().value.get() }
    }

    /// Waits for every task of the scope (as [`Dataflow::wait`] does), then
    /// returns the value.
    ///
    /// # Panics
    /// If a task of the scope panicked since the last wait (re-raised), or if
    /// the value is poisoned.
    ///
    /// [`Dataflow::wait`]: crate::dataflow::Dataflow::wait
    pub fn into_inner(self) -> T {
        self.scope.wait();
        self.check_poison();
        let slot = self.slot.0.as_ptr();
        std::mem::forget(self);
        // SAFETY: the slot came from `Box::into_raw`, no task is live (we
        // waited), and forgetting `self` leaves us the only owner.
        unsafe { Box::from_raw(slot) }.value.into_inner()
    }

    /// Waits for every task of the scope, then clears the poison flag:
    /// later tasks see the value as it is.
    pub fn clear_poison(&mut self) {
        self.scope.wait();
        // SAFETY: the slot is alive while the handle is.
        unsafe { self.slot.0.as_ref() }
            .state
            .poisoned
            .store(false, Ordering::Release);
    }

    fn check_poison(&self) {
        if self.is_poisoned() {
            panic!(
                "prescient::dataflow: this data is poisoned: a task writing it panicked \
                 or was cancelled (Data::clear_poison accepts it as it is)"
            );
        }
    }
}

impl<T> Drop for Data<'_, T> {
    fn drop(&mut self) {
        let slot = self.slot.0.as_ptr();
        if self.scope.shared.live.is_zero() {
            // SAFETY: no task is live, so none uses the slot; we own it.
            drop(unsafe { Box::from_raw(slot) });
        } else {
            // SAFETY: `free_box::<Slot<T>>` matches the pointer's type, and the
            // scope frees it only when no task is live.
            unsafe { self.scope.retire(slot.cast(), free_box::<Slot<T>>) };
        }
    }
}

impl<T> fmt::Debug for Data<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Data")
            .field("region", &self.region.0)
            .field("poisoned", &self.is_poisoned())
            .finish_non_exhaustive()
    }
}

/// Frees a `Box<B>` given as an erased pointer.
///
/// # Safety
/// `pointer` came from `Box::<B>::into_raw` and is freed once.
pub(crate) unsafe fn free_box<B>(pointer: *mut ()) {
    // SAFETY: `pointer` came from `Box::<B>::into_raw` and this is its one
    // free (this function's contract).
    drop(unsafe { Box::from_raw(pointer.cast::<B>()) });
}

/// The region states of a [`Tiles`] handle, one per tile; boxed once more so
/// that a thin erased pointer can retire them (see [`free_box`]).
struct TileStates {
    states: Box<[RegionState]>,
}

/// One slice split into tiles of `tile_len` elements (the last may be
/// shorter), with one handle — one dependency region — per tile: what OpenMP
/// programs write as `depend(inout: A[i*bs])`. Made by
/// [`Dataflow::tiles`](crate::dataflow::Dataflow::tiles).
///
/// Tasks access single tiles with [`read`](Tiles::read), [`out`](Tiles::out)
/// and [`inout`](Tiles::inout) and receive `&[T]` / `&mut [T]`. The slice
/// stays in its one allocation; after the tasks are done,
/// [`get_mut`](Tiles::get_mut) borrows all of it again (and so does its owner,
/// once the scope has ended). Poisoning works per tile, as for [`Data`].
pub struct Tiles<'df, T> {
    ptr: TilePtr<T>,
    elements: usize,
    tile_len: usize,
    count: usize,
    base_region: u64,
    states: StatesPtr,
    scope: &'df ScopeCore,
    /// Borrows the slice mutably for the scope; invariant in `'df` (brand).
    _marker: PhantomData<(&'df mut [T], Brand<'df>)>,
    _owner_thread: OwnerThreadOnly,
}

/// The start of a [`Tiles`] handle's slice.
struct TilePtr<T>(*mut T);
/// The owning pointer to a [`Tiles`] handle's region states.
struct StatesPtr(NonNull<TileStates>);

// SAFETY: only an address; `Tiles` itself is `!Send`/`!Sync` through its
// `OwnerThreadOnly` marker, which is the one reason the compiler gives.
unsafe impl<T> Send for TilePtr<T> {}
// SAFETY: only an address, shared by nothing but its `!Sync` `Tiles` (its
// `OwnerThreadOnly` marker); tasks reach the tiles through their accesses,
// under links 1–7 of `task.rs`.
unsafe impl<T> Sync for TilePtr<T> {}
// SAFETY: only an address, owned by its `!Send` `Tiles`, which is the one
// reason the compiler gives.
unsafe impl Send for StatesPtr {}
// SAFETY: only an address; tasks reach the states through their accesses,
// under links 1–7 of `task.rs`.
unsafe impl Sync for StatesPtr {}

impl<'df, T> Tiles<'df, T> {
    pub(crate) fn new(scope: &'df ScopeCore, slice: &'df mut [T], tile_len: usize) -> Self {
        assert!(
            tile_len > 0,
            "prescient::dataflow: a tile must hold at least one element"
        );
        let tiles = slice.len().div_ceil(tile_len);
        let states = Box::new(TileStates {
            states: (0..tiles).map(|_| RegionState::new()).collect(),
        });
        Tiles {
            ptr: TilePtr(slice.as_mut_ptr()),
            elements: slice.len(),
            tile_len,
            count: tiles,
            base_region: scope.new_regions(tiles as u64),
            // SAFETY: `Box::into_raw` never returns null.
            states: StatesPtr(unsafe { NonNull::new_unchecked(Box::into_raw(states)) }),
            scope,
            _marker: PhantomData,
            _owner_thread: PhantomData,
        }
    }

    /// The number of tiles.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are no tiles (the slice is empty).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The number of elements per tile (the last tile may hold fewer).
    pub fn tile_len(&self) -> usize {
        self.tile_len
    }

    pub(crate) fn check_index(&self, index: usize) {
        assert!(
            index < self.count,
            "prescient::dataflow: tile index {index} out of range ({} tiles)",
            self.count
        );
    }

    pub(crate) fn region(&self, index: usize) -> RegionId {
        RegionId(self.base_region + index as u64)
    }

    /// The start and length of tile `index` (checked by the caller).
    pub(crate) fn tile_range(&self, index: usize) -> (*mut T, usize) {
        let start = index * self.tile_len;
        let len = self.tile_len.min(self.elements - start);
        // SAFETY: `start < self.elements` for a valid index, so the offset stays
        // inside the slice.
        (unsafe { self.ptr.0.add(start) }, len)
    }

    pub(crate) fn region_state(&self, index: usize) -> *const RegionState {
        &self.states()[index]
    }

    fn states(&self) -> &[RegionState] {
        // SAFETY: the states are alive while the handle is.
        unsafe { &self.states.0.as_ref().states }
    }

    /// Whether tile `index` is poisoned (a task writing it panicked or was
    /// cancelled).
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn is_poisoned(&self, index: usize) -> bool {
        self.check_index(index);
        self.states()[index].poisoned.load(Ordering::Acquire)
    }

    /// Waits for every task of the scope (as
    /// [`Dataflow::wait`](crate::dataflow::Dataflow::wait) does), then borrows the
    /// whole slice.
    ///
    /// # Panics
    /// If a task of the scope panicked since the last wait (re-raised), or if
    /// any tile is poisoned.
    pub fn get_mut(&mut self) -> &mut [T] {
        self.scope.wait();
        if let Some(index) = self
            .states()
            .iter()
            .position(|s| s.poisoned.load(Ordering::Acquire))
        {
            panic!(
                "prescient::dataflow: tile {index} is poisoned: a task writing it panicked \
                 or was cancelled (Tiles::clear_poison accepts it as it is)"
            );
        }
        // SAFETY: no task is live (we waited; only this thread submits), and
        // `&mut self` stops new tasks on these tiles while the borrow lives;
        // the slice is borrowed mutably for `'df`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.0, self.elements) }
    }

    /// Waits for every task of the scope, then clears every tile's poison
    /// flag.
    pub fn clear_poison(&mut self) {
        self.scope.wait();
        for state in self.states() {
            state.poisoned.store(false, Ordering::Release);
        }
    }
}

impl<T> Drop for Tiles<'_, T> {
    fn drop(&mut self) {
        let states = self.states.0.as_ptr();
        if self.scope.shared.live.is_zero() {
            // SAFETY: no task is live, so none reads the states; we own them.
            drop(unsafe { Box::from_raw(states) });
        } else {
            // SAFETY: the pointer came from `Box::<TileStates>::into_raw`;
            // the scope frees it when no task is live.
            unsafe { self.scope.retire(states.cast(), free_box::<TileStates>) };
        }
    }
}

impl<T> fmt::Debug for Tiles<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tiles")
            .field("tiles", &self.count)
            .field("tile_len", &self.tile_len)
            .field("elements", &self.elements)
            .finish_non_exhaustive()
    }
}
