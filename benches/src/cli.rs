//! The command-line conventions every table of `prescient-bench` follows:
//! the flags they share, one thread-list parser, one environment fallback,
//! the sizes and the progress lines.
//!
//! * [`CommonArgs`] is the `clap` group every table flattens into its
//!   options: `--quick`, the hidden `--test-size` ([`Size`]), `--threads
//!   LIST` and `--json FILE`.
//! * The thread counts come from `--threads`, else from the environment
//!   variable [`THREADS_ENV`] (`PRESCIENT_BENCH_THREADS`; the same syntax),
//!   else [`default_threads`]: the command line wins. The criterion benches
//!   cannot take flags of their own (`cargo bench` passes its filter), so
//!   they read the variable alone, through [`env_threads`].
//! * [`parse_threads`] is the one parser of a thread list.
//! * The dataflow benchmarks (`prescient-bench dataflow` and the `dataflow`
//!   criterion bench) also take a list of DAST modes the same way: its
//!   `--dast LIST`, else the variable [`DAST_ENV`]
//!   (`PRESCIENT_BENCH_DAST`), else all four ([`resolve_dast`],
//!   [`env_dast`]; one parser, [`parse_dast`]).
//! * [`progress`] writes the `progress:` lines on stderr that show a long
//!   table moving, and that the report's progress bar displays.

use prescient::tuning::DastMode;

/// The environment variable with the thread counts to measure (`1,2,4` or
/// `all`) when `--threads` is not given: read by every table, the report and the
/// criterion benches.
pub const THREADS_ENV: &str = "PRESCIENT_BENCH_THREADS";

/// The environment variable with the DAST modes the dataflow benchmarks
/// measure (`off,adaptive` or `all`; see [`parse_dast`]) when `--dast` is
/// not given: read by `prescient-bench dataflow` and the `dataflow` criterion bench.
pub const DAST_ENV: &str = "PRESCIENT_BENCH_DAST";

/// The available parallelism (1 if unknown): what `all` and the default
/// thread list are measured against.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Why a thread list was rejected (its `Display` is the message the
/// tables print).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadsError {
    /// The list is empty (or only white space).
    Empty,
    /// An entry between two commas, or before or after one, is empty
    /// (`1,,2`, `1,2,`).
    EmptyEntry,
    /// An entry is not a whole number written in decimal digits (`two`,
    /// `-1`, `1.5`, `+2`), or one too large for `usize`.
    NotANumber(String),
    /// An entry is 0: a pool needs a thread.
    Zero,
    /// A count is listed twice (`1,2,1`): the list names each configuration
    /// once.
    Duplicate(usize),
}

impl std::fmt::Display for ThreadsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThreadsError::Empty => write!(f, "the thread list is empty"),
            ThreadsError::EmptyEntry => write!(f, "the thread list has an empty entry"),
            ThreadsError::NotANumber(entry) => {
                write!(f, "`{entry}` is not a thread count (a whole number >= 1)")
            }
            ThreadsError::Zero => write!(f, "a thread count must be at least 1, not 0"),
            ThreadsError::Duplicate(n) => write!(f, "the thread count {n} is listed twice"),
        }
    }
}

impl std::error::Error for ThreadsError {}

/// Parses the thread list `spec`, given `available` hardware threads.
///
/// `spec` is either `all` — 1, 2, 4, … below `available`, then `available`
/// itself — or comma-separated thread counts, each a whole number of at
/// least 1 in decimal digits, listed once; white space around an entry is
/// ignored. The result is ascending. Explicit counts above `available` are
/// kept: oversubscription is allowed when asked for.
///
/// # Errors
/// A [`ThreadsError`] for an empty list, an empty entry, an entry that is
/// not a number, a 0, or a count listed twice.
pub fn parse_threads(spec: &str, available: usize) -> Result<Vec<usize>, ThreadsError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(ThreadsError::Empty);
    }
    if spec == "all" {
        let available = available.max(1);
        let mut threads: Vec<usize> = std::iter::successors(Some(1usize), |t| t.checked_mul(2))
            .take_while(|&t| t < available)
            .collect();
        threads.push(available);
        return Ok(threads);
    }
    let mut threads = Vec::new();
    for entry in spec.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err(ThreadsError::EmptyEntry);
        }
        let count = parse_count(entry)?;
        if threads.contains(&count) {
            return Err(ThreadsError::Duplicate(count));
        }
        threads.push(count);
    }
    threads.sort_unstable();
    Ok(threads)
}

/// Parses one thread count: a whole number of at least 1 in decimal digits
/// (white space around it is ignored).
///
/// # Errors
/// [`ThreadsError::Empty`], [`ThreadsError::NotANumber`] or
/// [`ThreadsError::Zero`].
pub fn parse_count(entry: &str) -> Result<usize, ThreadsError> {
    let entry = entry.trim();
    if entry.is_empty() {
        return Err(ThreadsError::Empty);
    }
    let count = entry
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| entry.parse::<usize>().ok())
        .flatten()
        .ok_or_else(|| ThreadsError::NotANumber(entry.to_string()))?;
    if count == 0 {
        return Err(ThreadsError::Zero);
    }
    Ok(count)
}

/// The default thread list: 1 and 2, capped at `available` (so `[1]` on a
/// one-thread machine).
pub fn default_threads(available: usize) -> Vec<usize> {
    [1, 2]
        .into_iter()
        .filter(|&t| t <= available.max(1))
        .collect()
}

/// The thread counts to measure: `flag` (the list `--threads` gave, already
/// parsed) if any, else the value `env` of [`THREADS_ENV`] if it is set and
/// not blank, else [`default_threads`].
///
/// # Errors
/// The variable's [`ThreadsError`], prefixed with its name.
pub fn resolve_threads(
    flag: Option<&[usize]>,
    env: Option<&str>,
    available: usize,
) -> Result<Vec<usize>, String> {
    match (flag, env.filter(|s| !s.trim().is_empty())) {
        (Some(threads), _) => Ok(threads.to_vec()),
        (None, Some(env)) => {
            parse_threads(env, available).map_err(|e| format!("{THREADS_ENV}={env:?}: {e}"))
        }
        (None, None) => Ok(default_threads(available)),
    }
}

/// The thread counts of a benchmark that takes no flags (the criterion
/// benches): [`THREADS_ENV`] if set and not blank, else
/// [`default_threads`].
///
/// # Panics
/// If the variable is set to an invalid list (the message says why).
pub fn env_threads() -> Vec<usize> {
    let env = std::env::var(THREADS_ENV).ok();
    resolve_threads(None, env.as_deref(), available_threads()).unwrap_or_else(|e| panic!("{e}"))
}

/// Parses the DAST mode list `spec`: `all` (the four modes), or
/// comma-separated mode names — `off`, `forced`, `adaptive`, `idle`, or a
/// variant's name in any case (`IdleWorkers`; see `DastMode::from_name`),
/// each listed once; white space around an entry is ignored. The result is
/// in the order of `DastMode::ALL` (`off` first: it is the baseline the
/// others are compared with), whatever the order of the list.
///
/// # Errors
/// A message for an empty list, an empty entry, an unknown name or a mode
/// listed twice.
pub fn parse_dast(spec: &str) -> Result<Vec<DastMode>, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("the DAST mode list is empty".to_string());
    }
    if spec == "all" {
        return Ok(DastMode::ALL.to_vec());
    }
    let mut modes = Vec::new();
    for entry in spec.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err("the DAST mode list has an empty entry".to_string());
        }
        let mode = DastMode::from_name(entry).ok_or_else(|| {
            format!("`{entry}` is not a DAST mode (off, forced, adaptive, idle or all)")
        })?;
        if modes.contains(&mode) {
            return Err(format!("the DAST mode {mode} is listed twice"));
        }
        modes.push(mode);
    }
    modes.sort_by_key(|mode| DastMode::ALL.iter().position(|m| m == mode));
    Ok(modes)
}

/// The DAST modes to measure: `flag` (the list `--dast` gave, already
/// parsed) if any, else the value `env` of [`DAST_ENV`] if it is set and
/// not blank, else all four (`DastMode::ALL`).
///
/// # Errors
/// The variable's [`parse_dast`] error, prefixed with its name.
pub fn resolve_dast(flag: Option<&[DastMode]>, env: Option<&str>) -> Result<Vec<DastMode>, String> {
    match (flag, env.filter(|s| !s.trim().is_empty())) {
        (Some(modes), _) => Ok(modes.to_vec()),
        (None, Some(env)) => parse_dast(env).map_err(|e| format!("{DAST_ENV}={env:?}: {e}")),
        (None, None) => Ok(DastMode::ALL.to_vec()),
    }
}

/// The DAST modes of a benchmark that takes no flags (the `dataflow`
/// criterion bench): [`DAST_ENV`] if set and not blank, else all four.
///
/// # Panics
/// If the variable is set to an invalid list (the message says why).
pub fn env_dast() -> Vec<DastMode> {
    let env = std::env::var(DAST_ENV).ok();
    resolve_dast(None, env.as_deref()).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_thread_lists() {
        assert_eq!(parse_threads("1,2,4,8,16", 2), Ok(vec![1, 2, 4, 8, 16]));
        assert_eq!(parse_threads("1", 8), Ok(vec![1]));
        assert_eq!(parse_threads(" 4, 1 ,2 ", 8), Ok(vec![1, 2, 4]));
        assert_eq!(parse_threads("64", 2), Ok(vec![64]), "oversubscription");
        assert_eq!(parse_threads("all", 1), Ok(vec![1]));
        assert_eq!(parse_threads("all", 2), Ok(vec![1, 2]));
        assert_eq!(parse_threads(" all ", 6), Ok(vec![1, 2, 4, 6]));
        assert_eq!(parse_threads("all", 0), Ok(vec![1]));
        assert_eq!(
            parse_threads("all", 256),
            Ok(vec![1, 2, 4, 8, 16, 32, 64, 128, 256])
        );
    }

    #[test]
    fn bad_thread_lists() {
        use ThreadsError::*;
        assert_eq!(parse_threads("", 4), Err(Empty));
        assert_eq!(parse_threads("  ", 4), Err(Empty));
        assert_eq!(parse_threads("1,,2", 4), Err(EmptyEntry));
        assert_eq!(parse_threads("1,2,", 4), Err(EmptyEntry));
        assert_eq!(parse_threads(",", 4), Err(EmptyEntry));
        assert_eq!(parse_threads("0", 4), Err(Zero));
        assert_eq!(parse_threads("1,00", 4), Err(Zero));
        for bad in [
            "two",
            "-1",
            "+2",
            "1.5",
            "1 2",
            "0x4",
            "ALL",
            "99999999999999999999999",
        ] {
            assert_eq!(
                parse_threads(&format!("1,{bad}"), 4),
                Err(NotANumber(bad.to_string())),
                "{bad}"
            );
        }
        assert_eq!(parse_threads("1,2,1", 4), Err(Duplicate(1)));
        assert_eq!(parse_threads("2,02", 4), Err(Duplicate(2)));
        assert_eq!(parse_count(" 7 "), Ok(7));
        assert_eq!(parse_count("0"), Err(Zero));
        assert_eq!(parse_count("1,2"), Err(NotANumber("1,2".into())));
        assert_eq!(
            NotANumber("two".into()).to_string(),
            "`two` is not a thread count (a whole number >= 1)"
        );
        assert_eq!(
            Duplicate(2).to_string(),
            "the thread count 2 is listed twice"
        );
    }

    #[test]
    fn defaults_and_precedence() {
        assert_eq!(default_threads(0), vec![1]);
        assert_eq!(default_threads(1), vec![1]);
        assert_eq!(default_threads(64), vec![1, 2]);
        assert_eq!(resolve_threads(None, None, 4), Ok(vec![1, 2]));
        assert_eq!(resolve_threads(None, Some(" "), 4), Ok(vec![1, 2]));
        assert_eq!(resolve_threads(None, Some("all"), 4), Ok(vec![1, 2, 4]));
        assert_eq!(resolve_threads(Some(&[3]), Some("all"), 4), Ok(vec![3]));
        assert_eq!(
            resolve_threads(None, Some("zero"), 4),
            Err("PRESCIENT_BENCH_THREADS=\"zero\": `zero` is not a thread count (a whole number >= 1)".to_string())
        );
        // The command line wins even over an invalid variable.
        assert_eq!(resolve_threads(Some(&[1]), Some("zero"), 4), Ok(vec![1]));
    }

    #[test]
    fn dast_lists() {
        use DastMode::*;
        assert_eq!(parse_dast("all"), Ok(DastMode::ALL.to_vec()));
        assert_eq!(parse_dast(" idle, OFF "), Ok(vec![Off, IdleWorkers]));
        assert_eq!(
            parse_dast("IdleWorkers,forced,adaptive"),
            Ok(vec![Forced, Adaptive, IdleWorkers])
        );
        for bad in ["", " ", "off,,idle", "off,", "sometimes", "off,Off", "ALL"] {
            assert!(parse_dast(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_dast("off,off"),
            Err("the DAST mode off is listed twice".to_string())
        );
        assert_eq!(resolve_dast(None, None), Ok(DastMode::ALL.to_vec()));
        assert_eq!(resolve_dast(None, Some(" ")), Ok(DastMode::ALL.to_vec()));
        assert_eq!(resolve_dast(None, Some("forced")), Ok(vec![Forced]));
        assert_eq!(resolve_dast(Some(&[Off]), Some("nope")), Ok(vec![Off]));
        assert!(resolve_dast(None, Some("nope"))
            .unwrap_err()
            .starts_with("PRESCIENT_BENCH_DAST=\"nope\": `nope` is not a DAST mode"));
    }
}

/// How large a table's workloads are: its full size, `--quick`, or the
/// hidden `--test-size` (seconds in all; what the report's own test runs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// The table's full workloads (the default).
    #[default]
    Full,
    /// `--quick`: smaller inputs and fewer repetitions.
    Quick,
    /// `--test-size`: the smallest inputs that still exercise every row.
    Test,
}

impl Size {
    /// The size's name as the flags spell it (`full`, `quick`, `test`).
    pub fn name(self) -> &'static str {
        match self {
            Size::Full => "full",
            Size::Quick => "quick",
            Size::Test => "test",
        }
    }
}

/// A thread list as `--threads` gives it (already checked against the
/// available parallelism).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadList(pub Vec<usize>);

impl std::str::FromStr for ThreadList {
    type Err = ThreadsError;

    fn from_str(spec: &str) -> Result<ThreadList, ThreadsError> {
        parse_threads(spec, available_threads()).map(ThreadList)
    }
}

/// The flags every table of `prescient-bench` shares (flattened into each
/// subcommand's options by `clap`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CommonArgs {
    /// Smaller inputs and fewer repetitions (a minute or two per table).
    #[arg(long, conflicts_with = "test_size")]
    pub quick: bool,
    /// The smallest inputs that exercise every row (seconds; for tests).
    #[arg(long, hide = true)]
    pub test_size: bool,
    /// Thread counts: comma-separated (1,2,4) or `all` (1, 2, 4, ... and the
    /// available parallelism). Default: $PRESCIENT_BENCH_THREADS, else 1,2.
    #[arg(long, value_name = "LIST")]
    pub threads: Option<ThreadList>,
    /// Also write the results as JSON to FILE (with a `samples` list every
    /// table shares; see `prescient_benches::samples`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
}

impl CommonArgs {
    /// The size the flags ask for.
    pub fn size(&self) -> Size {
        if self.test_size {
            Size::Test
        } else if self.quick {
            Size::Quick
        } else {
            Size::Full
        }
    }

    /// The thread counts to measure: `--threads`, else [`THREADS_ENV`],
    /// else [`default_threads`].
    ///
    /// # Errors
    /// The variable's [`ThreadsError`], prefixed with its name.
    pub fn threads(&self) -> Result<Vec<usize>, String> {
        let env = std::env::var(THREADS_ENV).ok();
        resolve_threads(
            self.threads.as_ref().map(|list| list.0.as_slice()),
            env.as_deref(),
            available_threads(),
        )
    }

    /// Writes `value` as pretty JSON to the `--json` file, if one was
    /// given.
    ///
    /// # Errors
    /// Why the file could not be written.
    pub fn write_json<T: serde::Serialize>(&self, value: &T) -> Result<(), String> {
        let Some(path) = &self.json else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The prefix of a progress line on stderr ([`progress`]); the report
/// shows the latest such line of the table it runs beside its progress bar.
pub const PROGRESS_PREFIX: &str = "progress: ";

/// Says on stderr what a table measures now (one line, `progress: ...`):
/// what a user running a long table sees move, and what the report's
/// progress bar shows.
pub fn progress(what: impl std::fmt::Display) {
    eprintln!("{PROGRESS_PREFIX}{what}");
}

/// Parses `words` (without the executable) as the options `O` of the
/// subcommand `name`, as `prescient-bench name words...` would: how the
/// tables' tests check their flags.
#[cfg(test)]
pub(crate) fn parse_words<'a, O: clap::Args + clap::FromArgMatches>(
    name: &'static str,
    words: impl IntoIterator<Item = &'a str>,
) -> Result<O, clap::Error> {
    let matches = O::augment_args(clap::Command::new(name))
        .try_get_matches_from(std::iter::once(name).chain(words))?;
    O::from_arg_matches(&matches)
}
