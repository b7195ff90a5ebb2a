//! `prescient-bench cf17`'s three SVG plots (drawn with `plotters`' SVG backend
//! from a [`Table`]):
//!
//! * `speedup.svg`: per program one panel, the speedup over the sequential
//!   reference (`T_seq / T`) against the thread count, one line per parallel
//!   runner, with the ideal (linear) speedup dotted;
//! * `tuned_vs_default.svg`: per thread count, box plots over the programs of
//!   the speedup of tuned (and of cf17) over default, `T_default / T`
//!   (CF'17's Fig. 7): quartiles, Tukey whiskers, each program a point on
//!   its box, a line at 1;
//! * `memory.svg`: per program, the peak RSS of tuned over default's, one
//!   point per thread count, on a log scale, a line at 1 (CF'17's Fig. 10).
//!
//! Each works with one program and with one thread count.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::tables::cf17::Table;

/// The file names of the plots, in the order [`write_all`] writes them.
pub const FILES: [&str; 3] = ["speedup.svg", "tuned_vs_default.svg", "memory.svg"];

const FONT: &str = "sans-serif";

/// The colour of a runner's lines and points (a peer's: grey).
pub fn runner_color(runner: &str) -> RGBColor {
    match runner {
        "seq" => RGBColor(0, 0, 0),
        "default" => RGBColor(31, 119, 180),
        "tuned" => RGBColor(214, 39, 40),
        "cf17" => RGBColor(255, 127, 14),
        "rayon" => RGBColor(44, 160, 44),
        "chili" => RGBColor(148, 103, 189),
        _ => RGBColor(127, 127, 127),
    }
}

/// A colour per thread count (cycled).
fn thread_color(i: usize) -> RGBColor {
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
    PALETTE[i % PALETTE.len()]
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Writes the three plots into `dir` (created if missing); returns their
/// paths.
///
/// # Errors
/// If the directory cannot be created or a plot cannot be drawn or written.
pub fn write_all(table: &Table, threads: &[usize], dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let paths: Vec<PathBuf> = FILES.iter().map(|f| dir.join(f)).collect();
    speedup(table, threads, &paths[0]).map_err(|e| format!("{}: {e}", paths[0].display()))?;
    tuned_vs_default(table, threads, &paths[1])
        .map_err(|e| format!("{}: {e}", paths[1].display()))?;
    memory(table, threads, &paths[2]).map_err(|e| format!("{}: {e}", paths[2].display()))?;
    Ok(paths)
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
        area.draw(&Circle::new((x + 12, 12), 3, color.filled()))
            .map_err(err)?;
        area.draw(&Text::new(name.clone(), (x + 30, 4), (FONT, 15)))
            .map_err(err)?;
        x += 40 + 8 * name.len() as i32;
    }
    Ok(())
}

/// The parallel runners that have at least one result in `table`.
fn parallel_runners(table: &Table) -> Vec<&str> {
    let mut runners: Vec<&str> = Vec::new();
    for o in table.outcomes.iter().filter(|o| o.result.is_ok()) {
        let runner = &o.config.runner;
        if runner.is_parallel() && !runners.contains(&runner.name.as_str()) {
            runners.push(&runner.name);
        }
    }
    runners
}

/// `speedup.svg`: small multiples, one panel per program, `T_seq / T`
/// against threads, one line per runner.
///
/// # Errors
/// If drawing or writing fails.
pub fn speedup(table: &Table, threads: &[usize], path: &Path) -> Result<(), String> {
    let n = table.programs.len().max(1);
    let cols = n.min(4);
    let rows = n.div_ceil(cols);
    let size = ((cols as u32 * 320).max(680), rows as u32 * 260 + 80);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled(
            "Speedup over the sequential reference: T_seq / T",
            (FONT, 22),
        )
        .map_err(err)?;
    let (top, grid) = root.split_vertically(30);
    let runners = parallel_runners(table);
    let mut entries: Vec<(String, RGBColor)> = runners
        .iter()
        .map(|&r| (r.to_string(), runner_color(r)))
        .collect();
    entries.push(("ideal".to_string(), RGBColor(150, 150, 150)));
    legend(&top, &entries)?;

    let max_threads = threads.iter().copied().max().unwrap_or(1) as i32;
    let x_range = 0..max_threads + (max_threads / 16).max(1);
    for (&program, panel) in table.programs.iter().zip(grid.split_evenly((rows, cols))) {
        let seq = table.seq_time(program);
        let series: Vec<(&str, Vec<(i32, f64)>)> = runners
            .iter()
            .map(|&r| {
                let points = threads
                    .iter()
                    .filter_map(|&t| {
                        let time = table.time(program, r, t)?;
                        let s = seq? / time;
                        s.is_finite().then_some((t as i32, s))
                    })
                    .collect();
                (r, points)
            })
            .collect();
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
            .fold(max_threads as f64, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(&panel)
            .caption(
                format!("{program} ({})", table.input(program).unwrap_or("?")),
                (FONT, 16),
            )
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(40)
            .build_cartesian_2d(x_range.clone(), 0.0..y_max)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("T_seq / T")
            .x_labels(max_threads.clamp(2, 10) as usize + 1)
            .y_labels(6)
            .y_label_formatter(&|y| format!("{y:.1}"))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0, 0.0), (max_threads, max_threads as f64)],
                4,
                4,
                RGBColor(150, 150, 150).stroke_width(1),
            ))
            .map_err(err)?;
        if seq.is_none() {
            chart
                .draw_series(std::iter::once(Text::new(
                    "no sequential time",
                    (1, y_max * 0.5),
                    (FONT, 14),
                )))
                .map_err(err)?;
        }
        for (runner, points) in series {
            let color = runner_color(runner);
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, color.filled())),
                )
                .map_err(err)?;
        }
    }
    root.present().map_err(err)
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
            let above = (below + 1).min(v.len() - 1);
            v[below] + (v[above] - v[below]) * frac
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

/// `tuned_vs_default.svg`: per thread count, box plots over the programs
/// of `T_default / T_tuned` and `T_default / T_cf17`, each program a point.
///
/// # Errors
/// If drawing or writing fails.
pub fn tuned_vs_default(table: &Table, threads: &[usize], path: &Path) -> Result<(), String> {
    let subjects = ["tuned", "cf17"];
    let data: Vec<Vec<Vec<f64>>> = threads
        .iter()
        .map(|&t| {
            subjects
                .iter()
                .map(|&s| {
                    table
                        .speedups(t, s, "default")
                        .into_iter()
                        .map(|(_, v)| v)
                        .collect()
                })
                .collect()
        })
        .collect();
    let all = data.iter().flatten().flatten().copied();
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.1).max(0.05);
    let y_range = (lo - pad).max(0.0) as f32..(hi + pad) as f32;

    let k = threads.len().max(1) as i32;
    let width = (260 + 140 * k as u32).max(680);
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled(
            "Speedup of tuned and cf17 over default: T_default / T",
            (FONT, 20),
        )
        .map_err(err)?;
    let (top, body) = root.split_vertically(30);
    legend(
        &top,
        &[
            ("tuned (analysed PARAMS)".to_string(), runner_color("tuned")),
            (
                "cf17 (CF'17 decision trees)".to_string(),
                runner_color("cf17"),
            ),
        ],
    )?;
    let labels: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
    let mut chart = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-1..k, y_range)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(k as usize + 2)
        .x_label_formatter(&|i| category_label(&labels, *i))
        .y_label_formatter(&|y| format!("{y:.2}"))
        .x_desc("threads")
        .y_desc("T_default / T   (> 1: faster than default)")
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            vec![(-1, 1.0f32), (k, 1.0f32)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
    let box_width = 28;
    let offset = |j: usize| (j as i32 * 2 - 1) * (box_width / 2 + 4);
    for (i, per_subject) in data.iter().enumerate() {
        for (j, values) in per_subject.iter().enumerate() {
            let Some(b) = BoxStats::of(values) else {
                continue;
            };
            let color = runner_color(subjects[j]);
            let (x, dx, half) = (i as i32, offset(j), box_width / 2);
            // Pixel heights between values, for the elements anchored at one
            // value and drawn in pixels from there.
            let py = |v: f64| chart.backend_coord(&(x, v as f32)).1;
            let at = |v: f64| EmptyElement::at((x, v as f32));
            let line = |points: Vec<(i32, i32)>, width: u32| {
                PathElement::new(points, color.stroke_width(width))
            };
            let boxes = [
                at(b.q3)
                    + Rectangle::new(
                        [(dx - half, 0), (dx + half, py(b.q1) - py(b.q3))],
                        color.mix(0.15).filled(),
                    ),
                at(b.q3)
                    + Rectangle::new(
                        [(dx - half, 0), (dx + half, py(b.q1) - py(b.q3))],
                        color.stroke_width(2),
                    ),
            ];
            let lines = [
                at(b.median) + line(vec![(dx - half, 0), (dx + half, 0)], 3),
                at(b.q3) + line(vec![(dx, 0), (dx, py(b.high) - py(b.q3))], 2),
                at(b.q1) + line(vec![(dx, 0), (dx, py(b.low) - py(b.q1))], 2),
                at(b.high) + line(vec![(dx - half / 2, 0), (dx + half / 2, 0)], 2),
                at(b.low) + line(vec![(dx - half / 2, 0), (dx + half / 2, 0)], 2),
            ];
            chart.draw_series(boxes).map_err(err)?;
            chart.draw_series(lines).map_err(err)?;
            chart
                .draw_series(values.iter().map(|&v| {
                    EmptyElement::at((x, v as f32))
                        + Circle::new((dx, 0), 3, BLACK.mix(0.55).filled())
                }))
                .map_err(err)?;
        }
    }
    root.present().map_err(err)
}

/// `memory.svg`: per program, the peak RSS of tuned over default's, one
/// point per thread count, on a log scale, a line at 1.
///
/// # Errors
/// If drawing or writing fails.
pub fn memory(table: &Table, threads: &[usize], path: &Path) -> Result<(), String> {
    let labels: Vec<String> = table.programs.iter().map(|p| p.to_string()).collect();
    let ratios: Vec<Vec<(usize, f64)>> = threads
        .iter()
        .map(|&t| {
            table
                .ratios(t, "tuned", "default", true)
                .into_iter()
                .filter_map(|(p, v)| Some((table.programs.iter().position(|&q| q == p)?, v)))
                .collect()
        })
        .collect();
    let (lo, hi) = ratios
        .iter()
        .flatten()
        .fold((1.0f64, 1.0f64), |(lo, hi), &(_, v)| (lo.min(v), hi.max(v)));
    // A log scale drawn as log2 on a linear axis labelled with the ratios
    // (plotters' log axis labels little of a narrow range): at least 0.5 .. 2.
    let y_range = (lo.log2().min(-1.0) - 0.15)..(hi.log2().max(1.0) + 0.15);

    let n = labels.len().max(1) as i32;
    let width = (200 + 90 * n as u32).max(680);
    let root = SVGBackend::new(path, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled("Peak memory of tuned over default (RSS ratio)", (FONT, 20))
        .map_err(err)?;
    let (top, body) = root.split_vertically(30);
    let entries: Vec<(String, RGBColor)> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("{t} thread(s)"), thread_color(i)))
        .collect();
    legend(&top, &entries)?;
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
        .x_label_formatter(&|i| category_label(&labels, *i))
        .y_label_formatter(&|y| format!("{:.2}", y.exp2()))
        .y_labels(8)
        .x_desc("program")
        .y_desc("peak RSS tuned / default, log scale   (< 1: tuned uses less)")
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            vec![(-1, 0.0), (n, 0.0)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
    let k = threads.len() as i32;
    for (i, points) in ratios.iter().enumerate() {
        let color = thread_color(i);
        let dx = (i as i32 * 2 - (k - 1)) * 5;
        chart
            .draw_series(points.iter().map(|&(p, v)| {
                EmptyElement::at((p as i32, v.log2())) + Circle::new((dx, 0), 5, color.filled())
            }))
            .map_err(err)?;
    }
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::cf17::report::tests::sample;

    fn check(dir: &Path) {
        for file in FILES {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(text.starts_with("<svg"), "{file}: {}", &text[..40]);
            assert!(text.trim_end().ends_with("</svg>"), "{file}");
        }
    }

    #[test]
    fn box_stats() {
        let b = BoxStats::of(&[4.0, 1.0, 3.0, 2.0, 100.0]).unwrap();
        assert_eq!((b.q1, b.median, b.q3), (2.0, 3.0, 4.0));
        assert_eq!((b.low, b.high), (1.0, 4.0), "100 is an outlier");
        let one = BoxStats::of(&[1.5]).unwrap();
        assert_eq!(
            (one.low, one.q1, one.median, one.q3, one.high),
            (1.5, 1.5, 1.5, 1.5, 1.5)
        );
        assert_eq!(BoxStats::of(&[]), None);
    }

    #[test]
    fn plots_of_two_programs_and_two_thread_counts() {
        let dir = std::env::temp_dir().join(format!("cf17-plots-{}", std::process::id()));
        let table = Table::new(&sample());
        let paths = write_all(&table, &[1, 2], &dir).unwrap();
        assert_eq!(paths.len(), 3);
        check(&dir);
        let text = std::fs::read_to_string(dir.join("speedup.svg")).unwrap();
        assert!(text.contains("nqueens") && text.contains("tuned"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn plots_of_one_program_and_one_thread_count() {
        let dir = std::env::temp_dir().join(format!("cf17-plots-one-{}", std::process::id()));
        let outcomes: Vec<_> = sample()
            .into_iter()
            .filter(|o| o.config.program == "fib" && o.config.threads == 1)
            .collect();
        let table = Table::new(&outcomes);
        write_all(&table, &[1], &dir).unwrap();
        check(&dir);
        // And with nothing at all.
        write_all(&Table::new(&[]), &[1], &dir).unwrap();
        check(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
