//! Spawn constructs: `join`, `spawn` and the range loops called by a
//! `prescient` path or imported name (any other `prescient` function gives
//! the closures it receives scope values), `spawn`/`task` called on a scope
//! value (a binding whose scope kind is known), and the tasks they take: a
//! closure written there or kept aside by a `let`, a module function, or a
//! value. Each construct is a site; which ones the emitted code rewrites is
//! decided here.

use super::builder::{Binding, FnBuilder, ScopeKind};
use super::calls::noted_call;
use super::syntax::{compact, strip};
use crate::effort::trip_count;
use crate::library_loops::{library_loop, LibraryLoop, LoopTrip};
use crate::model::{
    seq, CallKey, Callee, LoopKind, Node, Site, SiteId, SiteKind, Trip, UnseenKind,
    SPLIT_LEVELS_CHARGED,
};
use crate::module_scope::Resolved;
use crate::sym::{self, Sym};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// Methods on a scope value that spawn a task.
pub(super) const SPAWN_METHODS: &[&str] = &["spawn", "task"];

impl FnBuilder<'_> {
    /// A call of a `prescient` function by `path` (the segments after the
    /// crate's): `join` and `spawn` are spawn constructs, `for_range` and
    /// `for_range_chunked` range loops; any other function is invisible, and
    /// closures it receives get scope values as parameters.
    pub(super) fn prescient_call(&mut self, call: &syn::ExprCall, path: &[String]) -> Node {
        let span = call.span();
        let last = path.last().map(String::as_str).unwrap_or("");
        let module_path = path[..path.len().saturating_sub(1)]
            .iter()
            .all(|s| s.chars().next().is_some_and(|c| c.is_lowercase()));
        let construct = match last {
            "join" if module_path => Some((SiteKind::Join, "join_at")),
            "spawn" if module_path => Some((SiteKind::Spawn, "spawn_at")),
            _ => match library_loop(last, call.args.len()) {
                Some(lib) if module_path => return self.range_loop(call, lib),
                _ => None,
            },
        };
        if let Some((kind, at)) = construct {
            let site = self.new_site(kind, span, Some((CallKey::of(call), at)));
            self.sites[site].crate_segment = self.names_the_crate(call);
            let tasks = call
                .args
                .iter()
                .map(|a| self.task(a, Binding::Local))
                .collect();
            return Node::Spawn {
                site,
                args: Box::new(Node::Ops(0)),
                tasks,
            };
        }
        // Any other `prescient` function: closures it receives get
        // scope values as parameters.
        let kind = if last.contains("dataflow") {
            ScopeKind::Dataflow
        } else {
            ScopeKind::Scope
        };
        let args: Vec<Node> = call
            .args
            .iter()
            .map(|a| match strip(a) {
                syn::Expr::Closure(c) => self.closure(c, Binding::Scope(kind)),
                other => self.expr(other),
            })
            .collect();
        external_call(seq(args), span)
    }

    /// A spawn method ([`SPAWN_METHODS`]) called on a scope value, directly
    /// or at the end of a builder chain (`df.task().input(&x).spawn(…)`): the
    /// site, with the receiver chain and the tasks. `None` for any other
    /// method call.
    pub(super) fn scope_spawn(&mut self, m: &syn::ExprMethodCall) -> Option<Node> {
        let name = m.method.to_string();
        if !SPAWN_METHODS.contains(&name.as_str()) {
            return None;
        }
        let kind = self.chain_root_scope(&m.receiver)?;
        let span = m.span();
        let site_kind = if name == "task" {
            SiteKind::DataflowTask
        } else {
            kind.site_kind()
        };
        // Scope and group spawns pass their site to the runtime's
        // inliner (`__spawn_at`); dataflow tasks do not inline.
        let rewrite = (name == "spawn" && kind != ScopeKind::Dataflow)
            .then(|| (CallKey::of_method(m), "__spawn_at"));
        let site = self.new_site(site_kind, span, rewrite);
        let receiver = self.receiver_chain(&m.receiver);
        // A scope's tasks receive the scope; group and dataflow tasks
        // receive nothing or their data.
        let params = match kind {
            ScopeKind::Scope => Binding::Scope(kind),
            ScopeKind::Group | ScopeKind::Dataflow => Binding::Local,
        };
        let mut args = vec![receiver];
        let mut tasks = Vec::new();
        for a in &m.args {
            if let Some(body) = self.take_closure(a) {
                tasks.push(body);
                continue;
            }
            match strip(a) {
                syn::Expr::Closure(c) => tasks.push(self.closure(c, params)),
                syn::Expr::Path(p)
                    if matches!(
                        self.resolve_path(&p.path, p.qself.is_some()),
                        Resolved::Module(_)
                    ) =>
                {
                    tasks.push(self.task(a, Binding::Local))
                }
                // A dataflow task's other arguments are its data;
                // a scope or group spawn's argument is its task.
                other if kind == ScopeKind::Dataflow => args.push(self.expr(other)),
                _ => tasks.push(self.task(a, Binding::Local)),
            }
        }
        Some(Node::Spawn {
            site,
            args: Box::new(seq(args)),
            tasks,
        })
    }

    /// The closure bound to a local the expression names (`l`, `&l`), if
    /// its body has not been taken yet: takes it.
    pub(super) fn take_closure(&mut self, e: &syn::Expr) -> Option<Node> {
        let k = self.closure_binding(e)?;
        self.closures.get_mut(k)?.take()
    }

    /// The body of a task passed to a spawn construct: a closure (written
    /// there, or bound by a `let` before), a module function, or something
    /// invisible.
    pub(super) fn task(&mut self, arg: &syn::Expr, params: Binding) -> Node {
        if let Some(body) = self.take_closure(arg) {
            return body;
        }
        // A closure kept aside whose body an earlier construct took: it runs
        // its callees again.
        if let Some(k) = self.closure_binding(arg) {
            return self.indirect_call(compact(arg), Node::Ops(0), arg.span(), Some(k));
        }
        match strip(arg) {
            syn::Expr::Closure(c) => self.closure(c, params),
            syn::Expr::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Module(id) => Node::Call {
                    callee: Callee::Module(id),
                    args: Box::new(Node::Ops(0)),
                    span: arg.span(),
                    halves: None,
                },
                // A task held in a variable or parameter.
                Resolved::Local => self.indirect_call(compact(arg), Node::Ops(0), arg.span(), None),
                Resolved::ByName(id) => noted_call(
                    UnseenKind::CratePath,
                    compact(arg),
                    Callee::Maybe(vec![id]),
                    Node::Ops(0),
                    arg.span(),
                ),
                Resolved::Prescient(_) | Resolved::Unknown => {
                    self.invisible(UnseenKind::Call, compact(arg), Node::Ops(0), arg.span())
                }
            },
            // A task made by an expression (`self.task`, `make()`).
            other => {
                let value = self.expr(other);
                self.indirect_call(compact(other), value, arg.span(), None)
            }
        }
    }

    /// Records a spawn site of this function (`rewrite`: the call and what
    /// the emitted code calls instead, dropped inside a macro's arguments).
    pub(super) fn new_site(
        &mut self,
        kind: SiteKind,
        span: Span,
        rewrite: Option<(CallKey, &'static str)>,
    ) -> SiteId {
        self.sites.push(Site {
            kind,
            function: self.fn_id,
            span,
            // Calls parsed out of a macro's tokens are not in the module.
            rewrite: if self.in_macro { None } else { rewrite },
            crate_segment: false,
            split_levels: None,
        });
        self.sites.len() - 1
    }

    /// Whether a call's path is a name of the `prescient` crate and the
    /// function (`prescient::join`, `p::join` after `use prescient as p`,
    /// `::rt::join`), rather than an imported name or a path through other
    /// modules (`join`, `super::join`, `odd::join`).
    fn names_the_crate(&self, call: &syn::ExprCall) -> bool {
        let syn::Expr::Path(p) = strip(&call.func) else {
            return false;
        };
        let segs = &p.path.segments;
        segs.len() == 2
            && p.qself.is_none()
            && (p.path.leading_colon.is_some()
                || self.module.is_crate_alias(&segs[0].ident.to_string()))
    }

    /// A library loop ([`LIBRARY_LOOPS`](crate::library_loops::LIBRARY_LOOPS):
    /// `for_range(range, grain, body)`, its chunked, slice and reduction
    /// forms, the parallel sorts): the arguments that are not closures run
    /// by the loop are evaluated in the calling task, then the closures are
    /// the site's tasks, once per iteration (index, chunk or comparison)
    /// inside a [`LoopKind::RangeLoop`]. So the site counts as in a loop
    /// (λ), its effort is one run of its closures, and a call back into the
    /// module from them is made inside a task (ρ) and inside a loop. The call
    /// becomes `lib.at`.
    pub(super) fn range_loop(&mut self, call: &syn::ExprCall, lib: &'static LibraryLoop) -> Node {
        let span = call.span();
        let site = self.new_site(SiteKind::RangeLoop, span, Some((CallKey::of(call), lib.at)));
        self.sites[site].crate_segment = self.names_the_crate(call);
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        let inputs = (0..args.len())
            .filter(|i| !lib.tasks.contains(i))
            .map(|i| args[i]);
        let inputs = self.exprs(inputs);
        let trip = match lib.trip {
            LoopTrip::Indices => self.range_loop_trip(args[0], args[1], false),
            LoopTrip::Chunks => self.range_loop_trip(args[0], args[1], true),
            LoopTrip::Unknown => crate::model::Trip::Unknown,
        };
        self.sites[site].split_levels = Some(self.split_levels(lib, &args));
        let tasks = lib
            .tasks
            .iter()
            .map(|&i| self.task(args[i], Binding::Local))
            .collect();
        seq([
            inputs,
            Node::Loop {
                kind: LoopKind::RangeLoop,
                trip,
                body: Box::new(Node::Spawn {
                    site,
                    args: Box::new(Node::Ops(0)),
                    tasks,
                }),
                span,
            },
        ])
    }

    /// The levels of splitting joins a library loop's body runs below on one
    /// stack: those that halve its pieces (⌈trips / grain⌉ for a range
    /// loop whose length and grain are visible), at most
    /// [`SPLIT_LEVELS_CHARGED`].
    fn split_levels(&self, lib: &LibraryLoop, args: &[&syn::Expr]) -> Sym {
        let charged = Sym::Lit(u64::from(SPLIT_LEVELS_CHARGED));
        if !matches!(lib.trip, LoopTrip::Indices | LoopTrip::Chunks) {
            return charged;
        }
        let (Some(range), Some(grain)) = (args.first(), args.get(1)) else {
            return charged;
        };
        match (self.iter_trip(range), self.bound(grain)) {
            (Trip::Unknown, _) | (_, None) => charged,
            (trip, Some(grain)) => {
                sym::split_levels(trip_count(&trip), grain, SPLIT_LEVELS_CHARGED)
            }
        }
    }

    /// The receiver chain of a spawn method: its method calls are part of the
    /// construct (a builder), not sites of their own.
    pub(super) fn receiver_chain(&mut self, e: &syn::Expr) -> Node {
        match e {
            syn::Expr::MethodCall(m) => self.method_call(m, true),
            syn::Expr::Paren(p) => self.receiver_chain(&p.expr),
            other => self.expr(other),
        }
    }

    /// The scope kind of the value at the root of a receiver chain.
    pub(super) fn chain_root_scope(&self, mut e: &syn::Expr) -> Option<ScopeKind> {
        loop {
            e = match e {
                syn::Expr::MethodCall(m) => &m.receiver,
                syn::Expr::Paren(p) => &p.expr,
                syn::Expr::Group(g) => &g.expr,
                syn::Expr::Reference(r) => &r.expr,
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
                syn::Expr::Path(p) if p.qself.is_none() => {
                    let ident = p.path.get_ident()?;
                    return match self.lookup(&ident.to_string())? {
                        Binding::Scope(k) => Some(k),
                        _ => None,
                    };
                }
                _ => return None,
            };
        }
    }

    /// The scope kind of a written type (`&Scope<'_>`, `prescient::TaskGroup`).
    pub(super) fn scope_kind_of_type(&self, ty: &syn::Type) -> Option<ScopeKind> {
        match ty {
            syn::Type::Reference(r) => self.scope_kind_of_type(&r.elem),
            syn::Type::Paren(p) => self.scope_kind_of_type(&p.elem),
            syn::Type::Group(g) => self.scope_kind_of_type(&g.elem),
            syn::Type::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Prescient(path) => ScopeKind::of_type(path.last()?),
                _ => None,
            },
            _ => None,
        }
    }

    /// The scope kind of a value built by a `prescient` scope type's associated
    /// function (`TaskGroup::new()`), or of another name of a scope value
    /// (`let s2 = s;`, `let s2 = &s;`).
    pub(super) fn scope_kind_of_init(&self, e: &syn::Expr) -> Option<ScopeKind> {
        let mut e = strip(e);
        loop {
            e = match e {
                syn::Expr::Reference(r) => strip(&r.expr),
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
                _ => break,
            };
        }
        if let syn::Expr::Path(p) = e {
            if p.qself.is_some() {
                return None;
            }
            return match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Scope(k) => Some(k),
                _ => None,
            };
        }
        let syn::Expr::Call(c) = e else {
            return None;
        };
        let syn::Expr::Path(p) = strip(&c.func) else {
            return None;
        };
        match self.resolve_path(&p.path, p.qself.is_some()) {
            Resolved::Prescient(path) if path.len() >= 2 => {
                ScopeKind::of_type(&path[path.len() - 2])
            }
            _ => None,
        }
    }
}

/// A call of a `prescient` function that is no spawn construct: outside
/// the module, and not noted for the report.
fn external_call(args: Node, span: Span) -> Node {
    Node::Call {
        callee: Callee::External,
        args: Box::new(args),
        span,
        halves: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::build_with;
    use crate::model::{Callee, Node, SiteKind, WalkCtx};
    use crate::test_support::{program, sites};

    #[test]
    fn recognises_prescient_paths_and_imports() {
        let p = program(
            "mod m {
                use prescient::{join as j, spawn};
                fn a() { prescient::join(|| 1, || 2); ::prescient::spawn(|| 3); }
                fn b() { j(|| 1, || 2); spawn(|| 3); }
                fn c() { let spawn = |f: fn()| f(); spawn(x); }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("a".into(), SiteKind::Join),
                ("a".into(), SiteKind::Spawn),
                ("b".into(), SiteKind::Join),
                ("b".into(), SiteKind::Spawn),
            ]
        );
        assert!(p.sites.iter().all(|s| s.rewrite.is_some()));
    }

    #[test]
    fn never_takes_rayon_path_or_thread_spawns() {
        let p = program(
            "mod m {
                use std::path::Path;
                use std::thread;
                fn f(p: &Path) {
                    rayon::join(|| 1, || 2);
                    let _ = p.join(\"x\");
                    let _ = Path::new(\"a\").join(\"b\");
                    thread::spawn(|| 1).join();
                    std::thread::spawn(|| 1);
                    std::thread::scope(|s| { s.spawn(|| 1); });
                    join(|| 1, || 2);
                    spawn(|| 1);
                }
            }",
        );
        assert!(p.sites.is_empty(), "{:?}", sites(&p));
    }

    #[test]
    fn glob_import_respects_shadowing() {
        let p = program(
            "mod m {
                use prescient::*;
                use rayon::join;
                fn spawn(x: u32) {}
                fn f() { join(|| 1, || 2); spawn(3); scope(|s| s.spawn(|| 1)); }
            }",
        );
        assert_eq!(sites(&p), vec![("f".into(), SiteKind::ScopeSpawn)]);
    }

    #[test]
    fn crate_alias_and_scope_values() {
        let p = program(
            "mod m {
                use prescient as p;
                use prescient::TaskGroup;
                fn f(g: &TaskGroup, s: &p::Scope<'_>) {
                    g.spawn(|| 1);
                    s.spawn(|| 2);
                    let h = TaskGroup::new();
                    h.spawn(|| 3);
                    p::scope(|t| { t.spawn(|u| u.spawn(|| 4)); });
                    p::dataflow(|df| { df.task().input(&x).spawn(|| 5); });
                    let s = 7;
                    s.spawn(|| 6);
                }
            }",
        );
        assert_eq!(
            sites(&p).into_iter().map(|(_, k)| k).collect::<Vec<_>>(),
            vec![
                SiteKind::GroupSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::GroupSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::DataflowTask,
            ]
        );
        // Scope and group spawns pass their site to the inliner; dataflow
        // tasks do not.
        let rewrites: Vec<_> = p
            .sites
            .iter()
            .map(|s| s.rewrite.map(|(_, name)| name))
            .collect();
        assert_eq!(rewrites[..5], [Some("__spawn_at"); 5]);
        assert_eq!(rewrites[5], None);
    }

    #[test]
    fn dataflow_tasks_are_sites() {
        let p = program(
            "mod m {
                use prescient::dataflow;
                use prescient::dataflow::Dataflow;
                fn submit(df: &Dataflow<'_, '_>, x: &u64) { df.task((), |()| {}); }
                fn f() -> u64 {
                    dataflow(|df| {
                        let x = df.data(1u64);
                        let y = df.data(0u64);
                        df.task((x.read(), y.inout()), |(x, y): (&u64, &mut u64)| *y += *x);
                        df.task(y.inout(), |y: &mut u64| { y.spawn(|| 1); });
                        y.into_inner()
                    })
                }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("submit".into(), SiteKind::DataflowTask),
                ("f".into(), SiteKind::DataflowTask),
                ("f".into(), SiteKind::DataflowTask),
            ]
        );
    }

    #[test]
    fn stored_task_closures_and_aliased_scopes() {
        let p = program(
            "mod m {
                use prescient::{join, scope};
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let l = move || fib(n - 1);
                    let r = move || fib(n - 2);
                    let (a, b) = join(l, r);
                    a + b
                }
                fn s() {
                    scope(|s| {
                        let s2 = s;
                        let s3 = &s2;
                        s2.spawn(|_| 1);
                        s3.spawn(|_| 2);
                    });
                }
                fn unused() { let l = || s(); }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("fib".into(), SiteKind::Join),
                ("s".into(), SiteKind::ScopeSpawn),
                ("s".into(), SiteKind::ScopeSpawn),
            ]
        );
        // The stored closures are the join's tasks: their calls are in a task.
        let mut in_spawn = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, ctx| {
            if let Node::Call {
                callee: Callee::Module(0),
                ..
            } = n
            {
                in_spawn.push(ctx.in_spawn);
            }
        });
        assert_eq!(in_spawn, [true, true]);
        // A stored closure no spawn takes is still counted where written.
        let mut calls = 0;
        p.functions[2].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call {
                callee: Callee::Module(1),
                ..
            } = n
            {
                calls += 1;
            }
        });
        assert_eq!(calls, 1);
    }

    #[test]
    fn renamed_crate_is_a_prescient_path() {
        let module: syn::ItemMod = syn::parse_str(
            "mod m {
                use rt::join;
                fn f() { join(|| 1, || 2); ::rt::spawn(|| 3); rt::spawn(|| 4); }
            }",
        )
        .unwrap();
        let krate: syn::Path = syn::parse_str("rt").unwrap();
        let p = build_with(&module, Some(&krate)).unwrap();
        assert_eq!(p.sites.len(), 3);
        assert_eq!(
            program("mod m { use rt::join; fn f() { join(|| 1, || 2); } }")
                .sites
                .len(),
            0
        );
    }

    #[test]
    fn recognises_range_loops_like_join() {
        let p = program(
            "mod m {
                use prescient::{for_range, for_range_chunked as chunked};
                use prescient as p;
                fn a() { for_range(0..10, 1, |i| ()); chunked(0..10, 4, |r| ()); }
                fn b() { prescient::for_range(0..10, 1, |i| ()); ::prescient::for_range_chunked(0..4, 1, |r| ()); }
                fn c() { p::for_range(0..10, 1, |i| ()); }
                fn d(for_range: fn(u8)) {
                    for_range(1);
                    rayon::for_range(0..10, 1, |i| ());
                    Pool::for_range(0..10, 1, |i| ());
                    prescient::for_range(0..10, |i| ());
                }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("a".into(), SiteKind::RangeLoop),
                ("a".into(), SiteKind::RangeLoop),
                ("b".into(), SiteKind::RangeLoop),
                ("b".into(), SiteKind::RangeLoop),
                ("c".into(), SiteKind::RangeLoop),
            ]
        );
        let targets: Vec<&str> = p
            .sites
            .iter()
            .filter_map(|s| s.rewrite)
            .map(|r| r.1)
            .collect();
        assert_eq!(
            targets,
            [
                "for_range_at",
                "for_range_chunked_at",
                "for_range_at",
                "for_range_chunked_at",
                "for_range_at"
            ]
        );
        // A glob import brings both in; a local or another import shadows.
        let p = program(
            "mod m {
                use prescient::*;
                use other::for_range_chunked;
                fn f() { for_range(0..4, 1, |i| ()); for_range_chunked(0..4, 1, |r| ()); }
                fn g() { let for_range = |a: u8, b: u8, c: u8| (); for_range(1, 2, 3); }
            }",
        );
        assert_eq!(sites(&p), vec![("f".into(), SiteKind::RangeLoop)]);
    }
}
