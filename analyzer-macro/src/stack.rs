//! Stack size (CF'17 Alg. 4): how many bytes of stack a task context needs.
//!
//! The estimate is the *committed* stack: what every task stack pre-faults
//! when it is made and what a recycled stack is trimmed back to. It is never
//! a limit — each task stack reserves `Params::stack_size` (8 MiB unless the
//! attribute's `stack_size = …` says otherwise), a hard limit like a
//! thread's — so an estimate that is too small costs page faults and one
//! that is too large costs memory in every stack, never a crash. So the
//! estimate aims at what a typical task touches, not at a worst case: where
//! a part of it is uncertain (a recursion's depth, a loop's splitting, a
//! call it cannot see) it is charged a typical value, and a deeper task
//! faults its further pages in. Where the macro cannot bound the need at
//! all, it answers [`CONSERVATIVE_STACK_BYTES`] (the default reserve), which
//! the runtime reads as "unbounded" and commits nothing for (a stack then
//! keeps what it touched, as a thread's does). What the runtime commits for
//! an estimate (rounded to pages, nothing below the smallest commitment, at
//! most a cap) is `prescient::analysis::committed_stack_size`.
//!
//! # Frames
//!
//! A function's **frame** is the sum of its declarations — parameters, `let`
//! bindings, pattern bindings of `for`, `match`, `if let` and closures written
//! in it, and the temporaries of array expressions and module calls — plus
//! [`FRAME_OVERHEAD_BYTES`]; the declarations of a task body (a closure
//! passed to a spawn construct) are a frame of their own, below the
//! runtime's own per-join frame cost (`prescient::__private::JOIN_FRAME_BYTES`,
//! measured per build profile), since a task that is not stolen runs inline
//! below the construct's frame: the frame ends in the deepest chain of
//! nested task bodies (the tasks of one construct, or of constructs one after
//! the other, do not nest). A range loop (`for_range` and the other
//! library loops) adds its splitting levels ×
//! [`JOIN_FRAMES_PER_SPLIT_LEVEL`]
//! (2), since its body runs below the joins (and the splitting frames) that
//! cut its range: ⌈log2 ⌈trips / grain⌉⌉ levels where its trip count and
//! grain are visible, at most
//! [`SPLIT_LEVELS_CHARGED`] (4: splits
//! answer thieves' requests, so one stack nests a level per request its
//! worker answers, not one per halving of the whole range).
//!
//! A declaration's size is **known** (an upper bound the analysis trusts):
//! `core::mem::size_of::<T>()`, evaluated by rustc, when its type `T` is
//! written, or follows from its initializer, and resolves at module level — a
//! literal (an unsuffixed integer as `u128`, the widest it can be inferred
//! to), a local or module `const` of known type, a cast, arithmetic on
//! primitives, a tuple, an array or `[e; LEN]` of a known element type (sized
//! from `LEN` as written), a module function's written return type, `join`'s
//! pair of task results; [`REFERENCE_BYTES`] for a reference; a closure's
//! captures. Otherwise it is **unknown**: a generic or `Self` type, a type
//! local to the body (`struct Big` written in the function), a value returned
//! by an invisible call, an array whose length is not a literal or a
//! module-level `const` (`[u8; N]` with a const generic `N`).
//!
//! # Stacks
//!
//! A function's **stack** is its frame plus the largest stack of what it calls
//! (module functions, tasks run inline, and [`INVISIBLE_CALL_STACK_BYTES`] for
//! calls and macros the analysis cannot see; a call it can only narrow down
//! — by method name, or through a value — costs that and the largest stack
//! of its candidates).
//!
//! A **recursive component** (direct or mutual recursion, including recursion
//! through method calls on values, macros' arguments and trait default
//! methods, which the model over-approximates by method name, through calls
//! of function pointers and closure values, and through the module's own
//! macros, whose expansions are analysed as code) repeats its
//! frames as deep as the recursion goes. The macro has no termination
//! analysis, so it only trusts a depth it can bound: a function calling only
//! itself, every such call passing one of its own non-`mut` integer
//! parameters halved (`f(n / 2)`, `f(n >> k)`): for a `b`-bit parameter, at
//! most `b + 1` levels until it is 0 (a divide-and-conquer whose base case is
//! on the halved value — the assumption of CF'17's φ, made checkable). That
//! bound is a worst case over every input (65 levels for a `u64`), while a
//! divide-and-conquer runs about log2 of its input over its base case, so
//! its stack is its frame times the bound, but at most
//! [`HALVING_LEVELS_CHARGED`] (16) levels, plus what it calls. A halving
//! recursion called from another's levels works on a part of its caller's
//! input, so of nested bounded recursions the deepest counts, not their sum
//! ([`Stack`]).
//!
//! Every other recursive component gets [`CONSERVATIVE_STACK_BYTES`]: a
//! decrementing recursion (`fib(n - 1)`), mutual recursion, or a recursive
//! component with any unknown-size local, any call the macro cannot see
//! (method calls on values, calls inside macros, paths outside the module,
//! calls through values) —
//! because any of these multiplied by an unknown depth, or an unseen callee
//! recursing back, can need any amount of stack. A fixed φ does not bound
//! it either: a recursion of small frames can run deeper than any fixed
//! depth and overflow it.
//!
//! A **non-recursive** function with unknown pieces runs its frame once, so a
//! typical size is used: [`UNKNOWN_LOCAL_BYTES`] for an unknown local,
//! [`UNRESOLVED_ELEMENT_BYTES`] per element of an array of unknown element
//! type, the conservative size for an array of unknown length.
//!
//! The aggregation (maximum over contexts) and the commitment it implies are
//! done by `prescient::analysis`.

use crate::model::{
    Callee, FnId, LoopKind, Node, Program, Size, WalkCtx, JOIN_FRAMES_PER_SPLIT_LEVEL,
    SPLIT_LEVELS_CHARGED,
};
use crate::structure::CallGraph;
use crate::sym::{self, Sym};
use std::collections::HashMap;

/// The conservative stack size: the runtime's default task stack reserve,
/// 8 MiB. Where the analysis cannot bound a recursive context's stack,
/// the program gets what it would get without the analyzer.
pub const CONSERVATIVE_STACK_BYTES: u64 = 8 * 1024 * 1024;
/// Return address, saved registers and alignment of one frame.
pub const FRAME_OVERHEAD_BYTES: u64 = 64;
/// A reference or raw pointer (at most a fat pointer); also the padding
/// allowed per part of a tuple or a closure.
pub const REFERENCE_BYTES: u64 = 16;
/// Estimate of a local of unknown size in a non-recursive function: a local
/// whose type is not written is most often a number, a reference or slice,
/// an iterator or a small struct (arrays and buffers are usually written or
/// built by `[x; LEN]`, which the analysis sizes). A larger one faults its
/// further pages in.
pub const UNKNOWN_LOCAL_BYTES: u64 = 128;
/// Estimate of one element of an array of unknown element type in a
/// non-recursive function.
pub const UNRESOLVED_ELEMENT_BYTES: u64 = 64;
/// Stack charged for a call or macro the analysis cannot see, in a
/// non-recursive function: one page. Most such calls (slice and iterator
/// methods, atomics, arithmetic) stay well within it; deeper ones
/// (formatting in the debug profile, a helper of another module that
/// recurses) fault their further pages in.
pub const INVISIBLE_CALL_STACK_BYTES: u64 = 4 * 1024;
/// The levels of a bounded (halving) recursion the estimate charges at
/// most: a divide-and-conquer over an input 2^16 times its base case. The
/// bound, `b + 1` levels for a `b`-bit parameter, is what the widest input
/// would need; a deeper recursion faults the pages of its further levels
/// in.
pub const HALVING_LEVELS_CHARGED: u64 = 16;

/// The size of one declaration: its known bound, or the non-recursive
/// estimate.
pub fn decl_size(size: &Size) -> Sym {
    match size {
        Size::Known(s) | Size::Unknown(s) => s.clone(),
    }
}

/// The frame of a function: its own declarations, and below them the
/// deepest chain of task bodies run inline under its spawn constructs.
pub fn frame(program: &Program, f: FnId) -> Sym {
    let (own, below) = frame_parts(program, &program.functions[f].body);
    sym::sum([Sym::Lit(FRAME_OVERHEAD_BYTES), own, below])
}

/// A node's share of its function's stack: `.0`, the declarations that
/// live in the enclosing frame (everything outside task bodies, summed);
/// `.1`, the deepest of the task bodies below it. A task body is a frame of
/// its own (a closure call) under its construct's join frame, and a range
/// loop's body also under its splitting levels ×
/// [`JOIN_FRAMES_PER_SPLIT_LEVEL`] join frames; the tasks of one construct,
/// and the constructs one after the other, do not nest, so the deepest one
/// counts, not their sum.
fn frame_parts(program: &Program, node: &Node) -> (Sym, Sym) {
    let go = |n: &Node| frame_parts(program, n);
    match node {
        Node::Decl { size, .. } => (decl_size(size), Sym::Lit(0)),
        Node::Seq(nodes) | Node::Choice(nodes) => {
            let (own, below): (Vec<Sym>, Vec<Sym>) = nodes.iter().map(go).unzip();
            (sym::sum(own), sym::max(below))
        }
        Node::Loop {
            kind: LoopKind::RangeLoop,
            body,
            ..
        } => {
            let levels = match &**body {
                Node::Spawn { site, .. } => program.sites[*site].split_levels.clone(),
                _ => None,
            }
            .unwrap_or(Sym::Lit(u64::from(SPLIT_LEVELS_CHARGED)));
            let (own, below) = go(body);
            let splitting = sym::product([
                levels,
                Sym::Lit(u64::from(JOIN_FRAMES_PER_SPLIT_LEVEL)),
                Sym::JoinFrame,
            ]);
            (own, sym::sum([splitting, below]))
        }
        Node::Loop { body, .. } => go(body),
        Node::Call { args, .. } => go(args),
        Node::Macro { inner, .. } => go(inner),
        Node::Spawn { args, tasks, .. } => {
            let (own, below) = go(args);
            let deepest_task = sym::max(tasks.iter().map(|t| {
                let (own, below) = go(t);
                sym::sum([own, below])
            }));
            (
                own,
                sym::max([below, sym::sum([Sym::JoinFrame, deepest_task])]),
            )
        }
        Node::Ops(_) | Node::Unseen { .. } => (Sym::Lit(0), Sym::Lit(0)),
    }
}

/// Why a recursive component's depth or frames cannot be bounded, if so.
pub fn unbounded(program: &Program, members: &[FnId]) -> Option<&'static str> {
    let mut why = None;
    for &f in members {
        program.functions[f]
            .body
            .walk(WalkCtx::default(), &mut |n, _| {
                let reason = match n {
                    Node::Decl {
                        size: Size::Unknown(_),
                        ..
                    } => Some("a local of unknown size"),
                    Node::Call {
                        callee: Callee::External,
                        ..
                    } => Some("a call the analysis cannot see"),
                    Node::Call {
                        callee: Callee::Maybe(_),
                        ..
                    } => Some("a method call on a value"),
                    Node::Call {
                        callee: Callee::Indirect { .. },
                        ..
                    } => Some("a call through a function pointer or closure value"),
                    Node::Macro { .. } => Some("a macro invocation"),
                    Node::Call {
                        callee: Callee::Module(g),
                        halves,
                        ..
                    } if members.contains(g) => match (members.len(), halves) {
                        (1, Some(_)) => None,
                        (1, None) => Some("a recursive call that does not halve a parameter"),
                        _ => Some("mutual recursion"),
                    },
                    _ => None,
                };
                if why.is_none() {
                    why = reason;
                }
            });
    }
    why
}

/// The recursion depth charged for a component that is not [`unbounded`]:
/// per halved parameter of `b` bits, `b + 1` levels, at most
/// [`HALVING_LEVELS_CHARGED`] in all.
fn depth(program: &Program, members: &[FnId]) -> u64 {
    let mut halved: HashMap<usize, u32> = HashMap::new();
    for &f in members {
        program.functions[f]
            .body
            .walk(WalkCtx::default(), &mut |n, _| {
                if let Node::Call {
                    callee: Callee::Module(g),
                    halves: Some((param, bits)),
                    ..
                } = n
                {
                    if members.contains(g) {
                        halved.insert(*param, *bits);
                    }
                }
            });
    }
    halved
        .values()
        .map(|&b| u64::from(b) + 1)
        .sum::<u64>()
        .clamp(1, HALVING_LEVELS_CHARGED)
}

/// A function's stack estimate, in two parts: what its bounded (halving)
/// recursions charge, and the rest. Nested halving recursions share the
/// input they halve — a recursion called from another's levels works on a
/// part of its caller's input, smaller the deeper the caller — so the
/// deepest of them counts for a stack, not their sum.
#[derive(Clone, Debug)]
pub struct Stack {
    /// Frames of non-recursive functions, allowances for what the analysis
    /// cannot see, or the conservative size of an unbounded recursion.
    pub rest: Sym,
    /// The largest of the bounded recursions reached: charged levels ×
    /// their frames.
    pub halving: Sym,
}

#[cfg(test)]
impl Stack {
    /// The whole estimate.
    pub fn total(&self) -> Sym {
        sym::sum([self.rest.clone(), self.halving.clone()])
    }
}

/// What the functions `members` call, leaving them: the largest `rest` (as
/// `Sym::FnStack` of a function whose part is not a literal) and the
/// largest `halving` of their callees.
fn callees_stack(program: &Program, members: &[FnId], stacks: &[Option<Stack>]) -> Stack {
    // A function not computed yet is a member (recursive components are
    // handled by their caller): nothing to add here.
    let rest_of = |g: FnId| match stacks[g].as_ref().map(|s| &s.rest) {
        Some(Sym::Lit(v)) => Sym::Lit(*v),
        Some(_) => Sym::FnStack(g),
        None => Sym::Lit(0),
    };
    let halving_of = |g: FnId| {
        stacks[g]
            .as_ref()
            .map_or(Sym::Lit(0), |s| s.halving.clone())
    };
    let (mut rest, mut halving) = (Vec::new(), Vec::new());
    for &f in members {
        program.functions[f]
            .body
            .walk(WalkCtx::default(), &mut |n, _| match n {
                Node::Call {
                    callee: Callee::Module(g),
                    ..
                } if !members.contains(g) => {
                    rest.push(rest_of(*g));
                    halving.push(halving_of(*g));
                }
                Node::Call {
                    callee: callee @ (Callee::Maybe(_) | Callee::Indirect { .. }),
                    ..
                } => {
                    rest.push(Sym::Lit(INVISIBLE_CALL_STACK_BYTES));
                    for t in callee.targets() {
                        if !members.contains(&t.function) {
                            rest.push(rest_of(t.function));
                            halving.push(halving_of(t.function));
                        }
                    }
                }
                Node::Call {
                    callee: Callee::External,
                    ..
                }
                | Node::Macro { .. } => rest.push(Sym::Lit(INVISIBLE_CALL_STACK_BYTES)),
                _ => {}
            });
    }
    Stack {
        rest: sym::max(rest),
        halving: sym::max(halving),
    }
}

/// The stack estimate of every function, callees first.
pub fn function_stacks(program: &Program, graph: &CallGraph) -> Vec<Stack> {
    let mut stacks: Vec<Option<Stack>> = vec![None; program.functions.len()];
    for (c, members) in graph.components.iter().enumerate() {
        let stack = if graph.recursive[c] {
            if unbounded(program, members).is_some() {
                Stack {
                    rest: Sym::Lit(CONSERVATIVE_STACK_BYTES),
                    halving: Sym::Lit(0),
                }
            } else {
                let below = callees_stack(program, members, &stacks);
                let own = sym::product([
                    Sym::Lit(depth(program, members)),
                    sym::sum(members.iter().map(|&f| frame(program, f))),
                ]);
                Stack {
                    rest: below.rest,
                    halving: sym::max([own, below.halving]),
                }
            }
        } else {
            let below = callees_stack(program, members, &stacks);
            Stack {
                rest: sym::sum([frame(program, members[0]), below.rest]),
                halving: below.halving,
            }
        };
        for &f in members {
            stacks[f] = Some(stack.clone());
        }
    }
    stacks
        .into_iter()
        .map(|s| {
            s.unwrap_or(Stack {
                rest: Sym::Lit(0),
                halving: Sym::Lit(0),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::call_graph;
    use crate::sym::Env;
    use crate::test_support::program;

    /// Primitive sizes as on a 64-bit target (arrays of literal length,
    /// tuples without padding); a fixed join frame.
    struct Sizes(Vec<Sym>);

    fn type_size(ty: &syn::Type) -> Option<u64> {
        Some(match ty {
            syn::Type::Array(a) => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) = &a.len
                else {
                    return None;
                };
                type_size(&a.elem)? * n.base10_parse::<u64>().ok()?
            }
            syn::Type::Tuple(t) => t.elems.iter().map(type_size).sum::<Option<u64>>()?,
            syn::Type::Reference(_) => 8,
            syn::Type::Paren(p) => type_size(&p.elem)?,
            _ => match quote::quote!(#ty).to_string().as_str() {
                "u8" | "bool" | "i8" => 1,
                "u32" | "i32" => 4,
                "u64" | "usize" | "f64" | "i64" => 8,
                "u128" | "i128" => 16,
                _ => return None,
            },
        })
    }

    impl Env for Sizes {
        fn constant(&self, _: &str) -> Option<i128> {
            None
        }
        fn size_of(&self, ty: &syn::Type) -> Option<u64> {
            type_size(ty)
        }
        fn join_frame(&self) -> u64 {
            512
        }
        fn function(&self, s: &Sym) -> Option<u64> {
            match s {
                Sym::FnStack(i) => self.0[*i].eval(self),
                _ => None,
            }
        }
    }

    fn stacks(src: &str) -> Vec<u64> {
        let p = program(src);
        let g = call_graph(&p);
        let s = function_stacks(&p, &g);
        let env = Sizes(s.iter().map(|s| s.rest.clone()).collect());
        s.iter()
            .map(|s| s.total().eval(&env).expect("evaluates"))
            .collect()
    }

    fn why(src: &str, f: usize) -> Option<&'static str> {
        let p = program(src);
        let g = call_graph(&p);
        unbounded(&p, &g.components[g.component[f]])
    }

    const C: u64 = CONSERVATIVE_STACK_BYTES;

    #[test]
    fn frames_sum_declarations_and_join_nesting() {
        let s = stacks(
            "mod m {
                use prescient::join;
                fn leaf(x: u64, y: u32) { let z: u8 = 0; let w = 1; let v = x + 1; }
                fn nested() { join(|| join(|| 1, || 2), || 3); }
            }",
        );
        // `w`: an unsuffixed literal, at most a u128; `v`: x's type.
        assert_eq!(s[0], FRAME_OVERHEAD_BYTES + 8 + 4 + 1 + 16 + 8);
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 2 * 512);
    }

    #[test]
    fn range_loop_tasks_run_below_its_splitting_joins() {
        let s = stacks(
            "mod m {
                use prescient::{for_range, for_range_chunked, join, for_chunks_mut};
                fn flat() { for_range(0..10, 1, |_| ()); }
                fn nested() { for_range(0..1000, 1, |i: usize| { join(|| 1, || 2); }); }
                fn few() { for_range_chunked(0..100, 40, |_| ()); }
                fn one() { for_range(0..10, 16, |_| ()); }
                fn unknown(n: usize, v: &mut [u8]) {
                    for_range(0..n, 1, |_| ());
                    for_chunks_mut(v, 8, |_, _| ());
                }
                fn within() { for_range(0..4, 1, |_| { for_range(0..4, 1, |_| ()); }); }
            }",
        );
        // The splitting levels at two join frames each, and the piece's own:
        // 10 pieces take 4 levels; 1000 would take 10, charged 4.
        let charged = u64::from(crate::model::SPLIT_LEVELS_CHARGED);
        assert_eq!(charged, 4);
        assert_eq!(s[0], FRAME_OVERHEAD_BYTES + (2 * 4 + 1) * 512);
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 8 + (2 * charged + 1 + 1) * 512);
        // 3 chunks: 2 levels; a single piece: none; unknown lengths: charged.
        assert_eq!(s[2], FRAME_OVERHEAD_BYTES + (2 * 2 + 1) * 512);
        assert_eq!(s[3], FRAME_OVERHEAD_BYTES + 512);
        assert_eq!(s[4], FRAME_OVERHEAD_BYTES + 8 + 8 + (2 * charged + 1) * 512);
        // A loop in a loop's body: both splittings.
        assert_eq!(s[5], FRAME_OVERHEAD_BYTES + 2 * (2 * 2 + 1) * 512);
    }

    #[test]
    fn task_bodies_are_frames_of_their_own() {
        let s = stacks(
            "mod m {
                use prescient::{join, scope};
                fn siblings() {
                    let a: u64 = 0;
                    join(|| { let x: [u8; 1000] = [0; 1000]; }, || { let y: [u8; 300] = [0; 300]; });
                    scope(|s| { s.spawn(|_| { let z: [u8; 2000] = [0; 2000]; }); });
                }
                fn nested() {
                    join(|| { let x: [u8; 1000] = [0; 1000]; join(|| { let y: [u8; 300] = [0; 300]; }, || ()); }, || ());
                }
            }",
        );
        // The deepest of the sibling tasks (the scope spawn's), under its
        // join level; not their sum. `scope` itself is a call the analysis
        // cannot see, its closure's scope value a reference.
        assert_eq!(
            s[0],
            FRAME_OVERHEAD_BYTES + 8 + 16 + 512 + 2000 + INVISIBLE_CALL_STACK_BYTES
        );
        // Nested tasks: both frames, under two join levels.
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 2 * 512 + 1000 + 300);
    }

    #[test]
    fn decrementing_recursion_is_conservative() {
        let src = "mod m {
                use prescient::join;
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
                    a + b
                }
                fn run() -> u64 { let buf = [0u8; 4096]; fib(30) }
            }";
        let s = stacks(src);
        assert_eq!(s[0], C);
        // `run`: buf, fib's result as a temporary, and fib's stack.
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 4096 + 8 + C);
        assert_eq!(
            why(src, 0),
            Some("a recursive call that does not halve a parameter")
        );
    }

    #[test]
    fn halving_recursion_is_bounded_by_the_bit_width() {
        let src = "mod m {
                use prescient::join;
                fn sum(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| sum(n / 2), || sum(n >> 1));
                    a + b
                }
            }";
        let s = stacks(src);
        // Frame: n, (a, b) typed from sum's return type; below one join
        // level, the deeper task's frame: a call temporary of u64 (the two
        // tasks run one after the other).
        let frame = FRAME_OVERHEAD_BYTES + 8 + 16 + 512 + 8;
        // At most 65 levels, charged 16.
        assert_eq!(s[0], HALVING_LEVELS_CHARGED * frame);
        assert_eq!(why(src, 0), None);
        // A `mut` parameter may be reassigned; a different argument is not
        // the parameter halved.
        let mutable = "mod m { fn f(mut n: u64) { if n > 0 { n += 1; f(n / 2); } } }";
        assert_eq!(stacks(mutable)[0], C);
        let other = "mod m { fn f(n: u64, m: u64) { if n > 0 { f(m / 2, n); } } }";
        assert_eq!(stacks(other)[0], C);
        let narrow = "mod m { fn f(n: u8) { if n > 0 { f(n / 2); } } }";
        assert_eq!(stacks(narrow)[0], 9 * (FRAME_OVERHEAD_BYTES + 1));
    }

    #[test]
    fn nested_halving_recursions_count_the_deepest_not_their_sum() {
        let s = stacks(
            "mod m {
                use prescient::join;
                fn outer(n: u64) {
                    if n > 1 { let pad: [u8; 100] = [0; 100]; inner(n); join(|| outer(n / 2), || ()); }
                }
                fn inner(n: u64) {
                    if n > 1 { let pad: [u8; 300] = [0; 300]; join(|| inner(n / 2), || ()); }
                }
                fn top() { let big: [u8; 5000] = [0; 5000]; outer(64); }
            }",
        );
        let inner = HALVING_LEVELS_CHARGED * (FRAME_OVERHEAD_BYTES + 8 + 300 + 512);
        assert_eq!(s[1], inner);
        // `outer`'s levels hold smaller frames: `inner`'s count, once.
        assert_eq!(s[0], inner);
        // A non-recursive caller adds its frame.
        assert_eq!(s[2], FRAME_OVERHEAD_BYTES + 5000 + inner);
    }

    #[test]
    fn mutual_recursion_is_conservative() {
        let src = "mod m {
                fn a(n: u64) { b(n / 2); }
                fn b(n: u64) { a(n / 2); }
            }";
        assert_eq!(stacks(src), vec![C, C]);
        assert_eq!(why(src, 0), Some("mutual recursion"));
    }

    #[test]
    fn recursion_with_unknown_pieces_is_conservative() {
        for (body, reason) in [
            ("let v = x[0];", "a local of unknown size"),
            ("g();", "a call the analysis cannot see"),
            ("x.len();", "a call the analysis cannot see"),
            ("println!(\"{}\", n);", "a macro invocation"),
            ("let b = [0u8; M];", "a local of unknown size"),
            (
                "struct Big([u64; 8]); let b: Big = Big([0; 8]);",
                "a local of unknown size",
            ),
        ] {
            let src = format!(
                "mod m {{ fn f<const M: usize>(n: u64, x: &[u8]) {{ {body} if n > 0 {{ f::<M>(n / 2, x); }} }} }}"
            );
            assert_eq!(stacks(&src)[0], C, "{body}");
            assert_eq!(why(&src, 0), Some(reason), "{body}");
        }
    }

    #[test]
    fn invisible_recursion_is_seen_and_conservative() {
        // Through a method call on a value.
        let src = "mod m {
                use prescient::join;
                pub struct L { n: u64 }
                impl L {
                    pub fn sum(&self) -> u64 {
                        let l = L { n: self.n / 2 };
                        let (a, b) = join(|| l.sum(), || 1);
                        a + b
                    }
                }
            }";
        assert_eq!(stacks(src)[0], C);
        // Through a macro's arguments.
        let src = "mod m {
                use prescient::join;
                fn tree(n: u64) -> u64 { let v = vec![join(|| tree(n / 2), || 1)]; v[0].0 }
            }";
        assert_eq!(stacks(src)[0], C);
        assert_eq!(program(src).sites.len(), 1, "the join in vec! is a site");
        // Through a trait's default method.
        let src = "mod m {
                use prescient::join;
                pub trait Walk {
                    fn walk(&self, n: u64) -> u64 {
                        if n == 0 { return 1; }
                        let (a, b) = join(|| self.walk(n - 1), || 1);
                        a + b
                    }
                }
            }";
        assert_eq!(stacks(src)[0], C);
    }

    #[test]
    fn sizes_of_values_are_exact_where_known() {
        let s = stacks(
            "mod m {
                fn zeros() -> [u64; 8192] { [0; 8192] }
                fn a(x: u32) { let buf = [x; 8192]; }
                fn b() { let buf = zeros(); }
                fn c() -> u64 { zeros()[0] }
                fn d() { let buf: [u8; _] = [7; 100]; }
            }",
        );
        // zeros: its array temporary, at most u128 elements.
        assert_eq!(s[0], FRAME_OVERHEAD_BYTES + 16 * 8192);
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 4 + 4 * 8192);
        assert_eq!(s[2], FRAME_OVERHEAD_BYTES + 8 * 8192 + s[0]);
        assert_eq!(s[3], FRAME_OVERHEAD_BYTES + 8 * 8192 + s[0], "a temporary");
        assert_eq!(s[4], FRAME_OVERHEAD_BYTES + 100);
    }

    #[test]
    fn non_recursive_unknowns_get_typical_estimates() {
        let s = stacks(
            "mod m {
                fn g<T: Default, const N: usize>(t: T, r: &T) -> T {
                    let x: T = T::default();
                    let a: [u8; N] = [0; N];
                    x
                }
                fn h(x: &[u8]) { let y = x.len(); let z = [y; 16]; }
            }",
        );
        // t, r, x unknown / reference; the const-generic array conservative.
        assert_eq!(
            s[0],
            FRAME_OVERHEAD_BYTES
                + UNKNOWN_LOCAL_BYTES
                + REFERENCE_BYTES
                + UNKNOWN_LOCAL_BYTES
                + C
                + INVISIBLE_CALL_STACK_BYTES
        );
        // x: `&[u8]` (8 bytes here), y from an invisible call, z an array of
        // 16 unknown elements.
        assert_eq!(
            s[1],
            FRAME_OVERHEAD_BYTES
                + 8
                + UNKNOWN_LOCAL_BYTES
                + 16 * UNRESOLVED_ELEMENT_BYTES
                + INVISIBLE_CALL_STACK_BYTES
        );
    }
}
