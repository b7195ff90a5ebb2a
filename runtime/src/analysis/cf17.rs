//! The decision trees of Thoman, Zangerl and Fahringer (CF'17 §3.3.4), exactly
//! as the paper gives them, derived by its authors "based on empirical
//! experience" on the Insieme runtime:
//!
//! - queue policy = `PF` if ρ > 5 or 1M < e ≤ 1T, else `DEF`;
//! - queue capacity = 128 if ρ = 0 and λ > 0; else 8 if 1M < e ≤ 1T; else 4;
//! - dependency buckets = 256019 if ρ > 0, else 97;
//! - stack size = the aggregated estimate. Here it becomes the stack
//!   *commitment* (`Params::committed_stack_size`, by
//!   [`committed_stack_size`](super::committed_stack_size)'s rule), never a
//!   limit: the reserve stays `Params::stack_size` (8 MiB unless set).
//!
//! Selected by [`Trees::Cf17`](super::Trees::Cf17). Effort is counted in units
//! of one built-in operation, so the paper's 1M / 1T thresholds apply
//! unchanged.

use super::model::ProgramAnalysis;
use crate::params::{Params, QueuePolicy};

/// ρ above which the queue policy becomes `PF` (CF'17 §3.3.4).
pub const PF_RECURSION_THRESHOLD: u32 = 5;
/// The lower, exclusive bound of the "coarse task" effort band: 1M operations.
pub const COARSE_EFFORT_MIN: u64 = 1_000_000;
/// The upper, inclusive bound of the "coarse task" effort band: 1T operations.
pub const COARSE_EFFORT_MAX: u64 = 1_000_000_000_000;
/// Queue capacity for loop-parallel programs (ρ = 0, λ > 0).
pub const LOOP_QUEUE_CAPACITY: usize = 128;
/// Queue capacity for coarse tasks (1M < e ≤ 1T).
pub const COARSE_QUEUE_CAPACITY: usize = 8;
/// Queue capacity otherwise.
pub const SMALL_QUEUE_CAPACITY: usize = 4;
/// Dependency-table buckets for programs with recursive parallelism (ρ > 0).
pub const RECURSIVE_DEPENDENCY_BUCKETS: usize = 256_019;
/// Dependency-table buckets otherwise.
pub const FLAT_DEPENDENCY_BUCKETS: usize = 97;

/// Whether an effort lies in the paper's coarse band 1M < e ≤ 1T.
pub const fn is_coarse(effort: u64) -> bool {
    effort > COARSE_EFFORT_MIN && effort <= COARSE_EFFORT_MAX
}

/// Queue policy tree: `PF` if ρ > 5 or 1M < e ≤ 1T, else `DEF`.
pub const fn queue_policy(rho: u32, effort: u64) -> QueuePolicy {
    if rho > PF_RECURSION_THRESHOLD || is_coarse(effort) {
        QueuePolicy::InsertFrontStealBack
    } else {
        QueuePolicy::InsertBackStealBack
    }
}

/// Queue capacity tree: 128 if ρ = 0 and λ > 0; else 8 if 1M < e ≤ 1T; else 4.
pub const fn queue_capacity(rho: u32, lambda: u32, effort: u64) -> usize {
    if rho == 0 && lambda > 0 {
        LOOP_QUEUE_CAPACITY
    } else if is_coarse(effort) {
        COARSE_QUEUE_CAPACITY
    } else {
        SMALL_QUEUE_CAPACITY
    }
}

/// Dependency buckets tree: 256019 if ρ > 0, else 97.
pub const fn dependency_buckets(rho: u32) -> usize {
    if rho > 0 {
        RECURSIVE_DEPENDENCY_BUCKETS
    } else {
        FLAT_DEPENDENCY_BUCKETS
    }
}

/// CF'17's trees applied to the aggregated analysis; every other field is
/// [`Params::DEFAULT`]'s.
pub(crate) const fn decide(analysis: &ProgramAnalysis) -> Params {
    Params::DEFAULT
        .with_queue_policy(queue_policy(analysis.rho, analysis.effort))
        .with_queue_capacity(queue_capacity(
            analysis.rho,
            analysis.lambda,
            analysis.effort,
        ))
        .with_dependency_buckets(dependency_buckets(analysis.rho))
        .with_committed_stack_size(analysis.committed_stack_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_policy_at_its_thresholds() {
        assert_eq!(queue_policy(0, 0), QueuePolicy::InsertBackStealBack);
        assert_eq!(queue_policy(5, 0), QueuePolicy::InsertBackStealBack);
        assert_eq!(queue_policy(6, 0), QueuePolicy::InsertFrontStealBack);
        assert_eq!(queue_policy(0, 1_000_000), QueuePolicy::InsertBackStealBack);
        assert_eq!(
            queue_policy(0, 1_000_001),
            QueuePolicy::InsertFrontStealBack
        );
        assert_eq!(
            queue_policy(0, 1_000_000_000_000),
            QueuePolicy::InsertFrontStealBack
        );
        assert_eq!(
            queue_policy(0, 1_000_000_000_001),
            QueuePolicy::InsertBackStealBack
        );
        assert_eq!(queue_policy(6, u64::MAX), QueuePolicy::InsertFrontStealBack);
    }

    #[test]
    fn queue_capacity_at_its_thresholds() {
        assert_eq!(queue_capacity(0, 1, 0), 128);
        assert_eq!(
            queue_capacity(0, 1, 5_000_000),
            128,
            "the loop rule comes first"
        );
        assert_eq!(queue_capacity(1, 1, 0), 4);
        assert_eq!(queue_capacity(0, 0, 1_000_000), 4);
        assert_eq!(queue_capacity(0, 0, 1_000_001), 8);
        assert_eq!(queue_capacity(3, 7, 1_000_000_000_000), 8);
        assert_eq!(queue_capacity(0, 0, 1_000_000_000_001), 4);
    }

    #[test]
    fn dependency_buckets_at_its_threshold() {
        assert_eq!(dependency_buckets(0), 97);
        assert_eq!(dependency_buckets(1), 256_019);
    }
}
