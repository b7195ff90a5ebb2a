//! [`svg_report`], and [`Report`]: everything the image shows, computed
//! before drawing, with the parts its panels share (the time axis, the
//! title). Each panel draws itself in its own file (`timeline_panel`,
//! `profile_panel`, `breakdown_panel`).

use std::ops::Range;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::super::analysis::{percent, Analysis};
use super::super::model::{Dag, EdgeKind};
use super::draw::{text, Area, Chart, DrawResult};
use super::layout::Layout;
use super::legend::{entry, legend_lines, segment_legend, Entry, Swatch};
use super::path::{gather, Gathered};
use super::scale::{axis_format, format_duration, unit_for, ProfileScale, Unit};
use super::style::{
    BINNED_BUSY, BUSY_DELAY, CRITICAL, FONT, LABEL_SIZE, LEFT, PLOT_W, READY, RIGHT, RUNNING,
    RUN_DELAY, RUN_NOWORK, RUN_WORK, SCHEDULER_DELAY, STRAND_LIMIT, TASK_PALETTE, TITLE_SIZE,
    WIDTH, X_AXIS_H,
};

/// Renders the run as one SVG image (about 1200 px wide): a title, the
/// timeline of every worker with the critical path and its delays, the
/// parallelism profile (`running` and `ready` over time) and the
/// breakdowns of the critical path and of the whole run as percentages.
///
/// `analysis` must be [`analyze`](crate::critical_path::analyze)`(dag)`. Runs in
/// O(n log n) for n strands (about as long as `analyze`). The image has
/// O(pixels) elements whatever the size of the run: one bar per strand up
/// to 20 000 strands, pixel columns beyond, so that it stays under 2 MB (the
/// worst case being many workers whose binned rows alternate busy and idle
/// columns). Times on the axis are in s, ms, µs or
/// ns, chosen by the run's length.
pub fn svg_report(dag: &Dag, analysis: &Analysis) -> String {
    let mut svg = String::new();
    // The backend writes into a String, and the naive font layout of the
    // `svg_backend` feature set cannot fail: drawing has no error to report.
    draw_report(dag, analysis, &mut svg).expect("drawing an SVG into a String does not fail");
    svg
}

fn draw_report(dag: &Dag, analysis: &Analysis, svg: &mut String) -> DrawResult<()> {
    let report = Report::new(dag, analysis);
    let root = SVGBackend::with_string(svg, (WIDTH, report.layout.height)).into_drawing_area();
    report.draw(&root)?;
    root.present()?;
    Ok(())
}

/// Everything the report shows, computed before drawing.
pub(super) struct Report<'a> {
    pub(super) dag: &'a Dag,
    pub(super) analysis: &'a Analysis,
    pub(super) end: u64,
    pub(super) unit: Unit,
    pub(super) binned: bool,
    pub(super) gathered: Gathered,
    pub(super) scale: ProfileScale,
    pub(super) timeline_legend: Vec<Entry>,
    pub(super) profile_legend: Vec<Entry>,
    pub(super) path_segments: Vec<(String, u64, RGBColor)>,
    pub(super) path_legend: Vec<Entry>,
    pub(super) run_segments: Vec<(String, u64, RGBColor)>,
    pub(super) run_legend: Vec<Entry>,
    pub(super) layout: Layout,
}

impl<'a> Report<'a> {
    pub(super) fn new(dag: &'a Dag, analysis: &'a Analysis) -> Report<'a> {
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
    pub(super) fn axis_end(&self) -> f64 {
        (self.end.max(1) as f64 / self.unit.ns).max(f64::MIN_POSITIVE)
    }

    /// Builds a chart on the shared time axis whose plot spans
    /// `[top, top + h)`, with room for a right axis when asked for.
    pub(super) fn time_chart<'b>(
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
    pub(super) fn draw_time_mesh(
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
}
