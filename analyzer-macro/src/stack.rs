//! Stack size (CF'17 Alg. 4): how many bytes of stack a task context needs.
//!
//! A function's **frame** is the sum of its declarations — parameters, `let`
//! bindings, pattern bindings of `for`, `match`, `if let` and closures written
//! in it — plus [`FRAME_OVERHEAD_BYTES`], plus the runtime's own per-join frame
//! cost (`prescient::analysis::JOIN_FRAME_BYTES`, measured per build profile)
//! once per level of spawn-construct nesting (a task that is not stolen runs
//! inline below the construct's frame).
//!
//! A declaration's size is `core::mem::size_of::<T>()`, evaluated by rustc,
//! when its type `T` is written and resolves at module level; otherwise a
//! documented estimate: [`UNTYPED_BINDING_BYTES`] for a binding without a
//! written type (an array repeat of a typed literal, `[0u8; 4096]`, is sized
//! exactly), [`UNRESOLVED_REFERENCE_BYTES`] for a reference or pointer to a type
//! that does not resolve (generic, `Self`, local), [`UNRESOLVED_TYPE_BYTES`] for
//! any other type that does not resolve.
//!
//! A function's **stack** is its frame plus the largest stack of what it calls
//! (module functions, tasks run inline, and [`INVISIBLE_CALL_STACK_BYTES`] for
//! calls and macros the analysis cannot see). For a recursive component
//! (direct or mutual recursion) the recursion depth is unknown: the frames of
//! all its functions are multiplied by the recursion factor φ
//! ([`RECURSION_FACTOR`]), plus the largest stack called from the component.
//!
//! The aggregation (maximum over contexts, rounded up to a power of two,
//! clamped to 16 KiB ..= 8 MiB) is done by `prescient::analysis`.

use crate::model::{Callee, FnId, Node, Program, Size, WalkCtx};
use crate::structure::CallGraph;
use crate::sym::{self, Sym};

/// φ: the assumed depth of a recursion (a divide-and-conquer over 2^64
/// elements, or 64 levels of any recursion).
pub const RECURSION_FACTOR: u64 = 64;
/// Return address, saved registers and alignment of one frame.
pub const FRAME_OVERHEAD_BYTES: u64 = 64;
/// A binding without a written type.
pub const UNTYPED_BINDING_BYTES: u64 = 32;
/// A written type that does not resolve at module level.
pub const UNRESOLVED_TYPE_BYTES: u64 = 64;
/// A reference or raw pointer to a type that does not resolve (at most a fat
/// pointer).
pub const UNRESOLVED_REFERENCE_BYTES: u64 = 16;
/// Stack used by a call or macro the analysis cannot see.
pub const INVISIBLE_CALL_STACK_BYTES: u64 = 4096;

/// The size of one declaration.
pub fn decl_size(size: &Size) -> Sym {
    match size {
        Size::Type(ty) => Sym::SizeOf(ty.clone()),
        Size::Reference => Sym::Lit(UNRESOLVED_REFERENCE_BYTES),
        Size::Unresolved => Sym::Lit(UNRESOLVED_TYPE_BYTES),
        Size::Untyped => Sym::Lit(UNTYPED_BINDING_BYTES),
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

/// The largest stack called from the functions `members`, leaving them.
fn callees_stack(program: &Program, members: &[FnId], stacks: &[Option<Sym>]) -> Sym {
    let mut terms = Vec::new();
    for &f in members {
        program.functions[f]
            .body
            .walk(WalkCtx::default(), &mut |n, _| match n {
                Node::Call {
                    callee: Callee::Module(g),
                    ..
                } if !members.contains(g) => terms.push(match stacks[*g].as_ref() {
                    Some(Sym::Lit(v)) => Sym::Lit(*v),
                    _ => Sym::FnStack(*g),
                }),
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
        let below = callees_stack(program, members, &stacks);
        let own = if graph.recursive[c] {
            sym::product([
                Sym::Lit(RECURSION_FACTOR),
                sym::sum(members.iter().map(|&f| frame(program, f))),
            ])
        } else {
            frame(program, members[0])
        };
        let total = sym::sum([own, below]);
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
    use crate::model::tests::program;
    use crate::structure::call_graph;
    use crate::sym::Env;

    /// Primitive sizes as on a 64-bit target; a fixed join frame.
    struct Sizes(Vec<Sym>);

    impl Env for Sizes {
        fn constant(&self, _: &str) -> Option<i128> {
            None
        }
        fn size_of(&self, ty: &syn::Type) -> Option<u64> {
            let t = quote::quote!(#ty).to_string();
            Some(match t.as_str() {
                "u8" | "bool" => 1,
                "u32" | "i32" => 4,
                "u64" | "usize" | "f64" => 8,
                "[u8 ; 4096]" => 4096,
                t if t.starts_with('&') => 8,
                _ => return None,
            })
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

    #[test]
    fn frames_sum_declarations_and_join_nesting() {
        let s = stacks(
            "mod m {
                use prescient::join;
                fn leaf(x: u64, y: u32) { let z: u8 = 0; let w = 1; }
                fn nested() { join(|| join(|| 1, || 2), || 3); }
            }",
        );
        assert_eq!(
            s[0],
            FRAME_OVERHEAD_BYTES + 8 + 4 + 1 + UNTYPED_BINDING_BYTES
        );
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 2 * 512);
    }

    #[test]
    fn recursion_multiplies_by_phi() {
        let s = stacks(
            "mod m {
                use prescient::join;
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
                    a + b
                }
                fn run() -> u64 { let buf = [0u8; 4096]; fib(30) }
            }",
        );
        // Frame: overhead + n + untyped (a, b) + one join level.
        let frame = FRAME_OVERHEAD_BYTES + 8 + 2 * UNTYPED_BINDING_BYTES + 512;
        assert_eq!(s[0], RECURSION_FACTOR * frame);
        assert_eq!(s[1], FRAME_OVERHEAD_BYTES + 4096 + s[0]);
    }

    #[test]
    fn mutual_recursion_shares_one_estimate() {
        let s = stacks(
            "mod m {
                fn a(n: u64) { b(n); }
                fn b(n: u64) { a(n); println!(\"\"); }
            }",
        );
        let frames = 2 * (FRAME_OVERHEAD_BYTES + 8);
        assert_eq!(s[0], RECURSION_FACTOR * frames + INVISIBLE_CALL_STACK_BYTES);
        assert_eq!(s[0], s[1]);
    }

    #[test]
    fn generic_locals_get_estimates() {
        let p = program(
            "mod m {
                fn g<T: Default>(t: T, r: &T) -> T { let x: T = T::default(); let v: Vec<T> = Vec::new(); x }
            }",
        );
        let g = call_graph(&p);
        let s = &function_stacks(&p, &g)[0];
        assert_eq!(
            s.literal(),
            Some(
                FRAME_OVERHEAD_BYTES
                    + UNRESOLVED_TYPE_BYTES
                    + UNRESOLVED_REFERENCE_BYTES
                    + 2 * UNRESOLVED_TYPE_BYTES
                    + INVISIBLE_CALL_STACK_BYTES
            ),
            "{s}"
        );
    }
}
