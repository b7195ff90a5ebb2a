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
//!    column ([`ProfileBucket`]), with a line at the number of workers.
//! 3. **Breakdown**: the critical path's length and the run's
//!    `T × workers` as stacked percentage bars.
//!
//! The image stays small for huge runs: above [`STRAND_LIMIT`] strands each
//! worker row is cut into at most one column per pixel (fewer with many
//! workers, at most [`CELL_BUDGET`] columns in all up to 4000 workers), a
//! column being drawn busy when strands cover at least half of it (red when
//! most of that is critical-path work), and consecutive equal columns merge
//! into one rectangle; the critical-path row is binned likewise (also when it
//! has more pieces than the plot has pixels), each column taking the category
//! covering most of it. The profile is downsampled straight from
//! one sweep over the run, which also splits the path's gaps into busy and
//! scheduler delay (so no [`Timeline`](super::Timeline) is built); the whole
//! report is O(n log n) and the image O(pixels).

use std::error::Error;
use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::analysis::{percent, Analysis};
use super::model::{Dag, EdgeKind};
use super::profile::{for_each_change, BucketBounds, Downsampler, ProfileBucket, ProfilePoint};

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult<T> = Result<T, Box<dyn Error>>;
type Chart<'b> = ChartContext<'b, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them (the SVG font size is `size / 1.24`).
const TITLE_SIZE: f64 = 22.0;
const HEADING_SIZE: f64 = 17.0;
const LABEL_SIZE: f64 = 14.0;
/// Estimated width of a character at [`LABEL_SIZE`] (px), for legend layout.
const CHAR_W: i32 = 6;

/// Image width (px).
const WIDTH: u32 = 1200;
/// The label column left of the plots (px).
const LEFT: i32 = 100;
/// The margin right of the plots (px), room for the profile's right axis.
const RIGHT: i32 = 64;
/// The plots' width (px): time `[0, T]` maps to `[LEFT, LEFT + PLOT_W]`.
const PLOT_W: i32 = WIDTH as i32 - LEFT - RIGHT;
/// Height of an x-axis label area (px).
const X_AXIS_H: i32 = 40;
/// Height of a legend line (px).
const LEGEND_LINE_H: i32 = 20;
/// Height of the critical-path row and the gap above it (px).
const PATH_ROW_H: i32 = 16;
const PATH_ROW_GAP: i32 = 8;
/// Height of the profile plot (px).
const PROFILE_H: i32 = 200;
/// Height of a breakdown bar (px).
const BAR_H: i32 = 22;

/// Up to this many strands the timeline draws one bar per strand; above, it
/// bins each worker row into pixel columns.
pub(crate) const STRAND_LIMIT: usize = 20_000;
/// The most columns of all binned worker rows together: bounds the number of
/// rectangles (hence the SVG size) with many workers.
pub(crate) const CELL_BUDGET: usize = 32_000;

/// Light colours for strands, cycled by task id.
const TASK_PALETTE: [RGBColor; 8] = [
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
const CRITICAL: RGBColor = RGBColor(214, 39, 40);
/// A binned worker column that is mostly busy.
const BINNED_BUSY: RGBColor = RGBColor(107, 174, 214);
/// The path's busy delay.
const BUSY_DELAY: RGBColor = RGBColor(110, 110, 110);
/// The path's scheduler delay: before its first strand, then by the kind of
/// the edge waited on, in [`EdgeKind::ALL`] order.
const SCHEDULER_DELAY: [RGBColor; 5] = [
    RGBColor(188, 189, 34),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];
/// The run breakdown.
const RUN_WORK: RGBColor = RGBColor(31, 119, 180);
const RUN_DELAY: RGBColor = RGBColor(255, 152, 150);
const RUN_NOWORK: RGBColor = RGBColor(199, 199, 199);
/// The profile's lines.
const RUNNING: RGBColor = RGBColor(31, 119, 180);
const READY: RGBColor = RGBColor(230, 85, 13);

/// Categories of the critical-path row: work, busy delay, then scheduler
/// delay before the first strand and after each edge kind.
const WORK: usize = 0;
const BUSY: usize = 1;
const PATH_CATEGORIES: usize = 7;

/// The category of scheduler delay before a step reached via `via`.
fn scheduler_category(via: Option<EdgeKind>) -> usize {
    2 + via.map_or(0, |kind| 1 + kind.index())
}

fn path_colour(category: usize) -> RGBColor {
    match category {
        WORK => CRITICAL,
        BUSY => BUSY_DELAY,
        c => SCHEDULER_DELAY[c - 2],
    }
}

/// Renders the run as one SVG image (about 1200 px wide): a title, the
/// timeline of every worker with the critical path and its delays, the
/// parallelism profile (`running` and `ready` over time) and the
/// breakdowns of the critical path and of the whole run as percentages.
///
/// `analysis` must be [`analyze`](super::analyze)`(dag)`. Runs in
/// O(n log n) for n strands (about as long as `analyze`). The image has
/// O(pixels) elements whatever the size of the run: one bar per strand up
/// to 20 000 strands, pixel columns beyond, so that it stays under 2 MB
/// (1.5 MB when 64 workers alternate busy and idle columns; about 100 kB for
/// a busy run of 12 million strands). Times on the axis are in s, ms, µs or
/// ns, chosen by the run's length.
pub fn svg_report(dag: &Dag, analysis: &Analysis) -> String {
    let mut svg = String::new();
    // The backend writes into a String, and the naive font layout of the
    // `svg_backend` feature set cannot fail: drawing has no error to report.
    draw_report(dag, analysis, &mut svg).expect("drawing an SVG into a String does not fail");
    svg
}

/// A time unit of the axis.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Unit {
    name: &'static str,
    ns: f64,
}

/// The unit for a run of `elapsed` ns: the largest with at least 10 units.
fn unit_for(elapsed: u64) -> Unit {
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
fn format_duration(ns: u64) -> String {
    let unit = unit_for(ns);
    if unit.ns == 1.0 {
        format!("{ns} ns")
    } else {
        format!("{:.3} {}", ns as f64 / unit.ns, unit.name)
    }
}

/// `count` equal-width columns over `[0, end)` (integer boundaries, as
/// [`ParallelismProfile::downsample`](super::ParallelismProfile::downsample)
/// makes them), mapped onto the plot's pixels.
#[derive(Clone, Debug)]
struct Columns {
    count: usize,
    /// `count + 1` boundaries: column `c` is `[bounds[c], bounds[c + 1])`.
    bounds: Vec<u64>,
}

impl Columns {
    /// At most `wanted` columns, and no empty one (`end > 0`, `wanted > 0`).
    fn new(end: u64, wanted: usize) -> Columns {
        let columns = BucketBounds::new(end, wanted);
        let count = columns.count();
        debug_assert!(count > 0, "columns of an empty run");
        let bounds = (0..=count).map(|c| columns.boundary(c)).collect();
        Columns { count, bounds }
    }

    /// First instant of column `c` (`c == count`: the end).
    fn start(&self, c: usize) -> u64 {
        self.bounds[c]
    }

    /// The column holding instant `t < end`.
    fn of(&self, t: u64) -> usize {
        (self.bounds.partition_point(|&b| b <= t) - 1).min(self.count - 1)
    }

    /// Adds the overlap of `[from, to)` with each column it meets, from
    /// column `first` on (which must not start after `from`), to `cover`.
    fn add(&self, first: usize, (from, to): (u64, u64), mut cover: impl FnMut(usize, u64)) {
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
    fn pixel(&self, c: usize) -> i32 {
        LEFT + (i64::from(PLOT_W) * c as i64 / self.count as i64) as i32
    }
}

/// Formats the axis labels of a range `0..top`: three significant digits of
/// `top`, trailing zeros dropped (`4`, `2.5`, `0.125`).
fn axis_format(top: f64) -> impl Fn(&f64) -> String {
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
fn x_pixel(t: u64, end: u64) -> i32 {
    if end == 0 {
        return LEFT;
    }
    LEFT + (u128::from(t) * PLOT_W as u128 / u128::from(end)) as i32
}

/// One piece of the critical-path row: `[from, to)` of one category.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Piece {
    from: u64,
    to: u64,
    category: usize,
}

/// A gap of the critical path before one of its strands.
#[derive(Clone, Copy, Debug)]
struct Gap {
    from: u64,
    to: u64,
    /// The scheduler-delay category of the gap.
    category: usize,
}

/// What one sweep over the run yields.
struct Gathered {
    /// The profile, one bucket per profile column.
    buckets: Vec<ProfileBucket>,
    /// The critical-path row: the gaps' busy and scheduler pieces (merged
    /// within each gap), then the path's strands.
    pieces: Vec<Piece>,
}

/// Sweeps the run once: downsamples the profile into `buckets` buckets and
/// cuts the critical path's gaps into busy and scheduler delay.
fn gather(dag: &Dag, analysis: &Analysis, buckets: usize) -> Gathered {
    let steps = &analysis.critical_path.steps;
    let gaps: Vec<Gap> = steps
        .iter()
        .filter_map(|step| {
            let start = dag.strand(step.strand).start;
            (step.gap_start < start).then(|| Gap {
                from: step.gap_start,
                to: start,
                category: scheduler_category(step.via),
            })
        })
        .collect();
    let workers = dag.workers();
    let mut down = Downsampler::new(analysis.elapsed, buckets);
    let mut pieces: Vec<Piece> = Vec::new();
    let (mut next_gap, mut gap_first_piece) = (0usize, 0usize);
    let mut previous: Option<ProfilePoint> = None;
    for_each_change(dag, |point| {
        let Some(prev) = previous.replace(point) else {
            return;
        };
        let (a, b) = (prev.time, point.time);
        down.feed(a, b, prev.running, prev.ready);
        // The gaps overlapping [a, b): all workers busy or not throughout.
        while let Some(gap) = gaps.get(next_gap) {
            if gap.from >= b {
                break;
            }
            let (lo, hi) = (a.max(gap.from), b.min(gap.to));
            if lo < hi {
                let category = if prev.running == workers {
                    BUSY
                } else {
                    gap.category
                };
                let in_gap = pieces.len() > gap_first_piece;
                match pieces.last_mut() {
                    Some(last) if in_gap && last.category == category && last.to == lo => {
                        last.to = hi;
                    }
                    _ => pieces.push(Piece {
                        from: lo,
                        to: hi,
                        category,
                    }),
                }
            }
            if gap.to > b {
                break;
            }
            next_gap += 1;
            gap_first_piece = pieces.len();
        }
    });
    pieces.extend(steps.iter().map(|step| {
        let s = dag.strand(step.strand);
        Piece {
            from: s.start,
            to: s.end,
            category: WORK,
        }
    }));
    Gathered {
        buckets: down.finish(),
        pieces,
    }
}

/// The y ranges of the profile plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ProfileScale {
    /// Top of the left axis: running, the worker line, and ready when it
    /// fits.
    top: f64,
    /// Top of a right axis for ready alone, when its mean exceeds four times
    /// the worker count somewhere (it would flatten everything else).
    ready_top: Option<f64>,
}

impl ProfileScale {
    fn of(buckets: &[ProfileBucket], workers: u32) -> ProfileScale {
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

/// How a legend entry shows its colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Swatch {
    /// A filled square.
    Box,
    /// A line.
    Line,
    /// A dashed line.
    Dashed,
    /// No swatch: a plain text entry.
    Text,
}

/// One legend entry.
#[derive(Clone, Debug)]
struct Entry {
    label: String,
    colour: RGBColor,
    swatch: Swatch,
}

fn entry(label: impl Into<String>, colour: RGBColor, swatch: Swatch) -> Entry {
    Entry {
        label: label.into(),
        colour,
        swatch,
    }
}

/// The width of an entry in the legend (px), with the space after it.
fn entry_width(e: &Entry) -> i32 {
    let swatch = if e.swatch == Swatch::Text { 0 } else { 18 };
    swatch + CHAR_W * e.label.chars().count() as i32 + 16
}

/// Lays out entries left to right from `LEFT`, wrapping at the right margin;
/// returns each entry's `(x, line)`.
fn legend_layout(entries: &[Entry]) -> Vec<(i32, i32)> {
    let (mut x, mut line) = (LEFT, 0);
    entries
        .iter()
        .map(|e| {
            let w = entry_width(e);
            if x > LEFT && x + w > LEFT + PLOT_W {
                x = LEFT;
                line += 1;
            }
            let at = (x, line);
            x += w;
            at
        })
        .collect()
}

/// The number of lines a legend takes.
fn legend_lines(entries: &[Entry]) -> i32 {
    legend_layout(entries)
        .last()
        .map_or(0, |&(_, line)| line + 1)
}

/// Vertical positions of everything (px), from the worker count and the
/// legends' line counts.
#[derive(Clone, Copy, Debug)]
struct Layout {
    height: u32,
    workers: u32,
    timeline_heading: i32,
    timeline_legend: i32,
    /// The timeline chart: rows, then its x axis.
    timeline_top: i32,
    /// Height of the worker rows together.
    worker_rows_h: i32,
    path_row_top: i32,
    profile_heading: i32,
    profile_legend: i32,
    profile_top: i32,
    breakdown_heading: i32,
    path_bar: i32,
    path_legend: i32,
    run_bar: i32,
    run_legend: i32,
    note: i32,
}

impl Layout {
    fn new(workers: u32, legend_lines: [i32; 4]) -> Layout {
        let [timeline_lines, profile_lines, path_lines, run_lines] = legend_lines;
        let pitch = (320 / workers.max(1) as i32).clamp(2, 22);
        let worker_rows_h = (pitch * workers as i32).min(640);
        let mut y = 8;
        let mut take = |h: i32| {
            let at = y;
            y += h;
            at
        };
        take(58); // the title and subtitle
        let timeline_heading = take(24);
        let timeline_legend = take(LEGEND_LINE_H * timeline_lines + 4);
        let timeline_top = take(worker_rows_h + PATH_ROW_GAP + PATH_ROW_H + X_AXIS_H + 12);
        let path_row_top = timeline_top + worker_rows_h + PATH_ROW_GAP;
        let profile_heading = take(24);
        let profile_legend = take(LEGEND_LINE_H * profile_lines + 4);
        let profile_top = take(PROFILE_H + X_AXIS_H + 12);
        let breakdown_heading = take(26);
        let path_bar = take(BAR_H + 6);
        let path_legend = take(LEGEND_LINE_H * path_lines + 8);
        let run_bar = take(BAR_H + 6);
        let run_legend = take(LEGEND_LINE_H * run_lines + 4);
        let note = take(LEGEND_LINE_H + 8);
        Layout {
            height: y as u32,
            workers,
            timeline_heading,
            timeline_legend,
            timeline_top,
            worker_rows_h,
            path_row_top,
            profile_heading,
            profile_legend,
            profile_top,
            breakdown_heading,
            path_bar,
            path_legend,
            run_bar,
            run_legend,
            note,
        }
    }

    /// The pixel rows `[top, bottom)` of worker `w`'s bars.
    fn worker_row(&self, w: u32) -> (i32, i32) {
        let n = i64::from(self.workers.max(1));
        let h = i64::from(self.worker_rows_h);
        let top = self.timeline_top + (h * i64::from(w) / n) as i32;
        let next = self.timeline_top + (h * (i64::from(w) + 1) / n) as i32;
        let gap = i32::from(next - top >= 4);
        (top, (next - gap).max(top + 1))
    }
}

fn text_style(size: f64, colour: &'static RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
        .color(colour)
        .pos(Pos::new(h, v))
}

fn text(area: &Area<'_>, s: &str, at: (i32, i32), size: f64, h: HPos) -> DrawResult<()> {
    area.draw(&Text::new(
        s.to_string(),
        at,
        text_style(size, &BLACK, h, VPos::Top),
    ))?;
    Ok(())
}

/// A filled rectangle over pixels `[x0, x1) × [y0, y1)`.
fn rect(
    area: &Area<'_>,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    c: RGBColor,
) -> DrawResult<()> {
    area.draw(&Rectangle::new([(x0, y0), (x1, y1)], c.filled()))?;
    Ok(())
}

/// Draws a legend from `LEFT` at `top`.
fn draw_legend(area: &Area<'_>, entries: &[Entry], top: i32) -> DrawResult<()> {
    for (e, (x, line)) in entries.iter().zip(legend_layout(entries)) {
        let y = top + line * LEGEND_LINE_H;
        let mid = y + 7;
        let label_x = match e.swatch {
            Swatch::Box => {
                rect(area, (x, y + 1), (x + 12, y + 13), e.colour)?;
                x + 18
            }
            Swatch::Line | Swatch::Dashed => {
                let style = e.colour.stroke_width(2);
                if e.swatch == Swatch::Line {
                    area.draw(&PathElement::new(vec![(x, mid), (x + 14, mid)], style))?;
                } else {
                    area.draw(&PathElement::new(vec![(x, mid), (x + 5, mid)], style))?;
                    area.draw(&PathElement::new(vec![(x + 9, mid), (x + 14, mid)], style))?;
                }
                x + 18
            }
            Swatch::Text => x,
        };
        text(area, &e.label, (label_x, y), LABEL_SIZE, HPos::Left)?;
    }
    Ok(())
}

/// Everything the report shows, computed before drawing.
struct Report<'a> {
    dag: &'a Dag,
    analysis: &'a Analysis,
    end: u64,
    unit: Unit,
    binned: bool,
    gathered: Gathered,
    scale: ProfileScale,
    timeline_legend: Vec<Entry>,
    profile_legend: Vec<Entry>,
    path_segments: Vec<(String, u64, RGBColor)>,
    path_legend: Vec<Entry>,
    run_segments: Vec<(String, u64, RGBColor)>,
    run_legend: Vec<Entry>,
    layout: Layout,
}

impl<'a> Report<'a> {
    fn new(dag: &'a Dag, analysis: &'a Analysis) -> Report<'a> {
        let end = analysis.elapsed;
        let binned = dag.strands().len() > STRAND_LIMIT;
        let gathered = gather(dag, analysis, PLOT_W as usize);
        let scale = ProfileScale::of(&gathered.buckets, dag.workers());
        let strand_entry = if binned {
            entry(
                "busy (strands merged per pixel column)",
                BINNED_BUSY,
                Swatch::Box,
            )
        } else {
            entry("strand (colour by task)", TASK_PALETTE[0], Swatch::Box)
        };
        let mut timeline_legend = vec![
            strand_entry,
            entry("critical-path strand", CRITICAL, Swatch::Box),
            entry("busy delay", BUSY_DELAY, Swatch::Box),
            entry("scheduler delay after:", BLACK, Swatch::Text),
            entry("(start of run)", SCHEDULER_DELAY[0], Swatch::Box),
        ];
        timeline_legend.extend(
            EdgeKind::ALL
                .into_iter()
                .map(|k| entry(k.name(), SCHEDULER_DELAY[1 + k.index()], Swatch::Box)),
        );
        let profile_legend = vec![
            entry("running (mean per pixel)", RUNNING, Swatch::Line),
            entry(
                if scale.ready_top.is_some() {
                    "ready, not started (mean per pixel; right axis)"
                } else {
                    "ready, not started (mean per pixel)"
                },
                READY,
                Swatch::Line,
            ),
            entry(
                format!("workers ({})", dag.workers()),
                BLACK,
                Swatch::Dashed,
            ),
        ];
        let path = &analysis.critical_path;
        let mut path_segments = vec![
            ("work".to_string(), path.work, CRITICAL),
            ("busy delay".to_string(), path.busy_delay, BUSY_DELAY),
            (
                "scheduler delay before the first strand".to_string(),
                path.initial_scheduler_delay,
                SCHEDULER_DELAY[0],
            ),
        ];
        path_segments.extend(EdgeKind::ALL.into_iter().map(|k| {
            (
                format!("scheduler delay after {k}"),
                path.scheduler_delay_of(k),
                SCHEDULER_DELAY[1 + k.index()],
            )
        }));
        let run = &analysis.run;
        let run_segments = vec![
            ("work".to_string(), run.work, RUN_WORK),
            (
                "delay (idle, strands ready)".to_string(),
                run.delay,
                RUN_DELAY,
            ),
            (
                "nowork (idle, nothing ready)".to_string(),
                run.nowork,
                RUN_NOWORK,
            ),
        ];
        let path_legend = segment_legend(&path_segments, path.length);
        let run_legend = segment_legend(&run_segments, run.total());
        let lines = [
            legend_lines(&timeline_legend),
            legend_lines(&profile_legend),
            legend_lines(&path_legend),
            legend_lines(&run_legend),
        ];
        Report {
            dag,
            analysis,
            end,
            unit: unit_for(end),
            binned,
            gathered,
            scale,
            timeline_legend,
            profile_legend,
            path_segments,
            path_legend,
            run_segments,
            run_legend,
            layout: Layout::new(dag.workers(), lines),
        }
    }

    /// The axis range in the report's unit.
    fn axis_end(&self) -> f64 {
        (self.end.max(1) as f64 / self.unit.ns).max(f64::MIN_POSITIVE)
    }

    /// Builds a chart on the shared time axis whose plot spans
    /// `[top, top + h)`, with room for a right axis when asked for.
    fn time_chart<'b>(
        &self,
        root: &Area<'b>,
        (top, h): (i32, i32),
        y_range: Range<f64>,
        right_axis: bool,
    ) -> DrawResult<Chart<'b>> {
        let area = root
            .clone()
            .shrink((0, top), (WIDTH, (h + X_AXIS_H) as u32));
        let mut builder = ChartBuilder::on(&area);
        builder.y_label_area_size(LEFT).x_label_area_size(X_AXIS_H);
        if right_axis {
            builder.right_y_label_area_size(RIGHT);
        } else {
            builder.margin_right(RIGHT);
        }
        let chart = builder.build_cartesian_2d(0.0..self.axis_end(), y_range)?;
        debug_assert_eq!(
            chart.plotting_area().get_pixel_range().0,
            LEFT..LEFT + PLOT_W,
            "the plots span the columns the report bins into"
        );
        Ok(chart)
    }

    /// Draws a time chart's grid and axes, with `y_labels` labels on its
    /// left axis (0: none).
    fn draw_time_mesh(
        &self,
        chart: &mut Chart<'_>,
        y_labels: usize,
        y_desc: &str,
    ) -> DrawResult<()> {
        let x_format = axis_format(self.axis_end());
        let y_format = axis_format(chart.y_range().end);
        chart
            .configure_mesh()
            .x_labels(12)
            .y_labels(y_labels)
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .x_desc(format!("time ({})", self.unit.name))
            .y_desc(y_desc)
            .label_style((FONT, 13.0))
            .axis_desc_style((FONT, 14.0))
            .light_line_style(TRANSPARENT)
            .bold_line_style(RGBColor(220, 220, 220))
            .draw()?;
        Ok(())
    }

    fn draw(&self, root: &Area<'_>) -> DrawResult<()> {
        root.fill(&WHITE)?;
        self.draw_title(root)?;
        self.draw_timeline(root)?;
        self.draw_profile(root)?;
        self.draw_breakdown(root)
    }

    fn draw_title(&self, root: &Area<'_>) -> DrawResult<()> {
        let a = self.analysis;
        let title = format!(
            "Run profile: {} worker{}, {} elapsed, {} strand{}",
            a.workers,
            if a.workers == 1 { "" } else { "s" },
            format_duration(a.elapsed),
            a.strands,
            if a.strands == 1 { "" } else { "s" },
        );
        root.draw(&Text::new(
            title,
            (LEFT, 8),
            TextStyle::from((FONT, TITLE_SIZE, FontStyle::Bold))
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        let path = &a.critical_path;
        let drawn = if self.binned {
            format!(
                "timeline binned per pixel column ({} strands > {STRAND_LIMIT})",
                a.strands
            )
        } else {
            "timeline: one bar per strand".to_string()
        };
        let subtitle = format!(
            "critical path: {} strands, work {:.1}% of its length; run: work {:.1}% of elapsed × workers; {drawn}",
            path.steps.len(),
            percent(path.work, path.length),
            percent(a.run.work, a.run.total()),
        );
        text(root, &subtitle, (LEFT, 38), LABEL_SIZE, HPos::Left)
    }

    fn draw_timeline(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        text(
            root,
            "Timeline (one row per worker)",
            (LEFT, l.timeline_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        draw_legend(root, &self.timeline_legend, l.timeline_legend)?;
        let rows_h = l.worker_rows_h + PATH_ROW_GAP + PATH_ROW_H;
        let mut chart = self.time_chart(root, (l.timeline_top, rows_h), 0.0..1.0, false)?;
        self.draw_time_mesh(&mut chart, 0, "")?;
        self.draw_worker_labels(root)?;
        if self.binned {
            self.draw_binned_workers(root)?;
        } else {
            self.draw_strands(root)?;
        }
        self.draw_path_row(root)
    }

    fn draw_worker_labels(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        let workers = self.dag.workers();
        let pitch = l.worker_rows_h as f64 / f64::from(workers.max(1));
        let every = (12.0 / pitch).ceil().max(1.0) as u32;
        let style = text_style(12.0, &BLACK, HPos::Right, VPos::Center);
        for w in (0..workers).step_by(every as usize) {
            let (top, bottom) = l.worker_row(w);
            root.draw(&Text::new(
                format!("w{w}"),
                (LEFT - 6, (top + bottom) / 2),
                style.clone(),
            ))?;
        }
        root.draw(&Text::new(
            "critical path",
            (LEFT - 6, l.path_row_top + PATH_ROW_H / 2),
            style,
        ))?;
        Ok(())
    }

    /// One bar per strand: `[start, end)` rounded to pixels, at least 1 px
    /// wide, 1 px shorter when 3 px or more so that neighbours stay apart.
    fn strand_span(&self, start: u64, end: u64) -> (i32, i32) {
        let x0 = x_pixel(start, self.end);
        let mut x1 = x_pixel(end, self.end).max(x0 + 1);
        if x1 - x0 >= 3 {
            x1 -= 1;
        }
        (x0, x1)
    }

    fn on_path(&self) -> Vec<bool> {
        let mut on_path = vec![false; self.dag.strands().len()];
        for step in &self.analysis.critical_path.steps {
            on_path[step.strand.index()] = true;
        }
        on_path
    }

    fn draw_strands(&self, root: &Area<'_>) -> DrawResult<()> {
        let on_path = self.on_path();
        for (i, s) in self.dag.strands().iter().enumerate() {
            let (top, bottom) = self.layout.worker_row(s.worker);
            let (x0, x1) = self.strand_span(s.start, s.end);
            let colour = if on_path[i] {
                CRITICAL
            } else {
                TASK_PALETTE[s.task as usize % TASK_PALETTE.len()]
            };
            rect(root, (x0, top), (x1, bottom), colour)?;
        }
        Ok(())
    }

    /// Each worker row cut into columns: busy when strands cover at least
    /// half of the column, critical when critical-path strands cover at least
    /// half of that; equal neighbours merge.
    fn draw_binned_workers(&self, root: &Area<'_>) -> DrawResult<()> {
        if self.end == 0 {
            return Ok(());
        }
        let workers = self.dag.workers().max(1) as usize;
        let wanted = (CELL_BUDGET / workers).clamp(8, PLOT_W as usize);
        let columns = Columns::new(self.end, wanted);
        let on_path = self.on_path();
        let mut busy = vec![0u64; columns.count];
        let mut critical = vec![0u64; columns.count];
        for w in 0..self.dag.workers() {
            busy.fill(0);
            critical.fill(0);
            // A worker's strands come in time order: the first column of
            // each is found by moving forward.
            let mut first = 0;
            for id in self.dag.worker_strands(w) {
                let s = self.dag.strand(id);
                if s.start == s.end {
                    continue;
                }
                while columns.start(first + 1) <= s.start {
                    first += 1;
                }
                let critical_strand = on_path[id.index()];
                columns.add(first, (s.start, s.end), |c, overlap| {
                    busy[c] += overlap;
                    if critical_strand {
                        critical[c] += overlap;
                    }
                });
            }
            let state = |c: usize| {
                let width = columns.start(c + 1) - columns.start(c);
                if 2 * busy[c] < width {
                    None
                } else if 2 * critical[c] >= busy[c] {
                    Some(CRITICAL)
                } else {
                    Some(BINNED_BUSY)
                }
            };
            let (top, bottom) = self.layout.worker_row(w);
            draw_runs(root, &columns, state, (top, bottom))?;
        }
        Ok(())
    }

    fn draw_path_row(&self, root: &Area<'_>) -> DrawResult<()> {
        let (top, bottom) = (
            self.layout.path_row_top,
            self.layout.path_row_top + PATH_ROW_H,
        );
        let pieces = &self.gathered.pieces;
        if !self.binned && pieces.len() <= PLOT_W as usize {
            // Delays first, then the strands over them.
            for p in pieces.iter().filter(|p| p.category != WORK) {
                let x0 = x_pixel(p.from, self.end);
                let x1 = x_pixel(p.to, self.end).max(x0 + 1);
                rect(root, (x0, top), (x1, bottom), path_colour(p.category))?;
            }
            for p in pieces.iter().filter(|p| p.category == WORK) {
                let (x0, x1) = self.strand_span(p.from, p.to);
                rect(root, (x0, top), (x1, bottom), CRITICAL)?;
            }
            return Ok(());
        }
        if self.end == 0 {
            return Ok(());
        }
        // Each column takes the category covering most of it.
        let columns = Columns::new(self.end, PLOT_W as usize);
        let mut cover = vec![[0u64; PATH_CATEGORIES]; columns.count];
        for p in pieces.iter().filter(|p| p.from < p.to) {
            columns.add(columns.of(p.from), (p.from, p.to), |c, overlap| {
                cover[c][p.category] += overlap;
            });
        }
        let state = |c: usize| {
            let best = (0..PATH_CATEGORIES)
                .max_by_key(|&k| (cover[c][k], std::cmp::Reverse(k)))
                .unwrap_or(WORK);
            (cover[c][best] > 0).then(|| path_colour(best))
        };
        draw_runs(root, &columns, state, (top, bottom))
    }

    fn draw_profile(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        text(
            root,
            "Parallelism profile (strands running, and ready but not started)",
            (LEFT, l.profile_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        draw_legend(root, &self.profile_legend, l.profile_legend)?;
        let buckets = &self.gathered.buckets;
        let workers = f64::from(self.dag.workers());
        let scale = self.scale;
        let chart = self.time_chart(
            root,
            (l.profile_top, PROFILE_H),
            0.0..scale.top,
            scale.ready_top.is_some(),
        )?;
        let ns = self.unit.ns;
        let step = |value: fn(&ProfileBucket) -> f64| -> Vec<(f64, f64)> {
            buckets
                .iter()
                .flat_map(|b| {
                    let v = value(b);
                    [(b.start as f64 / ns, v), (b.end as f64 / ns, v)]
                })
                .collect()
        };
        let running = step(|b| b.mean_running);
        let mut area = vec![(0.0, 0.0)];
        area.extend(running.iter().copied());
        area.push((self.end as f64 / ns, 0.0));
        let ready = LineSeries::new(step(|b| b.mean_ready), READY.stroke_width(2));
        let draw_running = |chart: &mut Chart<'_>| -> DrawResult<()> {
            chart.draw_series(std::iter::once(Polygon::new(
                area.clone(),
                RUNNING.mix(0.25).filled(),
            )))?;
            chart.draw_series(LineSeries::new(running.clone(), RUNNING.stroke_width(1)))?;
            chart.draw_series(DashedLineSeries::new(
                vec![(0.0, workers), (self.axis_end(), workers)],
                6,
                4,
                BLACK.stroke_width(1),
            ))?;
            Ok(())
        };
        match scale.ready_top {
            None => {
                let mut chart = chart;
                self.draw_time_mesh(&mut chart, 6, "strands")?;
                draw_running(&mut chart)?;
                chart.draw_series(ready)?;
            }
            Some(top) => {
                // Ready counts dwarf the worker count: their own axis, on
                // the right (taken over by the secondary coordinates before
                // the primary mesh is drawn, so that it stays on the left).
                let mut dual = chart.set_secondary_coord(0.0..self.axis_end(), 0.0..top);
                self.draw_time_mesh(&mut dual, 6, "running")?;
                let y_format = axis_format(top);
                dual.configure_secondary_axes()
                    .y_labels(6)
                    .y_label_formatter(&y_format)
                    .y_desc("ready")
                    .label_style((FONT, 13.0).into_font().color(&READY))
                    .axis_desc_style((FONT, 14.0).into_font().color(&READY))
                    .draw()?;
                draw_running(&mut dual)?;
                dual.draw_secondary_series(ready)?;
            }
        }
        Ok(())
    }

    fn draw_breakdown(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        let a = self.analysis;
        text(
            root,
            "Breakdown",
            (LEFT, l.breakdown_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        let path_length = a.critical_path.length;
        draw_bar(
            root,
            "critical path",
            &self.path_segments,
            path_length,
            l.path_bar,
        )?;
        draw_legend(root, &self.path_legend, l.path_legend)?;
        let total = a.run.total();
        draw_bar(root, "run", &self.run_segments, total, l.run_bar)?;
        draw_legend(root, &self.run_legend, l.run_legend)?;
        let note = format!(
            "critical path = {} ({} strands); run = elapsed × workers; \
             nowork during critical-path scheduler delay: {:.1}% of the run ({:.1}% of all nowork)",
            format_duration(path_length),
            a.critical_path.steps.len(),
            percent(a.nowork_from_critical_scheduler_delay, total),
            percent(a.nowork_from_critical_scheduler_delay, a.run.nowork),
        );
        text(root, &note, (LEFT, l.note), 13.0, HPos::Left)
    }
}

/// Draws columns as rectangles over `[top, bottom)`, merging neighbours of
/// the same colour; `state(c)` is column `c`'s colour, `None` for nothing.
fn draw_runs(
    root: &Area<'_>,
    columns: &Columns,
    state: impl Fn(usize) -> Option<RGBColor>,
    (top, bottom): (i32, i32),
) -> DrawResult<()> {
    let mut run: Option<(usize, RGBColor)> = None;
    for c in 0..=columns.count {
        let here = if c < columns.count { state(c) } else { None };
        match run {
            Some((_, colour)) if here == Some(colour) => {}
            _ => {
                if let Some((from, colour)) = run {
                    rect(
                        root,
                        (columns.pixel(from), top),
                        (columns.pixel(c), bottom),
                        colour,
                    )?;
                }
                run = here.map(|colour| (c, colour));
            }
        }
    }
    Ok(())
}

/// The legend of a breakdown bar: each segment's name and percentage.
fn segment_legend(segments: &[(String, u64, RGBColor)], whole: u64) -> Vec<Entry> {
    segments
        .iter()
        .map(|(name, value, colour)| {
            entry(
                format!("{name} {:.1}%", percent(*value, whole)),
                *colour,
                Swatch::Box,
            )
        })
        .collect()
}

/// A stacked horizontal bar of `segments` (shares of `whole`) across the
/// plot width, labelled on the left, with percentages on the wide segments.
fn draw_bar(
    root: &Area<'_>,
    label: &str,
    segments: &[(String, u64, RGBColor)],
    whole: u64,
    top: i32,
) -> DrawResult<()> {
    root.draw(&Text::new(
        label.to_string(),
        (LEFT - 6, top + BAR_H / 2),
        text_style(13.0, &BLACK, HPos::Right, VPos::Center),
    ))?;
    rect(
        root,
        (LEFT, top),
        (LEFT + PLOT_W, top + BAR_H),
        RGBColor(245, 245, 245),
    )?;
    let mut sum = 0u64;
    for (_, value, colour) in segments {
        let x0 = x_pixel(sum, whole);
        sum += value;
        let x1 = x_pixel(sum, whole);
        if x1 <= x0 {
            continue;
        }
        rect(root, (x0, top), (x1, top + BAR_H), *colour)?;
        let share = percent(*value, whole);
        let label = format!("{share:.1}%");
        if x1 - x0 >= CHAR_W * label.len() as i32 + 8 {
            let RGBColor(r, g, b) = *colour;
            let luminance = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
            let ink: &'static RGBColor = if luminance < 150.0 { &WHITE } else { &BLACK };
            root.draw(&Text::new(
                label,
                ((x0 + x1) / 2, top + BAR_H / 2),
                text_style(13.0, ink, HPos::Center, VPos::Center),
            ))?;
        }
    }
    Ok(())
}

fn draw_report(dag: &Dag, analysis: &Analysis, svg: &mut String) -> DrawResult<()> {
    let report = Report::new(dag, analysis);
    let root = SVGBackend::with_string(svg, (WIDTH, report.layout.height)).into_drawing_area();
    report.draw(&root)?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{edge, fork_join_edges, strand};
    use super::super::{analyze, Timeline};
    use super::*;

    /// A small fork-join on 3 workers with delays: s0 w0 [0,10) forks s1
    /// (child, stolen late by w1 at [15,30)); s2 w0 [10,20) continues and
    /// forks s3 (w2 [22,26)); s4 w0 [20,21); after the joins s5 w0 [33,40).
    fn small_dag() -> Dag {
        let strands = vec![
            strand(0, 0, 0, 10),
            strand(1, 1, 15, 30),
            strand(0, 0, 10, 20),
            strand(2, 2, 22, 26),
            strand(0, 0, 20, 21),
            strand(0, 0, 33, 40),
        ];
        let edges = vec![
            edge(0, 1, EdgeKind::Create),
            edge(0, 2, EdgeKind::CreateContinue),
            edge(2, 3, EdgeKind::Create),
            edge(2, 4, EdgeKind::CreateContinue),
            edge(1, 5, EdgeKind::End),
            edge(3, 5, EdgeKind::End),
            edge(4, 5, EdgeKind::WaitContinue),
        ];
        Dag::new(3, strands, edges).unwrap()
    }

    /// The `<rect …/>` elements of an SVG as (x, y, width, height, fill).
    fn rects(svg: &str) -> Vec<(i32, i32, i32, i32, String)> {
        let attr = |tag: &str, name: &str| -> String {
            let key = format!(" {name}=\"");
            let from = tag.find(&key).unwrap() + key.len();
            tag[from..from + tag[from..].find('"').unwrap()].to_string()
        };
        svg.split("<rect")
            .skip(1)
            .map(|tag| {
                let tag = &tag[..tag.find("/>").unwrap()];
                let num = |name: &str| attr(tag, name).parse::<i32>().unwrap();
                (
                    num("x"),
                    num("y"),
                    num("width"),
                    num("height"),
                    attr(tag, "fill"),
                )
            })
            .collect()
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    #[test]
    fn units_and_durations() {
        assert_eq!(unit_for(0).name, "ns");
        assert_eq!(unit_for(9_999).name, "ns");
        assert_eq!(unit_for(10_000).name, "µs");
        assert_eq!(unit_for(12_000_000).name, "ms");
        assert_eq!(unit_for(30_000_000_000).name, "s");
        assert_eq!(format_duration(35), "35 ns");
        assert_eq!(format_duration(12_345_678), "12.346 ms");
    }

    #[test]
    fn axis_labels_drop_needless_decimals() {
        let f = axis_format(4.48);
        assert_eq!(
            (f(&0.0), f(&4.0), f(&2.5)),
            ("0".into(), "4".into(), "2.5".into())
        );
        let f = axis_format(6720.0);
        assert_eq!((f(&6000.0), f(&0.0)), ("6000".into(), "0".into()));
        let f = axis_format(0.05);
        assert_eq!((f(&0.0125), f(&0.04)), ("0.0125".into(), "0.04".into()));
        assert_eq!(axis_format(0.3)(&0.30000000004), "0.3");
    }

    #[test]
    fn columns_cover_the_run_exactly() {
        for (end, wanted) in [(10u64, 3usize), (35, 4), (1_000_003, 1070), (5, 1070)] {
            let c = Columns::new(end, wanted);
            assert_eq!(c.count, wanted.min(end as usize));
            assert_eq!((c.start(0), c.start(c.count)), (0, end));
            assert_eq!((c.pixel(0), c.pixel(c.count)), (LEFT, LEFT + PLOT_W));
            for t in (0..end).step_by((end / 97).max(1) as usize) {
                let k = c.of(t);
                assert!(c.start(k) <= t && t < c.start(k + 1), "{end} {wanted} {t}");
            }
        }
    }

    /// 2 workers: s0 w0 [0,10) forks s1, which w1 runs only at [25,30)
    /// after a root s4 w1 [0,15); the continuation s2 w0 [10,20); the join
    /// s3 w0 [30,32). The path s0 → s1 (create) → s3 (end) has one gap,
    /// [10,25): busy on [10,15) (s2 and s4 run), then scheduler delay after
    /// create on [15,25) (one piece, though running drops again at 20).
    fn partly_busy_gap() -> Dag {
        let strands = vec![
            strand(0, 0, 0, 10),
            strand(1, 1, 25, 30),
            strand(0, 0, 10, 20),
            strand(0, 0, 30, 32),
            strand(2, 1, 0, 15),
        ];
        Dag::new(2, strands, fork_join_edges()).unwrap()
    }

    #[test]
    fn path_pieces_of_a_partly_busy_gap() {
        let dag = partly_busy_gap();
        let g = gather(&dag, &analyze(&dag), 4);
        let create = scheduler_category(Some(EdgeKind::Create));
        let piece = |from, to, category| Piece { from, to, category };
        assert_eq!(
            g.pieces,
            vec![
                piece(10, 15, BUSY),
                piece(15, 25, create),
                piece(0, 10, WORK),
                piece(25, 30, WORK),
                piece(30, 32, WORK),
            ]
        );
    }

    #[test]
    fn path_pieces_match_the_timeline() {
        for dag in [small_dag(), partly_busy_gap()] {
            let a = analyze(&dag);
            let g = gather(&dag, &a, 8);
            let timeline = Timeline::new(&dag);
            let mut expected = Vec::new();
            for step in &a.critical_path.steps {
                let s = dag.strand(step.strand);
                for (from, to, busy) in timeline.busy_runs(step.gap_start, s.start) {
                    let category = if busy {
                        BUSY
                    } else {
                        scheduler_category(step.via)
                    };
                    expected.push(Piece { from, to, category });
                }
            }
            let gaps: Vec<Piece> = g
                .pieces
                .iter()
                .copied()
                .filter(|p| p.category != WORK)
                .collect();
            assert_eq!(gaps, expected);
            let p = &a.critical_path;
            let total = |cat: usize| -> u64 {
                g.pieces
                    .iter()
                    .filter(|x| x.category == cat)
                    .map(|x| x.to - x.from)
                    .sum()
            };
            assert_eq!(total(WORK), p.work);
            assert_eq!(total(BUSY), p.busy_delay);
            assert_eq!(total(2), p.initial_scheduler_delay);
            for k in EdgeKind::ALL {
                assert_eq!(total(scheduler_category(Some(k))), p.scheduler_delay_of(k));
            }
            assert_eq!(
                g.buckets,
                super::super::parallelism_profile(&dag).downsample(8)
            );
        }
    }

    #[test]
    fn small_report_has_one_bar_per_strand_and_every_legend() {
        let dag = small_dag();
        let a = analyze(&dag);
        let svg = svg_report(&dag, &a);
        assert!(svg.starts_with("<svg"), "{}", &svg[..60]);
        assert!(svg.trim_end().ends_with("</svg>"));
        let report = Report::new(&dag, &a);
        let l = report.layout;
        let strand_fills: Vec<String> = TASK_PALETTE
            .iter()
            .chain([&CRITICAL])
            .map(|&c| hex(c))
            .collect();
        let all = rects(&svg);
        let in_rows = |y: i32, top: i32, bottom: i32| top <= y && y < bottom;
        let worker_bars = all
            .iter()
            .filter(|r| {
                in_rows(r.1, l.timeline_top, l.timeline_top + l.worker_rows_h)
                    && strand_fills.contains(&r.4)
            })
            .count();
        assert_eq!(worker_bars, dag.strands().len());
        let path_bars = all
            .iter()
            .filter(|r| {
                in_rows(r.1, l.path_row_top, l.path_row_top + PATH_ROW_H) && r.4 == hex(CRITICAL)
            })
            .count();
        assert_eq!(path_bars, a.critical_path.steps.len());
        // Every strand on its worker's row.
        for s in dag.strands() {
            let (top, bottom) = l.worker_row(s.worker);
            let (x0, x1) = report.strand_span(s.start, s.end);
            assert!(
                all.iter()
                    .any(|r| (r.0, r.1, r.0 + r.2, r.1 + r.3) == (x0, top, x1, bottom)),
                "{s:?}"
            );
        }
        for label in [
            "Run profile: 3 workers, 40 ns elapsed, 6 strands",
            "Timeline",
            "w0",
            "w2",
            "critical path",
            "critical-path strand",
            "busy delay",
            "scheduler delay after:",
            "create-continue",
            "wait-continue",
            "Parallelism profile",
            "running",
            "ready, not started",
            "workers (3)",
            "Breakdown",
            "scheduler delay after end",
            "delay (idle, strands ready)",
            "nowork (idle, nothing ready)",
            "time (ns)",
        ] {
            assert!(svg.contains(label), "missing {label:?}");
        }
        // The text is drawn as text, in the sans-serif family.
        assert!(svg.contains("font-family=\"sans-serif\""));
    }

    #[test]
    fn a_run_of_length_zero_renders() {
        let dag = Dag::new(2, vec![strand(0, 0, 0, 0), strand(1, 1, 0, 0)], vec![]).unwrap();
        let svg = svg_report(&dag, &analyze(&dag));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}
