//! Decision trees calibrated on this runtime: what `#[task_program]`'s
//! `PARAMS` use by default ([`Trees::Calibrated`](super::Trees::Calibrated)).
//!
//! # Where they come from
//! CF'17's trees ([`super::cf17`]) were derived "based on empirical
//! experience" on the Insieme runtime. These come from a parameter sweep of
//! the twelve CF'17 programs on Prescient (`cargo run --release -p
//! prescient-benches --bin cf17 -- --sweep`, stored with its host in
//! `benches/results/sweep/`): every program under the four queue policies ×
//! queue capacities {2, 4, 8, 16, 32, 128} × dependency buckets {97, 1021,
//! 64567, 256019} × stack {analysed, 8 MiB}, best of three runs each, on one
//! and two workers of a 2-core Intel Xeon VM. A learner over the same features
//! as the paper's (ρ, λ, effort; `cf17 --calibrate` prints it, its tree and a
//! leave-one-program-out validation) chose, for the parallel runs, the
//! configuration of least mean `ln(T / T_best)`, splitting only where a split
//! lowered that loss by at least 2 % with two programs or more on each side.
//! Read the thresholds with that in mind: twelve programs on two cores are
//! little data, and a many-core sweep may move them.
//!
//! # The trees
//! - **Queue policy: `BF` for every program**: insert at the back, and the
//!   owner and thieves both take the oldest task — a FIFO queue, whose
//!   oldest entries are the ones spawned highest in the recursion, the
//!   largest pieces. (Joins are not affected: a join keeps its second half
//!   latent and claims it back whatever the policy.) Over the nine programs
//!   of its leaf it is within 1.4 % of each one's best on average. The
//!   policy matters most for health: at two workers and capacity 16 it ran
//!   1.00× its best under `BF` and 2.08× under `DEF`, where a thief takes the
//!   newest task — the deepest, smallest village subtree.
//! - **Queue capacity: 128 if effort ≤ [`OPAQUE_EFFORT_MAX`], else 4.** An
//!   effort of a few operations means the analysis saw almost nothing of a
//!   task: calls it cannot look into (uts hashes in a helper, strassen's
//!   products are calls) or a recursion it does not count into (health), so
//!   the real tasks are coarser than the effort says and thieves need many of
//!   them queued: under `BF` at two workers uts ran 1.43× its best at
//!   capacity 4 and 1.01× at 128, health 1.63× and 1.05×. Where the analysis
//!   sees the work, small queues win: nqueens ran 2.67× its best at capacity
//!   128 and floorplan 2.14×, because a full queue is what makes a spawn run
//!   inline, and inline is what a fine recursion needs. Capacity 4 is the
//!   paper's. The threshold is fragile: uts sits on it (effort 4), and a
//!   task with no work at all (effort 0) counts as opaque.
//! - **Dependency buckets: CF'17's rule** ([`super::cf17::dependency_buckets`]):
//!   none of the CF'17 programs creates a dataflow task, so the sweep cannot
//!   tell bucket counts apart — configurations differing only in buckets lay
//!   2.7 % apart (median), the timer's noise — and there is no evidence to
//!   change the rule.
//! - **Stack size: the analysed estimate**, as in the paper. The stack did
//!   not change any program's time beyond the noise; the estimate costs less
//!   memory.

use super::ProgramAnalysis;
use crate::params::{Params, QueuePolicy};

/// The effort (in built-in operations) at or below which the analysis saw
/// only opaque calls in a program's tasks: between the largest such program
/// of the sweep (uts, 4) and the smallest with visible work (fib, 6).
pub const OPAQUE_EFFORT_MAX: u64 = 4;
/// Queue capacity for programs whose task effort is opaque.
pub const OPAQUE_QUEUE_CAPACITY: usize = 128;
/// Queue capacity otherwise (the paper's small capacity).
pub const VISIBLE_QUEUE_CAPACITY: usize = 4;

/// Queue policy tree: `BF` for every program.
pub const fn queue_policy(_rho: u32, _lambda: u32, _effort: u64) -> QueuePolicy {
    QueuePolicy::InsertBackStealFront
}

/// Queue capacity tree: 128 if effort ≤ 4, else 4.
pub const fn queue_capacity(_rho: u32, _lambda: u32, effort: u64) -> usize {
    if effort <= OPAQUE_EFFORT_MAX {
        OPAQUE_QUEUE_CAPACITY
    } else {
        VISIBLE_QUEUE_CAPACITY
    }
}

/// Dependency buckets tree: CF'17's (256019 if ρ > 0, else 97).
pub const fn dependency_buckets(rho: u32) -> usize {
    super::cf17::dependency_buckets(rho)
}

/// The calibrated trees applied to the aggregated analysis; every other field
/// is [`Params::DEFAULT`]'s.
pub const fn decide(analysis: &ProgramAnalysis) -> Params {
    let (rho, lambda, effort) = (analysis.rho, analysis.lambda, analysis.effort);
    Params::DEFAULT
        .with_queue_policy(queue_policy(rho, lambda, effort))
        .with_queue_capacity(queue_capacity(rho, lambda, effort))
        .with_dependency_buckets(dependency_buckets(rho))
        .with_analysed_stack_size(analysis.stack_size)
}

/// The trees in one line, for tables.
pub const SUMMARY: &str =
    "policy BF; capacity 128 if effort <= 4 (opaque tasks), else 4; buckets as CF'17; stack the estimate";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ContextAnalysis;

    #[test]
    fn capacity_at_its_threshold() {
        assert_eq!(queue_capacity(1, 1, 0), 128);
        assert_eq!(queue_capacity(1, 1, 4), 128);
        assert_eq!(queue_capacity(1, 1, 5), 4);
        assert_eq!(queue_capacity(0, 3, u64::MAX), 4);
    }

    #[test]
    fn decide_is_the_trees() {
        const CONTEXTS: &[ContextAnalysis] = &[ContextAnalysis::new("f", 2, 0, 12, 30_000, &[])];
        const A: ProgramAnalysis = ProgramAnalysis::new("m", CONTEXTS, &[]);
        const P: Params = decide(&A).checked();
        assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
        assert_eq!(P.queue_capacity, 4);
        assert_eq!(P.dependency_buckets, 256_019);
        assert_eq!(P.stack_size, 32 * 1024);
        assert!(P.stack_size_is_analysed());
        assert_eq!(P.pinning, Params::DEFAULT.pinning);
    }
}
