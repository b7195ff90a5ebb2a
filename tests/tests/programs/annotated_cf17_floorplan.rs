//! End-to-end checks of `#[task_program]` on the CF'17 suite's `floorplan`
//! (`prescient_benches::annotated::floorplan`): BOTS' branch-and-bound
//! placement search, a task per shape and corner of the next cell, spawned
//! in the shape and corner loops and recursing into the cell after it.
//!
//! * The inputs parse, and the sequential search finds the minimal area each
//!   file records (BOTS' check: 216 for `input.5`; `input.15` and the paper's
//!   `input.20` are left to the release benchmarks, minutes in debug).
//! * The analysis classifies it as nqueens: one context, ρ = 1 (the task
//!   calls `add_cell` back), λ = 1 (the spawn sits in the loops), small
//!   effort → CF'17's trees: `DEF`, capacity 4, 256019 buckets; the
//!   calibrated trees (`PARAMS`): `DEF`, capacity 8 (effort 50539 ≥ 7667:
//!   visible work, DEF/8), 256019 buckets; the input-deep recursion gets the conservative 8 MiB stack.
//! * It runs correctly under its own `PARAMS` on 1, 2 and 8 workers, on the
//!   stack size the analysis aggregated: the same minimal area as the
//!   sequential search and BOTS, on a valid placement.
//!
//! Runs in about a second in the debug profile.

use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::floorplan;
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn the_inputs_parse_with_their_solutions() {
    for (path, cells, solution) in [
        (floorplan::input_5(), 5, 216),
        (floorplan::input_15(), 15, 713),
        (floorplan::input_20(), 20, 896),
    ] {
        let fp = floorplan::read_floorplan(&path).expect("BOTS input");
        assert_eq!(fp.len(), cells, "{}", path.display());
        assert_eq!(fp.solution, Some(solution), "{}", path.display());
        // Each cell is reached once from cell 1 along `next`.
        let (mut id, mut seen) = (1, 0);
        while id != 0 {
            seen += 1;
            id = fp.cells[id].next;
        }
        assert_eq!(seen, cells, "{}", path.display());
    }
    assert!(floorplan::parse_floorplan("2\n1\n1 1\n0 -1\n2\n").is_err());
    assert!(floorplan::parse_floorplan("1\n1\n1 1\n0 -1\n0\n").is_ok());
}

#[test]
fn the_sequential_search_finds_bots_area() {
    let fp = floorplan::read_floorplan(floorplan::test_input()).expect("BOTS input");
    let (best, examined) = floorplan::floorplan_seq(&fp);
    assert_eq!(Some(best.area), fp.solution);
    assert!(best.is_placement_of(&fp), "{best:?}");
    assert!(examined > 0);
    // A tampered solution is caught.
    let mut bad = best.clone();
    bad.area += 1;
    assert!(!bad.is_placement_of(&fp));
}

#[test]
fn floorplan_is_recursive_with_a_spawn_in_a_loop() {
    let a = floorplan::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "add_cell", "{a}");
    assert_eq!(a.sites.len(), 1, "{a}");
    assert_eq!(a.sites[0].kind, SiteKind::ScopeSpawn, "{a}");
    assert!(a.sites[0].in_loop, "{a}");
    assert_eq!(a.sites[0].function, "add_cell", "{a}");
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
    // Calibrated (`PARAMS`): effort 50539 ≥ 7667: visible work, DEF/8 (the
    // analysis sees the placement checks; a full queue is what runs a spawn
    // inline — the sweep: 1.15× floorplan's best under BF/32, 2.16× at
    // capacity 128, 1.03× under DEF/8); buckets as CF'17.
    const P: Params = floorplan::PARAMS;
    assert!(a.effort >= analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealBack);
    assert_eq!(P.queue_capacity, 8, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("floorplan", P, &a);
    assert!(
        a.module.ends_with("annotated::floorplan::tasks"),
        "{}",
        a.module
    );
}

#[test]
fn floorplan_runs_under_its_params() {
    let fp = floorplan::read_floorplan(floorplan::test_input()).expect("BOTS input");
    let (expected, _) = floorplan::floorplan_seq(&fp);
    for workers in WORKERS {
        let rt = analysed_runtime(floorplan::PARAMS, &floorplan::ANALYSIS, workers);
        let (best, examined) = watchdog(&format!("floorplan on {workers}"), LIMIT, || {
            rt.run(|| floorplan::compute_floorplan(&fp))
        });
        assert_eq!(best.area, expected.area, "on {workers} worker(s)");
        assert_eq!(Some(best.area), fp.solution, "BOTS' area");
        assert!(best.is_placement_of(&fp), "on {workers} worker(s)");
        assert!(examined > 0);
    }
}
