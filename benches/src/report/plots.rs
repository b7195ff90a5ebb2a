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

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::samples::{distinct, Sample, CHILI, PRESCIENT, RAYON, SEQUENTIAL};

const FONT: &str = "sans-serif";

/// The runner name of Prescient with default parameters, where a table
/// measures it beside the tuned ones.
pub const PRESCIENT_DEFAULT: &str = "prescient-default";

/// The lines of a speedup plot, with their colours.
const SPEEDUP_RUNNERS: [(&str, RGBColor); 4] = [
    (PRESCIENT, RGBColor(214, 39, 40)),
    (PRESCIENT_DEFAULT, RGBColor(31, 119, 180)),
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
    let path = dir.join(name);
    std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))
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
    fn no_data_no_plot() {
        let only_parallel = vec![Sample::new("x", PRESCIENT, 2, 1.0)];
        assert_eq!(speedup("t", &only_parallel).unwrap(), None);
        assert_eq!(task_cost("t", &only_parallel).unwrap(), None);
        assert_eq!(tuned_vs_default(&[("t", &only_parallel)]).unwrap(), None);
    }
}
