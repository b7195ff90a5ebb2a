//! What task stacks cost in memory: the resident set of N suspended tasks,
//! per task, against the stack each used, under the default parameters, the
//! analysed `PARAMS` and as OS threads; and what the stack pool keeps after
//! a deep phase (`prescient_benches::stack_memory` has the programs).
//!
//! `cargo bench-run stack_memory -- [--quick] [--threads LIST] [--tasks LIST] [--deep BYTES]`
//!
//! Each (phase, tasks, workers, configuration) runs in a child process of
//! its own. Thread counts: `--threads`, else `PRESCIENT_BENCH_THREADS`, else
//! 1,2 (`prescient_benches::cli`).

use prescient_benches::cli::{self, Parsed};
use prescient_benches::stack_memory::{self, Measurement, CONFIGS, PHASES};
use prescient_benches::suite::machine::Machine;
use std::process::Command;

struct Options {
    threads: Vec<usize>,
    tasks: Vec<usize>,
    deep: usize,
}

fn usage() -> String {
    cli::usage(
        "stack_memory [--quick] [--threads LIST] [--tasks LIST] [--deep BYTES]",
        "Measures the resident memory of suspended tasks (each recursed, then
waiting on an Event) per task against the stack each used, under
Params::DEFAULT, under an annotated module's PARAMS and as OS threads; then
what the stack pool keeps once tasks that went --deep bytes down finished.",
        "1000 tasks, --deep 65536",
        "  --tasks LIST        task counts (default 10000,30000)
  --deep BYTES        how deep the deep phase goes (default 262144)
",
    )
}

fn parse_options(
    args: Vec<String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut tasks = None;
    let mut deep = None;
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--tasks" => {
                let list = args.value(flag)?;
                let counts = list
                    .split(',')
                    .map(|entry| {
                        cli::parse_count(entry.trim()).map_err(|e| format!("--tasks: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                tasks = Some(counts);
            }
            "--deep" => deep = Some(args.positive(flag)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    Ok(Some(Options {
        threads: common.threads(env_threads, available)?,
        tasks: tasks.unwrap_or(if common.quick {
            vec![1_000]
        } else {
            vec![10_000, 30_000]
        }),
        deep: deep.unwrap_or(if common.quick { 64 << 10 } else { 256 << 10 }),
    }))
}

/// Runs as a child: `--child CONFIG PHASE TASKS WORKERS DEEP`.
fn child(args: &[String]) -> ! {
    let number = |i: usize| -> usize { args[i].parse().expect("a number") };
    match stack_memory::measure(&args[0], &args[1], number(2), number(3), number(4)) {
        Ok(m) => {
            println!("{}", m.line());
            std::process::exit(0)
        }
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1)
        }
    }
}

fn kib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        child(&args[2..]);
    }
    let Some(options) = cli::options_from_command_line(parse_options, &usage()) else {
        return;
    };
    let exe = std::env::current_exe().expect("this binary");
    println!("{}", Machine::detect().describe());
    match stack_memory::max_map_count() {
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
    for phase in PHASES {
        for &tasks in &options.tasks {
            for &workers in &options.threads {
                for config in CONFIGS {
                    if config == "threads" && workers != options.threads[0] {
                        // OS threads do not depend on the worker count.
                        continue;
                    }
                    let output = Command::new(&exe)
                        .args(["--child", config, phase])
                        .args([tasks, workers, options.deep].map(|n| n.to_string()))
                        .output()
                        .expect("start a child");
                    let stdout = String::from_utf8_lossy(&output.stdout);
                    let parsed = stdout.lines().find_map(Measurement::parse);
                    let workers_cell = if config == "threads" {
                        "-".to_string()
                    } else {
                        workers.to_string()
                    };
                    match parsed {
                        Some(m) if output.status.success() => {
                            let per_task = m.per_task(tasks);
                            println!(
                                "| {phase} | {tasks} | {workers_cell} | {config} | {} | {} | {} | {:.2} |",
                                kib(m.committed as u64),
                                kib(m.used_per_task),
                                kib(per_task),
                                per_task as f64 / m.used_per_task.max(1) as f64
                            );
                        }
                        _ => {
                            // The child's own last word (earlier lines may be
                            // panics of threads it could not finish starting).
                            let stderr = String::from_utf8_lossy(&output.stderr);
                            let why = stderr.lines().rfind(|l| !l.trim().is_empty());
                            println!(
                                "| {phase} | {tasks} | {workers_cell} | {config} | failed: {} | | | |",
                                why.unwrap_or("no message").trim()
                            );
                        }
                    }
                }
            }
        }
    }
}
