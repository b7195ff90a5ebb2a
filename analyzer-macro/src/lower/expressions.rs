//! Expressions: each kind of expression lowered to its operations, blocks,
//! branches and loops, and closures (counted once where written; a closure
//! value may also run through a call through a value). Calls, spawn
//! constructs, macros, trip counts and sizes have files of their own.

use super::builder::{Binding, FnBuilder};
use super::calls::noted_call;
use super::syntax::compact;
use crate::model::{seq, Callee, LoopKind, Node, Target, Trip, UnseenKind};
use crate::module_scope::{cfg_gated, Resolved};
use std::collections::HashMap;
use syn::spanned::Spanned;

impl FnBuilder<'_> {
    /// Several expressions in order.
    pub(super) fn exprs<'e>(&mut self, exprs: impl IntoIterator<Item = &'e syn::Expr>) -> Node {
        let parts: Vec<Node> = exprs.into_iter().map(|e| self.expr(e)).collect();
        seq(parts)
    }

    /// An expression.
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Node {
        use syn::Expr as E;
        match e {
            E::Array(a) => seq([self.exprs(&a.elems), self.temporary(e)]),
            E::Assign(a) => {
                let parts = [self.expr(&a.left), self.expr(&a.right), Node::Ops(1)];
                seq(parts)
            }
            E::Async(a) => self.block(&a.block),
            E::Await(a) => {
                let base = self.expr(&a.base);
                self.invisible(UnseenKind::Call, ".await".to_string(), base, e.span())
            }
            E::Binary(b) => {
                let parts = [self.expr(&b.left), self.expr(&b.right), Node::Ops(1)];
                seq(parts)
            }
            E::Block(b) => self.block(&b.block),
            E::Break(b) => self.exprs(b.expr.as_deref()),
            E::Call(call) => self.call(call),
            E::Cast(c) => seq([self.expr(&c.expr), Node::Ops(1)]),
            E::Closure(c) => {
                // A closure value: a call through a value may run it.
                let body = self.closure(c, Binding::Local);
                self.escape_closure(&body);
                body
            }
            E::Const(_) | E::Continue(_) | E::Infer(_) | E::Lit(_) => Node::Ops(0),
            E::Field(f) => self.expr(&f.base),
            E::ForLoop(f) => {
                let iter = self.expr(&f.expr);
                let trip = self.iter_trip(&f.expr);
                let element = self.element_size(&f.expr);
                self.env.push(HashMap::new());
                let decls = self.pattern_bindings(&f.pat, element);
                let body = self.block(&f.body);
                self.env.pop();
                seq([
                    iter,
                    Node::Loop {
                        kind: LoopKind::For,
                        trip,
                        body: Box::new(seq([decls, body])),
                        span: e.span(),
                    },
                ])
            }
            E::Group(g) => self.expr(&g.expr),
            E::If(i) => {
                self.env.push(HashMap::new());
                let cond = self.expr(&i.cond);
                let then = self.block(&i.then_branch);
                self.env.pop();
                let els = match &i.else_branch {
                    Some((_, e)) => self.expr(e),
                    None => Node::Ops(0),
                };
                seq([cond, Node::Choice(vec![then, els])])
            }
            E::Index(i) => {
                let parts = [self.expr(&i.expr), self.expr(&i.index), Node::Ops(1)];
                seq(parts)
            }
            E::Let(l) => {
                let init = self.expr(&l.expr);
                let matched = self.expr_size(&l.expr);
                let decls = self.pattern_bindings(&l.pat, matched);
                seq([init, decls])
            }
            E::Loop(l) => {
                let body = self.block(&l.body);
                Node::Loop {
                    kind: LoopKind::Loop,
                    trip: Trip::Unknown,
                    body: Box::new(body),
                    span: e.span(),
                }
            }
            E::Macro(m) => self.macro_node(&m.mac, false),
            E::Match(m) => {
                let scrutinee = self.expr(&m.expr);
                let matched = self.expr_size(&m.expr);
                let mut arms = Vec::new();
                for arm in &m.arms {
                    if cfg_gated(&arm.attrs) {
                        continue;
                    }
                    self.env.push(HashMap::new());
                    let mut parts = Vec::new();
                    match &arm.pat {
                        syn::Pat::Guard(g) => {
                            parts.push(self.pattern_bindings(&g.pat, matched.clone()));
                            parts.push(self.expr(&g.guard));
                        }
                        p => parts.push(self.pattern_bindings(p, matched.clone())),
                    }
                    parts.push(self.expr(&arm.body));
                    self.env.pop();
                    arms.push(seq(parts));
                }
                seq([scrutinee, Node::Choice(arms)])
            }
            E::MethodCall(m) => self.method_call(m, false),
            E::Paren(p) => self.expr(&p.expr),
            E::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Module(id) => {
                    // A module function as a value: a call through a value
                    // may reach it.
                    self.escape(&[Target {
                        function: id,
                        in_spawn: false,
                        in_loop: false,
                    }]);
                    Node::Call {
                        callee: Callee::Module(id),
                        args: Box::new(Node::Ops(0)),
                        span: e.span(),
                        halves: None,
                    }
                }
                Resolved::ByName(id) => {
                    // Possibly a module function as a value.
                    self.escape(&[Target {
                        function: id,
                        in_spawn: false,
                        in_loop: false,
                    }]);
                    noted_call(
                        UnseenKind::CratePath,
                        compact(&p.path),
                        Callee::Maybe(vec![id]),
                        Node::Ops(0),
                        e.span(),
                    )
                }
                Resolved::Local => {
                    // A closure kept aside, used as a value.
                    if let Some(k) = self.closure_binding(e) {
                        let (targets, _) = self.closure_targets[k].clone();
                        self.escape(&targets);
                    }
                    Node::Ops(0)
                }
                _ => Node::Ops(0),
            },
            E::Range(r) => self.exprs(r.start.as_deref().into_iter().chain(r.end.as_deref())),
            E::RawAddr(r) => self.expr(&r.expr),
            E::Reference(r) => self.expr(&r.expr),
            E::Repeat(r) => {
                let value = self.expr(&r.expr);
                let trip = match self.bound(&r.len).and_then(|b| b.literal()) {
                    Some(n) => Trip::Literal(u64::try_from(n.max(0)).unwrap_or(u64::MAX)),
                    None => Trip::Unknown,
                };
                seq([
                    value,
                    Node::Loop {
                        kind: LoopKind::Repeat,
                        trip,
                        body: Box::new(Node::Ops(1)),
                        span: e.span(),
                    },
                    self.temporary(e),
                ])
            }
            E::Return(r) => self.exprs(r.expr.as_deref()),
            E::Struct(s) => {
                let fields = s
                    .fields
                    .iter()
                    .filter(|f| !cfg_gated(&f.attrs))
                    .map(|f| &f.expr);
                self.exprs(fields.chain(s.rest.as_deref()))
            }
            E::Try(t) => seq([self.expr(&t.expr), Node::Ops(1)]),
            E::TryBlock(t) => self.block(&t.block),
            E::Tuple(t) => self.exprs(&t.elems),
            E::Unary(u) => seq([self.expr(&u.expr), Node::Ops(1)]),
            E::Unsafe(u) => self.block(&u.block),
            E::While(w) => {
                self.env.push(HashMap::new());
                let cond = self.expr(&w.cond);
                let body = self.block(&w.body);
                self.env.pop();
                Node::Loop {
                    kind: LoopKind::While,
                    trip: Trip::Unknown,
                    body: Box::new(seq([cond, body])),
                    span: e.span(),
                }
            }
            E::Yield(y) => self.exprs(y.expr.as_deref()),
            _ => Node::Ops(0),
        }
    }

    /// A closure: its parameters are bound as `params`, its body counted once.
    pub(super) fn closure(&mut self, c: &syn::ExprClosure, params: Binding) -> Node {
        self.env.push(HashMap::new());
        let mut parts = Vec::new();
        for input in &c.inputs {
            match input {
                syn::Pat::Type(pt) => {
                    parts.push(self.typed_binding(&pt.pat, &pt.ty, None));
                    if let (Binding::Scope(k), syn::Pat::Ident(pi)) = (params, &*pt.pat) {
                        self.bind(pi.ident.to_string(), Binding::Scope(k));
                    }
                }
                p => parts.push(self.untyped_binding(p, params, None)),
            }
        }
        parts.push(self.expr(&c.body));
        self.env.pop();
        seq(parts)
    }
}
