//! The `stack-memory` table: what task stacks cost in memory — the resident
//! set of N suspended tasks, per task, against the stack each used, under
//! the default parameters, the analysed `PARAMS` and as OS threads; and what
//! the stack pool keeps after a deep phase. The programs and the
//! measurement are in [`crate::stack_memory`]; this module has the options,
//! the Markdown table and the JSON ([`StackMemoryJson`]).
//!
//! Each (phase, tasks, workers, configuration) runs in a child process of
//! its own, so that the resident set it reads is its own: the table runs
//! its own executable again ([`std::env::current_exe`]) with the words of
//! its command line that precede the first flag — the subcommand
//! (`stack-memory`) for `prescient-bench` — then the hidden flag `--child
//! CONFIG,PHASE,TASKS,WORKERS,DEEP` ([`child_prefix`], [`child_args`]).
//! A caller whose subcommand words are not simply the leading words of its
//! command line sets [`Options::child_prefix`] itself.
//!
//! A second table sets, per annotated program and worker count, what its
//! `PARAMS` commit in every task stack against the deepest task stack of a
//! run with no commitment ([`stack_memory::program_stack_use`]), each in a
//! child process too (`--child-program NAME,WORKERS`); the commitment is
//! meant to stay within twice what tasks use (`prescient::analysis`'s
//! commitment rule).
//!
//! The table measures memory, not time: its JSON's `samples` list is empty,
//! and the figures are in its own `rows` and `programs`.

use serde::{Deserialize, Serialize};
use std::num::NonZeroUsize;
use std::process::Command;

use crate::cli::{self, CommonArgs, Size};
use crate::harness::Machine;
use crate::samples::TableHead;
use crate::stack_memory::{self, Measurement, CONFIGS, PHASES};

/// The subcommand's name (and the `table` of its JSON).
pub const TABLE: &str = "stack-memory";

/// What task stacks cost in memory: suspended tasks, the pool after a deep phase, OS threads.
///
/// Measures the resident memory of suspended tasks (each recursed, then
/// waiting on an Event) per task against the stack each used, under
/// Params::DEFAULT, under an annotated module's PARAMS and as OS threads;
/// then what the stack pool keeps once tasks that went --deep bytes down
/// finished.
///
/// Each (phase, tasks, workers, configuration) runs in a child process of
/// its own (this executable again, with a hidden --child flag). --quick:
/// 1000 tasks, --deep 65536.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The shared flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Task counts, comma-separated (default 10000,30000; --quick 1000).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_task_count)]
    pub tasks: Vec<usize>,
    /// How deep the deep phase goes, in bytes (default 262144; --quick
    /// 65536).
    #[arg(long, value_name = "BYTES")]
    pub deep: Option<NonZeroUsize>,
    /// Internal: measure one configuration in this process
    /// (CONFIG,PHASE,TASKS,WORKERS,DEEP) and print its RESULT line.
    #[arg(long, hide = true, value_name = "SPEC")]
    pub child: Option<String>,
    /// Internal: measure one annotated program's deepest task stack in this
    /// process (NAME,WORKERS) and print its STACKUSE line.
    #[arg(long, hide = true, value_name = "SPEC")]
    pub child_program: Option<String>,
    /// The arguments a child process gets before `--child ...`; `None`:
    /// the words of this process's command line before its first flag
    /// ([`child_prefix`]).
    #[arg(skip)]
    pub child_prefix: Option<Vec<String>>,
}

/// One entry of `--tasks`.
fn parse_task_count(entry: &str) -> Result<usize, String> {
    cli::parse_count(entry).map_err(|e| e.to_string())
}

impl Options {
    /// The task counts: `--tasks`, else 10000,30000 (full), 1000 (quick)
    /// or 100 (test).
    pub fn tasks(&self) -> Vec<usize> {
        if !self.tasks.is_empty() {
            return self.tasks.clone();
        }
        match self.common.size() {
            Size::Full => vec![10_000, 30_000],
            Size::Quick => vec![1_000],
            Size::Test => vec![100],
        }
    }

    /// The depth of the deep phase in bytes: `--deep`, else 256 KiB (full),
    /// 64 KiB (quick) or 16 KiB (test).
    pub fn deep(&self) -> usize {
        self.deep.map_or(
            match self.common.size() {
                Size::Full => 256 << 10,
                Size::Quick => 64 << 10,
                Size::Test => 16 << 10,
            },
            NonZeroUsize::get,
        )
    }
}

/// The words of a command line (without the program name) before its first
/// flag: the subcommand path a child process needs to reach this table
/// again (`["stack-memory"]` for `prescient-bench stack-memory --quick`,
/// none for `stack_memory --quick`).
pub fn child_prefix(args: impl IntoIterator<Item = String>) -> Vec<String> {
    args.into_iter()
        .take_while(|a| !a.starts_with('-'))
        .collect()
}

/// A child's arguments: `prefix`, then `--child CONFIG,PHASE,TASKS,WORKERS,DEEP`.
pub fn child_args(
    prefix: &[String],
    config: &str,
    phase: &str,
    tasks: usize,
    workers: usize,
    deep: usize,
) -> Vec<String> {
    let mut args = prefix.to_vec();
    args.push("--child".to_string());
    args.push(format!("{config},{phase},{tasks},{workers},{deep}"));
    args
}

/// Measures the configuration `spec` (`CONFIG,PHASE,TASKS,WORKERS,DEEP`) in
/// this process and prints its RESULT line.
fn child(spec: &str) -> Result<(), String> {
    let parts: Vec<&str> = spec.split(',').collect();
    let [config, phase, tasks, workers, deep] = parts[..] else {
        return Err(format!(
            "--child {spec:?}: expected CONFIG,PHASE,TASKS,WORKERS,DEEP"
        ));
    };
    let number = |s: &str| -> Result<usize, String> {
        s.parse()
            .map_err(|_| format!("--child {spec:?}: `{s}` is not a number"))
    };
    let m = stack_memory::measure(
        config,
        phase,
        number(tasks)?,
        number(workers)?,
        number(deep)?,
    )?;
    println!("{}", m.line());
    Ok(())
}

/// The input size of the committed-vs-used rows: the CF'17 programs'
/// quick inputs, or their test inputs at `--test-size`.
fn program_size(size: Size) -> crate::cf17::Size {
    match size {
        Size::Full | Size::Quick => crate::cf17::Size::Quick,
        Size::Test => crate::cf17::Size::Test,
    }
}

/// A child's arguments for one program's committed-vs-used row: `prefix`,
/// then `--child-program NAME,WORKERS`, then the size flag.
pub fn child_program_args(
    prefix: &[String],
    name: &str,
    workers: usize,
    size: Size,
) -> Vec<String> {
    let mut args = prefix.to_vec();
    args.push("--child-program".to_string());
    args.push(format!("{name},{workers}"));
    match size {
        Size::Full => {}
        Size::Quick => args.push("--quick".to_string()),
        Size::Test => args.push("--test-size".to_string()),
    }
    args
}

/// Measures the program of `spec` (`NAME,WORKERS`) in this process and
/// prints its input and STACKUSE line.
fn child_program(spec: &str, size: Size) -> Result<(), String> {
    let Some((name, workers)) = spec.split_once(',') else {
        return Err(format!("--child-program {spec:?}: expected NAME,WORKERS"));
    };
    let workers: usize = workers
        .parse()
        .map_err(|_| format!("--child-program {spec:?}: `{workers}` is not a number"))?;
    let (input, stack_use) = stack_memory::program_stack_use(name, program_size(size), workers)?;
    println!("INPUT {input}");
    println!("{}", stack_use.line());
    Ok(())
}

/// The JSON of the table: the shared head (no samples) and the rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StackMemoryJson {
    /// The shared head (`table`, `machine`, `size`, `threads`; `samples`
    /// empty: the table measures memory, not time).
    #[serde(flatten)]
    pub head: TableHead,
    /// `vm.max_map_count`, if readable.
    pub max_map_count: Option<u64>,
    /// The task counts measured.
    pub tasks: Vec<usize>,
    /// The depth of the deep phase, in bytes.
    pub deep: usize,
    /// One row per phase, task count, worker count and configuration.
    pub rows: Vec<MemoryRow>,
    /// Committed vs used: one row per annotated program and worker count.
    #[serde(default)]
    pub programs: Vec<ProgramRow>,
}

/// One row of [`StackMemoryJson::programs`]: what a program's `PARAMS`
/// commit in every task stack, against the deepest task stack of a run with
/// no commitment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramRow {
    /// The program, as in `annotated::PROGRAMS` (or `waiting`).
    pub program: String,
    /// Its input, in words.
    pub input: String,
    /// Worker threads.
    pub workers: usize,
    /// Task stacks the run mapped.
    pub stacks: Option<usize>,
    /// What `PARAMS` commit per task stack, in bytes (0: nothing).
    pub committed_bytes: Option<u64>,
    /// The deepest task stack's resident bytes with no commitment.
    pub deepest_used_bytes: Option<u64>,
    /// `committed_bytes / deepest_used_bytes`.
    pub committed_over_used: Option<f64>,
    /// Why the child failed (its last line on stderr).
    pub error: Option<String>,
}

impl ProgramRow {
    /// The row of a child's output (`INPUT …` and `STACKUSE …` lines), or
    /// of its failure.
    pub fn from_child(
        program: &str,
        workers: usize,
        stdout: &str,
        error: Option<String>,
    ) -> ProgramRow {
        let input = stdout
            .lines()
            .find_map(|l| l.strip_prefix("INPUT "))
            .unwrap_or("")
            .to_string();
        let parsed = stdout
            .lines()
            .find_map(stack_memory::StackUse::parse)
            .filter(|_| error.is_none());
        ProgramRow {
            program: program.to_string(),
            input,
            workers,
            stacks: parsed.map(|u| u.stacks),
            committed_bytes: parsed.map(|u| u.committed as u64),
            deepest_used_bytes: parsed.map(|u| u.deepest),
            committed_over_used: parsed.map(|u| u.ratio()),
            error: match parsed {
                Some(_) => None,
                None => Some(error.unwrap_or_else(|| "no STACKUSE line".to_string())),
            },
        }
    }

    /// The row's Markdown line.
    pub fn render(&self) -> String {
        let head = format!("| {} | {} | {} |", self.program, self.input, self.workers);
        match (self.stacks, self.committed_bytes, self.deepest_used_bytes) {
            (Some(stacks), Some(committed), Some(used)) => format!(
                "{head} {stacks} | {} | {} | {:.2} |",
                kib(committed),
                kib(used),
                self.committed_over_used.unwrap_or(0.0)
            ),
            _ => format!(
                "{head} failed: {} | | | |",
                self.error.as_deref().unwrap_or("no message")
            ),
        }
    }
}

/// One row of [`StackMemoryJson::rows`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRow {
    /// `suspended` or `after-deep`.
    pub phase: String,
    /// Tasks.
    pub tasks: usize,
    /// Worker threads (`None` for OS threads).
    pub workers: Option<usize>,
    /// The configuration: `default`, `analysed` or `threads`.
    pub runner: String,
    /// What the child measured, `None` if it failed.
    pub measurement: Option<MeasurementJson>,
    /// Why the child failed (its last line on stderr).
    pub error: Option<String>,
}

/// What one child measured, in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasurementJson {
    /// Resident bytes before the tasks.
    pub baseline_bytes: u64,
    /// Resident bytes while they wait or once done.
    pub measured_bytes: u64,
    /// Mean stack bytes a task used.
    pub used_per_task_bytes: u64,
    /// The runtime's stack commitment (0: none).
    pub committed_bytes: u64,
    /// Resident bytes per task above the baseline.
    pub rss_per_task_bytes: u64,
    /// `rss_per_task_bytes / used_per_task_bytes`.
    pub rss_over_used: f64,
}

impl MeasurementJson {
    /// The figures of `m` for `tasks` tasks.
    pub fn new(m: &Measurement, tasks: usize) -> MeasurementJson {
        let per_task = m.per_task(tasks);
        MeasurementJson {
            baseline_bytes: m.baseline,
            measured_bytes: m.measured,
            used_per_task_bytes: m.used_per_task,
            committed_bytes: m.committed as u64,
            rss_per_task_bytes: per_task,
            rss_over_used: per_task as f64 / m.used_per_task.max(1) as f64,
        }
    }
}

fn kib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

/// The Markdown line of a row.
fn render(row: &MemoryRow) -> String {
    let workers = row.workers.map_or("-".to_string(), |w| w.to_string());
    let head = format!(
        "| {} | {} | {workers} | {} |",
        row.phase, row.tasks, row.runner
    );
    match (&row.measurement, &row.error) {
        (Some(m), _) => format!(
            "{head} {} | {} | {} | {:.2} |",
            kib(m.committed_bytes),
            kib(m.used_per_task_bytes),
            kib(m.rss_per_task_bytes),
            m.rss_over_used
        ),
        (None, why) => format!(
            "{head} failed: {} | | | |",
            why.as_deref().unwrap_or("no message")
        ),
    }
}

/// Runs the table (or, with `--child`, one measurement): prints it on
/// stdout, writes the JSON to `--json`.
///
/// # Errors
/// Bad thread counts, an executable that cannot be found or started, a
/// JSON file that cannot be written; in a child, a failed measurement.
pub fn run(options: &Options) -> Result<(), String> {
    if let Some(spec) = &options.child {
        return child(spec);
    }
    if let Some(spec) = &options.child_program {
        return child_program(spec, options.common.size());
    }
    let threads = options.common.threads()?;
    let (tasks_list, deep) = (options.tasks(), options.deep());
    let exe = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
    let prefix = options
        .child_prefix
        .clone()
        .unwrap_or_else(|| child_prefix(std::env::args().skip(1)));
    let machine = Machine::detect();
    let max_map_count = stack_memory::max_map_count();
    println!(
        "### Task stack memory ({} size; thread counts {threads:?}; deep phase {deep} bytes)\n\n{}\n",
        options.common.size().name(),
        machine.describe()
    );
    match max_map_count {
        Some(maps) => println!(
            "vm.max_map_count = {maps}: each task stack takes 2 mappings, so at most about {} \
             stacks live at once in this process; raise it with `sysctl -w vm.max_map_count=N` \
             (or have fewer tasks wait at once)",
            maps / 2
        ),
        None => println!("vm.max_map_count: unreadable"),
    }
    println!();
    println!(
        "| phase | tasks | workers | runner | committed KiB | stack used KiB / task | \
         RSS KiB / task | RSS / used |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|---:|");
    let mut head = TableHead::new(TABLE, options.common.size(), &threads);
    head.machine = machine;
    let mut json = StackMemoryJson {
        head,
        max_map_count,
        tasks: tasks_list.clone(),
        deep,
        rows: Vec::new(),
        programs: Vec::new(),
    };
    for phase in PHASES {
        for &tasks in &tasks_list {
            for &workers in &threads {
                for config in CONFIGS {
                    if config == "threads" && workers != threads[0] {
                        // OS threads do not depend on the worker count.
                        continue;
                    }
                    cli::progress(format_args!(
                        "stack-memory: {phase}, {tasks} tasks, {workers} workers, {config}"
                    ));
                    let output = Command::new(&exe)
                        .args(child_args(&prefix, config, phase, tasks, workers, deep))
                        .output()
                        .map_err(|e| format!("starting {}: {e}", exe.display()))?;
                    let stdout = String::from_utf8_lossy(&output.stdout);
                    let parsed = stdout.lines().find_map(Measurement::parse);
                    let (measurement, error) = match parsed {
                        Some(m) if output.status.success() => {
                            (Some(MeasurementJson::new(&m, tasks)), None)
                        }
                        _ => {
                            // The child's own last word (earlier lines may be
                            // panics of threads it could not finish starting).
                            let stderr = String::from_utf8_lossy(&output.stderr);
                            let why = stderr.lines().rfind(|l| !l.trim().is_empty());
                            (None, Some(why.unwrap_or("no message").trim().to_string()))
                        }
                    };
                    let row = MemoryRow {
                        phase: phase.to_string(),
                        tasks,
                        workers: (config != "threads").then_some(workers),
                        runner: config.to_string(),
                        measurement,
                        error,
                    };
                    println!("{}", render(&row));
                    json.rows.push(row);
                }
            }
        }
    }
    println!(
        "\n#### Committed vs used per annotated program\n\n\
         What each program's `PARAMS` commit (pre-fault) in every task stack, against the \
         deepest task stack of a run with the commitment set to 0 (its resident bytes: the \
         pages its tasks touched). The commitment aims at most twice the use.\n"
    );
    println!("| program | input | workers | task stacks | committed KiB | deepest used KiB | committed / used |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for name in stack_memory::stack_use_programs() {
        for &workers in &threads {
            cli::progress(format_args!("stack-memory: {name}, {workers} workers"));
            let output = Command::new(&exe)
                .args(child_program_args(
                    &prefix,
                    name,
                    workers,
                    options.common.size(),
                ))
                .output()
                .map_err(|e| format!("starting {}: {e}", exe.display()))?;
            let stdout = String::from_utf8_lossy(&output.stdout);
            let error = (!output.status.success()).then(|| {
                let stderr = String::from_utf8_lossy(&output.stderr);
                stderr
                    .lines()
                    .rfind(|l| !l.trim().is_empty())
                    .unwrap_or("no message")
                    .trim()
                    .to_string()
            });
            let row = ProgramRow::from_child(name, workers, &stdout, error);
            println!("{}", row.render());
            json.programs.push(row);
        }
    }
    options.common.write_json(&json)?;
    if let Some(path) = &options.common.json {
        eprintln!("JSON written to {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Options, clap::Error> {
        crate::cli::parse_words("stack-memory", s.split_whitespace())
    }

    #[test]
    fn options_parse_the_tables_flags() {
        let o = parse("").unwrap();
        assert_eq!((o.tasks(), o.deep()), (vec![10_000, 30_000], 256 << 10));
        let o = parse("--quick").unwrap();
        assert_eq!((o.tasks(), o.deep()), (vec![1_000], 64 << 10));
        let o = parse("--test-size").unwrap();
        assert_eq!((o.tasks(), o.deep()), (vec![100], 16 << 10));
        let o = parse("--tasks 5,7 --deep 4096 --threads 2 --json /tmp/s.json").unwrap();
        assert_eq!((o.tasks(), o.deep()), (vec![5, 7], 4096));
        assert_eq!(o.common.threads().unwrap(), [2]);
        assert!(o.child.is_none() && o.child_prefix.is_none());
        let o = parse("--child default,suspended,10,1,4096").unwrap();
        assert_eq!(o.child.as_deref(), Some("default,suspended,10,1,4096"));
        let o = parse("--child-program fib,2 --test-size").unwrap();
        assert_eq!(o.child_program.as_deref(), Some("fib,2"));
        for bad in [
            "--tasks 0",
            "--tasks 1,,2",
            "--deep 0",
            "--deep x",
            "--bogus",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn child_command_lines() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            child_prefix(args("stack-memory --quick --threads 1,2")),
            ["stack-memory"]
        );
        assert!(child_prefix(args("--quick")).is_empty());
        assert_eq!(
            child_args(
                &args("stack-memory"),
                "analysed",
                "after-deep",
                100,
                2,
                4096
            ),
            args("stack-memory --child analysed,after-deep,100,2,4096")
        );
        // What the parent passes, the child parses.
        let o = parse(&child_args(&[], "default", "suspended", 10, 1, 4096).join(" ")).unwrap();
        assert_eq!(o.child.as_deref(), Some("default,suspended,10,1,4096"));
        assert!(child("default,suspended").is_err());
        assert!(child("default,suspended,x,1,4096").is_err());
        // The program rows' children parse what the parent passes.
        let words = child_program_args(&args("stack-memory"), "fib", 2, Size::Test);
        assert_eq!(
            words,
            args("stack-memory --child-program fib,2 --test-size")
        );
        let o = parse(&words[1..].join(" ")).unwrap();
        assert_eq!(o.child_program.as_deref(), Some("fib,2"));
        assert_eq!(o.common.size(), Size::Test);
        assert!(child_program("fib", Size::Test).is_err());
        assert!(child_program("fib,x", Size::Test).is_err());
    }

    #[test]
    fn json_round_trips() {
        let m = Measurement {
            baseline: 1 << 20,
            measured: (1 << 20) + 100 * 8192,
            used_per_task: 4096,
            committed: 0,
        };
        let rows = vec![
            MemoryRow {
                phase: "suspended".to_string(),
                tasks: 100,
                workers: Some(2),
                runner: "default".to_string(),
                measurement: Some(MeasurementJson::new(&m, 100)),
                error: None,
            },
            MemoryRow {
                phase: "suspended".to_string(),
                tasks: 100,
                workers: None,
                runner: "threads".to_string(),
                measurement: None,
                error: Some("cannot spawn".to_string()),
            },
        ];
        assert_eq!(rows[0].measurement.as_ref().unwrap().rss_over_used, 2.0);
        assert_eq!(
            render(&rows[0]),
            "| suspended | 100 | 2 | default | 0.0 | 4.0 | 8.0 | 2.00 |"
        );
        assert_eq!(
            render(&rows[1]).matches('|').count(),
            render(&rows[0]).matches('|').count()
        );
        let program = ProgramRow::from_child(
            "fib",
            2,
            "INPUT n=20\nSTACKUSE stacks=3 deepest=8192 committed=16384\n",
            None,
        );
        assert_eq!(program.committed_over_used, Some(2.0));
        assert_eq!(
            program.render(),
            "| fib | n=20 | 2 | 3 | 16.0 | 8.0 | 2.00 |"
        );
        let failed = ProgramRow::from_child("fib", 2, "", Some("boom".to_string()));
        assert_eq!(failed.error.as_deref(), Some("boom"));
        assert_eq!(
            failed.render().matches('|').count(),
            program.render().matches('|').count()
        );
        let json = StackMemoryJson {
            head: TableHead::new(TABLE, Size::Test, &[2]),
            max_map_count: Some(65530),
            tasks: vec![100],
            deep: 4096,
            rows,
            programs: vec![program],
        };
        let text = serde_json::to_string(&json).unwrap();
        let back: StackMemoryJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back.rows, json.rows);
        assert_eq!(back.programs, json.programs);
        assert!(back.head.samples.is_empty());
        assert_eq!(back.head.table, "stack-memory");
    }
}
