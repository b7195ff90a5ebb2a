//! The report's headline: per program of the headline tables (fork-join and
//! dataflow), the speedup over the sequential reference of Prescient, rayon
//! and chili at the largest thread count measured, and Prescient's at one
//! thread, with the geometric mean over the programs. Computed from the
//! `samples` every table writes (`prescient_benches::samples`), so it needs
//! nothing of a table's own layout.
//!
//! Beside it, Prescient against the C/C++ peers ([`crate::peers`]): per
//! table with peers, program and thread count, the best Prescient runner's
//! time over each peer's ([`peer_ratios`]), shown whole in report.md
//! ([`render_peer_ratios`]) and as geometric means per table and peer in
//! the headline ([`render_peer_means`]).

use serde::{Deserialize, Serialize};

pub use crate::harness::write::{format_seconds, geomean};
use crate::peers::Peer;
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

/// The tables whose programs the peers run.
pub const PEER_TABLES: [&str; 4] = ["fork-join", "dataflow", "par-loops", "cf17"];

/// One program of a table at one thread count: the best Prescient runner
/// against each peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerRatio {
    /// The table.
    pub table: String,
    /// The program as the table names it.
    pub program: String,
    /// The thread count.
    pub threads: usize,
    /// The fastest of the table's Prescient runners (`prescient`,
    /// `prescient-*`) on it.
    pub prescient_runner: String,
    /// Its time, in seconds.
    pub prescient_seconds: f64,
    /// Per peer that ran it (`omp-gcc`, ...): its time over Prescient's
    /// (`T_peer / T_prescient`; above 1: Prescient is faster).
    pub peers: Vec<(String, f64)>,
}

/// The peer ratios of `table`'s samples: each program and thread count
/// that has a Prescient time and a peer's, in the samples' order.
pub fn peer_ratios(table: &str, samples: &[Sample]) -> Vec<PeerRatio> {
    let runs: Vec<&Sample> = samples
        .iter()
        .filter(|s| !s.per_task && s.seconds > 0.0)
        .collect();
    let is_prescient = |r: &str| r == PRESCIENT || r.starts_with("prescient-");
    let mut out = Vec::new();
    for program in distinct(runs.iter().copied(), |s| s.program.as_str()) {
        let of_program: Vec<&&Sample> = runs.iter().filter(|s| s.program == program).collect();
        let mut threads: Vec<usize> = of_program.iter().map(|s| s.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        for t in threads {
            let at = |s: &&&Sample| s.threads == t;
            let best = of_program
                .iter()
                .filter(|s| at(s) && is_prescient(&s.runner))
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds));
            let peers: Vec<(String, f64)> = Peer::ALL
                .iter()
                .filter_map(|p| {
                    let s = of_program.iter().find(|s| at(s) && s.runner == p.name())?;
                    Some((p.name().to_string(), s.seconds / best?.seconds))
                })
                .collect();
            if let (Some(best), false) = (best, peers.is_empty()) {
                out.push(PeerRatio {
                    table: table.to_string(),
                    program: program.to_string(),
                    threads: t,
                    prescient_runner: best.runner.clone(),
                    prescient_seconds: best.seconds,
                    peers,
                });
            }
        }
    }
    out
}

/// The peers that appear in `rows`, in [`Peer::ALL`]'s order.
fn peers_in(rows: &[PeerRatio]) -> Vec<&'static str> {
    Peer::ALL
        .iter()
        .map(|p| p.name())
        .filter(|name| rows.iter().any(|r| r.peers.iter().any(|(p, _)| p == name)))
        .collect()
}

fn ratio_of(row: &PeerRatio, peer: &str) -> Option<f64> {
    row.peers.iter().find(|(p, _)| p == peer).map(|(_, v)| *v)
}

/// The geometric mean of each peer's ratio over `rows`, one row per table
/// and thread count (`| table | threads | programs | omp-gcc | ... |`).
pub fn render_peer_means(rows: &[PeerRatio]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let peers = peers_in(rows);
    let mut out = format!(
        "Prescient against the C/C++ peers: each peer's time over the best Prescient runner's \
         (`T_peer / T_prescient`; above 1: Prescient is faster), geometric mean over the \
         table's programs.\n\n| table | threads | programs | {} |\n|---|---:|---:|{}\n",
        peers.join(" | "),
        "---:|".repeat(peers.len())
    );
    for table in PEER_TABLES {
        let mut threads: Vec<usize> = rows
            .iter()
            .filter(|r| r.table == table)
            .map(|r| r.threads)
            .collect();
        threads.sort_unstable();
        threads.dedup();
        for t in threads {
            let of: Vec<&PeerRatio> = rows
                .iter()
                .filter(|r| r.table == table && r.threads == t)
                .collect();
            let cells: Vec<String> = peers
                .iter()
                .map(|p| cell(geomean(of.iter().map(|r| ratio_of(r, p)))))
                .collect();
            out.push_str(&format!(
                "| {table} | {t} | {} | {} |\n",
                of.len(),
                cells.join(" | ")
            ));
        }
    }
    out
}

/// Every peer ratio, one Markdown table per table with peers: per program
/// and thread count the best Prescient runner, its time and each peer's
/// ratio (the headline has their means, [`render_peer_means`]).
pub fn render_peer_ratios(rows: &[PeerRatio]) -> String {
    if rows.is_empty() {
        return "No peer ran (none was built, or no table with peers ran).\n".to_string();
    }
    let peers = peers_in(rows);
    let mut out = String::new();
    for table in PEER_TABLES {
        let of: Vec<&PeerRatio> = rows.iter().filter(|r| r.table == table).collect();
        if of.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "### {table}\n\n| program | threads | best Prescient | time | {} |\n|---|---:|---|---:|{}\n",
            peers.join(" | "),
            "---:|".repeat(peers.len())
        ));
        for r in of {
            let cells: Vec<String> = peers.iter().map(|p| cell(ratio_of(r, p))).collect();
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                r.program,
                r.threads,
                r.prescient_runner,
                format_seconds(r.prescient_seconds),
                cells.join(" | ")
            ));
        }
        out.push('\n');
    }
    out
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
    fn peers_against_the_best_prescient_runner() {
        let mut samples = samples();
        samples.extend([
            Sample::new("fib(30)", "omp-gcc", 2, 1.0),
            Sample::new("fib(30)", "tbb", 2, 0.25),
            Sample::new("fib(30)", "tbb", 1, 2.5),
            Sample::new("tree", "omp-gcc", 2, 4.0),
        ]);
        let rows = peer_ratios("fork-join", &samples);
        let got: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {:?}",
                    r.program, r.threads, r.prescient_runner, r.peers
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                r#"fib(30) 1 prescient [("tbb", 2.0)]"#,
                r#"fib(30) 2 prescient [("omp-gcc", 2.0), ("tbb", 0.5)]"#,
                r#"tree 2 prescient [("omp-gcc", 4.0)]"#,
            ]
        );
        let means = render_peer_means(&rows);
        assert!(
            means.contains("| fork-join | 2 | 2 | 2.83× | 0.50× |"),
            "{means}"
        );
        assert!(
            render_peer_ratios(&rows).contains("| fib(30) | 1 | prescient | 1.25 s | – | 2.00× |")
        );
    }

    #[test]
    fn the_table_has_a_row_per_program_and_a_mean() {
        let text = render(&rows("fork-join", &samples()));
        assert!(text.contains("| fork-join | fib(30) | 1.00 s | 2 | 2.00× | 1.25× | – | 0.80× |"));
        assert!(text.contains("**geometric mean**"));
    }
}
