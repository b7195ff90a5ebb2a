//! How the running binary was built (recorded by `benches/build.rs`): the
//! commit, the cargo profile, the compiler, the flags and the features; and
//! the host name and date that name a report's folder.

use serde::{Deserialize, Serialize};

/// The build the report's numbers come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// The commit (12 hex digits), with a note if the tree had uncommitted
    /// changes; `unknown` outside a git checkout.
    pub commit: String,
    /// The cargo profile's folder (`benchmark`, `release`, `debug`).
    pub profile: String,
    /// `rustc -V` of the compiler.
    pub rustc: String,
    /// The flags the build passed to rustc (`RUSTFLAGS` or cargo's
    /// `build.rustflags`).
    pub rustflags: String,
    /// The features of `prescient-benches` that were on.
    pub features: String,
    /// Whether every function starts on a 64-byte boundary (the setting of
    /// `cargo bench-run`; see `.cargo/config.toml`).
    pub function_alignment: bool,
}

impl BuildInfo {
    /// The build of this binary.
    pub fn current() -> BuildInfo {
        let rustflags = env!("PRESCIENT_BENCH_RUSTFLAGS").to_string();
        BuildInfo {
            commit: env!("PRESCIENT_BENCH_COMMIT").to_string(),
            profile: env!("PRESCIENT_BENCH_PROFILE").to_string(),
            rustc: env!("PRESCIENT_BENCH_RUSTC").to_string(),
            function_alignment: rustflags.contains("align-all-functions"),
            rustflags,
            features: env!("PRESCIENT_BENCH_FEATURES").to_string(),
        }
    }

    /// One line for humans.
    pub fn describe(&self) -> String {
        format!(
            "commit {}, profile `{}`, {}, function alignment {}{}",
            self.commit,
            self.profile,
            self.rustc,
            if self.function_alignment {
                "64 bytes"
            } else {
                "the compiler's default"
            },
            if self.features.is_empty() {
                String::new()
            } else {
                format!(", features {}", self.features)
            }
        )
    }
}

/// A file-name-safe form of `text`: lower-case ASCII letters and digits,
/// runs of anything else as one `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// The default name of this host in a report's path: the machine's host
/// name, then its hardware threads (`vm-2t`), so that reports from hosts
/// that share a generic name still sort by size.
pub fn default_host_name(threads: usize) -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|n| slug(&n))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "host".to_string());
    format!("{name}-{threads}t")
}

/// Today's date in UTC as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date(secs / 86_400)
}

/// The date `days` days after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(59), "1970-03-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_418), "2025-11-26");
    }

    #[test]
    fn slugs() {
        assert_eq!(
            slug("Intel(R) Xeon(R)  Gold 6338"),
            "intel-r-xeon-r-gold-6338"
        );
        assert_eq!(slug("--vm--"), "vm");
        assert_eq!(slug(""), "");
    }

    #[test]
    fn the_current_build_is_described() {
        let build = BuildInfo::current();
        assert!(!build.profile.is_empty());
        assert!(build.describe().contains(&build.commit));
    }
}
