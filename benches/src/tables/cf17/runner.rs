//! The CF'17 table's description: its runners ([`RUNNERS`], the peers' after
//! them), the Prescient parameters each uses for a program (with their
//! short text for tables and JSON), and a run's [`Settings`].

use std::path::PathBuf;

use prescient::Params;

use crate::annotated::AnnotatedProgram;
use crate::cf17::workloads::NAMES;
use crate::cf17::Size;
pub use crate::cf17::SUBCOMMAND;
use crate::cli::{self, default_output};
use crate::harness::{Plan, Runner};
use crate::samples;

/// The table's own runners, in its order: the name (command line, tables,
/// JSON) and the name in the samples.
///
/// * `seq`: the sequential reference (`sequential`; once, at one thread);
/// * `default`: Prescient with [`Params::DEFAULT`] (`prescient-default`);
/// * `tuned`: Prescient with the program's analysed `PARAMS`, its
///   `#[task_program]` (`prescient`: what a user of the macro gets);
/// * `cf17`: Prescient with CF'17's decision trees' choice
///   ([`cf17_params`]; `prescient-cf17`);
/// * `rayon`, `chili`: where the program has such a version.
pub const RUNNERS: [(&str, &str); 6] = [
    ("seq", samples::SEQUENTIAL),
    ("default", "prescient-default"),
    ("tuned", samples::PRESCIENT),
    ("cf17", "prescient-cf17"),
    ("rayon", samples::RAYON),
    ("chili", samples::CHILI),
];

/// The runners with Prescient parameters (and counters).
pub const PRESCIENT_RUNNERS: [&str; 3] = ["default", "tuned", "cf17"];

/// The table's runners: its own ([`RUNNERS`]), then the C/C++ peers'
/// ([`crate::peers`]).
pub fn runners() -> Vec<Runner> {
    crate::harness::table::with_peers(SUBCOMMAND, RUNNERS)
}

/// The Prescient parameters `runner` uses for `program`; `None` for the
/// runners that are not Prescient.
///
/// # Errors
/// If `tuned` or `cf17` is asked for a program that
/// [`crate::annotated::PROGRAMS`] does not list.
pub fn params(runner: &str, program: &str) -> Result<Option<Params>, String> {
    let annotated = || crate::annotated::find(program);
    Ok(match runner {
        "default" => Some(Params::DEFAULT),
        "tuned" => Some(annotated()?.params),
        "cf17" => Some(cf17_params(annotated()?)),
        _ => None,
    })
}

/// The parameters CF'17's decision trees (§3.3.4) choose for `program` from
/// its analysis: the `cf17` runner's (`tuned` is the program's `PARAMS`,
/// from the calibrated trees).
pub fn cf17_params(program: &AnnotatedProgram) -> Params {
    program.analysis.params(prescient::analysis::Trees::Cf17)
}

/// Parameters as short text for tables and JSON:
/// `DEF/16 stack=8192KiB+256KiB buckets=97` (policy/capacity, task stack
/// reserve and, when there is one, commitment; dataflow buckets; the pinning
/// too when it is not `None`).
pub fn params_text(p: &Params) -> String {
    let mut text = format!(
        "{}/{} stack={}KiB",
        p.queue_policy,
        p.queue_capacity,
        p.stack_size / 1024
    );
    if p.committed_stack_size != 0 {
        text += &format!("+{}KiB", p.committed_stack_size / 1024);
    }
    text += &format!(" buckets={}", p.dependency_buckets);
    if p.pinning != prescient::tuning::Pinning::None {
        text += &format!(" pinning={:?}", p.pinning);
    }
    text
}

/// A run's settings, resolved from the table's options.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The table's description: programs, runners, thread counts, the
    /// size as the shared head records it (`paper` is `full`), the
    /// children's timeout.
    pub plan: Plan<&'static str>,
    /// The input size.
    pub size: Size,
    /// Timed runs per configuration.
    pub reps: usize,
    /// Where to write the JSON (none: nowhere).
    pub json: Option<PathBuf>,
    /// The folder of the SVG plots (none: no plots).
    pub plots: Option<PathBuf>,
}

impl Settings {
    /// The settings of a run at `size` with every default: every program
    /// and runner, the threads given, the default repetitions, JSON and
    /// plots.
    pub fn new(size: Size, threads: Vec<usize>) -> Settings {
        let head_size = head_size(size);
        Settings {
            plan: Plan {
                table: SUBCOMMAND,
                size: head_size,
                programs: NAMES.to_vec(),
                runners: runners(),
                threads,
                timeout: cli::default_timeout(head_size),
            },
            size,
            reps: default_reps(size),
            json: default_output("cf17/cf17.json"),
            plots: default_output("cf17"),
        }
    }
}

/// `size` as the shared JSON head records it.
pub fn head_size(size: Size) -> cli::Size {
    match size {
        Size::Paper => cli::Size::Full,
        Size::Quick => cli::Size::Quick,
        Size::Test => cli::Size::Test,
    }
}

/// The default number of timed runs: 5 at the paper's size, 3 at the
/// quick one, 1 at the test size.
pub const fn default_reps(size: Size) -> usize {
    match size {
        Size::Paper => 5,
        Size::Quick => 3,
        Size::Test => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cf17::workloads;

    #[test]
    fn params_per_runner() {
        let fib = crate::annotated::find("fib").unwrap();
        assert_eq!(params("default", "fib"), Ok(Some(Params::DEFAULT)));
        assert_eq!(params("tuned", "fib"), Ok(Some(fib.params)));
        assert_eq!(params("cf17", "fib"), Ok(Some(cf17_params(fib))));
        assert_eq!(
            (params("rayon", "fib"), params("seq", "nope")),
            (Ok(None), Ok(None))
        );
        assert!(params("tuned", "nope").is_err());
        for program in workloads::NAMES {
            assert!(crate::annotated::find(program).is_ok(), "{program}");
        }
        let text = params_text(&Params::DEFAULT);
        let policy = Params::DEFAULT.queue_policy;
        assert!(text.starts_with(&format!(
            "{policy}/{} stack=",
            Params::DEFAULT.queue_capacity
        )));
        assert!(text.contains(" buckets="));
    }
}
