//! What a measuring child says: one JSON object on one line of stdout, the
//! [`Record`] (ours and a peer's alike), and what a child measures it with:
//! its peak RSS and CPU time from `getrusage`, and a steady allocator.

use std::collections::BTreeMap;

use prescient::tuning::Counters;
use serde::{Deserialize, Serialize};

/// The last word of a measuring child: printed as one JSON line on stdout
/// (the last line that starts with `{` counts), by this executable's
/// children and by a peer's executable alike (see [`crate::peers`]).
///
/// Every field but `times_ns` may be left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The time of one run in each timed sample, in nanoseconds, in the
    /// order taken (a sample of `batch` runs gives its time over `batch`).
    #[serde(default)]
    pub times_ns: Vec<f64>,
    /// Runs per timed sample (1 if absent).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub batch: u64,
    /// The child's peak RSS in KiB after its timed runs:
    /// `getrusage(RUSAGE_SELF).ru_maxrss` (also read as `rss_kib`).
    #[serde(default, alias = "rss_kib", skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// Process CPU time over wall time during the timed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_per_wall: Option<f64>,
    /// A peer's runtime and compiler, as it names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The program's input, for humans (`n=35`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// For Prescient, every [`Counters`] field over the timed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<BTreeMap<String, u64>>,
    /// The result, as text, for the parent to compare with the table's
    /// reference where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// `false`: the child checked its result against the reference and
    /// it was wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Why the child could not measure (it exits non-zero too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the child does not measure this configuration at all (a peer
    /// without this program): the row is skipped, not failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

impl Record {
    /// A record of `times_ns` (one run per sample), with this process's
    /// peak RSS.
    pub fn of_times(times_ns: Vec<f64>) -> Record {
        Record {
            times_ns,
            batch: 1,
            peak_rss_kib: Some(peak_rss_kib()),
            ..Record::default()
        }
    }

    /// A child's record of an error.
    pub fn failure(error: impl Into<String>) -> Record {
        Record {
            batch: 1,
            error: Some(error.into()),
            ..Record::default()
        }
    }

    /// Sets the counters of the timed runs.
    pub fn with_counters(mut self, counters: Option<Counters>) -> Record {
        self.counters = counters.map(|c| counters_map(&c));
        self
    }

    /// Prints the record as the child's last line.
    pub fn print(&self) {
        println!(
            "{}",
            serde_json::to_string(self).expect("a record serializes")
        );
    }

    /// Reads a child's record from its stdout: the last line that starts
    /// with `{`. A record with an `error`, or with `verified: false`, is an
    /// error; so is a child that failed without one (`failed` says how).
    ///
    /// # Errors
    /// Why there is no usable record.
    pub fn read(stdout: &str, failed: Option<String>) -> Result<Record, String> {
        let line = stdout
            .lines()
            .rev()
            .find(|l| l.trim_start().starts_with('{'));
        let record = line.map(|line| {
            serde_json::from_str::<Record>(line).map_err(|e| format!("a bad record `{line}`: {e}"))
        });
        match (record, failed) {
            (Some(Ok(r)), _) if r.error.is_some() => Err(r.error.unwrap_or_default()),
            (Some(Ok(r)), None) if r.verified == Some(false) => {
                Err("the child's result is wrong (verified: false)".to_string())
            }
            (Some(Ok(r)), None) if r.skipped.is_some() || !r.times_ns.is_empty() => Ok(r),
            (Some(Ok(_)), None) => Err("the child's record has no times".to_string()),
            (Some(Err(e)), _) => Err(e),
            (_, Some(how)) => Err(format!(
                "the child failed without a message ({how}; see its stderr above)"
            )),
            (None, None) => Err("the child printed no record".to_string()),
        }
    }

    /// The median time of one run, in nanoseconds.
    pub fn median_ns(&self) -> f64 {
        median(&self.times_ns)
    }

    /// The fastest sample, per run, in nanoseconds.
    pub fn min_ns(&self) -> f64 {
        self.times_ns.iter().copied().fold(f64::NAN, f64::min)
    }

    /// The slowest sample, per run, in nanoseconds.
    pub fn max_ns(&self) -> f64 {
        self.times_ns.iter().copied().fold(f64::NAN, f64::max)
    }

    /// The timed runs.
    pub fn runs(&self) -> u64 {
        self.batch * self.times_ns.len() as u64
    }

    /// The counters, if the record has them.
    ///
    /// # Errors
    /// If one of them is missing.
    pub fn counters(&self) -> Result<Option<Counters>, String> {
        let Some(map) = &self.counters else {
            return Ok(None);
        };
        Counters::try_from_fn(|name| {
            map.get(name)
                .copied()
                .ok_or_else(|| format!("the record has no counter `{name}`"))
        })
        .map(Some)
    }

    /// Counter `name` per timed run, where the record has counters.
    pub fn per_run(&self, name: &str) -> Option<f64> {
        let value = *self.counters.as_ref()?.get(name)?;
        Some(value as f64 / self.runs().max(1) as f64)
    }
}

/// `counters` as a JSON map, by their [`Counters::NAMES`] names.
pub fn counters_map(counters: &Counters) -> BTreeMap<String, u64> {
    counters
        .iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

/// The median of `values` (the mean of the two middle ones for an even
/// count; NaN for none).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Fixes glibc's allocator thresholds for a measuring child: blocks up to
/// 64 MiB come from the heap, and the heap keeps up to 256 MiB of free
/// memory instead of returning it.
///
/// Why: by default glibc serves a block of 128 KiB or more with a fresh
/// `mmap`, raising that threshold (up to 32 MiB) the first time it frees
/// such a block. Whether and when a process crosses that step depends on
/// which thread frees what first, so a program that allocates megabyte
/// buffers per run (fft, strassen, sort) ran in one of two modes per
/// process: reusing heap memory, or faulting in fresh pages on every run.
/// Fixed thresholds give every runner and configuration the same
/// allocator. A no-op off glibc.
pub fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only sets two of glibc's allocator parameters; it
        // is called before the child builds any pool, so no other thread of
        // this process is allocating, and both values are in range.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
    }
}

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
    // SAFETY: `getrusage` returned 0, so it initialised `usage`.
    (rc == 0).then(|| unsafe { usage.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_read_the_last_line() {
        let counters = Counters::try_from_fn(|name| {
            Ok::<u64, ()>(Counters::NAMES.iter().position(|&n| n == name).unwrap() as u64 + 1)
        })
        .unwrap();
        let record = Record {
            batch: 4,
            input: Some("2^24 points, seed=3".into()),
            ..Record::of_times(vec![3.0, 1.0, 2.0])
        }
        .with_counters(Some(counters));
        let stdout = format!("noise\n{}\n", serde_json::to_string(&record).unwrap());
        let back = Record::read(&stdout, None).unwrap();
        assert_eq!(back, record);
        assert_eq!(
            (back.median_ns(), back.min_ns(), back.max_ns()),
            (2.0, 1.0, 3.0)
        );
        assert_eq!(
            (back.runs(), back.counters().unwrap()),
            (12, Some(counters))
        );
        assert_eq!(
            back.per_run("spawns"),
            Some(
                Counters::NAMES.iter().position(|&n| n == "spawns").unwrap() as f64 / 12.0
                    + 1.0 / 12.0
            )
        );
        // A peer's minimal line.
        let peer =
            Record::read(r#"{"times_ns": [5.0], "rss_kib": 9, "runtime": "x"}"#, None).unwrap();
        assert_eq!(
            (peer.batch, peer.peak_rss_kib, peer.counters()),
            (1, Some(9), Ok(None))
        );
    }

    #[test]
    fn what_a_failed_child_says() {
        let err = |stdout: &str, failed: Option<&str>| {
            Record::read(stdout, failed.map(String::from)).unwrap_err()
        };
        assert_eq!(
            err(r#"{"error": "fib: got 1"}"#, Some("exit status: 1")),
            "fib: got 1"
        );
        assert!(err("", Some("exit status: 1")).contains("without a message"));
        assert!(err("", None).contains("no record"));
        assert!(err("{nope", None).contains("a bad record"));
        assert!(err(r#"{"times_ns": [1.0], "verified": false}"#, None).contains("wrong"));
        assert!(err(r#"{"times_ns": []}"#, None).contains("no times"));
        let skipped = Record::read(r#"{"skipped": "no such program"}"#, None).unwrap();
        assert_eq!(skipped.skipped.as_deref(), Some("no such program"));
        let partial = Record::read(r#"{"times_ns": [1.0], "counters": {"steals": 1}}"#, None);
        assert!(partial.unwrap().counters().is_err());
    }

    #[test]
    fn medians_and_rusage() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert!(peak_rss_kib() > 0);
        let before = cpu_time_ns();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(cpu_time_ns() > before);
    }
}
