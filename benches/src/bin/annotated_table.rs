//! The three `#[task_program]` programs of `prescient_benches::annotated`
//! (fib, nqueens, alignment) under many runtime configurations, at each
//! thread count: a scheduling study of what the analysed parameters buy.
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
//! load then hits every runner alike. Each line gives the best time, T/Tseq,
//! the speedup and, per timed run, the runtime's counters (steals,
//! suspensions, spawns, inlined spawns, published joins); `*` marks the
//! fastest configuration of a program at a thread count, and a summary line
//! gives `own/default`, the analysed parameters' time over the default's
//! (below 1: the analysis helped). The table is also written as JSON. The
//! flags and the thread counts (`--threads`, else `PRESCIENT_BENCH_THREADS`,
//! else 1,2) follow the convention of every benchmark binary
//! (`prescient_benches::cli`).
//!
//! `cargo bench-run annotated_table -- [--quick] [--threads LIST] [--reps N] [--only PROGRAMS] [--json PATH]`

use prescient::{Counters, Params, QueuePolicy, Runtime};
use prescient_benches::annotated::{alignment, fib, nqueens};
use prescient_benches::cli::{self, Parsed, THREADS_ENV};
use prescient_benches::dataflow::runtime;
use prescient_benches::suite::machine::{load_average, Machine};
use prescient_benches::suite::report::{json_number, json_string};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The programs, in table order.
const PROGRAMS: [&str; 3] = ["fib", "nqueens", "alignment"];

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

/// The fixed queue capacities measured under `DEF` and `PF`.
const CAPACITIES: [usize; 3] = [4, 16, 128];

/// Sequences of `prot.20.aa` aligned in quick mode (all 20 in full mode).
const QUICK_SEQUENCES: usize = 10;

/// The `--help` text.
fn usage() -> String {
    cli::usage(
        "annotated_table [--quick] [--threads LIST] [--reps N] [--only PROGRAMS] [--json PATH]",
        "Runs the #[task_program] programs fib (n = 35), nqueens (n = 11) and alignment
(BOTS prot.20.aa) sequentially and under several runtime configurations —
own (the program's analysed PARAMS), default (Params::DEFAULT), DEF and PF at
queue capacities 4, 16 and 128 — at each thread count, and prints one table
with times, speedups and scheduler counters per run; every result is checked
against the sequential reference.",
        "smaller inputs (fib 30, nqueens 10, the first 10
                      sequences of prot.20.aa) and fewer repetitions",
        "  --reps N            timed repetitions per configuration (best of; default
                      5, quick 3)
  --only PROGRAMS     comma-separated programs to run (fib, nqueens,
                      alignment; default all)
  --json PATH         where to write the JSON (default
                      target/prescient-annotated.json)
",
    )
}

struct Options {
    quick: bool,
    threads: Vec<usize>,
    reps: usize,
    programs: Vec<&'static str>,
    json: PathBuf,
}

/// The options of `args` (without the program name), `None` for `--help`.
fn parse_options(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = 0;
    let mut programs = PROGRAMS.to_vec();
    let mut json = PathBuf::from("target/prescient-annotated.json");
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--reps" => {
                reps = args.positive(flag)?;
            }
            "--only" => {
                let list = args.value(flag)?;
                let mut wanted = Vec::new();
                for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let program = PROGRAMS
                        .iter()
                        .find(|&&p| p == name)
                        .ok_or_else(|| format!("--only: unknown program `{name}`"))?;
                    wanted.push(*program);
                }
                if wanted.is_empty() {
                    return Err("--only: empty program list".to_string());
                }
                programs = PROGRAMS
                    .iter()
                    .copied()
                    .filter(|p| wanted.contains(p))
                    .collect();
            }
            "--json" => json = PathBuf::from(args.value(flag)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    let default_reps = if common.quick { 3 } else { 5 };
    Ok(Some(Options {
        quick: common.quick,
        threads: common.threads(env_threads, available)?,
        reps: if reps > 0 { reps } else { default_reps },
        programs,
        json,
    }))
}

/// The time of one run and whether its result was right.
type Outcome = (Duration, Result<(), String>);

/// One program at one input size, ready to run.
struct Workload {
    name: &'static str,
    /// The input, in words.
    size: String,
    /// The program's analysed parameters.
    params: Params,
    /// One sequential run, checked.
    seq: Box<dyn Fn() -> Outcome>,
    /// One run on a runtime (`runtime.run(|| program)`), checked.
    par: Box<dyn Fn(&Runtime) -> Outcome>,
}

/// `f`'s result and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

/// `Ok` if `got` is `expected`, else the message of a wrong result.
fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: &T, expected: &T) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!(
            "{what}: wrong result {got:?}, expected {expected:?}"
        ))
    }
}

/// The workload of the program `name`, its reference computed (and itself
/// checked against the known answer where there is one).
fn workload(name: &'static str, quick: bool) -> Result<Workload, String> {
    match name {
        "fib" => {
            let n: u64 = if quick { 30 } else { 35 };
            let reference = fib::fib_seq(n);
            check("fib_seq", &reference, &fib::expected(n))?;
            Ok(Workload {
                name,
                size: format!("n={n}"),
                params: fib::PARAMS,
                seq: Box::new(move || {
                    let (time, got) = timed(|| fib::fib_seq(black_box(n)));
                    (time, check("fib seq", &got, &reference))
                }),
                par: Box::new(move |rt| {
                    let (time, got) = timed(|| rt.run(|| fib::fib(black_box(n))));
                    (time, check("fib", &got, &reference))
                }),
            })
        }
        "nqueens" => {
            let n: usize = if quick { 10 } else { 11 };
            let reference = nqueens::nqueens_seq(n);
            check("nqueens_seq", &Some(reference), &nqueens::expected(n))?;
            Ok(Workload {
                name,
                size: format!("n={n}"),
                params: nqueens::PARAMS,
                seq: Box::new(move || {
                    let (time, got) = timed(|| nqueens::nqueens_seq(black_box(n)));
                    (time, check("nqueens seq", &got, &reference))
                }),
                par: Box::new(move |rt| {
                    let (time, got) = timed(|| rt.run(|| nqueens::find_queens(black_box(n))));
                    (time, check("nqueens", &got, &reference))
                }),
            })
        }
        "alignment" => {
            let mut seqs = alignment::read_sequences(alignment::PROT_20)
                .map_err(|e| format!("{}: {e}", alignment::PROT_20))?;
            let all = seqs.len();
            if quick {
                seqs.truncate(QUICK_SEQUENCES);
            }
            let scoring = alignment::Scoring::protein();
            let reference = alignment::pairalign_seq(&seqs, &scoring);
            if seqs.len() == all {
                check(
                    "pairalign_seq",
                    &reference.fingerprint(),
                    &alignment::BOTS_PROT_20_FINGERPRINT,
                )?;
            }
            let n = seqs.len();
            let size = if n == all {
                "prot.20".to_string()
            } else {
                format!("prot.20[..{n}]")
            };
            let (seqs, scoring) = (std::sync::Arc::new(seqs), std::sync::Arc::new(scoring));
            let (s2, c2, r2) = (seqs.clone(), scoring.clone(), reference.clone());
            Ok(Workload {
                name,
                size,
                params: alignment::PARAMS,
                seq: Box::new(move || {
                    let (time, got) = timed(|| alignment::pairalign_seq(&seqs, &scoring));
                    (
                        time,
                        check(
                            "pairalign_seq",
                            &got.fingerprint(),
                            &reference.fingerprint(),
                        ),
                    )
                }),
                par: Box::new(move |rt| {
                    let (time, got) = timed(|| rt.run(|| alignment::pairalign(&s2, &c2)));
                    let result = check("pairalign", &got.fingerprint(), &r2.fingerprint())
                        .and_then(|()| {
                            (got == r2).then_some(()).ok_or_else(|| {
                                "pairalign: wrong score matrix (same fingerprint)".to_string()
                            })
                        });
                    (time, result)
                }),
            })
        }
        other => Err(format!("unknown program `{other}`")),
    }
}

/// The configurations a program is measured under: its own analysed
/// parameters, the default, and the fixed policies × capacities.
fn configs(own: Params) -> Vec<(String, Params)> {
    let mut configs = vec![
        ("own".to_string(), own),
        ("default".to_string(), Params::DEFAULT),
    ];
    for policy in [
        QueuePolicy::InsertBackStealBack,
        QueuePolicy::InsertFrontStealBack,
    ] {
        for capacity in CAPACITIES {
            configs.push((
                format!("{policy}/{capacity}"),
                Params::DEFAULT
                    .with_queue_policy(policy)
                    .with_queue_capacity(capacity),
            ));
        }
    }
    configs
}

/// One measured line of the table.
struct Row {
    program: &'static str,
    size: String,
    /// `seq` or a configuration's name.
    config: String,
    /// `None` for `seq`.
    params: Option<Params>,
    /// 0 for `seq`.
    threads: usize,
    best: Duration,
    /// The counters over the timed runs (`None` for `seq`).
    counters: Option<Counters>,
    /// Whether this is the fastest configuration of its program and thread
    /// count.
    fastest: bool,
}

/// `own/default` of one program at one thread count.
struct Ratio {
    program: &'static str,
    threads: usize,
    own: Duration,
    default: Duration,
}

/// One runner of a program's group.
struct Runner {
    config: String,
    params: Option<Params>,
    threads: usize,
    runtime: Option<Runtime>,
}

/// Measures `w` under every configuration and thread count, round robin:
/// one warm-up round, then `reps` timed rounds. Returns the rows in table
/// order (`seq`, then by thread count, configurations in order).
fn measure(w: &Workload, threads: &[usize], reps: usize) -> Result<Vec<Row>, String> {
    let mut runners = vec![Runner {
        config: "seq".to_string(),
        params: None,
        threads: 0,
        runtime: None,
    }];
    for &t in threads {
        for (config, params) in configs(w.params) {
            runners.push(Runner {
                config,
                params: Some(params),
                threads: t,
                runtime: Some(runtime(t, params)),
            });
        }
    }
    let mut best = vec![Duration::MAX; runners.len()];
    let mut before: Vec<Option<Counters>> = vec![None; runners.len()];
    for round in 0..=reps {
        for (k, r) in runners.iter().enumerate() {
            if round == 1 {
                // Counters cover the timed runs only.
                before[k] = r.runtime.as_ref().map(Runtime::counters);
            }
            let (time, result) = match &r.runtime {
                None => (w.seq)(),
                Some(rt) => (w.par)(rt),
            };
            result.map_err(|e| {
                format!(
                    "{} {} under {} on {} thread(s): {e}",
                    w.name, w.size, r.config, r.threads
                )
            })?;
            if round > 0 {
                best[k] = best[k].min(time);
            }
        }
    }
    let mut rows: Vec<Row> = runners
        .iter()
        .zip(&best)
        .zip(&before)
        .map(|((r, &best), before)| Row {
            program: w.name,
            size: w.size.clone(),
            config: r.config.clone(),
            params: r.params,
            threads: r.threads,
            best,
            counters: r
                .runtime
                .as_ref()
                .zip(before.as_ref())
                .map(|(rt, before)| rt.counters().since(before)),
            fastest: false,
        })
        .collect();
    for &t in threads {
        let fastest = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.threads == t)
            .min_by_key(|(_, r)| r.best)
            .map(|(k, _)| k);
        if let Some(k) = fastest {
            rows[k].fastest = true;
        }
    }
    Ok(rows)
}

fn fmt_time(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// A per-run count: whole numbers from 100 on, else one decimal.
fn fmt_count(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// The table lines of one program's rows (the header is printed once).
fn render(rows: &[Row], reps: usize) -> String {
    let mut out = String::new();
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
        let _ = write!(
            out,
            "{:<9} {:<13} {:<8} {:<3} {:>4} {:>4} {:>11} {:>7.2} {:>7.2}",
            r.program,
            r.size,
            r.config,
            policy,
            capacity,
            threads,
            fmt_time(r.best),
            ratio(r.best, seq),
            ratio(seq, r.best),
        );
        for (name, _) in COUNTER_COLUMNS {
            let cell = r
                .counters
                .and_then(|c| c.get(name))
                .map_or("-".to_string(), |v| fmt_count(v as f64 / reps as f64));
            let _ = write!(out, " {cell:>10}");
        }
        out.push_str(if r.fastest { "  *\n" } else { "\n" });
    }
    out
}

/// `own/default` at each thread count of one program's rows.
fn ratios(rows: &[Row], threads: &[usize]) -> Vec<Ratio> {
    threads
        .iter()
        .filter_map(|&t| {
            let time = |config: &str| {
                rows.iter()
                    .find(|r| r.threads == t && r.config == config)
                    .map(|r| r.best)
            };
            Some(Ratio {
                program: rows.first()?.program,
                threads: t,
                own: time("own")?,
                default: time("default")?,
            })
        })
        .collect()
}

/// The whole run as JSON: the machine, the command line, the options, the
/// rows (counters are totals over `reps` timed runs), the `own/default`
/// ratios and the errors.
fn json(
    machine: &Machine,
    command: &[String],
    options: &Options,
    load: &str,
    rows: &[Row],
    ratios: &[Ratio],
    errors: &[String],
) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"machine\": {},", machine.json());
    let command: Vec<String> = command.iter().map(|a| json_string(a)).collect();
    let _ = writeln!(out, "  \"command\": [{}],", command.join(", "));
    let _ = writeln!(out, "  \"load_average_at_start\": {},", json_string(load));
    let _ = writeln!(out, "  \"quick\": {},", options.quick);
    let _ = writeln!(out, "  \"reps\": {},", options.reps);
    let threads: Vec<String> = options.threads.iter().map(ToString::to_string).collect();
    let _ = writeln!(out, "  \"threads\": [{}],", threads.join(", "));
    out.push_str("  \"results\": [\n");
    for (i, r) in rows.iter().enumerate() {
        let seq = rows
            .iter()
            .find(|s| s.program == r.program && s.config == "seq")
            .map_or(r.best, |s| s.best);
        let _ = write!(
            out,
            "    {{\"program\": {}, \"size\": {}, \"config\": {}, \"threads\": {}, ",
            json_string(r.program),
            json_string(&r.size),
            json_string(&r.config),
            r.threads,
        );
        match r.params {
            Some(p) => {
                let _ = write!(
                    out,
                    "\"params\": {{\"queue_policy\": {}, \"queue_capacity\": {}, \
                     \"stack_size\": {}, \"committed_stack_size\": {}, \"dependency_buckets\": {}}}, ",
                    json_string(&p.queue_policy.to_string()),
                    p.queue_capacity,
                    p.stack_size,
                    p.committed_stack_size,
                    p.dependency_buckets
                );
            }
            None => out.push_str("\"params\": null, "),
        }
        let _ = write!(
            out,
            "\"best_ns\": {}, \"t_over_tseq\": {}, \"speedup\": {}, \"fastest\": {}, \
             \"counters\": ",
            json_number(Some(r.best.as_nanos() as f64)),
            json_number(Some(ratio(r.best, seq))),
            json_number(Some(ratio(seq, r.best))),
            r.fastest,
        );
        match &r.counters {
            Some(c) => {
                let _ = write!(out, "{{\"runs\": {}", options.reps);
                for (name, value) in c.iter() {
                    let _ = write!(out, ", \"{name}\": {value}");
                }
                out.push('}');
            }
            None => out.push_str("null"),
        }
        out.push('}');
        out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ],\n  \"own_over_default\": [\n");
    for (i, r) in ratios.iter().enumerate() {
        let _ = write!(
            out,
            "    {{\"program\": {}, \"threads\": {}, \"own_ns\": {}, \"default_ns\": {}, \
             \"ratio\": {}}}",
            json_string(r.program),
            r.threads,
            json_number(Some(r.own.as_nanos() as f64)),
            json_number(Some(r.default.as_nanos() as f64)),
            json_number(Some(ratio(r.own, r.default))),
        );
        out.push_str(if i + 1 < ratios.len() { ",\n" } else { "\n" });
    }
    let errors: Vec<String> = errors.iter().map(|e| json_string(e)).collect();
    let _ = writeln!(out, "  ],\n  \"errors\": [{}]", errors.join(", "));
    out.push_str("}\n");
    out
}

fn main() {
    let available = cli::available_threads();
    let env_threads = std::env::var(THREADS_ENV).ok();
    let command: Vec<String> = std::env::args().collect();
    let parsed = parse_options(command[1..].to_vec(), env_threads.as_deref(), available);
    let Some(options) = cli::options_or_exit(parsed, &usage()) else {
        return;
    };
    let (threads, reps) = (options.threads.clone(), options.reps);
    let machine = Machine::detect();
    // The machine may be shared: say how busy it was.
    let load = load_average();
    println!(
        "# Prescient annotated programs under runtime configurations ({} mode, best of {reps} \
         runs; thread counts {threads:?}; load average {load} at start)\n# {}\n",
        if options.quick { "quick" } else { "full" },
        machine.describe(),
    );
    let own: Vec<String> = options
        .programs
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
    let mut header = format!(
        "{:<9} {:<13} {:<8} {:<3} {:>4} {:>4} {:>11} {:>7} {:>7}",
        "program", "input", "config", "pol", "cap", "thr", "time", "T/Tseq", "speedup"
    );
    for (_, heading) in COUNTER_COLUMNS {
        let _ = write!(header, " {:>10}", format!("{heading}/run"));
    }
    println!("{header}");

    let (mut rows, mut all_ratios, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for &name in &options.programs {
        let measured = workload(name, options.quick).and_then(|w| measure(&w, &threads, reps));
        match measured {
            Ok(program_rows) => {
                print!("{}", render(&program_rows, reps));
                let program_ratios = ratios(&program_rows, &threads);
                let summary: Vec<String> = program_ratios
                    .iter()
                    .map(|r| {
                        format!(
                            "{:.2} at {} thread{}",
                            ratio(r.own, r.default),
                            r.threads,
                            if r.threads == 1 { "" } else { "s" }
                        )
                    })
                    .collect();
                println!("{name} own/default: {}\n", summary.join(", "));
                rows.extend(program_rows);
                all_ratios.extend(program_ratios);
            }
            Err(e) => {
                eprintln!("error: {e}");
                errors.push(e);
            }
        }
    }

    let json = json(
        &machine,
        &command,
        &options,
        &load,
        &rows,
        &all_ratios,
        &errors,
    );
    if let Some(dir) = options.json.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&options.json, json) {
        Ok(()) => println!("JSON written to {}", options.json.display()),
        Err(e) => {
            eprintln!("error: writing {}: {e}", options.json.display());
            std::process::exit(1);
        }
    }
    if !errors.is_empty() {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str, env: Option<&str>) -> Result<Option<Options>, String> {
        parse_options(s.split_whitespace().map(String::from), env, 4)
    }

    #[test]
    fn defaults_and_precedence() {
        let o = parse("", None).unwrap().unwrap();
        assert!(!o.quick);
        assert_eq!((o.threads, o.reps), (vec![1, 2], 5));
        assert_eq!(o.programs, PROGRAMS);
        assert_eq!(o.json, PathBuf::from("target/prescient-annotated.json"));
        let o = parse("--quick", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![1, 2, 4], 3));
        let o = parse(
            "--threads=3 --reps 7 --only alignment,fib --json /tmp/a.json",
            Some("all"),
        )
        .unwrap()
        .unwrap();
        assert_eq!((o.threads, o.reps), (vec![3], 7));
        assert_eq!(o.programs, ["fib", "alignment"], "table order");
        assert_eq!(o.json, PathBuf::from("/tmp/a.json"));
        assert!(parse("--help", None).unwrap().is_none());
        for bad in [
            "--reps 0",
            "--reps x",
            "--threads 0",
            "--only tree",
            "--only ,",
            "--json",
            "--bogus",
        ] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn configurations() {
        let c = configs(fib::PARAMS);
        let names: Vec<&str> = c.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["own", "default", "DEF/4", "DEF/16", "DEF/128", "PF/4", "PF/16", "PF/128"]
        );
        for (name, params) in &c {
            assert_eq!(params.validate(), Ok(()), "{name}");
        }
        assert_eq!(c[7].1.queue_policy, QueuePolicy::InsertFrontStealBack);
        assert_eq!(c[7].1.queue_capacity, 128);
    }

    #[test]
    fn quick_workloads_check_their_results() {
        let rt = runtime(2, Params::DEFAULT);
        for name in PROGRAMS {
            let w = workload(name, true).unwrap();
            assert!((w.seq)().1.is_ok(), "{name} seq");
            assert!((w.par)(&rt).1.is_ok(), "{name} par");
        }
        assert!(workload("tree", true).is_err());
        assert_eq!(check("x", &1, &1), Ok(()));
        assert!(check("x", &1, &2).unwrap_err().contains("wrong result"));
    }

    #[test]
    fn usage_names_every_flag() {
        let text = usage();
        for flag in [
            "--quick",
            "--threads LIST",
            "--reps N",
            "--only PROGRAMS",
            "--json PATH",
            "--help",
            THREADS_ENV,
        ] {
            assert!(text.contains(flag), "{flag}");
        }
    }
}
