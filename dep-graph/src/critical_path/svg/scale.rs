//! Scales and axes: the time unit of the axis, duration and axis-label
//! formats, the mapping of instants to pixels and to pixel columns, and the
//! y ranges of the profile plot.

use super::super::parallelism::{BucketBounds, ProfileBucket};
use super::style::{LEFT, PLOT_W};

/// A time unit of the axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Unit {
    pub(super) name: &'static str,
    pub(super) ns: f64,
}

/// The unit for a run of `elapsed` ns: the largest with at least 10 units.
pub(super) fn unit_for(elapsed: u64) -> Unit {
    const UNITS: [Unit; 4] = [
        Unit { name: "s", ns: 1e9 },
        Unit {
            name: "ms",
            ns: 1e6,
        },
        Unit {
            name: "µs",
            ns: 1e3,
        },
        Unit {
            name: "ns",
            ns: 1.0,
        },
    ];
    UNITS
        .into_iter()
        .find(|u| elapsed as f64 >= 10.0 * u.ns)
        .unwrap_or(UNITS[3])
}

/// A duration with three decimals in a fitting unit (whole nanoseconds below
/// 10 µs).
pub(super) fn format_duration(ns: u64) -> String {
    let unit = unit_for(ns);
    if unit.ns == 1.0 {
        format!("{ns} ns")
    } else {
        format!("{:.3} {}", ns as f64 / unit.ns, unit.name)
    }
}

/// `count` equal-width columns over `[0, end)` (integer boundaries, as
/// [`ParallelismProfile::downsample`](crate::critical_path::ParallelismProfile::downsample)
/// makes them), mapped onto the plot's pixels.
#[derive(Clone, Debug)]
pub(super) struct Columns {
    pub(super) count: usize,
    /// `count + 1` boundaries: column `c` is `[bounds[c], bounds[c + 1])`.
    bounds: Vec<u64>,
}

impl Columns {
    /// At most `wanted` columns, and no empty one (`end > 0`, `wanted > 0`).
    pub(super) fn new(end: u64, wanted: usize) -> Columns {
        let columns = BucketBounds::new(end, wanted);
        let count = columns.count();
        debug_assert!(count > 0, "columns of an empty run");
        let bounds = (0..=count).map(|c| columns.boundary(c)).collect();
        Columns { count, bounds }
    }

    /// First instant of column `c` (`c == count`: the end).
    pub(super) fn start(&self, c: usize) -> u64 {
        self.bounds[c]
    }

    /// The column holding instant `t < end`.
    pub(super) fn of(&self, t: u64) -> usize {
        (self.bounds.partition_point(|&b| b <= t) - 1).min(self.count - 1)
    }

    /// Adds the overlap of `[from, to)` with each column it meets, from
    /// column `first` on (which must not start after `from`), to `cover`.
    pub(super) fn add(
        &self,
        first: usize,
        (from, to): (u64, u64),
        mut cover: impl FnMut(usize, u64),
    ) {
        let mut c = first;
        while c < self.count && self.bounds[c] < to {
            let overlap = to
                .min(self.bounds[c + 1])
                .saturating_sub(from.max(self.bounds[c]));
            if overlap > 0 {
                cover(c, overlap);
            }
            c += 1;
        }
    }

    /// Left pixel of column `c` (`c == count`: the plot's right edge).
    pub(super) fn pixel(&self, c: usize) -> i32 {
        LEFT + (i64::from(PLOT_W) * c as i64 / self.count as i64) as i32
    }
}

/// Formats the axis labels of a range `0..top`: three significant digits of
/// `top`, trailing zeros dropped (`4`, `2.5`, `0.125`).
pub(super) fn axis_format(top: f64) -> impl Fn(&f64) -> String {
    let magnitude = if top > 0.0 { top.log10().floor() } else { 0.0 };
    let decimals = (2.0 - magnitude).clamp(0.0, 9.0) as usize;
    move |x: &f64| {
        let text = format!("{x:.decimals$}");
        if text.contains('.') {
            let trimmed = text.trim_end_matches('0').trim_end_matches('.');
            if trimmed == "-0" {
                "0".to_string()
            } else {
                trimmed.to_string()
            }
        } else {
            text
        }
    }
}

/// The pixel of instant `t` in a run of `end` ns.
pub(super) fn x_pixel(t: u64, end: u64) -> i32 {
    if end == 0 {
        return LEFT;
    }
    LEFT + (u128::from(t) * PLOT_W as u128 / u128::from(end)) as i32
}

/// The y ranges of the profile plot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ProfileScale {
    /// Top of the left axis: running, the worker line, and ready when it
    /// fits.
    pub(super) top: f64,
    /// Top of a right axis for ready alone, when its mean exceeds four times
    /// the worker count somewhere (it would flatten everything else).
    pub(super) ready_top: Option<f64>,
}

impl ProfileScale {
    pub(super) fn of(buckets: &[ProfileBucket], workers: u32) -> ProfileScale {
        let workers = f64::from(workers.max(1));
        let running = buckets
            .iter()
            .map(|b| b.mean_running)
            .fold(workers, f64::max);
        let ready = buckets.iter().map(|b| b.mean_ready).fold(0.0, f64::max);
        if ready > 4.0 * workers {
            ProfileScale {
                top: running * 1.12,
                ready_top: Some(ready * 1.1),
            }
        } else {
            ProfileScale {
                top: running.max(ready) * 1.12,
                ready_top: None,
            }
        }
    }
}
