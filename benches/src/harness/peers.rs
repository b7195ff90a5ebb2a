//! Peers: other runtimes' versions of a table's programs (OpenMP, oneTBB,
//! StarPU, ...), each a separate executable that a table runs as a child
//! process, beside its own runners.
//!
//! # Finding them
//!
//! A peer is an executable file named `peer-NAME` (`peer-omp-gcc`) in the
//! folder [`PEERS_ENV`] names, else in the folder the build recorded
//! (`PRESCIENT_BENCH_PEERS_DIR` at compile time, where `benches/build.rs`
//! puts them), else beside the running executable (where `benches/bundle`
//! copies them). Its runner is `NAME` (`omp-gcc`), in the table, in
//! `--runners`, in the JSON and in the samples. Every table that takes
//! peers — fork-join, dataflow, par-loops and cf17 — runs every peer it
//! finds; none found, the tables are as they were.
//!
//! # What a peer is asked
//!
//! ```text
//! peer-NAME TABLE PROGRAM THREADS KEY=VALUE...
//! ```
//!
//! `TABLE` is the table's subcommand, `PROGRAM` its program's name, and the
//! `KEY=VALUE` words the program's input and the table's measurement plan:
//! always `size=` (the table's size, `full`, `quick` or `test`) and
//! `reps=` (timed samples), then the table's own (`n=35`, `nodes=1023`,
//! `task_size=250 tasks=10000`, `data=DIR`, ...; each table's documentation
//! lists them). The peer uses `THREADS` threads; binding is left to its
//! runtime's default.
//!
//! # What a peer answers
//!
//! One JSON line on stdout, the [`Record`] every
//! measuring child prints:
//!
//! ```text
//! {"times_ns": [..], "peak_rss_kib": 10240, "verified": true, "checksum": "9227465"}
//! ```
//!
//! `times_ns`: the time of one run in each timed sample, after one untimed
//! warm-up run (with `batch` > 1 where a run is too short to time alone);
//! `peak_rss_kib`: `getrusage(RUSAGE_SELF).ru_maxrss` after the timed runs,
//! as this executable's children measure theirs; `verified`: whether the
//! result matched the sequential reference; `checksum`: the result, which
//! the table compares with its own where it has one. A program the peer
//! does not have: `{"skipped": "why"}` (the row is left out). An error:
//! `{"error": "why"}` and a non-zero exit (the row shows it).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::record::Record;
pub use super::table::Peer;
use super::table::{Kind, Plan, Runner};
use crate::cli::Size;

/// The environment variable naming the folder of the peers' executables.
pub const PEERS_ENV: &str = "PRESCIENT_BENCH_PEERS";

/// The prefix of a peer's executable.
pub const PREFIX: &str = "peer-";

/// The folder the peers are looked for in.
pub fn folder() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(PEERS_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = option_env!("PRESCIENT_BENCH_PEERS_DIR").map(PathBuf::from) {
        if dir.is_dir() {
            return Some(dir);
        }
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
}

/// The peers in `dir`, by name, except those named like one of `taken`
/// (the table's own runners).
pub fn find_in(dir: &Path, taken: &[Runner]) -> Vec<Peer> {
    let mut peers: Vec<Peer> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry
                .file_name()
                .to_str()?
                .strip_prefix(PREFIX)?
                .to_string();
            let path = entry.path();
            let executable = std::fs::metadata(&path).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            });
            (executable && !name.is_empty() && taken.iter().all(|r| r.name != name))
                .then_some(Peer { name, path })
        })
        .collect();
    peers.sort_by(|a, b| a.name.cmp(&b.name));
    peers
}

/// `own` and, after them, a runner per peer found ([`folder`]).
pub fn with_peers(own: Vec<Runner>) -> Vec<Runner> {
    let peers = folder().map_or_else(Vec::new, |dir| find_in(&dir, &own));
    let mut runners = own;
    runners.extend(
        peers
            .into_iter()
            .map(|p| Runner::new(&p.name.clone(), &p.name.clone(), Kind::Peer(p))),
    );
    runners
}

/// The command that asks `peer` for `program` of `table` at `threads`:
/// `peer-NAME TABLE PROGRAM THREADS KEY=VALUE...`.
pub fn command(
    peer: &Peer,
    table: &str,
    program: &str,
    threads: usize,
    params: &[(&str, String)],
) -> Command {
    let mut command = Command::new(&peer.path);
    command.args([table, program, &threads.to_string()]);
    command.args(params.iter().map(|(key, value)| format!("{key}={value}")));
    command
}

/// Runs every peer found on `program` (with `params`, after `size=`) of
/// `table` at each of `threads`, each in a child of its own: the rows an
/// in-process table adds beside its own. A peer that does not have the
/// program is left out.
pub fn measure(
    table: &'static str,
    size: Size,
    threads: &[usize],
    program: &str,
    params: &[(&'static str, String)],
) -> Vec<(String, usize, Result<Record, String>)> {
    let plan = Plan {
        table,
        size,
        programs: vec![program],
        runners: with_peers(Vec::new()),
        threads: threads.to_vec(),
        timeout: crate::cli::default_timeout(size),
    };
    let mut args = vec![("size", size.name().to_string())];
    args.extend(params.iter().cloned());
    plan.measure(|c| match &c.runner.kind {
        Kind::Peer(peer) => Some(command(peer, table, program, c.threads, &args)),
        _ => None,
    })
    .into_iter()
    .map(|o| (o.config.runner.name, o.config.threads, o.result))
    .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes an executable `peer-NAME` into `dir` that answers with
    /// `script` (a shell script; `$1` is the table, `$2` the program, `$3`
    /// the threads).
    pub(crate) fn fake_peer(dir: &Path, name: &str, script: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(format!("{PREFIX}{name}"));
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn peers_are_found_by_name_and_asked_by_argument() {
        let dir = std::env::temp_dir().join(format!("prescient-peers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        fake_peer(
            &dir,
            "tbb",
            r#"echo "{\"checksum\": \"$1 $2 $3 $4 $5\", \"times_ns\": [1.0]}""#,
        );
        fake_peer(&dir, "omp-gcc", "exit 1");
        fake_peer(&dir, "rayon", "exit 1");
        std::fs::write(dir.join("peer-notes.txt"), "not executable").unwrap();
        let own = [Runner::new("rayon", "rayon", Kind::Own)];
        let peers = find_in(&dir, &own);
        let names: Vec<&str> = peers.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["omp-gcc", "tbb"]);
        let mut command = command(
            &peers[1],
            "fork-join",
            "fib",
            2,
            &[("size", "test".into()), ("n", "20".into())],
        );
        let record =
            super::super::table::run_child(&mut command, std::time::Duration::from_secs(30))
                .unwrap();
        assert_eq!(
            record.checksum.as_deref(),
            Some("fork-join fib 2 size=test n=20")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
