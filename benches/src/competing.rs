//! Competing busy processes: `--competing N` of the `fork-join` and
//! `dataflow` tables, which keep the machine's CPUs busy while the table
//! measures, so that a runtime is measured under multiprogramming (its
//! workers preempted by processes it knows nothing of), not only on a quiet
//! machine.
//!
//! A competitor is the current executable run again with the hidden
//! subcommand [`SUBCOMMAND`] (`prescient-bench burn`, [`burn`]): one thread
//! spins on integer arithmetic, with no I/O and no memory traffic to speak
//! of, so it takes CPU time and nothing else; a second thread blocks on
//! reading stdin and ends the process at end of file. Its stdin is a pipe
//! whose only writer is the table's process ([`Competitors`]), so a
//! competitor dies with the table however the table ends: on return
//! [`Competitors`]' `Drop` kills and reaps it; on a panic the same `Drop`
//! runs while unwinding; on `SIGKILL` (the report's cap, an OOM kill) the
//! kernel closes the pipe and the competitor reads end of file.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The hidden subcommand of a competing busy process: `prescient-bench
/// burn` (it takes no arguments, and spins until its stdin ends).
pub const SUBCOMMAND: &str = "burn";

/// The most competitors `--competing` accepts: far more than any machine
/// this measures has cores, and few enough that a typo does not fork a
/// storm of processes.
pub const MAX_COMPETING: usize = 256;

/// How long the competitors get to start spinning before the first
/// measurement: an exec and a dynamic link take a few milliseconds, and a
/// table whose first rows ran on a quiet machine would mix two conditions.
pub const START_DELAY: Duration = Duration::from_millis(100);

/// The `--competing N` flag of a table that measures under competition
/// (flattened into the table's options by `clap`).
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompetingArgs {
    /// Keep N competing busy processes (each a CPU spin loop) running while
    /// the table measures: the runtime then shares the CPUs with work it
    /// cannot steal, as on a loaded machine. Default 0 (a quiet machine).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_competing)]
    pub competing: usize,
}

/// Parses `--competing`'s N: a whole number from 0 to [`MAX_COMPETING`].
///
/// # Errors
/// A message for anything else.
pub fn parse_competing(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of processes (0 to {MAX_COMPETING})"))?;
    if n > MAX_COMPETING {
        return Err(format!(
            "{n} competing processes are more than the {MAX_COMPETING} allowed"
        ));
    }
    Ok(n)
}

/// The line a table prints in its header, and the report in its machine
/// section, for `n` competitors: one wording wherever it appears.
pub fn describe(n: usize) -> String {
    format!("competing busy processes: {n}")
}

/// The competitors of one table run: started by [`Competitors::start`],
/// killed and reaped when dropped.
#[derive(Debug)]
pub struct Competitors {
    children: Vec<Child>,
}

impl Competitors {
    /// Starts `n` competitors as `current_exe burn` and waits
    /// [`START_DELAY`] for them to get going. With `n == 0` it starts
    /// nothing and returns at once.
    ///
    /// # Errors
    /// See [`Competitors::start_with`]; also when the current executable
    /// cannot be found.
    pub fn start(n: usize) -> Result<Competitors, String> {
        if n == 0 {
            return Ok(Competitors {
                children: Vec::new(),
            });
        }
        let exe = std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
        Competitors::start_with(&exe, n)
    }

    /// Starts `n` competitors as `exe burn` (`exe` must dispatch
    /// [`SUBCOMMAND`] to [`burn`]) and waits [`START_DELAY`] for them to get
    /// going. With `n == 0` it starts nothing and returns at once.
    ///
    /// # Errors
    /// A competitor that cannot be started, or one that has already exited
    /// after the delay (an `exe` without the subcommand); those started are
    /// killed before the error returns.
    pub fn start_with(exe: &Path, n: usize) -> Result<Competitors, String> {
        let mut competitors = Competitors {
            children: Vec::with_capacity(n),
        };
        if n == 0 {
            return Ok(competitors);
        }
        for _ in 0..n {
            let child = Command::new(exe)
                .arg(SUBCOMMAND)
                // The pipe is the competitor's lifeline: its write end lives
                // only in this process (Rust opens it close-on-exec, so the
                // table's own children do not inherit it).
                .stdin(Stdio::piped())
                // Nothing to say; and a competitor must not hold the
                // table's stdout, which the report reads to its end.
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("starting a competing process {}: {e}", exe.display()))?;
            competitors.children.push(child);
        }
        std::thread::sleep(START_DELAY);
        for child in &mut competitors.children {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "a competing process (`{} {SUBCOMMAND}`) exited at once: {status}",
                    exe.display()
                ));
            }
        }
        Ok(competitors)
    }

    /// How many competitors run.
    pub fn len(&self) -> usize {
        self.children.len()
    }

    /// Whether none runs.
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

    /// The competitors' process ids.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }
}

impl Drop for Competitors {
    fn drop(&mut self) {
        for child in &mut self.children {
            // Closing the pipe alone would end a competitor too, but only
            // once it is scheduled; the kill ends it now, and the wait
            // reaps it, so that no zombie outlives the table.
            drop(child.stdin.take());
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The hidden `burn` subcommand: spins on the calling thread until stdin
/// reaches end of file (or fails), then exits the process with status 0.
pub fn burn() -> ! {
    std::thread::spawn(|| {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0u8; 64];
        // Whatever the parent writes is ignored; end of file, or an error,
        // means the parent is gone or wants this process gone.
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        std::process::exit(0);
    });
    spin()
}

/// Burns CPU time on the calling thread, forever.
///
/// A step of a linear congruential generator per iteration: a dependent
/// chain of multiplies and adds that stays in registers (no memory traffic
/// to disturb the measured program's caches beyond sharing the core), kept
/// alive by `black_box`. Not `std::hint::spin_loop`: its x86 `pause` hands
/// the core to an SMT sibling, and under a hypervisor with pause-loop
/// exiting it makes the virtual CPU yield, so the competitor would compete
/// less than a busy process does.
fn spin() -> ! {
    let mut x: u64 = 1;
    loop {
        for _ in 0..4096 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
        }
        x = std::hint::black_box(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Result<CompetingArgs, clap::Error> {
        crate::cli::parse_words("table", words.iter().copied())
    }

    #[test]
    fn the_flag() {
        assert_eq!(parse(&[]).unwrap().competing, 0);
        assert_eq!(parse(&["--competing", "2"]).unwrap().competing, 2);
        assert_eq!(parse(&["--competing=0"]).unwrap().competing, 0);
        for bad in ["-1", "x", "", "1.5", "257"] {
            assert!(parse(&["--competing", bad]).is_err(), "{bad}");
        }
        assert!(parse(&["--competing"]).is_err());
        assert_eq!(parse_competing("256"), Ok(256));
        assert_eq!(describe(1), "competing busy processes: 1");
    }

    #[test]
    fn none_starts_nothing() {
        let started = std::time::Instant::now();
        let none = Competitors::start(0).unwrap();
        assert!(none.is_empty() && none.pids().is_empty());
        assert!(started.elapsed() < START_DELAY);
    }

    #[test]
    fn a_competitor_that_exits_at_once_is_an_error() {
        // `true burn` exits at once with status 0: no competitor.
        let error = Competitors::start_with(Path::new("/bin/true"), 1).unwrap_err();
        assert!(error.contains("exited at once"), "{error}");
        let error = Competitors::start_with(Path::new("/no/such/program"), 1).unwrap_err();
        assert!(error.contains("starting a competing process"), "{error}");
    }
}
