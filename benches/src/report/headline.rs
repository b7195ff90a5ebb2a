//! The report's headline: per program of the headline tables (fork-join and
//! dataflow), the speedup over the sequential reference of Prescient, rayon
//! and chili at the largest thread count measured, and Prescient's at one
//! thread, with the geometric mean over the programs. Computed from the
//! `samples` every table writes (`prescient_benches::samples`), so it needs
//! nothing of a table's own layout.

use serde::{Deserialize, Serialize};

pub use crate::harness::write::{format_seconds, geomean};
use crate::samples::{distinct, Sample, CHILI, PRESCIENT, RAYON, SEQUENTIAL};

/// The tables whose programs make the headline.
pub const HEADLINE_TABLES: [&str; 2] = ["fork-join", "dataflow"];

/// One program's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineRow {
    /// The table it comes from.
    pub table: String,
    /// The program as the table names it.
    pub program: String,
    /// The sequential reference's time, in seconds.
    pub sequential_seconds: f64,
    /// The thread count of the parallel columns (the largest measured).
    pub threads: usize,
    /// Prescient's speedup over sequential at `threads` (`T_seq / T`).
    pub prescient: Option<f64>,
    /// rayon's.
    pub rayon: Option<f64>,
    /// chili's.
    pub chili: Option<f64>,
    /// Prescient's speedup at one thread.
    pub prescient_one_thread: Option<f64>,
}

/// The headline rows of `table`'s samples: each program with a sequential
/// time and a Prescient time, in the order the samples first name them.
pub fn rows(table: &str, samples: &[Sample]) -> Vec<HeadlineRow> {
    let runs: Vec<&Sample> = samples
        .iter()
        .filter(|s| !s.per_task && s.seconds > 0.0)
        .collect();
    let programs = distinct(runs.iter().copied(), |s| s.program.as_str());
    let time = |program: &str, runner: &str, threads: usize| {
        runs.iter()
            .find(|s| s.program == program && s.runner == runner && s.threads == threads)
            .map(|s| s.seconds)
    };
    programs
        .into_iter()
        .filter_map(|program| {
            let sequential = runs
                .iter()
                .find(|s| s.program == program && s.runner == SEQUENTIAL)?
                .seconds;
            let threads = runs
                .iter()
                .filter(|s| s.program == program && s.runner == PRESCIENT)
                .map(|s| s.threads)
                .max()?;
            let speedup = |runner: &str, threads: usize| {
                time(program, runner, threads).map(|t| sequential / t)
            };
            Some(HeadlineRow {
                table: table.to_string(),
                program: program.to_string(),
                sequential_seconds: sequential,
                threads,
                prescient: speedup(PRESCIENT, threads),
                rayon: speedup(RAYON, threads),
                chili: speedup(CHILI, threads),
                prescient_one_thread: speedup(PRESCIENT, 1),
            })
        })
        .collect()
}

fn cell(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{v:.2}×"))
}

/// The headline as a Markdown table (speedups over sequential; higher is
/// better), with a geometric-mean line per table.
pub fn render(rows: &[HeadlineRow]) -> String {
    if rows.is_empty() {
        return "No headline: neither the fork-join nor the dataflow table left samples.\n"
            .to_string();
    }
    let mut out = String::from(
        "Speedup over the sequential program (`T_seq / T`; higher is better), at the largest \
         thread count measured (*threads*) and, for Prescient, at one thread.\n\n\
         | table | program | sequential | threads | Prescient | rayon | chili | Prescient, 1 thread |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            row.table,
            row.program,
            format_seconds(row.sequential_seconds),
            row.threads,
            cell(row.prescient),
            cell(row.rayon),
            cell(row.chili),
            cell(row.prescient_one_thread),
        ));
    }
    for table in HEADLINE_TABLES {
        let of_table: Vec<&HeadlineRow> = rows.iter().filter(|r| r.table == table).collect();
        if of_table.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "| **{table}** | **geometric mean** | | | **{}** | **{}** | **{}** | **{}** |\n",
            cell(geomean(of_table.iter().map(|r| r.prescient))),
            cell(geomean(of_table.iter().map(|r| r.rayon))),
            cell(geomean(of_table.iter().map(|r| r.chili))),
            cell(geomean(of_table.iter().map(|r| r.prescient_one_thread))),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Sample> {
        vec![
            Sample::new("fib(30)", SEQUENTIAL, 1, 1.0),
            Sample::new("fib(30)", PRESCIENT, 1, 1.25),
            Sample::new("fib(30)", PRESCIENT, 2, 0.5),
            Sample::new("fib(30)", RAYON, 2, 0.8),
            Sample::new("fib(30)", "prescient-never", 2, 0.7),
            Sample::new("tree", SEQUENTIAL, 1, 2.0),
            Sample::new("tree", PRESCIENT, 2, 1.0),
            Sample::per_task("empty task", PRESCIENT, 2, 1e-7),
            Sample::new("no reference", PRESCIENT, 2, 1.0),
        ]
    }

    #[test]
    fn speedups_at_the_largest_thread_count() {
        let rows = rows("fork-join", &samples());
        assert_eq!(rows.len(), 2);
        let fib = &rows[0];
        assert_eq!((fib.program.as_str(), fib.threads), ("fib(30)", 2));
        assert_eq!(fib.prescient, Some(2.0));
        assert_eq!(fib.rayon, Some(1.25));
        assert_eq!(fib.chili, None);
        assert_eq!(fib.prescient_one_thread, Some(0.8));
        assert_eq!(rows[1].prescient, Some(2.0));
    }

    #[test]
    fn the_table_has_a_row_per_program_and_a_mean() {
        let text = render(&rows("fork-join", &samples()));
        assert!(text.contains("| fork-join | fib(30) | 1.00 s | 2 | 2.00× | 1.25× | – | 0.80× |"));
        assert!(text.contains("**geometric mean**"));
    }
}
