//! Progress of external operations: completion sources outside the runtime
//! (MPI requests, `crate::mpi`) that only make progress, or only report
//! completion, when some thread polls them. The workers poll them — idle
//! workers in their idle loop and, at a bounded rate, busy ones between
//! jobs — so that a task waiting for such an operation can suspend like any
//! waiting task, and no thread is given to waiting.
//!
//! # The contract
//!
//! A source is process-wide ([`register_source`], once; MPI is one per
//! process) and keeps [`pending_add`]/[`pending_sub`] equal to the number of
//! operations it has been asked to watch and has not completed. Workers
//! read that count (one relaxed load) to decide whether to poll at all, so a
//! program with no pending operation pays one load per job and one per idle
//! round, and nothing else. A poll ([`poll`]) is run by one thread at a time
//! (a try-lock: a second poller would only contend on the source's own
//! lock) and returns how many operations completed; the source wakes their
//! waiters itself (through `Event`s).
//!
//! # Who polls, and how often
//!
//! * **Idle workers** poll at every round of their spin phase, and one of
//!   them — the *polling sleeper*, whoever claims the flag first — parks
//!   with a short timeout instead of the normal one while operations are
//!   pending: [`POLL_INTERVAL_MIN`], doubled after every poll that completed
//!   nothing up to [`POLL_INTERVAL_MAX`], back to the minimum after one that
//!   completed something. The other idle workers park as usual. The
//!   polling sleeper sleeps with a timer slack of a microsecond
//!   (`sleep::with_fine_timer`): Linux's default of 50 µs would add more to
//!   each short timeout than a halo message takes on shared memory. So a
//!   runtime whose every task waits for a message costs one timed wake-up,
//!   one short spin phase and one poll per interval: at most
//!   1 / `POLL_INTERVAL_MAX` = 500 a second after the first few, not a
//!   spinning core. (Spinning instead of the short sleeps was tried: it
//!   helped as much on dedicated cores, and with more ranks than cores the
//!   spinner delayed the very rank it waited for.)
//! * **Busy workers** poll between jobs, at most once per busy interval
//!   across the process (a shared timestamp), so a message for a waiting
//!   task is noticed while every worker computes. A job that runs for long
//!   without ending is not interrupted: its worker polls after it. The
//!   interval is short because MPI makes progress only inside its calls: a
//!   message sent by rendezvous (above the eager limit) needs a call on each
//!   side in turn, and every hop waits for a poll. It is
//!   [`BUSY_POLL_COST_RATIO`] times what a poll that completed nothing
//!   costs (a moving average), within [`BUSY_POLL_INTERVAL_MIN`] and
//!   [`BUSY_POLL_INTERVAL_MAX`], so that polling takes about 2 % of the
//!   busy workers' time whatever the transport: an `MPI_Testsome` with a
//!   receive pending costs 0.14 µs over Open MPI's shared memory (the
//!   interval stays at the minimum) but 1.7–1.9 µs over TCP, a system call
//!   per poll, where a fixed 20 µs took 9 % of a computing worker for as
//!   long as any request was pending (`docs/measurements.md`).
//!
//! Being late costs latency, never correctness: an operation completes
//! whether or not it is polled soon, and its waiter resumes at the first
//! poll after.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A source of external completions the workers poll.
pub(crate) trait ProgressSource: Send + Sync {
    /// Looks for completed operations, completes their waiters, and returns
    /// how many completed. Called by one thread at a time.
    fn poll(&self) -> usize;
}

/// The process's source, if one was registered.
static SOURCE: OnceLock<&'static dyn ProgressSource> = OnceLock::new();

/// Operations watched and not completed, over the process.
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Held by the thread polling now.
static POLLING: AtomicBool = AtomicBool::new(false);

/// Held by the idle worker parked with the poll timeout.
static POLLING_SLEEPER: AtomicBool = AtomicBool::new(false);

/// Microseconds since [`epoch`] of the last poll (for the busy workers'
/// rate).
static LAST_POLL_MICROS: AtomicU64 = AtomicU64::new(0);

/// The polling sleeper's current timeout, in microseconds.
static SLEEPER_INTERVAL_MICROS: AtomicU64 = AtomicU64::new(POLL_INTERVAL_MIN.as_micros() as u64);

/// The polling sleeper's first timeout after a poll that completed
/// something (or after operations became pending).
pub(crate) const POLL_INTERVAL_MIN: Duration = Duration::from_micros(10);

/// The polling sleeper's longest timeout: the latency bound of a message
/// that arrives while every worker is idle, and what waiting costs (one
/// wake-up and one poll per interval).
pub(crate) const POLL_INTERVAL_MAX: Duration = Duration::from_millis(2);

/// The shortest interval between busy workers' polls, over the whole
/// process.
pub(crate) const BUSY_POLL_INTERVAL_MIN: Duration = Duration::from_micros(20);

/// The longest interval between busy workers' polls: the latency bound of a
/// completion while every worker computes in short jobs, however dear a
/// poll.
pub(crate) const BUSY_POLL_INTERVAL_MAX: Duration = Duration::from_micros(200);

/// The busy interval is this many times a poll's cost: polling then takes
/// about 1/50 = 2 % of the busy workers' time.
pub(crate) const BUSY_POLL_COST_RATIO: u32 = 50;

/// The busy workers' interval now, in nanoseconds (see the module docs).
static BUSY_INTERVAL_NANOS: AtomicU64 = AtomicU64::new(BUSY_POLL_INTERVAL_MIN.as_nanos() as u64);

/// The busy interval after a poll that cost `cost` and completed nothing:
/// `current` moved an eighth of the way to `BUSY_POLL_COST_RATIO` times the
/// cost, taken within the bounds (so one slow poll — a poller descheduled
/// mid-call — moves it by at most an eighth of the range).
fn next_busy_interval(current: u64, cost: Duration) -> u64 {
    let (min, max) = (
        BUSY_POLL_INTERVAL_MIN.as_nanos() as u64,
        BUSY_POLL_INTERVAL_MAX.as_nanos() as u64,
    );
    let target = cost
        .as_nanos()
        .saturating_mul(u128::from(BUSY_POLL_COST_RATIO));
    let target = u64::try_from(target).unwrap_or(u64::MAX).clamp(min, max);
    (current - current / 8 + target / 8).clamp(min, max)
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_micros() -> u64 {
    epoch().elapsed().as_micros().try_into().unwrap_or(u64::MAX)
}

/// Registers the process's source. Returns `false` if another one was
/// registered first (the first stays).
#[cfg_attr(
    not(any(feature = "mpi", test)),
    expect(dead_code, reason = "only the `mpi` feature has a source")
)]
pub(crate) fn register_source(source: &'static dyn ProgressSource) -> bool {
    SOURCE.set(source).is_ok()
}

/// `n` more operations to watch. Relaxed: the count only decides whether
/// polling is worth it; the operations themselves are handed over under the
/// source's own lock, and an idle worker that misses the increment for a
/// moment polls at its next round or timeout.
#[cfg_attr(
    not(any(feature = "mpi", test)),
    expect(dead_code, reason = "only the `mpi` feature has a source")
)]
pub(crate) fn pending_add(n: usize) {
    if PENDING.fetch_add(n, Ordering::Relaxed) == 0 {
        SLEEPER_INTERVAL_MICROS.store(POLL_INTERVAL_MIN.as_micros() as u64, Ordering::Relaxed);
    }
}

/// `n` operations completed (or withdrawn).
#[cfg_attr(
    not(any(feature = "mpi", test)),
    expect(dead_code, reason = "only the `mpi` feature has a source")
)]
pub(crate) fn pending_sub(n: usize) {
    PENDING.fetch_sub(n, Ordering::Relaxed);
}

/// Operations watched and not completed.
pub(crate) fn pending() -> usize {
    PENDING.load(Ordering::Relaxed)
}

/// Polls the source if operations are pending and no other thread is
/// polling; returns how many completed (0 when it did not poll).
pub(crate) fn poll() -> usize {
    if pending() == 0 {
        return 0;
    }
    let Some(source) = SOURCE.get() else {
        return 0;
    };
    // Acquire: the previous poller's completions (and its source state) are
    // seen by this one; the source's own lock orders the rest.
    if POLLING
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return 0;
    }
    let start = Instant::now();
    let completed = source.poll();
    if completed == 0 {
        // Relaxed, and racy between pollers only in which sample wins: the
        // interval is a rate, not a synchronisation.
        let current = BUSY_INTERVAL_NANOS.load(Ordering::Relaxed);
        BUSY_INTERVAL_NANOS.store(
            next_busy_interval(current, start.elapsed()),
            Ordering::Relaxed,
        );
    }
    LAST_POLL_MICROS.store(now_micros(), Ordering::Relaxed);
    POLLING.store(false, Ordering::Release);
    completed
}

/// A busy worker between two jobs: polls if operations are pending and the
/// last poll (by anyone) is older than the busy interval. One relaxed load
/// when nothing is pending.
#[inline]
pub(crate) fn poll_if_due() {
    if pending() != 0 {
        poll_if_due_slow();
    }
}

#[cold]
fn poll_if_due_slow() {
    let last = LAST_POLL_MICROS.load(Ordering::Relaxed);
    let interval = BUSY_INTERVAL_NANOS.load(Ordering::Relaxed) / 1000;
    if now_micros().saturating_sub(last) >= interval {
        poll();
    }
}

/// An idle worker about to park: if operations are pending and no other
/// worker is the polling sleeper, it becomes it and gets the timeout to park
/// with (the caller calls [`end_polling_sleep`] when it wakes). `None`: park
/// as usual.
pub(crate) fn begin_polling_sleep() -> Option<Duration> {
    if pending() == 0 {
        return None;
    }
    POLLING_SLEEPER
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .ok()?;
    Some(Duration::from_micros(
        SLEEPER_INTERVAL_MICROS.load(Ordering::Relaxed),
    ))
}

/// The polling sleeper woke: polls, adapts the interval (doubled when
/// nothing completed, reset when something did) and gives up the role.
pub(crate) fn end_polling_sleep() {
    let completed = poll();
    let interval = SLEEPER_INTERVAL_MICROS.load(Ordering::Relaxed);
    let next = if completed > 0 {
        POLL_INTERVAL_MIN.as_micros() as u64
    } else {
        (interval * 2).min(POLL_INTERVAL_MAX.as_micros() as u64)
    };
    SLEEPER_INTERVAL_MICROS.store(next, Ordering::Relaxed);
    POLLING_SLEEPER.store(false, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A source with `left` operations, completing one per poll.
    struct CountingSource {
        left: AtomicUsize,
        polls: AtomicUsize,
    }

    impl ProgressSource for CountingSource {
        fn poll(&self) -> usize {
            self.polls.fetch_add(1, Ordering::Relaxed);
            let took = self
                .left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
            if took {
                pending_sub(1);
            }
            usize::from(took)
        }
    }

    static SOURCE_UNDER_TEST: CountingSource = CountingSource {
        left: AtomicUsize::new(0),
        polls: AtomicUsize::new(0),
    };

    #[test]
    fn the_busy_interval_follows_fifty_times_the_cost_of_a_poll() {
        let min = BUSY_POLL_INTERVAL_MIN.as_nanos() as u64;
        let max = BUSY_POLL_INTERVAL_MAX.as_nanos() as u64;
        let settle = |cost_nanos: u64| {
            let mut interval = min;
            for _ in 0..200 {
                interval = next_busy_interval(interval, Duration::from_nanos(cost_nanos));
            }
            interval
        };
        // Shared memory's 0.14 µs: the minimum, 20 µs.
        assert_eq!(settle(140), min);
        // TCP's 1.8 µs: 90 µs (within the rounding of the average).
        assert!(
            (89_000..=90_000).contains(&settle(1_800)),
            "{}",
            settle(1_800)
        );
        // Dearer still: the maximum.
        assert_eq!(settle(50_000), max);
        // One poll descheduled for 10 ms moves it an eighth of the range.
        let after_one = next_busy_interval(min, Duration::from_millis(10));
        assert_eq!(after_one, min + (max - min) / 8);
        assert!(next_busy_interval(max, Duration::from_nanos(140)) < max);
    }

    /// The state is process-wide and other tests' idle workers poll too, so
    /// this checks only what holds whoever polls: nothing is polled while
    /// nothing is pending, and polling drains what is.
    #[test]
    fn polls_only_while_pending_and_drains() {
        assert!(register_source(&SOURCE_UNDER_TEST));
        assert_eq!(poll(), 0, "nothing pending: no poll");
        assert_eq!(SOURCE_UNDER_TEST.polls.load(Ordering::Relaxed), 0);
        assert_eq!(
            begin_polling_sleep(),
            None,
            "nothing pending: park as usual"
        );
        SOURCE_UNDER_TEST.left.store(3, Ordering::Relaxed);
        pending_add(3);
        while pending() != 0 {
            poll_if_due();
            poll();
        }
        assert_eq!(SOURCE_UNDER_TEST.left.load(Ordering::Relaxed), 0);
        assert!(SOURCE_UNDER_TEST.polls.load(Ordering::Relaxed) >= 3);
        let polls = SOURCE_UNDER_TEST.polls.load(Ordering::Relaxed);
        assert_eq!(poll(), 0);
        assert_eq!(SOURCE_UNDER_TEST.polls.load(Ordering::Relaxed), polls);
    }
}
