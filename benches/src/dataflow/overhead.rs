//! Runtime overhead of dataflow tasks (Gautier et al., *On the impact of
//! OpenMP task granularity*):
//!
//! * the cost of an empty task, **dependent** (all tasks `inout` one handle:
//!   a chain, each released by its predecessor) versus **independent** (no
//!   accesses: no graph at all). Both are real deferred tasks: run them in a
//!   runtime with [`DEFERRING`](super::DEFERRING) parameters, whose deque
//!   never fills up, so no task runs inline at submission (the caller can
//!   check `Counters::inlined_spawns`);
//! * the **bucket sweep**: a fine-grained workload with many live handles,
//!   where the dependency table's bucket count (`Params::dependency_buckets`)
//!   sets the length of the chains every `new task` walks.

use super::two_wave::chain;

/// `tasks` empty tasks that all `inout` one handle (a dependency chain).
/// Returns the number of tasks that ran.
pub fn empty_dependent(tasks: usize) -> u64 {
    prescient::dataflow(|df| {
        let count = df.data(0u64);
        for _ in 0..tasks {
            df.task(count.inout(), |c: &mut u64| *c += 1);
        }
        count.into_inner()
    })
}

/// `tasks` empty tasks without accesses. Returns the number that ran.
pub fn empty_independent(tasks: usize) -> u64 {
    let count = std::sync::atomic::AtomicU64::new(0);
    prescient::dataflow(|df| {
        for _ in 0..tasks {
            let count = &count;
            df.task((), move |()| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    count.into_inner()
}

/// The bucket counts the sweep explores (CF'17 / Gautier et al.).
pub const BUCKETS: [usize; 4] = [97, 1021, 64_567, 256_019];

/// The bucket-sweep workload: `handles` values (one tile each), `rounds`
/// rounds of one `inout` task per value, each `work` chain iterations. All
/// tasks are submitted before the body waits, so with deferred tasks the
/// region table holds up to `handles` live regions while later rounds are
/// submitted.
pub fn many_handles(handles: usize, rounds: usize, work: usize) -> Vec<f64> {
    let mut values: Vec<f64> = (0..handles).map(|i| i as f64).collect();
    prescient::dataflow(|df| {
        let tiles = df.tiles(&mut values, 1);
        for _ in 0..rounds {
            for h in 0..handles {
                df.task(tiles.inout(h), move |v: &mut [f64]| {
                    v[0] = chain(v[0], work)
                });
            }
        }
    });
    values
}

/// The sequential reference of [`many_handles`].
pub fn many_handles_sequential(handles: usize, rounds: usize, work: usize) -> Vec<f64> {
    let mut values: Vec<f64> = (0..handles).map(|i| i as f64).collect();
    for _ in 0..rounds {
        for v in values.iter_mut() {
            *v = chain(*v, work);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_tasks_run_deferred_and_the_sweep_matches_sequential() {
        let runtime = crate::dataflow::runtime(2, crate::dataflow::DEFERRING);
        let before = runtime.counters();
        assert_eq!(runtime.run(|| empty_dependent(500)), 500);
        assert_eq!(runtime.run(|| empty_independent(500)), 500);
        let delta = runtime.counters().since(&before);
        assert_eq!(delta.inlined_spawns, 0, "{delta:?}");
        assert!(delta.spawns >= 1000, "{delta:?}");
        for buckets in [1, 97] {
            let runtime = crate::dataflow::runtime(
                2,
                crate::dataflow::DEFERRING.with_dependency_buckets(buckets),
            );
            let result = runtime.run(|| many_handles(300, 3, 10));
            crate::dataflow::compare_exact(
                &result,
                &many_handles_sequential(300, 3, 10),
                "many_handles",
            )
            .unwrap();
        }
    }
}
