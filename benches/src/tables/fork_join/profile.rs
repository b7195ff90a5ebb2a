//! `fork-join --profile PROGRAM`: one of the table's programs under one
//! Prescient runner, profiled with the critical-path profiler at each
//! thread count; each profile's report is printed and its files (report,
//! Chrome trace, SVG) written to `DIR/PROGRAM-RUNNER-tTHREADS/`.
//!
//! Each runtime makes one untraced warm-up run first (stacks mapped, the
//! inliner's decisions learnt), so the profile shows the steady state the
//! table measures. Needs the `trace` feature; without it the command says
//! how to rebuild.

use std::path::PathBuf;

use super::programs::Program;
use crate::cli::Size;
use crate::programs::tree::Layout;

/// What `--profile` profiles, and where the profiles go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileOptions {
    /// The program.
    pub program: Program,
    /// The Prescient runner whose parameters the runtime gets.
    pub runner: String,
    /// The thread counts, one profile each.
    pub threads: Vec<usize>,
    /// The input size.
    pub size: Size,
    /// The allocation order of a tree's nodes.
    pub layout: Layout,
    /// The folder that receives one folder per profile.
    pub dir: PathBuf,
}

/// Runs the profiles; returns the exit code.
#[cfg(feature = "trace")]
pub fn run(options: &ProfileOptions) -> i32 {
    use prescient::Runtime;

    let work = options.program.prepare(options.layout, options.size);
    let params = super::programs::params(&options.runner)
        .expect("a Prescient runner (checked by the parser)");
    for &threads in &options.threads {
        let runtime = match Runtime::builder()
            .num_workers(threads)
            .params(params)
            .trace(true)
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => {
                eprintln!("error: cannot build a runtime of {threads} workers: {error}");
                return 2;
            }
        };
        assert_eq!(runtime.run(|| work.run_prescient()), work.expected());
        let profile = match runtime.profile(|| work.run_prescient()) {
            Ok(profile) => profile,
            Err(error) => {
                eprintln!("error: {error}");
                return 1;
            }
        };
        assert_eq!(*profile.result(), work.expected());
        let dir = options.dir.join(format!(
            "{}-{}-t{threads}",
            options.program.name(),
            options.runner
        ));
        println!(
            "## {} under {} on {threads} workers ({})\n",
            options.program.name(),
            options.runner,
            options.program.description(options.size)
        );
        print!("{}", profile.report());
        match profile.write(&dir) {
            Ok(files) => println!(
                "written: {}, {}, {}\n",
                files.report.display(),
                files.chrome_trace.display(),
                files.svg.display()
            ),
            Err(error) => {
                eprintln!(
                    "error: cannot write the profile to {}: {error}",
                    dir.display()
                );
                return 1;
            }
        }
    }
    0
}

/// Without the `trace` feature: says how to get it.
#[cfg(not(feature = "trace"))]
pub fn run(options: &ProfileOptions) -> i32 {
    eprintln!(
        "error: --profile needs the critical-path profiler; rebuild with the `trace` feature:\n  \
         cargo bench-run prescient-bench --features trace -- fork-join --profile {}",
        options.program.name()
    );
    2
}
