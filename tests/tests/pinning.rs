//! Pinning: the worker-to-PU mapping of `FillSocketFirst` and `Scatter` on
//! synthetic topologies (a pure function, so multi-socket machines that CI
//! does not have are tested here), and the affinity of the worker threads of
//! a pinned runtime as the kernel reports it (`Cpus_allowed_list` in
//! `/proc/self/task/<tid>/status`).

use prescient::topology::{self, Core, Package, Topology, TopologySource};
use prescient::{Params, Pinning, Runtime};
use prescient_tests::{parse_cpu_list, threads_named, watchdog};
use std::collections::HashSet;
use std::time::{Duration, Instant};

fn pus(t: &Topology, p: Pinning, n: usize) -> Vec<usize> {
    topology::worker_pus(t, p, n)
        .into_iter()
        .map(|pu| pu.expect("pinned"))
        .collect()
}

#[test]
fn two_sockets_four_cores_two_pus() {
    let t = Topology::synthetic(2, 4, 2);
    assert_eq!((t.num_packages(), t.num_cores(), t.num_pus()), (2, 8, 16));
    // Linux numbering: first hardware threads of all cores, then the second.
    assert_eq!(t.packages[0].cores[0].pus, [0, 8]);
    assert_eq!(t.packages[1].cores[3].pus, [7, 15]);
    // Fill socket 0 core by core, then socket 1; hyper-threads last; wrap.
    let fill: Vec<usize> = (0..16).chain(0..4).collect();
    assert_eq!(pus(&t, Pinning::FillSocketFirst, 20), fill);
    // Alternate sockets core by core; hyper-threads last; wrap.
    let scatter = [
        0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5,
    ];
    assert_eq!(pus(&t, Pinning::Scatter, 20), scatter);
    assert_eq!(
        topology::worker_pus(&t, Pinning::None, 3),
        [None, None, None]
    );
}

/// Properties that hold on every regular synthetic machine: with one worker
/// per PU every PU is used exactly once; the first `cores` workers sit on
/// distinct cores (no hyper-thread sibling before every core has a worker);
/// `FillSocketFirst` fills a package's cores before touching the next
/// package; `Scatter` spreads the first `packages` workers over all packages.
#[test]
fn mapping_properties_on_synthetic_machines() {
    for packages in 1..=4 {
        for cores in 1..=6 {
            for threads in 1..=3 {
                let t = Topology::synthetic(packages, cores, threads);
                let core_of = |pu: usize| pu % (packages * cores);
                let package_of = |pu: usize| core_of(pu) / cores;
                let n = t.num_pus();
                for pinning in [Pinning::FillSocketFirst, Pinning::Scatter] {
                    let what = format!("{packages}x{cores}x{threads} {pinning:?}");
                    let map = pus(&t, pinning, n);
                    let distinct: HashSet<_> = map.iter().collect();
                    assert_eq!(distinct.len(), n, "{what}: {map:?}");
                    let first_cores: HashSet<_> = map[..packages * cores]
                        .iter()
                        .map(|&p| core_of(p))
                        .collect();
                    assert_eq!(first_cores.len(), packages * cores, "{what}: {map:?}");
                    // Wrapping: worker n + i shares worker i's PU.
                    let wrapped = pus(&t, pinning, 2 * n + 1);
                    assert_eq!(&wrapped[n..2 * n], &map[..], "{what}");
                    assert_eq!(wrapped[2 * n], map[0], "{what}");
                    match pinning {
                        Pinning::FillSocketFirst => {
                            let order: Vec<usize> = map[..packages * cores]
                                .iter()
                                .map(|&p| package_of(p))
                                .collect();
                            assert!(order.windows(2).all(|w| w[0] <= w[1]), "{what}: {map:?}");
                        }
                        Pinning::Scatter => {
                            let spread: HashSet<_> =
                                map[..packages].iter().map(|&p| package_of(p)).collect();
                            assert_eq!(spread.len(), packages, "{what}: {map:?}");
                        }
                        Pinning::None => unreachable!(),
                    }
                }
            }
        }
    }
}

/// Packages and cores of different sizes (as hwloc may report on a machine
/// with PUs outside the process's affinity mask).
#[test]
fn uneven_topology() {
    let t = Topology {
        packages: vec![
            Package {
                cores: vec![Core { pus: vec![0, 10] }, Core { pus: vec![1] }],
            },
            Package {
                cores: vec![
                    Core { pus: vec![5, 15] },
                    Core { pus: vec![6, 16] },
                    Core { pus: vec![7] },
                ],
            },
        ],
        numa_nodes: 2,
        source: TopologySource::Os,
    };
    assert_eq!(
        pus(&t, Pinning::FillSocketFirst, 8),
        [0, 1, 5, 6, 7, 10, 15, 16]
    );
    assert_eq!(pus(&t, Pinning::Scatter, 8), [0, 5, 1, 6, 7, 10, 15, 16]);
    let empty = Topology {
        packages: vec![],
        numa_nodes: 1,
        source: TopologySource::Os,
    };
    assert_eq!(
        topology::worker_pus(&empty, Pinning::Scatter, 2),
        [None, None]
    );
}

/// The affinity of each worker `prefix{i}`, once all `n` have started.
fn worker_affinities(prefix: &str, n: usize) -> Vec<Vec<usize>> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let threads = threads_named(prefix);
        if threads.len() == n {
            let mut by_index = vec![Vec::new(); n];
            for t in threads {
                let i: usize = t.name[prefix.len()..].parse().expect("worker index");
                by_index[i] = parse_cpu_list(&t.cpus_allowed);
            }
            return by_index;
        }
        assert!(Instant::now() < deadline, "{threads:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn pinned_workers_run_on_their_pu() {
    let machine = topology::detect();
    let process: Vec<usize> = parse_cpu_list(
        &std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:").map(str::to_owned))
            .unwrap(),
    );
    eprintln!("machine: {machine}; process may run on {process:?}");
    assert_eq!(
        machine.pus().collect::<HashSet<_>>(),
        process.iter().copied().collect()
    );
    for (k, pinning) in [Pinning::None, Pinning::FillSocketFirst, Pinning::Scatter]
        .into_iter()
        .enumerate()
    {
        // More workers than PUs: the mapping wraps.
        let n = machine.num_pus() + 2;
        let prefix: &'static str = Box::leak(format!("pin{k}-").into_boxed_str());
        let what = format!("{pinning:?} with {n} workers on {machine}");
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
            let expected = topology::worker_pus(&machine, pinning, n);
            let actual = worker_affinities(prefix, n);
            for (i, (want, got)) in expected.iter().zip(&actual).enumerate() {
                match want {
                    Some(pu) => assert_eq!(got, &vec![*pu], "{what}: worker {i}"),
                    None => assert_eq!(got, &process, "{what}: worker {i} (unpinned)"),
                }
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
