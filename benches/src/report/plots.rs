//! The report's SVG plots, drawn with `plotters` from the tables' shared
//! samples (`prescient_benches::samples`):
//!
//! * `<table>-speedup.svg` for every table with sequential references: one
//!   panel per program, the speedup over sequential (`T_seq / T`) against
//!   the thread count, one line per runner (Prescient, rayon, chili, and
//!   Prescient with default parameters where a table has it), the ideal
//!   dashed;
//! * `dataflow-task-cost.svg`: the cost of one dataflow task in ns against
//!   the thread count, one line per kind of task and runner;
//! * `tuned-vs-default.svg`: per program of the CF'17 and annotated tables,
//!   how much faster the parameters the analyzer chose are than the defaults
//!   (`T_default / T_tuned`) against the thread count, a line at 1.
//!
//! [`boxes`] and [`log_points`] draw the CF'17 table's own `--plots`
//! (`crate::tables::cf17::report::write_plots`).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::samples::{distinct, Sample, CHILI, PRESCIENT, RAYON, SEQUENTIAL};

const FONT: &str = "sans-serif";

/// The runner name of Prescient with default parameters, where a table
/// measures it beside the tuned ones.
pub const PRESCIENT_DEFAULT: &str = "prescient-default";

/// The lines of a speedup plot, with their colours.
const SPEEDUP_RUNNERS: [(&str, RGBColor); 5] = [
    (PRESCIENT, RGBColor(214, 39, 40)),
    (PRESCIENT_DEFAULT, RGBColor(31, 119, 180)),
    ("prescient-cf17", RGBColor(255, 127, 14)),
    (RAYON, RGBColor(44, 160, 44)),
    (CHILI, RGBColor(148, 103, 189)),
];

/// Colours for lines that are not runners (cycled).
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

const GREY: RGBColor = RGBColor(150, 150, 150);

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Draws a legend row: a line and a name per entry, left to right.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entries: &[(String, RGBColor)],
) -> Result<(), String> {
    let mut x = 20;
    for (name, color) in entries {
        area.draw(&PathElement::new(
            vec![(x, 12), (x + 24, 12)],
            color.stroke_width(3),
        ))
        .map_err(err)?;
        area.draw(&Text::new(name.clone(), (x + 30, 4), (FONT, 14)))
            .map_err(err)?;
        x += 40 + 8 * name.len() as i32;
    }
    Ok(())
}

/// A panel's series: a name, a colour and its points.
type Series = (String, RGBColor, Vec<(i32, f64)>);

/// Draws one panel with `series` against the thread count, `y_max` tall.
#[allow(clippy::too_many_arguments)]
fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    caption: &str,
    y_desc: &str,
    max_threads: i32,
    y_range: std::ops::Range<f64>,
    series: &[Series],
    reference: Option<Vec<(i32, f64)>>,
) -> Result<(), String> {
    let x_range = 0..max_threads + (max_threads / 16).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 15))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(48)
        .build_cartesian_2d(x_range, y_range)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc(y_desc)
        .x_labels(max_threads.clamp(2, 10) as usize + 1)
        .y_labels(6)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .draw()
        .map_err(err)?;
    if let Some(points) = reference {
        chart
            .draw_series(DashedLineSeries::new(points, 4, 4, GREY.stroke_width(1)))
            .map_err(err)?;
    }
    for (_, color, points) in series {
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// Small multiples: one panel per entry of `panels` (caption and series),
/// under a title and a legend; returns the SVG text.
fn grid(
    title: &str,
    legend_entries: &[(String, RGBColor)],
    panels: &[(String, Vec<Series>)],
    y_desc: &str,
    max_threads: i32,
    ideal: bool,
    line_at_one: bool,
) -> Result<String, String> {
    let n = panels.len().max(1);
    let cols = n.min(4);
    let rows = n.div_ceil(cols);
    let size = ((cols as u32 * 320).max(700), rows as u32 * 250 + 70);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, (FONT, 20)).map_err(err)?;
        let (top, body) = root.split_vertically(30);
        legend(&top, legend_entries)?;
        for ((caption, series), area) in panels.iter().zip(body.split_evenly((rows, cols))) {
            let y_top = series
                .iter()
                .flat_map(|(_, _, points)| points.iter().map(|&(_, y)| y))
                .fold(if ideal { max_threads as f64 } else { 1.0 }, f64::max)
                * 1.1;
            let reference = if ideal {
                Some(vec![(0, 0.0), (max_threads, max_threads as f64)])
            } else if line_at_one {
                Some(vec![(0, 1.0), (max_threads, 1.0)])
            } else {
                None
            };
            panel(
                &area,
                caption,
                y_desc,
                max_threads,
                0.0..y_top,
                series,
                reference,
            )?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The speedup plot of one table's `samples`, or `None` if no program has
/// both a sequential time and a parallel one.
pub fn speedup(table: &str, samples: &[Sample]) -> Result<Option<String>, String> {
    let runs: Vec<&Sample> = samples
        .iter()
        .filter(|s| !s.per_task && s.seconds > 0.0)
        .collect();
    let max_threads = runs.iter().map(|s| s.threads).max().unwrap_or(1) as i32;
    let present: Vec<(&str, RGBColor)> = SPEEDUP_RUNNERS
        .iter()
        .copied()
        .filter(|(runner, _)| runs.iter().any(|s| s.runner == *runner))
        .collect();
    let mut panels = Vec::new();
    for program in distinct(runs.iter().copied(), |s| s.program.as_str()) {
        let Some(sequential) = runs
            .iter()
            .find(|s| s.program == program && s.runner == SEQUENTIAL)
        else {
            continue;
        };
        let series: Vec<Series> = present
            .iter()
            .map(|&(runner, color)| {
                let mut points: Vec<(i32, f64)> = runs
                    .iter()
                    .filter(|s| s.program == program && s.runner == runner)
                    .map(|s| (s.threads as i32, sequential.seconds / s.seconds))
                    .collect();
                points.sort_by_key(|p| p.0);
                (runner.to_string(), color, points)
            })
            .filter(|(_, _, points)| !points.is_empty())
            .collect();
        if !series.is_empty() {
            panels.push((program.to_string(), series));
        }
    }
    if panels.is_empty() {
        return Ok(None);
    }
    let mut entries: Vec<(String, RGBColor)> =
        present.iter().map(|&(r, c)| (r.to_string(), c)).collect();
    entries.push(("ideal".to_string(), GREY));
    grid(
        &format!("{table}: speedup over sequential, T_seq / T"),
        &entries,
        &panels,
        "T_seq / T",
        max_threads,
        true,
        false,
    )
    .map(Some)
}

/// The per-task cost plot of `samples` (those marked per task), or `None`
/// if there are none.
pub fn task_cost(table: &str, samples: &[Sample]) -> Result<Option<String>, String> {
    let per_task: Vec<&Sample> = samples.iter().filter(|s| s.per_task).collect();
    if per_task.is_empty() {
        return Ok(None);
    }
    let max_threads = per_task.iter().map(|s| s.threads).max().unwrap_or(1) as i32;
    let mut series = Vec::new();
    for program in distinct(per_task.iter().copied(), |s| s.program.as_str()) {
        let of_program: Vec<&Sample> = per_task
            .iter()
            .copied()
            .filter(|s| s.program == program)
            .collect();
        for runner in distinct(of_program.iter().copied(), |s| s.runner.as_str()) {
            let mut points: Vec<(i32, f64)> = of_program
                .iter()
                .filter(|s| s.runner == runner)
                .map(|s| (s.threads as i32, s.seconds * 1e9))
                .collect();
            points.sort_by_key(|p| p.0);
            let color = PALETTE[series.len() % PALETTE.len()];
            series.push((format!("{program}, {runner}"), color, points));
        }
    }
    let entries: Vec<(String, RGBColor)> = series.iter().map(|(n, c, _)| (n.clone(), *c)).collect();
    // The legend is long: one row of the grid per ~3 entries would be
    // neater, but a single panel keeps the lines comparable.
    let panels = vec![(format!("{table}: ns per task"), series)];
    grid(
        &format!("{table}: the cost of one task against the thread count"),
        &entries,
        &panels,
        "ns per task",
        max_threads,
        false,
        false,
    )
    .map(Some)
}

/// The tuned-against-default plot over the `(table, samples)` given, or
/// `None` if no program has both runners.
pub fn tuned_vs_default(tables: &[(&str, &[Sample])]) -> Result<Option<String>, String> {
    let mut series: Vec<Series> = Vec::new();
    let mut max_threads = 1;
    for (table, samples) in tables {
        let runs: Vec<&Sample> = samples
            .iter()
            .filter(|s| !s.per_task && s.seconds > 0.0)
            .collect();
        for program in distinct(runs.iter().copied(), |s| s.program.as_str()) {
            let mut points: Vec<(i32, f64)> = runs
                .iter()
                .filter(|s| s.program == program && s.runner == PRESCIENT)
                .filter_map(|tuned| {
                    let default = runs.iter().find(|s| {
                        s.program == program
                            && s.runner == PRESCIENT_DEFAULT
                            && s.threads == tuned.threads
                    })?;
                    Some((tuned.threads as i32, default.seconds / tuned.seconds))
                })
                .collect();
            if points.is_empty() {
                continue;
            }
            points.sort_by_key(|p| p.0);
            max_threads = max_threads.max(points.iter().map(|p| p.0).max().unwrap_or(1));
            let color = PALETTE[series.len() % PALETTE.len()];
            series.push((format!("{table}: {program}"), color, points));
        }
    }
    if series.is_empty() {
        return Ok(None);
    }
    let entries: Vec<(String, RGBColor)> = series.iter().map(|(n, c, _)| (n.clone(), *c)).collect();
    let panels: Vec<(String, Vec<Series>)> =
        series.into_iter().map(|s| (s.0.clone(), vec![s])).collect();
    grid(
        "Parameters the analyzer chose against the defaults: T_default / T_tuned (above 1: tuning helps)",
        &entries[..0],
        &panels,
        "T_default / T_tuned",
        max_threads,
        false,
        true,
    )
    .map(Some)
}

/// Writes `svg` to `dir/name`.
pub fn write(dir: &Path, name: &str, svg: &str) -> Result<(), String> {
    crate::harness::write::write_file(&dir.join(name), svg)
}

/// Category axis labels: `labels[i]` at `i`, nothing at the padding.
fn category_label(labels: &[String], i: i32) -> String {
    usize::try_from(i)
        .ok()
        .and_then(|i| labels.get(i))
        .cloned()
        .unwrap_or_default()
}

/// A box plot's figures: quartiles (linear interpolation between the
/// sorted values) and Tukey's whiskers (the most extreme values within 1.5
/// interquartile ranges of the box).
#[derive(Clone, Copy, Debug, PartialEq)]
struct BoxStats {
    low: f64,
    q1: f64,
    median: f64,
    q3: f64,
    high: f64,
}

impl BoxStats {
    fn of(values: &[f64]) -> Option<BoxStats> {
        let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let quantile = |q: f64| {
            let pos = q * (v.len() - 1) as f64;
            let (below, frac) = (pos.floor() as usize, pos.fract());
            v[below] + (v[(below + 1).min(v.len() - 1)] - v[below]) * frac
        };
        let (q1, median, q3) = (quantile(0.25), quantile(0.5), quantile(0.75));
        let iqr = q3 - q1;
        let low = v
            .iter()
            .copied()
            .find(|&x| x >= q1 - 1.5 * iqr)
            .unwrap_or(q1);
        let high = v
            .iter()
            .rev()
            .copied()
            .find(|&x| x <= q3 + 1.5 * iqr)
            .unwrap_or(q3);
        Some(BoxStats {
            low,
            q1,
            median,
            q3,
            high,
        })
    }
}

/// A chart over categories `labels` (`x_desc`) with a line at `y = one`,
/// under `title` and a legend; `draw` adds the rest. Returns the SVG text.
fn categories(
    (title, x_desc, y_desc): (&str, &str, &str),
    legend_entries: &[(String, RGBColor)],
    labels: &[String],
    y_range: std::ops::Range<f64>,
    (one, y_label): (f64, &dyn Fn(&f64) -> String),
    draw: impl FnOnce(
        &mut ChartContext<
            '_,
            SVGBackend<'_>,
            Cartesian2d<
                plotters::coord::types::RangedCoordi32,
                plotters::coord::types::RangedCoordf64,
            >,
        >,
    ) -> Result<(), String>,
) -> Result<String, String> {
    let n = labels.len().max(1) as i32;
    let width = (220 + 120 * n as u32).max(700);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, (FONT, 20)).map_err(err)?;
        let (top, body) = root.split_vertically(30);
        legend(&top, legend_entries)?;
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(-1..n, y_range)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n as usize + 2)
            .x_label_formatter(&|i| category_label(labels, *i))
            .y_label_formatter(y_label)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                vec![(-1, one), (n, one)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        draw(&mut chart)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Box plots: per category of `labels`, one box per entry of `series` over
/// `data[category][series]`, each value a point on it, and a line at 1.
pub fn boxes(
    (title, x_desc, y_desc): (&str, &str, &str),
    labels: &[String],
    series: &[(String, RGBColor)],
    data: &[Vec<Vec<f64>>],
) -> Result<String, String> {
    let all = data.iter().flatten().flatten().copied();
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.1).max(0.05);
    let y_range = (lo - pad).max(0.0)..(hi + pad);
    let label = |y: &f64| format!("{y:.2}");
    categories(
        (title, x_desc, y_desc),
        series,
        labels,
        y_range,
        (1.0, &label),
        |chart| {
            let box_width = 28;
            let k = series.len().max(1) as i32;
            for (i, per_series) in data.iter().enumerate() {
                for (j, values) in per_series.iter().enumerate() {
                    let Some(b) = BoxStats::of(values) else {
                        continue;
                    };
                    let color = series[j].1;
                    let (x, half) = (i as i32, box_width / 2);
                    let dx = (j as i32 * 2 - (k - 1)) * (half + 4);
                    // Pixel heights between values, for the elements anchored
                    // at one value and drawn in pixels from there.
                    let py = |v: f64| chart.backend_coord(&(x, v)).1;
                    let at = |v: f64| EmptyElement::at((x, v));
                    let line = |points: Vec<(i32, i32)>, w: u32| {
                        PathElement::new(points, color.stroke_width(w))
                    };
                    let corner = (dx + half, py(b.q1) - py(b.q3));
                    let boxes = [
                        at(b.q3)
                            + Rectangle::new([(dx - half, 0), corner], color.mix(0.15).filled()),
                        at(b.q3) + Rectangle::new([(dx - half, 0), corner], color.stroke_width(2)),
                    ];
                    let lines = [
                        at(b.median) + line(vec![(dx - half, 0), (dx + half, 0)], 3),
                        at(b.q3) + line(vec![(dx, 0), (dx, py(b.high) - py(b.q3))], 2),
                        at(b.q1) + line(vec![(dx, 0), (dx, py(b.low) - py(b.q1))], 2),
                        at(b.high) + line(vec![(dx - half / 2, 0), (dx + half / 2, 0)], 2),
                        at(b.low) + line(vec![(dx - half / 2, 0), (dx + half / 2, 0)], 2),
                    ];
                    let dots: Vec<_> = values
                        .iter()
                        .map(|&v| at(v) + Circle::new((dx, 0), 3, BLACK.mix(0.55).filled()))
                        .collect();
                    chart.draw_series(boxes).map_err(err)?;
                    chart.draw_series(lines).map_err(err)?;
                    chart.draw_series(dots).map_err(err)?;
                }
            }
            Ok(())
        },
    )
}

/// Points on a log scale: per entry of `series` (a name and its (category
/// of `labels`, value) points) one colour, side by side in a category, and
/// a line at 1.
pub fn log_points(
    (title, x_desc, y_desc): (&str, &str, &str),
    labels: &[String],
    series: &[(String, Vec<(usize, f64)>)],
) -> Result<String, String> {
    let values = series.iter().flat_map(|(_, p)| p.iter().map(|&(_, v)| v));
    let (lo, hi) = values.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // A log scale drawn as log2 on a linear axis labelled with the values
    // (plotters' log axis labels little of a narrow range): at least 0.5 .. 2.
    let y_range = (lo.log2().min(-1.0) - 0.15)..(hi.log2().max(1.0) + 0.15);
    let entries: Vec<(String, RGBColor)> = series
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.clone(), PALETTE[i % PALETTE.len()]))
        .collect();
    let label = |y: &f64| format!("{:.2}", y.exp2());
    categories(
        (title, x_desc, y_desc),
        &entries,
        labels,
        y_range,
        (0.0, &label),
        |chart| {
            let k = series.len() as i32;
            for (i, (_, points)) in series.iter().enumerate() {
                let (color, dx) = (entries[i].1, (i as i32 * 2 - (k - 1)) * 5);
                chart
                    .draw_series(points.iter().map(|&(p, v)| {
                        EmptyElement::at((p as i32, v.log2()))
                            + Circle::new((dx, 0), 5, color.filled())
                    }))
                    .map_err(err)?;
            }
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Sample> {
        vec![
            Sample::new("fib(30)", SEQUENTIAL, 1, 1.0),
            Sample::new("fib(30)", PRESCIENT, 1, 1.1),
            Sample::new("fib(30)", PRESCIENT, 2, 0.55),
            Sample::new("fib(30)", PRESCIENT_DEFAULT, 2, 0.6),
            Sample::new("fib(30)", RAYON, 2, 0.6),
            Sample::per_task("empty dependent task", "prescient-dast-off", 1, 80e-9),
            Sample::per_task("empty dependent task", "prescient-dast-off", 2, 120e-9),
        ]
    }

    #[test]
    fn plots_are_svg_with_their_lines() {
        let speedup = speedup("fork-join", &samples()).unwrap().unwrap();
        assert!(speedup.starts_with("<svg"));
        assert!(speedup.contains("fib(30)") && speedup.contains("rayon"));
        let cost = task_cost("dataflow", &samples()).unwrap().unwrap();
        assert!(cost.contains("empty dependent task"));
        let tuned = tuned_vs_default(&[("cf17", &samples())]).unwrap().unwrap();
        assert!(tuned.contains("cf17: fib(30)"));
    }

    #[test]
    fn box_stats_and_category_plots() {
        let b = BoxStats::of(&[4.0, 1.0, 3.0, 2.0, 100.0]).unwrap();
        assert_eq!(
            (b.q1, b.median, b.q3, b.low, b.high),
            (2.0, 3.0, 4.0, 1.0, 4.0),
            "100 is an outlier"
        );
        assert_eq!(BoxStats::of(&[]), None);
        let labels = vec!["1".to_string(), "2".to_string()];
        let series = [("a".to_string(), GREY)];
        let svg = boxes(
            ("t", "x", "y"),
            &labels,
            &series,
            &[vec![vec![1.0, 2.0]], vec![vec![]]],
        )
        .unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        let svg = log_points(
            ("t", "x", "y"),
            &labels,
            &[("1 thread".to_string(), vec![(0, 0.5)])],
        )
        .unwrap();
        assert!(svg.contains("1 thread"));
        assert!(log_points(("t", "x", "y"), &[], &[]).is_ok());
    }

    #[test]
    fn no_data_no_plot() {
        let only_parallel = vec![Sample::new("x", PRESCIENT, 2, 1.0)];
        assert_eq!(speedup("t", &only_parallel).unwrap(), None);
        assert_eq!(task_cost("t", &only_parallel).unwrap(), None);
        assert_eq!(tuned_vs_default(&[("t", &only_parallel)]).unwrap(), None);
    }
}
