//! Decision trees calibrated on this runtime (placeholder: CF'17's until the
//! sweep is in).

use super::ProgramAnalysis;
use crate::params::Params;

/// The calibrated trees applied to the aggregated analysis.
pub const fn decide(analysis: &ProgramAnalysis) -> Params {
    super::cf17::decide(analysis)
}

/// The trees in one line, for tables.
pub const SUMMARY: &str = "placeholder";
