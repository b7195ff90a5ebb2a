//! The suite's runners ([`Runner`]) and the Prescient parameters each uses
//! for a program, with their short text for tables and JSON.

use std::fmt;

use prescient::Params;

use crate::annotated::AnnotatedProgram;

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runner {
    /// The sequential reference, no runtime (measured once, at one thread).
    Seq,
    /// Prescient with [`Params::DEFAULT`].
    Default,
    /// Prescient with the program's analysed `PARAMS` (its `#[task_program]`).
    Tuned,
    /// Prescient with CF'17's decision trees' choice ([`cf17_params`]).
    Cf17,
    /// rayon, where the program has a rayon version.
    Rayon,
    /// chili, where the program has a chili version.
    Chili,
}

impl Runner {
    /// Every runner, in the table's order.
    pub const ALL: [Runner; 6] = [
        Runner::Seq,
        Runner::Default,
        Runner::Tuned,
        Runner::Cf17,
        Runner::Rayon,
        Runner::Chili,
    ];

    /// The runner's name on the command line, in tables and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Seq => "seq",
            Runner::Default => "default",
            Runner::Tuned => "tuned",
            Runner::Cf17 => "cf17",
            Runner::Rayon => "rayon",
            Runner::Chili => "chili",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The runner's name in the shared samples of the JSON
    /// ([`crate::samples`]): `sequential`, `prescient` for `tuned` (the
    /// analysed parameters: the runtime as a `#[task_program]` user gets
    /// it), `prescient-default`, `prescient-cf17`, `rayon`, `chili`.
    pub const fn sample_name(self) -> &'static str {
        match self {
            Runner::Seq => crate::samples::SEQUENTIAL,
            Runner::Default => "prescient-default",
            Runner::Tuned => crate::samples::PRESCIENT,
            Runner::Cf17 => "prescient-cf17",
            Runner::Rayon => crate::samples::RAYON,
            Runner::Chili => crate::samples::CHILI,
        }
    }

    /// Whether this runner uses threads (everything but [`Runner::Seq`]).
    pub const fn is_parallel(self) -> bool {
        !matches!(self, Runner::Seq)
    }

    /// Whether this runner is Prescient (and so has parameters and counters).
    pub const fn is_prescient(self) -> bool {
        matches!(self, Runner::Default | Runner::Tuned | Runner::Cf17)
    }

    /// The Prescient parameters this runner uses for `program`; `None` for
    /// the runners that are not Prescient.
    ///
    /// # Errors
    /// If `tuned` or `cf17` is asked for a program that
    /// [`crate::annotated::PROGRAMS`] does not list.
    pub fn params(self, program: &str) -> Result<Option<Params>, String> {
        let annotated = || crate::annotated::find(program);
        Ok(match self {
            Runner::Default => Some(Params::DEFAULT),
            Runner::Tuned => Some(annotated()?.params),
            Runner::Cf17 => Some(cf17_params(annotated()?)),
            Runner::Seq | Runner::Rayon | Runner::Chili => None,
        })
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cf17::workloads;

    #[test]
    fn names_round_trip() {
        for r in Runner::ALL {
            assert_eq!(Runner::parse(r.name()), Some(r));
        }
        assert_eq!(Runner::parse("prescient"), None);
        assert!(!Runner::Seq.is_parallel());
        assert!(Runner::Cf17.is_prescient() && !Runner::Rayon.is_prescient());
    }

    #[test]
    fn params_per_runner() {
        let fib = crate::annotated::find("fib").unwrap();
        assert_eq!(Runner::Default.params("fib"), Ok(Some(Params::DEFAULT)));
        assert_eq!(Runner::Tuned.params("fib"), Ok(Some(fib.params)));
        assert_eq!(Runner::Cf17.params("fib"), Ok(Some(cf17_params(fib))));
        assert_eq!(Runner::Rayon.params("fib"), Ok(None));
        assert_eq!(Runner::Seq.params("nope"), Ok(None));
        assert!(Runner::Tuned.params("nope").is_err());
        for program in workloads::NAMES {
            assert!(
                crate::annotated::find(program).is_ok(),
                "{program} has no annotated program"
            );
        }
    }

    #[test]
    fn params_as_text() {
        let text = params_text(&Params::DEFAULT);
        assert!(text.starts_with(&format!(
            "{}/{} stack=",
            Params::DEFAULT.queue_policy,
            Params::DEFAULT.queue_capacity
        )));
        assert!(!text.contains(' ') || text.contains("buckets="));
    }
}
