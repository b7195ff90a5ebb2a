//! The one JSON shape every table's results share, whatever else a table
//! records: a list of [`Sample`]s (a program, a runner, a thread count and a
//! time) under the key `samples`, beside the table's name, the machine and
//! the size. The report (`prescient_benches::report`) reads this part of
//! every table's JSON to build its headline ratios and plots without knowing
//! each table's own layout.
//!
//! Runner names are shared too, so that ratios line up across tables:
//! `sequential` (the plain sequential program; thread count 1), `rayon`,
//! `chili`, `prescient` (the runtime as a user gets it: default parameters,
//! or those `#[task_program]` chose), and `prescient-<variant>` for any
//! other configuration a table measures (`prescient-default` beside
//! `prescient-tuned`, `prescient-dast-off`, `prescient-never`, ...).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cli::Size;
use crate::harness::write::finite;
use crate::harness::{Machine, Outcome};
use crate::peers::PeerNote;

/// The runner name of the sequential reference.
pub const SEQUENTIAL: &str = "sequential";
/// The runner name of the runtime as a user gets it.
pub const PRESCIENT: &str = "prescient";
/// The runner name of rayon.
pub const RAYON: &str = "rayon";
/// The runner name of chili.
pub const CHILI: &str = "chili";

/// One measured configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The program and its size as the table names it (`fib(32)`,
    /// `two-wave 250`).
    pub program: String,
    /// Who ran it: [`SEQUENTIAL`], [`RAYON`], [`CHILI`], [`PRESCIENT`] or
    /// `prescient-<variant>`.
    pub runner: String,
    /// Worker threads (1 for the sequential reference).
    pub threads: usize,
    /// The time of one run (or of one task, where [`Sample::per_task`]), in
    /// seconds: the table's statistic (median or best; its text says which).
    pub seconds: f64,
    /// Whether `seconds` is the cost of one task rather than of one run of
    /// the program (a table of per-task overheads).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_task: bool,
}

impl Sample {
    /// A sample of one run of `program`.
    pub fn new(
        program: impl Into<String>,
        runner: impl Into<String>,
        threads: usize,
        seconds: f64,
    ) -> Sample {
        Sample {
            program: program.into(),
            runner: runner.into(),
            threads,
            seconds,
            per_task: false,
        }
    }

    /// A sample of the cost of one task of `program`.
    pub fn per_task(
        program: impl Into<String>,
        runner: impl Into<String>,
        threads: usize,
        seconds: f64,
    ) -> Sample {
        Sample {
            per_task: true,
            ..Sample::new(program, runner, threads, seconds)
        }
    }
}

/// The shared head of every table's JSON: a table's own JSON is an object
/// that contains these fields (flattened with `#[serde(flatten)]`) next to
/// its own.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableHead {
    /// The table's subcommand name (`fork-join`, `dataflow`, ...).
    pub table: String,
    /// What it ran on.
    pub machine: Machine,
    /// The size it ran at.
    pub size: Size,
    /// The thread counts it measured.
    pub threads: Vec<usize>,
    /// The competing busy processes that shared the CPUs while it measured
    /// (`--competing`, [`crate::competing`]); 0 in the JSON of a table
    /// without the flag, and of one written before it existed.
    #[serde(default)]
    pub competing: usize,
    /// Every measured configuration.
    pub samples: Vec<Sample>,
    /// The C/C++ peers among its runners: each one's runtime, or why it
    /// was skipped ([`crate::peers`]; absent in a table without peers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<PeerNote>,
}

impl TableHead {
    /// The head of table `table` on this machine, with no competing
    /// processes and no samples yet.
    pub fn new(table: &str, size: Size, threads: &[usize]) -> TableHead {
        TableHead {
            table: table.to_string(),
            machine: Machine::detect(),
            size,
            threads: threads.to_vec(),
            competing: 0,
            samples: Vec::new(),
            peers: Vec::new(),
        }
    }
}

/// One configuration of a table that measures in child processes, in its
/// JSON (flattened into the table's own result): who ran what, whether it
/// worked, and the figures every such table derives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigJson {
    /// The program's command-line name.
    pub program: String,
    /// The runner's command-line name (`seq`, `prescient-default`, ...).
    pub runner: String,
    /// The thread count.
    pub threads: usize,
    /// Whether the child succeeded.
    pub ok: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The child's peak RSS, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// Time over the sequential reference's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_over_tseq: Option<f64>,
    /// The runner's own one-thread time over this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    /// For Prescient, every counter summed over the timed runs, by its
    /// `Counters::NAMES` name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<BTreeMap<String, u64>>,
}

impl ConfigJson {
    /// The configuration of `outcome`, with its derived `T/Tseq` and
    /// speedup.
    pub fn of<P: std::fmt::Display>(
        outcome: &Outcome<P>,
        t_over_tseq: Option<f64>,
        speedup: Option<f64>,
    ) -> ConfigJson {
        let c = &outcome.config;
        let r = outcome.result.as_ref();
        ConfigJson {
            program: c.program.to_string(),
            runner: c.runner.name.clone(),
            threads: c.threads,
            ok: r.is_ok(),
            error: r.err().cloned(),
            peak_rss_kib: r.ok().and_then(|r| r.peak_rss_kib),
            t_over_tseq: finite(t_over_tseq),
            speedup: finite(speedup),
            counters: r.ok().and_then(|r| r.counters.clone()),
        }
    }
}

/// The distinct values of `key` (a program or a runner name) over
/// `samples`, in first-seen order: the rows of a headline, the panels and
/// lines of a plot.
pub fn distinct<'a>(
    samples: impl IntoIterator<Item = &'a Sample>,
    key: impl Fn(&'a Sample) -> &'a str,
) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for sample in samples {
        let value = key(sample);
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competing_defaults_to_zero_in_old_json() {
        let old = r#"{"table": "t", "machine": {"threads": 2, "arch": "x86_64", "os": "", "cpu": "c"},
                      "size": "quick", "threads": [1, 2], "samples": []}"#;
        let head: TableHead = serde_json::from_str(old).unwrap();
        assert_eq!(head.competing, 0);
        let mut head = TableHead::new("t", Size::Test, &[1]);
        head.competing = 2;
        let text = serde_json::to_string(&head).unwrap();
        assert_eq!(
            serde_json::from_str::<TableHead>(&text).unwrap().competing,
            2
        );
    }
}
