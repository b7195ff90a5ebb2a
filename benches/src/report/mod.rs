//! `prescient-bench report`: every table, in priority order, within a time
//! budget, written to one self-contained folder per host and date.
//!
//! The report runs each table of `prescient-bench` as a child process of the
//! same executable ([`crate::harness::child`]) at the largest size that fits the table's
//! share of what is left of the budget ([`plan`]), shows a progress bar on
//! stderr (the table's latest `progress:` line beside it), and after each
//! table rewrites the folder, so that a run cut short still leaves
//! everything measured so far:
//!
//! * `report.md`: the machine, the build ([`build_info`]), the headline
//!   ([`headline`]: speedups of Prescient, rayon and chili over sequential
//!   for the fork-join and dataflow programs), the plots and every table's
//!   text;
//! * `<table>.json`: each table's JSON, and `report.json`: the report's own
//!   record (machine, build, what ran at which size and how it ended, the
//!   headline);
//! * the SVG plots ([`plots`]).
//!
//! The folder is `benches/results/<host>/<date>/` of the checkout the binary
//! was built in when that folder exists, else `results/<host>/<date>/`
//! under the current directory (a binary copied to another host), or
//! `--out`. The host's name is its host name and hardware threads (`--host`
//! overrides it). A report never overwrites another: where the default
//! folder exists, the report takes `<date>-2`, `<date>-3`, ...
//! ([`fresh_folder`]); an `--out` folder that already holds a report is
//! refused. The report says where it writes, when it starts and ends.
//!
//! When the load average at the start exceeds half the hardware threads,
//! `report.md`, its headline and `report.json` say so ([`loaded`]), and
//! `publish` refuses the report unless told otherwise. A report whose
//! tables fail (a table that exits non-zero) still writes its folder, and
//! then ends with an error that names them.
//!
//! `--competing N` runs the tables that take it (fork-join and dataflow,
//! [`plan::TableSpec::competing`]) beside N busy processes
//! ([`crate::competing`]); the default folder is then
//! `<host>/<date>-competingN/` ([`folder_name`]), so that a loaded run never
//! overwrites the quiet one of the same day.
//!
//! The profiler's table needs a build with the `trace` feature, which the
//! other tables must not pay for: the report runs it through a sibling
//! executable `prescient-bench-trace` when one lies beside this one (the
//! bundle script puts it there), and says so when there is none.

pub mod build_info;
pub mod headline;
pub mod markdown;
pub mod plan;
pub mod plots;
pub mod publish;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::cli::{self, Size, ThreadList};
use crate::harness::child::{self, Status, Stderr};
use crate::harness::{load_average, Machine};
use crate::samples::Sample;
use build_info::BuildInfo;
use headline::{HeadlineRow, PeerRatio};
pub use markdown::loaded;
use markdown::TableRun;

/// The name of the sibling executable built with the `trace` feature.
pub const TRACE_EXECUTABLE: &str = "prescient-bench-trace";

/// Seconds kept back from the budget for writing the folder and plots.
const RESERVE_SECONDS: f64 = 5.0;

/// Runs every table of `prescient-bench` within a time budget and writes one
/// folder per host and date: `report.md` (machine, build, headline speedups
/// against rayon, chili and sequential, plots, every table), SVG plots and
/// the JSON of every table.
///
/// Each table runs as a child process at the largest size that fits its
/// share of the budget (`--quick` caps the sizes at quick); a table that runs
/// past its share is stopped and the report goes on. The folder is
/// rewritten after every table.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// Cap every table at its quick size (the report then takes about ten
    /// minutes on a small machine).
    #[arg(long, conflicts_with = "test_size")]
    pub quick: bool,
    /// Run every table at its test size (seconds in all; for tests).
    #[arg(long)]
    pub test_size: bool,
    /// Thread counts: comma-separated (1,2,4) or `all` (1, 2, 4, ... and the
    /// available parallelism). Default: $PRESCIENT_BENCH_THREADS, else all.
    #[arg(long, value_name = "LIST")]
    pub threads: Option<ThreadList>,
    /// The time budget for all tables: `8m`, `90s`, `1h30m` or seconds.
    /// Default: 8m, or with `--quick` / `--test-size` what the tables are
    /// estimated to need at that size (so that each runs at it), if more.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub budget: Option<Duration>,
    /// The folder to write, which must not hold a report yet (default:
    /// `benches/results/<host>/<date>` of the checkout this was built in,
    /// else `results/<host>/<date>`; `<date>-2`, ... where that exists).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The host's name in the default folder (default: the host name and its
    /// hardware threads, e.g. `vm-2t`).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Only these tables (comma-separated subcommand names), in the report's
    /// order.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tables: Vec<String>,
    /// Run fork-join and dataflow beside N competing busy processes (their
    /// `--competing N`; the other tables run without). With N > 0 the
    /// default folder is `<host>/<date>-competingN`.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::competing::parse_competing)]
    pub competing: usize,
}

/// Parses a duration: `8m`, `90s`, `1h30m`, `2m30s`, or a number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return (seconds.is_finite() && seconds > 0.0)
            .then(|| Duration::from_secs_f64(seconds))
            .ok_or_else(|| format!("`{text}` is not a positive duration"));
    }
    let mut total = 0.0;
    let mut number = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => {
                return Err(format!(
                    "`{text}`: unknown unit `{c}` (use h, m or s: 8m, 90s, 1h30m)"
                ))
            }
        };
        let value: f64 = number
            .parse()
            .map_err(|_| format!("`{text}`: a unit without a number before it"))?;
        total += value * unit;
        number.clear();
    }
    if !number.is_empty() {
        return Err(format!("`{text}`: `{number}` has no unit (use h, m or s)"));
    }
    if total <= 0.0 {
        return Err(format!("`{text}` is not a positive duration"));
    }
    Ok(Duration::from_secs_f64(total))
}

/// The report's own record, `report.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReportJson {
    /// The host's name in the folder's path.
    pub host: String,
    /// The date (UTC).
    pub date: String,
    /// The machine.
    pub machine: Machine,
    /// The build.
    pub build: BuildInfo,
    /// The thread counts.
    pub threads: Vec<usize>,
    /// The competing busy processes beside the tables that take them
    /// (`--competing`; 0 in a report written before the flag existed).
    #[serde(default)]
    pub competing: usize,
    /// The one-minute load average at the start (absent in a report written
    /// before it was recorded here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<String>,
    /// The budget, in seconds.
    pub budget_seconds: f64,
    /// The report's wall time, in seconds.
    pub elapsed_seconds: f64,
    /// Every table, in the order it ran.
    pub tables: Vec<TableRun>,
    /// The headline rows.
    pub headline: Vec<HeadlineRow>,
    /// Prescient against the C/C++ peers (absent in a report written before
    /// they ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peer_ratios: Vec<PeerRatio>,
}

/// The default folder: `benches/results/<host>/<date>` of the checkout this
/// was built in if that `results` folder still exists, else
/// `results/<host>/<date>` under the current directory.
pub fn default_folder(host: &str, date: &str) -> PathBuf {
    let in_checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let base = if in_checkout.is_dir() {
        in_checkout
    } else {
        PathBuf::from("results")
    };
    base.join(host).join(date)
}

/// The last part of the default folder: the date, with `-competingN`
/// after it for a run beside `competing` > 0 busy processes.
pub fn folder_name(date: &str, competing: usize) -> String {
    if competing == 0 {
        date.to_string()
    } else {
        format!("{date}-competing{competing}")
    }
}

/// `base`, or where it exists, the first of `base-2`, `base-3`, ... that
/// does not: a report never overwrites another.
pub fn fresh_folder(base: PathBuf) -> PathBuf {
    let name = base
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::iter::once(base.clone())
        .chain((2..).map(|k| base.with_file_name(format!("{name}-{k}"))))
        .find(|dir| !dir.exists())
        .expect("some suffix is free")
}

/// The executable that runs `table`, or why there is none.
fn executable_for(table: &plan::TableSpec, exe: &Path) -> Result<PathBuf, String> {
    if table.needs_mpi {
        if let Some(why) = crate::tables::mpi_heat::unavailable(exe) {
            return Err(why);
        }
    }
    if !table.needs_trace || cfg!(feature = "trace") {
        return Ok(exe.to_path_buf());
    }
    let sibling = exe.with_file_name(TRACE_EXECUTABLE);
    if sibling.is_file() {
        Ok(sibling)
    } else {
        Err(format!(
            "needs a build with the `trace` feature: no `{TRACE_EXECUTABLE}` beside this binary \
             (`benches/bundle` builds one; or run `cargo bench-run prescient-bench --features trace -- {}`)",
            table.name
        ))
    }
}

/// The samples of a table's JSON file (its `samples` list), empty if it has
/// none or cannot be read.
pub fn read_samples(path: &Path) -> Vec<Sample> {
    #[derive(Deserialize)]
    struct WithSamples {
        #[serde(default)]
        samples: Vec<Sample>,
    }
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<WithSamples>(&text).ok())
        .map_or_else(Vec::new, |json| json.samples)
}

/// The folder's state so far, rewritten after each table.
struct Folder<'a> {
    dir: &'a Path,
    host: String,
    date: String,
    machine: Machine,
    build: BuildInfo,
    load_average: String,
    command: String,
    threads: Vec<usize>,
    competing: usize,
    budget: Duration,
    start: Instant,
}

impl Folder<'_> {
    fn write(&self, runs: &[TableRun], with_plots: bool) -> Result<Vec<HeadlineRow>, String> {
        // Each table's JSON, read once per rewrite.
        let samples: Vec<(&str, Vec<Sample>)> = runs
            .iter()
            .map(|run| {
                let read = |file: &String| read_samples(&self.dir.join(file));
                (
                    run.name.as_str(),
                    run.json_file.as_ref().map_or_else(Vec::new, read),
                )
            })
            .collect();
        let samples_of = |name: &str| -> &[Sample] {
            samples
                .iter()
                .find(|(table, _)| *table == name)
                .map_or(&[], |(_, of_table)| of_table.as_slice())
        };
        let headline_rows: Vec<HeadlineRow> = headline::HEADLINE_TABLES
            .iter()
            .flat_map(|table| headline::rows(table, samples_of(table)))
            .collect();
        let peer_ratios: Vec<PeerRatio> = headline::PEER_TABLES
            .iter()
            .flat_map(|table| headline::peer_ratios(table, samples_of(table)))
            .collect();
        let mut plots = Vec::new();
        if with_plots {
            for (table, of_table) in &samples {
                if let Some(svg) = plots::speedup(table, of_table)? {
                    let file = format!("{table}-speedup.svg");
                    plots::write(self.dir, &file, &svg)?;
                    plots.push((file, format!("{table}: speedup over sequential")));
                }
                if let Some(svg) = plots::task_cost(table, of_table)? {
                    let file = format!("{table}-task-cost.svg");
                    plots::write(self.dir, &file, &svg)?;
                    plots.push((file, format!("{table}: the cost of one task")));
                }
            }
            let tuned_tables: Vec<(&str, &[Sample])> = ["cf17", "annotated"]
                .into_iter()
                .map(|table| (table, samples_of(table)))
                .collect();
            if let Some(svg) = plots::tuned_vs_default(&tuned_tables)? {
                plots::write(self.dir, "tuned-vs-default.svg", &svg)?;
                plots.push((
                    "tuned-vs-default.svg".to_string(),
                    "tuned against default parameters".to_string(),
                ));
            }
        }
        let elapsed_seconds = self.start.elapsed().as_secs_f64();
        let header = markdown::Header {
            host: &self.host,
            date: &self.date,
            machine: &self.machine,
            build: &self.build,
            load_average: &self.load_average,
            command: &self.command,
            competing: self.competing,
            budget_seconds: self.budget.as_secs_f64(),
            elapsed_seconds,
            threads: &self.threads,
        };
        let text = markdown::render(&header, runs, (&headline_rows, &peer_ratios), &plots);
        crate::harness::write::write_file(&self.dir.join("report.md"), &text)?;
        let json = ReportJson {
            host: self.host.clone(),
            date: self.date.clone(),
            machine: self.machine.clone(),
            build: self.build.clone(),
            threads: self.threads.clone(),
            competing: self.competing,
            load_average: Some(self.load_average.clone()),
            budget_seconds: self.budget.as_secs_f64(),
            elapsed_seconds,
            tables: runs.to_vec(),
            headline: headline_rows.clone(),
            peer_ratios,
        };
        crate::harness::write::write_json(&self.dir.join("report.json"), &json)?;
        Ok(headline_rows)
    }
}

/// The progress bar: one step per table, the table's latest progress line
/// as its message. Drawn only when stderr is a terminal; otherwise the
/// report prints a plain line per table.
fn progress_bar(tables: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(tables as u64), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:24} {pos}/{len} tables  {wide_msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Prints `line` above the bar (or plainly when the bar is hidden).
fn say(bar: &ProgressBar, line: &str) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// Runs the report with `options`; returns the folder it wrote.
///
/// # Errors
/// Invalid options, a folder that cannot be written or already holds a
/// report, or tables that failed (the folder is written first, with
/// every table's outcome; the message names the failed ones).
pub fn run(options: &Options) -> Result<PathBuf, String> {
    let start = Instant::now();
    let available = cli::available_threads();
    // The default is every count up to this host's, not a single table's
    // 1,2: the report is the whole picture.
    let env = std::env::var(cli::THREADS_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty());
    let threads = match (&options.threads, env) {
        (None, None) => cli::parse_threads("all", available).map_err(|e| e.to_string())?,
        (flag, env) => cli::resolve_threads(
            flag.as_ref().map(|list| list.0.as_slice()),
            env.as_deref(),
            available,
        )?,
    };
    for name in &options.tables {
        if plan::table(name).is_none() {
            let known: Vec<&str> = plan::TABLES.iter().map(|t| t.name).collect();
            return Err(format!(
                "unknown table `{name}` (the tables: {})",
                known.join(", ")
            ));
        }
    }
    let selected: Vec<&plan::TableSpec> = plan::TABLES
        .iter()
        .filter(|spec| options.tables.is_empty() || options.tables.iter().any(|t| t == spec.name))
        .collect();
    let largest = if options.test_size {
        Size::Test
    } else if options.quick {
        Size::Quick
    } else {
        Size::Full
    };
    let budget = options.budget.unwrap_or_else(|| {
        plan::default_budget(&selected, largest, threads.len(), RESERVE_SECONDS)
    });

    let machine = Machine::detect();
    let host = options
        .host
        .as_deref()
        .map(build_info::slug)
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| build_info::default_host_name(machine.threads));
    let date = build_info::today();
    let dir = match &options.out {
        Some(dir) if dir.join("report.json").exists() => {
            return Err(format!(
                "{} already holds a report: give another --out, or move that one away",
                dir.display()
            ))
        }
        Some(dir) => dir.clone(),
        None => fresh_folder(default_folder(
            &host,
            &folder_name(&date, options.competing),
        )),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
    // As typed, whether through `prescient-bench report` or `cargo bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let args = args.strip_prefix(&["report".to_string()]).unwrap_or(&args);
    let command = std::iter::once("prescient-bench report".to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let folder = Folder {
        dir: &dir,
        host,
        date,
        machine,
        build: BuildInfo::current(),
        load_average: load_average(),
        command,
        threads: threads.clone(),
        competing: options.competing,
        budget,
        start,
    };

    let bar = progress_bar(selected.len());
    let threads_arg = crate::harness::write::join_list(&threads);
    if let Some(warning) = cli::oversubscription(&threads, available) {
        say(&bar, &warning);
    }
    if let Some(loaded) = loaded(&folder.load_average, folder.machine.threads) {
        say(&bar, &format!("report: {loaded}"));
    }
    say(
        &bar,
        &format!(
            "report: {} table(s) at {threads_arg} thread(s) within {:.0} s, into {}",
            selected.len(),
            budget.as_secs_f64(),
            dir.display()
        ),
    );
    let mut runs: Vec<TableRun> = Vec::new();
    for (i, spec) in selected.iter().enumerate() {
        let remaining = budget.as_secs_f64() - RESERVE_SECONDS - start.elapsed().as_secs_f64();
        let remaining_weight: f64 = selected[i..].iter().map(|t| t.weight).sum();
        let mut run = TableRun {
            name: spec.name.to_string(),
            size: None,
            status: Status::Skipped(String::new()),
            seconds: 0.0,
            estimate_seconds: 0.0,
            args: Vec::new(),
            json_file: None,
            text: String::new(),
            errors: String::new(),
        };
        let executable = executable_for(spec, &exe);
        let reserved = plan::smallest_need(&selected[i + 1..], threads.len());
        let choice = plan::choose(
            spec,
            remaining.max(0.0),
            remaining_weight,
            reserved,
            threads.len(),
            largest,
        );
        match (executable, choice) {
            (Err(why), _) => run.status = Status::Skipped(why),
            (Ok(_), None) => {
                run.status = Status::Skipped(format!(
                    "the {:.0} s left of the budget, less what the later tables need, are less \
                     than its smallest size needs",
                    remaining.max(0.0)
                ))
            }
            (Ok(executable), Some(choice)) => {
                let json_file = format!("{}.json", spec.name);
                let mut args = vec![spec.name.to_string()];
                args.extend(choice.size.flag().map(String::from));
                args.extend(["--threads".to_string(), threads_arg.clone()]);
                if spec.competing && options.competing > 0 {
                    args.extend(["--competing".to_string(), options.competing.to_string()]);
                }
                args.extend([
                    "--json".to_string(),
                    dir.join(&json_file).display().to_string(),
                ]);
                bar.set_message(format!("{} ({})", spec.name, choice.size.name()));
                let mut on_progress = |what: &str| {
                    bar.set_message(format!("{} ({}): {what}", spec.name, choice.size.name()));
                };
                let mut command = std::process::Command::new(&executable);
                command.args(&args);
                let finished = child::run(
                    &mut command,
                    Duration::from_secs_f64(choice.cap_seconds),
                    Stderr::Progress(&mut on_progress),
                );
                run.size = Some(choice.size.name().to_string());
                run.estimate_seconds = choice.estimate_seconds;
                run.seconds = finished.elapsed.as_secs_f64();
                run.status = finished.status;
                // Shown in report.md with the folder-relative JSON path.
                let last = args.len() - 1;
                args[last] = json_file.clone();
                run.args = args;
                run.json_file = dir.join(&json_file).is_file().then_some(json_file);
                run.text = finished.stdout;
                run.errors = finished.stderr;
            }
        }
        bar.inc(1);
        say(
            &bar,
            &format!(
                "report: {:<15} {:<6} {:>5.0} s  {}",
                run.name,
                run.size.as_deref().unwrap_or("-"),
                run.seconds,
                match &run.status {
                    // Loud on the console, where a failure scrolls past.
                    Status::Failed(why) => format!("FAILED ({why})"),
                    other => other.describe(),
                }
            ),
        );
        runs.push(run);
        folder.write(&runs, false)?;
    }
    bar.finish_and_clear();
    let headline_rows = folder.write(&runs, true)?;
    if let Some(loaded) = loaded(&folder.load_average, folder.machine.threads) {
        println!("{loaded}\n");
    }
    println!("{}", headline::render(&headline_rows));
    println!(
        "The report, its plots and every table's JSON: {}",
        dir.join("report.md").display()
    );
    let failed: Vec<&str> = runs
        .iter()
        .filter(|run| matches!(run.status, Status::Failed(_)))
        .map(|run| run.name.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(format!(
            "{} table(s) failed: {} (their sections in {} say why)",
            failed.len(),
            failed.join(", "),
            dir.join("report.md").display()
        ));
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("8m"), Ok(Duration::from_secs(480)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_secs_f64(2.5)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("5m3").is_err());
    }

    #[test]
    fn folders_are_fresh_and_loads_are_said() {
        let base = std::env::temp_dir().join(format!("prescient-fresh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        assert_eq!(fresh_folder(base.clone()), base);
        std::fs::create_dir_all(&base).unwrap();
        let second = fresh_folder(base.clone());
        assert_eq!(
            second.file_name(),
            base.with_file_name(format!("{}-2", base.file_name().unwrap().to_string_lossy()))
                .file_name()
        );
        std::fs::create_dir_all(&second).unwrap();
        assert!(fresh_folder(base.clone()).to_string_lossy().ends_with("-3"));
        for dir in [&base, &second] {
            std::fs::remove_dir_all(dir).unwrap();
        }
        assert_eq!(loaded("0.9", 2), None);
        assert_eq!(loaded("?", 2), None);
        let note = loaded("6.20", 2).unwrap();
        assert!(
            note.contains("loaded machine") && note.contains("6.20") && note.contains("2 hardware")
        );
    }

    #[test]
    fn a_loaded_run_has_its_own_folder() {
        assert_eq!(folder_name("2026-11-26", 0), "2026-11-26");
        assert_eq!(folder_name("2026-11-26", 1), "2026-11-26-competing1");
        let options = crate::cli::parse_words::<Options>("report", ["--competing", "2"]).unwrap();
        assert_eq!(options.competing, 2);
        let quiet = crate::cli::parse_words::<Options>("report", []).unwrap();
        assert_eq!(quiet.competing, 0);
        assert!(crate::cli::parse_words::<Options>("report", ["--competing", "x"]).is_err());
    }

    #[test]
    fn samples_are_read_from_any_table_json() {
        let dir =
            std::env::temp_dir().join(format!("prescient-report-samples-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.json");
        std::fs::write(
            &path,
            r#"{"table": "x", "rows": [1, 2], "samples": [{"program": "p", "runner": "prescient", "threads": 2, "seconds": 0.5}]}"#,
        )
        .unwrap();
        let samples = read_samples(&path);
        assert_eq!(samples, vec![Sample::new("p", "prescient", 2, 0.5)]);
        assert!(read_samples(&dir.join("missing.json")).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
