//! Decision trees calibrated on this runtime: what `#[task_program]`'s
//! `PARAMS` use by default ([`Trees::Calibrated`](super::Trees::Calibrated)).
//!
//! # Where they come from
//! CF'17's trees ([`super::cf17`]) were derived "based on empirical
//! experience" on the Insieme runtime. These come from a parameter sweep of
//! the twelve CF'17 programs on Prescient (`cargo bench-run prescient-bench --
//! cf17 --sweep`, stored with its host in
//! `benches/results/sweep/`): every program under the four queue policies ×
//! queue capacities {2, 4, 8, 16, 32, 128} × dependency buckets {97, 1021,
//! 64567, 256019} × stack {analysed, 8 MiB}, best of three runs each, on one
//! and two workers of a 2-core Intel Xeon VM. A learner over the same features
//! as the paper's (ρ, λ, effort; `prescient-bench cf17 --calibrate` prints it, its tree and a
//! leave-one-program-out validation) chose, for the parallel runs, the
//! configuration of least mean `ln(T / T_best)`, splitting only where a split
//! lowered that loss by at least 2 % with two programs or more on each side.
//! Read the thresholds with that in mind: twelve programs on two cores are
//! little data. An earlier sweep of the same grid, before the benchmark
//! children fixed glibc's allocator thresholds, gave a different tree (`BF`
//! everywhere; capacity 128 for effort ≤ 4, else 4) that encodes the same
//! two facts below through another split: the tree is not stable at this
//! amount of data, and a many-core sweep should replace it.
//!
//! # The trees
//! One split, on the effort, at [`VISIBLE_EFFORT_MIN`] (the geometric
//! midpoint between sort's 1,163 and floorplan's 50,539 operations):
//!
//! - **Effort below it — tasks that are fine (fib, delannoy, knapsack, sort,
//!   fft, sparselu) or opaque to the analysis (uts hashes in a helper,
//!   strassen's products are calls, health's effort stops at its recursion):
//!   `BF` with capacity 32.** `BF` inserts at the back and the owner and
//!   thieves both take the oldest task: a FIFO queue, whose oldest entries
//!   were spawned highest in the recursion, the largest pieces. (Joins are
//!   not affected: a join keeps its second half latent and claims it back
//!   whatever the policy.) The opaque programs decide it: at two workers uts
//!   ran 1.49× its best under `BF`/4 and 1.03× under `BF`/32, health 1.94×
//!   and 1.00×, and health 2.25× under the default `DEF`/16 — there a thief
//!   takes the newest task, the deepest and smallest village subtree. For the
//!   join programs capacity and policy hardly matter (within 2–6 %).
//! - **Effort at or above it — the analysis sees real work in each task
//!   (nqueens, floorplan, alignment): `DEF` with capacity 8.** A full queue
//!   is what makes a spawn run inline, and inline is what their fine
//!   recursions need: nqueens ran 1.30× its best under `BF`/32 and 2.70× at
//!   capacity 128, floorplan 1.15× and 2.16×; under `DEF`/8 they ran 1.01×
//!   and 1.03×.
//! - **Dependency buckets: CF'17's rule** ([`super::cf17::dependency_buckets`]):
//!   none of the CF'17 programs creates a dataflow task, so the sweep cannot
//!   tell bucket counts apart — configurations differing only in buckets lay
//!   2.3 % apart (median), the timer's noise — and there is no evidence to
//!   change the rule.
//! - **Stack: the analysed estimate, as a commitment** (what is pre-faulted
//!   and kept by a recycled stack; the reserve stays 8 MiB), where the paper
//!   makes it the stack's size. The stack did not change any program's time
//!   beyond the noise; the estimate costs less memory.

use super::model::ProgramAnalysis;
use crate::params::{Params, QueuePolicy};

/// The effort (in built-in operations) from which the analysis sees real
/// work in a program's tasks: the geometric midpoint between the largest
/// effort of the sweep's fine or opaque programs (sort, 1,163) and the
/// smallest of those with visible work (floorplan, 50,539).
pub const VISIBLE_EFFORT_MIN: u64 = 7_667;
/// Queue capacity for fine or opaque tasks (effort below
/// [`VISIBLE_EFFORT_MIN`]).
pub const FINE_QUEUE_CAPACITY: usize = 32;
/// Queue capacity for tasks with visible work.
pub const VISIBLE_QUEUE_CAPACITY: usize = 8;

/// Queue policy tree: `DEF` if effort ≥ 7,667, else `BF`.
pub const fn queue_policy(_rho: u32, _lambda: u32, effort: u64) -> QueuePolicy {
    if effort >= VISIBLE_EFFORT_MIN {
        QueuePolicy::InsertBackStealBack
    } else {
        QueuePolicy::InsertBackStealFront
    }
}

/// Queue capacity tree: 8 if effort ≥ 7,667, else 32.
pub const fn queue_capacity(_rho: u32, _lambda: u32, effort: u64) -> usize {
    if effort >= VISIBLE_EFFORT_MIN {
        VISIBLE_QUEUE_CAPACITY
    } else {
        FINE_QUEUE_CAPACITY
    }
}

/// Dependency buckets tree: CF'17's (256019 if ρ > 0, else 97).
pub const fn dependency_buckets(rho: u32) -> usize {
    super::cf17::dependency_buckets(rho)
}

/// The calibrated trees applied to the aggregated analysis; every other field
/// is [`Params::DEFAULT`]'s.
pub(crate) const fn decide(analysis: &ProgramAnalysis) -> Params {
    let (rho, lambda, effort) = (analysis.rho, analysis.lambda, analysis.effort);
    Params::DEFAULT
        .with_queue_policy(queue_policy(rho, lambda, effort))
        .with_queue_capacity(queue_capacity(rho, lambda, effort))
        .with_dependency_buckets(dependency_buckets(rho))
        .with_committed_stack_size(analysis.committed_stack_size)
}

/// The trees in one line, for tables.
pub const SUMMARY: &str =
    "DEF/8 if effort >= 7667 (visible work), else BF/32; buckets as CF'17; stack commitment the estimate";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::model::ContextAnalysis;

    #[test]
    fn the_trees_at_their_threshold() {
        assert_eq!(queue_capacity(1, 1, 0), 32);
        assert_eq!(queue_capacity(1, 1, 7_666), 32);
        assert_eq!(queue_capacity(1, 1, 7_667), 8);
        assert_eq!(queue_capacity(0, 3, u64::MAX), 8);
        assert_eq!(queue_policy(2, 0, 7_666), QueuePolicy::InsertBackStealFront);
        assert_eq!(queue_policy(2, 0, 7_667), QueuePolicy::InsertBackStealBack);
    }

    #[test]
    fn decide_is_the_trees() {
        const CONTEXTS: &[ContextAnalysis] = &[ContextAnalysis::new("f", 2, 0, 12, 30_000, &[])];
        const A: ProgramAnalysis = ProgramAnalysis::new("m", CONTEXTS, &[]);
        const P: Params = decide(&A).checked();
        assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
        assert_eq!(P.queue_capacity, 32);
        assert_eq!(P.dependency_buckets, 256_019);
        assert_eq!(P.committed_stack_size, 32 * 1024);
        assert_eq!(P.pinning, Params::DEFAULT.pinning);
    }
}
