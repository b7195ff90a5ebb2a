//! What the inliner tells users: per-site counts, sampled durations and
//! decisions ([`InliningReport`], from
//! [`Runtime::inlining_report`](crate::Runtime::inlining_report)).

use super::calibrate::Calibration;
use super::site_ids::{self, SiteId};
use super::site_state::SharedSite;
use super::table::SiteTable;
use crate::params::Inlining;
use std::fmt;
use std::sync::atomic::Ordering;

/// The inliner's state in one runtime: the calibration its thresholds are
/// relative to, and one entry per spawn site that ran in it.
///
/// ```
/// use prescient::tuning::Inlining;
/// use prescient::{Params, Runtime};
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = prescient::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// let runtime = Runtime::builder()
///     .params(Params::DEFAULT.with_inlining(Inlining::Adaptive))
///     .num_workers(2)
///     .build()
///     .unwrap();
/// assert_eq!(runtime.run(|| fib(20)), 6765);
/// let report = runtime.inlining_report();
/// let site = &report.sites[0];
/// assert_eq!(site.executions, 10945); // fib(20) makes fib(21) - 1 joins
/// println!("{report}");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct InliningReport {
    /// The runtime's policy.
    pub policy: Inlining,
    /// One deferred empty task on this host (allocate, push, pop, run): the
    /// unit of every threshold. Measured once per process.
    pub spawn_overhead_ns: f64,
    /// One clock read, subtracted from every sample.
    pub clock_read_ns: f64,
    /// The sites that ran in this runtime, by id (first registered first).
    pub sites: Vec<SiteReport>,
}

/// One spawn site's statistics in one runtime.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SiteReport {
    /// Where the site is.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
    /// Its column.
    pub column: u32,
    /// The annotated module, for a `#[task_program]` site.
    pub module: Option<&'static str>,
    /// The function holding it, for a `#[task_program]` site.
    pub function: Option<&'static str>,
    /// The analyzer's static effort estimate, for a `#[task_program]` site.
    pub static_effort: Option<u64>,
    /// Executions, summed over workers (exact).
    pub executions: u64,
    /// Executions that ran as plain calls by the inliner's decision.
    pub inlined: u64,
    /// Executions handed to the scheduler because a thief was hungry while
    /// the site inlined.
    pub hunger_spawns: u64,
    /// Timed executions.
    pub samples: u64,
    /// The mean sampled duration of one task, clock cost subtracted.
    pub mean_sampled_ns: Option<f64>,
    /// The geometric mean of the samples: what the policies compare with
    /// their thresholds (a recursive site's samples include their
    /// subtasks; the arithmetic mean is decided by the rare outermost one).
    pub typical_ns: Option<f64>,
    /// Whether the site inlines now.
    pub inlining: bool,
    /// `Adaptive`'s threshold now, in spawn overheads (its start value under
    /// the other policies, which do not search).
    pub threshold: f64,
    /// Whether `Adaptive`'s search has converged.
    pub frozen: bool,
    /// How often the site switched between inlining and spawning.
    pub mode_changes: u32,
}

impl SiteReport {
    /// The fraction of executions inlined by decision.
    pub fn inlined_fraction(&self) -> f64 {
        if self.executions == 0 {
            0.0
        } else {
            self.inlined as f64 / self.executions as f64
        }
    }
}

/// The report; `counts(id)` sums a site's executions, scheduled executions
/// and hunger spawns over the workers.
pub(super) fn build(
    policy: Inlining,
    calibration: Calibration,
    shared: &SiteTable<SharedSite>,
    counts: impl Fn(usize) -> (u64, u64, u64),
) -> InliningReport {
    let sites = shared
        .entries()
        .filter(|(_, site)| site.generation.load(Ordering::Acquire) != 0)
        .map(|(id, site)| {
            let (executions, scheduled, hunger_spawns) = counts(id);
            let descriptor = site_ids::describe(SiteId::from_index(id));
            let samples = site.samples.load(Ordering::Relaxed);
            SiteReport {
                file: descriptor.map_or("?", |d| d.file),
                line: descriptor.map_or(0, |d| d.line),
                column: descriptor.map_or(0, |d| d.column),
                module: descriptor.and_then(|d| d.module),
                function: descriptor.and_then(|d| d.function),
                static_effort: descriptor.and_then(|d| d.static_effort),
                executions,
                inlined: executions.saturating_sub(scheduled),
                hunger_spawns,
                samples,
                mean_sampled_ns: (samples > 0)
                    .then(|| site.sample_ns.load(Ordering::Relaxed) as f64 / samples as f64),
                typical_ns: (samples > 0)
                    .then(|| f64::from_bits(site.typical_ns_bits.load(Ordering::Relaxed))),
                inlining: site.inline.load(Ordering::Relaxed),
                threshold: f64::from_bits(site.threshold_bits.load(Ordering::Relaxed)),
                frozen: site.frozen.load(Ordering::Relaxed),
                mode_changes: site.mode_changes.load(Ordering::Relaxed),
            }
        })
        .collect();
    InliningReport {
        policy,
        spawn_overhead_ns: calibration.spawn_overhead_ns,
        clock_read_ns: calibration.clock_ns,
        sites,
    }
}

impl fmt::Display for InliningReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "inlining {}: spawn overhead {:.1} ns, clock read {:.1} ns",
            self.policy, self.spawn_overhead_ns, self.clock_read_ns
        )?;
        writeln!(
            f,
            "{:<40} {:>12} {:>8} {:>8} {:>9} {:>12} {:>10} {:>7} {:>9} {:>6}",
            "site",
            "executions",
            "inlined",
            "hunger",
            "samples",
            "mean ns",
            "typical ns",
            "mode",
            "threshold",
            "effort"
        )?;
        for site in &self.sites {
            let name = match site.function {
                Some(function) => format!("{function} ({}:{})", short_file(site.file), site.line),
                None => format!("{}:{}:{}", short_file(site.file), site.line, site.column),
            };
            writeln!(
                f,
                "{:<40} {:>12} {:>7.1}% {:>8} {:>9} {:>12} {:>10} {:>7} {:>9} {:>6}",
                name,
                site.executions,
                100.0 * site.inlined_fraction(),
                site.hunger_spawns,
                site.samples,
                site.mean_sampled_ns
                    .map_or("-".to_string(), |ns| format!("{ns:.1}")),
                site.typical_ns
                    .map_or("-".to_string(), |ns| format!("{ns:.1}")),
                if site.inlining { "inline" } else { "spawn" },
                if self.policy == Inlining::Adaptive {
                    format!(
                        "{:.0}{}",
                        site.threshold,
                        if site.frozen { "*" } else { "" }
                    )
                } else {
                    "-".to_string()
                },
                site.static_effort
                    .map_or("-".to_string(), |effort| effort.to_string()),
            )?;
        }
        Ok(())
    }
}

/// The last two components of a source path.
fn short_file(file: &str) -> &str {
    let mut cut = file.len();
    for _ in 0..2 {
        match file[..cut].rfind('/') {
            Some(i) => cut = i,
            None => return file,
        }
    }
    &file[cut + 1..]
}
