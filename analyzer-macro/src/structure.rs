//! Parallel structure (CF'17 Alg. 2 and its loop variant): the call graph, ρ
//! and λ per task context.
//!
//! * **ρ** counts the recursive parallel paths reachable from a context: a call
//!   that reaches, directly or mutually, back to a function on its own call path
//!   with a spawn on that cycle, i.e. at least one call of the cycle made inside
//!   a task body. The search follows call paths from the context depth first and
//!   counts each closing call site once; recursion that does not pass through a
//!   spawn is not parallel recursion. The search stops after
//!   [`RHO_SEARCH_BUDGET`] call edges (ρ is then what was found so far).
//! * **λ** counts the spawn sites reachable from a context that execute inside a
//!   loop: a site written in a loop (`for`, `while`, `loop`, an iterator
//!   closure such as `for_each`), or reached through a call made in one. A
//!   range loop (`for_range`) is such a loop around its own site, so it
//!   counts even when written outside any other loop, and so do the sites its
//!   body reaches.
//!
//! Calls the lowering could not resolve are edges to every module function
//! they may reach: a method call on a value to the module's methods of that
//! name, a call through a function pointer or closure value to every
//! function the module lets escape into a value (`Callee::Indirect`).
//! Recursion through modules outside the program (the annotated module and
//! the inline modules nested in it), or through values made outside the
//! module, is invisible.

use crate::model::{FnId, Node, Program, SiteId, WalkCtx};
use proc_macro2::Span;
use std::collections::HashSet;

/// Call edges the ρ search follows at most, per context.
pub const RHO_SEARCH_BUDGET: usize = 100_000;

/// One call of a module function (a call site).
#[derive(Clone, Debug)]
pub struct CallEdge {
    /// The called function.
    pub callee: FnId,
    /// The call is made inside a task body (it passes through a spawn).
    pub in_spawn: bool,
    /// The call is made inside a loop of the caller.
    pub in_loop: bool,
    /// The call.
    #[allow(dead_code)] // kept for diagnostics
    pub span: Span,
}

/// The module's call graph and its strongly connected components.
#[derive(Clone, Debug)]
pub struct CallGraph {
    /// Per function, its calls into the module, in source order.
    pub edges: Vec<Vec<CallEdge>>,
    /// Per function, the index of its component in `components`.
    pub component: Vec<usize>,
    /// The strongly connected components, callees before callers.
    pub components: Vec<Vec<FnId>>,
    /// Per component, whether it is recursive (a cycle, or a self call).
    pub recursive: Vec<bool>,
}

impl CallGraph {
    /// Whether a call from `caller` to `callee` is recursive: both are in the
    /// same recursive component.
    pub fn is_recursive_call(&self, caller: FnId, callee: FnId) -> bool {
        let c = self.component[caller];
        c == self.component[callee] && self.recursive[c]
    }
}

/// Builds the call graph.
pub fn call_graph(program: &Program) -> CallGraph {
    let edges: Vec<Vec<CallEdge>> = program
        .functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            f.body.walk(WalkCtx::default(), &mut |n, ctx| {
                let Node::Call { callee, span, .. } = n else {
                    return;
                };
                // A possible call (a method call on a value, a name in a
                // macro, a call through a value) is an edge to each
                // candidate: recursion through it is seen. A closure run
                // through a value that spawns its call puts the edge in a
                // task.
                for t in callee.targets() {
                    out.push(CallEdge {
                        callee: t.function,
                        in_spawn: ctx.in_spawn || t.in_spawn,
                        in_loop: ctx.in_loop || t.in_loop,
                        span: *span,
                    });
                }
            });
            out
        })
        .collect();
    let components = tarjan(&edges);
    let mut component = vec![0; edges.len()];
    for (i, c) in components.iter().enumerate() {
        for &f in c {
            component[f] = i;
        }
    }
    let recursive = components
        .iter()
        .map(|c| c.len() > 1 || edges[c[0]].iter().any(|e| e.callee == c[0]))
        .collect();
    CallGraph {
        edges,
        component,
        components,
        recursive,
    }
}

/// Tarjan's algorithm; components come out callees first.
fn tarjan(edges: &[Vec<CallEdge>]) -> Vec<Vec<FnId>> {
    struct State<'a> {
        edges: &'a [Vec<CallEdge>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<FnId>,
        next: usize,
        out: Vec<Vec<FnId>>,
    }
    fn visit(s: &mut State<'_>, v: FnId) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for e in &s.edges[v] {
            let w = e.callee;
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut c = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            c.sort_unstable();
            s.out.push(c);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// ρ of a context: the recursive parallel paths reachable from it (Alg. 2).
pub fn rho(graph: &CallGraph, context: FnId) -> u32 {
    struct Search<'a> {
        graph: &'a CallGraph,
        path: Vec<FnId>,
        /// `path_spawn[i]`: the call from `path[i]` to `path[i + 1]` is in a task.
        path_spawn: Vec<bool>,
        counted: HashSet<(FnId, usize)>,
        budget: usize,
    }
    fn go(s: &mut Search<'_>, f: FnId) {
        for (k, e) in s.graph.edges[f].iter().enumerate() {
            if s.budget == 0 {
                return;
            }
            s.budget -= 1;
            if let Some(pos) = s.path.iter().position(|&g| g == e.callee) {
                if e.in_spawn || s.path_spawn[pos..].iter().any(|&b| b) {
                    s.counted.insert((f, k));
                }
            } else {
                s.path.push(e.callee);
                s.path_spawn.push(e.in_spawn);
                go(s, e.callee);
                s.path.pop();
                s.path_spawn.pop();
            }
        }
    }
    let mut s = Search {
        graph,
        path: vec![context],
        path_spawn: Vec::new(),
        counted: HashSet::new(),
        budget: RHO_SEARCH_BUDGET,
    };
    go(&mut s, context);
    u32::try_from(s.counted.len()).unwrap_or(u32::MAX)
}

/// Per site: whether it is written inside a loop of its function.
pub fn sites_in_loops(program: &Program) -> Vec<bool> {
    let mut in_loop = vec![false; program.sites.len()];
    for f in &program.functions {
        f.body.walk(WalkCtx::default(), &mut |n, ctx| {
            if let Node::Spawn { site, .. } = n {
                in_loop[*site] = ctx.in_loop;
            }
        });
    }
    in_loop
}

/// λ of a context: the spawn sites reachable from it that execute in a loop.
pub fn lambda(program: &Program, graph: &CallGraph, context: FnId) -> u32 {
    let site_loops = sites_in_loops(program);
    let sites_of = |f: FnId| -> Vec<SiteId> {
        (0..program.sites.len())
            .filter(|&s| program.sites[s].function == f)
            .collect()
    };
    let mut seen: HashSet<(FnId, bool)> = HashSet::new();
    let mut counted: HashSet<SiteId> = HashSet::new();
    let mut work = vec![(context, false)];
    while let Some((f, looped)) = work.pop() {
        if !seen.insert((f, looped)) {
            continue;
        }
        for s in sites_of(f) {
            if looped || site_loops[s] {
                counted.insert(s);
            }
        }
        for e in &graph.edges[f] {
            work.push((e.callee, looped || e.in_loop));
        }
    }
    u32::try_from(counted.len()).unwrap_or(u32::MAX)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::program;

    /// The id of the function named `name`.
    pub(crate) fn function_named(p: &Program, name: &str) -> FnId {
        p.functions
            .iter()
            .position(|f| f.name == name)
            .expect("function exists")
    }

    /// The module `src`'s model, call graph and the id of `function`.
    pub(crate) fn analysed(src: &str, function: &str) -> (Program, CallGraph, FnId) {
        let p = program(src);
        let g = call_graph(&p);
        let f = function_named(&p, function);
        (p, g, f)
    }

    /// ρ and λ of `function` in the module `src`.
    pub(crate) fn rho_lambda(src: &str, function: &str) -> (u32, u32) {
        let (p, g, f) = analysed(src, function);
        (rho(&g, f), lambda(&p, &g, f))
    }

    const FIB: &str = "mod m {
        use prescient::join;
        pub fn run() -> u64 { prescient::Runtime::new().run(|| fib(30)) }
        pub fn fib(n: u64) -> u64 {
            if n < 2 { return n; }
            let (a, b) = join(|| fib(n - 1), || fib(n - 2));
            a + b
        }
    }";

    #[test]
    fn direct_recursion_through_join() {
        assert_eq!(rho_lambda(FIB, "fib"), (2, 0));
        assert_eq!(rho_lambda(FIB, "run"), (2, 0), "reachable from the region");
        let p = program(FIB);
        let g = call_graph(&p);
        assert!(g.is_recursive_call(1, 1));
        assert!(!g.is_recursive_call(0, 1));
    }

    #[test]
    fn mutual_recursion_counts() {
        let src = "mod m {
            use prescient::spawn;
            fn even(n: u64) { if n > 0 { spawn(move || odd(n - 1)); } }
            fn odd(n: u64) { if n > 0 { even(n - 1); } }
        }";
        assert_eq!(rho_lambda(src, "even"), (1, 0));
        assert_eq!(rho_lambda(src, "odd"), (1, 0));
        let g = call_graph(&program(src));
        assert_eq!(g.components.len(), 1);
        assert!(g.recursive[0]);
    }

    #[test]
    fn recursion_without_spawn_is_not_parallel() {
        let src = "mod m {
            use prescient::spawn;
            fn walk(n: u64) { spawn(move || leaf(n)); if n > 0 { walk(n - 1); } }
            fn leaf(n: u64) -> u64 { if n == 0 { 0 } else { leaf(n - 1) } }
        }";
        assert_eq!(rho_lambda(src, "walk"), (0, 0));
    }

    #[test]
    fn spawns_in_loops() {
        let src = "mod m {
            use prescient::{spawn, scope};
            fn a() { for i in 0..10 { spawn(move || i); } }
            fn b() { let mut i = 0; while i < 10 { spawn(|| 1); i += 1; } }
            fn c() { loop { spawn(|| 1); break; } }
            fn d(v: &[u64]) { v.iter().for_each(|x| { spawn(|| 1); }); }
            fn e() { scope(|s| (0..8).for_each(|i| { s.spawn(move |_| i); })); }
            fn f() { spawn(|| 1); }
            fn g() { for _ in 0..3 { f(); } }
            fn h() { (0..4).map(|i| spawn(move || i)).count(); spawn(|| 2); }
        }";
        for f in ["a", "b", "c", "d", "e"] {
            assert_eq!(rho_lambda(src, f), (0, 1), "{f}");
        }
        assert_eq!(rho_lambda(src, "f"), (0, 0));
        assert_eq!(rho_lambda(src, "g"), (0, 1), "through a call in a loop");
        assert_eq!(rho_lambda(src, "h"), (0, 1), "map over a range is a loop");
    }

    #[test]
    fn nested_closures_keep_their_context() {
        let src = "mod m {
            use prescient::join;
            fn tree(d: u32) -> u32 {
                if d == 0 { return 1; }
                let (a, b) = join(
                    || { let f = |x: u32| tree(x); f(d - 1) },
                    || join(|| tree(d - 1), || 0).0,
                );
                a + b
            }
        }";
        let p = program(src);
        assert_eq!(p.sites.len(), 2);
        assert!(p.sites.iter().all(|s| s.function == 0));
        assert_eq!(rho_lambda(src, "tree"), (2, 0));
    }

    #[test]
    fn unknown_external_calls_are_not_edges() {
        let src = "mod m {
            use prescient::join;
            fn f(n: u64) { join(|| other::f(n), || std::hint::black_box(n)); }
        }";
        assert_eq!(rho_lambda(src, "f"), (0, 0));
        assert!(call_graph(&program(src)).edges[0].is_empty());
    }

    #[test]
    fn spawned_function_values_are_calls() {
        let src = "mod m {
            use prescient::spawn;
            fn task() { spawn(task); }
        }";
        assert_eq!(rho_lambda(src, "task"), (1, 0));
    }
}
