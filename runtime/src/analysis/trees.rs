//! Which decision trees turn a [`ProgramAnalysis`] into [`Params`]
//! ([`Trees`], [`ProgramAnalysis::params`]), and the analysis report
//! (`Display for ProgramAnalysis`), which prints both trees' choices.

use super::calibrated;
use super::cf17;
use super::model::{ProgramAnalysis, UNBOUNDED_STACK_ESTIMATE};
use crate::params::Params;
use core::fmt;

/// Which decision trees turn an analysis into [`Params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trees {
    /// The trees of the CF'17 paper, derived on the Insieme runtime
    /// ([`cf17`]).
    Cf17,
    /// Trees calibrated on this runtime from a parameter sweep of the CF'17
    /// programs ([`calibrated`]); what `#[task_program]`'s `PARAMS` use.
    Calibrated,
}

impl Trees {
    /// The trees `#[task_program]` uses unless told otherwise.
    pub const DEFAULT: Trees = Trees::Calibrated;
    /// Both sets, for tables.
    pub const ALL: [Trees; 2] = [Trees::Cf17, Trees::Calibrated];

    /// A short name for tables: `cf17` or `calibrated`.
    pub const fn name(self) -> &'static str {
        match self {
            Trees::Cf17 => "cf17",
            Trees::Calibrated => "calibrated",
        }
    }
}

impl ProgramAnalysis {
    /// The parameters `trees` choose for this analysis; every field the
    /// trees do not decide is [`Params::DEFAULT`]'s. A `#[task_program]`
    /// module's `PARAMS` start from `ANALYSIS.params(Trees::DEFAULT)` (or
    /// the trees its `trees = …` argument names).
    ///
    /// ```
    /// use prescient::analysis::{ProgramAnalysis, Trees};
    /// const EMPTY: ProgramAnalysis = ProgramAnalysis::new("empty", &[], &[]);
    /// const PARAMS: prescient::Params = EMPTY.params(Trees::DEFAULT).checked();
    /// assert_eq!(PARAMS.committed_stack_size, 0); // no stack estimated: none committed
    /// ```
    pub const fn params(&self, trees: Trees) -> Params {
        match trees {
            Trees::Cf17 => cf17::decide(self),
            Trees::Calibrated => calibrated::decide(self),
        }
    }
}

impl fmt::Display for ProgramAnalysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let other = match Trees::DEFAULT {
            Trees::Cf17 => Trees::Calibrated,
            Trees::Calibrated => Trees::Cf17,
        };
        writeln!(
            f,
            "task program {}: {} task context(s), {} spawn site(s)",
            self.module,
            self.contexts.len(),
            self.sites.len()
        )?;
        write!(
            f,
            "  aggregated: rho = {}, lambda = {}, effort = {}, stack = {} B -> ",
            self.rho, self.lambda, self.effort, self.stack_estimate
        )?;
        if self.committed_stack_size == 0 && self.stack_estimate >= UNBOUNDED_STACK_ESTIMATE {
            writeln!(f, "no commitment (unbounded)")?;
        } else if self.committed_stack_size == 0 {
            writeln!(f, "no commitment (below the smallest)")?;
        } else {
            writeln!(f, "{} B committed", self.committed_stack_size)?;
        }
        // The default trees' choice (`PARAMS`) first, then the other set's.
        for trees in [Trees::DEFAULT, other] {
            let params = self.params(trees);
            writeln!(
                f,
                "  params ({} trees): queue policy {}, queue capacity {}, dependency buckets {}, \
                 stack reserve {}, committed stack {}",
                match trees {
                    Trees::Cf17 => "CF'17",
                    Trees::Calibrated => "calibrated",
                },
                params.queue_policy,
                params.queue_capacity,
                params.dependency_buckets,
                params.stack_size,
                params.committed_stack_size
            )?;
        }
        for c in self.contexts {
            write!(
                f,
                "  context {}: rho = {}, lambda = {}, effort = {}, stack = {} B, sites",
                c.function, c.rho, c.lambda, c.effort, c.stack
            )?;
            for s in c.sites {
                write!(f, " #{}", s.index)?;
            }
            writeln!(f)?;
            for u in c.unseen {
                writeln!(f, "    not seen: {u}")?;
            }
        }
        for s in self.sites {
            writeln!(
                f,
                "  site #{} {} in {} at {}:{}:{}{}: effort {}",
                s.index,
                s.kind,
                s.function,
                s.file,
                s.line,
                s.column,
                if s.in_loop { " (in a loop)" } else { "" },
                s.static_effort
            )?;
        }
        Ok(())
    }
}
