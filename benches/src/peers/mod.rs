//! The peers: the tables' programs under other runtimes — OpenMP tasks
//! under GCC's libgomp and LLVM's libomp, oneTBB and (dataflow only)
//! StarPU — written in C/C++ in `benches/peers/`, built by
//! `benches/build.rs` where the compiler and library are installed, and
//! run by the fork-join, dataflow, par-loops and cf17 tables as runners
//! `omp-gcc`, `omp-llvm`, `tbb` and `starpu`, each configuration in a child
//! process of its own like every runner's.
//!
//! # Finding them
//!
//! A peer is an executable `prescient-peer-NAME` in the folder
//! [`PEERS_ENV`] names, else beside the running executable (where
//! `benches/bundle` copies them, their shared libraries in `lib/`), else
//! where the build put it. A peer that was not built, or is not there, is
//! *skipped*: its rows are left out, and the table says why with the line
//! that installs what it needs ([`Peer::executable`]), as mpi-heat does
//! without MPI.
//!
//! # What a peer is asked
//!
//! ```text
//! prescient-peer-NAME PROGRAM ARG... --threads N --reps R
//!     [--warmup-ms W --batch-ms B] [--expect CHECKSUM]
//! ```
//!
//! `PROGRAM ARG...` is the table's program at the table's size
//! ([`programs::Job`]): the same input as the Rust rows. `--reps` timed
//! runs after one untimed one, or with `--warmup-ms`/`--batch-ms` the
//! fork-join table's warm-up and batches. `--expect` is the checksum
//! ([`checksum`]) of the Rust sequential reference's result: a peer whose
//! result differs fails its row. The thread count is set per process
//! (`omp_set_num_threads` and `OMP_NUM_THREADS`, a `tbb::global_control`,
//! StarPU's `ncpus`); binding is each runtime's default ([`BINDING`]).
//!
//! # What a peer answers
//!
//! One JSON line, read as the [`Record`] every measuring child prints:
//! `times_ns`, `batch`, `rss_kib` (its peak RSS, `getrusage` as ours),
//! `cpu_per_wall`, `checksum`, `verified`, `error`, and `runtime` (the
//! runtime and compiler, which the table prints).

pub mod checksum;
pub mod programs;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::cli::Size;
use crate::harness::record::Record;
use crate::harness::{Kind, Plan, Runner};
pub use programs::Job;

/// The environment variable naming a folder that holds the peers'
/// executables (overriding the bundle's and the build's).
pub const PEERS_ENV: &str = "PRESCIENT_BENCH_PEERS";

/// What the tables say of the peers' binding.
pub const BINDING: &str = "threads not bound (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY and \
                           KMP_AFFINITY removed from their environment: libgomp, libomp and oneTBB \
                           then leave placement to the OS); StarPU binds its workers to cores, its \
                           default";

/// A C/C++ peer runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// OpenMP tasks under GCC's libgomp (`g++ -fopenmp`).
    OmpGcc,
    /// OpenMP tasks under LLVM's libomp (`clang++ -fopenmp`).
    OmpLlvm,
    /// oneTBB (`task_group`, `parallel_invoke`, `flow::graph`, `parallel_*`).
    Tbb,
    /// StarPU (data handles and `starpu_task_insert`): the dataflow
    /// programs only.
    Starpu,
}

impl Peer {
    /// Every peer, in the tables' order.
    pub const ALL: [Peer; 4] = [Peer::OmpGcc, Peer::OmpLlvm, Peer::Tbb, Peer::Starpu];

    /// Its runner's name, in the tables, `--runners`, the JSON and the
    /// samples.
    pub const fn name(self) -> &'static str {
        match self {
            Peer::OmpGcc => "omp-gcc",
            Peer::OmpLlvm => "omp-llvm",
            Peer::Tbb => "tbb",
            Peer::Starpu => "starpu",
        }
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

    /// Whether it has a version of `job`: the OpenMP peers have every
    /// program, oneTBB every one but the stable sorts (it has no stable
    /// parallel sort), StarPU the dataflow table's.
    pub fn offers(self, job: &Job) -> bool {
        match self {
            Peer::Starpu => job.table == "dataflow",
            Peer::Tbb => {
                !(job.program == "par-sort" && job.args.get(2).is_some_and(|k| k == "stable"))
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
        self.find(std::env::var_os(PEERS_ENV).as_deref())
    }

    /// [`Peer::executable`], with `folder` for `$PRESCIENT_BENCH_PEERS`.
    fn find(self, folder: Option<&std::ffi::OsStr>) -> Result<PathBuf, String> {
        let name = self.executable_name();
        let install = self.install();
        if let Some(dir) = folder.filter(|d| !d.is_empty()) {
            let exe = Path::new(&dir).join(&name);
            return exe.is_file().then_some(exe).ok_or_else(|| {
                let dir = Path::new(&dir).display();
                format!("{name} is not in ${PEERS_ENV} ({dir}; install: {install}, and rebuild)")
            });
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
        built.is_file().then_some(built.clone()).ok_or_else(|| {
            format!(
                "{} was built into {}, which no longer holds it (rebuild prescient-benches, or \
                 copy the peers beside this binary: benches/bundle does)",
                self.name(),
                built.display()
            )
        })
    }

    /// The command that runs `job` under this peer at `threads`, its result
    /// checked against the checksum `expect`; `None` if the peer has no
    /// version of the job or is missing (see [`Peer::executable`]).
    pub fn command(self, job: &Job, threads: usize, expect: Option<&str>) -> Option<Command> {
        if !self.offers(job) {
            return None;
        }
        Some(job_command(&self.executable().ok()?, job, threads, expect))
    }
}

/// The command that runs `job` with the peer executable `exe` (see the
/// module's documentation).
fn job_command(exe: &Path, job: &Job, threads: usize, expect: Option<&str>) -> Command {
    let mut command = Command::new(exe);
    command.arg(job.program).args(&job.args);
    command.args(["--threads", &threads.max(1).to_string()]);
    command.args(["--reps", &job.plan.reps.max(1).to_string()]);
    if !job.plan.batch.is_zero() {
        let ms = |d: std::time::Duration| format!("{}", d.as_secs_f64() * 1e3);
        command.args(["--warmup-ms", &ms(job.plan.warmup)]);
        command.args(["--batch-ms", &ms(job.plan.batch)]);
    }
    if let Some(expect) = expect {
        command.args(["--expect", expect]);
    }
    // Each runtime's default binding: none of the user's shell.
    for var in [
        "OMP_PROC_BIND",
        "OMP_PLACES",
        "GOMP_CPU_AFFINITY",
        "KMP_AFFINITY",
    ] {
        command.env_remove(var);
    }
    command.env("OMP_NUM_THREADS", threads.max(1).to_string());
    command
}

impl std::fmt::Display for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The runners of the peers that have programs of `table`, which the
/// table lists after its own (StarPU has the dataflow table's only).
pub fn runners(table: &str) -> Vec<Runner> {
    Peer::ALL
        .into_iter()
        .filter(|&p| p != Peer::Starpu || table == "dataflow")
        .map(|p| Runner::new(p.name(), p.name(), Kind::Peer(p)))
        .collect()
}

/// Runs every peer among `runners` that has `job` at each of `threads`, its
/// result checked against `expect`, each in a child of its own: the rows an
/// in-process table (dataflow, par-loops) adds beside its own.
pub fn measure(
    table: &'static str,
    size: Size,
    runners: &[Runner],
    threads: &[usize],
    job: &Job,
    expect: &str,
) -> Vec<(String, usize, Result<Record, String>)> {
    let plan = Plan {
        table,
        size,
        programs: vec![job.label.as_str()],
        runners: runners
            .iter()
            .filter(|r| matches!(r.kind, Kind::Peer(_)))
            .cloned()
            .collect(),
        threads: threads.to_vec(),
        timeout: crate::cli::default_timeout(size),
    };
    plan.measure(|c| match c.runner.kind {
        Kind::Peer(peer) => peer.command(job, c.threads, Some(expect)),
        _ => None,
    })
    .into_iter()
    .map(|o| (o.config.runner.name, o.config.threads, o.result))
    .collect()
}

/// What a table says of one of its peers, in its text and its JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerNote {
    /// The runner (`omp-gcc`).
    pub runner: String,
    /// The runtime and compiler, as the peer names them (from its first
    /// record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Why it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The notes of the peers among `runners`, their runtimes read from
/// `records` (runner name, record).
pub fn notes<'a>(
    runners: &[Runner],
    records: impl IntoIterator<Item = (&'a str, &'a Record)> + Clone,
) -> Vec<PeerNote> {
    runners
        .iter()
        .filter_map(|r| match r.kind {
            Kind::Peer(peer) => Some(PeerNote {
                runner: r.name.clone(),
                runtime: records
                    .clone()
                    .into_iter()
                    .find(|(name, rec)| *name == r.name && rec.runtime.is_some())
                    .and_then(|(_, rec)| rec.runtime.clone()),
                skipped: peer.executable().err(),
            }),
            _ => None,
        })
        .collect()
}

/// The paragraph a table prints under its rows: each peer's runtime, or
/// why it was skipped, and their binding. Empty without peers.
pub fn render_notes(notes: &[PeerNote]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut out = format!("Peers (C/C++, each configuration in its own process; {BINDING}):\n\n");
    for note in notes {
        let what = match (&note.skipped, &note.runtime) {
            (Some(why), _) => format!("skipped: {why}"),
            (None, Some(runtime)) => runtime.clone(),
            (None, None) => "no row ran".to_string(),
        };
        out.push_str(&format!("- `{}`: {what}\n", note.runner));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::fork_join::programs::Program;

    #[test]
    fn a_command_passes_the_table_plan() {
        let fib = Job::fork_join(Program::Fib, Size::Test);
        let command = job_command(Path::new("peer"), &fib, 2, Some("00ff"));
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args.join(" "),
            "fib 20 --threads 2 --reps 3 --warmup-ms 10 --batch-ms 1 --expect 00ff"
        );
        assert!(Peer::Starpu.command(&fib, 2, None).is_none(), "fork-join");
        let why = Peer::OmpGcc
            .find(Some("/nonexistent".as_ref()))
            .unwrap_err();
        assert!(
            why.contains(
                "not in $PRESCIENT_BENCH_PEERS (/nonexistent; install: apt-get install g++"
            ),
            "{why}"
        );
        let note = PeerNote {
            runner: "tbb".into(),
            runtime: None,
            skipped: Some(why),
        };
        assert!(render_notes(&[note]).contains("- `tbb`: skipped: prescient-peer-omp-gcc"));
    }

    #[test]
    fn peers_offer_what_their_executables_have() {
        for job in programs::dataflow(Size::Test) {
            assert!(Peer::ALL.iter().all(|p| p.offers(&job)));
        }
        for job in programs::par_loops(Size::Test) {
            let stable = job.args.get(2).is_some_and(|k| k == "stable");
            assert_eq!(Peer::Tbb.offers(&job), !stable, "{job:?}");
            assert!(!Peer::Starpu.offers(&job) && Peer::OmpLlvm.offers(&job));
        }
    }
}
