//! End-to-end checks of `#[task_program]` on the CF'17 suite's `health`
//! (`prescient_benches::annotated::health`): BOTS' Colombian health-care
//! simulation, a task per child village, spawned in the loop over the
//! children and recursing down the village tree.
//!
//! * The inputs parse; the generator is BOTS' (`my_rand`); the tree has
//!   BOTS' villages, staff and people.
//! * The sequential simulation of `test.input` gives every statistic BOTS'
//!   file records (BOTS' `check_village`).
//! * The analysis classifies it as nqueens: one context, ρ = 1, λ = 1,
//!   small effort → CF'17's trees: `DEF`, capacity 4, 256019 buckets; the
//!   calibrated trees (`PARAMS`): `BF`, capacity 32 (effort 2 < 7667: fine or
//!   opaque tasks, BF/32), 256019 buckets; the conservative 8 MiB stack.
//! * It runs under its own `PARAMS` on 1, 2 and 8 workers, on the analysed
//!   stack size, and leaves the village tree exactly as the sequential
//!   simulation does (every patient of every list, in order).
//!
//! Runs in a few seconds in the debug profile.

use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::health;
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn the_inputs_parse_and_build_bots_trees() {
    for (path, levels, cities, villages) in [
        (health::test(), 3, 18, 343),
        (health::small(), 4, 18, 6175),
        (health::medium(), 4, 36, 47_989),
    ] {
        let sim = health::read_simulation(&path).expect("BOTS input");
        assert_eq!(
            (sim.level, sim.cities),
            (levels, cities),
            "{}",
            path.display()
        );
        assert_eq!(sim.expected.hospitals, villages, "{}", path.display());
        assert_eq!(sim.time, 365, "{}", path.display());
    }
    let sim = health::read_simulation(health::test()).expect("BOTS input");
    let top = health::allocate_village(&sim);
    let start = health::get_results(&top);
    assert_eq!(start.hospitals, sim.expected.hospitals);
    assert_eq!(start.personnel, sim.expected.personnel);
    assert_eq!(start.population, sim.expected.population);
    assert_eq!(start.village, start.population, "everyone at home");
    assert_eq!(top.children.len(), 18);
    assert_eq!(top.children[0].id, 1, "BOTS' list order");
    // BOTS allocates the last child first: it holds the lower patient ids.
    assert!(top.children[17].population[0].id < top.children[0].population[0].id);
    assert!(health::parse_simulation("3 18 10").is_err());
}

#[test]
fn my_rand_is_bots_generator() {
    // The first draws from a patient seed of the test input's root's first
    // child (vid 1: 1 × (127773 + 23)) stay in [0, 1) and advance the seed.
    let mut seed: i32 = 127_796;
    let mut previous = seed;
    for _ in 0..1000 {
        let r = health::my_rand(&mut seed);
        assert!((0.0..1.0).contains(&r), "{r}");
        assert_ne!(seed, previous);
        previous = seed;
    }
}

#[test]
fn the_sequential_simulation_gives_bots_statistics() {
    let sim = health::read_simulation(health::test_input()).expect("BOTS input");
    let mut top = health::allocate_village(&sim);
    health::sim_main_seq(&mut top, &sim);
    let result = health::get_results(&top);
    assert!(
        health::matches_expected(&sim, &result),
        "{result:?} avg stay {} vs {:?} {}",
        result.avg_stay(),
        sim.expected,
        sim.expected_avg_stay
    );
}

#[test]
fn health_is_recursive_with_a_spawn_in_a_loop() {
    let a = health::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "sim_village", "{a}");
    assert_eq!(a.sites.len(), 1, "{a}");
    assert_eq!(a.sites[0].kind, SiteKind::ScopeSpawn, "{a}");
    assert!(a.sites[0].in_loop, "{a}");
    assert_eq!(a.sites[0].function, "sim_village", "{a}");
    assert_eq!((a.rho, a.lambda), (1, 1), "{a}");
    assert!(a.effort < analysis::cf17::COARSE_EFFORT_MIN, "{a}");
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 1 <= 5, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 4, "ρ > 0: not the loop branch");
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 2 < 7667: fine or opaque tasks, BF/32 (the
    // task is the recursive call, which the analysis does not count into; the
    // sweep: 1.94× health's best under BF/4, 1.00× under BF/32); buckets as
    // CF'17.
    const P: Params = health::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("health", P, &a);
    assert!(
        a.module.ends_with("annotated::health::tasks"),
        "{}",
        a.module
    );
}

#[test]
fn health_runs_under_its_params() {
    let sim = health::read_simulation(health::test_input()).expect("BOTS input");
    let mut expected = health::allocate_village(&sim);
    health::sim_main_seq(&mut expected, &sim);
    for workers in WORKERS {
        let rt = analysed_runtime(health::PARAMS, &health::ANALYSIS, workers);
        let mut top = health::allocate_village(&sim);
        watchdog(&format!("health on {workers}"), LIMIT, || {
            rt.run(|| health::sim_main(&mut top, &sim))
        });
        assert!(top == expected, "the tree differs on {workers} worker(s)");
        assert!(health::matches_expected(&sim, &health::get_results(&top)));
    }
}
