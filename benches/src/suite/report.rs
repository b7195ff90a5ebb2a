//! The suite's table, summary and idle-CPU report (Markdown: `###`
//! headings and `| ... |` tables, so that the output renders when pasted
//! into a report) and its JSON ([`ForkJoinJson`], through serde).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

// The hand-written JSON helpers, for the tables that still use them.

use super::child::{ChildResult, IdleOutcome, Outcome};
use super::cli::{Settings, SUBCOMMAND};
use super::config::{Program, Runner};
use super::machine::Machine;
use crate::cli::Size;
use crate::samples::{Sample, TableHead};

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

/// A time in nanoseconds with a unit that keeps it short.
pub fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "-".to_string()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

fn opt(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_string(),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 && a.is_finite() => Some(a / b),
        _ => None,
    }
}

/// One row of the table: a configuration and the figures derived from it and
/// the rows it is compared with.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration and what its child measured.
    pub outcome: Outcome,
    /// Time over the sequential reference's time.
    pub t_over_tseq: Option<f64>,
    /// `(T1 - Tseq) / joins` in ns, on one-thread rows of parallel runners.
    pub overhead_ns_per_join: Option<f64>,
    /// The runner's own one-thread time over this time.
    pub speedup: Option<f64>,
    /// This time over rayon's at the same thread count.
    pub vs_rayon: Option<f64>,
    /// This time over chili's at the same thread count.
    pub vs_chili: Option<f64>,
}

impl Row {
    fn ok(&self) -> Option<&ChildResult> {
        self.outcome.result.as_ref().ok()
    }

    /// Suspensions per timed run (Prescient only).
    pub fn per_run(&self, field: fn(&prescient::tuning::Counters) -> u64) -> Option<f64> {
        let r = self.ok()?;
        let c = r.counters.as_ref()?;
        Some(field(c) as f64 / r.runs().max(1) as f64)
    }
}

/// The suite's results with everything derived.
#[derive(Clone, Debug)]
pub struct Table {
    /// The size the programs ran at (their joins depend on it).
    pub size: Size,
    /// The rows, in the order run.
    pub rows: Vec<Row>,
}

impl Table {
    /// Derives every row's figures from the outcomes of a run at `size`.
    pub fn new(outcomes: &[Outcome], size: Size) -> Table {
        let time = |program: Program, runner: Runner, threads: usize| {
            outcomes
                .iter()
                .find(|o| o.program == program && o.runner == runner && o.threads == threads)
                .and_then(|o| o.result.as_ref().ok())
                .map(|r| r.median_ns)
        };
        let rows = outcomes
            .iter()
            .map(|o| {
                let t = o.result.as_ref().ok().map(|r| r.median_ns);
                let tseq = time(o.program, Runner::Seq, 1);
                let parallel = o.runner.is_parallel();
                let overhead = match (t, tseq) {
                    (Some(t1), Some(tseq)) if parallel && o.threads == 1 => {
                        Some((t1 - tseq) / o.program.joins(size) as f64)
                    }
                    _ => None,
                };
                Row {
                    outcome: o.clone(),
                    t_over_tseq: ratio(t, tseq),
                    overhead_ns_per_join: overhead,
                    speedup: if parallel {
                        ratio(time(o.program, o.runner, 1), t)
                    } else {
                        None
                    },
                    vs_rayon: if parallel {
                        ratio(t, time(o.program, Runner::Rayon, o.threads))
                    } else {
                        None
                    },
                    vs_chili: if parallel {
                        ratio(t, time(o.program, Runner::Chili, o.threads))
                    } else {
                        None
                    },
                }
            })
            .collect();
        Table { size, rows }
    }

    fn find(&self, program: Program, runner: Runner, threads: usize) -> Option<&Row> {
        self.rows.iter().find(|r| {
            r.outcome.program == program
                && r.outcome.runner == runner
                && r.outcome.threads == threads
        })
    }

    fn time(&self, program: Program, runner: Runner, threads: usize) -> Option<f64> {
        self.find(program, runner, threads)
            .and_then(Row::ok)
            .map(|r| r.median_ns)
    }

    /// The shared samples ([`crate::samples`]): one per measured
    /// configuration, the median time of one run, under the program's
    /// [`label`](Program::label) and the runner's
    /// [`sample_name`](Runner::sample_name).
    pub fn samples(&self) -> Vec<Sample> {
        self.rows
            .iter()
            .filter_map(|row| {
                let o = &row.outcome;
                let r = row.ok()?;
                Some(Sample::new(
                    o.program.label(self.size),
                    o.runner.sample_name(),
                    o.threads,
                    r.median_ns / 1e9,
                ))
            })
            .collect()
    }

    /// The main table: one line per configuration.
    pub fn render(&self) -> String {
        let mut out = String::from("### fork-join: time per run\n\n");
        let columns = [
            "program",
            "runner",
            "thr",
            "time",
            "T/Tseq",
            "ns/join",
            "speedup",
            "/rayon",
            "/chili",
            "RSS MiB",
            "CPU/wall",
            "susp/run",
            "steals/run",
        ];
        out.push_str(&md_header(&columns, 2));
        for row in &self.rows {
            let o = &row.outcome;
            let threads = if o.runner.is_parallel() {
                o.threads.to_string()
            } else {
                "-".to_string()
            };
            let mut cells = vec![
                o.program.label(self.size),
                o.runner.name().to_string(),
                threads,
            ];
            match &o.result {
                Ok(r) => cells.extend([
                    format_ns(r.median_ns),
                    opt(row.t_over_tseq, 2),
                    opt(row.overhead_ns_per_join, 2),
                    opt(row.speedup, 2),
                    opt(row.vs_rayon, 2),
                    opt(row.vs_chili, 2),
                    format!("{:.1}", r.rss_kib as f64 / 1024.0),
                    opt(Some(r.cpu_per_wall), 2),
                    opt(row.per_run(|c| c.suspensions), 1),
                    opt(row.per_run(|c| c.steals), 1),
                ]),
                Err(e) => {
                    cells.push(format!("FAILED: {e}"));
                    cells.resize(columns.len(), String::new());
                }
            }
            out.push_str(&md_row(&cells));
            out.push('\n');
        }
        out.push_str(
            "\ntime: median per run, measured inside the pool; T/Tseq: over the sequential \
             reference;\nns/join: (T1 - Tseq) / joins; speedup: own 1-thread time / time; \
             /rayon, /chili: time over theirs\nat the same thread count (< 1 is faster); \
             RSS: the child's peak;\nCPU/wall: process CPU time over wall time while timing \
             (below 1 at one thread: the machine was busy\nwith others); susp, steals: \
             Prescient's counters per run.\n",
        );
        out
    }

    /// The summary per program and parallel runner: `T1/Tseq`, overhead per
    /// join and the speedup at 2 threads (and at the largest count, if
    /// larger), each with its ratio to rayon's and chili's, and the
    /// suspensions per run.
    pub fn render_summary(&self, threads: &[usize]) -> String {
        let mut ps: Vec<usize> = Vec::new();
        if threads.contains(&2) {
            ps.push(2);
        }
        if let Some(&max) = threads.iter().max() {
            if max > 2 {
                ps.push(max);
            }
        }
        let mut programs: Vec<Program> = Vec::new();
        let mut runners: Vec<Runner> = Vec::new();
        for row in &self.rows {
            if !programs.contains(&row.outcome.program) {
                programs.push(row.outcome.program);
            }
            if row.outcome.runner.is_parallel() && !runners.contains(&row.outcome.runner) {
                runners.push(row.outcome.runner);
            }
        }

        let mut out = String::from(
            "### fork-join: summary\n\n/rayon, /chili: this runner's figure over theirs.\n\n",
        );
        let mut columns: Vec<String> = [
            "program", "runner", "T1/Tseq", "/rayon", "/chili", "ns/join", "/rayon", "/chili",
        ]
        .map(String::from)
        .to_vec();
        for p in &ps {
            columns.extend([format!("T1/T{p}"), "/rayon".into(), "/chili".into()]);
        }
        columns.push("susp@1".into());
        for p in &ps {
            columns.push(format!("susp@{p}"));
        }
        out.push_str(&md_header(&columns, 2));

        for &program in &programs {
            let tseq = self.time(program, Runner::Seq, 1);
            let joins = program.joins(self.size) as f64;
            let t1 = |r: Runner| self.time(program, r, 1);
            let overhead = |r: Runner| t1(r).zip(tseq).map(|(t1, ts)| (t1 - ts) / joins);
            let speedup = |r: Runner, p: usize| ratio(t1(r), self.time(program, r, p));
            for &runner in &runners {
                let rel = |r| ratio(t1(runner), t1(r));
                let mut cells = vec![
                    program.label(self.size),
                    runner.name().to_string(),
                    opt(ratio(t1(runner), tseq), 2),
                    opt(rel(Runner::Rayon), 2),
                    opt(rel(Runner::Chili), 2),
                    opt(overhead(runner), 2),
                    opt(ratio(overhead(runner), overhead(Runner::Rayon)), 2),
                    opt(ratio(overhead(runner), overhead(Runner::Chili)), 2),
                ];
                for &p in &ps {
                    let s = speedup(runner, p);
                    cells.extend([
                        opt(s, 2),
                        opt(ratio(s, speedup(Runner::Rayon, p)), 2),
                        opt(ratio(s, speedup(Runner::Chili, p)), 2),
                    ]);
                }
                let susp = |p: usize| {
                    self.find(program, runner, p)
                        .and_then(|row| row.per_run(|c| c.suspensions))
                };
                cells.push(opt(susp(1), 1));
                for &p in &ps {
                    cells.push(opt(susp(p), 1));
                }
                out.push_str(&md_row(&cells));
                out.push('\n');
            }
        }
        out
    }
}

/// The idle-CPU report.
pub fn render_idle(idle: &[IdleOutcome]) -> String {
    let mut out = String::from(
        "### fork-join: idle CPU\n\nPool built, one tiny job run, then the process CPU time \
         (user + system)\nburned per second of sleep.\n\n",
    );
    out.push_str(&md_header(&["runner", "threads", "CPU ms/s"], 1));
    for o in idle {
        let cpu = match &o.result {
            Ok(r) => format!("{:.2}", r.cpu_ns / 1e6 / (r.wall_ns / 1e9)),
            Err(e) => format!("FAILED: {e}"),
        };
        out.push_str(&md_row(&[
            o.runner.name().to_string(),
            o.threads.to_string(),
            cpu,
        ]));
        out.push('\n');
    }
    out
}

/// The suite's JSON: the shared head (table `fork-join`, machine, size,
/// threads, samples) and the suite's own results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ForkJoinJson {
    /// The head every table's JSON shares.
    #[serde(flatten)]
    pub head: TableHead,
    /// The allocation order of the trees' nodes.
    pub tree_layout: String,
    /// The programs, in the order run.
    pub programs: Vec<ProgramJson>,
    /// One entry per configuration, in the order run.
    pub results: Vec<ResultJson>,
    /// The idle-CPU measurements (empty with `--no-idle`).
    pub idle: Vec<IdleJson>,
}

/// A program of the suite in the JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramJson {
    /// The name on the command line (`fib`, `tree1k`, `tree16m`).
    pub name: String,
    /// The name with its size, as the samples name it (`fib(35)`).
    pub label: String,
    /// What it computes.
    pub description: String,
    /// The joins of one run.
    pub joins: u64,
}

/// One configuration in the JSON: what its child measured and the figures
/// derived from it (absent where they do not apply), or its error.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultJson {
    /// The program's command-line name.
    pub program: String,
    /// The runner's command-line name (`prescient-default`, `seq`, ...).
    pub runner: String,
    /// The thread count.
    pub threads: usize,
    /// Whether the child succeeded.
    pub ok: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The median time per run, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ns: Option<f64>,
    /// The fastest batch, per run, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ns: Option<f64>,
    /// The slowest batch, per run, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ns: Option<f64>,
    /// Runs per timed batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Timed batches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// The child's peak RSS, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// CPU time over wall time while timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_per_wall: Option<f64>,
    /// Time over the sequential reference's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_over_tseq: Option<f64>,
    /// `(T1 - Tseq) / joins`, ns (one-thread rows of parallel runners).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_ns_per_join: Option<f64>,
    /// The runner's own one-thread time over this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    /// This time over rayon's at the same thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_rayon: Option<f64>,
    /// This time over chili's at the same thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_chili: Option<f64>,
    /// For Prescient: `runs` (the timed runs) and every counter summed
    /// over them, by its `Counters::NAMES` name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<BTreeMap<String, u64>>,
}

/// An idle-CPU measurement in the JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IdleJson {
    /// The runner's command-line name.
    pub runner: String,
    /// The thread count.
    pub threads: usize,
    /// Whether the child succeeded.
    pub ok: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// CPU time burned during the sleep, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<f64>,
    /// The sleep's wall time, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ns: Option<f64>,
    /// The child's peak RSS, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
}

/// A run's counters as a JSON map, with `runs` when given.
pub fn counters_map(
    counters: &prescient::tuning::Counters,
    runs: Option<u64>,
) -> BTreeMap<String, u64> {
    let mut map: BTreeMap<String, u64> = counters
        .iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
    if let Some(runs) = runs {
        map.insert("runs".to_string(), runs);
    }
    map
}

/// A finite number, `None` otherwise (JSON has no NaN).
fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

impl ForkJoinJson {
    /// The whole suite's JSON.
    pub fn new(
        machine: &Machine,
        settings: &Settings,
        table: &Table,
        idle: &[IdleOutcome],
    ) -> ForkJoinJson {
        let size = settings.size;
        let results = table
            .rows
            .iter()
            .map(|row| {
                let o = &row.outcome;
                let base = ResultJson {
                    program: o.program.name().to_string(),
                    runner: o.runner.name().to_string(),
                    threads: o.threads,
                    ..ResultJson::default()
                };
                match &o.result {
                    Ok(r) => ResultJson {
                        ok: true,
                        median_ns: finite(Some(r.median_ns)),
                        min_ns: finite(Some(r.min_ns)),
                        max_ns: finite(Some(r.max_ns)),
                        batch: Some(r.batch),
                        samples: Some(r.samples),
                        peak_rss_kib: Some(r.rss_kib),
                        cpu_per_wall: finite(Some(r.cpu_per_wall)),
                        t_over_tseq: finite(row.t_over_tseq),
                        overhead_ns_per_join: finite(row.overhead_ns_per_join),
                        speedup: finite(row.speedup),
                        vs_rayon: finite(row.vs_rayon),
                        vs_chili: finite(row.vs_chili),
                        counters: r.counters.as_ref().map(|c| counters_map(c, Some(r.runs()))),
                        ..base
                    },
                    Err(e) => ResultJson {
                        error: Some(e.clone()),
                        ..base
                    },
                }
            })
            .collect();
        let idle = idle
            .iter()
            .map(|o| {
                let base = IdleJson {
                    runner: o.runner.name().to_string(),
                    threads: o.threads,
                    ..IdleJson::default()
                };
                match &o.result {
                    Ok(r) => IdleJson {
                        ok: true,
                        cpu_ns: finite(Some(r.cpu_ns)),
                        wall_ns: finite(Some(r.wall_ns)),
                        peak_rss_kib: Some(r.rss_kib),
                        ..base
                    },
                    Err(e) => IdleJson {
                        error: Some(e.clone()),
                        ..base
                    },
                }
            })
            .collect();
        ForkJoinJson {
            head: TableHead {
                table: SUBCOMMAND.to_string(),
                machine: machine.clone(),
                size,
                threads: settings.threads.clone(),
                competing: settings.competing,
                samples: table.samples(),
            },
            tree_layout: settings.tree_layout.name().to_string(),
            programs: settings
                .programs
                .iter()
                .map(|p| ProgramJson {
                    name: p.name().to_string(),
                    label: p.label(size),
                    description: p.description(size),
                    joins: p.joins(size),
                })
                .collect(),
            results,
            idle,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::child::IdleResult;

    fn outcome(program: Program, runner: Runner, threads: usize, ns: f64) -> Outcome {
        Outcome {
            program,
            runner,
            threads,
            result: Ok(ChildResult {
                median_ns: ns,
                min_ns: ns,
                max_ns: ns,
                batch: 1,
                samples: 1,
                rss_kib: 2048,
                cpu_per_wall: 1.0,
                counters: runner.params().map(|_| {
                    let mut counters = prescient::tuning::Counters::default();
                    counters.suspensions = 3;
                    counters
                }),
            }),
        }
    }

    fn sample() -> Vec<Outcome> {
        let p = Program::Tree1k; // 1023 joins
        vec![
            outcome(p, Runner::Seq, 1, 1023.0),
            outcome(p, Runner::PrescientDefault, 1, 3069.0),
            outcome(p, Runner::Rayon, 1, 11253.0),
            outcome(p, Runner::Chili, 1, 2046.0),
            outcome(p, Runner::PrescientDefault, 2, 1534.5),
            outcome(p, Runner::Rayon, 2, 11253.0),
            Outcome {
                program: p,
                runner: Runner::Chili,
                threads: 2,
                result: Err("boom".into()),
            },
        ]
    }

    #[test]
    fn derived_figures() {
        let t = Table::new(&sample(), Size::Full);
        let pd1 = &t.rows[1];
        assert_eq!(pd1.t_over_tseq, Some(3.0));
        assert_eq!(pd1.overhead_ns_per_join, Some(2.0));
        assert_eq!(pd1.speedup, Some(1.0));
        assert_eq!(pd1.vs_chili, Some(1.5));
        let pd2 = &t.rows[4];
        assert_eq!(pd2.speedup, Some(2.0));
        assert_eq!(pd2.overhead_ns_per_join, None);
        assert_eq!(pd2.vs_chili, None);
        assert_eq!(pd2.per_run(|c| c.suspensions), Some(3.0));
        assert_eq!(t.rows[0].speedup, None);

        let text = t.render();
        assert!(text.contains("prescient-default"));
        assert!(text.contains("FAILED: boom"));
        let summary = t.render_summary(&[1, 2]);
        assert!(summary.contains("T1/T2"));
        // overhead 2 ns vs rayon's 10 ns and chili's 1 ns
        let line = summary
            .lines()
            .find(|l| l.contains("prescient-default"))
            .unwrap();
        assert!(line.contains(" 0.20 ") && line.contains(" 2.00 "), "{line}");
    }

    #[test]
    fn json_round_trips_through_serde() {
        let machine = Machine {
            threads: 2,
            arch: "x86_64".into(),
            os: "Linux".into(),
            cpu: "Some \"CPU\"".into(),
        };
        let mut settings = Settings::new(Size::Test, vec![1, 2]);
        settings.programs = vec![Program::Tree1k];
        settings.competing = 2;
        let idle = vec![IdleOutcome {
            runner: Runner::Rayon,
            threads: 2,
            result: Ok(IdleResult {
                cpu_ns: 1e6,
                wall_ns: 1e9,
                rss_kib: 1,
            }),
        }];
        let table = Table::new(&sample(), Size::Test);
        let json = ForkJoinJson::new(&machine, &settings, &table, &idle);
        let text = serde_json::to_string_pretty(&json).unwrap();
        // What was written reads back as the same JSON (numbers compared
        // as serde_json parses them).
        let back: ForkJoinJson = serde_json::from_str(&text).unwrap();
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), value(&text));
        assert_eq!(back.idle, json.idle);
        assert_eq!(back.programs, json.programs);
        assert_eq!(back.results[6], json.results[6]);
        // The shared head is flattened into the object; the samples name
        // the program with its size and the runner by the shared names.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["table"], "fork-join");
        assert_eq!(v["size"], "test");
        assert_eq!(v["competing"], 2);
        assert_eq!(v["machine"]["cpu"], "Some \"CPU\"");
        let samples = v["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 6, "the failed row has no sample");
        assert_eq!(samples[0]["program"], "tree 2^10");
        assert_eq!(samples[0]["runner"], "sequential");
        assert_eq!(samples[1]["runner"], "prescient");
        let seconds = samples[1]["seconds"].as_f64().unwrap();
        assert!((seconds - 3069e-9).abs() < 1e-18, "{seconds}");
        assert_eq!(v["results"][1]["overhead_ns_per_join"], 2.0);
        assert_eq!(v["results"][1]["counters"]["suspensions"], 3);
        assert_eq!(v["results"][6]["error"], "boom");
        assert_eq!(v["results"][6]["ok"], false);
        assert_eq!(v["idle"][0]["cpu_ns"], 1e6);
        assert_eq!(v["programs"][0]["joins"], 1023);
        // A sample reads back as the shared type.
        let head: TableHead = serde_json::from_str(&text).unwrap();
        assert_eq!(head.samples.len(), table.samples().len());
        assert_eq!(head.samples[0].program, "tree 2^10");
    }

    #[test]
    fn markdown_tables() {
        let t = Table::new(&sample(), Size::Full);
        let text = t.render();
        assert!(text.starts_with("### fork-join"));
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
        assert!(lines[1].starts_with("|---|---|---:|"), "{}", lines[1]);
        let bars = lines[0].matches('|').count();
        for line in &lines {
            assert_eq!(line.matches('|').count(), bars, "{line}");
        }
        assert_eq!(md_row(&["a|b", "c"]), "| a\\|b | c |");
    }

    #[test]
    fn time_units() {
        assert_eq!(format_ns(12.34), "12.3 ns");
        assert_eq!(format_ns(1234.0), "1.23 µs");
        assert_eq!(format_ns(65_800_000.0), "65.80 ms");
        assert_eq!(format_ns(1.5e9), "1.500 s");
        assert_eq!(format_ns(f64::NAN), "-");
    }
}
