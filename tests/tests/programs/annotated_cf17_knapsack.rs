//! End-to-end checks of `#[task_program]` on BOTS' `knapsack`
//! (`prescient_benches::annotated::knapsack`): 0/1 knapsack by branch and
//! bound, a join of the two branches (leave the item, take it) at every node,
//! with a shared best-so-far bound.
//!
//! * The references agree: on BOTS' inputs of 12 to 24 items (and on small
//!   random instances) the sequential branch and bound equals the dynamic
//!   program.
//! * The analysis classifies it as fib: one context, ρ = 2 (two calls back
//!   into `knapsack` from task bodies), λ = 0, tiny effort → CF'17's trees:
//!   `DEF`, capacity 4, 256019 buckets; the calibrated trees (`PARAMS`):
//!   `BF`, capacity 32 (effort 6 < 7667: fine or opaque tasks, BF/32), 256019
//!   buckets; the recursion down the
//!   item slice gets the conservative 8 MiB stack.
//! * It runs correctly under its own `PARAMS` on 1, 2 and 8 workers, on the
//!   stack size the analysis aggregated (an overflow would abort this process
//!   with the runtime's overflow message): the best value equals both
//!   references whatever the pruning did.
//!
//! Runs in about a second in the debug profile.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::knapsack::{self, Item};
use prescient_tests::{analysed_runtime, check_aggregation, watchdog, XorShift64};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(120);

/// The BOTS inputs small enough for the debug profile.
fn small_inputs() -> impl Iterator<Item = usize> {
    knapsack::INPUT_SIZES
        .into_iter()
        .filter(|&n| n <= knapsack::TEST_SIZE)
}

/// A random instance of `n` items, sorted by density.
fn random_instance(rng: &mut XorShift64, n: usize) -> knapsack::Instance {
    let mut items: Vec<Item> = (0..n)
        .map(|_| Item {
            value: rng.below(50) as i64,
            weight: 1 + rng.below(30) as i64,
        })
        .collect();
    knapsack::sort_by_density(&mut items);
    knapsack::Instance {
        capacity: rng.below(120) as i64,
        items,
    }
}

#[test]
fn the_references_agree() {
    // The optima of BOTS' inputs (the dynamic program's, which the
    // sequential search reproduces).
    let optima = [(12, 126), (16, 201), (20, 254), (24, 303)];
    for (n, optimum) in optima {
        let inst = knapsack::read_instance(knapsack::input(n)).expect("BOTS input");
        assert_eq!(inst.items.len(), n);
        for pair in inst.items.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(
                a.value * b.weight >= b.value * a.weight,
                "sorted by density"
            );
        }
        assert_eq!(knapsack::knapsack_dp(&inst.items, inst.capacity), optimum);
        assert_eq!(knapsack::knapsack_seq(&inst.items, inst.capacity), optimum);
    }
    let mut rng = XorShift64::new(0x6b6e_6170);
    for _ in 0..200 {
        let n = rng.index(12);
        let inst = random_instance(&mut rng, n);
        assert_eq!(
            knapsack::knapsack_seq(&inst.items, inst.capacity),
            knapsack::knapsack_dp(&inst.items, inst.capacity).max(0),
            "{inst:?}"
        );
    }
    // The file format: count, capacity, then value-weight pairs.
    let inst = knapsack::parse_instance("3 10\n 6 5\n 10 4\n 1 1\n").expect("parses");
    assert_eq!(inst.capacity, 10);
    assert_eq!(
        inst.items[0],
        Item {
            value: 10,
            weight: 4
        }
    );
    assert_eq!(knapsack::knapsack_seq(&inst.items, inst.capacity), 17);
    assert!(knapsack::parse_instance("2 10\n 6 5\n").is_err());
    assert!(knapsack::parse_instance("1 10\n 6 0\n").is_err());
}

#[test]
fn knapsack_is_recursive_with_tiny_tasks() {
    let a = knapsack::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "knapsack", "{a}");
    assert_eq!(a.sites.len(), 1, "one join of the two branches\n{a}");
    assert_eq!(a.sites[0].kind, SiteKind::Join, "{a}");
    assert!(!a.sites[0].in_loop, "{a}");
    assert_eq!(a.sites[0].function, "knapsack", "{a}");
    assert_eq!((a.rho, a.lambda), (2, 0), "two calls back, no loop\n{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "tiny effort\n{a}"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 2 <= 5, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 4);
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 6 < 7667: fine or opaque tasks, BF/32;
    // buckets as CF'17.
    const P: Params = knapsack::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // `knapsack(rest, ..)`: an unbounded recursion depth, the conservative size.
    assert!(a.stack_estimate >= 64 * JOIN_FRAME_BYTES as u64, "{a}");
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("knapsack", P, &a);
    assert!(
        a.module.ends_with("annotated::knapsack::tasks"),
        "{}",
        a.module
    );
}

#[test]
fn knapsack_runs_under_its_params() {
    let mut rng = XorShift64::new(0x6b6e_6171);
    let randoms: Vec<knapsack::Instance> = (0..20).map(|_| random_instance(&mut rng, 16)).collect();
    for workers in WORKERS {
        let rt = analysed_runtime(knapsack::PARAMS, &knapsack::ANALYSIS, workers);
        for n in small_inputs() {
            let inst = knapsack::read_instance(knapsack::input(n)).expect("BOTS input");
            let expected = knapsack::knapsack_dp(&inst.items, inst.capacity);
            let got = watchdog(&format!("knapsack-{n:03} on {workers}"), LIMIT, || {
                rt.run(|| knapsack::knapsack_main(&inst.items, inst.capacity))
            });
            assert_eq!(got, expected, "knapsack-{n:03} on {workers} worker(s)");
            assert_eq!(got, knapsack::knapsack_seq(&inst.items, inst.capacity));
        }
        for inst in &randoms {
            let expected = knapsack::knapsack_dp(&inst.items, inst.capacity);
            let got = watchdog(&format!("random knapsack on {workers}"), LIMIT, || {
                rt.run(|| knapsack::knapsack_main(&inst.items, inst.capacity))
            });
            assert_eq!(got, expected, "{inst:?} on {workers} worker(s)");
        }
    }
}
