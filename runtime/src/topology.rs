//! Machine topology and worker pinning.
//!
//! This module answers three questions for the runtime:
//!
//! 1. **What does the machine look like?** [`detect`] returns a plain
//!    [`Topology`] (packages → cores → PUs, plus a NUMA node count). With the
//!    cargo feature `hwloc` it asks hwloc; without it, or when hwloc fails, it
//!    builds a flat description from the OS (one package, one core per CPU in
//!    the process's affinity mask).
//! 2. **Which PU does worker *i* get?** [`worker_pus`] is a *pure* function of a
//!    topology description, a [`Pinning`] policy and a worker count, so it is
//!    tested on `Topology::synthetic` multi-socket machines that CI does not
//!    have.
//! 3. **How is a thread bound?** `pin_current_thread` calls
//!    `sched_setaffinity` on the calling thread, with or without hwloc.
//!
//! hwloc2 2.2.0 has known unsound calls: `objects_with_type(NUMANode)` panics,
//! the `Display` of a topology object writes past a 1-byte buffer, and
//! `TopologyObject::name()` frees memory that hwloc owns. Every hwloc call of
//! the runtime lives in the private `hwloc_backend` module below and uses only
//! the sound subset: `Topology::new`, `objects_with_type` for packages, cores
//! and PUs, object cpusets, `os_index` and the root object's nodeset weight.

use std::fmt;
use std::io;

use crate::params::Pinning;

/// A description of the machine: packages (sockets), their cores, and the
/// processing units (PUs, hardware threads) of each core.
///
/// Only PUs this process may run on are listed (PUs outside the process's
/// affinity mask are left out, as are cores and packages left with none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// The packages (sockets), in hwloc's logical order.
    pub packages: Vec<Package>,
    /// How many NUMA nodes the machine has (at least 1).
    pub numa_nodes: usize,
    /// Where this description came from.
    pub source: TopologySource,
}

/// One physical package (socket).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// The cores of this package, in logical order.
    pub cores: Vec<Core>,
}

/// One physical core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Core {
    /// The OS processor indices (the numbers `sched_setaffinity` and
    /// `/proc/cpuinfo` use) of this core's PUs, the first hardware thread first.
    pub pus: Vec<usize>,
}

/// Where a [`Topology`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopologySource {
    /// Discovered by hwloc (cargo feature `hwloc`).
    #[cfg_attr(not(feature = "hwloc"), allow(dead_code))]
    Hwloc,
    /// Built without hwloc: the flat OS fallback (one package, one core per
    /// CPU of the affinity mask) or a `Topology::synthetic` description.
    Os,
}

impl TopologySource {
    /// A short name for reports: `hwloc` or `OS`.
    pub const fn name(self) -> &'static str {
        match self {
            TopologySource::Hwloc => "hwloc",
            TopologySource::Os => "OS",
        }
    }
}

impl fmt::Display for TopologySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Topology {
    /// The number of packages (sockets).
    pub fn num_packages(&self) -> usize {
        self.packages.len()
    }

    /// The number of cores over all packages.
    pub fn num_cores(&self) -> usize {
        self.packages.iter().map(|p| p.cores.len()).sum()
    }

    /// The number of PUs (hardware threads) over all cores.
    pub fn num_pus(&self) -> usize {
        self.packages
            .iter()
            .flat_map(|p| &p.cores)
            .map(|c| c.pus.len())
            .sum()
    }

    /// Every PU's OS index, package by package, core by core.
    #[cfg(test)]
    pub fn pus(&self) -> impl Iterator<Item = usize> + '_ {
        self.packages
            .iter()
            .flat_map(|p| &p.cores)
            .flat_map(|c| c.pus.iter().copied())
    }

    /// A regular machine of `packages` × `cores_per_package` ×
    /// `pus_per_core`, numbered as Linux numbers PUs: the first PU of every
    /// core first, then the second hardware threads, and so on. The PU of
    /// package `p`, core `c`, hardware thread `t` is
    /// `t * (packages * cores_per_package) + p * cores_per_package + c`.
    ///
    /// It has one NUMA node per package (at least one) and reports
    /// [`TopologySource::Os`].
    #[cfg(test)]
    pub fn synthetic(packages: usize, cores_per_package: usize, pus_per_core: usize) -> Topology {
        let all_cores = packages * cores_per_package;
        Topology {
            packages: (0..packages)
                .map(|p| Package {
                    cores: (0..cores_per_package)
                        .map(|c| Core {
                            pus: (0..pus_per_core)
                                .map(|t| t * all_cores + p * cores_per_package + c)
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
            numa_nodes: packages.max(1),
            source: TopologySource::Os,
        }
    }

    /// A flat topology over the given CPUs: one package, one core per CPU,
    /// one PU per core.
    fn flat(cpus: impl IntoIterator<Item = usize>, source: TopologySource) -> Topology {
        Topology {
            packages: vec![Package {
                cores: cpus.into_iter().map(|pu| Core { pus: vec![pu] }).collect(),
            }],
            numa_nodes: 1,
            source,
        }
    }

    /// The common size of all items of `counts`, if they agree.
    fn uniform(mut counts: impl Iterator<Item = usize>) -> Option<usize> {
        let first = counts.next()?;
        counts.all(|n| n == first).then_some(first)
    }
}

/// `1 package`, `2 packages`.
fn plural(f: &mut fmt::Formatter<'_>, n: usize, what: &str) -> fmt::Result {
    write!(f, "{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A one-line summary for reports, e.g.
/// `1 package × 2 cores × 1 PU (hwloc, 1 NUMA node)`; a machine whose packages
/// or cores differ in size reads `1 package, 24 cores, 32 PUs (hwloc, 1 NUMA node)`.
impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cores_per_package = Topology::uniform(self.packages.iter().map(|p| p.cores.len()));
        let pus_per_core = Topology::uniform(
            self.packages
                .iter()
                .flat_map(|p| &p.cores)
                .map(|c| c.pus.len()),
        );
        plural(f, self.num_packages(), "package")?;
        match (cores_per_package, pus_per_core) {
            (Some(cores), Some(pus)) => {
                f.write_str(" × ")?;
                plural(f, cores, "core")?;
                f.write_str(" × ")?;
                plural(f, pus, "PU")?;
            }
            _ => {
                f.write_str(", ")?;
                plural(f, self.num_cores(), "core")?;
                f.write_str(", ")?;
                plural(f, self.num_pus(), "PU")?;
            }
        }
        write!(f, " ({}, ", self.source)?;
        plural(f, self.numa_nodes, "NUMA node")?;
        f.write_str(")")
    }
}

/// Discovers the topology of this machine, restricted to the PUs in the
/// calling thread's affinity mask — the process's mask as long as the thread
/// has not been pinned, so call it from a plain thread before pinning workers.
///
/// With the cargo feature `hwloc`, hwloc describes packages, cores and
/// hardware threads and counts the NUMA nodes ([`TopologySource::Hwloc`]). If
/// hwloc fails, and always without the feature, the result is flat: one
/// package, one core per CPU in the affinity mask, one PU per core, one NUMA
/// node ([`TopologySource::Os`]). Never fails: if even the affinity mask cannot
/// be read, the CPUs are `0 .. available_parallelism()`.
pub fn detect() -> Topology {
    #[cfg(feature = "hwloc")]
    if let Some(topology) = hwloc_backend::detect(affinity_cpus().as_deref()) {
        return topology;
    }
    detect_os()
}

/// The flat OS fallback of [`detect`].
fn detect_os() -> Topology {
    let cpus = affinity_cpus().unwrap_or_else(|| {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        (0..n).collect()
    });
    Topology::flat(cpus, TopologySource::Os)
}

/// The CPUs in the calling thread's affinity mask, ascending; `None` if it
/// cannot be read (or is empty).
fn affinity_cpus() -> Option<Vec<usize>> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let cpus = affinity::CpuMask::of_current_thread().ok()?.cpus();
        (!cpus.is_empty()).then_some(cpus)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// Which PU each of `workers` workers is pinned to under `pinning`: element
/// `i` is worker `i`'s OS processor index, or `None` for "not pinned".
///
/// A pure function of the topology description. Both pinning policies list
/// the first PU (hardware thread) of every core before any second PU, so
/// hyper-thread siblings are used only once every core has a worker; when
/// there are more workers than PUs the order starts again from the top
/// (several workers share a PU).
///
/// | policy | order |
/// |---|---|
/// | [`Pinning::None`] | every worker `None` |
/// | [`Pinning::FillSocketFirst`] | package 0 core 0, p0 c1, …, p0 last core, p1 c0, p1 c1, …, last package's last core; then the same cores' second PUs; …; then wrap |
/// | [`Pinning::Scatter`] | p0 c0, p1 c0, …, last package c0, p0 c1, p1 c1, …; then the same with second PUs; …; then wrap |
///
/// On `Topology::synthetic(2, 4, 2)` (PUs 0–3 on
/// package 0's cores, 4–7 on package 1's, 8–15 their siblings):
///
/// | policy | PUs of workers 0, 1, 2, … |
/// |---|---|
/// | `FillSocketFirst` | 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …, 15, 0, 1, … |
/// | `Scatter` | 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, …, 15, 0, 4, … |
///
/// Packages or cores of different sizes are handled: a core without a `t`-th
/// PU, or a package without a `c`-th core, is skipped in that round. A topology
/// without PUs pins nobody.
pub fn worker_pus(topology: &Topology, pinning: Pinning, workers: usize) -> Vec<Option<usize>> {
    let order = match pinning {
        Pinning::None => return vec![None; workers],
        Pinning::FillSocketFirst => fill_socket_first_order(topology),
        Pinning::Scatter => scatter_order(topology),
    };
    if order.is_empty() {
        return vec![None; workers];
    }
    order
        .iter()
        .copied()
        .map(Some)
        .cycle()
        .take(workers)
        .collect()
}

/// The most hardware threads of any core.
fn max_pus_per_core(topology: &Topology) -> usize {
    topology
        .packages
        .iter()
        .flat_map(|p| &p.cores)
        .map(|c| c.pus.len())
        .max()
        .unwrap_or(0)
}

/// Every PU once, in [`Pinning::FillSocketFirst`] order.
fn fill_socket_first_order(topology: &Topology) -> Vec<usize> {
    let mut order = Vec::with_capacity(topology.num_pus());
    for thread in 0..max_pus_per_core(topology) {
        for package in &topology.packages {
            for core in &package.cores {
                order.extend(core.pus.get(thread).copied());
            }
        }
    }
    order
}

/// Every PU once, in [`Pinning::Scatter`] order.
fn scatter_order(topology: &Topology) -> Vec<usize> {
    let max_cores = topology
        .packages
        .iter()
        .map(|p| p.cores.len())
        .max()
        .unwrap_or(0);
    let mut order = Vec::with_capacity(topology.num_pus());
    for thread in 0..max_pus_per_core(topology) {
        for core in 0..max_cores {
            for package in &topology.packages {
                if let Some(core) = package.cores.get(core) {
                    order.extend(core.pus.get(thread).copied());
                }
            }
        }
    }
    order
}

/// Binds the calling thread to the one PU with OS index `pu`
/// (`sched_setaffinity` on the calling thread; works with or without hwloc).
///
/// Fails with the OS error when `pu` does not exist or is not allowed (e.g.
/// outside the cgroup's cpuset), and with [`io::ErrorKind::Unsupported`] on
/// systems without `sched_setaffinity`.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn pin_current_thread(pu: usize) -> io::Result<()> {
    let mut mask = affinity::CpuMask::for_cpus(pu + 1);
    mask.set(pu);
    mask.apply_to_current_thread()
}

/// Binds the calling thread to one PU: unsupported on this system.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn pin_current_thread(pu: usize) -> io::Result<()> {
    let _ = pu;
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "pinning threads needs sched_setaffinity (Linux)",
    ))
}

/// CPU affinity masks of any size through `sched_getaffinity` /
/// `sched_setaffinity` (not limited to the 1024 CPUs of a `cpu_set_t`).
#[cfg(any(target_os = "linux", target_os = "android"))]
mod affinity {
    use std::io;
    use std::mem::size_of;

    type Word = libc::c_ulong;
    const WORD_BITS: usize = Word::BITS as usize;
    /// Give up growing the mask beyond this many CPUs.
    const MAX_CPUS: usize = 1 << 22;

    /// A CPU mask laid out like glibc's `cpu_set_t` (an array of `unsigned
    /// long`, CPU `i` being bit `i % WORD_BITS` of word `i / WORD_BITS`), but
    /// of any length, so machines with more than 1024 CPUs work.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub(super) struct CpuMask {
        words: Vec<Word>,
    }

    impl CpuMask {
        /// An empty mask with room for at least `cpus` CPUs (and never less
        /// than a `cpu_set_t`).
        pub(super) fn for_cpus(cpus: usize) -> CpuMask {
            let min_words = size_of::<libc::cpu_set_t>() / size_of::<Word>();
            CpuMask {
                words: vec![0; cpus.div_ceil(WORD_BITS).max(min_words)],
            }
        }

        /// Adds CPU `cpu`, which must fit in the mask.
        pub(super) fn set(&mut self, cpu: usize) {
            self.words[cpu / WORD_BITS] |= 1 << (cpu % WORD_BITS);
        }

        /// The CPUs in the mask, ascending.
        pub(super) fn cpus(&self) -> Vec<usize> {
            self.words
                .iter()
                .enumerate()
                .flat_map(|(w, &word)| {
                    (0..WORD_BITS)
                        .filter(move |bit| word & (1 << bit) != 0)
                        .map(move |bit| w * WORD_BITS + bit)
                })
                .collect()
        }

        fn byte_len(&self) -> usize {
            self.words.len() * size_of::<Word>()
        }

        /// The calling thread's affinity mask.
        pub(super) fn of_current_thread() -> io::Result<CpuMask> {
            let mut mask = CpuMask::for_cpus(0);
            loop {
                // SAFETY: `mask.words` is a live, writable allocation of
                // `byte_len()` bytes aligned for `c_ulong`, which is
                // `cpu_set_t`'s element type and alignment; the kernel (and
                // glibc's wrapper) write at most `byte_len()` bytes there. Pid 0
                // means the calling thread.
                let rc = unsafe {
                    libc::sched_getaffinity(
                        0,
                        mask.byte_len(),
                        mask.words.as_mut_ptr().cast::<libc::cpu_set_t>(),
                    )
                };
                if rc == 0 {
                    return Ok(mask);
                }
                let err = io::Error::last_os_error();
                // EINVAL: the kernel's mask is larger than ours; grow and retry.
                let bits = mask.words.len() * WORD_BITS;
                if err.raw_os_error() != Some(libc::EINVAL) || bits >= MAX_CPUS {
                    return Err(err);
                }
                mask = CpuMask::for_cpus(bits * 2);
            }
        }

        /// Makes this the calling thread's affinity mask.
        pub(super) fn apply_to_current_thread(&self) -> io::Result<()> {
            // SAFETY: `self.words` is a live allocation of `byte_len()` bytes
            // aligned for `c_ulong` (`cpu_set_t`'s element type), which the
            // kernel only reads. Pid 0 means the calling thread.
            let rc = unsafe {
                libc::sched_setaffinity(
                    0,
                    self.byte_len(),
                    self.words.as_ptr().cast::<libc::cpu_set_t>(),
                )
            };
            if rc == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        }
    }
}

/// Topology discovery through hwloc2 — the only place the runtime calls hwloc.
///
/// Uses only the sound subset of hwloc2 2.2.0 (see the module documentation):
/// `Topology::new`, `objects_with_type` for `Package`, `Core` and `PU`,
/// `object_at_root`, `cpuset`/`nodeset` (borrowed bitmaps, iterated or
/// weighed) and `os_index`. It never asks for `NUMANode` objects, never
/// formats an hwloc object and never calls `TopologyObject::name()`.
/// (hwloc2's `TopologyObject` mirrors `struct hwloc_obj` without its
/// `symmetric_subtree` field; on 64-bit targets that field sits in padding, so
/// the fields read here — `os_index`, `cpuset`, `nodeset` — are at the right
/// offsets for hwloc 2.x.)
#[cfg(feature = "hwloc")]
mod hwloc_backend {
    use super::{Core, Package, Topology, TopologySource};
    use hwloc2::{ObjectType, Topology as HwTopology, TopologyObject};

    /// The PUs of an hwloc object: the set bits of its cpuset, which are OS
    /// processor indices.
    fn cpuset_pus(object: &TopologyObject) -> Vec<usize> {
        object
            .cpuset()
            .map(|set| set.into_iter().map(|pu| pu as usize).collect())
            .unwrap_or_default()
    }

    /// Describes the machine with hwloc, keeping only the PUs in `allowed`
    /// (the affinity mask, ascending) when it is known. `None` if hwloc fails
    /// or finds no PU.
    pub(super) fn detect(allowed: Option<&[usize]>) -> Option<Topology> {
        let hw = HwTopology::new()?;
        let is_allowed = |pu: &usize| allowed.is_none_or(|a| a.binary_search(pu).is_ok());

        // Cores with their PUs; a machine where hwloc knows no cores gets one
        // core per PU.
        let cores: Vec<Vec<usize>> = match hw.objects_with_type(&ObjectType::Core) {
            Ok(cores) if !cores.is_empty() => cores.into_iter().map(cpuset_pus).collect(),
            _ => hw
                .objects_with_type(&ObjectType::PU)
                .ok()?
                .into_iter()
                .map(|pu| vec![pu.os_index() as usize])
                .collect(),
        };

        // Packages as PU sets; no packages known means one package.
        let package_pus: Vec<Vec<usize>> = match hw.objects_with_type(&ObjectType::Package) {
            Ok(packages) if !packages.is_empty() => packages.into_iter().map(cpuset_pus).collect(),
            _ => vec![cores.iter().flatten().copied().collect()],
        };

        // Each core goes to the package that holds its first PU, keeping
        // hwloc's logical order of packages and cores.
        let mut packages: Vec<Package> = package_pus
            .iter()
            .map(|_| Package { cores: Vec::new() })
            .collect();
        for pus in cores {
            let Some(first) = pus.first() else { continue };
            let Some(home) = package_pus.iter().position(|p| p.contains(first)) else {
                continue;
            };
            let pus: Vec<usize> = pus.into_iter().filter(is_allowed).collect();
            if !pus.is_empty() {
                packages[home].cores.push(Core { pus });
            }
        }
        packages.retain(|p| !p.cores.is_empty());
        if packages.is_empty() {
            return None;
        }

        // The root's nodeset holds every NUMA node (a machine without NUMA
        // information has one node; an infinite set weighs -1).
        let numa_nodes = hw
            .object_at_root()
            .nodeset()
            .map_or(1, |set| usize::try_from(set.weight()).unwrap_or(1).max(1));

        Some(Topology {
            packages,
            numa_nodes,
            source: TopologySource::Hwloc,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn pus(v: &[Option<usize>]) -> Vec<usize> {
        v.iter().map(|pu| pu.expect("pinned")).collect()
    }

    #[test]
    fn synthetic_numbering_is_linux_like() {
        let t = Topology::synthetic(2, 4, 2);
        assert_eq!(t.num_packages(), 2);
        assert_eq!(t.num_cores(), 8);
        assert_eq!(t.num_pus(), 16);
        assert_eq!(t.packages[0].cores[0].pus, vec![0, 8]);
        assert_eq!(t.packages[0].cores[3].pus, vec![3, 11]);
        assert_eq!(t.packages[1].cores[0].pus, vec![4, 12]);
        assert_eq!(t.packages[1].cores[3].pus, vec![7, 15]);
        let mut all: Vec<usize> = t.pus().collect();
        all.sort_unstable();
        assert_eq!(all, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn display() {
        assert_eq!(
            Topology::synthetic(2, 4, 2).to_string(),
            "2 packages × 4 cores × 2 PUs (OS, 2 NUMA nodes)"
        );
        let mut t = Topology::synthetic(1, 2, 1);
        t.source = TopologySource::Hwloc;
        assert_eq!(
            t.to_string(),
            "1 package × 2 cores × 1 PU (hwloc, 1 NUMA node)"
        );
        t.packages[0].cores[1].pus.push(5);
        assert_eq!(
            t.to_string(),
            "1 package, 2 cores, 3 PUs (hwloc, 1 NUMA node)"
        );
    }

    #[test]
    fn none_pins_nobody() {
        let t = Topology::synthetic(2, 4, 2);
        assert_eq!(worker_pus(&t, Pinning::None, 3), vec![None; 3]);
        assert!(worker_pus(&t, Pinning::FillSocketFirst, 0).is_empty());
    }

    #[test]
    fn fill_socket_first_2x4x2() {
        let t = Topology::synthetic(2, 4, 2);
        let f = |n| pus(&worker_pus(&t, Pinning::FillSocketFirst, n));
        assert_eq!(f(6), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(f(10), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(f(16), (0..16).collect::<Vec<_>>());
        // More workers than PUs: wrap around.
        assert_eq!(f(18)[16..], [0, 1]);
    }

    #[test]
    fn scatter_2x4x2() {
        let t = Topology::synthetic(2, 4, 2);
        let s = |n| pus(&worker_pus(&t, Pinning::Scatter, n));
        assert_eq!(s(4), vec![0, 4, 1, 5]);
        assert_eq!(
            s(16),
            vec![0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]
        );
        assert_eq!(s(19)[16..], [0, 4, 1]);
    }

    #[test]
    fn one_pu() {
        let t = Topology::synthetic(1, 1, 1);
        assert_eq!(t.to_string(), "1 package × 1 core × 1 PU (OS, 1 NUMA node)");
        for policy in [Pinning::FillSocketFirst, Pinning::Scatter] {
            assert_eq!(worker_pus(&t, policy, 1), vec![Some(0)]);
            assert_eq!(worker_pus(&t, policy, 3), vec![Some(0); 3]);
        }
    }

    #[test]
    fn workers_beyond_pus_wrap() {
        let t = Topology::synthetic(1, 2, 1);
        for policy in [Pinning::FillSocketFirst, Pinning::Scatter] {
            assert_eq!(pus(&worker_pus(&t, policy, 5)), vec![0, 1, 0, 1, 0]);
        }
    }

    /// Properties that hold on every regular synthetic machine: with one worker
    /// per PU every PU is used exactly once; the first `cores` workers sit on
    /// distinct cores (no hyper-thread sibling before every core has a worker);
    /// `FillSocketFirst` fills a package's cores before touching the next
    /// package; `Scatter` spreads the first `packages` workers over all packages.
    #[test]
    fn mapping_properties_on_synthetic_machines() {
        for packages in 1..=4 {
            for cores in 1..=6 {
                for threads in 1..=3 {
                    let t = Topology::synthetic(packages, cores, threads);
                    let core_of = |pu: usize| pu % (packages * cores);
                    let package_of = |pu: usize| core_of(pu) / cores;
                    let n = t.num_pus();
                    for pinning in [Pinning::FillSocketFirst, Pinning::Scatter] {
                        let what = format!("{packages}x{cores}x{threads} {pinning:?}");
                        let map = pus(&worker_pus(&t, pinning, n));
                        let distinct: HashSet<_> = map.iter().collect();
                        assert_eq!(distinct.len(), n, "{what}: {map:?}");
                        let first_cores: HashSet<_> = map[..packages * cores]
                            .iter()
                            .map(|&p| core_of(p))
                            .collect();
                        assert_eq!(first_cores.len(), packages * cores, "{what}: {map:?}");
                        // Wrapping: worker n + i shares worker i's PU.
                        let wrapped = pus(&worker_pus(&t, pinning, 2 * n + 1));
                        assert_eq!(&wrapped[n..2 * n], &map[..], "{what}");
                        assert_eq!(wrapped[2 * n], map[0], "{what}");
                        match pinning {
                            Pinning::FillSocketFirst => {
                                let order: Vec<usize> = map[..packages * cores]
                                    .iter()
                                    .map(|&p| package_of(p))
                                    .collect();
                                assert!(order.windows(2).all(|w| w[0] <= w[1]), "{what}: {map:?}");
                            }
                            Pinning::Scatter => {
                                let spread: HashSet<_> =
                                    map[..packages].iter().map(|&p| package_of(p)).collect();
                                assert_eq!(spread.len(), packages, "{what}: {map:?}");
                            }
                            Pinning::None => unreachable!(),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn uneven_topology() {
        // Package 0: a 2-thread core (PUs 0, 2) and a 1-thread core (1);
        // package 1: one 1-thread core (3).
        let t = Topology {
            packages: vec![
                Package {
                    cores: vec![Core { pus: vec![0, 2] }, Core { pus: vec![1] }],
                },
                Package {
                    cores: vec![Core { pus: vec![3] }],
                },
            ],
            numa_nodes: 1,
            source: TopologySource::Os,
        };
        assert_eq!(
            pus(&worker_pus(&t, Pinning::FillSocketFirst, 5)),
            vec![0, 1, 3, 2, 0]
        );
        assert_eq!(
            pus(&worker_pus(&t, Pinning::Scatter, 5)),
            vec![0, 3, 1, 2, 0]
        );
    }

    #[test]
    fn empty_topology_pins_nobody() {
        let t = Topology::synthetic(0, 4, 2);
        assert_eq!(t.num_pus(), 0);
        assert_eq!(worker_pus(&t, Pinning::Scatter, 2), vec![None; 2]);
    }

    #[test]
    fn detect_finds_this_machine() {
        let t = detect();
        let n = t.num_pus();
        assert!(n >= 1, "{t}");
        assert!(t.numa_nodes >= 1);
        let mut all: Vec<usize> = t.pus().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a PU listed twice: {t:?}");
        let parallelism = std::thread::available_parallelism().map_or(1, |p| p.get());
        let mask = affinity_cpus().map(|cpus| cpus.len());
        assert!(
            n == parallelism || Some(n) == mask,
            "{t}: {n} PUs, available_parallelism {parallelism}, affinity mask {mask:?}"
        );
        #[cfg(feature = "hwloc")]
        assert_eq!(t.source, TopologySource::Hwloc, "hwloc failed: {t}");
        #[cfg(not(feature = "hwloc"))]
        assert_eq!(t.source, TopologySource::Os);
    }

    #[cfg(feature = "hwloc")]
    #[test]
    fn hwloc_agrees_with_the_os_on_the_pus() {
        let hw = hwloc_backend::detect(affinity_cpus().as_deref()).expect("hwloc topology");
        let mut hw_pus: Vec<usize> = hw.pus().collect();
        hw_pus.sort_unstable();
        let os_pus: Vec<usize> = detect_os().pus().collect();
        assert_eq!(hw_pus, os_pus, "{hw}");
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn pinning_binds_the_thread_to_exactly_that_pu() {
        let t = detect();
        // A fresh thread, so the test harness's thread is never affected.
        std::thread::spawn(move || {
            let old = affinity::CpuMask::of_current_thread().expect("read affinity");
            struct Restore(affinity::CpuMask);
            impl Drop for Restore {
                fn drop(&mut self) {
                    self.0
                        .apply_to_current_thread()
                        .expect("restore the affinity mask");
                }
            }
            let restore = Restore(old.clone());
            for pu in t.pus() {
                pin_current_thread(pu).unwrap_or_else(|e| panic!("pin to PU {pu}: {e}"));
                let now = affinity::CpuMask::of_current_thread().expect("read affinity");
                assert_eq!(now.cpus(), vec![pu]);
            }
            drop(restore);
            assert_eq!(affinity::CpuMask::of_current_thread().unwrap(), old);
        })
        .join()
        .unwrap();
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn cpu_mask_round_trips_beyond_1024_cpus() {
        let mut mask = affinity::CpuMask::for_cpus(2000);
        for cpu in [0, 63, 64, 1023, 1024, 1999] {
            mask.set(cpu);
        }
        assert_eq!(mask.cpus(), vec![0, 63, 64, 1023, 1024, 1999]);
    }

    #[test]
    fn pinning_a_missing_pu_fails() {
        assert!(pin_current_thread(1 << 20).is_err());
    }
}
