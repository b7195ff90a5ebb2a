//! The one way a benchmark process runs another: a measuring child of a
//! table (this executable again, or a peer's), a table under the report,
//! the sweep's children. [`run`] closes the child's stdin, captures its
//! stdout, passes its stderr through or picks the `progress:` lines out of
//! it, and kills it once it runs past its cap.
//!
//! A child rather than a call: a configuration that crashes, hangs or
//! exhausts memory costs its own row, not the table; its peak memory is its
//! own; and one that runs over can be stopped. A table under the report
//! runs in a process group of its own, so that the kill reaches the
//! children it started too.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::PROGRESS_PREFIX;

/// How a child's run ended (in `report.json`, as kebab-case).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// It exited with status 0.
    Done,
    /// It exited with another status, or a signal (the message says which).
    Failed(String),
    /// It was stopped at its cap.
    CutAtCap,
    /// It did not run (the message says why).
    Skipped(String),
}

impl Status {
    /// How it ended, for humans (`done`, `failed (exit status: 2)`, ...).
    pub fn describe(&self) -> String {
        match self {
            Status::Done => "done".to_string(),
            Status::Failed(why) => format!("failed ({why})"),
            Status::CutAtCap => "stopped at its share of the budget".to_string(),
            Status::Skipped(why) => format!("skipped: {why}"),
        }
    }
}

/// What a finished child left.
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub status: Status,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr without the progress lines (empty when passed through).
    pub stderr: String,
    /// Its wall time.
    pub elapsed: Duration,
}

/// Where a child's stderr goes.
pub enum Stderr<'a> {
    /// To this process's stderr, as it comes.
    Inherit,
    /// Captured: each `progress:` line's text goes to the function, the
    /// other lines into [`Finished::stderr`]; the child runs in a process
    /// group of its own, which the cap kills whole.
    Progress(&'a mut dyn FnMut(&str)),
}

/// Runs `command` (its arguments and environment set by the caller) with
/// stdin closed and stdout captured, and kills it (or its process group)
/// once it has run for `cap`.
pub fn run(command: &mut Command, cap: Duration, stderr: Stderr<'_>) -> Finished {
    let start = Instant::now();
    command.stdin(Stdio::null()).stdout(Stdio::piped());
    let on_progress = match stderr {
        Stderr::Inherit => {
            command.stderr(Stdio::inherit());
            None
        }
        Stderr::Progress(on_progress) => {
            command.stderr(Stdio::piped()).process_group(0);
            Some(on_progress)
        }
    };
    let grouped = on_progress.is_some();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Finished {
                status: Status::Failed(format!(
                    "could not start {}: {e}",
                    command.get_program().to_string_lossy()
                )),
                stdout: String::new(),
                stderr: String::new(),
                elapsed: start.elapsed(),
            }
        }
    };
    let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
    let stdout_reader = std::thread::spawn(move || {
        let mut text = String::new();
        // A read error leaves what was read; the status says what happened.
        let _ = stdout_pipe.read_to_string(&mut text);
        text
    });
    let (progress_tx, progress_rx) = mpsc::channel::<String>();
    let stderr_reader = child.stderr.take().map(|pipe| {
        std::thread::spawn(move || {
            let mut rest = String::new();
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix(PROGRESS_PREFIX) {
                    Some(what) => drop(progress_tx.send(what.to_string())),
                    None => rest.push_str(&(line + "\n")),
                }
            }
            rest
        })
    });
    let mut on_progress = on_progress;
    let mut drain = |rx: &mpsc::Receiver<String>| {
        if let Some(f) = on_progress.as_mut() {
            rx.try_iter().for_each(|what| f(&what));
        }
    };
    let status = loop {
        drain(&progress_rx);
        match child.try_wait() {
            Ok(Some(exit)) if exit.success() => break Status::Done,
            Ok(Some(exit)) => break Status::Failed(exit.to_string()),
            Ok(None) if start.elapsed() >= cap => {
                if grouped {
                    kill_group(child.id());
                } else {
                    let _ = child.kill();
                }
                let _ = child.wait();
                break Status::CutAtCap;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => break Status::Failed(e.to_string()),
        }
    };
    // The reader sends the last lines after the child exited: drain the
    // channel once it has read everything (it ends at end of file).
    let stderr = stderr_reader.map_or_else(String::new, |r| r.join().unwrap_or_default());
    drain(&progress_rx);
    Finished {
        status,
        stdout: stdout_reader.join().unwrap_or_default(),
        stderr,
        elapsed: start.elapsed(),
    }
}

/// Kills the process group `leader` leads (the child and its children).
fn kill_group(leader: u32) {
    let Ok(group) = libc::pid_t::try_from(leader) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours;
    // the negative pid names the process group the child was started in
    // (`process_group(0)` made it its own leader), which holds only the
    // child and the processes it started.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn captures_stdout_and_progress() {
        let script = "echo '| a |'; echo 'progress: step 1' >&2; echo 'note' >&2; echo 'progress: step 2' >&2";
        let mut seen = Vec::new();
        let mut note = |what: &str| seen.push(what.to_string());
        let run = run(
            &mut sh(script),
            Duration::from_secs(30),
            Stderr::Progress(&mut note),
        );
        assert_eq!(run.status, Status::Done);
        assert_eq!(
            (run.stdout.as_str(), run.stderr.as_str()),
            ("| a |\n", "note\n")
        );
        assert_eq!(seen, ["step 1", "step 2"]);
    }

    #[test]
    fn failures_and_missing_programs_are_reported() {
        let failed = run(&mut sh("exit 3"), Duration::from_secs(30), Stderr::Inherit);
        assert!(matches!(failed.status, Status::Failed(ref why) if why.contains('3')));
        let missing = run(
            &mut Command::new("/no/such/program"),
            Duration::from_secs(1),
            Stderr::Inherit,
        );
        assert!(matches!(missing.status, Status::Failed(_)));
    }

    #[test]
    fn a_child_past_its_cap_is_killed_with_its_children() {
        let start = Instant::now();
        let mut ignore = |_: &str| {};
        let cut = run(
            &mut sh("sleep 30 & sleep 30; wait"),
            Duration::from_millis(300),
            Stderr::Progress(&mut ignore),
        );
        assert_eq!(cut.status, Status::CutAtCap);
        // The grandchild `sleep` held the stdout pipe: had it survived, the
        // reader would still be waiting.
        assert!(start.elapsed() < Duration::from_secs(20));
        let alone = run(
            &mut sh("exec sleep 30"),
            Duration::from_millis(300),
            Stderr::Inherit,
        );
        assert_eq!(alone.status, Status::CutAtCap);
    }
}
