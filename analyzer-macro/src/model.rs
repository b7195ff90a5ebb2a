//! The program model: what the analyses see of an annotated module.
//!
//! The lowering (`lower`) walks the syn AST of the module once and keeps only
//! what CF'17's analyses need: the module's functions (free functions and
//! `impl` methods), and in each body a tree of [`Node`]s — built-in operations,
//! sequences, alternatives, loops with their trip counts, calls (into the
//! module or invisible), spawn constructs with their task bodies, and
//! declarations with their sizes — each keeping its span. Everything below
//! works on this model, so it is unit tested without a proc-macro invocation.
//!
//! This module holds the types only and depends on no stage of the macro:
//! `module_scope` collects the module's names, `lower` builds the model, the
//! analyses (`contexts`, `structure`, `effort`, `stack`) read it and `emit`
//! writes its sites back into the module.

use crate::sym::{Bound, Sym};
use proc_macro2::Span;

/// Index of a function in [`Program::functions`].
pub type FnId = usize;
/// Index of a spawn site in [`Program::sites`].
pub type SiteId = usize;

/// The model of an annotated module.
#[derive(Debug)]
pub struct Program {
    /// The module's name.
    pub module: String,
    /// Free functions and `impl` methods, in source order.
    pub functions: Vec<Function>,
    /// Spawn sites, in source (pre-)order; the index is the site's number.
    pub sites: Vec<Site>,
}

/// One function of the module.
#[derive(Debug)]
pub struct Function {
    /// `name` for a free function, `Type::name` for a method.
    pub name: String,
    /// The function's name token.
    #[allow(dead_code)] // kept for diagnostics
    pub span: Span,
    /// The body, parameters first.
    pub body: Node,
}

/// Which spawn construct a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// `join(a, b)`.
    Join,
    /// `spawn(f)`.
    Spawn,
    /// `spawn` on a scope value.
    ScopeSpawn,
    /// `spawn` on a task group.
    GroupSpawn,
    /// A dataflow task (`task`, or `spawn` on a dataflow scope).
    DataflowTask,
    /// A parallel range loop (`for_range`, `for_range_chunked`), lowered as a
    /// [`LoopKind::RangeLoop`] whose body is this site's spawn of the loop
    /// body.
    RangeLoop,
}

/// The levels of `join` a range loop's splitting is charged at most on one
/// stack. A piece is split only when a thief asks its worker for work
/// (`prescient`'s `split.rs`), and each split nests one level on the stack
/// that goes on with the lower half: a stack nests about as many levels as
/// requests its worker answers inside one piece, which grows with the
/// workers that run out of work while it holds the rest of the loop, not
/// with the loop's length (`tests/tests/stacks/commitment.rs` runs a flat
/// module of loops: one stack nests about as many levels as log2 of the
/// workers, plus one). Four levels are 16 pieces cut off one stack's piece;
/// a loop whose pieces (⌈trips / grain⌉, when both are visible) are fewer
/// is charged the levels that cut them
/// ([`split_levels_of`](crate::sym::split_levels_of)). More levels than
/// that cost a stack the page faults of the frames beyond, never
/// correctness: the estimate is a commitment, not a limit. (The bound, for
/// a loop of unknown length, would be 64 levels: a range holds fewer than
/// 2^64 indices.)
pub const SPLIT_LEVELS_CHARGED: u32 = 4;

/// Join frames (`JOIN_FRAME_BYTES`) the stack analysis charges per level of a
/// range loop's splitting: a level is a `join` plus the splitting function's
/// own frame and the closure call between them. `tests/tests/for_range.rs`
/// checks that a level fits in two (a level takes about one; two leave room
/// for compiler changes). A range loop's body thus runs below its splitting
/// levels × `JOIN_FRAMES_PER_SPLIT_LEVEL` join frames, plus one for its own
/// spawn level.
pub const JOIN_FRAMES_PER_SPLIT_LEVEL: u32 = 2;

/// A spawn site: one task invocation (CF'17 Alg. 1).
#[derive(Debug)]
pub struct Site {
    /// The construct.
    pub kind: SiteKind,
    /// The enclosing function: the site's task context.
    pub function: FnId,
    /// The whole call.
    pub span: Span,
    /// For `join`/`spawn`/`for_range`/`for_range_chunked` calls: the call to
    /// rewrite, and the `__private` function it becomes (`join_at`,
    /// `spawn_at`, `for_range_at`, `for_range_chunked_at`); for a scope or
    /// group `spawn` method call, the call and the hidden method it becomes
    /// (`__spawn_at`).
    pub rewrite: Option<(CallKey, &'static str)>,
    /// For a range loop: the levels of splitting joins its body runs below
    /// on one stack ([`SPLIT_LEVELS_CHARGED`] at most).
    pub split_levels: Option<Sym>,
    /// The rewritten call's path starts with a name of the crate
    /// (`p::join`, `::prescient::join`): the emitted path keeps it, so that
    /// a `use prescient as p` stays used.
    pub crate_segment: bool,
}

/// Identifies an `ExprCall` of the module the model was built from, by address.
///
/// Every expression of a parsed module lives in heap storage (`Box`, `Vec`), so
/// the address stays valid while the module is moved, as long as it is not
/// changed; `emit` rewrites the calls children first, so a parent's key is
/// still right when its turn comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallKey(pub usize);

impl CallKey {
    /// The key of a call node.
    pub fn of(call: &syn::ExprCall) -> CallKey {
        CallKey((call as *const syn::ExprCall).addr())
    }

    /// The key of a method call node (a different node, so a different
    /// address from every `ExprCall`).
    pub fn of_method(call: &syn::ExprMethodCall) -> CallKey {
        CallKey((call as *const syn::ExprMethodCall).addr())
    }
}

/// What kind of loop a [`Node::Loop`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `for`.
    For,
    /// `while` / `while let`.
    While,
    /// `loop`.
    Loop,
    /// A closure passed to an iterator method such as `for_each`.
    IterClosure,
    /// The element copies of an array repeat expression `[x; n]`.
    Repeat,
    /// A parallel range loop (`for_range`): its body is the site's
    /// [`Node::Spawn`], run once per index (`for_range`) or per chunk
    /// (`for_range_chunked`), below the levels of splitting joins of its
    /// site's [`Site::split_levels`].
    RangeLoop,
}

/// The trip count of a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trip {
    /// A literal count.
    Literal(u64),
    /// A range whose bounds involve module-level `const`s.
    Range {
        /// Start of the range.
        start: Bound,
        /// End of the range.
        end: Bound,
        /// `..=`.
        inclusive: bool,
    },
    /// Not visible: the documented default applies.
    Unknown,
}

/// A module function a call through a value may reach first, and whether
/// that happens inside a task or a loop of what the value runs (a closure
/// that spawns its call: `in_spawn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The function.
    pub function: FnId,
    /// Reached inside a task body of the value (a closure's spawn).
    pub in_spawn: bool,
    /// Reached inside a loop of the value.
    pub in_loop: bool,
}

/// The target of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function of the module.
    Module(FnId),
    /// Possibly one of these module functions, possibly something invisible:
    /// a method call on a value whose method name the module defines
    /// (`l.sum()`), or a module function named inside a macro that does not
    /// parse as expressions.
    Maybe(Vec<FnId>),
    /// A call through a value — a function pointer, a closure held in a
    /// variable, a field or a parameter (`(v.visit)(x)`, `f(x)` with
    /// `f: fn(u64)`): possibly any of `targets`, possibly something
    /// invisible. The lowering leaves `targets` empty with `values` set
    /// where the value is unknown; [`Program`]'s builder then fills in
    /// every function the module lets escape into a value (see
    /// `lower`'s *Calls through values*).
    Indirect {
        /// What the call may reach.
        targets: Vec<Target>,
        /// Whether `targets` stands for every escaping function (filled in
        /// after lowering), rather than one known closure's callees.
        values: bool,
    },
    /// Anything the model cannot see.
    External,
}

impl Callee {
    /// The module functions a call may reach first, with whether it reaches
    /// them inside a task or a loop of a closure it runs.
    pub fn targets(&self) -> Vec<Target> {
        let plain = |function| Target {
            function,
            in_spawn: false,
            in_loop: false,
        };
        match self {
            Callee::Module(g) => vec![plain(*g)],
            Callee::Maybe(candidates) => candidates.iter().copied().map(plain).collect(),
            Callee::Indirect { targets, .. } => targets.clone(),
            Callee::External => Vec::new(),
        }
    }
}

/// A part of a body the analysis cannot see into (or size, or count), for
/// the report: what `prescient::analysis::UnseenKind` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnseenKind {
    /// A call of a function outside the module (`other::f(x)`, `std::…`).
    Call,
    /// A call through a `crate::…` path matched to a module function by
    /// the annotated module's name (`crate::app::prog::even(n)`): the macro
    /// does not know where the annotated module sits in its crate.
    CratePath,
    /// A method call the module does not define, or on a value of a type
    /// that is visibly not the module's (`v.len()`, `row.iter().sum()`).
    MethodCall,
    /// A method call matched to the module's methods by name only.
    MethodByName,
    /// A call through a function pointer, a closure held in a value, or a
    /// task passed as a value.
    IndirectCall,
    /// A macro invocation not expanded (its arguments are modelled when they
    /// parse as expressions).
    Macro,
    /// A local or temporary whose size is not written (a generic `T`, the
    /// result of a method chain).
    UnknownSize,
    /// A loop whose trip count is not visible (the documented default
    /// applies).
    UnknownTrip,
}

/// The size of a declaration (or a temporary).
#[derive(Clone, Debug)]
pub enum Size {
    /// An upper bound the analysis trusts: `size_of::<T>()` of a type that
    /// resolves at module level, or a literal bound (a reference is at most
    /// 16 bytes).
    Known(Sym),
    /// Not known: in a recursive context the stack estimate falls back to the
    /// conservative size; elsewhere this estimate applies.
    Unknown(Sym),
}

/// A node of a function body.
#[derive(Clone, Debug)]
pub enum Node {
    /// This many built-in operations.
    Ops(u64),
    /// Executed one after the other.
    Seq(Vec<Node>),
    /// Exactly one of these runs (`if`, `match`).
    Choice(Vec<Node>),
    /// A loop.
    Loop {
        /// The loop construct.
        kind: LoopKind,
        /// How often the body runs.
        trip: Trip,
        /// The body, per iteration.
        body: Box<Node>,
        /// The loop expression.
        #[allow(dead_code)] // kept for diagnostics
        span: Span,
    },
    /// A call; the arguments are evaluated first.
    Call {
        /// The target.
        callee: Callee,
        /// The arguments (and receiver).
        args: Box<Node>,
        /// The call expression.
        span: Span,
        /// For a call of the enclosing function itself: the position and bit
        /// width of an integer parameter it passes halved (`f(n / 2)`,
        /// `f(n >> 1)` for `n: u64`), which bounds the recursion depth.
        halves: Option<(usize, u32)>,
    },
    /// A spawn construct.
    Spawn {
        /// The site.
        site: SiteId,
        /// What is evaluated in the spawning task (receiver, non-task arguments).
        args: Box<Node>,
        /// The task bodies.
        tasks: Vec<Node>,
    },
    /// A declaration of one binding (or one typed pattern).
    Decl {
        /// Its size.
        size: Size,
        /// The binding or type.
        #[allow(dead_code)] // kept for diagnostics
        span: Span,
    },
    /// A macro invocation: invisible as a whole; what it expands to is not
    /// known, but its arguments, when they parse as expressions, are modelled
    /// (calls and spawns written in them are seen). A `macro_rules!` macro of
    /// the module is expanded instead, and lowered as the code it expands to.
    Macro {
        /// The invocation.
        span: Span,
        /// The macro's name, `name!`.
        name: String,
        /// The arguments, as far as they parse.
        inner: Box<Node>,
    },
    /// Something the analysis cannot see, for the report: what is invisible
    /// of a call (its callee), as written. Costs nothing; the node next to it
    /// carries the estimate. Unknown sizes, trip counts and macros are read
    /// from their own nodes.
    Unseen {
        /// What cannot be seen.
        kind: UnseenKind,
        /// The callee as written (`other::f`, `.len()`).
        what: String,
        /// Where.
        span: Span,
    },
}

/// Where a node sits, for [`Node::walk`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkCtx {
    /// Inside a task body of a spawn construct.
    pub in_spawn: bool,
    /// Inside a loop body.
    pub in_loop: bool,
}

impl Node {
    /// Calls `f` on this node and every node below it, pre-order, with its
    /// context.
    pub fn walk(&self, ctx: WalkCtx, f: &mut dyn FnMut(&Node, WalkCtx)) {
        f(self, ctx);
        match self {
            Node::Seq(nodes) | Node::Choice(nodes) => {
                for n in nodes {
                    n.walk(ctx, f);
                }
            }
            Node::Loop { body, .. } => body.walk(
                WalkCtx {
                    in_loop: true,
                    ..ctx
                },
                f,
            ),
            Node::Call { args, .. } => args.walk(ctx, f),
            Node::Macro { inner, .. } => inner.walk(ctx, f),
            Node::Spawn { args, tasks, .. } => {
                args.walk(ctx, f);
                let inner = WalkCtx {
                    in_spawn: true,
                    ..ctx
                };
                for t in tasks {
                    t.walk(inner, f);
                }
            }
            Node::Ops(_) | Node::Decl { .. } | Node::Unseen { .. } => {}
        }
    }
}

/// A sequence, flattened, without empty parts.
pub fn seq(nodes: impl IntoIterator<Item = Node>) -> Node {
    let mut out = Vec::new();
    let mut ops = 0u64;
    for n in nodes {
        match n {
            Node::Ops(k) => ops = ops.saturating_add(k),
            Node::Seq(inner) => {
                for n in inner {
                    match n {
                        Node::Ops(k) => ops = ops.saturating_add(k),
                        n => out.push(n),
                    }
                }
            }
            n => out.push(n),
        }
    }
    if ops > 0 {
        out.push(Node::Ops(ops));
    }
    match out.len() {
        0 => Node::Ops(0),
        1 => out.pop().unwrap_or(Node::Ops(0)),
        _ => Node::Seq(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(callee: Callee) -> Node {
        Node::Call {
            callee,
            args: Box::new(Node::Ops(0)),
            span: Span::call_site(),
            halves: None,
        }
    }

    #[test]
    fn seq_flattens_and_merges_operations() {
        assert!(matches!(seq([]), Node::Ops(0)));
        assert!(matches!(
            seq([Node::Ops(2), Node::Seq(vec![Node::Ops(3)])]),
            Node::Ops(5)
        ));
        assert!(matches!(
            seq([call(Callee::External)]),
            Node::Call {
                callee: Callee::External,
                ..
            }
        ));
        let n = seq([
            Node::Ops(1),
            call(Callee::External),
            Node::Seq(vec![Node::Ops(u64::MAX), call(Callee::Module(0))]),
        ]);
        let Node::Seq(parts) = &n else {
            panic!("{n:?}");
        };
        assert!(
            matches!(
                parts.as_slice(),
                [
                    Node::Call {
                        callee: Callee::External,
                        ..
                    },
                    Node::Call {
                        callee: Callee::Module(0),
                        ..
                    },
                    Node::Ops(u64::MAX),
                ]
            ),
            "{n:?}"
        );
    }

    #[test]
    fn walk_tracks_loops_and_spawns() {
        let inner = Node::Spawn {
            site: 1,
            args: Box::new(Node::Ops(0)),
            tasks: vec![call(Callee::Module(1))],
        };
        let outer = Node::Spawn {
            site: 0,
            args: Box::new(call(Callee::Module(0))),
            tasks: vec![Node::Loop {
                kind: LoopKind::For,
                trip: Trip::Unknown,
                body: Box::new(inner),
                span: Span::call_site(),
            }],
        };
        let mut seen = Vec::new();
        outer.walk(WalkCtx::default(), &mut |n, ctx| {
            if let Node::Call {
                callee: Callee::Module(f),
                ..
            } = n
            {
                seen.push((*f, ctx));
            }
        });
        assert_eq!(
            seen,
            [
                (0, WalkCtx::default()),
                (
                    1,
                    WalkCtx {
                        in_spawn: true,
                        in_loop: true,
                    }
                ),
            ]
        );
    }
}
