//! Adaptive task inlining per spawn site, measured: each program under
//! Prescient's inlining policies (`never`, `baseline`, `adaptive` and a sweep
//! of fixed thresholds), next to rayon, chili and the sequential reference,
//! at each thread count.
//!
//! `cargo bench-run inlining_table -- [--quick] [--threads LIST] [--policies LIST] [--programs LIST] [--reps N]`
//!
//! Programs: `mixed` (many tiny and a few large tasks from different spawn
//! sites, `prescient_benches::inlining`), `fib`, `nqueens` and `health` (the
//! CF'17 `#[task_program]` versions, whose sites carry the analyzer's static
//! effort to the inliner, prepared by `prescient_benches::cf17::workloads` at the paper
//! size, quick at the quick size), `tree1k` (1 000 sums of a 1 023-node
//! balanced tree per run) and `tree16m` (one sum of a 2^24 − 1-node tree;
//! quick 2^20 − 1 nodes); `--programs` also takes the other CF'17 programs.
//!
//! Per program and thread count, every runner gets a pool of its own, built
//! once and dropped afterwards: one Prescient runtime per policy, a rayon
//! pool, a chili pool. It makes one untimed warm-up run — during which the
//! inliner learns its per-site decisions, which carry over to the timed runs
//! — and then `--reps` timed runs (default 11, quick 5); a Prescient run is
//! timed inside `runtime.run`. The table gives the median and its ratio over
//! the sequential median (measured once, the same way). The fixed thresholds
//! of `--policies` are summarised as `best-fixed`, the fastest of them, which
//! names the threshold that won; one line under the table lists them all.
//! Every result is checked against the sequential reference, and a wrong one
//! panics with the program, runner and thread count. After each program the
//! inliner's per-site report of the `adaptive` runtime at the largest thread
//! count is printed (counts over its warm-up and timed runs), and at the end a
//! summary of ratios: adaptive / best-fixed, adaptive / never, baseline /
//! never, adaptive / chili and adaptive / rayon. The shared flags and the
//! thread counts (`--threads`, else `PRESCIENT_BENCH_THREADS`, else 1,2)
//! follow the convention of every benchmark binary (`prescient_benches::cli`).

use prescient::{Inlining, InliningReport, Params, Runtime};
use prescient_benches::cf17::sweep::timed_runs;
use prescient_benches::cf17::workloads::{self, expect_eq, timed};
use prescient_benches::cf17::{Size, Timed, Workload};
use prescient_benches::cli::{self, Parsed};
use prescient_benches::inlining::{self as mixed, Mixed};
use prescient_benches::programs::tree;
use prescient_benches::suite::machine::{load_average, Machine};
use prescient_benches::suite::median;
use std::fmt::Write as _;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

/// The programs, in table order.
const PROGRAMS: [&str; 6] = ["mixed", "fib", "nqueens", "health", "tree1k", "tree16m"];

/// The policies measured when `--policies` is not given.
const DEFAULT_POLICIES: &str =
    "never,baseline,adaptive,fixed-1,fixed-4,fixed-16,fixed-64,fixed-256";

/// Sums of the 1 023-node tree per `tree1k` run: one sum takes a few
/// microseconds, too little to time alone.
const TREE1K_SUMS: u32 = 1000;

/// The `tree16m` tree of `--quick`: 2^20 − 1 nodes.
const QUICK_TREE_NODES: u64 = (1 << 20) - 1;

/// Width of a runner's name in the tables.
const NAME_WIDTH: usize = 11;

/// Width of one thread count's cell: the time (11), the ratio (7) and
/// best-fixed's winner (` (fixed-256)`).
const CELL_WIDTH: usize = 31;

/// The `--help` text.
fn usage() -> String {
    cli::usage(
        "inlining_table [--quick] [--threads LIST] [--policies LIST] [--programs LIST] [--reps N]",
        "Runs each program under Prescient's task-inlining policies (never, baseline,
adaptive, a sweep of fixed thresholds reported as best-fixed), rayon, chili and
sequentially, at each thread count, and prints per program a table of median
times and T/Tseq, the adaptive runtime's per-site inlining report, and a
summary of ratios. Each pool makes one untimed warm-up run (the inliner learns
during it) before the timed runs; every result is checked against the
sequential reference. Full mode runs the paper sizes (fib 35, nqueens 14,
health medium.input for 365 steps, a 2^24-node tree): expect it to take long
at low thread counts.",
        "smaller inputs (mixed 20 sweeps, the CF'17
                      quick sizes of fib, nqueens and health, tree16m at 2^20 - 1
                      nodes) and 5 repetitions instead of 11",
        "  --policies LIST     comma-separated Prescient inlining policies: never,
                      baseline, adaptive, fixed-T (a fixed threshold of T
                      spawn overheads; the fixed ones form the best-fixed
                      sweep) or baseline-C-L-U (default never, baseline,
                      adaptive, fixed-1, fixed-4, fixed-16, fixed-64,
                      fixed-256)
  --programs LIST     comma-separated programs: mixed, fib, nqueens, health,
                      tree1k, tree16m (the default), and any other CF'17
                      program (alignment, delannoy, fft, sort, strassen,
                      knapsack, uts, floorplan, sparselu)
  --reps N            timed repetitions per runner (median of; default 11,
                      quick 5)
",
    )
}

/// The parsed command line.
struct Options {
    quick: bool,
    threads: Vec<usize>,
    reps: usize,
    policies: Vec<Inlining>,
    programs: Vec<&'static str>,
}

/// Parses a policy list: names of `Inlining::from_name`, each once, each
/// valid in `Params`; kept in the order given.
fn parse_policies(spec: &str) -> Result<Vec<Inlining>, String> {
    let mut policies = Vec::new();
    for entry in spec.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err(format!("--policies {spec:?}: empty entry"));
        }
        let policy = Inlining::from_name(entry).ok_or_else(|| {
            format!(
                "--policies: `{entry}` is not an inlining policy (never, baseline, adaptive, \
                 fixed-T, baseline-C-L-U)"
            )
        })?;
        Params::DEFAULT
            .with_inlining(policy)
            .validate()
            .map_err(|e| format!("--policies: `{entry}`: {e}"))?;
        if policies.contains(&policy) {
            return Err(format!("--policies: `{entry}` is listed twice"));
        }
        policies.push(policy);
    }
    Ok(policies)
}

/// Every program `--programs` accepts: [`PROGRAMS`] (the default list),
/// then the other CF'17 programs, in table order.
fn known_programs() -> Vec<&'static str> {
    let mut known = PROGRAMS.to_vec();
    known.extend(
        workloads::NAMES
            .iter()
            .filter(|name| !PROGRAMS.contains(name)),
    );
    known
}

/// Parses a program list: names of [`known_programs`], returned in table
/// order.
fn parse_programs(spec: &str) -> Result<Vec<&'static str>, String> {
    let known = known_programs();
    let mut wanted = Vec::new();
    for name in spec.split(',').map(str::trim) {
        let program = known.iter().find(|&&p| p == name).ok_or_else(|| {
            format!(
                "--programs: unknown program `{name}` (known: {})",
                known.join(", ")
            )
        })?;
        wanted.push(*program);
    }
    Ok(known.into_iter().filter(|p| wanted.contains(p)).collect())
}

/// The options of `args` (without the program name), `None` for `--help`.
fn parse_options(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = 0;
    let mut policies = None;
    let mut programs = PROGRAMS.to_vec();
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--reps" => reps = args.positive(flag)?,
            "--policies" => policies = Some(parse_policies(&args.value(flag)?)?),
            "--programs" => programs = parse_programs(&args.value(flag)?)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    let policies = match policies {
        Some(p) => p,
        None => parse_policies(DEFAULT_POLICIES)?,
    };
    Ok(Some(Options {
        quick: common.quick,
        threads: common.threads(env_threads, available)?,
        reps: match (reps, common.quick) {
            (0, true) => 5,
            (0, false) => 11,
            (n, _) => n,
        },
        policies,
        programs,
    }))
}

/// Whether `policy` is one of the fixed thresholds of the best-fixed sweep.
fn is_fixed(policy: Inlining) -> bool {
    policy.short_name().starts_with("fixed-")
}

/// The mixed workload, checked against its sequential result.
fn mixed_workload(quick: bool) -> Workload {
    let m: Mixed = if quick { mixed::QUICK } else { mixed::FULL };
    let expected = m.seq();
    Workload {
        program: "mixed",
        input: m.describe(),
        seq: Box::new(move || timed(|| black_box(m).seq(), |g| expect_eq("seq", g, expected))),
        prescient: Box::new(move || {
            timed(
                || black_box(m).prescient(),
                |g| expect_eq("prescient", g, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(|| black_box(m).rayon(), |g| expect_eq("rayon", g, expected))
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || black_box(m).chili(scope),
                |g| expect_eq("chili", g, expected),
            )
        })),
    }
}

/// Calls `sum` `sums` times; the first result that is not `expected`, if
/// any.
fn first_wrong(sums: u32, expected: u64, mut sum: impl FnMut() -> u64) -> Option<u64> {
    let mut wrong = None;
    for _ in 0..sums {
        let got = sum();
        if got != expected && wrong.is_none() {
            wrong = Some(got);
        }
    }
    wrong
}

/// `sums` sums of a balanced tree of `nodes` nodes per run (each one
/// checked), with `programs::tree` (one plain `prescient::join` site).
fn tree_workload(program: &'static str, nodes: u64, sums: u32) -> Workload {
    let root: Arc<tree::Node> = Arc::from(tree::Node::balanced(nodes));
    let expected = tree::expected(nodes);
    let input = if sums == 1 {
        format!("{nodes} nodes")
    } else {
        format!("{sums} sums of {nodes} nodes")
    };
    // Every sum must be right: a run's result is the first wrong one, if any.
    let check = move |what: &'static str| {
        move |got: Option<u64>| got.map_or(Ok(()), |g| expect_eq(what, g, expected))
    };
    let (r_seq, r_par, r_rayon, r_chili) = (root.clone(), root.clone(), root.clone(), root);
    Workload {
        program,
        input,
        seq: Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_seq(black_box(&r_seq))),
                check("seq"),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_prescient(black_box(&r_par))),
                check("prescient"),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || first_wrong(sums, expected, || tree::sum_rayon(black_box(&r_rayon))),
                check("rayon"),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || {
                    first_wrong(sums, expected, || {
                        tree::sum_chili(scope, black_box(&r_chili))
                    })
                },
                check("chili"),
            )
        })),
    }
}

/// The workload of `program`, its reference computed.
///
/// # Panics
/// If a CF'17 program cannot be prepared (an input file missing, a
/// reference that disagrees with the known answer).
fn workload(program: &str, quick: bool) -> Workload {
    match program {
        "mixed" => mixed_workload(quick),
        "tree1k" => tree_workload("tree1k", tree::NODES_1K, TREE1K_SUMS),
        "tree16m" => tree_workload(
            "tree16m",
            if quick {
                QUICK_TREE_NODES
            } else {
                tree::NODES_16M
            },
            1,
        ),
        cf17 => workloads::prepare(cf17, if quick { Size::Quick } else { Size::Paper })
            .unwrap_or_else(|e| panic!("preparing {cf17}: {e}")),
    }
}

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runner {
    Seq,
    Prescient(Inlining),
    Rayon,
    Chili,
}

impl std::fmt::Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Runner::Seq => f.write_str("seq"),
            Runner::Prescient(policy) => write!(f, "{policy}"),
            Runner::Rayon => f.write_str("rayon"),
            Runner::Chili => f.write_str("chili"),
        }
    }
}

/// One warm-up run and `reps` timed runs of `run`; the timed runs' median.
///
/// # Panics
/// If a run's result is wrong (`what` says which program, runner and
/// thread count).
fn repeat(run: impl FnMut() -> Timed, reps: usize, what: &str) -> Duration {
    let ns: Vec<f64> = timed_runs(reps, run)
        .unwrap_or_else(|e| panic!("wrong result: {what}: {e}"))
        .iter()
        .map(|time| time.as_nanos() as f64)
        .collect();
    Duration::from_nanos(median(&ns) as u64)
}

/// A runner's median on `w`, or `None` if it has no version of the
/// program; with the inliner's report for a Prescient runner.
fn measure(
    w: &Workload,
    runner: Runner,
    threads: usize,
    reps: usize,
) -> Option<(Duration, Option<InliningReport>)> {
    let what = format!("{} under {runner} on {threads} thread(s)", w.program);
    match runner {
        Runner::Seq => Some((repeat(|| (w.seq)(), reps, &what), None)),
        Runner::Prescient(policy) => {
            let rt = Runtime::builder()
                .params(Params::DEFAULT.with_inlining(policy))
                .num_workers(threads)
                .build()
                .unwrap_or_else(|e| panic!("building Prescient for {what}: {e}"));
            let median = rt.run(|| repeat(|| (w.prescient)(), reps, &what));
            Some((median, Some(rt.inlining_report())))
        }
        Runner::Rayon => {
            let run = w.rayon.as_deref()?;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap_or_else(|e| panic!("building the rayon pool for {what}: {e}"));
            Some((pool.install(|| repeat(run, reps, &what)), None))
        }
        Runner::Chili => {
            let run = w.chili.as_deref()?;
            let pool = chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZeroUsize::new(threads),
                ..Default::default()
            });
            let mut scope = pool.scope();
            Some((repeat(|| run(&mut scope), reps, &what), None))
        }
    }
}

/// One program's medians: `seq`, and per thread count (in `threads`'
/// order) each runner's, `None` where it has no version.
struct Results {
    seq: Duration,
    /// Per thread count: (runner, median).
    by_threads: Vec<Vec<(Runner, Option<Duration>)>>,
}

impl Results {
    /// The median of `runner` at the `k`-th thread count.
    fn get(&self, k: usize, runner: Runner) -> Option<Duration> {
        self.by_threads[k]
            .iter()
            .find(|(r, _)| *r == runner)
            .and_then(|(_, d)| *d)
    }

    /// The fastest fixed threshold at the `k`-th thread count.
    fn best_fixed(&self, k: usize) -> Option<(Inlining, Duration)> {
        self.by_threads[k]
            .iter()
            .filter_map(|(r, d)| match (r, d) {
                (Runner::Prescient(p), Some(d)) if is_fixed(*p) => Some((*p, *d)),
                _ => None,
            })
            .min_by_key(|&(_, d)| d)
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// A table cell: the time and its ratio over seq (and `tag`), or `-`.
fn cell(d: Option<Duration>, seq: Duration, tag: &str) -> String {
    match d {
        Some(d) => format!("{:>11} {:>6.2}{tag}", ms(d), ratio(d, seq)),
        None => format!("{:>11} {:>6}", "-", "-"),
    }
}

fn plural(threads: usize) -> &'static str {
    if threads == 1 {
        ""
    } else {
        "s"
    }
}

/// The table of one program.
fn render(results: &Results, options: &Options) -> String {
    let threads = &options.threads;
    let mut out = format!("{:<NAME_WIDTH$}", "runner");
    for &t in threads {
        // Aligned with the cells: the thread count over the times.
        let head = format!("{:>11} {:>6}", format!("{t} thread{}", plural(t)), "T/Tseq");
        let _ = write!(out, " {head:<CELL_WIDTH$}");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    let mut row = |name: &str, cells: Vec<String>| {
        let _ = write!(out, "{name:<NAME_WIDTH$}");
        for c in cells {
            let _ = write!(out, " {c:<CELL_WIDTH$}");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    let seq = results.seq;
    let mut seq_cells = vec![cell(Some(seq), seq, "")];
    seq_cells.resize(threads.len(), String::new());
    row("seq", seq_cells);
    let fixed: Vec<Inlining> = options
        .policies
        .iter()
        .copied()
        .filter(|&p| is_fixed(p))
        .collect();
    for &policy in options.policies.iter().filter(|&&p| !is_fixed(p)) {
        let runner = Runner::Prescient(policy);
        let cells = (0..threads.len())
            .map(|k| cell(results.get(k, runner), seq, ""))
            .collect();
        row(&policy.to_string(), cells);
    }
    if !fixed.is_empty() {
        let cells = (0..threads.len())
            .map(|k| match results.best_fixed(k) {
                Some((p, d)) => cell(Some(d), seq, &format!(" ({p})")),
                None => cell(None, seq, ""),
            })
            .collect();
        row("best-fixed", cells);
    }
    for runner in [Runner::Rayon, Runner::Chili] {
        let cells = (0..threads.len())
            .map(|k| cell(results.get(k, runner), seq, ""))
            .collect();
        row(&runner.to_string(), cells);
    }
    if !fixed.is_empty() {
        for (k, &t) in threads.iter().enumerate() {
            let sweep: Vec<String> = fixed
                .iter()
                .map(|&p| {
                    let time = results
                        .get(k, Runner::Prescient(p))
                        .map_or("-".to_string(), |d| format!("{:.2}", d.as_secs_f64() * 1e3));
                    format!("{} {time}", p.short_name().trim_start_matches("fixed-"))
                })
                .collect();
            let _ = writeln!(
                out,
                "  fixed sweep at {t} thread{} (threshold: ms): {}",
                plural(t),
                sweep.join(", ")
            );
        }
    }
    out
}

/// The ratios of the summary: (heading, numerator, denominator). `None` as
/// a runner stands for best-fixed.
const SUMMARY: [(&str, Option<Runner>, Option<Runner>); 5] = [
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

/// The summary table over every measured program.
fn summary(all: &[(&str, Results)], threads: &[usize]) -> String {
    let mut out = format!("{:<9} {:>4}", "program", "thr");
    for (heading, _, _) in SUMMARY {
        let _ = write!(out, " {heading:>14}");
    }
    out.push('\n');
    for (program, results) in all {
        for (k, &t) in threads.iter().enumerate() {
            let _ = write!(out, "{program:<9} {t:>4}");
            let best = results.best_fixed(k);
            for (_, num, den) in SUMMARY {
                let time = |r: Option<Runner>| match r {
                    Some(r) => results.get(k, r),
                    None => best.map(|(_, d)| d),
                };
                let value = match (time(num), time(den)) {
                    (Some(a), Some(b)) => format!("{:.2}", ratio(a, b)),
                    _ => "-".to_string(),
                };
                let _ = write!(out, " {value:>14}");
            }
            out.push('\n');
        }
    }
    out
}

fn main() {
    let Some(options) = cli::options_from_command_line(parse_options, &usage()) else {
        return;
    };
    let threads = options.threads.clone();
    let load = load_average();
    let names: Vec<String> = options.policies.iter().map(Inlining::short_name).collect();
    println!(
        "# Prescient task inlining per spawn site ({} mode; thread counts {threads:?}; load \
         average {load} at start)\n# {}\n# policies: {}. One pool per runner, program and thread \
         count, built once: one untimed warm-up run (the inliner learns during it), then the \
         median of {} timed runs (Prescient: timed inside runtime.run). T/Tseq = time over seq's \
         median; best-fixed = the fastest fixed threshold (named); - = no such version.\n",
        if options.quick { "quick" } else { "full" },
        Machine::detect().describe(),
        names.join(", "),
        options.reps,
    );
    let mut all = Vec::new();
    for &program in &options.programs {
        let w = workload(program, options.quick);
        let mut note = String::new();
        if program == "tree16m" && options.quick {
            note = " (--quick: 2^20 - 1 nodes instead of 2^24 - 1)".to_string();
        }
        println!("## {program}: {}{note}", w.input);
        let seq = measure(&w, Runner::Seq, 1, options.reps)
            .map(|(d, _)| d)
            .expect("every program has a sequential version");
        let mut report = None;
        let mut by_threads = Vec::new();
        for (k, &t) in threads.iter().enumerate() {
            let mut row = Vec::new();
            let runners = options
                .policies
                .iter()
                .map(|&p| Runner::Prescient(p))
                .chain([Runner::Rayon, Runner::Chili]);
            for runner in runners {
                let measured = measure(&w, runner, t, options.reps);
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
        print!("{}", render(&results, &options));
        if let Some((t, r)) = report {
            println!(
                "inliner report, adaptive at {t} thread{} (warm-up and timed runs):\n{r}",
                plural(t)
            );
            if r.sites.is_empty() {
                println!(
                    "(no site of {program} went through the inliner: its tasks are scope or \
                     group spawns, which keep lazy task creation and are not routed, so the \
                     policies differ here by noise only)\n"
                );
            }
        } else {
            println!();
        }
        // Large inputs take a while to free; drop them before the next program.
        drop(w);
        all.push((program, results));
    }
    println!(
        "## summary: ratios of medians (below 1: the first is faster; bestfix = best-fixed)\n{}",
        summary(&all, &threads)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Option<Options>, String> {
        parse_options(s.split_whitespace().map(String::from), None, 4)
    }

    #[test]
    fn options() {
        let o = parse("").unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![1, 2], 11));
        assert_eq!(o.programs, PROGRAMS);
        let names: Vec<String> = o.policies.iter().map(Inlining::short_name).collect();
        assert_eq!(names.join(","), DEFAULT_POLICIES);
        let o = parse("--quick --policies adaptive,fixed-8 --programs fib,mixed --reps 3")
            .unwrap()
            .unwrap();
        assert_eq!(o.reps, 3);
        assert_eq!(o.policies, [Inlining::Adaptive, Inlining::fixed(8)]);
        assert_eq!(o.programs, ["mixed", "fib"], "table order");
        assert_eq!(parse("--quick").unwrap().unwrap().reps, 5);
        assert!(parse("--help").unwrap().is_none());
        for bad in [
            "--policies sometimes",
            "--policies never,never",
            "--policies never,",
            "--policies fixed-100000",
            "--programs tree",
            "--reps 0",
            "--bogus",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quick_workloads_check_their_results() {
        for program in ["fib", "tree1k"] {
            let w = workload(program, true);
            assert!((w.seq)().1.is_ok(), "{program}");
        }
        assert!(expect_eq("x", 1, 2).unwrap_err().contains("expected 2"));
    }
}
