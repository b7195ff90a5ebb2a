//! Process-wide spawn-site identities: a dense id per site, shared by every
//! runtime in the process.
//!
//! A site is one place in the source that forks work: a `join`/`spawn` that
//! `#[task_program]` rewrote (it passes its `SpawnSite` static, whose
//! [`SiteSlot`] caches the id after the first call), or any other
//! `join`/`spawn` call, identified by its `#[track_caller]` location (each
//! worker keeps a map location → id, `LocationIds` in `mod.rs`). Both kinds
//! are keyed by (file, line, column) in one directory, so a site has one id
//! whichever way it is reached.
//!
//! Ids are dense and never reused, so per-site state everywhere else is an
//! array indexed by id (`table.rs`). The directory is behind a mutex, which
//! only a site's first cache miss takes: once per process for a static (or
//! once per thread that races to register it), once per worker for a
//! location; never the hot path (`SiteCache::inline_hit`, `WorkerSites::route`).

use super::table::MAX_SITES;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Entries of a worker's site cache (`super::SiteCache`), which
/// [`SiteKey::cache_slot`] indexes.
pub(super) const CACHE_LEN: usize = 64;

/// A dense spawn-site id, below [`MAX_SITES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SiteId(pub(super) u32);

impl SiteId {
    /// The id at `index` of a `SiteTable` (an id that was registered).
    pub(crate) fn from_index(index: usize) -> SiteId {
        SiteId(index as u32)
    }

    /// The id as an index into a `SiteTable`.
    #[inline(always)]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the process knows about a site: where it is and, for a site that
/// `#[task_program]` analysed, the analysis' description.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SiteDescriptor {
    pub(crate) file: &'static str,
    pub(crate) line: u32,
    pub(crate) column: u32,
    /// The annotated module and the function holding the site, for an
    /// analysed site.
    pub(crate) module: Option<&'static str>,
    pub(crate) function: Option<&'static str>,
    /// The analyzer's static effort estimate of one task of the site.
    pub(crate) static_effort: Option<u64>,
}

impl SiteDescriptor {
    /// A site known only by its call location.
    pub(crate) fn at(location: &'static Location<'static>) -> SiteDescriptor {
        SiteDescriptor {
            file: location.file(),
            line: location.line(),
            column: location.column(),
            module: None,
            function: None,
            static_effort: None,
        }
    }
}

/// Every site registered in the process, by id and by location.
struct Directory {
    sites: Vec<SiteDescriptor>,
    by_location: HashMap<(&'static str, u32, u32), SiteId>,
}

static DIRECTORY: Mutex<Option<Directory>> = Mutex::new(None);

fn directory() -> MutexGuard<'static, Option<Directory>> {
    // A panic while the lock is held cannot leave the directory half
    // updated (each update is one push and one insert), so poisoning is
    // ignored.
    DIRECTORY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The id of the site described by `descriptor`, registering it on first
/// sight; `None` once [`MAX_SITES`] sites exist (the rest go untracked).
/// An analysed description replaces a location-only one registered first.
pub(crate) fn register(descriptor: SiteDescriptor) -> Option<SiteId> {
    let mut guard = directory();
    let directory = guard.get_or_insert_with(|| Directory {
        sites: Vec::new(),
        by_location: HashMap::new(),
    });
    let key = (descriptor.file, descriptor.line, descriptor.column);
    if let Some(&id) = directory.by_location.get(&key) {
        if descriptor.static_effort.is_some() {
            directory.sites[id.index()] = descriptor;
        }
        return Some(id);
    }
    if directory.sites.len() >= MAX_SITES {
        return None;
    }
    let id = SiteId(directory.sites.len() as u32);
    directory.sites.push(descriptor);
    directory.by_location.insert(key, id);
    Some(id)
}

/// The description of a registered site.
pub(crate) fn describe(id: SiteId) -> Option<SiteDescriptor> {
    directory().as_ref()?.sites.get(id.index()).copied()
}

/// The identity of a `SpawnSite` static: its description (built at compile
/// time) and its id, 0 until the site is registered, then id + 1, or
/// `UNTRACKED` when the directory was full.
#[derive(Debug)]
pub(crate) struct SiteSlot {
    id: AtomicU32,
    descriptor: SiteDescriptor,
}

const UNTRACKED: u32 = u32::MAX;

impl SiteSlot {
    /// An unregistered slot (what `SpawnSite::new` puts in the static).
    pub(crate) const fn new(descriptor: SiteDescriptor) -> SiteSlot {
        SiteSlot {
            id: AtomicU32::new(0),
            descriptor,
        }
    }

    /// The site's id, registering it on first use. Relaxed: the id is a
    /// plain number, the same for every thread that registers the same site
    /// (the directory's mutex orders registration).
    #[inline(always)]
    pub(crate) fn id(&self) -> Option<SiteId> {
        let value = self.id.load(Ordering::Relaxed);
        if value != 0 && value != UNTRACKED {
            return Some(SiteId(value - 1));
        }
        if value == UNTRACKED {
            return None;
        }
        self.register()
    }

    #[cold]
    #[inline(never)]
    fn register(&self) -> Option<SiteId> {
        let id = register(self.descriptor);
        self.id
            .store(id.map_or(UNTRACKED, |id| id.0 + 1), Ordering::Relaxed);
        id
    }
}

/// Which site a `join` or `spawn` is: how the runtime finds its id.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SiteKey {
    /// A plain call, by its `#[track_caller]` location.
    Location(&'static Location<'static>),
    /// A `#[task_program]` site, by its static.
    Static(&'static SiteSlot),
}

impl SiteKey {
    /// The site's address: the key of a worker's site cache.
    #[inline(always)]
    pub(crate) fn address(self) -> usize {
        match self {
            SiteKey::Location(location) => location as *const Location<'static> as usize,
            SiteKey::Static(slot) => slot as *const SiteSlot as usize,
        }
    }

    /// The site's entry in a worker's site cache (`CACHE_LEN` entries):
    /// bits of its address — `Location`s (24 bytes, side by side in
    /// read-only data) and `SpawnSite` statics, so the bits above the
    /// alignment spread them. Three instructions in an out-of-line `join`,
    /// where the address is an argument; a hash of a location's line and
    /// column (which would fold where `join` is inlined) cost five there.
    #[inline(always)]
    pub(crate) fn cache_slot(self) -> usize {
        (self.address() >> 3) % CACHE_LEN
    }

    /// The site's id, registering it on first sight (a location is looked
    /// up in the directory: callers cache the result).
    pub(crate) fn id(self) -> Option<SiteId> {
        match self {
            SiteKey::Location(location) => register(SiteDescriptor::at(location)),
            SiteKey::Static(slot) => slot.id(),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The location of the call to `here`: a fresh site per call.
    #[track_caller]
    pub(in crate::inlining) fn here() -> &'static Location<'static> {
        Location::caller()
    }

    #[test]
    fn a_location_has_one_id_however_reached() {
        let location = here();
        let id = SiteKey::Location(location).id().unwrap();
        assert_eq!(SiteKey::Location(location).id(), Some(id));
        let slot = SiteSlot::new(SiteDescriptor {
            static_effort: Some(6),
            function: Some("f"),
            ..SiteDescriptor::at(location)
        });
        assert_eq!(slot.id(), Some(id));
        assert_eq!(slot.id(), Some(id));
        assert_eq!(describe(id).unwrap().static_effort, Some(6));
        let other = here();
        assert_ne!(SiteKey::Location(other).id(), Some(id));
    }
}
