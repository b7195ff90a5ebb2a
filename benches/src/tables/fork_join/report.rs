//! The fork-join table's text — the times, the summary and the idle CPU,
//! Markdown through [`crate::harness::write`] — and its JSON
//! ([`ForkJoinJson`]).

use serde::{Deserialize, Serialize};

use super::programs::{IdleOutcome, Program, Settings, SUBCOMMAND};
use crate::cli::Size;
use crate::harness::record::Record;
use crate::harness::write::{finite, format_ns, opt, ratio, Md};
use crate::harness::{Machine, Outcome, Outcomes};
use crate::samples::{ConfigJson, TableHead};

/// One row of the table: a configuration and the figures derived from it
/// and the rows it is compared with.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration and what its child measured.
    pub outcome: Outcome<Program>,
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
    fn ok(&self) -> Option<&Record> {
        self.outcome.result.as_ref().ok()
    }

    /// A counter per timed run (Prescient only).
    pub fn per_run(&self, name: &str) -> Option<f64> {
        self.ok()?.per_run(name)
    }
}

/// The table's results with everything derived.
#[derive(Clone, Debug)]
pub struct Table {
    /// The size the programs ran at (their joins depend on it).
    pub size: Size,
    /// The outcomes, in the order run.
    pub outcomes: Vec<Outcome<Program>>,
    /// The rows, in the order run.
    pub rows: Vec<Row>,
}

impl Table {
    /// Derives every row's figures from the outcomes of a run at `size`.
    pub fn new(outcomes: &[Outcome<Program>], size: Size) -> Table {
        let rows = outcomes
            .iter()
            .map(|o| {
                let c = &o.config;
                let time = |runner: &str, threads| outcomes.median(c.program, runner, threads);
                let t = o.result.as_ref().ok().map(Record::median_ns);
                let tseq = time("seq", 1);
                let parallel = c.runner.is_parallel();
                let overhead = match (t, tseq) {
                    (Some(t1), Some(tseq)) if parallel && c.threads == 1 => {
                        Some((t1 - tseq) / c.program.joins(size) as f64)
                    }
                    _ => None,
                };
                let of_parallel = |v: Option<f64>| v.filter(|_| parallel);
                Row {
                    outcome: o.clone(),
                    t_over_tseq: ratio(t, tseq),
                    overhead_ns_per_join: overhead,
                    speedup: of_parallel(ratio(time(&c.runner.name, 1), t)),
                    vs_rayon: of_parallel(ratio(t, time("rayon", c.threads))),
                    vs_chili: of_parallel(ratio(t, time("chili", c.threads))),
                }
            })
            .collect();
        Table {
            size,
            outcomes: outcomes.to_vec(),
            rows,
        }
    }

    fn time(&self, program: Program, runner: &str, threads: usize) -> Option<f64> {
        self.outcomes.median(program, runner, threads)
    }

    /// The main table: one line per configuration.
    pub fn render(&self) -> String {
        let mut md = Md::new(
            &[
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
            ],
            2,
        );
        for row in &self.rows {
            let c = &row.outcome.config;
            let threads = if c.runner.is_parallel() {
                c.threads.to_string()
            } else {
                "-".to_string()
            };
            let first = vec![c.program.label(self.size), c.runner.name.clone(), threads];
            match &row.outcome.result {
                Ok(r) => md.row(
                    &[
                        first,
                        vec![
                            format_ns(r.median_ns()),
                            opt(row.t_over_tseq, 2),
                            opt(row.overhead_ns_per_join, 2),
                            opt(row.speedup, 2),
                            opt(row.vs_rayon, 2),
                            opt(row.vs_chili, 2),
                            opt(r.peak_rss_kib.map(|k| k as f64 / 1024.0), 1),
                            opt(r.cpu_per_wall, 2),
                            opt(row.per_run("suspensions"), 1),
                            opt(row.per_run("steals"), 1),
                        ],
                    ]
                    .concat(),
                ),
                Err(e) => md.failed(first, e),
            }
        }
        format!(
            "### {SUBCOMMAND}: time per run\n\n{}\ntime: median per run, measured inside the pool; \
             T/Tseq: over the sequential reference;\nns/join: (T1 - Tseq) / joins; speedup: own \
             1-thread time / time; /rayon, /chili: time over theirs\nat the same thread count \
             (< 1 is faster); RSS: the child's peak;\nCPU/wall: process CPU time over wall time \
             while timing (below 1 at one thread: the machine was busy\nwith others); susp, \
             steals: Prescient's counters per run.\n",
            md.text
        )
    }

    /// The summary per program and parallel runner: `T1/Tseq`, overhead per
    /// join and the speedup at 2 threads (and at the largest count, if
    /// larger), each with its ratio to rayon's and chili's, and the
    /// suspensions per run.
    pub fn render_summary(&self, threads: &[usize]) -> String {
        let max = threads.iter().copied().max().unwrap_or(0);
        let ps: Vec<usize> = [2, max]
            .into_iter()
            .enumerate()
            .filter(|&(i, p)| if i == 0 { threads.contains(&2) } else { p > 2 })
            .map(|(_, p)| p)
            .collect();
        let mut programs: Vec<Program> = Vec::new();
        let mut runners: Vec<&str> = Vec::new();
        for row in &self.rows {
            let c = &row.outcome.config;
            if !programs.contains(&c.program) {
                programs.push(c.program);
            }
            if c.runner.is_parallel() && !runners.contains(&c.runner.name.as_str()) {
                runners.push(&c.runner.name);
            }
        }
        let mut columns: Vec<String> = [
            "program", "runner", "T1/Tseq", "/rayon", "/chili", "ns/join", "/rayon", "/chili",
        ]
        .map(String::from)
        .to_vec();
        for p in &ps {
            columns.extend([format!("T1/T{p}"), "/rayon".into(), "/chili".into()]);
        }
        columns.extend(
            std::iter::once(1)
                .chain(ps.iter().copied())
                .map(|p| format!("susp@{p}")),
        );
        let mut md = Md::new(&columns, 2);
        for &program in &programs {
            let tseq = self.time(program, "seq", 1);
            let joins = program.joins(self.size) as f64;
            let t1 = |r: &str| self.time(program, r, 1);
            let overhead = |r: &str| t1(r).zip(tseq).map(|(t1, ts)| (t1 - ts) / joins);
            let speedup = |r: &str, p: usize| ratio(t1(r), self.time(program, r, p));
            for &runner in &runners {
                let rel = |r| ratio(t1(runner), t1(r));
                let mut cells = vec![
                    program.label(self.size),
                    runner.to_string(),
                    opt(ratio(t1(runner), tseq), 2),
                    opt(rel("rayon"), 2),
                    opt(rel("chili"), 2),
                    opt(overhead(runner), 2),
                    opt(ratio(overhead(runner), overhead("rayon")), 2),
                    opt(ratio(overhead(runner), overhead("chili")), 2),
                ];
                for &p in &ps {
                    let s = speedup(runner, p);
                    cells.extend([
                        opt(s, 2),
                        opt(ratio(s, speedup("rayon", p)), 2),
                        opt(ratio(s, speedup("chili", p)), 2),
                    ]);
                }
                let susp = |p: usize| {
                    self.outcomes
                        .record(program, runner, p)
                        .and_then(|r| r.per_run("suspensions"))
                };
                cells.extend(
                    std::iter::once(1)
                        .chain(ps.iter().copied())
                        .map(|p| opt(susp(p), 1)),
                );
                md.row(&cells);
            }
        }
        format!(
            "### {SUBCOMMAND}: summary\n\n/rayon, /chili: this runner's figure over theirs.\n\n{}",
            md.text
        )
    }
}

/// The idle-CPU report.
pub fn render_idle(idle: &[IdleOutcome]) -> String {
    let mut md = Md::new(&["runner", "threads", "CPU ms/s"], 1);
    for o in idle {
        let first = vec![o.config.runner.name.clone(), o.config.threads.to_string()];
        match &o.result {
            Ok(r) => md.row(&[first, vec![opt(r.cpu_per_wall.map(|c| c * 1e3), 2)]].concat()),
            Err(e) => md.failed(first, e),
        }
    }
    format!(
        "### {SUBCOMMAND}: idle CPU\n\nPool built, one tiny job run, then the process CPU time \
         (user + system)\nburned per second of sleep.\n\n{}",
        md.text
    )
}

/// The table's JSON: the shared head (table `fork-join`, machine, size,
/// threads, samples) and the table's own results.
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

/// A program of the table in the JSON.
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
    /// Who ran what, whether it worked, its peak RSS, `T/Tseq`, speedup
    /// and counters (with `runs`, the timed runs).
    #[serde(flatten)]
    pub config: ConfigJson,
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
    /// CPU time over wall time while timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_per_wall: Option<f64>,
    /// `(T1 - Tseq) / joins`, ns (one-thread rows of parallel runners).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_ns_per_join: Option<f64>,
    /// This time over rayon's at the same thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_rayon: Option<f64>,
    /// This time over chili's at the same thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_chili: Option<f64>,
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

impl ForkJoinJson {
    /// The whole table's JSON.
    pub fn new(
        machine: &Machine,
        settings: &Settings,
        table: &Table,
        idle: &[IdleOutcome],
    ) -> ForkJoinJson {
        let size = settings.plan.size;
        let results = table
            .rows
            .iter()
            .map(|row| {
                let mut config = ConfigJson::of(&row.outcome, row.t_over_tseq, row.speedup);
                let Ok(r) = &row.outcome.result else {
                    return ResultJson {
                        config,
                        ..ResultJson::default()
                    };
                };
                if let Some(counters) = &mut config.counters {
                    counters.insert("runs".to_string(), r.runs());
                }
                ResultJson {
                    config,
                    median_ns: finite(Some(r.median_ns())),
                    min_ns: finite(Some(r.min_ns())),
                    max_ns: finite(Some(r.max_ns())),
                    batch: Some(r.batch),
                    samples: Some(r.times_ns.len() as u64),
                    cpu_per_wall: finite(r.cpu_per_wall),
                    overhead_ns_per_join: finite(row.overhead_ns_per_join),
                    vs_rayon: finite(row.vs_rayon),
                    vs_chili: finite(row.vs_chili),
                }
            })
            .collect();
        let idle = idle
            .iter()
            .map(|o| {
                let r = o.result.as_ref();
                let wall = r.ok().map(Record::median_ns);
                IdleJson {
                    runner: o.config.runner.name.clone(),
                    threads: o.config.threads,
                    ok: r.is_ok(),
                    error: r.err().cloned(),
                    cpu_ns: finite(
                        wall.zip(r.ok().and_then(|r| r.cpu_per_wall))
                            .map(|(w, c)| (w * c).round()),
                    ),
                    wall_ns: finite(wall),
                    peak_rss_kib: r.ok().and_then(|r| r.peak_rss_kib),
                }
            })
            .collect();
        ForkJoinJson {
            head: TableHead {
                table: SUBCOMMAND.to_string(),
                machine: machine.clone(),
                size,
                threads: settings.plan.threads.clone(),
                competing: settings.competing,
                samples: table.outcomes.samples(|p| p.label(size)),
                peers: Vec::new(),
            },
            tree_layout: settings.tree_layout.name().to_string(),
            programs: settings
                .plan
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
    use crate::harness::table::Config;
    use crate::harness::{Kind, Runner};

    fn runner(name: &str) -> Runner {
        let sample = super::super::programs::RUNNERS
            .iter()
            .find(|r| r.0 == name)
            .unwrap()
            .1;
        let kind = if name == "seq" {
            Kind::Sequential
        } else {
            Kind::Own
        };
        Runner::new(name, sample, kind)
    }

    fn outcome(runner_name: &str, threads: usize, result: Result<f64, &str>) -> Outcome<Program> {
        Outcome {
            config: Config {
                program: Program::Tree1k, // 1023 joins
                runner: runner(runner_name),
                threads,
            },
            result: result.map_err(String::from).map(|ns| {
                let mut counters = prescient::tuning::Counters::default();
                counters.suspensions = 3;
                let prescient = runner_name.starts_with("prescient");
                Record {
                    peak_rss_kib: Some(2048),
                    cpu_per_wall: Some(1.0),
                    ..Record::of_times(vec![ns])
                }
                .with_counters(prescient.then_some(counters))
            }),
        }
    }

    fn sample() -> Vec<Outcome<Program>> {
        vec![
            outcome("seq", 1, Ok(1023.0)),
            outcome("prescient-default", 1, Ok(3069.0)),
            outcome("rayon", 1, Ok(11253.0)),
            outcome("chili", 1, Ok(2046.0)),
            outcome("prescient-default", 2, Ok(1534.5)),
            outcome("rayon", 2, Ok(11253.0)),
            outcome("chili", 2, Err("boom")),
        ]
    }

    #[test]
    fn derived_figures_and_text() {
        let t = Table::new(&sample(), Size::Full);
        let pd1 = &t.rows[1];
        assert_eq!(
            (pd1.t_over_tseq, pd1.overhead_ns_per_join),
            (Some(3.0), Some(2.0))
        );
        assert_eq!((pd1.speedup, pd1.vs_chili), (Some(1.0), Some(1.5)));
        let pd2 = &t.rows[4];
        assert_eq!(
            (pd2.speedup, pd2.overhead_ns_per_join, pd2.vs_chili),
            (Some(2.0), None, None)
        );
        assert_eq!(pd2.per_run("suspensions"), Some(3.0));
        assert_eq!(t.rows[0].speedup, None);
        let text = t.render();
        assert!(text.starts_with("### fork-join: time per run"));
        assert!(text.contains("prescient-default") && text.contains("FAILED: boom"));
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
        let mut settings = Settings::new(Size::Test, vec![1, 2]);
        settings.plan.programs = vec![Program::Tree1k];
        settings.competing = 2;
        let idle = vec![Outcome {
            config: Config {
                program: "idle",
                runner: runner("rayon"),
                threads: 2,
            },
            result: Ok(Record {
                cpu_per_wall: Some(1e-3),
                ..Record::of_times(vec![1e9])
            }),
        }];
        let table = Table::new(&sample(), Size::Test);
        let json = ForkJoinJson::new(&Machine::detect(), &settings, &table, &idle);
        let text = serde_json::to_string_pretty(&json).unwrap();
        let back: ForkJoinJson = serde_json::from_str(&text).unwrap();
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), value(&text));
        let v = value(&text);
        assert_eq!(
            (
                v["table"].as_str(),
                v["size"].as_str(),
                v["competing"].as_u64()
            ),
            (Some("fork-join"), Some("test"), Some(2))
        );
        let samples = v["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 6, "the failed row has no sample");
        assert_eq!(
            (
                samples[0]["program"].as_str(),
                samples[0]["runner"].as_str()
            ),
            (Some("tree 2^10"), Some("sequential"))
        );
        assert_eq!(samples[1]["runner"], "prescient");
        assert_eq!(v["results"][1]["overhead_ns_per_join"], 2.0);
        assert_eq!(v["results"][1]["counters"]["suspensions"], 3);
        assert_eq!(v["results"][1]["counters"]["runs"], 1);
        assert_eq!(
            (
                v["results"][6]["error"].as_str(),
                v["results"][6]["ok"].as_bool()
            ),
            (Some("boom"), Some(false))
        );
        assert_eq!(
            (
                v["idle"][0]["cpu_ns"].as_f64(),
                v["idle"][0]["wall_ns"].as_f64()
            ),
            (Some(1e6), Some(1e9))
        );
        assert_eq!(v["programs"][0]["joins"], 1023);
    }
}
