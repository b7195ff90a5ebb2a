//! What task stacks cost in memory, behind the `stack-memory` table
//! ([`crate::tables::stack_memory`], `prescient-bench stack-memory`).
//!
//! Two phases, each configuration in a child process of its own (so the RSS
//! it reads is its own):
//!
//! * **suspended**: `N` tasks each recurse a fixed depth (a recursion the
//!   `#[task_program]` analysis bounds) and wait there on an [`Event`]; with
//!   all `N` waiting, the resident set above the baseline, per task, next to
//!   the stack bytes each task used (measured from its frames' addresses);
//! * **after a deep phase**: `N` tasks each go `deep` bytes down, wait there,
//!   are released and finish; once the workers are idle, what the stack pool
//!   still holds, per pooled stack.
//!
//! Configurations:
//!
//! * `default`: [`Params::DEFAULT`] — an 8 MiB reserve per stack, no
//!   commitment: nothing pre-faulted, a stack keeps what it touched;
//! * `analysed`: the [`waiting`] module's `PARAMS` — the analysed estimate
//!   committed (pre-faulted, and what a recycled stack is trimmed back to);
//! * `threads`: the same work on `N` OS threads (std's default 2 MiB stacks),
//!   which stay alive through the measurement, as a thread pool's would.
//!
//! Both Prescient configurations run with a queue capacity that holds every
//! task and the inliner off (every task gets a stack of its own, which is
//! what is measured) and a live-stack cap of `N`.

use prescient::tuning::{Inlining, MAX_QUEUE_CAPACITY};
use prescient::{Event, Params, Runtime};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// The task code the `analysed` configuration runs under its own `PARAMS`.
/// The recursion halves its argument and calls nothing the macro cannot
/// see (what it does at the bottom is in non-recursive functions), so the
/// analysis bounds its depth and commits an estimate.
#[prescient::task_program]
pub mod waiting {
    use prescient::{scope, Event};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// One level per bit of `levels` (it halves: 33 levels of a `u32` at
    /// most), each with a 448-byte local; at the bottom, `arrive`.
    pub fn dive(
        levels: u32,
        top: usize,
        gate: &Event,
        ready: &AtomicUsize,
        used: &AtomicUsize,
    ) -> u64 {
        let pad = [levels as u8; 448];
        if levels == 0 {
            arrive(&pad, top, gate, ready, used);
            return 0;
        }
        dive(levels / 2, top, gate, ready, used) + keep(&pad)
    }

    /// Keeps `pad` in memory (the optimiser would fold it away).
    fn keep(pad: &[u8; 448]) -> u64 {
        u64::from(std::hint::black_box(pad)[3] & 1)
    }

    /// At the bottom: records the stack used below `top`, counts itself in
    /// `ready` and waits for `gate`.
    fn arrive(pad: &[u8; 448], top: usize, gate: &Event, ready: &AtomicUsize, used: &AtomicUsize) {
        let here = std::hint::black_box(pad.as_ptr()) as usize;
        used.fetch_add(top.saturating_sub(here), Ordering::Relaxed);
        ready.fetch_add(1, Ordering::Release);
        gate.wait();
    }

    /// The address of a local of the caller's frame, as a task's (or a
    /// thread's) top.
    #[inline(always)]
    pub fn top_of_task() -> usize {
        let marker = 0u8;
        std::hint::black_box(std::ptr::addr_of!(marker)) as usize
    }

    /// Spawns `tasks` tasks that each [`dive`] `levels` and wait.
    pub fn launch(
        tasks: usize,
        levels: u32,
        gate: &Event,
        ready: &AtomicUsize,
        used: &AtomicUsize,
    ) {
        scope(|s| {
            for _ in 0..tasks {
                s.spawn(|_| {
                    let top = top_of_task();
                    std::hint::black_box(dive(levels, top, gate, ready, used));
                });
            }
        });
    }
}

/// A depth in bytes reached by 256-byte frames, then `at_bottom`.
#[inline(never)]
fn plunge(top: usize, bytes: usize, at_bottom: &dyn Fn()) -> u64 {
    let pad = std::hint::black_box([bytes as u8; 256]);
    let here = std::hint::black_box(std::ptr::addr_of!(pad)) as usize;
    if top.saturating_sub(here) >= bytes {
        at_bottom();
        return 0;
    }
    plunge(top, bytes, at_bottom) + u64::from(pad[1] & 1)
}

/// The configurations, in table order.
pub const CONFIGS: [&str; 3] = ["default", "analysed", "threads"];

/// The phases, in table order.
pub const PHASES: [&str; 2] = ["suspended", "after-deep"];

/// What one child measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Resident bytes before the tasks.
    pub baseline: u64,
    /// Resident bytes while they wait (`suspended`) or once they are done
    /// and the workers idle (`after-deep`).
    pub measured: u64,
    /// Mean stack bytes a task used (`suspended`: measured from its
    /// frames; `after-deep`: the depth it went to).
    pub used_per_task: u64,
    /// The stack commitment of the runtime (0: none; threads: 0).
    pub committed: usize,
}

impl Measurement {
    /// Resident bytes per task above the baseline.
    pub fn per_task(&self, tasks: usize) -> u64 {
        self.measured.saturating_sub(self.baseline) / tasks.max(1) as u64
    }

    /// The line a child prints.
    pub fn line(&self) -> String {
        format!(
            "RESULT baseline={} measured={} used={} committed={}",
            self.baseline, self.measured, self.used_per_task, self.committed
        )
    }

    /// Parses a child's [`line`](Self::line).
    pub fn parse(line: &str) -> Option<Measurement> {
        let rest = line.strip_prefix("RESULT ")?;
        let mut fields = rest.split_whitespace().map(|f| f.split_once('='));
        let mut next = || fields.next()??.1.parse::<u64>().ok();
        Some(Measurement {
            baseline: next()?,
            measured: next()?,
            used_per_task: next()?,
            committed: next()? as usize,
        })
    }
}

/// This process's resident set in bytes (`/proc/self/statm`).
pub fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    // SAFETY: `sysconf` has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
    pages * page
}

/// The kernel's limit on memory mappings per process (`vm.max_map_count`),
/// if readable: each task stack takes two.
pub fn max_map_count() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The parameters of a Prescient configuration for `tasks` tasks.
fn params_of(config: &str) -> Params {
    let base = match config {
        "analysed" => waiting::PARAMS,
        _ => Params::DEFAULT,
    };
    base.with_queue_capacity(MAX_QUEUE_CAPACITY)
        .with_inlining(Inlining::Never)
}

fn runtime(config: &str, tasks: usize, workers: usize) -> Runtime {
    Runtime::builder()
        .params(params_of(config))
        .num_workers(workers)
        .max_live_stacks(tasks.div_ceil(workers) + 64)
        .build()
        .expect("a valid runtime")
}

/// Waits until `ready` reaches `tasks`.
fn wait_until_ready(ready: &AtomicUsize, tasks: usize) {
    while ready.load(Ordering::Acquire) < tasks {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Lets the workers go idle (they trim their pooled stacks before they
/// park), then reads the resident set.
fn settled_resident_bytes() -> u64 {
    std::thread::sleep(Duration::from_millis(500));
    resident_bytes()
}

/// The levels argument of [`waiting::dive`] for the suspended phase: 32
/// levels below the task's first frame.
pub const DIVE_LEVELS: u32 = u32::MAX;

/// Runs one configuration and phase in this process.
///
/// # Errors
/// An unknown configuration or phase, or OS threads that could not start.
pub fn measure(
    config: &str,
    phase: &str,
    tasks: usize,
    workers: usize,
    deep: usize,
) -> Result<Measurement, String> {
    if !CONFIGS.contains(&config) || !PHASES.contains(&phase) {
        return Err(format!("unknown configuration {config} or phase {phase}"));
    }
    if config == "threads" {
        return measure_threads(phase, tasks, deep);
    }
    let rt = Arc::new(runtime(config, tasks, workers));
    // Warm the runtime (its first stacks, the inliner's calibration).
    rt.run(|| prescient::join(|| 1, || 2));
    let committed = rt.params().committed_stack_size;
    let gate = Arc::new(Event::new());
    let ready = Arc::new(AtomicUsize::new(0));
    let used = Arc::new(AtomicUsize::new(0));
    let baseline = resident_bytes();
    let runner = {
        let (rt, gate, ready, used) = (rt.clone(), gate.clone(), ready.clone(), used.clone());
        let phase = phase.to_string();
        std::thread::spawn(move || {
            if phase == "suspended" {
                rt.run(|| waiting::launch(tasks, DIVE_LEVELS, &gate, &ready, &used));
            } else {
                rt.run(|| {
                    prescient::scope(|s| {
                        for _ in 0..tasks {
                            s.spawn(|_| {
                                let top = waiting::top_of_task();
                                std::hint::black_box(plunge(top, deep, &|| {
                                    ready.fetch_add(1, Ordering::Release);
                                    gate.wait();
                                }));
                            });
                        }
                    })
                });
            }
        })
    };
    wait_until_ready(&ready, tasks);
    let measured_while_waiting = resident_bytes();
    gate.set();
    runner
        .join()
        .map_err(|_| "the runtime's thread panicked".to_string())?;
    let (measured, used_per_task) = if phase == "suspended" {
        (
            measured_while_waiting,
            (used.load(Ordering::Relaxed) / tasks.max(1)) as u64,
        )
    } else {
        (settled_resident_bytes(), deep as u64)
    };
    Ok(Measurement {
        baseline,
        measured,
        used_per_task,
        committed,
    })
}

fn measure_threads(phase: &str, tasks: usize, deep: usize) -> Result<Measurement, String> {
    let gate = Arc::new(Barrier::new(tasks + 1));
    let after = Arc::new(Barrier::new(tasks + 1));
    let ready = Arc::new(AtomicUsize::new(0));
    let used = Arc::new(AtomicUsize::new(0));
    let baseline = resident_bytes();
    let deep_phase = phase != "suspended";
    let mut threads = Vec::with_capacity(tasks);
    for i in 0..tasks {
        let (gate, after, ready, used) = (gate.clone(), after.clone(), ready.clone(), used.clone());
        let spawned = std::thread::Builder::new().spawn(move || {
            let top = waiting::top_of_task();
            if deep_phase {
                std::hint::black_box(plunge(top, deep, &|| {
                    ready.fetch_add(1, Ordering::Release);
                }));
                // Back up: alive, as a pool's thread waits for work.
                gate.wait();
            } else {
                // The same frames as a task's dive, waiting on the barrier
                // instead of an event.
                let at_bottom = || {
                    let here = waiting::top_of_task();
                    used.fetch_add(top.saturating_sub(here), Ordering::Relaxed);
                    ready.fetch_add(1, Ordering::Release);
                    gate.wait();
                };
                std::hint::black_box(plunge_levels(DIVE_LEVELS, &at_bottom));
            }
            after.wait();
        });
        match spawned {
            Ok(thread) => threads.push(thread),
            Err(error) => {
                // The child exits with this error, and the threads it
                // started end with it (they wait on barriers that never
                // fill).
                return Err(format!("thread {i} of {tasks} could not start: {error}"));
            }
        }
    }
    wait_until_ready(&ready, tasks);
    let suspended = resident_bytes();
    gate.wait();
    let measured = if phase == "suspended" {
        suspended
    } else {
        settled_resident_bytes()
    };
    after.wait();
    for thread in threads {
        let _ = thread.join();
    }
    let used_per_task = if phase == "suspended" {
        (used.load(Ordering::Relaxed) / tasks.max(1)) as u64
    } else {
        deep as u64
    };
    Ok(Measurement {
        baseline,
        measured,
        used_per_task,
        committed: 0,
    })
}

/// [`waiting::dive`]'s frames on a plain thread: one 448-byte level per bit
/// of `levels`, then `at_bottom`.
#[inline(never)]
fn plunge_levels(levels: u32, at_bottom: &dyn Fn()) -> u64 {
    let pad = std::hint::black_box([levels as u8; 448]);
    if levels == 0 {
        at_bottom();
        return 0;
    }
    plunge_levels(levels / 2, at_bottom) + u64::from(pad[3] & 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measurement_line_round_trips() {
        let m = Measurement {
            baseline: 1,
            measured: 20,
            used_per_task: 3,
            committed: 4,
        };
        assert_eq!(Measurement::parse(&m.line()), Some(m.clone()));
        assert_eq!(m.per_task(2), 9);
        assert_eq!(Measurement::parse("RESULT baseline=1"), None);
    }

    #[test]
    fn each_configuration_measures_a_few_tasks() {
        for config in CONFIGS {
            for phase in PHASES {
                let m = measure(config, phase, 8, 2, 64 << 10).unwrap();
                assert!(m.measured > 0, "{config} {phase}");
                assert!(m.used_per_task > 0, "{config} {phase}");
            }
        }
    }
}
