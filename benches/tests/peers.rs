//! The C/C++ peers (`benches/peers/`, `prescient_benches::peers`): every
//! peer that was built runs every program it offers at the test size, and
//! its result must carry the checksum of the Rust reference's result (the
//! C++ program computed what the Rust one computes, bit for bit); a wrong
//! checksum, bad arguments and an unknown program must fail, and say why.
//!
//! A peer that was not built fails these tests (its compiler or library is
//! missing: the message gives the install line), unless the build was told
//! to skip the peers (`PRESCIENT_BENCH_NO_PEERS=1`).

use std::collections::HashMap;
use std::time::Duration;

use prescient_benches::cli::Size;
use prescient_benches::peers::{self, Peer, PeerError, PeerProgram, PeerRun, PeerTable};

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
            Err(why) => panic!(
                "the {peer} peer is missing: {why} (install: {})",
                peer.install()
            ),
        }
    }
    out
}

fn request(
    program: &PeerProgram,
    threads: usize,
    sequential: bool,
    expect: Option<String>,
) -> PeerRun<'_> {
    PeerRun {
        program,
        threads,
        sequential,
        expect,
        timeout: Duration::from_secs(300),
    }
}

#[test]
fn every_peer_matches_the_rust_reference_at_test_size() {
    let peers = peers_to_test();
    let mut checked: HashMap<Peer, usize> = HashMap::new();
    for table in PeerTable::ALL {
        for program in table.programs(Size::Test) {
            let expect = program
                .rust_sequential()
                .unwrap_or_else(|e| panic!("{}: {e}", program.label))
                .checksum();
            for &peer in &peers {
                if !peer.offers(&program) {
                    continue;
                }
                for (threads, sequential) in [(2, false), (1, true)] {
                    let sample = peers::run(
                        peer,
                        &request(&program, threads, sequential, Some(expect.clone())),
                    )
                    .unwrap_or_else(|e| {
                        panic!("{peer} {} ({}): {e}", program.label, program.table.name())
                    });
                    assert!(sample.verified && sample.error.is_none(), "{sample:?}");
                    assert_eq!(sample.checksum, expect, "{peer} {}", program.label);
                    assert_eq!(
                        sample.times_ns.len(),
                        program.plan.reps.max(1),
                        "{sample:?}"
                    );
                    assert!(sample.times_ns.iter().all(|&t| t > 0.0), "{sample:?}");
                    assert!(
                        sample.rss_kib > 0 && !sample.runtime.is_empty(),
                        "{sample:?}"
                    );
                    assert_eq!((sample.threads, sample.sequential), (threads, sequential));
                }
                *checked.entry(peer).or_default() += 1;
            }
        }
    }
    for &peer in &peers {
        // 3 fork-join, 7 dataflow, 7 par-loops (tbb: 5), 12 cf17; StarPU
        // the 7 dataflow ones.
        let expected = match peer {
            Peer::Tbb => 27,
            Peer::Starpu => 7,
            Peer::OmpGcc | Peer::OmpLlvm => 29,
        };
        assert_eq!(checked.get(&peer).copied(), Some(expected), "{peer}");
    }
}

#[test]
fn a_wrong_checksum_or_bad_input_fails_and_says_why() {
    for peer in peers_to_test() {
        // A program the peer has: fib, or for StarPU the dataflow matmul.
        let program = match peer {
            Peer::Starpu => PeerTable::Dataflow
                .programs(Size::Test)
                .into_iter()
                .find(|p| p.name == "matmul")
                .unwrap(),
            _ => PeerProgram::fork_join(prescient_benches::tables::fork_join::programs::Program::Fib, Size::Test),
        };
        let wrong = peers::run(
            peer,
            &request(&program, 2, false, Some("0123456789abcdef".into())),
        );
        match wrong {
            Err(PeerError::Failed(why)) => {
                assert!(why.contains("differs from the expected"), "{why}")
            }
            other => panic!("{peer}: a wrong checksum gave {other:?}"),
        }
        let mut bad = program.clone();
        bad.args = vec!["thirty".into(); program.args.len()];
        match peers::run(peer, &request(&bad, 1, false, None)) {
            Err(PeerError::Failed(why)) => {
                assert!(why.contains("not a non-negative integer"), "{why}")
            }
            other => panic!("{peer}: a bad argument gave {other:?}"),
        }
        bad.args = vec![];
        match peers::run(peer, &request(&bad, 1, false, None)) {
            Err(PeerError::Failed(why)) => assert!(why.contains("argument"), "{why}"),
            other => panic!("{peer}: a missing argument gave {other:?}"),
        }
        bad.name = "no-such-program";
        match peers::run(peer, &request(&bad, 1, false, None)) {
            Err(PeerError::Failed(why)) => assert!(why.contains("unknown program"), "{why}"),
            other => panic!("{peer}: an unknown program gave {other:?}"),
        }
        if peer == Peer::Starpu {
            continue; // no program of StarPU's reads a file
        }
        let mut file = PeerProgram::cf17("health", prescient_benches::cf17::Size::Test).unwrap();
        file.args = vec!["/nonexistent/health.input".into()];
        match peers::run(peer, &request(&file, 1, false, None)) {
            Err(PeerError::Failed(why)) => assert!(why.contains("cannot read"), "{why}"),
            other => panic!("{peer}: a missing input file gave {other:?}"),
        }
    }
}

#[test]
fn the_peers_list_their_programs_and_measure_idle_cpu() {
    for peer in peers_to_test() {
        let listed = peers::list(peer).unwrap();
        for table in PeerTable::ALL {
            for program in table.programs(Size::Test).iter().filter(|p| peer.offers(p)) {
                assert!(
                    listed
                        .iter()
                        .any(|l| l.split_whitespace().next() == Some(program.name)),
                    "{peer} does not list {}: {listed:?}",
                    program.name
                );
            }
        }
        if peer == Peer::Starpu {
            continue; // its executable has the dataflow programs only
        }
        let idle = peers::run_idle(peer, 2, Duration::from_millis(50)).unwrap();
        let (cpu, wall) = (idle.idle_cpu_ns.unwrap(), idle.idle_wall_ns.unwrap());
        assert!(cpu >= 0.0 && wall >= 50e6, "{idle:?}");
    }
}
