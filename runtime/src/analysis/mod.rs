//! What `#[task_program]` found, and the `const fn`s that turn it into
//! [`Params`](crate::Params) (Thoman, Zangerl, Fahringer, CF'17 §3.2–3.3).
//!
//! The macro emits the *raw* analysis of an annotated module: per task context
//! (the function that contains spawn sites) the parallel structure ρ and λ, the
//! effort of its tasks and the stack it needs, plus a table of its spawn sites.
//! Effort and stack terms are `const` expressions — `core::mem::size_of::<T>()`,
//! module-level `const` loop bounds — that rustc evaluates. This module does the
//! rest at compile time:
//!
//! * **aggregation** (§3.3, [`ProgramAnalysis::new`]): ρ and λ by minimum over the
//!   contexts, effort by mean, stack by maximum; from the stack estimate, the
//!   stack *commitment* ([`committed_stack_size`]: whole 4 KiB pages, at most
//!   [`MAX_ANALYSED_COMMITMENT`], nothing for an unbounded estimate or one
//!   below [`MIN_STACK_SIZE`](crate::tuning::MIN_STACK_SIZE)), never a limit —
//!   pre-faulting is a speed optimisation, so an estimate that is large or
//!   uncertain commits less, never more (the rule and its reasons are at
//!   [`committed_stack_size`]);
//! * **decision trees** ([`ProgramAnalysis::params`]), two sets selected by
//!   [`Trees`]:
//!   - [`Trees::Cf17`] ([`cf17`]): the paper's §3.3.4 trees exactly, derived by
//!     its authors on the Insieme runtime;
//!   - [`Trees::Calibrated`] ([`calibrated`], the default, what `PARAMS` use):
//!     the same features, thresholds derived from a parameter sweep of the
//!     CF'17 programs on this runtime.
//!
//!   Both decide queue policy, queue capacity, dependency buckets and the
//!   committed stack; every other field stays at [`Params::DEFAULT`](crate::Params::DEFAULT) (the
//!   stack *reserve*, `stack_size`, included: 8 MiB unless the attribute
//!   sets it).
//!
//! Effort is counted in units of one built-in operation (the macro documents its
//! cost table), so the paper's 1M / 1T thresholds apply unchanged. All arithmetic
//! saturates.
//!
//! Each spawn site is a `static` the macro emits in the annotated module; its
//! address is the site's identity, unique across every annotated module of a
//! program. [`ProgramAnalysis::sites`] and [`ContextAnalysis::sites`] refer to
//! the [`SiteInfo`] inside those statics (a `const` may refer to a `static`
//! since Rust 1.83). What only the emitted code uses — the site statics' type
//! and the `const fn` helpers of its expressions — lives in `emitted.rs`,
//! reachable as `prescient::__private`.

mod model;
mod trees;

pub mod calibrated;
pub mod cf17;
pub(crate) mod emitted;

pub(crate) use emitted::SpawnSite;
pub use model::{
    committed_stack_size, ContextAnalysis, ProgramAnalysis, SiteInfo, SiteKind, Unseen, UnseenKind,
    COMMITMENT_GRANULE, MAX_ANALYSED_COMMITMENT, UNBOUNDED_STACK_ESTIMATE,
};
pub use trees::Trees;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Params, QueuePolicy, DEFAULT_STACK_SIZE};

    const fn ctx(rho: u32, lambda: u32, effort: u64, stack: u64) -> ContextAnalysis {
        ContextAnalysis::new("f", rho, lambda, effort, stack, &[])
    }

    #[test]
    fn committed_stack_size_rounds_caps_and_gives_up_on_unbounded() {
        // Below the smallest commitment: nothing rather than more.
        assert_eq!(committed_stack_size(0), 0);
        assert_eq!(committed_stack_size(16 * 1024 - 1), 0);
        assert_eq!(committed_stack_size(16 * 1024), 16 * 1024);
        assert_eq!(committed_stack_size(16 * 1024 + 1), 20 * 1024);
        assert_eq!(committed_stack_size(100_000), 100 * 1024);
        // Large: at most the cap.
        assert_eq!(committed_stack_size(256 * 1024), 256 * 1024);
        assert_eq!(committed_stack_size(256 * 1024 + 1), 256 * 1024);
        assert_eq!(committed_stack_size(4_745_281), 256 * 1024);
        assert_eq!(committed_stack_size((8 << 20) - 1), 256 * 1024);
        // Unbounded: nothing.
        assert_eq!(committed_stack_size(8 << 20), 0);
        assert_eq!(committed_stack_size((8 << 20) + 1), 0);
        assert_eq!(committed_stack_size(u64::MAX), 0);
    }

    #[test]
    fn aggregation_is_min_min_mean_max() {
        const CONTEXTS: &[ContextAnalysis] = &[ctx(2, 3, 10, 40_000), ctx(7, 1, 30, 1_000)];
        const A: ProgramAnalysis = ProgramAnalysis::new("m", CONTEXTS, &[]);
        assert_eq!((A.rho, A.lambda, A.effort), (2, 1, 20));
        assert_eq!(A.stack_estimate, 40_000);
        assert_eq!(A.committed_stack_size, 40 * 1024);
        const EMPTY: ProgramAnalysis = ProgramAnalysis::new("m", &[], &[]);
        assert_eq!((EMPTY.rho, EMPTY.lambda, EMPTY.effort), (0, 0, 0));
        assert_eq!(EMPTY.committed_stack_size, 0);
        assert_eq!(EMPTY.params(Trees::DEFAULT).validate(), Ok(()));
    }

    #[test]
    fn decide_fib_like_and_loop_like() {
        // fib: recursive, tiny tasks.
        const FIB: ProgramAnalysis = ProgramAnalysis::new("fib", &[ctx(2, 0, 12, 30_000)], &[]);
        const P: Params = FIB.params(Trees::Cf17).checked();
        assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealBack);
        assert_eq!(P.queue_capacity, 4);
        assert_eq!(P.dependency_buckets, 256_019);
        assert_eq!(P.committed_stack_size, 32 * 1024);
        assert_eq!(P.stack_size, DEFAULT_STACK_SIZE);
        assert_eq!(P.pinning, Params::DEFAULT.pinning);
        // A loop of coarse tasks.
        const LOOP: ProgramAnalysis =
            ProgramAnalysis::new("loop", &[ctx(0, 1, 50_000_000, 1_000)], &[]);
        let p = LOOP.params(Trees::Cf17);
        assert_eq!(p.queue_policy, QueuePolicy::InsertFrontStealBack);
        assert_eq!(p.queue_capacity, 128);
        assert_eq!(p.dependency_buckets, 97);
        // 1000 B: below the smallest commitment, so none.
        assert_eq!(p.committed_stack_size, 0);
        // Deep recursion picks PF.
        const DEEP: ProgramAnalysis = ProgramAnalysis::new("r", &[ctx(6, 0, 1, 1)], &[]);
        assert_eq!(
            DEEP.params(Trees::Cf17).queue_policy,
            QueuePolicy::InsertFrontStealBack
        );
    }

    #[test]
    fn the_estimate_is_a_commitment_and_the_reserve_stays() {
        const FIB: ProgramAnalysis = ProgramAnalysis::new("fib", &[ctx(2, 0, 12, 30_000)], &[]);
        const P: Params = FIB.params(Trees::DEFAULT).checked();
        assert_eq!(P.committed_stack_size, 32 * 1024);
        assert_eq!(P.stack_size, DEFAULT_STACK_SIZE);
        assert_eq!(Params::DEFAULT.committed_stack_size, 0);
        // The attribute's `stack_size = …` override sets the reserve and
        // keeps the commitment.
        let explicit = P.with_stack_size(256 << 20);
        assert_eq!(explicit.stack_size, 256 << 20);
        assert_eq!(explicit.committed_stack_size, 32 * 1024);
        // An unbounded recursion commits nothing.
        const DEEP: ProgramAnalysis =
            ProgramAnalysis::new("deep", &[ctx(2, 0, 12, UNBOUNDED_STACK_ESTIMATE)], &[]);
        assert_eq!(DEEP.params(Trees::DEFAULT).committed_stack_size, 0);
        assert!(DEEP.to_string().contains("no commitment (unbounded)"));
        // Nor does a small one; a large one commits at most the cap.
        const SMALL: ProgramAnalysis = ProgramAnalysis::new("small", &[ctx(0, 1, 9, 9_000)], &[]);
        assert_eq!(SMALL.committed_stack_size, 0);
        assert!(SMALL
            .to_string()
            .contains("stack = 9000 B -> no commitment (below the smallest)"));
        const LARGE: ProgramAnalysis = ProgramAnalysis::new("large", &[ctx(2, 0, 9, 4 << 20)], &[]);
        assert_eq!(
            LARGE.params(Trees::DEFAULT).committed_stack_size as u64,
            MAX_ANALYSED_COMMITMENT
        );
    }

    #[test]
    fn display_reports_contexts_and_sites() {
        static SITE: SpawnSite = SpawnSite::new(
            "demo::fib",
            0,
            "fib",
            SiteKind::Join,
            "src/lib.rs",
            7,
            9,
            false,
            12,
        );
        const SITES: [&SiteInfo; 1] = [&SITE.info];
        const CONTEXTS: [ContextAnalysis; 1] =
            [ContextAnalysis::new("fib", 2, 0, 12, 30_000, &SITES)];
        const A: ProgramAnalysis = ProgramAnalysis::new("demo::fib", &CONTEXTS, &SITES);
        assert!(core::ptr::eq(A.sites[0], &SITE.info));
        assert!(core::ptr::eq(A.contexts[0].sites[0], &SITE.info));
        let text = A.to_string();
        assert!(text.contains("task program demo::fib: 1 task context(s), 1 spawn site(s)"));
        assert!(text
            .contains("context fib: rho = 2, lambda = 0, effort = 12, stack = 30000 B, sites #0"));
        assert!(text.contains("site #0 join in fib at src/lib.rs:7:9: effort 12"));
        // Both trees' choices, the default (calibrated, `PARAMS`) first.
        // Calibrated: effort 12 < 7667: fine or opaque tasks, BF/32; ρ = 2 > 0:
        // 256019 buckets; 30000 B -> 32 KiB.
        let calibrated = "  params (calibrated trees): queue policy BF, queue capacity 32, \
                          dependency buckets 256019, stack reserve 8388608, committed stack 32768\n";
        // CF'17: ρ = 2 ≤ 5 and effort ≤ 1M: DEF; capacity 4 (effort ≤ 1M).
        let cf17 = "  params (CF'17 trees): queue policy DEF, queue capacity 4, \
                    dependency buckets 256019, stack reserve 8388608, committed stack 32768\n";
        let (at_calibrated, at_cf17) = (text.find(calibrated), text.find(cf17));
        assert!(at_calibrated.is_some(), "{text}");
        assert!(at_cf17.is_some(), "{text}");
        assert!(
            at_calibrated < at_cf17,
            "the default trees' line comes first:\n{text}"
        );
        assert!(!text.contains("not seen"), "{text}");
        assert_eq!(SITE.function, "fib");
        assert_eq!(
            SITE.to_string(),
            "demo::fib::fib#0 (join) at src/lib.rs:7:9"
        );
    }

    #[test]
    fn display_reports_what_the_analysis_could_not_see() {
        const UNSEEN: [Unseen; 3] = [
            Unseen::new(UnseenKind::Call, 3, "other::f", "src/lib.rs", 12, 5),
            Unseen::new(
                UnseenKind::IndirectCall,
                1,
                "(v.visit)",
                "src/lib.rs",
                14,
                9,
            ),
            Unseen::new(UnseenKind::UnknownSize, 2, "", "src/lib.rs", 9, 13),
        ];
        const CONTEXTS: [ContextAnalysis; 2] = [
            ContextAnalysis::new("walk", 1, 0, 40, 30_000, &[]).with_unseen(&UNSEEN),
            ContextAnalysis::new("leaf", 0, 0, 1, 100, &[]),
        ];
        const A: ProgramAnalysis = ProgramAnalysis::new("demo", &CONTEXTS, &[]);
        assert_eq!(A.contexts[0].unseen.len(), 3);
        assert!(A.contexts[1].unseen.is_empty());
        let text = A.to_string();
        let walk = "  context walk: rho = 1, lambda = 0, effort = 40, stack = 30000 B, sites\n\
                    \x20   not seen: 3 calls of functions outside the module, first `other::f` at src/lib.rs:12:5\n\
                    \x20   not seen: 1 calls through function pointers or closures in values, first `(v.visit)` at src/lib.rs:14:9\n\
                    \x20   not seen: 2 locals of unwritten size, first at src/lib.rs:9:13\n\
                    \x20 context leaf:";
        assert!(text.contains(walk), "{text}");
        assert_eq!(
            UnseenKind::Macro.to_string(),
            "macro invocations not expanded"
        );
    }
}
