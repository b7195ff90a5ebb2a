//! The report's fixed look: fonts, the image's dimensions, its colours, and
//! the sizes above which the timeline is binned into pixel columns.

use plotters::style::RGBColor;

pub(super) const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them (the SVG font size is `size / 1.24`).
pub(super) const TITLE_SIZE: f64 = 22.0;
pub(super) const HEADING_SIZE: f64 = 17.0;
pub(super) const LABEL_SIZE: f64 = 14.0;
/// Estimated width of a character at [`LABEL_SIZE`] (px), for legend layout.
pub(super) const CHAR_W: i32 = 6;

/// Image width (px).
pub(super) const WIDTH: u32 = 1200;
/// The label column left of the plots (px).
pub(super) const LEFT: i32 = 100;
/// The margin right of the plots (px), room for the profile's right axis.
pub(super) const RIGHT: i32 = 64;
/// The plots' width (px): time `[0, T]` maps to `[LEFT, LEFT + PLOT_W]`.
pub(super) const PLOT_W: i32 = WIDTH as i32 - LEFT - RIGHT;
/// Height of an x-axis label area (px).
pub(super) const X_AXIS_H: i32 = 40;
/// Height of a legend line (px).
pub(super) const LEGEND_LINE_H: i32 = 20;
/// Height of the critical-path row and the gap above it (px).
pub(super) const PATH_ROW_H: i32 = 16;
pub(super) const PATH_ROW_GAP: i32 = 8;
/// Height of the profile plot (px).
pub(super) const PROFILE_H: i32 = 200;
/// Height of a breakdown bar (px).
pub(super) const BAR_H: i32 = 22;

/// Up to this many strands the timeline draws one bar per strand; above, it
/// bins each worker row into pixel columns.
pub(super) const STRAND_LIMIT: usize = 20_000;
/// The most columns of all binned worker rows together: bounds the number of
/// rectangles (hence the SVG size) with many workers.
pub(super) const CELL_BUDGET: usize = 32_000;

/// Light colours for strands, cycled by task id.
pub(super) const TASK_PALETTE: [RGBColor; 8] = [
    RGBColor(174, 199, 232),
    RGBColor(152, 223, 138),
    RGBColor(255, 187, 120),
    RGBColor(197, 176, 213),
    RGBColor(196, 156, 148),
    RGBColor(247, 182, 210),
    RGBColor(219, 219, 141),
    RGBColor(158, 218, 229),
];
/// Critical-path strands and the path's work.
pub(super) const CRITICAL: RGBColor = RGBColor(214, 39, 40);
/// A binned worker column that is mostly busy.
pub(super) const BINNED_BUSY: RGBColor = RGBColor(107, 174, 214);
/// The path's busy delay.
pub(super) const BUSY_DELAY: RGBColor = RGBColor(110, 110, 110);
/// The path's scheduler delay: before its first strand, then by the kind of
/// the edge waited on, in [`EdgeKind::ALL`](crate::critical_path::EdgeKind::ALL) order.
pub(super) const SCHEDULER_DELAY: [RGBColor; 5] = [
    RGBColor(188, 189, 34),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];
/// The run breakdown.
pub(super) const RUN_WORK: RGBColor = RGBColor(31, 119, 180);
pub(super) const RUN_DELAY: RGBColor = RGBColor(255, 152, 150);
pub(super) const RUN_NOWORK: RGBColor = RGBColor(199, 199, 199);
/// The profile's lines.
pub(super) const RUNNING: RGBColor = RGBColor(31, 119, 180);
pub(super) const READY: RGBColor = RGBColor(230, 85, 13);
