//! Stack size (CF'17 Alg. 4): how many bytes of stack a task context needs.
//!
//! The estimate is the *committed* stack: what every task stack pre-faults
//! when it is made and what a recycled stack is trimmed back to. It is never
//! a limit — each task stack reserves `Params::stack_size` (8 MiB unless the
//! attribute's `stack_size = …` says otherwise), a hard limit like a
//! thread's — so an estimate that is too small costs page faults and one
//! that is too large costs memory, never a crash. The rules below still aim
//! at an upper bound: where the macro cannot bound the need, it falls back
//! to [`CONSERVATIVE_STACK_BYTES`] (the default reserve) rather than guess,
//! which the runtime reads as "unbounded" and commits nothing for (a stack
//! then keeps what it touched, as a thread's does).
//!
//! # Frames
//!
//! A function's **frame** is the sum of its declarations — parameters, `let`
//! bindings, pattern bindings of `for`, `match`, `if let` and closures written
//! in it, and the temporaries of array expressions and module calls — plus
//! [`FRAME_OVERHEAD_BYTES`], plus the runtime's own per-join frame cost
//! (`JOIN_FRAME_BYTES`, measured per build profile in
//! `runtime/src/analysis/emitted.rs` and emitted as
//! `prescient::__private::JOIN_FRAME_BYTES`) once
//! per level of spawn-construct nesting (a task that is not stolen runs inline
//! below the construct's frame); a range loop (`for_range`) counts
//! [`RANGE_SPLIT_LEVELS`](crate::model::RANGE_SPLIT_LEVELS) (64) ×
//! [`JOIN_FRAMES_PER_SPLIT_LEVEL`](crate::model::JOIN_FRAMES_PER_SPLIT_LEVEL)
//! (2) + 1 = 129, since its body runs below the joins (and the splitting
//! frames) that halve its range.
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
//! on the halved value — the assumption of CF'17's φ, made checkable). Its
//! stack is that depth times its frame plus what it calls.
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
//! generous estimate is used: [`UNKNOWN_LOCAL_BYTES`] for an unknown local,
//! [`UNRESOLVED_ELEMENT_BYTES`] per element of an array of unknown element
//! type, the conservative size for an array of unknown length.
//!
//! The aggregation (maximum over contexts, rounded up to 4 KiB pages, at
//! least 16 KiB; nothing committed from 8 MiB up) is done by
//! `prescient::analysis`.

use crate::model::{Callee, FnId, Node, Program, Size, WalkCtx};
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
/// Estimate of a local of unknown size in a non-recursive function.
pub const UNKNOWN_LOCAL_BYTES: u64 = 1024;
/// Estimate of one element of an array of unknown element type in a
/// non-recursive function.
pub const UNRESOLVED_ELEMENT_BYTES: u64 = 64;
/// Stack used by a call or macro the analysis cannot see, in a non-recursive
/// function (a generous allowance: formatting machinery in the debug
/// profile uses a few KiB).
pub const INVISIBLE_CALL_STACK_BYTES: u64 = 16 * 1024;

/// The size of one declaration: its known bound, or the non-recursive
/// estimate.
pub fn decl_size(size: &Size) -> Sym {
    match size {
        Size::Known(s) | Size::Unknown(s) => s.clone(),
    }
}

/// The frame of a function.
pub fn frame(program: &Program, f: FnId) -> Sym {
    let mut terms = vec![Sym::Lit(FRAME_OVERHEAD_BYTES)];
    let mut depth = 0u32;
    program.functions[f]
        .body
        .walk(WalkCtx::default(), &mut |n, ctx| match n {
            Node::Decl { size, .. } => terms.push(decl_size(size)),
            Node::Spawn { .. } => depth = depth.max(ctx.spawn_depth + 1),
            _ => {}
        });
    terms.push(sym::product([Sym::JoinFrame, Sym::Lit(u64::from(depth))]));
    sym::sum(terms)
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

/// The recursion depth of a component that is not [`unbounded`]: per halved
/// parameter of `b` bits, `b + 1` levels.
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
        .max(1)
}

/// The largest stack called from the functions `members`, leaving them.
fn callees_stack(program: &Program, members: &[FnId], stacks: &[Option<Sym>]) -> Sym {
    let stack_of = |g: FnId| match stacks[g].as_ref() {
        Some(Sym::Lit(v)) => Sym::Lit(*v),
        Some(_) => Sym::FnStack(g),
        // Not computed yet: a member (recursive components are handled by
        // their caller) — nothing to add here.
        None => Sym::Lit(0),
    };
    let mut terms = Vec::new();
    for &f in members {
        program.functions[f]
            .body
            .walk(WalkCtx::default(), &mut |n, _| match n {
                Node::Call {
                    callee: Callee::Module(g),
                    ..
                } if !members.contains(g) => terms.push(stack_of(*g)),
                Node::Call {
                    callee: callee @ (Callee::Maybe(_) | Callee::Indirect { .. }),
                    ..
                } => {
                    terms.push(Sym::Lit(INVISIBLE_CALL_STACK_BYTES));
                    for t in callee.targets() {
                        if !members.contains(&t.function) {
                            terms.push(stack_of(t.function));
                        }
                    }
                }
                Node::Call {
                    callee: Callee::External,
                    ..
                }
                | Node::Macro { .. } => terms.push(Sym::Lit(INVISIBLE_CALL_STACK_BYTES)),
                _ => {}
            });
    }
    sym::max(terms)
}

/// The stack estimate of every function, callees first.
pub fn function_stacks(program: &Program, graph: &CallGraph) -> Vec<Sym> {
    let mut stacks: Vec<Option<Sym>> = vec![None; program.functions.len()];
    for (c, members) in graph.components.iter().enumerate() {
        let total = if graph.recursive[c] {
            if unbounded(program, members).is_some() {
                Sym::Lit(CONSERVATIVE_STACK_BYTES)
            } else {
                let below = callees_stack(program, members, &stacks);
                let own = sym::product([
                    Sym::Lit(depth(program, members)),
                    sym::sum(members.iter().map(|&f| frame(program, f))),
                ]);
                sym::sum([own, below])
            }
        } else {
            let below = callees_stack(program, members, &stacks);
            sym::sum([frame(program, members[0]), below])
        };
        for &f in members {
            stacks[f] = Some(total.clone());
        }
    }
    stacks
        .into_iter()
        .map(|s| s.unwrap_or(Sym::Lit(0)))
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
        let env = Sizes(s.clone());
        s.iter().map(|e| e.eval(&env).expect("evaluates")).collect()
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
                use prescient::{for_range, join};
                fn flat() { for_range(0..10, 1, |_| ()); }
                fn nested() { for_range(0..10, 1, |i: usize| { join(|| 1, || 2); }); }
            }",
        );
        // The splitting levels at two join frames each, and the piece's own.
        let levels = 2 * u64::from(crate::model::RANGE_SPLIT_LEVELS) + 1;
        assert_eq!(levels, 129);
        assert_eq!(s[0], FRAME_OVERHEAD_BYTES + levels * 512);
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 8 + (levels + 1) * 512);
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
        // Frame: n, (a, b) typed from sum's return type, two call temporaries
        // of u64 in the tasks, one join level.
        let frame = FRAME_OVERHEAD_BYTES + 8 + 16 + 2 * 8 + 512;
        assert_eq!(s[0], 65 * frame);
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
    fn non_recursive_unknowns_get_generous_estimates() {
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
