//! Runs one table as a child process of the report: the same executable (or
//! its `-trace` sibling) with the table's subcommand, its stdout captured as
//! the table's text, its `progress:` lines on stderr shown by the caller,
//! and the whole process group killed when it runs past its cap.
//!
//! A child process rather than a call: a table that crashes, hangs or
//! exhausts memory costs its own section, not the report; its peak memory is
//! its own; and a table that runs over can be stopped (the fork-join and
//! CF'17 tables start children of their own, hence the process group).

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::PROGRESS_PREFIX;

/// How a table's run ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// It exited with status 0.
    Done,
    /// It exited with another status, or a signal (the message says which).
    Failed(String),
    /// The report stopped it at its cap.
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
pub struct ChildRun {
    /// How it ended.
    pub status: Status,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr, without the progress lines.
    pub stderr: String,
    /// Its wall time.
    pub elapsed: Duration,
}

/// Runs `exe args...`, calling `on_progress` with the text of each
/// `progress:` line it writes to stderr, and kills its process group once it
/// has run for `cap`.
pub fn run(
    exe: &Path,
    args: &[String],
    cap: Duration,
    mut on_progress: impl FnMut(&str),
) -> ChildRun {
    let start = Instant::now();
    let mut command = Command::new(exe);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that a kill reaches the table's own
        // children too.
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return ChildRun {
                status: Status::Failed(format!("could not start {}: {e}", exe.display())),
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
    let stderr_pipe = child.stderr.take().expect("stderr is piped");
    let (progress_tx, progress_rx) = mpsc::channel::<String>();
    let stderr_reader = std::thread::spawn(move || {
        let mut rest = String::new();
        for line in BufReader::new(stderr_pipe).lines() {
            let Ok(line) = line else { break };
            match line.strip_prefix(PROGRESS_PREFIX) {
                Some(what) => {
                    let _ = progress_tx.send(what.to_string());
                }
                None => {
                    rest.push_str(&line);
                    rest.push('\n');
                }
            }
        }
        rest
    });

    let status = loop {
        while let Ok(what) = progress_rx.try_recv() {
            on_progress(&what);
        }
        match child.try_wait() {
            Ok(Some(exit)) if exit.success() => break Status::Done,
            Ok(Some(exit)) => break Status::Failed(exit.to_string()),
            Ok(None) if start.elapsed() >= cap => {
                kill_group(child.id());
                let _ = child.wait();
                break Status::CutAtCap;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => break Status::Failed(e.to_string()),
        }
    };
    // The reader sends the last lines after the child exited: drain the
    // channel once it has read everything (it ends at end of file).
    let stderr = stderr_reader.join().unwrap_or_default();
    while let Ok(what) = progress_rx.try_recv() {
        on_progress(&what);
    }
    ChildRun {
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

    #[test]
    fn captures_stdout_and_progress() {
        let script = "echo '| a |'; echo 'progress: step 1' >&2; echo 'note' >&2; echo 'progress: step 2' >&2";
        let mut seen = Vec::new();
        let run = run(
            Path::new("/bin/sh"),
            &["-c".to_string(), script.to_string()],
            Duration::from_secs(30),
            |what| seen.push(what.to_string()),
        );
        assert_eq!(run.status, Status::Done);
        assert_eq!(run.stdout, "| a |\n");
        assert_eq!(run.stderr, "note\n");
        assert_eq!(seen, ["step 1", "step 2"]);
    }

    #[test]
    fn a_failure_is_reported() {
        let run = run(
            Path::new("/bin/sh"),
            &["-c".into(), "exit 3".into()],
            Duration::from_secs(30),
            |_| {},
        );
        assert!(matches!(run.status, Status::Failed(ref why) if why.contains('3')));
    }

    #[test]
    fn a_child_past_its_cap_is_killed_with_its_children() {
        let start = Instant::now();
        let run = run(
            Path::new("/bin/sh"),
            &["-c".into(), "sleep 30 & sleep 30; wait".into()],
            Duration::from_millis(300),
            |_| {},
        );
        assert_eq!(run.status, Status::CutAtCap);
        // The grandchild `sleep` held the stdout pipe: had it survived, the
        // reader would still be waiting.
        assert!(start.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn a_missing_executable_is_a_failure() {
        let run = run(
            Path::new("/no/such/program"),
            &[],
            Duration::from_secs(1),
            |_| {},
        );
        assert!(matches!(run.status, Status::Failed(_)));
    }
}
