//! The `annotated` table: the `#[task_program]` programs of
//! [`crate::annotated`] (fib, nqueens, alignment) under many runtime
//! configurations, at each thread count — a scheduling study of what the
//! analysed parameters buy.
//!
//! Per program: the sequential reference (`seq`, once), then each
//! configuration at each thread count — `own` (the program's analysed
//! `PARAMS`), `default` (`Params::DEFAULT`) and the fixed `DEF` and `PF`
//! policies at queue capacities 4, 16 and 128 (every other field as
//! `Params::DEFAULT`). One `Runtime` per configuration and thread count runs
//! `runtime.run(|| program)`; every result is checked against the sequential
//! reference (a wrong result is an error, not a row). A program's runners
//! run round robin, one warm-up round and then `--reps` timed rounds, and
//! each keeps its best time: the machine may be shared, and a change in its
//! load then hits every runner alike.
//!
//! [`measure`](mod@measure) has the workloads and the measurement; this module the
//! options, the Markdown table and the JSON ([`AnnotatedJson`]).
//!
//! Samples ([`crate::samples`]): per program (`fib(35)`, `nqueens(11)`,
//! `alignment prot.20`) the runners `sequential` (threads 1), `prescient`
//! (`own`: the parameters `#[task_program]` chose), `prescient-default`
//! (`Params::DEFAULT`) and `prescient-def-4` ... `prescient-pf-128` (the
//! fixed policy/capacity configurations), at each thread count; the time is
//! the best of the timed runs.

pub mod measure;

use prescient::Params;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::time::Duration;

use crate::annotated::{alignment, fib, nqueens};
use crate::cli::{CommonArgs, Size};
use crate::harness::write::{ms, opt, Md};
use crate::harness::{load_average, Machine};
use crate::samples::{Sample, TableHead};
use measure::{measure, runner_name, sample_name, workload, Row, PROGRAMS};

/// The subcommand's name (and the `table` of its JSON).
pub const TABLE: &str = "annotated";

/// The counters printed per run (the JSON has them all), with their column
/// headings. Read by name, so a counter added to the runtime changes nothing
/// here and one removed prints `-`.
const COUNTER_COLUMNS: [(&str, &str); 5] = [
    ("steals", "steals"),
    ("suspensions", "susp"),
    ("spawns", "spawns"),
    ("inlined_spawns", "inlined"),
    ("published_joins", "pub.joins"),
];

/// The `#[task_program]` programs under the parameters the analyzer chose, the defaults and fixed sets.
///
/// Runs the `#[task_program]` programs fib (n = 35), nqueens (n = 11) and
/// alignment (BOTS prot.20.aa) sequentially and under several runtime
/// configurations — own (the program's analysed PARAMS), default
/// (Params::DEFAULT), DEF and PF at queue capacities 4, 16 and 128 — at each
/// thread count, and prints per program a Markdown table with times,
/// speedups and scheduler counters per run; every result is checked against
/// the sequential reference.
///
/// A program's configurations run round robin: one warm-up round, then
/// --reps timed rounds; each keeps its best time. Counters are per timed
/// run; * marks the fastest configuration of a program at a thread count,
/// and a summary line gives own/default, the analysed parameters' time over
/// the default's (below 1: the analysis helped). --quick: fib 30, nqueens
/// 10, the first 10 sequences of prot.20.aa, 3 repetitions.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The shared flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Timed repetitions per configuration (best of; default 5, --quick 3).
    #[arg(long, value_name = "N")]
    pub reps: Option<NonZeroUsize>,
    /// Comma-separated programs to run (fib, nqueens, alignment; default
    /// all).
    #[arg(
        long,
        visible_alias = "programs",
        value_name = "PROGRAMS",
        value_delimiter = ',',
        value_parser = PROGRAMS
    )]
    pub only: Vec<String>,
}

impl Options {
    /// The timed repetitions: `--reps`, else 5 (full), 3 (quick) or 1
    /// (test).
    pub fn reps(&self) -> usize {
        self.reps.map_or(
            match self.common.size() {
                Size::Full => 5,
                Size::Quick => 3,
                Size::Test => 1,
            },
            NonZeroUsize::get,
        )
    }

    /// The programs to run, in table order (all when `--only` is not
    /// given).
    pub fn programs(&self) -> Vec<&'static str> {
        PROGRAMS
            .into_iter()
            .filter(|p| self.only.is_empty() || self.only.iter().any(|o| o == p))
            .collect()
    }
}

/// The JSON of the table: the shared head and the table's own rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AnnotatedJson {
    /// The shared head (`table`, `machine`, `size`, `threads`, `samples`).
    #[serde(flatten)]
    pub head: TableHead,
    /// The command line.
    pub command: Vec<String>,
    /// `/proc/loadavg` at the start (the machine may be shared).
    pub load_average_at_start: String,
    /// Timed repetitions per configuration.
    pub reps: usize,
    /// Every row: `seq`, then each configuration at each thread count, per
    /// program.
    pub results: Vec<ResultJson>,
    /// `own/default` per program and thread count.
    pub own_over_default: Vec<RatioJson>,
    /// The programs that failed, with why.
    pub errors: Vec<String>,
}

/// One row of [`AnnotatedJson::results`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultJson {
    /// The program (`fib`).
    pub program: String,
    /// Its input (`n=35`).
    pub size: String,
    /// `seq`, `own`, `default` or `POLICY/CAP`.
    pub config: String,
    /// Worker threads (0 for `seq`).
    pub threads: usize,
    /// The parameters (`None` for `seq`).
    pub params: Option<ParamsJson>,
    /// The best time, in nanoseconds.
    pub best_ns: f64,
    /// The best time over `seq`'s.
    pub t_over_tseq: f64,
    /// `seq`'s best time over this one.
    pub speedup: f64,
    /// Whether this is the fastest configuration at its thread count.
    pub fastest: bool,
    /// The runtime's counters, totals over `runs` timed runs (`None` for
    /// `seq`).
    pub counters: Option<CountersJson>,
}

/// The parameters of a row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamsJson {
    /// `DEF` or `PF`.
    pub queue_policy: String,
    /// The deque's capacity.
    pub queue_capacity: usize,
    /// The stack reserve, in bytes.
    pub stack_size: usize,
    /// The committed stack, in bytes.
    pub committed_stack_size: usize,
    /// The dependency buckets.
    pub dependency_buckets: usize,
}

impl From<Params> for ParamsJson {
    fn from(p: Params) -> ParamsJson {
        ParamsJson {
            queue_policy: p.queue_policy.to_string(),
            queue_capacity: p.queue_capacity,
            stack_size: p.stack_size,
            committed_stack_size: p.committed_stack_size,
            dependency_buckets: p.dependency_buckets,
        }
    }
}

/// The counters of a row: totals over `runs` timed runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountersJson {
    /// The timed runs the totals cover.
    pub runs: usize,
    /// Each counter by name.
    #[serde(flatten)]
    pub values: BTreeMap<String, u64>,
}

/// `own/default` of one program at one thread count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioJson {
    /// The program.
    pub program: String,
    /// Worker threads.
    pub threads: usize,
    /// `own`'s best time, in nanoseconds.
    pub own_ns: f64,
    /// `default`'s best time, in nanoseconds.
    pub default_ns: f64,
    /// `own_ns / default_ns` (below 1: the analysis helped).
    pub ratio: f64,
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// The Markdown table of one program's rows.
fn render(rows: &[Row], reps: usize) -> String {
    let mut columns = [
        "program", "input", "config", "pol", "cap", "thr", "time", "T/Tseq", "speedup",
    ]
    .map(String::from)
    .to_vec();
    columns.extend(
        COUNTER_COLUMNS
            .iter()
            .map(|(_, heading)| format!("{heading}/run")),
    );
    columns.push("fastest".to_string());
    let mut md = Md::new(&columns, 4);
    let seq = rows
        .iter()
        .find(|r| r.config == "seq")
        .map(|r| r.best)
        .expect("a seq row");
    for r in rows {
        let (policy, capacity) = match r.params {
            Some(p) => (p.queue_policy.to_string(), p.queue_capacity.to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        let threads = if r.threads == 0 {
            "-".to_string()
        } else {
            r.threads.to_string()
        };
        let mut cells = vec![
            r.program.to_string(),
            r.size.clone(),
            r.config.clone(),
            policy,
            capacity,
            threads,
            ms(r.best.as_secs_f64()),
            format!("{:.2}", ratio(r.best, seq)),
            format!("{:.2}", ratio(seq, r.best)),
        ];
        for (name, _) in COUNTER_COLUMNS {
            // A per-run count: whole numbers from 100 on, else one decimal.
            let per_run = r
                .counters
                .and_then(|c| c.get(name))
                .map(|v| v as f64 / reps as f64);
            let decimals = if per_run.is_some_and(|v| v >= 100.0) {
                0
            } else {
                1
            };
            cells.push(opt(per_run, decimals));
        }
        cells.push(if r.fastest { "*" } else { "" }.to_string());
        md.row(&cells);
    }
    md.text
}

/// `own/default` at each thread count of one program's rows.
fn ratios(rows: &[Row], threads: &[usize]) -> Vec<RatioJson> {
    threads
        .iter()
        .filter_map(|&t| {
            let time = |config: &str| {
                rows.iter()
                    .find(|r| r.threads == t && r.config == config)
                    .map(|r| r.best)
            };
            let (own, default) = (time("own")?, time("default")?);
            Some(RatioJson {
                program: rows.first()?.program.to_string(),
                threads: t,
                own_ns: own.as_nanos() as f64,
                default_ns: default.as_nanos() as f64,
                ratio: ratio(own, default),
            })
        })
        .collect()
}

/// The JSON rows and the samples of one program's rows.
fn results(rows: &[Row], reps: usize) -> (Vec<ResultJson>, Vec<Sample>) {
    let seq = rows
        .iter()
        .find(|s| s.config == "seq")
        .map_or(Duration::ZERO, |s| s.best);
    let results = rows
        .iter()
        .map(|r| ResultJson {
            program: r.program.to_string(),
            size: r.size.clone(),
            config: r.config.clone(),
            threads: r.threads,
            params: r.params.map(ParamsJson::from),
            best_ns: r.best.as_nanos() as f64,
            t_over_tseq: ratio(r.best, seq),
            speedup: ratio(seq, r.best),
            fastest: r.fastest,
            counters: r.counters.map(|c| CountersJson {
                runs: reps,
                values: c.iter().map(|(n, v)| (n.to_string(), v)).collect(),
            }),
        })
        .collect();
    let samples = rows
        .iter()
        .map(|r| {
            Sample::new(
                sample_name(r.program, &r.size),
                runner_name(&r.config),
                r.threads.max(1),
                r.best.as_secs_f64(),
            )
        })
        .collect();
    (results, samples)
}

/// Runs the table: prints it on stdout, writes the JSON to `--json`.
///
/// # Errors
/// Bad thread counts, a program that failed (after the others ran and the
/// JSON was written), a JSON file that could not be written.
pub fn run(options: &Options) -> Result<(), String> {
    let threads = options.common.threads()?;
    let size = options.common.size();
    let reps = options.reps();
    let programs = options.programs();
    let machine = Machine::detect();
    // The machine may be shared: say how busy it was.
    let load = load_average();
    println!(
        "### Prescient annotated programs under runtime configurations ({} size, best of {reps} \
         runs; thread counts {threads:?}; load average {load} at start)\n\n{}\n",
        size.name(),
        machine.describe(),
    );
    let own: Vec<String> = programs
        .iter()
        .map(|&name| {
            let p = match name {
                "fib" => fib::PARAMS,
                "nqueens" => nqueens::PARAMS,
                _ => alignment::PARAMS,
            };
            format!(
                "{name} {}/{} ({} KiB committed stacks)",
                p.queue_policy,
                p.queue_capacity,
                p.committed_stack_size / 1024
            )
        })
        .collect();
    println!(
        "configs: own = the program's #[task_program] PARAMS ({}); default = Params::DEFAULT \
         ({}/{}); POLICY/CAP = Params::DEFAULT with that queue policy and capacity. Counters are \
         per timed run; * = the fastest configuration of the program at that thread count; \
         own/default = own's time over default's (below 1: the analysis helped).\n",
        own.join(", "),
        Params::DEFAULT.queue_policy,
        Params::DEFAULT.queue_capacity,
    );

    let mut head = TableHead::new(TABLE, size, &threads);
    head.machine = machine;
    let mut json = AnnotatedJson {
        head,
        command: std::env::args().collect(),
        load_average_at_start: load,
        reps,
        results: Vec::new(),
        own_over_default: Vec::new(),
        errors: Vec::new(),
    };
    for name in programs {
        let measured = workload(name, size).and_then(|w| {
            println!("#### {}: {}\n", w.name, w.size);
            measure(&w, &threads, reps)
        });
        match measured {
            Ok(rows) => {
                println!("{}", render(&rows, reps));
                let program_ratios = ratios(&rows, &threads);
                let summary: Vec<String> = program_ratios
                    .iter()
                    .map(|r| {
                        format!(
                            "{:.2} at {} thread{}",
                            r.ratio,
                            r.threads,
                            if r.threads == 1 { "" } else { "s" }
                        )
                    })
                    .collect();
                println!("{name} own/default: {}\n", summary.join(", "));
                let (results, samples) = results(&rows, reps);
                json.results.extend(results);
                json.head.samples.extend(samples);
                json.own_over_default.extend(program_ratios);
            }
            Err(e) => {
                eprintln!("error: {e}");
                println!("{name}: failed: {e}\n");
                json.errors.push(e);
            }
        }
    }
    options.common.write_json(&json)?;
    if let Some(path) = &options.common.json {
        eprintln!("JSON written to {}", path.display());
    }
    if json.errors.is_empty() {
        Ok(())
    } else {
        Err(json.errors.join("; "))
    }
}
