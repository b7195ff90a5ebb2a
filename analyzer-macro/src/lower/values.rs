//! Calls through values: function pointers, closures held in variables,
//! fields or parameters, and tasks passed as values.
//!
//! Such a call (`(v.visit)(child)`, `(self.f)(x)`, `callbacks[i](x)`, `f(x)`
//! with `f: fn(u64)` or `f: impl Fn(u64)`, `spawn(task)` with a `task`
//! parameter) may run any module function that the module lets *escape
//! into a value*:
//!
//! * a module function named anywhere but as the callee of a direct call or
//!   the task of a spawn construct — `visit: walk` in a struct literal,
//!   `let f: fn(u64) = walk;`, `apply(walk, x)`, `[walk, other]`, and paths
//!   in `const` and `static` initializers;
//! * the module functions called by a closure that becomes a value — a
//!   closure written as an argument of anything but a spawn construct,
//!   `prescient` function or iterator loop method (`apply(|x| walk(x), 3)`,
//!   `Box::new(move |x| walk(x))`), or a `let`-bound closure used as a value
//!   (`register(cb)`), with whether the closure calls it inside a task or a
//!   loop.
//!
//! So a call through a value is [`Callee::Indirect`] with every escaping
//! function as a target, and recursion through it is seen by ρ (only where
//! a spawn is on the cycle, as for any call) and by the stack analysis
//! (which then takes the conservative size). A `let`-bound closure called
//! again after its body was taken (`let rec = |m| walk(m); join(|| rec(a),
//! || rec(b))`) reaches exactly its own callees. Functions made into values
//! outside the module (another module naming `annotated::walk`) are not
//! seen; nor are closures built by another module and passed in.

use super::builder::{Binding, FnBuilder};
use super::calls::noted_call;
use super::syntax::strip;
use crate::model::{Callee, Node, Target, UnseenKind, WalkCtx};
use proc_macro2::Span;

/// The module functions a lowered body (a closure's) calls, each with
/// whether it is called inside a task or a loop of the body; and whether
/// the body calls through a value itself (then it reaches every escaping
/// function too).
pub(super) fn targets_of(body: &Node) -> (Vec<Target>, bool) {
    let mut targets: Vec<Target> = Vec::new();
    let mut through_values = false;
    body.walk(WalkCtx::default(), &mut |n, ctx| {
        let Node::Call { callee, .. } = n else {
            return;
        };
        if let Callee::Indirect { values: true, .. } = callee {
            through_values = true;
        }
        for t in callee.targets() {
            add(
                &mut targets,
                Target {
                    function: t.function,
                    in_spawn: ctx.in_spawn || t.in_spawn,
                    in_loop: ctx.in_loop || t.in_loop,
                },
            );
        }
    });
    (targets, through_values)
}

/// Adds a target, merging its flags into an entry for the same function.
fn add(targets: &mut Vec<Target>, t: Target) {
    match targets.iter_mut().find(|u| u.function == t.function) {
        Some(u) => {
            u.in_spawn |= t.in_spawn;
            u.in_loop |= t.in_loop;
        }
        None => targets.push(t),
    }
}

/// Gives every call through a value that reaches escaping functions
/// (`values`) those functions as targets, once the whole module is lowered.
pub(super) fn fill_indirect(node: &mut Node, escaping: &[Target]) {
    match node {
        Node::Call { callee, args, .. } => {
            if let Callee::Indirect {
                targets,
                values: true,
            } = callee
            {
                for &t in escaping {
                    add(targets, t);
                }
            }
            fill_indirect(args, escaping);
        }
        Node::Seq(nodes) | Node::Choice(nodes) => {
            for n in nodes {
                fill_indirect(n, escaping);
            }
        }
        Node::Loop { body, .. } => fill_indirect(body, escaping),
        Node::Macro { inner, .. } => fill_indirect(inner, escaping),
        Node::Spawn { args, tasks, .. } => {
            fill_indirect(args, escaping);
            for t in tasks {
                fill_indirect(t, escaping);
            }
        }
        Node::Ops(_) | Node::Decl { .. } | Node::Unseen { .. } => {}
    }
}

/// The escaping set of a module: what its bodies let escape, and the
/// functions named in its `const`s and `static`s.
pub(super) fn escaping_set(from_bodies: &[Target], address_taken: &[usize]) -> Vec<Target> {
    let mut out = Vec::new();
    for &t in from_bodies {
        add(&mut out, t);
    }
    for &function in address_taken {
        add(
            &mut out,
            Target {
                function,
                in_spawn: false,
                in_loop: false,
            },
        );
    }
    out
}

impl FnBuilder<'_> {
    /// Records functions that escape into a value here.
    pub(super) fn escape(&mut self, targets: &[Target]) {
        for &t in targets {
            add(self.escaping, t);
        }
    }

    /// Records what a closure value's body calls as escaping.
    pub(super) fn escape_closure(&mut self, body: &Node) {
        let (targets, _) = targets_of(body);
        self.escape(&targets);
    }

    /// A call through a value (`what`, as written), after `args`: the
    /// closure kept aside as `closure`, whose body was already taken, or any
    /// escaping function.
    pub(super) fn indirect_call(
        &mut self,
        what: String,
        args: Node,
        span: Span,
        closure: Option<usize>,
    ) -> Node {
        let callee = match closure.and_then(|k| self.closure_targets.get(k)) {
            Some((targets, values)) => Callee::Indirect {
                targets: targets.clone(),
                values: *values,
            },
            None => Callee::Indirect {
                targets: Vec::new(),
                values: true,
            },
        };
        noted_call(UnseenKind::IndirectCall, what, callee, args, span)
    }

    /// The closure kept aside that an expression names (`l`, `&l`), taken
    /// or not.
    pub(super) fn closure_binding(&self, e: &syn::Expr) -> Option<usize> {
        let mut e = strip(e);
        while let syn::Expr::Reference(r) = e {
            e = strip(&r.expr);
        }
        let syn::Expr::Path(p) = e else {
            return None;
        };
        if p.qself.is_some() {
            return None;
        }
        match self.lookup(&p.path.get_ident()?.to_string())? {
            Binding::Closure(k) => Some(k),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::structure::rho;
    use crate::structure::tests::analysed;

    fn rho_of(src: &str, function: &str) -> u32 {
        let (_, g, f) = analysed(src, function);
        rho(&g, f)
    }

    #[test]
    fn function_pointers_in_struct_fields() {
        let src = "mod m {
            use prescient::join;
            pub struct Visitor { pub visit: fn(&Visitor, u64) -> u64 }
            pub fn walk(v: &Visitor, n: u64) -> u64 {
                if n == 0 { return 1; }
                let (a, b) = join(|| (v.visit)(v, n - 1), || (v.visit)(v, n - 1));
                a + b
            }
            pub fn run() -> u64 { let v = Visitor { visit: walk }; walk(&v, 10) }
        }";
        assert_eq!(rho_of(src, "walk"), 2);
        assert_eq!(rho_of(src, "run"), 2);
    }

    #[test]
    fn function_values_closures_and_tables() {
        // A module function passed as a value, called through a parameter.
        let src = "mod m {
            use prescient::spawn;
            pub fn walk(n: u64, f: fn(u64, fn(u64)) ) { if n > 0 { spawn(move || f(n - 1, f)); } }
            pub fn run() { walk(10, walk); }
        }";
        assert_eq!(rho_of(src, "walk"), 1);
        // `let f: fn(..) = walk;` and a call through `(self.f)` / an index.
        let src = "mod m {
            use prescient::join;
            pub struct S { f: fn(u64) -> u64, table: Vec<fn(u64) -> u64> }
            impl S {
                pub fn go(&self, n: u64) -> u64 {
                    join(|| (self.f)(n), || self.table[0](n)).0
                }
            }
            pub fn walk(n: u64) -> u64 { let f: fn(u64) -> u64 = walk; f(n) }
        }";
        assert_eq!(rho_of(src, "S::go"), 0, "walk's own call is not in a task");
        assert_eq!(rho_of(src, "walk"), 0);
        // A closure handed to a higher-order module function.
        let src = "mod m {
            use prescient::join;
            fn apply(f: &dyn Fn(u64) -> u64, x: u64) -> u64 { join(|| f(x), || 0).0 }
            pub fn walk(n: u64) -> u64 { if n == 0 { 0 } else { apply(&|m| walk(m), n - 1) } }
        }";
        assert_eq!(rho_of(src, "walk"), 1);
        // A `static` table of functions.
        let src = "mod m {
            use prescient::join;
            static TABLE: [fn(u64) -> u64; 1] = [walk];
            pub fn walk(n: u64) -> u64 { if n == 0 { 0 } else { join(|| TABLE[0](n - 1), || 0).0 } }
        }";
        assert_eq!(rho_of(src, "walk"), 1);
    }

    #[test]
    fn a_closure_spawning_its_call_puts_the_edge_in_a_task() {
        let src = "mod m {
            use prescient::join;
            pub struct Job { run: Box<dyn Fn(u64) -> u64> }
            pub fn make() -> Job { Job { run: Box::new(|n| join(|| step(n), || 0).0) } }
            pub fn step(n: u64) -> u64 { if n == 0 { 0 } else { (make().run)(n - 1) } }
        }";
        // step -> (through the value) the closure -> its join -> step; and
        // step -> make, where the closure is written, -> its join -> step.
        assert_eq!(rho_of(src, "step"), 2);
        // Without the call through the value, only the second path remains.
        let without = src.replace("(make().run)(n - 1)", "{ make(); 0 }");
        assert_eq!(rho_of(&without, "step"), 1);
    }

    #[test]
    fn nothing_escapes_nothing_is_reached() {
        // The closure comes from outside the module: invisible.
        let src = "mod m {
            use prescient::join;
            pub fn walk(n: u64, f: &(dyn Fn(u64) -> u64 + Sync)) -> u64 {
                join(|| f(n), || walk(n / 2, f)).0
            }
        }";
        assert_eq!(rho_of(src, "walk"), 1, "only the direct recursion");
        // A closure kept aside and called again reaches its own callees only.
        let src = "mod m {
            use prescient::join;
            pub fn walk(n: u64) -> u64 {
                if n == 0 { return 0; }
                let rec = |m: u64| walk(m);
                let (a, b) = join(|| rec(n - 1), || rec(n - 2));
                a + b
            }
            pub fn other(n: u64) -> u64 { join(|| n, || n).0 }
        }";
        assert_eq!(rho_of(src, "walk"), 2);
        assert_eq!(rho_of(src, "other"), 0);
    }

    #[test]
    fn functions_given_to_iterator_loops_run_in_the_loop() {
        let src = "mod m {
            use prescient::spawn;
            fn go(i: u64) { spawn(move || i); }
            pub fn run(v: Vec<u64>) { v.into_iter().for_each(go); }
            pub fn indirect(f: fn(u64)) { spawn(move || f(1)); }
        }";
        let (p, g, run) = analysed(src, "run");
        // `run` reaches `go`'s spawn through a call in a loop.
        assert_eq!(crate::structure::lambda(&p, &g, run), 1);
        // `go` was not made a value of the module: nothing for `f(1)`.
        let indirect = crate::structure::tests::function_named(&p, "indirect");
        assert!(g.edges[indirect].is_empty());
    }

    #[test]
    fn tasks_passed_as_values() {
        let src = "mod m {
            use prescient::{scope, spawn};
            pub fn walk(n: u64) { if n > 0 { let t = move || walk(n - 1); go(&t); } }
            fn go(t: &(dyn Fn() + Sync)) { scope(|s| s.spawn(|_| t())); }
        }";
        assert_eq!(rho_of(src, "walk"), 1);
        let src = "mod m {
            use prescient::spawn;
            pub fn walk(n: u64) { if n > 0 { run(Box::new(move || walk(n - 1))); } }
            fn run(task: Box<dyn FnOnce() + Send>) { spawn(task); }
        }";
        assert_eq!(rho_of(src, "walk"), 1);
    }
}
