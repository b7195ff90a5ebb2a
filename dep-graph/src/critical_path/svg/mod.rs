//! [`svg_report`]: one SVG image of a recorded run (feature `svg`), drawn with
//! plotters' SVG backend, which writes text as `<text>` elements and needs no
//! font files.
//!
//! Three panels, the first two sharing the time axis:
//! 1. **Timeline**: one row per worker, each strand a bar coloured by task
//!    (critical-path strands in red), and a "critical path" row cutting
//!    `[0, T]` into the path's work, busy delay and scheduler delay by the kind
//!    of edge waited on (the pieces of the Chrome trace's path track).
//! 2. **Parallelism profile**: `running(t)` and `ready(t)` averaged per pixel
//!    column ([`ProfileBucket`](super::ProfileBucket)), with a line at the
//!    number of workers.
//! 3. **Breakdown**: the critical path's length and the run's
//!    `T × workers` as stacked percentage bars.
//!
//! The image stays small for huge runs: above
//! [`STRAND_LIMIT`](style::STRAND_LIMIT) strands each worker row is cut into
//! at most one column per pixel (fewer with many workers, at most
//! [`CELL_BUDGET`](style::CELL_BUDGET) columns in all up to 4000 workers), a
//! column being drawn busy when strands cover at least half of it (red when
//! most of that is critical-path work), and consecutive equal columns merge
//! into one rectangle; the critical-path row is binned likewise (also when it
//! has more pieces than the plot has pixels), each column taking the category
//! covering most of it. The profile is downsampled straight from
//! one sweep over the run, which also splits the path's gaps into busy and
//! scheduler delay (so no [`Timeline`](super::Timeline) is built); the whole
//! report is O(n log n) and the image O(pixels).
//!
//! The files: `report` gathers what the image shows (and holds
//! [`svg_report`]); `timeline_panel`, `profile_panel` and `breakdown_panel`
//! draw the three panels; `path` cuts the critical path into the row's
//! pieces in one sweep that also downsamples the profile; `layout` places
//! everything vertically, `legend` lays out and draws the legends, `scale`
//! maps time to units, labels and pixels; `style` and `draw` hold the fixed
//! look and the drawing primitives.

mod breakdown_panel;
mod draw;
mod layout;
mod legend;
mod parallelism_panel;
mod path;
mod report;
mod scale;
mod style;
mod timeline_panel;

#[cfg(test)]
mod tests;

pub use report::svg_report;
