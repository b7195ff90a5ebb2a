//! The command-line conventions every table of `prescient-bench` follows:
//! the flags they share, one thread-list parser, one environment fallback,
//! the sizes, where output goes by default, and the progress lines.
//!
//! * [`CommonArgs`] is the `clap` group every table flattens into its
//!   options: `--quick`, `--test-size` ([`Size`]), `--threads LIST` and
//!   `--json FILE`; [`ChildArgs`] the `--timeout` and hidden `--child` of
//!   the tables that measure in child processes.
//! * The thread counts come from `--threads`, else from the environment
//!   variable [`THREADS_ENV`] (`PRESCIENT_BENCH_THREADS`; the same syntax),
//!   else [`default_threads`]: the command line wins. Every count is a
//!   whole number from 1 to [`MAX_WORKERS`] (a larger one is refused when
//!   the list is parsed, [`check_env`] checks the variable before a table
//!   starts); a count above the host's hardware threads is allowed, and
//!   said once ([`oversubscription`]). The criterion benches cannot take
//!   flags of their own (`cargo bench` passes its filter), so they read the
//!   variable alone, through [`env_threads`].
//! * The dataflow benchmarks also take a list of DAST modes the same way:
//!   `--dast LIST`, else the variable [`DAST_ENV`] (`PRESCIENT_BENCH_DAST`),
//!   else all four ([`resolve_dast`], [`env_dast`]; one parser,
//!   [`parse_dast`]).
//! * A table writes JSON where `--json` says, or, for the tables that
//!   always did, under cargo's target folder of the build
//!   ([`default_output`]); never relative to the current directory.
//! * [`progress`] writes the `progress:` lines on stderr that show a long
//!   table moving, and that the report's progress bar displays.

use std::path::{Path, PathBuf};
use std::time::Duration;

use prescient::tuning::{DastMode, MAX_WORKERS};

/// The environment variable with the thread counts to measure (`1,2,4` or
/// `all`) when `--threads` is not given: read by every table, the report and
/// the criterion benches.
pub const THREADS_ENV: &str = "PRESCIENT_BENCH_THREADS";

/// The environment variable with the DAST modes the dataflow benchmarks
/// measure (`off,adaptive` or `all`; see [`parse_dast`]) when `--dast` is
/// not given: read by `prescient-bench dataflow` and the `dataflow`
/// criterion bench.
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
    /// An entry is above [`MAX_WORKERS`], the most workers a runtime has.
    TooMany(usize),
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
            ThreadsError::TooMany(n) => write!(
                f,
                "{n} threads: a runtime has at most {MAX_WORKERS} workers"
            ),
            ThreadsError::Duplicate(n) => write!(f, "the thread count {n} is listed twice"),
        }
    }
}

impl std::error::Error for ThreadsError {}

/// Parses the thread list `spec`, given `available` hardware threads.
///
/// `spec` is either `all` — 1, 2, 4, … below `available`, then `available`
/// itself (at most [`MAX_WORKERS`]) — or comma-separated thread counts,
/// each a whole number from 1 to [`MAX_WORKERS`] in decimal digits, listed
/// once; white space around an entry is ignored. The result is ascending.
/// Explicit counts above `available` are kept: oversubscription is allowed
/// when asked for.
///
/// # Errors
/// A [`ThreadsError`] for an empty list, an empty entry, an entry that is
/// not a number, a 0, a count above [`MAX_WORKERS`], or a count listed
/// twice.
pub fn parse_threads(spec: &str, available: usize) -> Result<Vec<usize>, ThreadsError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(ThreadsError::Empty);
    }
    if spec == "all" {
        let available = available.clamp(1, MAX_WORKERS);
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
        let count = parse_thread_count(entry)?;
        if threads.contains(&count) {
            return Err(ThreadsError::Duplicate(count));
        }
        threads.push(count);
    }
    threads.sort_unstable();
    Ok(threads)
}

/// Parses one count: a whole number of at least 1 in decimal digits (white
/// space around it is ignored).
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

/// Parses one thread count: [`parse_count`], at most [`MAX_WORKERS`].
///
/// # Errors
/// As [`parse_count`], or [`ThreadsError::TooMany`].
pub fn parse_thread_count(entry: &str) -> Result<usize, ThreadsError> {
    match parse_count(entry)? {
        n if n > MAX_WORKERS => Err(ThreadsError::TooMany(n)),
        n => Ok(n),
    }
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

/// The warning for `threads` on a host of `available` hardware threads,
/// if a count exceeds them: oversubscription is allowed, never silent.
pub fn oversubscription(threads: &[usize], available: usize) -> Option<String> {
    let over: Vec<String> = threads
        .iter()
        .filter(|&&t| t > available)
        .map(ToString::to_string)
        .collect();
    (!over.is_empty()).then(|| {
        format!(
            "warning: {} thread(s) exceed this host's {available} hardware thread(s): those \
             runs oversubscribe the CPUs",
            over.join(",")
        )
    })
}

/// Checks the environment variables a table reads before it starts, so
/// that a bad one is a usage error (`prescient-bench` exits 2).
///
/// # Errors
/// The first bad variable's message.
pub fn check_env() -> Result<(), String> {
    let var = |name| std::env::var(name).ok();
    resolve_threads(None, var(THREADS_ENV).as_deref(), available_threads())?;
    resolve_dast(None, var(DAST_ENV).as_deref()).map(drop)
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

/// How large a table's workloads are: its full size, `--quick`, or
/// `--test-size` (seconds in all; what the report's own test runs).
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

    /// The flag that asks a table for this size (none for full).
    pub fn flag(self) -> Option<&'static str> {
        match self {
            Size::Full => None,
            Size::Quick => Some("--quick"),
            Size::Test => Some("--test-size"),
        }
    }
}

/// A thread list as `--threads` gives it (parsed by [`parse_threads`]).
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
    #[arg(long)]
    pub test_size: bool,
    /// Thread counts: comma-separated (1,2,4), each at most 4096, or `all`
    /// (1, 2, 4, ... and the available parallelism). Default:
    /// $PRESCIENT_BENCH_THREADS, else 1,2.
    #[arg(long, value_name = "LIST")]
    pub threads: Option<ThreadList>,
    /// Also write the results as JSON to FILE (with a `samples` list every
    /// table shares; see `prescient_benches::samples`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
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
    /// else [`default_threads`]; says once on stderr if a count exceeds the
    /// hardware threads.
    ///
    /// # Errors
    /// The variable's [`ThreadsError`], prefixed with its name.
    pub fn threads(&self) -> Result<Vec<usize>, String> {
        let env = std::env::var(THREADS_ENV).ok();
        let available = available_threads();
        let threads = resolve_threads(
            self.threads.as_ref().map(|list| list.0.as_slice()),
            env.as_deref(),
            available,
        )?;
        static WARNED: std::sync::Once = std::sync::Once::new();
        if let Some(warning) = oversubscription(&threads, available) {
            WARNED.call_once(|| eprintln!("{warning}"));
        }
        Ok(threads)
    }

    /// Writes `value` as pretty JSON to the `--json` file, if one was
    /// given.
    ///
    /// # Errors
    /// Why the file could not be written.
    pub fn write_json<T: serde::Serialize>(&self, value: &T) -> Result<(), String> {
        match &self.json {
            Some(path) => crate::harness::write::write_json(path, value),
            None => Ok(()),
        }
    }
}

/// `--timeout` and the hidden `--child PROGRAM RUNNER THREADS` of a table
/// that measures each configuration in a child process.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ChildArgs {
    /// Kill a child that runs longer (default 300 with --quick or
    /// --test-size, 1800 otherwise).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Hidden: measure one configuration as a child process.
    #[arg(long, hide = true, num_args = 3, value_names = ["PROGRAM", "RUNNER", "THREADS"])]
    pub child: Option<Vec<String>>,
}

impl ChildArgs {
    /// `--child`'s program, runner and thread count, if given.
    ///
    /// # Errors
    /// A bad thread count.
    pub fn child_words(&self) -> Result<Option<(String, String, usize)>, String> {
        let Some(words) = &self.child else {
            return Ok(None);
        };
        let [program, runner, threads] = words.as_slice() else {
            return Err("--child takes PROGRAM RUNNER THREADS".to_string());
        };
        let threads = parse_thread_count(threads).map_err(|e| format!("--child: {e}"))?;
        Ok(Some((program.clone(), runner.clone(), threads)))
    }
}

/// Parses `--timeout`'s seconds (> 0).
///
/// # Errors
/// Anything else.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("bad timeout `{s}` (seconds, > 0)"))
}

/// The default child timeout: 30 minutes at full size, 5 below.
pub const fn default_timeout(size: Size) -> Duration {
    match size {
        Size::Full => Duration::from_secs(1800),
        Size::Quick | Size::Test => Duration::from_secs(300),
    }
}

/// A child's arguments after the executable: `table flag words...
/// threads [size flag]`.
pub fn child_args(
    table: &str,
    flag: &str,
    words: &[&str],
    threads: usize,
    size: Size,
) -> Vec<String> {
    [table, flag]
        .iter()
        .chain(words)
        .map(|w| w.to_string())
        .chain(std::iter::once(threads.to_string()))
        .chain(size.flag().map(String::from))
        .collect()
}

/// `relative` under cargo's target folder of the build this binary came
/// from, if that folder still exists (a binary copied to another host has
/// none): where a table writes by default what it always wrote.
pub fn default_output(relative: &str) -> Option<PathBuf> {
    let target = Path::new(env!("PRESCIENT_BENCH_TARGET_DIR"));
    target.is_dir().then(|| target.join(relative))
}

/// Writes `value` as JSON to `path` and says where, or says that there is
/// no file to write to.
///
/// # Errors
/// Why the file could not be written.
pub fn save_json<T: serde::Serialize>(path: Option<&Path>, value: &T) -> Result<(), String> {
    match path {
        Some(path) => {
            crate::harness::write::write_json(path, value)?;
            println!("JSON written to {}", path.display());
        }
        None => println!("JSON not written (no --json, and no cargo target folder here)"),
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_thread_lists() {
        assert_eq!(parse_threads("1,2,4,8,16", 2), Ok(vec![1, 2, 4, 8, 16]));
        assert_eq!(parse_threads(" 4, 1 ,2 ", 8), Ok(vec![1, 2, 4]));
        assert_eq!(parse_threads("64", 2), Ok(vec![64]), "oversubscription");
        assert_eq!(parse_threads("4096", 2), Ok(vec![4096]));
        assert_eq!(parse_threads("all", 1), Ok(vec![1]));
        assert_eq!(parse_threads(" all ", 6), Ok(vec![1, 2, 4, 6]));
        assert_eq!(parse_threads("all", 0), Ok(vec![1]));
        assert_eq!(parse_threads("all", 5000).unwrap().last(), Some(&4096));
    }

    #[test]
    fn bad_thread_lists() {
        use ThreadsError::*;
        assert_eq!(parse_threads("  ", 4), Err(Empty));
        for bad in ["1,,2", "1,2,", ","] {
            assert_eq!(parse_threads(bad, 4), Err(EmptyEntry), "{bad}");
        }
        assert_eq!(parse_threads("1,00", 4), Err(Zero));
        assert_eq!(parse_threads("1,4097", 4), Err(TooMany(4097)));
        assert_eq!(
            TooMany(5000).to_string(),
            "5000 threads: a runtime has at most 4096 workers"
        );
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
            let err = NotANumber(bad.to_string());
            assert_eq!(parse_threads(&format!("1,{bad}"), 4), Err(err), "{bad}");
        }
        assert_eq!(parse_threads("2,02", 4), Err(Duplicate(2)));
        assert_eq!(parse_count(" 7 "), Ok(7));
        assert_eq!(parse_count("5000"), Ok(5000), "not a thread count");
        assert_eq!(parse_thread_count("5000"), Err(TooMany(5000)));
        assert_eq!(parse_count("1,2"), Err(NotANumber("1,2".into())));
        assert!("4097".parse::<ThreadList>().is_err());
    }

    #[test]
    fn defaults_precedence_and_oversubscription() {
        assert_eq!(
            (default_threads(0), default_threads(64)),
            (vec![1], vec![1, 2])
        );
        assert_eq!(resolve_threads(None, Some(" "), 4), Ok(vec![1, 2]));
        assert_eq!(resolve_threads(None, Some("all"), 4), Ok(vec![1, 2, 4]));
        assert_eq!(resolve_threads(Some(&[3]), Some("all"), 4), Ok(vec![3]));
        assert_eq!(
            resolve_threads(None, Some("5000"), 4),
            Err("PRESCIENT_BENCH_THREADS=\"5000\": 5000 threads: a runtime has at most 4096 workers".to_string())
        );
        // The command line wins even over an invalid variable.
        assert_eq!(resolve_threads(Some(&[1]), Some("zero"), 4), Ok(vec![1]));
        assert_eq!(oversubscription(&[1, 2], 2), None);
        let warning = oversubscription(&[1, 2, 999], 2).unwrap();
        assert!(
            warning.starts_with("warning: 999 thread(s) exceed this host's 2 hardware thread(s)")
        );
    }

    #[test]
    fn dast_lists() {
        use DastMode::*;
        assert_eq!(parse_dast("all"), Ok(DastMode::ALL.to_vec()));
        assert_eq!(parse_dast(" idle, OFF "), Ok(vec![Off, IdleWorkers]));
        for bad in ["", " ", "off,,idle", "off,", "sometimes", "off,Off", "ALL"] {
            assert!(parse_dast(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_dast("off,off"),
            Err("the DAST mode off is listed twice".to_string())
        );
        assert_eq!(resolve_dast(None, Some(" ")), Ok(DastMode::ALL.to_vec()));
        assert_eq!(resolve_dast(Some(&[Off]), Some("nope")), Ok(vec![Off]));
        assert!(resolve_dast(None, Some("nope"))
            .unwrap_err()
            .starts_with("PRESCIENT_BENCH_DAST=\"nope\": `nope` is not a DAST mode"));
    }

    #[test]
    fn child_arguments() {
        let args = child_args("fork-join", "--child", &["fib", "rayon"], 2, Size::Quick);
        assert_eq!(
            args,
            ["fork-join", "--child", "fib", "rayon", "2", "--quick"]
        );
        let words = |w: &[&str]| ChildArgs {
            child: Some(w.iter().map(|s| s.to_string()).collect()),
            ..ChildArgs::default()
        };
        assert_eq!(
            words(&["fib", "rayon", "3"]).child_words(),
            Ok(Some(("fib".into(), "rayon".into(), 3)))
        );
        assert!(words(&["fib", "rayon", "5000"])
            .child_words()
            .unwrap_err()
            .contains("at most 4096"));
        assert_eq!(parse_timeout("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_timeout("-1").is_err());
    }
}
