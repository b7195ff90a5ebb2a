//! How the `task-cost` table times one form in one shape: batches of units
//! with tasks and batches of the same units as plain calls, alternated, so
//! that whatever else the machine does lands on both; the median batch of
//! each, per task; and the runtime's counters over the task batches, which
//! say which path the tasks took.

use prescient::tuning::Counters;
use prescient::Runtime;
use std::time::{Duration, Instant};

use super::shapes::{unit, Form, Shape};

/// How long and how often to time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Timing {
    /// The shortest batch: a batch holds as many units as make its task
    /// form take at least this long, so that the clock's resolution and a
    /// timer interrupt are small against it.
    pub(crate) batch: Duration,
    /// Timed batches of each form (after one untimed batch of each).
    pub(crate) batches: usize,
}

/// What one form in one shape cost, per task.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cost {
    /// Tasks per batch.
    pub(crate) tasks: u64,
    /// The median task batch, in nanoseconds per task.
    pub(crate) task_ns: f64,
    /// The median plain batch, in nanoseconds per task.
    pub(crate) plain_ns: f64,
    /// The runtime's counters over the timed task batches.
    pub(crate) counters: Counters,
    /// Tasks the counters cover (tasks per batch × timed batches).
    pub(crate) counted_tasks: u64,
}

impl Cost {
    /// What a task costs over a plain call, in nanoseconds.
    pub(crate) fn over_call_ns(&self) -> f64 {
        self.task_ns - self.plain_ns
    }

    /// `count` per task of the timed task batches.
    pub(crate) fn per_task(&self, count: u64) -> f64 {
        count as f64 / self.counted_tasks.max(1) as f64
    }
}

/// One batch: `units` units of `form` in `shape`, with tasks or as plain
/// calls; its time and checksum.
fn batch(form: Form, shape: Shape, units: u64, tasked: bool) -> (Duration, u64) {
    // Each unit starts at its own index (far enough apart for a tree's
    // leaves not to overlap), so no two units hash the same numbers.
    let stride = 1u64 << 32;
    let start = Instant::now();
    let mut sum = 0u64;
    for u in 0..units {
        sum = sum.wrapping_add(unit(form, shape, u * stride, tasked));
    }
    (start.elapsed(), sum)
}

/// The median of `times` (sorted in place).
pub(crate) fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// Times `form` in `shape` on the runtime `rt`, from inside it (the caller
/// is in `rt.run`): the units per batch found by doubling until a task
/// batch takes `timing.batch`, one untimed batch of each, then
/// `timing.batches` of each, alternated — plain then tasks, then tasks then
/// plain — so that neither always runs second.
///
/// # Errors
/// A task batch whose checksum differs from the plain batch's.
pub(crate) fn cost(rt: &Runtime, form: Form, shape: Shape, timing: Timing) -> Result<Cost, String> {
    let mut units = 1u64;
    while batch(form, shape, units, true).0 < timing.batch && units < 1 << 24 {
        units *= 2;
    }
    let check = |tasked: u64, plain: u64| {
        if tasked == plain {
            Ok(())
        } else {
            Err(format!(
                "{} {}: the tasks' checksum {tasked:#x} differs from the plain calls' {plain:#x}",
                form.name(),
                shape.name()
            ))
        }
    };
    let (_, tasked) = batch(form, shape, units, true);
    let (_, plain) = batch(form, shape, units, false);
    check(tasked, plain)?;
    let mut task_times = Vec::with_capacity(timing.batches);
    let mut plain_times = Vec::with_capacity(timing.batches);
    let before = rt.counters();
    for b in 0..timing.batches {
        let plain_first = b % 2 == 0;
        for tasked in [!plain_first, plain_first] {
            let (time, sum) = batch(form, shape, units, tasked);
            if tasked {
                check(sum, plain)?;
                task_times.push(time);
            } else {
                plain_times.push(time);
            }
        }
    }
    // Only the task batches create tasks, so the counters over the loop are
    // theirs.
    let counters = rt.counters().since(&before);
    let tasks = units * shape.tasks(form);
    let per_task = |d: Duration| d.as_secs_f64() * 1e9 / tasks as f64;
    Ok(Cost {
        tasks,
        task_ns: per_task(median(&mut task_times)),
        plain_ns: per_task(median(&mut plain_times)),
        counters,
        counted_tasks: tasks * timing.batches as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prescient::Params;

    #[test]
    fn medians() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&mut [ms(5)]), ms(5));
    }

    #[test]
    fn a_cost_counts_every_task() {
        let rt = Runtime::builder()
            .num_workers(1)
            .params(Params::DEFAULT.with_queue_capacity(128))
            .build()
            .unwrap();
        let timing = Timing {
            batch: Duration::from_micros(50),
            batches: 3,
        };
        let cost = rt
            .run(|| cost(&rt, Form::Scope, Shape::Loop, timing))
            .unwrap();
        assert!(cost.tasks >= 8 && cost.tasks.is_multiple_of(8));
        assert_eq!(cost.counted_tasks, 3 * cost.tasks);
        assert!(cost.task_ns > 0.0 && cost.plain_ns > 0.0);
        // At one worker nobody steals, and every task was either deferred,
        // inlined because the deque was full, or inlined by the inliner.
        assert_eq!(cost.counters.steals, 0);
        let taken = cost.per_task(cost.counters.spawns + cost.counters.inlined_spawns);
        assert!(taken <= 1.0, "{taken}");
    }
}
