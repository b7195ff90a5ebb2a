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
//!
//! And **committed vs used** per annotated program ([`deepest_stack_use`]):
//! each program of [`crate::annotated::PROGRAMS`] (and [`waiting`]) runs
//! under its own `PARAMS` with the commitment set to 0 — nothing
//! pre-faulted, nothing trimmed, so every task stack keeps exactly the pages
//! its tasks touched — and the deepest task stack's resident bytes (read
//! per mapping from `/proc/self/smaps`) are set against what `PARAMS` would
//! commit in every stack.

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

    /// One level per bit of `levels` (it halves: 17 levels of a `u16` at
    /// most, of which the analysis charges 16), each with a 1 KiB local; at
    /// the bottom, `arrive`.
    pub fn dive(
        levels: u16,
        top: usize,
        gate: &Event,
        ready: &AtomicUsize,
        used: &AtomicUsize,
    ) -> u64 {
        let pad = [levels as u8; 1024];
        if levels == 0 {
            arrive(&pad, top, gate, ready, used);
            return 0;
        }
        dive(levels / 2, top, gate, ready, used) + keep(&pad)
    }

    /// Keeps `pad` in memory (the optimiser would fold it away).
    fn keep(pad: &[u8; 1024]) -> u64 {
        u64::from(std::hint::black_box(pad)[3] & 1)
    }

    /// At the bottom: records the stack used below `top`, counts itself in
    /// `ready` and waits for `gate`.
    fn arrive(pad: &[u8; 1024], top: usize, gate: &Event, ready: &AtomicUsize, used: &AtomicUsize) {
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
        levels: u16,
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

/// The levels argument of [`waiting::dive`] for the suspended phase: 16
/// levels below the task's first frame.
pub const DIVE_LEVELS: u16 = u16::MAX;

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

/// [`waiting::dive`]'s frames on a plain thread: one 1 KiB level per bit of
/// `levels`, then `at_bottom`.
#[inline(never)]
fn plunge_levels(levels: u16, at_bottom: &dyn Fn()) -> u64 {
    let pad = std::hint::black_box([levels as u8; 1024]);
    if levels == 0 {
        at_bottom();
        return 0;
    }
    plunge_levels(levels / 2, at_bottom) + u64::from(pad[3] & 1)
}

/// How deep the task stacks of one run went, next to what the analysis
/// commits per stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackUse {
    /// Task stacks the run mapped.
    pub stacks: usize,
    /// Resident bytes of the deepest of them: the most any task stack
    /// touched (page granular), the runtime's own frames on it included.
    pub deepest: u64,
    /// What the program's parameters commit (pre-fault) in every task
    /// stack: [`effective_commitment`] of them.
    pub committed: usize,
}

impl StackUse {
    /// `committed / deepest` (0 when nothing is committed).
    pub fn ratio(&self) -> f64 {
        self.committed as f64 / self.deepest.max(1) as f64
    }

    /// The line a child prints.
    pub fn line(&self) -> String {
        format!(
            "STACKUSE stacks={} deepest={} committed={}",
            self.stacks, self.deepest, self.committed
        )
    }

    /// Parses a child's [`line`](Self::line).
    pub fn parse(line: &str) -> Option<StackUse> {
        let rest = line.strip_prefix("STACKUSE ")?;
        let mut fields = rest.split_whitespace().map(|f| f.split_once('='));
        let mut next = || fields.next()??.1.parse::<u64>().ok();
        Some(StackUse {
            stacks: next()? as usize,
            deepest: next()?,
            committed: next()? as usize,
        })
    }
}

/// What a runtime under `params` commits in each task stack: nothing for a
/// commitment of 0, else the commitment within `MIN_STACK_SIZE ..=` the
/// reserve (what the runtime maps; `Params::committed_stack_size` says
/// the same).
pub fn effective_commitment(params: &Params) -> usize {
    match params.committed_stack_size {
        0 => 0,
        c => c
            .max(prescient::tuning::MIN_STACK_SIZE)
            .min(params.stack_size),
    }
}

/// The task stacks this process maps for a reserve of `reserve` bytes:
/// each one's start address and resident bytes, from `/proc/self/smaps`
/// (empty where it cannot be read). A task stack is a private, anonymous,
/// read-write mapping made with `MAP_NORESERVE` (VmFlags `nr`) of the
/// reserve plus the runtime's headroom (at most 1 MiB more): glibc's thread
/// stacks and the allocator's mappings are not `MAP_NORESERVE`.
pub fn task_stack_mappings(reserve: usize) -> Vec<(usize, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut out = Vec::new();
    // The mapping being read: start, whether it may be a task stack, Rss.
    let mut current: Option<(usize, bool, u64)> = None;
    let finish = |m: Option<(usize, bool, u64)>, flags: &str, out: &mut Vec<(usize, u64)>| {
        if let Some((start, candidate, rss)) = m {
            if candidate && flags.split_whitespace().any(|f| f == "nr") {
                out.push((start, rss));
            }
        }
    };
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            continue;
        };
        if let Some((start, end)) = first.split_once('-') {
            // A mapping's head: `start-end perms offset dev inode [path]`.
            let (Ok(start), Ok(end)) = (
                usize::from_str_radix(start, 16),
                usize::from_str_radix(end, 16),
            ) else {
                continue;
            };
            let perms = words.next().unwrap_or("");
            let anonymous = words.nth(3).is_none();
            let size = end - start;
            let candidate = perms == "rw-p"
                && anonymous
                && size >= reserve
                && size <= reserve.saturating_add(1 << 20);
            current = Some((start, candidate, 0));
        } else if first == "Rss:" {
            if let (Some(m), Some(kb)) = (current.as_mut(), words.next()) {
                m.2 = kb.parse::<u64>().unwrap_or(0) * 1024;
            }
        } else if first == "VmFlags:" {
            finish(current.take(), line, &mut out);
        }
    }
    out
}

/// Runs `work` on a runtime of `workers` workers under `params` with the
/// commitment set to 0 (nothing pre-faulted, nothing trimmed: each task
/// stack keeps what its tasks touched) and measures the deepest task
/// stack: the most resident bytes of any stack this runtime mapped, read
/// before the runtime is dropped. Run it in a process of its own (as the
/// table's children do): another runtime made at the same time with the
/// same reserve would be measured too.
///
/// # Errors
/// A runtime that cannot be built, `work`'s error, or no task stack seen
/// (`/proc/self/smaps` unreadable: not Linux).
pub fn deepest_stack_use(
    params: Params,
    workers: usize,
    work: impl FnOnce(&Runtime) -> Result<(), String>,
) -> Result<StackUse, String> {
    let committed = effective_commitment(&params);
    let reserve = params.stack_size;
    let before: Vec<usize> = task_stack_mappings(reserve)
        .into_iter()
        .map(|(start, _)| start)
        .collect();
    let rt = Runtime::builder()
        .params(params.with_committed_stack_size(0))
        .num_workers(workers)
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    work(&rt)?;
    let stacks: Vec<u64> = task_stack_mappings(reserve)
        .into_iter()
        .filter(|(start, _)| !before.contains(start))
        .map(|(_, rss)| rss)
        .collect();
    drop(rt);
    let deepest = stacks
        .iter()
        .copied()
        .max()
        .ok_or("no task stack found in /proc/self/smaps")?;
    Ok(StackUse {
        stacks: stacks.len(),
        deepest,
        committed,
    })
}

/// The programs of the committed-vs-used rows, in table order: every
/// annotated program of the crate, then this table's own [`waiting`].
pub fn stack_use_programs() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = crate::annotated::PROGRAMS.iter().map(|p| p.name).collect();
    names.push("waiting");
    names
}

/// [`deepest_stack_use`] of the program `name` ([`stack_use_programs`]) at
/// `size` on `workers` workers; also returns its input, in words.
///
/// # Errors
/// An unknown program, an input that cannot be prepared, a wrong result.
pub fn program_stack_use(
    name: &str,
    size: crate::cf17::Size,
    workers: usize,
) -> Result<(String, StackUse), String> {
    if name == "waiting" {
        // The suspended phase's program, with every task released at once.
        let gate = Event::new();
        gate.set();
        let (ready, used) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let tasks = 4 * workers;
        let stack_use = deepest_stack_use(waiting::PARAMS, workers, |rt| {
            rt.run(|| waiting::launch(tasks, DIVE_LEVELS, &gate, &ready, &used));
            Ok(())
        })?;
        return Ok((format!("{tasks} tasks"), stack_use));
    }
    let program = crate::annotated::find(name)?;
    let workload = crate::cf17::workloads::prepare(name, size)?;
    let stack_use = deepest_stack_use(program.params, workers, |rt| {
        rt.run(|| (workload.prescient)()).1
    })?;
    Ok((workload.input.clone(), stack_use))
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
    fn a_stack_use_line_round_trips() {
        let u = StackUse {
            stacks: 3,
            deepest: 20_480,
            committed: 16_384,
        };
        assert_eq!(StackUse::parse(&u.line()), Some(u));
        assert_eq!(StackUse::parse("STACKUSE stacks=1"), None);
        assert!((u.ratio() - 0.8).abs() < 1e-9);
    }

    #[test]
    fn the_deepest_stack_is_what_a_task_touched() {
        // One task goes about 200 KiB down: its stack holds at least that
        // much, however the rest ran (this test's process may hold other
        // runtimes' stacks; only this runtime's new ones are read, and
        // another test's new ones are no deeper than 1 MiB here).
        let deep = 200 << 10;
        let params = Params::DEFAULT.with_stack_size(1 << 25);
        let u = deepest_stack_use(params, 2, |rt| {
            rt.run(|| {
                let top = waiting::top_of_task();
                std::hint::black_box(plunge(top, deep, &|| ()));
            });
            Ok(())
        })
        .unwrap();
        assert!(u.stacks >= 1, "{u:?}");
        assert!(u.deepest >= deep as u64, "{u:?}");
        assert!(u.deepest < (deep as u64) + (1 << 20), "{u:?}");
        assert_eq!(u.committed, 0);
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
