//! Lazy task creation sees steals: a spawn runs inline only when the
//! spawner's deque really holds `queue_capacity` unstarted tasks. One task
//! spawns coarse tasks in a loop on 16 workers; thieves keep emptying its
//! deque, and the spawner must notice (through the steal count thieves
//! publish) instead of running a long tail of tasks serially because its own
//! count still says "full".

use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_tests::{runtime_with, watchdog};
use std::time::Duration;

const WORKERS: usize = 16;
const TASKS: u64 = 64;
const CAPACITY: usize = 16;

#[test]
fn a_spawning_loop_runs_few_tasks_inline_once_thieves_take_them() {
    for policy in QueuePolicy::ALL {
        let what =
            format!("{policy}: {TASKS} coarse spawns, capacity {CAPACITY}, {WORKERS} workers");
        watchdog(&what, Duration::from_secs(60), || {
            let rt = runtime_with(
                WORKERS,
                Params::DEFAULT
                    .with_queue_policy(policy)
                    .with_queue_capacity(CAPACITY),
            );
            let before = rt.counters();
            rt.run(|| {
                prescient::scope(|s| {
                    for _ in 0..TASKS {
                        // Coarse: long enough for thieves (on any number of
                        // cores) to take what the deque holds meanwhile.
                        s.spawn(|_| std::thread::sleep(Duration::from_millis(2)));
                    }
                })
            });
            let delta = rt.counters().since(&before);
            eprintln!(
                "{what}: inlined {} steals {}",
                delta.inlined_spawns, delta.steals
            );
            // The deque fills at once (pushing takes nanoseconds), so the
            // spawner runs a task inline now and then, while thieves empty
            // the deque; a count that ignored steals would run nearly every
            // task after the first full deque inline (about 48 of 64).
            assert!(
                delta.inlined_spawns <= TASKS / 4,
                "{what}: {} of {TASKS} spawns ran inline ({delta:?})",
                delta.inlined_spawns
            );
            assert!(delta.steals > 0, "{what}: {delta:?}");
        });
    }
}
