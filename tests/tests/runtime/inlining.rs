//! Adaptive task inlining per spawn site: what the inliner counts, how it
//! decides, that its decisions can be overturned, that it never removes all
//! parallelism, and that panics and results pass through inlined sites.
//! Nothing here asserts on time; decisions are checked where the sampled
//! durations differ by orders of magnitude.

use prescient::tuning::{Inlining, ParamsError, SiteReport};
use prescient::{Params, Runtime};

/// The largest `upper` of `Inlining::Baseline`, 2^16 spawn overheads.
const MAX_INLINING_THRESHOLD: u32 = 1 << 16;
use prescient_tests::{fib_seq, runtime_with, watchdog};
use std::hint::black_box;
use std::time::Duration;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(|| fib(black_box(n - 1)), || fib(black_box(n - 2)));
    a + b
}

/// Busy work of about `iterations` nanoseconds or more.
fn spin(iterations: u64) -> u64 {
    let mut x = iterations;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

fn runtime(workers: usize, inlining: Inlining) -> Runtime {
    runtime_with(workers, Params::DEFAULT.with_inlining(inlining))
}

/// The report's entry for the first site of this file that `wanted` picks.
fn site_where(runtime: &Runtime, wanted: impl Fn(&SiteReport) -> bool) -> SiteReport {
    let report = runtime.inlining_report();
    report
        .sites
        .iter()
        .find(|site| site.file.ends_with("inlining.rs") && wanted(site))
        .cloned()
        .unwrap_or_else(|| panic!("no such site in\n{report}"))
}

/// The `join` site of `fib`: the only site a test runs many times from one
/// function with no other site.
fn fib_site(runtime: &Runtime) -> SiteReport {
    site_where(runtime, |site| {
        site.function.is_none() && site.executions > 100
    })
}

#[test]
fn every_execution_of_a_site_is_counted() {
    for policy in [Inlining::Adaptive, Inlining::BASELINE, Inlining::fixed(4)] {
        for workers in [1, 3] {
            let rt = runtime(workers, policy);
            assert_eq!(rt.run(|| fib(20)), 6765);
            let site = fib_site(&rt);
            // fib(20) makes fib(21) - 1 joins.
            assert_eq!(
                site.executions, 10_945,
                "{policy}, {workers} workers: {site:?}"
            );
            assert!(site.inlined <= site.executions);
            assert!(site.samples > 0, "{site:?}");
            assert!(site.mean_sampled_ns.is_some() && site.typical_ns.is_some());
            assert_eq!(rt.run(|| fib(20)), 6765);
            assert_eq!(fib_site(&rt).executions, 2 * 10_945);
        }
    }
}

#[test]
fn never_counts_nothing_and_defers_as_before() {
    let rt = runtime(1, Inlining::Never);
    let before = rt.counters();
    assert_eq!(rt.run(|| fib(18)), 2584);
    assert!(rt.inlining_report().sites.is_empty());
    // Lazy task creation as without an inliner: joins below the latent
    // limit are counted as inlined spawns by the scheduler.
    assert!(rt.counters().since(&before).inlined_spawns > 0);
}

#[test]
fn a_fine_grained_recursion_is_inlined() {
    let rt = runtime(1, Inlining::Adaptive);
    for _ in 0..3 {
        assert_eq!(rt.run(|| fib(22)), fib_seq(22));
    }
    let site = fib_site(&rt);
    assert!(site.inlining, "{site:?}");
    assert!(site.inlined_fraction() > 0.9, "{site:?}");
}

#[test]
fn large_tasks_stay_spawned() {
    for policy in [Inlining::Adaptive, Inlining::BASELINE] {
        let rt = runtime(2, policy);
        let total = rt.run(|| {
            let handles: Vec<_> = (0..40)
                .map(|i| prescient::spawn(move || spin(200_000 + i)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join())
                .fold(0u64, u64::wrapping_add)
        });
        assert_eq!(
            total,
            (0..40)
                .map(|i| spin(200_000 + i))
                .fold(0, u64::wrapping_add)
        );
        let site = site_where(&rt, |site| site.executions == 40);
        assert_eq!(site.executions, 40);
        assert!(!site.inlining, "{policy}: {site:?}");
        assert_eq!(site.inlined, 0, "{policy}: {site:?}");
    }
}

#[test]
fn tiny_spawned_tasks_are_inlined_and_still_correct() {
    let rt = runtime(2, Inlining::Adaptive);
    let sum = rt.run(|| {
        let handles: Vec<_> = (0..5000u64)
            .map(|i| prescient::spawn(move || i * 2))
            .collect();
        handles.into_iter().map(|h| h.join()).sum::<u64>()
    });
    assert_eq!(sum, 4999 * 5000);
    let site = site_where(&rt, |site| site.executions == 5000);
    assert_eq!(site.executions, 5000);
    assert!(site.inlined > 0, "{site:?}");
}

#[prescient::task_program]
mod analysed {
    use prescient::{join, spawn};

    /// A site whose static effort is tiny: starts inlined.
    pub fn pairs(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (a, b) = join(|| n, || n + 1);
        a + b + pairs(n - 1)
    }

    /// A site whose static effort is tiny but whose task is not: the call
    /// goes out of the module, which the analyzer cannot see into.
    pub fn hidden(work: u64) -> u64 {
        spawn(move || super::spin(work)).join()
    }
}

#[prescient::task_program]
mod scoped {
    use prescient::{scope, TaskGroup};

    /// Scope and group spawns of tiny tasks: sites with a static effort.
    pub fn count(n: u64) -> u64 {
        let total = std::sync::atomic::AtomicU64::new(0);
        scope(|s| {
            for i in 0..n {
                let total = &total;
                s.spawn(move |_| {
                    total.fetch_add(i, std::sync::atomic::Ordering::Relaxed);
                });
            }
        });
        let group = TaskGroup::new();
        for _ in 0..n {
            group.spawn(|| {});
        }
        group.wait();
        total.into_inner()
    }
}

#[test]
fn scope_and_group_spawns_of_analysed_code_reach_the_inliner() {
    let rt = runtime(2, Inlining::Adaptive);
    assert_eq!(rt.run(|| scoped::count(100)), 4950);
    let report = rt.inlining_report();
    let sites: Vec<_> = report
        .sites
        .iter()
        .filter(|site| site.function == Some("count"))
        .collect();
    assert_eq!(sites.len(), 2, "{report}");
    for site in sites {
        assert_eq!(site.executions, 100, "{report}");
        assert!(site.static_effort.is_some(), "{report}");
    }
}

#[test]
fn a_site_with_tiny_static_effort_starts_inlined() {
    let rt = runtime(1, Inlining::Adaptive);
    // Fewer executions than one window: the seed is all there is.
    assert_eq!(rt.run(|| analysed::pairs(3)), 3 + 4 + 2 + 3 + 1 + 2);
    let report = rt.inlining_report();
    let site = site_where(&rt, |site| site.function == Some("pairs"));
    assert!(site.static_effort.is_some());
    assert!(site.inlining, "{report}");
    assert_eq!(site.executions, 3);
    // Every execution follows the seed, the first one included.
    assert_eq!(site.inlined, 3, "{report}");
}

#[test]
fn measurements_overturn_a_tiny_static_effort() {
    let rt = runtime(1, Inlining::Adaptive);
    let hidden = || site_where(&rt, |site| site.function == Some("hidden"));
    rt.run(|| analysed::hidden(10));
    assert!(hidden().inlining, "seeded inline");
    for _ in 0..40 {
        rt.run(|| analysed::hidden(300_000));
    }
    let site = hidden();
    assert!(!site.inlining, "{site:?}");
    assert!(site.mode_changes >= 1, "{site:?}");
}

#[test]
fn inlining_never_removes_all_parallelism() {
    // An inlined fine-grained recursion on four workers: hungry thieves
    // still get work through the hunger checks (steals happen), and the
    // result is right.
    watchdog("parallelism", Duration::from_secs(120), || {
        let rt = runtime(4, Inlining::Adaptive);
        let before = rt.counters();
        for _ in 0..3 {
            assert_eq!(rt.run(|| fib(27)), fib_seq(27));
        }
        let site = fib_site(&rt);
        assert!(site.inlined_fraction() > 0.5, "{site:?}");
        assert!(rt.counters().since(&before).steals > 0, "{site:?}");
    });
}

#[test]
fn panics_pass_through_inlined_sites() {
    let rt = runtime(2, Inlining::Adaptive);
    for _ in 0..3 {
        assert_eq!(rt.run(|| fib(18)), 2584);
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.run(|| prescient::join(|| fib(15), || -> u64 { panic!("boom in b") }))
    }));
    let payload = result.expect_err("the panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom in b"));
    assert_eq!(rt.run(|| fib(18)), 2584, "runtime still usable");
}

#[test]
fn runtimes_keep_their_own_decisions() {
    let never = runtime(1, Inlining::Never);
    let adaptive = runtime(1, Inlining::Adaptive);
    assert_eq!(adaptive.run(|| fib(16)), 987);
    assert_eq!(never.run(|| fib(16)), 987);
    assert!(never.inlining_report().sites.is_empty());
    assert_eq!(fib_site(&adaptive).executions, 1596);
    let report = adaptive.inlining_report();
    assert!(report.spawn_overhead_ns >= 1.0 && report.clock_read_ns > 0.0);
    assert!(report.to_string().contains("executions"));
}

#[test]
fn oversubscribed_mixed_sites_stay_correct() {
    watchdog("oversubscribed", Duration::from_secs(180), || {
        for policy in [Inlining::Adaptive, Inlining::BASELINE, Inlining::fixed(1)] {
            let rt = runtime(16, policy);
            for round in 0..5u64 {
                let got = rt.run(|| {
                    let handles: Vec<_> = (0..200u64)
                        .map(|i| prescient::spawn(move || fib(10 + (i + round) % 8)))
                        .collect();
                    let big = prescient::spawn(move || spin(50_000));
                    let sum: u64 = handles.into_iter().map(|h| h.join()).sum();
                    black_box(big.join());
                    sum
                });
                let want: u64 = (0..200u64).map(|i| fib_seq(10 + (i + round) % 8)).sum();
                assert_eq!(got, want, "{policy}, round {round}");
            }
        }
    });
}

#[test]
fn invalid_inlining_params_are_errors() {
    let p = Params::DEFAULT;
    let baseline = |count, lower, upper| Inlining::Baseline {
        count,
        lower,
        upper,
    };
    assert_eq!(
        p.with_inlining(baseline(0, 1, 2)).validate(),
        Err(ParamsError::ZeroInliningCount)
    );
    assert_eq!(
        p.with_inlining(baseline(5, 3, 2)).validate(),
        Err(ParamsError::InliningBandInverted(3))
    );
    assert_eq!(
        p.with_inlining(baseline(5, 1, MAX_INLINING_THRESHOLD + 1))
            .validate(),
        Err(ParamsError::InliningThresholdTooLarge(
            MAX_INLINING_THRESHOLD + 1
        ))
    );
    let Err(error) = Runtime::builder()
        .params(p.with_inlining(baseline(5, 3, 2)))
        .build()
    else {
        panic!("an invalid band is refused");
    };
    assert!(error.to_string().contains("lower <= upper"), "{error}");
    assert_eq!(p.with_inlining(baseline(1, 0, 0)).validate(), Ok(()));
}

#[test]
fn policy_names_round_trip() {
    for policy in [
        Inlining::Never,
        Inlining::Adaptive,
        Inlining::BASELINE,
        Inlining::fixed(64),
        Inlining::Baseline {
            count: 3,
            lower: 2,
            upper: 9,
        },
    ] {
        assert_eq!(Inlining::from_name(&policy.short_name()), Some(policy));
    }
    assert_eq!(Inlining::from_name("sometimes"), None);
    assert_eq!(Inlining::from_name("fixed-x"), None);
    assert_eq!(Params::DEFAULT.inlining, Inlining::Adaptive);
}
