//! `prescient-bench peers` (hidden): runs the C/C++ peers on the programs of
//! the fork-join, dataflow, par-loops and cf17 tables at a table size, each
//! configuration in its own process, and prints per program the Rust
//! sequential reference's time (measured in this process, by the table's
//! plan), the C++ sequential reference's (GCC's build, `--sequential`) and
//! each peer's at each thread count — the sanity check that a peer is the
//! program it claims to be, before the tables carry it. Every peer run is
//! given the checksum of the Rust reference's result (`--expect`), so a peer
//! that computed anything else fails.
//!
//! `--paths` prints where each peer's executable is, or why it is skipped
//! (`benches/bundle` copies what it lists).

use std::time::Duration;

use serde::Serialize;

use super::{run, Peer, PeerError, PeerProgram, PeerRun, PeerSample, PeerTable};
use crate::cli::{progress, CommonArgs, Size};
use crate::samples::Sample;

/// The peers' times beside the Rust and C++ sequential references.
///
/// Runs the C/C++ peers (OpenMP under GCC and LLVM, oneTBB) on the
/// programs of the fork-join, dataflow, par-loops and cf17 tables at the
/// size asked (full, --quick or --test-size), one process per
/// configuration, and prints per program the time per run of the Rust
/// sequential reference, of the C++ one and of each peer at each thread
/// count (the median for fork-join and cf17, the best run for dataflow and
/// par-loops, as those tables report). Every peer result is checked against
/// the Rust reference's checksum.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Only these tables (comma-separated: fork-join, dataflow, par-loops,
    /// cf17; default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub table: Vec<String>,
    /// Only these peers (comma-separated: omp-gcc, omp-llvm, tbb; default
    /// all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub peer: Vec<String>,
    /// Only these peer programs (comma-separated names: fib, tree,
    /// two-wave, ...; default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub program: Vec<String>,
    /// Print each peer's executable (or why it is skipped) and exit.
    #[arg(long)]
    pub paths: bool,
    /// Print CPU time per run (the time times the process's CPU over wall
    /// time) instead of wall time: on a loaded machine, what the one-thread
    /// runs cost without the time they waited for a CPU. Not comparable to
    /// wall time above one thread.
    #[arg(long)]
    pub cpu_time: bool,
}

/// One row of `--json`: a program under one runner at one thread count.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The table.
    pub table: String,
    /// The sample's program name (`fib(35)`).
    pub program: String,
    /// `rust-sequential`, `c++-sequential`, or the peer.
    pub runner: String,
    /// Threads.
    pub threads: usize,
    /// The table's statistic of the runs, in seconds; `None` if it did not
    /// run.
    pub seconds: Option<f64>,
    /// Peak RSS of the peer's process, in KiB.
    pub rss_kib: Option<u64>,
    /// The process's CPU time over wall time during the timed runs.
    pub cpu_per_wall: Option<f64>,
    /// The runtime and compiler.
    pub runtime: Option<String>,
    /// Why it did not run.
    pub error: Option<String>,
}

/// The table's statistic of a peer sample: the median for fork-join and
/// cf17, the best run for dataflow and par-loops.
pub fn seconds(table: PeerTable, sample: &PeerSample) -> f64 {
    match table {
        PeerTable::ForkJoin | PeerTable::Cf17 => sample.median_seconds(),
        PeerTable::Dataflow | PeerTable::ParLoops => sample.min_seconds(),
    }
}

/// A peer sample as a table's [`Sample`] (runner `omp-gcc`, ...).
pub fn sample(program: &PeerProgram, peer: Peer, s: &PeerSample) -> Sample {
    Sample::new(
        &program.label,
        peer.name(),
        s.threads,
        seconds(program.table, s),
    )
}

fn pick<T>(
    names: &[String],
    all: &[T],
    parse: impl Fn(&str) -> Option<T>,
    what: &str,
) -> Result<Vec<T>, String>
where
    T: Copy,
{
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    names
        .iter()
        .map(|n| parse(n).ok_or_else(|| format!("unknown {what} `{n}`")))
        .collect()
}

fn timeout(size: Size) -> Duration {
    match size {
        Size::Full => Duration::from_secs(1800),
        Size::Quick | Size::Test => Duration::from_secs(300),
    }
}

fn ms(seconds: f64) -> String {
    format!("{:.3}", seconds * 1e3)
}

/// Runs the command (see [`Options`]).
///
/// # Errors
/// Bad flags, a Rust reference that cannot be prepared, a JSON file that
/// cannot be written. A peer that fails is reported in the table, and makes
/// the command fail at the end.
pub fn run_command(options: &Options) -> Result<(), String> {
    let peers = pick(&options.peer, &Peer::ALL, Peer::parse, "peer")?;
    if options.paths {
        for peer in Peer::ALL {
            match peer.executable() {
                Ok(exe) => println!("{peer}\t{}", exe.display()),
                Err(why) => println!("{peer}\tskipped: {why}"),
            }
        }
        return Ok(());
    }
    let tables = pick(&options.table, &PeerTable::ALL, PeerTable::parse, "table")?;
    let size = options.common.size();
    let threads = options.common.threads()?;
    let mut rows: Vec<Row> = Vec::new();
    let mut failures = 0;
    for peer in &peers {
        if let Err(why) = peer.executable() {
            println!("{peer}: skipped: {why}");
        }
    }
    let mut header = "| table | program | Rust seq ms | C++ seq ms |".to_string();
    let mut rule = "|---|---|---:|---:|".to_string();
    for peer in &peers {
        for t in &threads {
            header += &format!(" {peer} {t}t ms |");
            rule += "---:|";
        }
    }
    println!(
        "\n{} size; {} per run (fork-join, cf17: median; dataflow, par-loops: best)\n",
        size.name(),
        if options.cpu_time { "CPU time" } else { "time" }
    );
    println!("{header}\n{rule}");
    for table in tables {
        for program in table.programs(size) {
            if !options.program.is_empty() && !options.program.iter().any(|p| p == program.name) {
                continue;
            }
            progress(format!("peers: {} {}", table.name(), program.label));
            let row = |runner: &str, threads: usize, result: Result<&PeerSample, String>| Row {
                table: table.name().to_string(),
                program: program.label.clone(),
                runner: runner.to_string(),
                threads,
                seconds: result.as_ref().ok().map(|s| seconds(table, s)),
                rss_kib: result.as_ref().ok().map(|s| s.rss_kib),
                cpu_per_wall: result.as_ref().ok().map(|s| s.cpu_per_wall),
                runtime: result.as_ref().ok().map(|s| s.runtime.clone()),
                error: result.err(),
            };
            let mut reference = program.rust_sequential()?;
            let (times, rust_cpu_per_wall) = reference.time(&program.plan);
            let secs: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
            let rust = match table {
                PeerTable::ForkJoin | PeerTable::Cf17 => crate::harness::record::median(&secs),
                PeerTable::Dataflow | PeerTable::ParLoops => {
                    secs.iter().copied().fold(f64::INFINITY, f64::min)
                }
            };
            let expect = reference.last_checksum();
            rows.push(Row {
                table: table.name().to_string(),
                program: program.label.clone(),
                runner: "rust-sequential".to_string(),
                threads: 1,
                seconds: Some(rust),
                rss_kib: None,
                cpu_per_wall: Some(rust_cpu_per_wall),
                runtime: Some(env!("PRESCIENT_BENCH_RUSTC").to_string()),
                error: None,
            });
            let shown = |seconds: f64, cpu_per_wall: f64| {
                ms(if options.cpu_time {
                    seconds * cpu_per_wall
                } else {
                    seconds
                })
            };
            let mut line = format!(
                "| {} | {} | {} |",
                table.name(),
                program.label,
                shown(rust, rust_cpu_per_wall)
            );
            let cell = |result: &Result<PeerSample, PeerError>| match result {
                Ok(s) => shown(seconds(table, s), s.cpu_per_wall),
                Err(PeerError::Skipped(_)) => "-".to_string(),
                Err(PeerError::Failed(_)) => "FAILED".to_string(),
            };
            let request = |threads, sequential| PeerRun {
                program: &program,
                threads,
                sequential,
                expect: Some(expect.clone()),
                timeout: timeout(size),
            };
            let cpp = run(Peer::OmpGcc, &request(1, true));
            line += &format!(" {} |", cell(&cpp));
            let mut record = |runner: &str, threads, result: &Result<PeerSample, PeerError>| {
                if let Err(PeerError::Failed(why)) = result {
                    eprintln!("error: {why}");
                    failures += 1;
                }
                rows.push(row(
                    runner,
                    threads,
                    result.as_ref().map_err(ToString::to_string),
                ));
            };
            record("c++-sequential", 1, &cpp);
            for &peer in &peers {
                for &t in &threads {
                    let result = run(peer, &request(t, false));
                    line += &format!(" {} |", cell(&result));
                    record(peer.name(), t, &result);
                }
            }
            println!("{line}");
        }
    }
    if options.common.json.is_some() {
        options.common.write_json(&rows)?;
    }
    if failures > 0 {
        return Err(format!("{failures} peer run(s) failed (see above)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Options, clap::Error> {
        crate::cli::parse_words("peers", s.split_whitespace())
    }

    #[test]
    fn flags() {
        let o = parse("").unwrap();
        assert!(o.table.is_empty() && o.peer.is_empty() && !o.paths && !o.cpu_time);
        assert_eq!(o.common.size(), Size::Full);
        let o = parse("--test-size --table fork-join,cf17 --peer tbb --program fib,sort --paths")
            .unwrap();
        assert_eq!(o.common.size(), Size::Test);
        assert_eq!(o.table, ["fork-join", "cf17"]);
        assert_eq!(o.program, ["fib", "sort"]);
        assert!(o.paths);
        let tables = pick(&o.table, &PeerTable::ALL, PeerTable::parse, "table").unwrap();
        assert_eq!(tables, [PeerTable::ForkJoin, PeerTable::Cf17]);
        assert_eq!(
            pick(&o.peer, &Peer::ALL, Peer::parse, "peer"),
            Ok(vec![Peer::Tbb])
        );
        let bad = pick(&["omp".to_string()], &Peer::ALL, Peer::parse, "peer");
        assert_eq!(bad, Err("unknown peer `omp`".to_string()));
        assert!(parse("--bogus").is_err());
    }
}
