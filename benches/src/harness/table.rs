//! A table's description — its programs × runners × thread counts at one
//! size ([`Plan`]) — and the parent's loop that measures each of its
//! configurations in a child process ([`Plan::measure`]) and keeps what
//! each said ([`Outcome`]).

use std::fmt::Display;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::child::{self, Status, Stderr};
use super::record::Record;
use super::write::format_ns;
use crate::cli::{progress, Size};
use crate::samples::Sample;

/// How a runner runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The sequential reference: measured once per program, at one thread.
    Sequential,
    /// A runtime built into this executable (Prescient under some
    /// parameters, rayon, chili): measured at every thread count.
    Own,
    /// A C/C++ peer ([`crate::peers`]): measured at every thread count, in
    /// a child of its executable.
    Peer(crate::peers::Peer),
}

/// Who runs a table's programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runner {
    /// Its name on the command line (`--runners`), in the table and in the
    /// table's JSON.
    pub name: String,
    /// Its name in the shared samples ([`crate::samples`]).
    pub sample: String,
    /// How it runs.
    pub kind: Kind,
}

impl Runner {
    /// A runner of `kind` named `name`, `sample` in the samples.
    pub fn new(name: &str, sample: &str, kind: Kind) -> Runner {
        Runner {
            name: name.to_string(),
            sample: sample.to_string(),
            kind,
        }
    }

    /// Whether it uses threads (everything but the sequential reference).
    pub fn is_parallel(&self) -> bool {
        self.kind != Kind::Sequential
    }

    /// The runners of `names` among `all`, in `all`'s order; all of them if
    /// `names` is empty.
    ///
    /// # Errors
    /// A name that is none of them.
    pub fn select(all: &[Runner], names: &[String]) -> Result<Vec<Runner>, String> {
        if let Some(unknown) = names.iter().find(|n| all.iter().all(|r| &r.name != *n)) {
            let known: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
            return Err(format!(
                "unknown runner `{unknown}` (one of {})",
                known.join(", ")
            ));
        }
        Ok(all
            .iter()
            .filter(|r| names.is_empty() || names.contains(&r.name))
            .cloned()
            .collect())
    }
}

/// The runners of `table`: its own, `(name, sample name)` each (`seq` the
/// sequential reference, the others built into this executable), then the
/// C/C++ peers' ([`crate::peers::runners`]).
pub fn with_peers<'a>(
    table: &str,
    own: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<Runner> {
    let own = own.into_iter().map(|(name, sample)| {
        let kind = if name == "seq" {
            Kind::Sequential
        } else {
            Kind::Own
        };
        Runner::new(name, sample, kind)
    });
    own.chain(crate::peers::runners(table)).collect()
}

impl Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// A table's description: which programs run under which runners at which
/// thread counts, at one size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan<P> {
    /// The table's subcommand (`fork-join`, `cf17`).
    pub table: &'static str,
    /// The size of its workloads.
    pub size: Size,
    /// The programs, in the table's order.
    pub programs: Vec<P>,
    /// The runners, in the table's order (the sequential reference first).
    pub runners: Vec<Runner>,
    /// The thread counts, ascending.
    pub threads: Vec<usize>,
    /// How long one child may run before it is killed.
    pub timeout: Duration,
}

/// One configuration: a program under a runner at a thread count.
#[derive(Clone, Debug, PartialEq)]
pub struct Config<P> {
    /// The program.
    pub program: P,
    /// The runner.
    pub runner: Runner,
    /// Its threads (1 for the sequential reference).
    pub threads: usize,
}

/// One configuration's outcome, as the parent saw it.
#[derive(Clone, Debug)]
pub struct Outcome<P> {
    /// The configuration.
    pub config: Config<P>,
    /// What its child measured, or why it failed.
    pub result: Result<Record, String>,
}

impl<P> Outcome<P> {
    /// The runner's name and what its child measured, if it succeeded.
    pub fn ran(&self) -> Option<(&str, &Record)> {
        Some((self.config.runner.name.as_str(), self.result.as_ref().ok()?))
    }
}

impl<P: Copy + Display + PartialEq> Plan<P> {
    /// Every configuration, in order: per program, the sequential reference
    /// first (once, at one thread), then per thread count every parallel
    /// runner.
    pub fn configurations(&self) -> Vec<Config<P>> {
        let mut out = Vec::new();
        for &program in &self.programs {
            let config = |runner: &Runner, threads| Config {
                program,
                runner: runner.clone(),
                threads,
            };
            for runner in self.runners.iter().filter(|r| !r.is_parallel()) {
                out.push(config(runner, 1));
            }
            for &threads in &self.threads {
                for runner in self.runners.iter().filter(|r| r.is_parallel()) {
                    out.push(config(runner, threads));
                }
            }
        }
        out
    }

    /// Measures every configuration for which `command` gives a child's
    /// command line (`None`: the program has no such runner, and the
    /// configuration is left out), one child at a time, saying on stderr
    /// which one runs and what it measured. A peer that is missing is left
    /// out, once said why on stderr (the table's notes say it too,
    /// [`crate::peers::notes`]), as is a configuration whose record says
    /// `skipped`.
    pub fn measure(&self, command: impl Fn(&Config<P>) -> Option<Command>) -> Vec<Outcome<P>> {
        for runner in &self.runners {
            if let Kind::Peer(peer) = runner.kind {
                if let Err(why) = peer.executable() {
                    eprintln!("{}: {runner} skipped: {why}", self.table);
                }
            }
        }
        let missing = |r: &Runner| matches!(r.kind, Kind::Peer(p) if p.executable().is_err());
        let configs: Vec<(Config<P>, Command)> = self
            .configurations()
            .into_iter()
            .filter(|c| !missing(&c.runner))
            .filter_map(|c| command(&c).map(|command| (c, command)))
            .collect();
        let mut outcomes = Vec::with_capacity(configs.len());
        let total = configs.len();
        for (i, (config, mut command)) in configs.into_iter().enumerate() {
            progress(format!(
                "{}: [{}/{total}] {} {} {} thread(s)",
                self.table,
                i + 1,
                config.program,
                config.runner,
                config.threads
            ));
            let result = run_child(&mut command, self.timeout);
            match &result {
                Ok(r) if r.skipped.is_some() => {
                    eprintln!("  skipped: {}", r.skipped.as_deref().unwrap_or_default());
                    continue;
                }
                Ok(r) => eprintln!("  {}", format_ns(r.median_ns())),
                Err(e) => eprintln!("  FAILED: {e}"),
            }
            outcomes.push(Outcome { config, result });
        }
        outcomes
    }
}

/// Runs one measuring child (stderr passed through) and reads its record.
///
/// # Errors
/// The child's own error, a timeout, or a missing record.
pub fn run_child(command: &mut Command, timeout: Duration) -> Result<Record, String> {
    let finished = child::run(command, timeout, Stderr::Inherit);
    match finished.status {
        Status::CutAtCap => Err(format!("timed out after {:.0} s", timeout.as_secs_f64())),
        Status::Done => Record::read(&finished.stdout, None),
        Status::Failed(how) | Status::Skipped(how) => Record::read(&finished.stdout, Some(how)),
    }
}

/// The command that runs this executable (`exe`) with `args`.
pub fn own(exe: &Path, args: Vec<String>) -> Command {
    let mut command = Command::new(exe);
    command.args(args);
    command
}

/// The outcomes of a table's children, looked up by configuration.
pub trait Outcomes<P> {
    /// What the child of a configuration measured, if it succeeded.
    fn record(&self, program: P, runner: &str, threads: usize) -> Option<&Record>;

    /// The median time of a configuration, in nanoseconds.
    fn median(&self, program: P, runner: &str, threads: usize) -> Option<f64> {
        self.record(program, runner, threads).map(Record::median_ns)
    }

    /// The shared samples: one per measured configuration, the median time
    /// of one run, under the program's `label` and the runner's sample name.
    fn samples(&self, label: impl Fn(P) -> String) -> Vec<Sample>;
}

impl<P: Copy + PartialEq> Outcomes<P> for [Outcome<P>] {
    fn record(&self, program: P, runner: &str, threads: usize) -> Option<&Record> {
        self.iter()
            .find(|o| {
                let c = &o.config;
                c.program == program && c.runner.name == runner && c.threads == threads
            })
            .and_then(|o| o.result.as_ref().ok())
    }

    fn samples(&self, label: impl Fn(P) -> String) -> Vec<Sample> {
        self.iter()
            .filter_map(|o| {
                let r = o.result.as_ref().ok()?;
                let c = &o.config;
                Some(Sample::new(
                    label(c.program),
                    &c.runner.sample,
                    c.threads,
                    r.median_ns() / 1e9,
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runners() -> Vec<Runner> {
        vec![
            Runner::new("seq", "sequential", Kind::Sequential),
            Runner::new("a", "a", Kind::Own),
            Runner::new("b", "b", Kind::Own),
        ]
    }

    fn plan() -> Plan<&'static str> {
        Plan {
            table: "t",
            size: Size::Test,
            programs: vec!["p", "q"],
            runners: runners(),
            threads: vec![1, 2],
            timeout: Duration::from_secs(30),
        }
    }

    #[test]
    fn configurations_put_the_reference_first() {
        let names: Vec<String> = plan()
            .configurations()
            .iter()
            .map(|c| format!("{} {} {}", c.program, c.runner, c.threads))
            .collect();
        assert_eq!(
            names,
            [
                "p seq 1", "p a 1", "p b 1", "p a 2", "p b 2", "q seq 1", "q a 1", "q b 1",
                "q a 2", "q b 2"
            ]
        );
        let some = Runner::select(&runners(), &["b".into(), "seq".into()]).unwrap();
        assert_eq!(some, [runners()[0].clone(), runners()[2].clone()]);
        assert!(Runner::select(&runners(), &["c".into()])
            .unwrap_err()
            .contains("unknown runner `c` (one of seq, a, b)"));
    }

    #[test]
    fn children_are_measured_skipped_or_failed() {
        // The first program's children print a record, the second's fail;
        // runner `b` skips `p` and has no `q`.
        let outcomes = plan().measure(|c| {
            let script = match (c.program, c.runner.name.as_str()) {
                ("p", "b") => r#"echo '{"skipped": "no p"}'"#.to_string(),
                ("p", _) => format!(r#"echo '{{"times_ns": [{}.0, 5.0]}}'"#, c.threads),
                (_, "b") => return None,
                _ => "exit 3".to_string(),
            };
            let mut command = Command::new("/bin/sh");
            command.args(["-c", &script]);
            Some(command)
        });
        let rows: Vec<String> = outcomes
            .iter()
            .map(|o| {
                format!(
                    "{} {} {} {}",
                    o.config.program,
                    o.config.runner,
                    o.config.threads,
                    o.result.is_ok()
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                "p seq 1 true",
                "p a 1 true",
                "p a 2 true",
                "q seq 1 false",
                "q a 1 false",
                "q a 2 false"
            ]
        );
        assert_eq!(outcomes.median("p", "a", 2), Some(3.5));
        assert!(outcomes[3]
            .result
            .as_ref()
            .unwrap_err()
            .contains("exit status: 3"));
        let samples = outcomes.samples(|p| format!("{p}!"));
        assert_eq!(samples.len(), 3);
        assert_eq!(
            (samples[0].program.as_str(), samples[0].runner.as_str()),
            ("p!", "sequential")
        );
    }

    #[test]
    fn a_child_past_its_timeout_is_killed() {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", "exec sleep 30"]);
        let result = run_child(&mut command, Duration::from_millis(200));
        assert_eq!(result.unwrap_err(), "timed out after 0 s");
    }
}
