//! Pinning as the kernel sees it: the affinity of the worker threads of a
//! pinned runtime (`Cpus_allowed_list` in `/proc/self/task/<tid>/status`).
//! Which PU each worker gets on multi-socket machines that CI does not have is
//! tested on synthetic topologies by the runtime's own unit tests
//! (`topology.rs`); here, on the real machine, every pinned worker must sit on
//! exactly one PU the process may use, the first workers on distinct PUs
//! covering all of them, and the mapping must wrap when there are more
//! workers than PUs.

use prescient::tuning::Pinning;
use prescient::{Params, Runtime};
use prescient_tests::{parse_cpu_list, threads_named, watchdog};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The affinity of each worker `prefix{i}`, once all `n` have started.
/// The CPU lists of the `n` worker threads named `prefix{i}`, once every
/// one of them satisfies `settled` (a worker pins itself after its thread
/// started, so a list read too early is the process's), or at the deadline.
fn worker_affinities(
    prefix: &str,
    n: usize,
    settled: impl Fn(&[usize]) -> bool,
) -> Vec<Vec<usize>> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let threads = threads_named(prefix);
        if threads.len() == n {
            let mut by_index = vec![Vec::new(); n];
            for t in &threads {
                let i: usize = t.name[prefix.len()..].parse().expect("worker index");
                by_index[i] = parse_cpu_list(&t.cpus_allowed);
            }
            if by_index.iter().all(|cpus| settled(cpus)) || Instant::now() >= deadline {
                return by_index;
            }
        }
        assert!(Instant::now() < deadline, "{threads:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn pinned_workers_run_on_their_pu() {
    let process: Vec<usize> = parse_cpu_list(
        &std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:").map(str::to_owned))
            .unwrap(),
    );
    eprintln!("process may run on {process:?}");
    let pus = process.len();
    for (k, pinning) in [Pinning::None, Pinning::FillSocketFirst, Pinning::Scatter]
        .into_iter()
        .enumerate()
    {
        // More workers than PUs: the mapping wraps.
        let n = pus + 2;
        let prefix: &'static str = Box::leak(format!("pin{k}-").into_boxed_str());
        let what = format!("{pinning:?} with {n} workers on {pus} PUs");
        watchdog(&what, Duration::from_secs(30), || {
            let rt = Runtime::builder()
                .params(
                    Params::DEFAULT
                        .with_pinning(pinning)
                        .with_stack_size(64 << 10),
                )
                .num_workers(n)
                .thread_name(move |i| format!("{prefix}{i}"))
                .build()
                .unwrap();
            let actual = worker_affinities(prefix, n, |cpus| {
                let expected = if pinning == Pinning::None { pus } else { 1 };
                cpus.len() == expected
            });
            if pinning == Pinning::None {
                for (i, got) in actual.iter().enumerate() {
                    assert_eq!(got, &process, "{what}: worker {i} (unpinned)");
                }
            } else {
                for (i, got) in actual.iter().enumerate() {
                    assert_eq!(got.len(), 1, "{what}: worker {i} on {got:?}");
                    assert!(process.contains(&got[0]), "{what}: worker {i} on {got:?}");
                }
                let first: HashSet<usize> = actual[..pus].iter().map(|cpus| cpus[0]).collect();
                assert_eq!(first.len(), pus, "{what}: {actual:?}");
                assert_eq!(&actual[pus..], &actual[..2], "{what}: wraps");
            }
            // Tasks run on the pinned workers and the runtime works.
            let cpus = std::sync::Mutex::new(Vec::new());
            rt.run(|| {
                prescient::scope(|s| {
                    for _ in 0..50 {
                        let cpus = &cpus;
                        s.spawn(move |_| {
                            cpus.lock()
                                .unwrap()
                                .push(prescient::current_worker_index().unwrap())
                        });
                    }
                })
            });
            let cpus = cpus.into_inner().unwrap();
            assert_eq!(cpus.len(), 50);
            assert!(cpus.iter().all(|&w| w < n));
        });
    }
}
