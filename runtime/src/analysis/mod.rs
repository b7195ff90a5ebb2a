//! What `#[task_program]` found, and the `const fn`s that turn it into
//! [`Params`] (Thoman, Zangerl, Fahringer, CF'17 §3.2–3.3).
//!
//! The macro emits the *raw* analysis of an annotated module: per task context
//! (the function that contains spawn sites) the parallel structure ρ and λ, the
//! effort of its tasks and the stack it needs, plus a table of its spawn sites.
//! Effort and stack terms are `const` expressions — `core::mem::size_of::<T>()`,
//! module-level `const` loop bounds — that rustc evaluates. This module does the
//! rest at compile time:
//!
//! * **aggregation** (§3.3, [`ProgramAnalysis::new`]): ρ and λ by minimum over the
//!   contexts, effort by mean, stack by maximum, rounded up to whole 4 KiB
//!   pages, at least [`MIN_STACK_SIZE`]: the stack *commitment*
//!   ([`committed_stack_size`]), never a limit;
//! * **decision trees** ([`decide_with`]), two sets selected by [`Trees`]:
//!   - [`Trees::Cf17`] ([`cf17`]): the paper's §3.3.4 trees exactly, derived by
//!     its authors on the Insieme runtime;
//!   - [`Trees::Calibrated`] ([`calibrated`], the default, what `PARAMS` use):
//!     the same features, thresholds derived from a parameter sweep of the
//!     CF'17 programs on this runtime.
//!
//!   Both decide queue policy, queue capacity, dependency buckets and the
//!   committed stack; every other field stays at [`Params::DEFAULT`] (the
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

use crate::params::{Params, DEFAULT_STACK_SIZE, MIN_STACK_SIZE};
use core::fmt;

pub mod calibrated;
pub mod cf17;
pub(crate) mod emitted;

pub use cf17::{is_coarse, COARSE_EFFORT_MAX, COARSE_EFFORT_MIN};
pub(crate) use emitted::SpawnSite;

/// Which spawn construct a site is. More constructs may be added: match with
/// a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SiteKind {
    /// `join(a, b)`.
    Join,
    /// `spawn(f)`.
    Spawn,
    /// `spawn` on the scope value a `scope` closure receives.
    ScopeSpawn,
    /// `spawn` on a task group.
    GroupSpawn,
    /// A dataflow task.
    DataflowTask,
    /// A parallel range loop, [`for_range`](crate::for_range) or
    /// [`for_range_chunked`](crate::for_range_chunked): its task body is the
    /// loop body, and the site counts as in a loop (λ).
    RangeLoop,
}

impl SiteKind {
    /// A short name for tables: `join`, `spawn`, `scope spawn`, `group spawn`,
    /// `dataflow task`, `range loop`.
    pub const fn name(self) -> &'static str {
        match self {
            SiteKind::Join => "join",
            SiteKind::Spawn => "spawn",
            SiteKind::ScopeSpawn => "scope spawn",
            SiteKind::GroupSpawn => "group spawn",
            SiteKind::DataflowTask => "dataflow task",
            SiteKind::RangeLoop => "range loop",
        }
    }
}

impl fmt::Display for SiteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The static description of one spawn site, as the analyzer saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SiteInfo {
    /// `module_path!()` of the annotated module.
    pub module: &'static str,
    /// The site's index in its module's site table (source order).
    pub index: u32,
    /// The enclosing function (its task context), `name` or `Type::name`.
    pub function: &'static str,
    /// The spawn construct.
    pub kind: SiteKind,
    /// Source file of the site.
    pub file: &'static str,
    /// Line of the site (1-based).
    pub line: u32,
    /// Column of the site (1-based).
    pub column: u32,
    /// Whether the site sits inside a loop (`for`, `while`, `loop`, or an
    /// iterator closure such as `for_each`) of its function; always for a
    /// [range loop](SiteKind::RangeLoop), which is a loop itself.
    pub in_loop: bool,
    /// The static effort estimate of the tasks this site spawns, in built-in
    /// operations (for a range loop: one call of its body): the starting
    /// point of adaptive inlining.
    pub static_effort: u64,
}

impl fmt::Display for SiteInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}::{}#{} ({}) at {}:{}:{}",
            self.module, self.function, self.index, self.kind, self.file, self.line, self.column
        )
    }
}

/// The analysis of one task context: a function that contains spawn sites.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ContextAnalysis {
    /// The context's function, `name` or `Type::name`.
    pub function: &'static str,
    /// ρ: recursive parallel paths reachable from the context (CF'17 Alg. 2).
    pub rho: u32,
    /// λ: spawn sites reachable from the context that execute inside a loop.
    pub lambda: u32,
    /// Mean static effort of the tasks spawned in this context, in built-in
    /// operations (CF'17 Alg. 3).
    pub effort: u64,
    /// Estimated stack bytes needed to run the context's function, including
    /// recursion and the runtime's join frames (CF'17 Alg. 4).
    pub stack: u64,
    /// The context's spawn sites.
    pub sites: &'static [&'static SiteInfo],
    /// What the analysis could not see in the context's function and the
    /// module functions it reaches, one entry per kind: where its effort and
    /// stack are documented estimates rather than what the code says.
    pub unseen: &'static [Unseen],
}

impl ContextAnalysis {
    /// A context's analysis, as the macro emits it (nothing unseen; see
    /// [`with_unseen`](Self::with_unseen)).
    pub const fn new(
        function: &'static str,
        rho: u32,
        lambda: u32,
        effort: u64,
        stack: u64,
        sites: &'static [&'static SiteInfo],
    ) -> ContextAnalysis {
        ContextAnalysis {
            function,
            rho,
            lambda,
            effort,
            stack,
            sites,
            unseen: &[],
        }
    }

    /// The same analysis, with what it could not see.
    pub const fn with_unseen(self, unseen: &'static [Unseen]) -> ContextAnalysis {
        ContextAnalysis { unseen, ..self }
    }
}

/// A kind of code the analysis cannot see into, size or count, whose
/// effort or stack it estimates instead (the macro's documentation gives
/// each estimate). More kinds may be added: match with a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnseenKind {
    /// Calls of functions outside the module (other modules, other crates,
    /// `std`).
    Call,
    /// Method calls the module does not define, or on values whose type is
    /// visibly not the module's (`v.len()`, `row.iter().sum()`).
    MethodCall,
    /// Method calls matched to the module's methods by name only: the
    /// analysis follows every module method of that name.
    MethodByName,
    /// Calls through function pointers, closures or tasks held in values:
    /// the analysis follows every module function that escapes into a value.
    IndirectCall,
    /// Macro invocations it did not expand (the module's own `macro_rules!`
    /// macros are expanded).
    Macro,
    /// Locals and temporaries whose size is not written (a generic `T`, the
    /// result of a method chain).
    UnknownSize,
    /// Loops whose trip count it could not read (`while`, `loop`, a bound
    /// that is not a literal or a module `const`).
    UnknownTrip,
}

impl UnseenKind {
    /// What the kind is, in the plural, for the report.
    pub const fn describe(self) -> &'static str {
        match self {
            UnseenKind::Call => "calls of functions outside the module",
            UnseenKind::MethodCall => "method calls the module does not define",
            UnseenKind::MethodByName => "method calls matched to module methods by name only",
            UnseenKind::IndirectCall => "calls through function pointers or closures in values",
            UnseenKind::Macro => "macro invocations not expanded",
            UnseenKind::UnknownSize => "locals of unwritten size",
            UnseenKind::UnknownTrip => "loops without a visible trip count",
        }
    }
}

impl fmt::Display for UnseenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// How much of one [`UnseenKind`] a context's analysis met, and the first
/// one in source order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Unseen {
    /// The kind.
    pub kind: UnseenKind,
    /// How many the context's function and what it reaches hold.
    pub count: u32,
    /// The first one as written (`other::f`, `.len()`, `println!`, `for`),
    /// or empty.
    pub first: &'static str,
    /// Source file of the first one.
    pub file: &'static str,
    /// Its line (1-based).
    pub line: u32,
    /// Its column (1-based).
    pub column: u32,
}

impl Unseen {
    /// An entry, as the macro emits it.
    pub const fn new(
        kind: UnseenKind,
        count: u32,
        first: &'static str,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> Unseen {
        Unseen {
            kind,
            count,
            first,
            file,
            line,
            column,
        }
    }
}

impl fmt::Display for Unseen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, first ", self.count, self.kind)?;
        if !self.first.is_empty() {
            write!(f, "`{}` ", self.first)?;
        }
        write!(f, "at {}:{}:{}", self.file, self.line, self.column)
    }
}

/// The analysis of one `#[task_program]` module: per context, aggregated, and
/// its spawn-site table. `Display` prints a human-readable report.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ProgramAnalysis {
    /// `module_path!()` of the annotated module.
    pub module: &'static str,
    /// The task contexts, in source order.
    pub contexts: &'static [ContextAnalysis],
    /// The spawn sites, in source order (index = [`SiteInfo::index`]), each
    /// inside its site `static` (so two analyses of one module compare equal
    /// by address).
    pub sites: &'static [&'static SiteInfo],
    /// Aggregated ρ: the minimum over the contexts (0 without contexts).
    pub rho: u32,
    /// Aggregated λ: the minimum over the contexts (0 without contexts).
    pub lambda: u32,
    /// Aggregated effort: the mean over the contexts (0 without contexts).
    pub effort: u64,
    /// The largest context stack estimate, in bytes, before rounding.
    pub stack_estimate: u64,
    /// The stack commitment chosen ([`committed_stack_size`] of
    /// `stack_estimate`): pre-faulted per stack and what a recycled stack is
    /// trimmed back to; 0 when the estimate is unbounded.
    pub committed_stack_size: usize,
}

impl ProgramAnalysis {
    /// Aggregates the contexts (CF'17 §3.3): ρ and λ by minimum, effort by
    /// mean, stack by maximum (see [`committed_stack_size`]).
    pub const fn new(
        module: &'static str,
        contexts: &'static [ContextAnalysis],
        sites: &'static [&'static SiteInfo],
    ) -> ProgramAnalysis {
        let mut rho = u32::MAX;
        let mut lambda = u32::MAX;
        let mut effort_sum: u64 = 0;
        let mut stack_estimate: u64 = 0;
        let mut i = 0;
        while i < contexts.len() {
            let c = &contexts[i];
            if c.rho < rho {
                rho = c.rho;
            }
            if c.lambda < lambda {
                lambda = c.lambda;
            }
            effort_sum = effort_sum.saturating_add(c.effort);
            if c.stack > stack_estimate {
                stack_estimate = c.stack;
            }
            i += 1;
        }
        let (rho, lambda, effort) = if contexts.is_empty() {
            (0, 0, 0)
        } else {
            (rho, lambda, effort_sum / contexts.len() as u64)
        };
        ProgramAnalysis {
            module,
            contexts,
            sites,
            rho,
            lambda,
            effort,
            stack_estimate,
            committed_stack_size: committed_stack_size(stack_estimate),
        }
    }

    /// The parameters the default trees choose, [`decide`]`(self)`.
    pub const fn params(&self) -> Params {
        decide(self)
    }

    /// The parameters `trees` choose, [`decide_with`]`(self, trees)`.
    pub const fn params_with(&self, trees: Trees) -> Params {
        decide_with(self, trees)
    }
}

/// A stack estimate of at least this many bytes (8 MiB, the default
/// reserve) is treated as unbounded: it is what `#[task_program]` answers for
/// a recursion whose depth it cannot bound, and pre-faulting that much for
/// every stack would cost more memory than any task is likely to touch.
pub const UNBOUNDED_STACK_ESTIMATE: u64 = DEFAULT_STACK_SIZE as u64;

/// The granularity of a commitment: a 4 KiB page (the runtime rounds up to
/// its host's page size when it maps a stack).
pub const COMMITMENT_GRANULE: u64 = 4096;

/// The stack commitment for an estimate in bytes
/// ([`Params::committed_stack_size`]): rounded up to whole 4 KiB pages, at
/// least [`MIN_STACK_SIZE`]; 0 (no commitment: nothing pre-faulted, nothing
/// trimmed) from [`UNBOUNDED_STACK_ESTIMATE`] up. Not a power of two: every
/// committed page is pre-faulted in every stack, so rounding further would
/// cost memory for nothing. The commitment is a memory policy, never a
/// limit: how deep a task may go is the reserve, `Params::stack_size`.
pub const fn committed_stack_size(estimate: u64) -> usize {
    if estimate <= MIN_STACK_SIZE as u64 {
        return MIN_STACK_SIZE;
    }
    if estimate >= UNBOUNDED_STACK_ESTIMATE {
        return 0;
    }
    // Within (16 KiB, 8 MiB): no overflow.
    estimate.next_multiple_of(COMMITMENT_GRANULE) as usize
}

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
    /// The trees `#[task_program]` and [`decide`] use.
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

/// The parameters `trees` choose for `analysis`; every field the trees do not
/// decide is [`Params::DEFAULT`]'s.
pub const fn decide_with(analysis: &ProgramAnalysis, trees: Trees) -> Params {
    match trees {
        Trees::Cf17 => cf17::decide(analysis),
        Trees::Calibrated => calibrated::decide(analysis),
    }
}

/// The parameters the default trees ([`Trees::DEFAULT`]) choose for
/// `analysis`: what a `#[task_program]` module's `PARAMS` start from.
pub const fn decide(analysis: &ProgramAnalysis) -> Params {
    decide_with(analysis, Trees::DEFAULT)
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
        if self.committed_stack_size == 0 {
            writeln!(f, "no commitment (unbounded)")?;
        } else {
            writeln!(f, "{} B committed", self.committed_stack_size)?;
        }
        // The default trees' choice (`PARAMS`) first, then the other set's.
        for trees in [Trees::DEFAULT, other] {
            let params = self.params_with(trees);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::QueuePolicy;

    const fn ctx(rho: u32, lambda: u32, effort: u64, stack: u64) -> ContextAnalysis {
        ContextAnalysis::new("f", rho, lambda, effort, stack, &[])
    }

    #[test]
    fn committed_stack_size_rounds_and_gives_up_on_unbounded() {
        assert_eq!(committed_stack_size(0), 16 * 1024);
        assert_eq!(committed_stack_size(16 * 1024), 16 * 1024);
        assert_eq!(committed_stack_size(16 * 1024 + 1), 20 * 1024);
        assert_eq!(committed_stack_size(100_000), 100 * 1024);
        assert_eq!(committed_stack_size((8 << 20) - 1), 8 << 20);
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
        assert_eq!(EMPTY.committed_stack_size, MIN_STACK_SIZE);
        assert_eq!(EMPTY.params().validate(), Ok(()));
    }

    #[test]
    fn decide_fib_like_and_loop_like() {
        // fib: recursive, tiny tasks.
        const FIB: ProgramAnalysis = ProgramAnalysis::new("fib", &[ctx(2, 0, 12, 30_000)], &[]);
        const P: Params = decide_with(&FIB, Trees::Cf17).checked();
        assert_eq!(P.queue_policy, QueuePolicy::DEF);
        assert_eq!(P.queue_capacity, 4);
        assert_eq!(P.dependency_buckets, 256_019);
        assert_eq!(P.committed_stack_size, 32 * 1024);
        assert_eq!(P.stack_size, DEFAULT_STACK_SIZE);
        assert_eq!(P.pinning, Params::DEFAULT.pinning);
        // A loop of coarse tasks.
        const LOOP: ProgramAnalysis =
            ProgramAnalysis::new("loop", &[ctx(0, 1, 50_000_000, 1_000)], &[]);
        let p = LOOP.params_with(Trees::Cf17);
        assert_eq!(p.queue_policy, QueuePolicy::PF);
        assert_eq!(p.queue_capacity, 128);
        assert_eq!(p.dependency_buckets, 97);
        assert_eq!(p.committed_stack_size, 16 * 1024);
        // Deep recursion picks PF.
        const DEEP: ProgramAnalysis = ProgramAnalysis::new("r", &[ctx(6, 0, 1, 1)], &[]);
        assert_eq!(DEEP.params_with(Trees::Cf17).queue_policy, QueuePolicy::PF);
    }

    #[test]
    fn the_estimate_is_a_commitment_and_the_reserve_stays() {
        const FIB: ProgramAnalysis = ProgramAnalysis::new("fib", &[ctx(2, 0, 12, 30_000)], &[]);
        const P: Params = decide(&FIB).checked();
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
        assert_eq!(decide(&DEEP).committed_stack_size, 0);
        assert!(DEEP.to_string().contains("no commitment (unbounded)"));
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
