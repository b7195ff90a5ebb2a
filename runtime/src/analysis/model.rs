//! The analysis `#[task_program]` emits, as data: spawn sites
//! ([`SiteInfo`]), task contexts ([`ContextAnalysis`]) and what the analyzer
//! could not see in them ([`Unseen`]), and their aggregation into a
//! [`ProgramAnalysis`], with the stack commitment it implies. The decision
//! trees that turn it into `Params` are in `trees.rs`, `cf17.rs` and
//! `calibrated.rs`.

use crate::params::{DEFAULT_STACK_SIZE, MIN_STACK_SIZE};
use core::fmt;

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
    /// Estimated stack bytes a task running the context's function
    /// touches, including recursion and the runtime's join frames (CF'17
    /// Alg. 4): uncertain parts at typical values, not bounds
    /// ([`committed_stack_size`] says which).
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
    /// Calls through `crate::…` paths that name the annotated module and
    /// one of its functions (`crate::app::prog::even(n)`): the analyzer does
    /// not know where the module sits in its crate, so it follows them as
    /// possible calls of that function.
    CratePath,
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
            UnseenKind::CratePath => {
                "calls through `crate::` paths matched to the module by its name"
            }
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
    /// trimmed back to; 0 when the estimate is unbounded or below the
    /// smallest commitment.
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
}

/// A stack estimate of at least this many bytes (8 MiB, the default
/// reserve) is treated as unbounded: it is what `#[task_program]` answers for
/// a recursion whose depth it cannot bound, and pre-faulting that much for
/// every stack would cost more memory than any task is likely to touch.
pub const UNBOUNDED_STACK_ESTIMATE: u64 = DEFAULT_STACK_SIZE as u64;

/// The granularity of a commitment: a 4 KiB page (the runtime rounds up to
/// its host's page size when it maps a stack).
pub const COMMITMENT_GRANULE: u64 = 4096;

/// The most an analysed estimate commits per task stack: 256 KiB (64 pages).
/// Pre-faulting saves a fresh (or trimmed) stack the first-touch faults of
/// the committed pages; it never makes a task possible or impossible. So a
/// large estimate — a deep recursion's frames, large locals, or a bound far
/// above what the program's inputs need — commits this much and lets a task
/// that goes deeper fault its further pages in: a wrong estimate costs a
/// few page faults, never megabytes in every stack.
pub const MAX_ANALYSED_COMMITMENT: u64 = 256 * 1024;

/// The stack commitment for an estimate in bytes
/// ([`Params::committed_stack_size`](crate::Params::committed_stack_size)).
///
/// The commitment is a memory policy, never a limit (how deep a task may go
/// is the reserve, `Params::stack_size`), and pre-faulting is a speed
/// optimisation: every committed page is faulted in, in every stack, when
/// the stack is made, and a recycled stack that went deeper is trimmed back
/// to it. So the rule commits what tasks are expected to touch, and less
/// wherever the estimate is large or uncertain — never more:
///
/// * the estimate rounded up to whole 4 KiB pages ([`COMMITMENT_GRANULE`];
///   not to a power of two: every committed page costs memory in every
///   stack);
/// * at most [`MAX_ANALYSED_COMMITMENT`] (256 KiB);
/// * nothing (0: nothing pre-faulted, nothing trimmed, a stack keeps what it
///   touched, as a thread's does) for an estimate of
///   [`UNBOUNDED_STACK_ESTIMATE`] or more, what the analysis answers where
///   it cannot bound the need;
/// * nothing either for an estimate below
///   [`MIN_STACK_SIZE`] (16 KiB), the smallest
///   commitment a stack can have (the runtime's own frames of an idle fiber
///   must lie above the trim line): committing it would pre-fault more than
///   the tasks are expected to touch, and a stack whose tasks touch a few
///   pages keeps only those.
///
/// The estimate itself (`#[task_program]`'s Alg. 4) charges the uncertain
/// parts of a stack typical values rather than bounds: a bounded recursion
/// at most 16 levels, a range loop's splitting at most 4 levels of joins
/// (⌈log2 ⌈trips / grain⌉⌉ where both are visible), one page for a call it
/// cannot see. Together these keep what the project's annotated programs
/// commit within twice what their deepest task stack touches (the
/// `stack-memory` table's committed-vs-used rows,
/// `tests/tests/stacks/commitment.rs`).
pub const fn committed_stack_size(estimate: u64) -> usize {
    if estimate < MIN_STACK_SIZE as u64 || estimate >= UNBOUNDED_STACK_ESTIMATE {
        return 0;
    }
    let pages = estimate.next_multiple_of(COMMITMENT_GRANULE);
    // Within [16 KiB, 256 KiB]: fits any usize.
    if pages > MAX_ANALYSED_COMMITMENT {
        MAX_ANALYSED_COMMITMENT as usize
    } else {
        pages as usize
    }
}
