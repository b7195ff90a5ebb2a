//! This process's resource usage from `getrusage`: its peak resident set
//! and the CPU time it has used.

/// The peak resident set size of this process, in KiB
/// (`getrusage(RUSAGE_SELF).ru_maxrss`).
pub fn peak_rss_kib() -> u64 {
    rusage().map_or(0, |u| u.ru_maxrss.max(0) as u64)
}

/// The CPU time (user + system) this process has used, in nanoseconds.
pub fn cpu_time_ns() -> u64 {
    fn ns(t: libc::timeval) -> u64 {
        t.tv_sec.max(0) as u64 * 1_000_000_000 + t.tv_usec.max(0) as u64 * 1_000
    }
    rusage().map_or(0, |u| ns(u.ru_utime) + ns(u.ru_stime))
}

fn rusage() -> Option<libc::rusage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` points to writable memory for one `rusage`, which
    // `getrusage` fills on success; we read it only then.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc == 0 {
        // SAFETY: `getrusage` returned 0, so it initialised `usage`.
        Some(unsafe { usage.assume_init() })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn rusage_reads() {
        assert!(peak_rss_kib() > 0);
        let before = cpu_time_ns();
        let mut x = 0u64;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(cpu_time_ns() > before);
    }
}
