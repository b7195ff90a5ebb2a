//! The one report writer every table prints and saves with: Markdown
//! tables (`###` headings, `| ... |` rows, so that a table's text renders
//! as it is pasted into the report), the number formats, the ratios and
//! their geometric means, and the JSON files.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One row of a Markdown table: `| a | b |` (a `|` inside a cell is
/// escaped).
pub fn md_row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut out = String::from("|");
    for cell in cells {
        let _ = write!(out, " {} |", cell.as_ref().replace('|', "\\|"));
    }
    out
}

/// A Markdown table's heading row and separator (newline-terminated): the
/// first `left` columns left-aligned, the others right-aligned.
pub fn md_header<S: AsRef<str>>(columns: &[S], left: usize) -> String {
    let mut out = md_row(columns);
    out.push_str("\n|");
    for i in 0..columns.len() {
        out.push_str(if i < left { "---|" } else { "---:|" });
    }
    out.push('\n');
    out
}

/// A Markdown table built row by row: its header, then [`Md::row`]s, each
/// line newline-terminated.
#[derive(Clone, Debug, Default)]
pub struct Md {
    /// The text so far.
    pub text: String,
    columns: usize,
}

impl Md {
    /// A table of `columns`, the first `left` of them left-aligned.
    pub fn new<S: AsRef<str>>(columns: &[S], left: usize) -> Md {
        Md {
            text: md_header(columns, left),
            columns: columns.len(),
        }
    }

    /// Adds a row.
    pub fn row<S: AsRef<str>>(&mut self, cells: &[S]) {
        self.text.push_str(&md_row(cells));
        self.text.push('\n');
    }

    /// Adds the row of a configuration that failed: its first cells, then
    /// `FAILED: error`, then empty cells to the table's width.
    pub fn failed(&mut self, first: Vec<String>, error: &str) {
        let mut cells = first;
        cells.push(format!("FAILED: {error}"));
        cells.resize(self.columns.max(cells.len()), String::new());
        self.row(&cells);
    }
}

/// A time in nanoseconds with a unit that keeps it short.
pub fn format_ns(ns: f64) -> String {
    match ns {
        ns if !ns.is_finite() => "-".to_string(),
        ns if ns < 1e3 => format!("{ns:.1} ns"),
        ns if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        ns if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        ns => format!("{:.3} s", ns / 1e9),
    }
}

/// A time in seconds for humans (`850.0 µs`, `12.3 ms`, `1.42 s`).
pub fn format_seconds(seconds: f64) -> String {
    match seconds {
        s if s < 1e-6 => format!("{:.1} ns", s * 1e9),
        s if s < 1e-3 => format!("{:.1} µs", s * 1e6),
        s if s < 1.0 => format!("{:.1} ms", s * 1e3),
        s => format!("{s:.2} s"),
    }
}

/// A time in milliseconds with two decimals (`12.34 ms`).
pub fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

/// `value` with `decimals` decimals, `-` where there is none.
pub fn opt(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_string(),
    }
}

/// A count for a narrow column: one decimal below 100, whole numbers below
/// ten million, else `1.23e7`.
pub fn count(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() && v < 100.0 => format!("{v:.1}"),
        Some(v) if v.is_finite() && v < 1e7 => format!("{v:.0}"),
        Some(v) if v.is_finite() => format!("{v:.2e}"),
        _ => "-".to_string(),
    }
}

/// `a / b` where both are there, `b > 0` and `a` is finite.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 && a.is_finite() => Some(a / b),
        _ => None,
    }
}

/// A finite number, `None` otherwise (JSON has no NaN).
pub fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

/// The geometric mean of the positive values present (`None` if there are
/// none).
pub fn geomean(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    Stats::of(values.into_iter().flatten()).map(|s| s.geomean)
}

/// Geometric mean, minimum and maximum of some ratios.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// How many ratios.
    pub n: usize,
    /// Their geometric mean.
    pub geomean: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Stats {
    /// The statistics of `values` (only the finite positive ones count);
    /// `None` if there are none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Stats> {
        let values: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        let n = values.len();
        (n > 0).then(|| Stats {
            n,
            geomean: (values.iter().map(|v| v.ln()).sum::<f64>() / n as f64).exp(),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(0.0, f64::max),
        })
    }

    /// `geomean [min..max] (n)`, or `-`.
    pub fn render(stats: Option<Stats>) -> String {
        match stats {
            Some(s) => format!("{:.2} [{:.2}..{:.2}] ({})", s.geomean, s.min, s.max, s.n),
            None => "-".to_string(),
        }
    }
}

/// Joins displayable items with commas.
pub fn join_list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes `value` as pretty JSON to `path`, creating its folder.
///
/// # Errors
/// Why the file could not be written.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    write_file(path, &(text + "\n"))
}

/// Writes `text` to `path`, creating its folder.
///
/// # Errors
/// Why the folder or the file could not be written.
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_rows_line_up() {
        let mut md = Md::new(&["a", "b", "c"], 1);
        md.row(&["x|y", "1", "2"]);
        md.failed(vec!["z".into()], "boom");
        let lines: Vec<&str> = md.text.lines().collect();
        assert_eq!(lines[1], "|---|---:|---:|");
        assert_eq!(lines[2], "| x\\|y | 1 | 2 |");
        assert_eq!(lines[3], "| z | FAILED: boom |  |");
        assert!([1, 3].iter().all(|&i| lines[i].matches('|').count() == 4));
    }

    #[test]
    fn number_formats() {
        assert_eq!(format_ns(12.34), "12.3 ns");
        assert_eq!(format_ns(1234.0), "1.23 µs");
        assert_eq!(format_ns(65_800_000.0), "65.80 ms");
        assert_eq!(format_ns(1.5e9), "1.500 s");
        assert_eq!(format_ns(f64::NAN), "-");
        assert_eq!(format_seconds(0.0123), "12.3 ms");
        assert_eq!(
            (opt(Some(1.234), 2), opt(None, 1)),
            ("1.23".into(), "-".into())
        );
        assert_eq!(
            (count(Some(12.34)), count(Some(1234.0)), count(Some(2e7))),
            ("12.3".into(), "1234".into(), "2.00e7".into())
        );
        assert_eq!(ratio(Some(1.0), Some(0.0)), None);
    }

    #[test]
    fn means() {
        assert_eq!(geomean([Some(2.0), None, Some(8.0)]), Some(4.0));
        assert_eq!(geomean([None]), None);
        assert_eq!(Stats::of([f64::NAN, 0.0]), None);
        let s = Stats::of([1.0, 4.0]).unwrap();
        assert_eq!(Stats::render(Some(s)), "2.00 [1.00..4.00] (2)");
    }
}
