//! The `inlining` table: adaptive task inlining per spawn site, measured —
//! each program under Prescient's inlining policies (`never`, `baseline`,
//! `adaptive` and a sweep of fixed thresholds), next to rayon, chili and
//! the sequential reference, at each thread count.
//!
//! Programs: `mixed` (many tiny and a few large tasks from different spawn
//! sites, [`crate::inlining`]), `fib`, `nqueens` and `health` (the CF'17
//! `#[task_program]` versions, whose sites carry the analyzer's static
//! effort to the inliner, prepared by [`crate::cf17::workloads`] at the
//! paper size, or the CF'17 quick or test size), `tree1k` (1 000 sums of a
//! 1 023-node balanced tree per run) and `tree16m` (one sum of a
//! 2^24 − 1-node tree); `--programs` also takes the other CF'17 programs.
//!
//! [`measure`](mod@measure) has the workloads and the measurement; this module the
//! options, the Markdown tables and the JSON ([`InliningJson`]).
//!
//! Samples ([`crate::samples`]): per program (`mixed 100 sweeps x (...)`,
//! `fib(35)`, `health medium.input`, `tree16m 16777215 nodes`) the runners
//! `sequential` (threads 1), `prescient-<policy>` for each policy
//! (`prescient-never`, `prescient-baseline`, `prescient-adaptive`,
//! `prescient-fixed-16`, ...), `prescient` for the default policy
//! (adaptive; the same median as `prescient-adaptive`), `rayon` and `chili`
//! (where the program has such a version), at each thread count; the time
//! is the median of the timed runs.

pub mod measure;

use prescient::tuning::Inlining;
use prescient::Params;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::time::Duration;

use crate::cli::{CommonArgs, Size};
use crate::harness::write::{ms, opt, Md};
use crate::harness::{load_average, Machine};
use crate::samples::{Sample, TableHead};
use crate::tables::annotated::measure::sample_name;
use measure::{
    is_fixed, known_programs, measure, workload, Results, Runner, DEFAULT_POLICIES, PROGRAMS,
};

/// The subcommand's name (and the `table` of its JSON).
pub const TABLE: &str = "inlining";

/// Adaptive task inlining against its fixed policies, rayon, chili and sequential.
///
/// Runs each program under Prescient's task-inlining policies (never,
/// baseline, adaptive, a sweep of fixed thresholds reported as best-fixed),
/// rayon, chili and sequentially, at each thread count, and prints per
/// program a Markdown table of median times and T/Tseq, the adaptive
/// runtime's per-site inlining report, and a summary of ratios.
///
/// Per program and thread count, every runner gets a pool of its own, built
/// once and dropped afterwards. It makes one untimed warm-up run — during
/// which the inliner learns its per-site decisions, which carry over to the
/// timed runs — and then --reps timed runs; a Prescient run is timed inside
/// runtime.run. Every result is checked against the sequential reference.
/// Full size runs the paper sizes (fib 35, nqueens 14, health medium.input
/// for 365 steps, a 2^24-node tree): expect it to take long at low thread
/// counts. --quick: mixed 20 sweeps, the CF'17 quick sizes of fib, nqueens
/// and health, tree16m at 2^20 - 1 nodes, 5 repetitions.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The shared flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Comma-separated Prescient inlining policies: never, baseline,
    /// adaptive, fixed-T (a fixed threshold of T spawn overheads; the fixed
    /// ones form the best-fixed sweep) or baseline-C-L-U (default never,
    /// baseline, adaptive, fixed-1, fixed-4, fixed-16, fixed-64, fixed-256).
    #[arg(long, value_name = "LIST")]
    pub policies: Option<PolicyList>,
    /// Comma-separated programs: mixed, fib, nqueens, health, tree1k,
    /// tree16m (the default), and any other CF'17 program (alignment,
    /// delannoy, fft, sort, strassen, knapsack, uts, floorplan, sparselu).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_program)]
    pub programs: Vec<String>,
    /// Timed repetitions per runner (median of; default 11, --quick 5).
    #[arg(long, value_name = "N")]
    pub reps: Option<NonZeroUsize>,
}

/// A list of inlining policies as `--policies` gives it: names of
/// `Inlining::from_name`, each once, each valid in `Params`, in the order
/// given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyList(pub Vec<Inlining>);

impl std::str::FromStr for PolicyList {
    type Err = String;

    fn from_str(spec: &str) -> Result<PolicyList, String> {
        let mut policies = Vec::new();
        for entry in spec.split(',').map(str::trim) {
            if entry.is_empty() {
                return Err(format!("{spec:?}: empty entry"));
            }
            let policy = Inlining::from_name(entry).ok_or_else(|| {
                format!(
                    "`{entry}` is not an inlining policy (never, baseline, adaptive, fixed-T, \
                     baseline-C-L-U)"
                )
            })?;
            Params::DEFAULT
                .with_inlining(policy)
                .validate()
                .map_err(|e| format!("`{entry}`: {e}"))?;
            if policies.contains(&policy) {
                return Err(format!("`{entry}` is listed twice"));
            }
            policies.push(policy);
        }
        Ok(PolicyList(policies))
    }
}

/// One entry of `--programs`: a name of [`known_programs`].
fn parse_program(name: &str) -> Result<String, String> {
    let known = known_programs();
    if known.contains(&name.trim()) {
        Ok(name.trim().to_string())
    } else {
        Err(format!(
            "unknown program `{name}` (known: {})",
            known.join(", ")
        ))
    }
}

impl Options {
    /// The policies: `--policies`, else [`DEFAULT_POLICIES`].
    pub fn policies(&self) -> Vec<Inlining> {
        match &self.policies {
            Some(list) => list.0.clone(),
            None => {
                DEFAULT_POLICIES
                    .parse::<PolicyList>()
                    .expect("the default policies parse")
                    .0
            }
        }
    }

    /// The programs, in table order: `--programs`, else [`PROGRAMS`].
    pub fn programs(&self) -> Vec<&'static str> {
        if self.programs.is_empty() {
            return PROGRAMS.to_vec();
        }
        known_programs()
            .into_iter()
            .filter(|p| self.programs.iter().any(|q| q == p))
            .collect()
    }

    /// The timed repetitions: `--reps`, else 11 (full), 5 (quick) or 1
    /// (test).
    pub fn reps(&self) -> usize {
        self.reps.map_or(
            match self.common.size() {
                Size::Full => 11,
                Size::Quick => 5,
                Size::Test => 1,
            },
            NonZeroUsize::get,
        )
    }
}

/// The JSON of the table: the shared head and the table's own results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InliningJson {
    /// The shared head (`table`, `machine`, `size`, `threads`, `samples`).
    #[serde(flatten)]
    pub head: TableHead,
    /// The command line.
    pub command: Vec<String>,
    /// `/proc/loadavg` at the start (the machine may be shared).
    pub load_average_at_start: String,
    /// Timed repetitions per runner.
    pub reps: usize,
    /// The policies measured (`never`, `fixed-16`, ...).
    pub policies: Vec<String>,
    /// Each program's medians.
    pub programs: Vec<ProgramJson>,
    /// The summary's ratios per program and thread count.
    pub summary: Vec<SummaryJson>,
}

/// One program of [`InliningJson::programs`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramJson {
    /// The program (`fib`).
    pub program: String,
    /// Its input (`n=35`).
    pub input: String,
    /// The sequential median, in nanoseconds.
    pub seq_ns: f64,
    /// The medians at each thread count.
    pub by_threads: Vec<ThreadsJson>,
    /// The inliner's per-site report of the `adaptive` runtime at the
    /// largest thread count (its text), if `adaptive` was measured.
    pub inliner_report: Option<String>,
}

/// One thread count of [`ProgramJson::by_threads`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadsJson {
    /// Worker threads.
    pub threads: usize,
    /// Each runner's median (`None`: no such version of the program).
    pub runners: Vec<RunnerJson>,
    /// The fastest fixed threshold (`fixed-16`), if any was measured.
    pub best_fixed: Option<String>,
}

/// One runner's median.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunnerJson {
    /// The runner as the table names it (`adaptive`, `fixed-16`, `rayon`).
    pub runner: String,
    /// Its median, in nanoseconds.
    pub median_ns: Option<f64>,
}

/// One line of the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryJson {
    /// The program.
    pub program: String,
    /// Worker threads.
    pub threads: usize,
    /// Each ratio of [`SUMMARY`] by its heading (`adapt/never`), `None`
    /// where a runner is missing.
    pub ratios: Vec<(String, Option<f64>)>,
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn plural(threads: usize) -> &'static str {
    if threads == 1 {
        ""
    } else {
        "s"
    }
}

/// The Markdown table of one program, and the fixed sweep's lines.
fn render(results: &Results, threads: &[usize], policies: &[Inlining]) -> String {
    let mut columns = vec!["runner".to_string()];
    for &t in threads {
        columns.extend([format!("{t} thread{}", plural(t)), "T/Tseq".to_string()]);
    }
    let mut md = Md::new(&columns, 1);
    let seq = results.seq;
    // A row's two cells per thread count: the time (and `tag`) and its
    // ratio over seq, or `-`.
    let row = |md: &mut Md, name: &str, times: Vec<(Option<Duration>, String)>| {
        let mut cells = vec![name.to_string()];
        for (d, tag) in times {
            match d {
                Some(d) => cells.extend([
                    format!("{}{tag}", ms(d.as_secs_f64())),
                    format!("{:.2}", ratio(d, seq)),
                ]),
                None => cells.extend(["-".to_string(), "-".to_string()]),
            }
        }
        md.row(&cells);
    };
    row(&mut md, "seq", vec![(Some(seq), String::new())]);
    let fixed: Vec<Inlining> = policies.iter().copied().filter(|&p| is_fixed(p)).collect();
    let each = |runner| {
        (0..threads.len())
            .map(|k| (results.get(k, runner), String::new()))
            .collect()
    };
    for &policy in policies.iter().filter(|&&p| !is_fixed(p)) {
        row(
            &mut md,
            &policy.to_string(),
            each(Runner::Prescient(policy)),
        );
    }
    if !fixed.is_empty() {
        let best = (0..threads.len())
            .map(|k| match results.best_fixed(k) {
                Some((p, d)) => (Some(d), format!(" ({p})")),
                None => (None, String::new()),
            })
            .collect();
        row(&mut md, "best-fixed", best);
    }
    for runner in [Runner::Rayon, Runner::Chili] {
        row(&mut md, &runner.to_string(), each(runner));
    }
    let mut out = md.text;
    if !fixed.is_empty() {
        out.push('\n');
        for (k, &t) in threads.iter().enumerate() {
            let sweep: Vec<String> = fixed
                .iter()
                .map(|&p| {
                    let time = results.get(k, Runner::Prescient(p));
                    let time =
                        time.map_or("-".to_string(), |d| format!("{:.2}", d.as_secs_f64() * 1e3));
                    format!("{} {time}", p.short_name().trim_start_matches("fixed-"))
                })
                .collect();
            let _ = writeln!(
                out,
                "fixed sweep at {t} thread{} (threshold: ms): {}\n",
                plural(t),
                sweep.join(", ")
            );
        }
    }
    out
}

/// The ratios of the summary: (heading, numerator, denominator). `None` as
/// a runner stands for best-fixed.
pub const SUMMARY: [(&str, Option<Runner>, Option<Runner>); 5] = [
    (
        "adapt/bestfix",
        Some(Runner::Prescient(Inlining::Adaptive)),
        None,
    ),
    (
        "adapt/never",
        Some(Runner::Prescient(Inlining::Adaptive)),
        Some(Runner::Prescient(Inlining::Never)),
    ),
    (
        "base/never",
        Some(Runner::Prescient(Inlining::BASELINE)),
        Some(Runner::Prescient(Inlining::Never)),
    ),
    (
        "adapt/chili",
        Some(Runner::Prescient(Inlining::Adaptive)),
        Some(Runner::Chili),
    ),
    (
        "adapt/rayon",
        Some(Runner::Prescient(Inlining::Adaptive)),
        Some(Runner::Rayon),
    ),
];

/// The summary's ratios of one program at each thread count.
fn summary_of(program: &str, results: &Results, threads: &[usize]) -> Vec<SummaryJson> {
    threads
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let best = results.best_fixed(k);
            let time = |r: Option<Runner>| match r {
                Some(r) => results.get(k, r),
                None => best.map(|(_, d)| d),
            };
            let ratios = SUMMARY
                .iter()
                .map(|&(heading, num, den)| {
                    let value = match (time(num), time(den)) {
                        (Some(a), Some(b)) => Some(ratio(a, b)),
                        _ => None,
                    };
                    (heading.to_string(), value)
                })
                .collect();
            SummaryJson {
                program: program.to_string(),
                threads: t,
                ratios,
            }
        })
        .collect()
}

/// The summary's Markdown table.
fn render_summary(summary: &[SummaryJson]) -> String {
    let mut columns = vec!["program", "thr"];
    columns.extend(SUMMARY.iter().map(|s| s.0));
    let mut md = Md::new(&columns, 1);
    for line in summary {
        let mut cells = vec![line.program.clone(), line.threads.to_string()];
        cells.extend(line.ratios.iter().map(|(_, v)| opt(*v, 2)));
        md.row(&cells);
    }
    md.text
}

/// The JSON and the samples of one program's results.
fn program_json(
    program: &str,
    input: &str,
    results: &Results,
    threads: &[usize],
) -> (Vec<ThreadsJson>, Vec<Sample>) {
    let name = sample_name(program, input);
    let mut samples: Vec<Sample> = Runner::Seq
        .sample_names()
        .into_iter()
        .map(|runner| Sample::new(&name, runner, 1, results.seq.as_secs_f64()))
        .collect();
    let mut by_threads = Vec::new();
    for (k, &t) in threads.iter().enumerate() {
        let mut runners = Vec::new();
        for &(runner, median) in &results.by_threads[k] {
            runners.push(RunnerJson {
                runner: runner.to_string(),
                median_ns: median.map(|d| d.as_nanos() as f64),
            });
            if let Some(d) = median {
                for runner in runner.sample_names() {
                    samples.push(Sample::new(&name, runner, t, d.as_secs_f64()));
                }
            }
        }
        by_threads.push(ThreadsJson {
            threads: t,
            runners,
            best_fixed: results.best_fixed(k).map(|(p, _)| p.short_name()),
        });
    }
    (by_threads, samples)
}

/// Runs the table: prints it on stdout, writes the JSON to `--json`.
///
/// # Errors
/// Bad thread counts, a program that cannot be prepared, a wrong result, a
/// pool that cannot be built, a JSON file that cannot be written.
pub fn run(options: &Options) -> Result<(), String> {
    let threads = options.common.threads()?;
    let size = options.common.size();
    let (reps, policies) = (options.reps(), options.policies());
    let load = load_average();
    let names: Vec<String> = policies.iter().map(Inlining::short_name).collect();
    let machine = Machine::detect();
    println!(
        "### Prescient task inlining per spawn site ({} size; thread counts {threads:?}; load \
         average {load} at start)\n\n{}\n\npolicies: {}. One pool per runner, program and thread \
         count, built once: one untimed warm-up run (the inliner learns during it), then the \
         median of {reps} timed runs (Prescient: timed inside runtime.run). T/Tseq = time over \
         seq's median; best-fixed = the fastest fixed threshold (named); - = no such version.\n",
        size.name(),
        machine.describe(),
        names.join(", "),
    );
    let mut head = TableHead::new(TABLE, size, &threads);
    head.machine = machine;
    let mut json = InliningJson {
        head,
        command: std::env::args().collect(),
        load_average_at_start: load,
        reps,
        policies: names,
        programs: Vec::new(),
        summary: Vec::new(),
    };
    for program in options.programs() {
        let w = workload(program, size)?;
        let name = sample_name(program, &w.input);
        let note = match (program, size) {
            ("tree16m", Size::Quick) => " (--quick: 2^20 - 1 nodes instead of 2^24 - 1)",
            ("tree16m", Size::Test) => " (--test-size: 2^14 - 1 nodes instead of 2^24 - 1)",
            _ => "",
        };
        println!("#### {program}: {}{note}\n", w.input);
        crate::cli::progress(format_args!("inlining: {name}, sequential"));
        let (seq, _) =
            measure(&w, Runner::Seq, 1, reps)?.ok_or("every program has a sequential version")?;
        let mut report = None;
        let mut by_threads = Vec::new();
        for (k, &t) in threads.iter().enumerate() {
            let mut row = Vec::new();
            let runners = policies
                .iter()
                .map(|&p| Runner::Prescient(p))
                .chain([Runner::Rayon, Runner::Chili]);
            for runner in runners {
                crate::cli::progress(format_args!(
                    "inlining: {name}, {runner}, {t} thread{}",
                    plural(t)
                ));
                let measured = measure(&w, runner, t, reps)?;
                if let Some((_, Some(r))) = &measured {
                    if runner == Runner::Prescient(Inlining::Adaptive) && k + 1 == threads.len() {
                        report = Some((t, r.clone()));
                    }
                }
                row.push((runner, measured.map(|(d, _)| d)));
            }
            by_threads.push(row);
        }
        let results = Results { seq, by_threads };
        println!("{}", render(&results, &threads, &policies));
        if let Some((t, r)) = &report {
            println!(
                "inliner report, adaptive at {t} thread{} (warm-up and timed runs):\n\n```text\n\
                 {r}\n```\n",
                plural(*t)
            );
            if r.sites.is_empty() {
                println!(
                    "(no site of {program} went through the inliner: its tasks are scope or \
                     group spawns, which keep lazy task creation and are not routed, so the \
                     policies differ here by noise only)\n"
                );
            }
        }
        let (program_threads, samples) = program_json(program, &w.input, &results, &threads);
        json.head.samples.extend(samples);
        json.summary.extend(summary_of(program, &results, &threads));
        json.programs.push(ProgramJson {
            program: program.to_string(),
            input: w.input.clone(),
            seq_ns: seq.as_nanos() as f64,
            by_threads: program_threads,
            inliner_report: report.map(|(_, r)| r.to_string()),
        });
        // Large inputs take a while to free; drop them before the next program.
        drop(w);
    }
    println!(
        "#### summary: ratios of medians (below 1: the first is faster; bestfix = best-fixed)\n\n{}",
        render_summary(&json.summary)
    );
    options.common.write_json(&json)?;
    if let Some(path) = &options.common.json {
        eprintln!("JSON written to {}", path.display());
    }
    Ok(())
}
