//! The CF'17 table's runners ([`RUNNERS`], a peer's after them) and the
//! Prescient parameters each uses for a program, with their short text for
//! tables and JSON.

use prescient::Params;

use crate::annotated::AnnotatedProgram;
use crate::harness::{peers, Kind, Runner};
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

/// The table's runners: its own ([`RUNNERS`]), then every peer found.
pub fn runners() -> Vec<Runner> {
    let own = RUNNERS
        .iter()
        .map(|&(name, sample)| {
            let kind = if name == "seq" {
                Kind::Sequential
            } else {
                Kind::Own
            };
            Runner::new(name, sample, kind)
        })
        .collect();
    peers::with_peers(own)
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
    if p.pinning != prescient::Pinning::None {
        text += &format!(" pinning={:?}", p.pinning);
    }
    text
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
