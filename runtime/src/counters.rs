//! The scheduler counters: the public snapshot [`Counters`] and the
//! per-worker atomics it is summed from, both generated from one list of
//! fields, so that a new counter is one line here and nowhere else.
//!
//! Each counter has a kind that says how snapshots combine:
//!
//! * `cumulative` — counts events since the runtime was built: summed over
//!   workers, subtracted by [`Counters::since`];
//! * `current` — a level now (stacks mapped): summed over workers, taken
//!   as is by `since`;
//! * `peak` — the most a single worker ever saw: the maximum over workers,
//!   taken as is by `since`.

use std::sync::atomic::{AtomicU64, Ordering};

/// Defines `Counters`, `WorkerCounters` and everything that lists their
/// fields, from one list of `kind name` pairs with their docs.
macro_rules! define_counters {
    ($($(#[doc = $doc:literal])* $kind:ident $name:ident,)*) => {
        /// Scheduler counters, summed over the workers, cumulative since the
        /// runtime was built (except the stack figures, which are current).
        ///
        /// Read the fields, or walk them all by name with [`Counters::iter`];
        /// more counters may come in any release, so build a value from
        /// [`Counters::default`] or [`Counters::try_from_fn`].
        ///
        /// ```
        /// let runtime = prescient::Runtime::builder().num_workers(2).build().unwrap();
        /// let before = runtime.counters();
        /// runtime.run(|| prescient::spawn(|| 6 * 7).join());
        /// let delta = runtime.counters().since(&before);
        /// // The spawn was deferred, or run inline because the deque was full.
        /// assert_eq!(delta.spawns + delta.inlined_spawns, 1);
        /// for (name, value) in delta.iter() {
        ///     println!("{name} = {value}");
        /// }
        /// ```
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Counters {
            $($(#[doc = $doc])* pub $name: u64,)*
        }

        impl Counters {
            /// The counters' names, in declaration order (the field names).
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The difference of two snapshots: cumulative counters are
            /// subtracted (saturating at zero), the current and peak stack
            /// figures are taken from `self`.
            pub fn since(&self, earlier: &Counters) -> Counters {
                Counters {
                    $($name: define_counters!(@since $kind, self.$name, earlier.$name),)*
                }
            }

            /// Every counter as `(name, value)`, in declaration order.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> {
                [$((stringify!($name), self.$name)),*].into_iter()
            }

            /// The value of the counter named `name`, if there is one.
            pub fn get(&self, name: &str) -> Option<u64> {
                self.iter().find(|&(n, _)| n == name).map(|(_, v)| v)
            }

            /// Builds a value by asking `value` for each counter by name, in
            /// declaration order; the first error stops it (e.g. a missing
            /// field when parsing a report).
            pub fn try_from_fn<E>(
                mut value: impl FnMut(&'static str) -> Result<u64, E>,
            ) -> Result<Counters, E> {
                Ok(Counters {
                    $($name: value(stringify!($name))?,)*
                })
            }
        }

        /// One worker's counters. Written only by the owning worker (load +
        /// store, no read-modify-write), read by anyone.
        #[derive(Default)]
        pub(crate) struct WorkerCounters {
            $(pub(crate) $name: AtomicU64,)*
        }

        impl WorkerCounters {
            /// Adds this worker's counters into `total` (a `Relaxed`
            /// snapshot: each value is one the worker wrote, but the values of
            /// different counters need not be from one instant).
            pub(crate) fn add_to(&self, total: &mut Counters) {
                $(define_counters!(@add $kind, total.$name, self.$name.load(Ordering::Relaxed));)*
            }
        }
    };
    (@since cumulative, $now:expr, $earlier:expr) => { $now.saturating_sub($earlier) };
    (@since current, $now:expr, $earlier:expr) => { $now };
    (@since peak, $now:expr, $earlier:expr) => { $now };
    (@add cumulative, $total:expr, $value:expr) => { $total += $value };
    (@add current, $total:expr, $value:expr) => { $total += $value };
    (@add peak, $total:expr, $value:expr) => { $total = $total.max($value) };
}

define_counters! {
    /// Tasks deferred: pushed to a deque, or recorded as latent spawns
    /// (counted once, whether they are published later or not).
    cumulative spawns,
    /// Spawns run inline as plain calls because the deque was full.
    cumulative inlined_spawns,
    /// Jobs a worker took from another worker's deque.
    cumulative steals,
    /// Times a task suspended in a wait (its worker went on with other work).
    cumulative suspensions,
    /// Task stacks mapped now (pooled, running or suspended).
    current live_stacks,
    /// The most tasks suspended at once on one worker.
    peak peak_live_stacks,
    /// Stacks mapped beyond a worker's live-stack cap because nothing else
    /// could progress.
    cumulative stacks_beyond_cap,
    /// Times a pooled stack was trimmed back to its commitment
    /// (`Params::committed_stack_size`) after a task went deeper, or before
    /// its worker parked.
    cumulative stack_trims,
    /// Latent joins whose second half a worker published to its deque: at a
    /// thief's request, or before its task suspended (the other joins ran
    /// both halves without touching the deque). Also counted in `spawns`.
    cumulative published_joins,
    /// Latent spawns a worker published to its deque: at a thief's request,
    /// before its task suspended, or after its job ended without their
    /// owner's wait (the others ran inline at that wait without touching
    /// the deque). Counted in `spawns` when they were recorded.
    cumulative published_spawns,
    /// Times an idle worker parked its thread (after spinning, or straight
    /// away when its last park timed out).
    cumulative parks,
    /// Parks that ended by their timeout with work to do: a wake-up the
    /// pushes missed, repaired by the backstop (`sleep.rs`).
    cumulative missed_wakeups,
    /// Microseconds workers spent parked.
    cumulative parked_micros,
    /// Dataflow new-task requests a worker queued for the DAST manager.
    cumulative dast_new_pushed,
    /// Dataflow new-task requests a worker executed itself (inline).
    cumulative dast_new_inline,
    /// Done-task requests queued for the DAST manager.
    cumulative dast_done_pushed,
    /// Done-task requests executed inline.
    cumulative dast_done_inline,
    /// Delete-task requests queued for the DAST manager.
    cumulative dast_delete_pushed,
    /// Delete-task requests executed inline.
    cumulative dast_delete_inline,
    /// Times a worker's done-task hysteresis bounds doubled (its backlog
    /// drained from above the upper bound to below the lower one).
    cumulative dast_bound_doublings,
    /// Queued requests executed by workers: idle ones draining the queues,
    /// or a producer draining its own full queue.
    cumulative dast_executed_by_workers,
    /// Queued requests executed by the manager thread.
    cumulative dast_executed_by_manager,
}

/// Adds one to an owner-written counter: a load and a store, not a
/// read-modify-write, because only the owning worker writes it.
#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64) {
    add(counter, 1);
}

/// Adds `amount` to an owner-written counter, as [`bump`] adds one.
#[inline(always)]
pub(crate) fn add(counter: &AtomicU64, amount: u64) {
    counter.store(counter.load(Ordering::Relaxed) + amount, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(base: u64) -> Counters {
        Counters::try_from_fn(|name| {
            let position = Counters::NAMES.iter().position(|&n| n == name).unwrap();
            Ok::<u64, ()>(base + position as u64)
        })
        .unwrap()
    }

    #[test]
    fn names_iter_and_get_agree() {
        let c = sample(10);
        let listed: Vec<&str> = c.iter().map(|(n, _)| n).collect();
        assert_eq!(listed, Counters::NAMES);
        for (i, (name, value)) in c.iter().enumerate() {
            assert_eq!(value, 10 + i as u64);
            assert_eq!(c.get(name), Some(value));
        }
        assert_eq!(c.get("no_such_counter"), None);
        assert_eq!(c.spawns, 10);
    }

    #[test]
    fn since_subtracts_cumulative_and_keeps_levels() {
        let before = Counters {
            spawns: 10,
            steals: 5,
            live_stacks: 9,
            peak_live_stacks: 9,
            ..Counters::default()
        };
        let after = Counters {
            spawns: 15,
            steals: 2, // a smaller value saturates instead of wrapping
            live_stacks: 1,
            peak_live_stacks: 4,
            ..before
        };
        let d = after.since(&before);
        assert_eq!((d.spawns, d.steals), (5, 0));
        assert_eq!((d.live_stacks, d.peak_live_stacks), (1, 4));
    }

    #[test]
    fn workers_add_up_by_kind() {
        let one = WorkerCounters::default();
        let two = WorkerCounters::default();
        one.spawns.store(3, Ordering::Relaxed);
        two.spawns.store(4, Ordering::Relaxed);
        one.live_stacks.store(2, Ordering::Relaxed);
        two.live_stacks.store(5, Ordering::Relaxed);
        one.peak_live_stacks.store(7, Ordering::Relaxed);
        two.peak_live_stacks.store(6, Ordering::Relaxed);
        bump(&two.steals);
        let mut total = Counters::default();
        one.add_to(&mut total);
        two.add_to(&mut total);
        assert_eq!(total.spawns, 7);
        assert_eq!(total.live_stacks, 7);
        assert_eq!(total.peak_live_stacks, 7);
        assert_eq!(total.steals, 1);
    }

    #[test]
    fn try_from_fn_stops_at_the_first_error() {
        let mut asked = Vec::new();
        let result = Counters::try_from_fn(|name| {
            asked.push(name);
            if name == "steals" {
                Err(format!("no {name}"))
            } else {
                Ok(1)
            }
        });
        assert_eq!(result, Err("no steals".to_string()));
        assert_eq!(asked, ["spawns", "inlined_spawns", "steals"]);
    }
}
