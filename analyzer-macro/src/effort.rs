//! Effort (CF'17 Alg. 3): the static work estimate of functions, spawn sites
//! and task contexts, in units of one built-in operation (as INSPIRE's
//! built-ins), so that the paper's 1M / 1T thresholds apply.
//!
//! # Cost table
//!
//! | construct | cost |
//! |---|---|
//! | built-in operation: arithmetic, comparison, logic, bit operation, negation, dereference, cast, assignment, compound assignment, indexing, `?` | [`BUILTIN_OP`] each |
//! | literal, variable, field access, borrow, `let`, `break`, `continue`, `return` | 0 (plus their operands) |
//! | call of a module function | [`CALL_OVERHEAD`] + arguments + the callee's effort |
//! | recursive call (caller and callee in one recursive strongly connected component: direct or mutual recursion) | [`CALL_OVERHEAD`] + arguments only |
//! | call of anything invisible (other crates, `std`, methods outside the module, closures held in variables, trait objects, function pointers) | [`CALL_OVERHEAD`] + [`INVISIBLE_CALL`] + arguments |
//! | macro invocation (its expansion is invisible) | [`MACRO_INVOCATION`] + its arguments where they parse as expressions |
//! | method call on a value whose name a module method has (possibly that method) | as an invisible call |
//! | call through a function pointer or a closure held in a value (possibly an escaping module function) | as an invisible call |
//! | invocation of a `macro_rules!` macro of the module | the code it expands to |
//! | spawn construct | [`SPAWN_OVERHEAD`] + the effort of its task bodies |
//! | range loop `for_range(r, g, body)` | `r` + `g` + a loop of trip count × (spawn construct of `body` + [`LOOP_ITERATION`]); for `for_range_chunked` the trip count is the number of chunks, ⌈len / g⌉ when both are literal (else the default) |
//! | `if` / `match` | condition + the most expensive branch |
//! | loop | trip count × (body + [`LOOP_ITERATION`]) |
//! | closure | its body, once where written (× trip count when passed to an iterator method such as `for_each`) |
//! | array repeat `[x; n]` | `x` + `n` |
//!
//! The trip count of a loop is the literal one when visible (`0..10`,
//! `0..=n` with literal bounds, an array literal, through `rev()`,
//! `enumerate()`, `map(…)`), a module-level `const` bound (`0..N`, evaluated by
//! rustc) when no generic, const parameter or body-local binding could shadow
//! `N`, and [`DEFAULT_TRIP_COUNT`] otherwise. All arithmetic saturates.
//!
//! A spawn site's effort is the effort of its task bodies; a context's effort is
//! the mean over its sites.

use crate::model::{Callee, FnId, LoopKind, Node, Program, SiteId, Trip};
use crate::structure::CallGraph;
use crate::sym::{self, Sym};

/// Cost of one built-in operation.
pub const BUILTIN_OP: u64 = 1;
/// Cost of making a call (argument passing, prologue, return).
pub const CALL_OVERHEAD: u64 = 2;
/// Estimated cost of the body of a function the analysis cannot see.
pub const INVISIBLE_CALL: u64 = 10;
/// Estimated cost of a macro invocation.
pub const MACRO_INVOCATION: u64 = 10;
/// Cost of a spawn construct itself, on top of its tasks.
pub const SPAWN_OVERHEAD: u64 = 10;
/// Per-iteration cost of a loop (increment, test, jump).
pub const LOOP_ITERATION: u64 = 1;
/// Trip count of a loop whose count is not visible.
pub const DEFAULT_TRIP_COUNT: u64 = 100;

/// The trip count of a loop as an expression.
pub fn trip_count(trip: &Trip) -> Sym {
    match trip {
        Trip::Literal(n) => Sym::Lit(*n),
        Trip::Range {
            start,
            end,
            inclusive,
        } => sym::trip(start.clone(), end.clone(), *inclusive),
        Trip::Unknown => Sym::Lit(DEFAULT_TRIP_COUNT),
    }
}

/// The effort of one node of function `f`'s body. `efforts` holds the
/// efforts of the functions already computed (callees first).
pub fn node_effort(graph: &CallGraph, f: FnId, node: &Node, efforts: &[Option<Sym>]) -> Sym {
    let go = |n: &Node| node_effort(graph, f, n, efforts);
    match node {
        Node::Ops(n) => Sym::Lit(n.saturating_mul(BUILTIN_OP)),
        Node::Seq(nodes) => sym::sum(nodes.iter().map(go)),
        Node::Choice(nodes) => sym::max(nodes.iter().map(go)),
        Node::Loop {
            kind, trip, body, ..
        } => {
            let per_iteration = match kind {
                LoopKind::Repeat => go(body),
                _ => sym::sum([go(body), Sym::Lit(LOOP_ITERATION)]),
            };
            sym::product([trip_count(trip), per_iteration])
        }
        Node::Call { callee, args, .. } => {
            let callee = match callee {
                Callee::Module(g) if graph.is_recursive_call(f, *g) => Sym::Lit(0),
                Callee::Module(g) => callee_effort(*g, efforts),
                Callee::External | Callee::Maybe(_) | Callee::Indirect { .. } => {
                    Sym::Lit(INVISIBLE_CALL)
                }
            };
            sym::sum([go(args), Sym::Lit(CALL_OVERHEAD), callee])
        }
        Node::Spawn { args, tasks, .. } => sym::sum(
            [go(args), Sym::Lit(SPAWN_OVERHEAD)]
                .into_iter()
                .chain(tasks.iter().map(go)),
        ),
        Node::Decl { .. } | Node::Unseen { .. } => Sym::Lit(0),
        Node::Macro { inner, .. } => sym::sum([Sym::Lit(MACRO_INVOCATION), go(inner)]),
    }
}

/// A reference to a callee's effort: its value if literal, else its `const`.
fn callee_effort(g: FnId, efforts: &[Option<Sym>]) -> Sym {
    match efforts.get(g).and_then(Option::as_ref) {
        Some(Sym::Lit(v)) => Sym::Lit(*v),
        Some(_) => Sym::FnEffort(g),
        // Not computed yet: only possible within a recursive component, where
        // calls are recursive and cost their arguments only.
        None => Sym::Lit(0),
    }
}

/// The effort of every function (one invocation), callees first.
pub fn function_efforts(program: &Program, graph: &CallGraph) -> Vec<Sym> {
    let mut efforts: Vec<Option<Sym>> = vec![None; program.functions.len()];
    for component in &graph.components {
        for &f in component {
            let e = node_effort(graph, f, &program.functions[f].body, &efforts);
            efforts[f] = Some(e);
        }
    }
    efforts
        .into_iter()
        .map(|e| e.unwrap_or(Sym::Lit(0)))
        .collect()
}

/// The effort of every spawn site: the effort of its task bodies.
pub fn site_efforts(program: &Program, graph: &CallGraph, efforts: &[Sym]) -> Vec<Sym> {
    let efforts: Vec<Option<Sym>> = efforts.iter().cloned().map(Some).collect();
    let mut out = vec![Sym::Lit(0); program.sites.len()];
    for (f, function) in program.functions.iter().enumerate() {
        function.body.walk(Default::default(), &mut |n, _| {
            if let Node::Spawn { site, tasks, .. } = n {
                out[*site] = sym::sum(tasks.iter().map(|t| node_effort(graph, f, t, &efforts)));
            }
        });
    }
    out
}

/// The effort of a context: the mean effort of its sites.
pub fn context_effort(sites: &[SiteId], site_efforts: &[Sym]) -> Sym {
    let total = sym::sum(sites.iter().map(|&s| site_efforts[s].clone()));
    sym::div(total, sites.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::call_graph;
    use crate::sym::Env;
    use crate::test_support::program;

    struct Consts(&'static [(&'static str, i128)], Vec<Sym>);

    impl Env for Consts {
        fn constant(&self, name: &str) -> Option<i128> {
            self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        }
        fn size_of(&self, _: &syn::Type) -> Option<u64> {
            None
        }
        fn join_frame(&self) -> u64 {
            0
        }
        fn function(&self, s: &Sym) -> Option<u64> {
            match s {
                Sym::FnEffort(i) => self.1[*i].eval(self),
                _ => None,
            }
        }
    }

    /// (function efforts, site efforts), evaluated.
    fn efforts(src: &str, consts: &'static [(&'static str, i128)]) -> (Vec<u64>, Vec<u64>) {
        let p = program(src);
        let g = call_graph(&p);
        let f = function_efforts(&p, &g);
        let s = site_efforts(&p, &g, &f);
        let env = Consts(consts, f.clone());
        (
            f.iter().map(|e| e.eval(&env).unwrap()).collect(),
            s.iter().map(|e| e.eval(&env).unwrap()).collect(),
        )
    }

    #[test]
    fn fib_is_tiny_and_recursive_calls_count_arguments_only() {
        let (f, s) = efforts(
            "mod m {
                use prescient::join;
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
                    a + b
                }
            }",
            &[],
        );
        // Each task: `n - 1` (1) + call (2).
        assert_eq!(s, vec![6]);
        // `n < 2` (1) + join (10 + 6) + `a + b` (1).
        assert_eq!(f, vec![18]);
    }

    #[test]
    fn loops_use_literal_const_or_default_trip_counts() {
        let (f, _) = efforts(
            "mod m {
                const N: usize = 1000;
                fn lit() { for i in 0..10 { x += i; } }
                fn konst() { for i in 0..N { x += i; } }
                fn unknown(n: usize) { for i in 0..n { x += i; } }
                fn whiles() { while c { x += 1; } }
                fn generic<const N: usize>() { for i in 0..N { x += i; } }
                fn shadowed() { let N = 5; for i in 0..N { x += i; } }
                fn nested() { for _ in 0..N { for _ in 0..N { x += 1; } } }
                fn closures(v: &[u64]) { (0..8).for_each(|i| x += i); v.iter().for_each(|i| x += i); }
            }",
            &[("N", 1000)],
        );
        // body: `x += i` = 1, + 1 per iteration.
        assert_eq!(f[0], 10 * 2);
        assert_eq!(f[1], 1000 * 2);
        assert_eq!(f[2], 100 * 2);
        // `c` is free; the condition is re-evaluated each time: (0 + 1 + 1) × 100.
        assert_eq!(f[3], 100 * 2);
        assert_eq!(f[4], 100 * 2);
        assert_eq!(f[5], 100 * 2);
        assert_eq!(f[6], 1000 * (1000 * 2 + 1));
        // Iterator closures: the range's count, else the default; `v.iter()`
        // is an invisible call.
        assert_eq!(f[7], 8 * 2 + (CALL_OVERHEAD + INVISIBLE_CALL) + 100 * 2);
    }

    #[test]
    fn calls_into_the_module_add_the_callee() {
        let (f, s) = efforts(
            "mod m {
                use prescient::spawn;
                const N: u64 = 1_000_000;
                fn work() -> u64 { let mut a = 0; for i in 0..N { a += i * i; } a }
                fn driver() { for i in 0..1000 { spawn(move || work()); } }
            }",
            &[("N", 1_000_000)],
        );
        assert_eq!(f[0], 3_000_000);
        assert_eq!(s, vec![3_000_002]);
        assert_eq!(f[1], 1000 * (10 + 3_000_002 + 1));
    }

    #[test]
    fn unknown_external_calls_and_macros_are_estimated() {
        let (f, _) = efforts(
            "mod m { fn f(v: Vec<u64>) { v.len(); other::g(1 + 2); println!(\"x\"); } }",
            &[],
        );
        assert_eq!(
            f[0],
            (CALL_OVERHEAD + INVISIBLE_CALL)
                + (1 + CALL_OVERHEAD + INVISIBLE_CALL)
                + MACRO_INVOCATION
        );
    }

    #[test]
    fn mutual_recursion_truncates_inside_the_component() {
        let (f, _) = efforts(
            "mod m {
                fn a(n: u64) { if n > 0 { b(n - 1); } }
                fn b(n: u64) { if n > 0 { a(n - 1); } helper(); }
                fn helper() { x += 1; }
            }",
            &[],
        );
        assert_eq!(f[2], 1);
        assert_eq!(f[0], 1 + (1 + CALL_OVERHEAD));
        assert_eq!(f[1], 1 + (1 + CALL_OVERHEAD) + (CALL_OVERHEAD + 1));
    }

    #[test]
    fn const_bounds_stay_symbolic_for_rustc() {
        let p = program("mod m { const N: usize = 4; fn f() { for _ in 0..N {} } }");
        let g = call_graph(&p);
        let e = function_efforts(&p, &g);
        assert_eq!(e[0].to_string(), "trip(0..N)");
    }
}
