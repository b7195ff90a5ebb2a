//! The C/C++ peers: the benchmark programs written with OpenMP tasks (GCC's
//! libgomp and LLVM's libomp), oneTBB and (dataflow only) StarPU, one
//! executable per runtime
//! (`benches/peers/`, built by `benches/build.rs` where the compiler and
//! library are installed), and the launcher that runs them.
//!
//! A peer executable runs one configuration per process, as every Rust
//! child does: `prescient-peer-<peer> PROGRAM ARGS --threads N --reps R
//! [--warmup-ms W --batch-ms B] [--sequential] [--expect CHECKSUM]`, and
//! prints one JSON line ([`PeerSample`]): the time of each timed run (or
//! batch), its CPU over wall time, its peak RSS, and whether its result
//! matched the reference — the C++ sequential reference computed in the same
//! process, and with `--expect` the checksum of the Rust reference's result
//! ([`checksum`], [`programs::RustSequential::checksum`]).
//!
//! * [`Peer`] lists the peers, which programs each offers and where its
//!   executable is: `$PRESCIENT_BENCH_PEERS/`, else beside the running
//!   binary (the bundle), else the build's `OUT_DIR/peers/`. A peer that was
//!   not built is *skipped*, with the line that installs what it needs.
//! * [`programs`] turns each table's rows into peer programs at the table's
//!   sizes and measurement plans, with the Rust sequential reference of each.
//! * [`run`] runs one configuration and parses its line.
//! * [`cli`] is the hidden `prescient-bench peers` command, which puts the
//!   peers' times beside the Rust sequential ones.

pub mod checksum;
pub mod cli;
pub mod programs;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub use programs::{PeerPlan, PeerProgram, PeerTable, RustSequential};

/// The environment variable naming a folder that holds the peer
/// executables (overriding the bundle's and the build's).
pub const PEERS_ENV: &str = "PRESCIENT_BENCH_PEERS";

/// A C/C++ peer runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// OpenMP tasks under GCC's libgomp (`g++ -fopenmp`).
    OmpGcc,
    /// OpenMP tasks under LLVM's libomp (`clang++ -fopenmp`).
    OmpLlvm,
    /// oneTBB (`task_group`, `parallel_invoke`, `flow::graph`, `parallel_*`).
    Tbb,
    /// StarPU 1.3 (data handles and `starpu_task_insert`): the dataflow
    /// programs only.
    Starpu,
}

impl Peer {
    /// Every peer.
    pub const ALL: [Peer; 4] = [Peer::OmpGcc, Peer::OmpLlvm, Peer::Tbb, Peer::Starpu];

    /// The runner name of its samples.
    pub const fn name(self) -> &'static str {
        match self {
            Peer::OmpGcc => "omp-gcc",
            Peer::OmpLlvm => "omp-llvm",
            Peer::Tbb => "tbb",
            Peer::Starpu => "starpu",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Peer> {
        Peer::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Its executable's file name.
    pub fn executable_name(self) -> String {
        format!("prescient-peer-{}", self.name())
    }

    /// What the build said of it: `built`, or `skipped: why (install: …)`.
    pub fn build_status(self) -> &'static str {
        let status = match self {
            Peer::OmpGcc => option_env!("PRESCIENT_PEER_OMP_GCC"),
            Peer::OmpLlvm => option_env!("PRESCIENT_PEER_OMP_LLVM"),
            Peer::Tbb => option_env!("PRESCIENT_PEER_TBB"),
            Peer::Starpu => option_env!("PRESCIENT_PEER_STARPU"),
        };
        status.unwrap_or("skipped: the build script did not build the peers")
    }

    /// The command that installs what it needs (Debian's packages).
    pub const fn install(self) -> &'static str {
        match self {
            Peer::OmpGcc => "apt-get install g++",
            Peer::OmpLlvm => "apt-get install clang libomp-dev",
            Peer::Tbb => "apt-get install g++ libtbb-dev",
            Peer::Starpu => "apt-get install g++ pkg-config libstarpu-dev",
        }
    }

    /// Whether it has a version of `program`: the OpenMP peers have every
    /// program, oneTBB every one but the stable sorts (it has no stable
    /// parallel sort), StarPU the dataflow table's.
    pub fn offers(self, program: &PeerProgram) -> bool {
        match self {
            Peer::Starpu => program.table == PeerTable::Dataflow,
            Peer::Tbb => {
                !(program.name == "par-sort"
                    && program.args.get(2).map(String::as_str) == Some("stable"))
            }
            Peer::OmpGcc | Peer::OmpLlvm => true,
        }
    }

    /// Its executable: in `$PRESCIENT_BENCH_PEERS` if set, else beside the
    /// running binary (a bundle), else where the build put it.
    ///
    /// # Errors
    /// Why it is skipped: not built (the build's reason and install line),
    /// or missing where it was looked for.
    pub fn executable(self) -> Result<PathBuf, String> {
        let name = self.executable_name();
        if let Some(dir) = std::env::var_os(PEERS_ENV).filter(|d| !d.is_empty()) {
            let exe = Path::new(&dir).join(&name);
            return if exe.is_file() {
                Ok(exe)
            } else {
                Err(format!(
                    "{} is not in ${PEERS_ENV} ({})",
                    name,
                    Path::new(&dir).display()
                ))
            };
        }
        let beside = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
            .filter(|exe| exe.is_file());
        if let Some(exe) = beside {
            return Ok(exe);
        }
        let status = self.build_status();
        if status != "built" {
            return Err(format!("{} {status}", self.name()));
        }
        let built = Path::new(option_env!("PRESCIENT_PEER_DIR").unwrap_or("")).join(&name);
        if built.is_file() {
            Ok(built)
        } else {
            Err(format!(
                "{} was built into {}, which no longer holds it (rebuild prescient-benches, or \
                 copy the peers beside this binary: benches/bundle does)",
                self.name(),
                built.display()
            ))
        }
    }
}

impl std::fmt::Display for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a peer printed of one configuration (its JSON line).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PeerSample {
    /// The peer (`omp-gcc`).
    pub peer: String,
    /// The peer program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Threads.
    pub threads: usize,
    /// Whether it timed the C++ sequential reference instead.
    pub sequential: bool,
    /// Runs per timed batch (1 without batches).
    pub batch: u64,
    /// Nanoseconds per run of each timed run or batch.
    pub times_ns: Vec<f64>,
    /// Process CPU time over wall time during the timed runs.
    pub cpu_per_wall: f64,
    /// Peak RSS in KiB.
    pub rss_kib: u64,
    /// Whether every result matched (and the checksum, if expected).
    pub verified: bool,
    /// The checksum of the last result.
    pub checksum: String,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// The runtime and compiler, as the peer names them.
    pub runtime: String,
    /// For `idle`: the CPU time burned during the sleep.
    #[serde(default)]
    pub idle_cpu_ns: Option<f64>,
    /// For `idle`: the sleep's wall time.
    #[serde(default)]
    pub idle_wall_ns: Option<f64>,
}

impl PeerSample {
    /// The median time per run, in seconds.
    pub fn median_seconds(&self) -> f64 {
        crate::harness::record::median(&self.times_ns) / 1e9
    }

    /// The shortest time per run, in seconds.
    pub fn min_seconds(&self) -> f64 {
        self.times_ns.iter().copied().fold(f64::INFINITY, f64::min) / 1e9
    }

    /// Parses a peer's JSON line.
    ///
    /// # Errors
    /// If it is not one.
    pub fn parse(line: &str) -> Result<PeerSample, String> {
        serde_json::from_str(line).map_err(|e| format!("not a peer's line ({e}): `{line}`"))
    }
}

/// Why a configuration has no sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// The peer is not there (not built, or not installed): the reason,
    /// with the install line.
    Skipped(String),
    /// It ran and failed: a wrong result, a crash, a timeout, a bad line.
    Failed(String),
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::Skipped(why) => write!(f, "skipped: {why}"),
            PeerError::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// One configuration for a peer to run.
#[derive(Clone, Debug)]
pub struct PeerRun<'a> {
    /// The program, its size and plan.
    pub program: &'a PeerProgram,
    /// Threads (ignored with `sequential`).
    pub threads: usize,
    /// Time the C++ sequential reference instead of the parallel version.
    pub sequential: bool,
    /// The checksum the result must have (the Rust reference's).
    pub expect: Option<String>,
    /// Kill the peer after this long.
    pub timeout: Duration,
}

impl PeerRun<'_> {
    /// The peer's command-line arguments for this configuration.
    pub fn args(&self) -> Vec<String> {
        let plan = &self.program.plan;
        let mut args = self.program.words();
        args.extend([
            "--threads".to_string(),
            self.threads.max(1).to_string(),
            "--reps".to_string(),
            plan.reps.max(1).to_string(),
        ]);
        if !plan.batch.is_zero() {
            args.extend([
                "--warmup-ms".to_string(),
                format!("{}", plan.warmup.as_secs_f64() * 1e3),
                "--batch-ms".to_string(),
                format!("{}", plan.batch.as_secs_f64() * 1e3),
            ]);
        }
        if self.sequential {
            args.push("--sequential".to_string());
        }
        if let Some(expect) = &self.expect {
            args.extend(["--expect".to_string(), expect.clone()]);
        }
        args
    }
}

/// Runs `exe` with `words`, its stdout captured: how it ended and its stdout.
fn run_capture(exe: &Path, words: &[String], timeout: Duration) -> Result<(Exit, String), String> {
    use crate::harness::child::{run, Status, Stderr};
    let finished = run(
        std::process::Command::new(exe).args(words),
        timeout,
        Stderr::Inherit,
    );
    match finished.status {
        Status::CutAtCap => Err(format!("{} timed out", exe.display())),
        status => Ok((Exit(status), finished.stdout)),
    }
}

/// How a peer's process ended.
struct Exit(crate::harness::child::Status);

impl Exit {
    fn success(&self) -> bool {
        self.0 == crate::harness::child::Status::Done
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.describe())
    }
}

/// Runs `words` under `peer` and parses its line.
fn run_words(peer: Peer, words: &[String], timeout: Duration) -> Result<PeerSample, PeerError> {
    if let Some(name) = words.first() {
        if name == "--list" {
            return Err(PeerError::Failed("use `list` for --list".into()));
        }
    }
    let exe = peer.executable().map_err(PeerError::Skipped)?;
    let (status, out) =
        run_capture(&exe, words, timeout).map_err(PeerError::Failed)?;
    let line = out.lines().rev().find(|l| l.starts_with('{'));
    let Some(line) = line else {
        return Err(PeerError::Failed(format!(
            "{} {} exited with {status} and printed no result line",
            peer,
            words.join(" ")
        )));
    };
    let sample = PeerSample::parse(line).map_err(PeerError::Failed)?;
    if !sample.verified || !status.success() {
        return Err(PeerError::Failed(format!(
            "{} {}: {} (exit {status})",
            peer,
            words.join(" "),
            sample.error.as_deref().unwrap_or("not verified")
        )));
    }
    Ok(sample)
}

/// Runs one configuration under `peer`.
///
/// # Errors
/// [`PeerError::Skipped`] if the peer is not there or lacks the program,
/// [`PeerError::Failed`] if it ran and its result was wrong (or it crashed,
/// timed out or printed no line).
pub fn run(peer: Peer, request: &PeerRun<'_>) -> Result<PeerSample, PeerError> {
    if !peer.offers(request.program) {
        return Err(PeerError::Skipped(format!(
            "{peer} has no version of {} {}",
            request.program.name,
            request.program.args.join(" ")
        )));
    }
    run_words(peer, &request.args(), request.timeout)
}

/// The fork-join suite's idle measurement for `peer`: one tiny parallel job
/// on `threads` threads, then a sleep of `sleep`; the sample's
/// `idle_cpu_ns` is the CPU time burned meanwhile.
///
/// # Errors
/// As [`run`].
pub fn run_idle(peer: Peer, threads: usize, sleep: Duration) -> Result<PeerSample, PeerError> {
    let words = [
        "idle".to_string(),
        sleep.as_millis().to_string(),
        "--threads".to_string(),
        threads.max(1).to_string(),
    ];
    run_words(peer, &words, sleep + Duration::from_secs(60))
}

/// The programs `peer`'s executable offers, one `NAME USAGE` line each
/// (`--list`).
///
/// # Errors
/// As [`run`].
pub fn list(peer: Peer) -> Result<Vec<String>, PeerError> {
    let exe = peer.executable().map_err(PeerError::Skipped)?;
    let (status, out) =
        run_capture(&exe, &["--list".to_string()], Duration::from_secs(30))
            .map_err(PeerError::Failed)?;
    if !status.success() {
        return Err(PeerError::Failed(format!(
            "{peer} --list exited with {status}"
        )));
    }
    Ok(out.lines().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Size;

    #[test]
    fn a_run_passes_its_table_plan() {
        let fib = PeerProgram::fork_join(crate::tables::fork_join::programs::Program::Fib, Size::Test);
        let run = PeerRun {
            program: &fib,
            threads: 2,
            sequential: false,
            expect: Some("00ff".into()),
            timeout: Duration::from_secs(1),
        };
        assert_eq!(
            run.args().join(" "),
            "fib 20 --threads 2 --reps 3 --warmup-ms 10 --batch-ms 1 --expect 00ff"
        );
        let sort = PeerProgram::cf17("sort", crate::cf17::Size::Test).unwrap();
        let run = PeerRun {
            program: &sort,
            threads: 1,
            sequential: true,
            expect: None,
            timeout: Duration::from_secs(1),
        };
        assert_eq!(
            run.args().join(" "),
            "sort 131072 --threads 1 --reps 1 --sequential"
        );
    }

    #[test]
    fn peers_offer_what_their_executables_have() {
        for table in PeerTable::ALL {
            for program in table.programs(Size::Test) {
                assert!(Peer::OmpGcc.offers(&program) && Peer::OmpLlvm.offers(&program));
                assert_eq!(Peer::Starpu.offers(&program), table == PeerTable::Dataflow);
                let stable_sort = program.name == "par-sort" && program.args[2] == "stable";
                assert_eq!(Peer::Tbb.offers(&program), !stable_sort, "{program:?}");
            }
        }
        for peer in Peer::ALL {
            assert_eq!(Peer::parse(peer.name()), Some(peer));
            assert!(peer.install().starts_with("apt-get install"));
        }
        assert_eq!(Peer::parse("nope"), None);
    }

    #[test]
    fn a_peer_line_parses() {
        let line = r#"{"peer":"tbb","program":"fib","args":["20"],"threads":2,"sequential":false,"batch":4,"times_ns":[3.0,1.0,2.0],"cpu_per_wall":1.9,"rss_kib":3000,"verified":true,"checksum":"00ff","error":null,"runtime":"oneTBB"}"#;
        let s = PeerSample::parse(line).unwrap();
        assert_eq!((s.threads, s.batch, s.rss_kib), (2, 4, 3000));
        assert_eq!((s.median_seconds(), s.min_seconds()), (2e-9, 1e-9));
        assert!(s.idle_cpu_ns.is_none() && s.error.is_none());
        assert!(PeerSample::parse("{\"peer\":1}").is_err());
        assert!(PeerSample::parse("RESULT x=1").is_err());
    }
}
