//! The trace clock: the CPU's time-stamp counter where it is usable, else
//! `Instant`; converted to nanoseconds once, when a session is collected.
//!
//! On x86-64, `rdtsc` costs a few nanoseconds and needs no system call or
//! shared cache line; `Instant::now()` (a vDSO `clock_gettime`) costs
//! about what a published join costs, so it would dominate fine-grained
//! traces. The counter is used only when the CPU
//! reports an invariant counter (`constant_tsc` and `nonstop_tsc`, read
//! from `/proc/cpuinfo` once): it then ticks at a fixed rate on every core,
//! and Linux checks at boot that cores agree. What small skew between cores
//! remains is repaired when the trace is assembled (`collect.rs`). The
//! rate is calibrated per session against `Instant` over the session
//! itself, so no fixed frequency is assumed.

use std::sync::OnceLock;
use std::time::Instant;

/// Whether [`now`] reads the time-stamp counter.
fn use_tsc() -> bool {
    static USE_TSC: OnceLock<bool> = OnceLock::new();
    *USE_TSC.get_or_init(|| {
        cfg!(target_arch = "x86_64")
            && std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|info| {
                info.lines()
                    .find(|line| line.starts_with("flags"))
                    .is_some_and(|flags| {
                        let has = |flag| flags.split_whitespace().any(|word| word == flag);
                        has("constant_tsc") && has("nonstop_tsc")
                    })
            })
    })
}

/// The process's reference instant for the `Instant` fallback.
fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// Decides the clock source; called when a session starts, so that the
/// first event does not pay for reading `/proc/cpuinfo`.
pub(crate) fn init() {
    use_tsc();
    base();
}

/// The current time in ticks of the trace clock.
#[inline]
pub(crate) fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if use_tsc() {
        // SAFETY: `rdtsc` is available on every x86-64 CPU and has no
        // memory effects; it only reads the counter.
        return unsafe { core::arch::x86_64::_rdtsc() };
    }
    base().elapsed().as_nanos() as u64
}

/// A pair of readings, of the trace clock and of `Instant`, taken together.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reading {
    ticks: u64,
    instant: Instant,
}

impl Reading {
    pub(crate) fn take() -> Reading {
        Reading {
            ticks: now(),
            instant: Instant::now(),
        }
    }
}

/// Converts ticks of a session to nanoseconds since its start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conversion {
    start_ticks: u64,
    /// Nanoseconds per `denominator` ticks.
    numerator: u128,
    denominator: u128,
}

impl Conversion {
    /// The conversion for a session between the readings `start` and `end`.
    pub(crate) fn between(start: Reading, end: Reading) -> Conversion {
        let ticks = end.ticks.saturating_sub(start.ticks);
        let nanos = end
            .instant
            .saturating_duration_since(start.instant)
            .as_nanos();
        if ticks == 0 || nanos == 0 {
            return Conversion {
                start_ticks: start.ticks,
                numerator: 1,
                denominator: 1,
            };
        }
        Conversion {
            start_ticks: start.ticks,
            numerator: nanos,
            denominator: ticks as u128,
        }
    }

    /// A length of `ticks` in nanoseconds.
    #[inline]
    pub(crate) fn duration(&self, ticks: u64) -> u64 {
        (ticks as u128 * self.numerator / self.denominator) as u64
    }

    /// Nanoseconds from the session's start to `ticks` (0 before it).
    #[inline]
    pub(crate) fn nanos(&self, ticks: u64) -> u64 {
        self.duration(ticks.saturating_sub(self.start_ticks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_monotonic_on_one_thread_and_converts_to_real_time() {
        init();
        let start = Reading::take();
        let mut last = now();
        for _ in 0..1000 {
            let t = now();
            assert!(t >= last);
            last = t;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mid = now();
        let end = Reading::take();
        let conversion = Conversion::between(start, end);
        let total = conversion.nanos(end.ticks);
        let real = end.instant.duration_since(start.instant).as_nanos() as u64;
        assert_eq!(total, real);
        assert!(conversion.nanos(mid) >= 20_000_000);
        assert_eq!(conversion.nanos(start.ticks.saturating_sub(5)), 0);
    }
}
