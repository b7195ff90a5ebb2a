//! The C/C++ peers (`benches/peers/`, `prescient_benches::peers`) in the
//! tables: every peer that was built runs every program it offers in the
//! fork-join, dataflow, par-loops and cf17 tables at the test size, and its
//! row is there, its result checked against the Rust reference's checksum
//! (a wrong one fails the row, and the table); a wrong checksum, bad
//! arguments and an unknown program fail and say why; a missing peer is
//! skipped with the line that installs it, and a peer's executable found
//! through `$PRESCIENT_BENCH_PEERS` is a runner like the built ones.
//!
//! A peer that was not built fails these tests (its compiler or library is
//! missing: the message gives the install line), unless the build was told
//! to skip the peers (`PRESCIENT_BENCH_NO_PEERS=1`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use prescient_benches::cli::Size;
use prescient_benches::harness::table::run_child;
use prescient_benches::peers::{programs, Job, Peer};
use prescient_benches::tables::fork_join::programs::Program;

const EXE: &str = env!("CARGO_BIN_EXE_prescient-bench");

/// The peers these tests run: every one, unless the build skipped them on
/// purpose.
fn peers_to_test() -> Vec<Peer> {
    let mut out = Vec::new();
    for peer in Peer::ALL {
        match peer.executable() {
            Ok(_) => out.push(peer),
            Err(why) if why.contains("PRESCIENT_BENCH_NO_PEERS") => {
                eprintln!("not testing {peer}: {why}");
            }
            Err(why) => panic!("the {peer} peer is missing: {why}"),
        }
    }
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prescient-peers-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `prescient-bench ARGS --json FILE` (with `env`), which must
/// succeed; its stdout and JSON.
fn table(args: &[&str], json: &Path, env: &[(&str, &Path)]) -> (String, serde_json::Value) {
    let out = Command::new(EXE)
        .args(args)
        .args(["--threads", "2", "--json", json.to_str().unwrap()])
        .envs(env.iter().copied())
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stdout}\n{stderr}");
    let v = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (stdout, v)
}

#[test]
fn every_peer_row_runs_in_its_table_and_matches_the_rust_reference() {
    let peers = peers_to_test();
    let dir = scratch("tables");
    let tables: [(&[&str], Vec<Job>); 4] = [
        (
            &[
                "fork-join",
                "--test-size",
                "--runners",
                "seq,omp-gcc,omp-llvm,tbb",
            ],
            Program::ALL
                .iter()
                .map(|&p| Job::fork_join(p, Size::Test))
                .collect(),
        ),
        (
            &[
                "dataflow",
                "--test-size",
                "--dast",
                "adaptive",
                "--only",
                "two_wave,cholesky,matmul,sparselu",
            ],
            programs::dataflow(Size::Test),
        ),
        (
            &["par-loops", "--test-size"],
            programs::par_loops(Size::Test),
        ),
        (
            &[
                "cf17",
                "--size",
                "test",
                "--runners",
                "seq,omp-gcc,omp-llvm,tbb",
            ],
            prescient_benches::cf17::workloads::NAMES
                .iter()
                .map(|n| programs::cf17(n, prescient_benches::cf17::Size::Test).unwrap())
                .collect(),
        ),
    ];
    for (args, jobs) in tables {
        let (stdout, v) = table(args, &dir.join(format!("{}.json", args[0])), &[]);
        let samples = v["samples"].as_array().unwrap();
        for job in &jobs {
            for &peer in peers.iter().filter(|p| p.offers(job)) {
                assert!(
                    samples.iter().any(|s| s["program"].as_str().is_some_and(
                        |p| p == job.label || p.starts_with(&format!("{} (", job.label))
                    ) && s["runner"] == peer.name()
                        && s["threads"] == 2),
                    "{}: no {peer} row of {}:\n{stdout}",
                    args[0],
                    job.label
                );
            }
        }
        for peer in peers.iter().filter(|p| jobs.iter().any(|j| p.offers(j))) {
            let note = v["peers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["runner"] == peer.name());
            assert!(
                note.unwrap()["runtime"].is_string(),
                "{}: {peer}: {note:?}",
                args[0]
            );
        }
        assert!(!stdout.contains("FAILED"), "{stdout}");
        if args[0] == "fork-join" {
            // The idle CPU of every peer with the idle program.
            let idle: Vec<&str> = v["idle"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|i| i["runner"].as_str())
                .collect();
            for peer in peers.iter().filter(|&&p| p != Peer::Starpu) {
                assert!(idle.contains(&peer.name()), "{idle:?}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wrong_checksum_or_bad_input_fails_and_says_why() {
    let run = |peer: Peer, job: &Job, expect: Option<&str>| {
        let mut command = peer.command(job, 2, expect).unwrap();
        run_child(&mut command, Duration::from_secs(300))
    };
    for peer in peers_to_test() {
        // A program the peer has: fib, or for StarPU the dataflow matmul.
        let job = match peer {
            Peer::Starpu => programs::dataflow(Size::Test)
                .into_iter()
                .find(|j| j.program == "matmul")
                .unwrap(),
            _ => Job::fork_join(Program::Fib, Size::Test),
        };
        let wrong = run(peer, &job, Some("0123456789abcdef")).unwrap_err();
        assert!(
            wrong.contains("differs from the expected 0123456789abcdef"),
            "{peer}: {wrong}"
        );
        let right = run(peer, &job, None).unwrap();
        assert!(
            right.peak_rss_kib.unwrap() > 0 && right.runtime.is_some(),
            "{right:?}"
        );
        let mut bad = job.clone();
        bad.args = vec!["thirty".into(); job.args.len()];
        let why = run(peer, &bad, None).unwrap_err();
        assert!(why.contains("not a non-negative integer"), "{peer}: {why}");
        bad.args.clear();
        let why = run(peer, &bad, None).unwrap_err();
        assert!(why.contains("argument"), "{peer}: {why}");
        bad.program = "no-such-program";
        let why = run(peer, &bad, None).unwrap_err();
        assert!(why.contains("unknown program"), "{peer}: {why}");
        if peer != Peer::Starpu {
            let mut file = programs::cf17("health", prescient_benches::cf17::Size::Test).unwrap();
            file.args = vec!["/nonexistent/health.input".into()];
            let why = run(peer, &file, None).unwrap_err();
            assert!(why.contains("cannot read"), "{peer}: {why}");
        }
    }
}

#[test]
fn a_missing_peer_is_skipped_and_a_found_one_is_a_runner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("found");
    // A stand-in oneTBB that answers fib(20) with its known checksum.
    let fib20 = prescient_benches::peers::checksum::of(&[6765u64]);
    let tbb = dir.join("prescient-peer-tbb");
    let line = format!(
        r#"{{"times_ns": [1000.0, 3000.0], "rss_kib": 7, "checksum": "{fib20}", "runtime": "stand-in"}}"#
    );
    std::fs::write(&tbb, format!("#!/bin/sh\necho '{line}'\n")).unwrap();
    std::fs::set_permissions(&tbb, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env = [("PRESCIENT_BENCH_PEERS", dir.as_path())];
    let (stdout, v) = table(
        &["fork-join", "--test-size", "--only", "fib", "--no-idle"],
        &dir.join("fork-join.json"),
        &env,
    );
    assert!(
        stdout.contains("| fib(20) | tbb | 2 | 2.00 µs |"),
        "{stdout}"
    );
    assert!(stdout.contains("- `tbb`: stand-in"), "{stdout}");
    assert!(
        stdout.contains(
            "- `omp-llvm`: skipped: prescient-peer-omp-llvm is not in $PRESCIENT_BENCH_PEERS"
        ) && stdout.contains("install: apt-get install clang libomp-dev"),
        "{stdout}"
    );
    let tbb_rows: Vec<_> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["runner"] == "tbb")
        .collect();
    assert_eq!(tbb_rows[0]["peak_rss_kib"].as_u64(), Some(7));
    let notes = v["peers"].as_array().unwrap();
    assert_eq!(notes.len(), 3, "omp-gcc, omp-llvm, tbb");
    assert!(
        notes.iter().filter(|n| n["skipped"].is_string()).count() == 2,
        "{notes:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
