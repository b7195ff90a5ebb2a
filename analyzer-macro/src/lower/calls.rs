//! Calls: of module functions (by name or path, `self.method()` in an
//! `impl`, a module function handed to an iterator loop method), with
//! whether a call of the function itself halves an integer parameter (for
//! the stack analysis); calls the model sees only in part (a method that
//! may be any module method of its name); and calls of what it cannot see,
//! each noted for the report.

use super::builder::{Binding, FnBuilder};
use super::syntax::{compact, is_constructor, literal_int, strip};
use super::trip_counts::runs_per_element;
use crate::model::{seq, Callee, FnId, LoopKind, Node, Size, UnseenKind};
use crate::module_scope::Resolved;
use proc_macro2::Span;
use syn::spanned::Spanned;

impl FnBuilder<'_> {
    /// A call of something invisible (`what`, as written), after `args`,
    /// with its note for the report.
    pub(super) fn invisible(&self, kind: UnseenKind, what: String, args: Node, span: Span) -> Node {
        noted_call(kind, what, Callee::External, args, span)
    }

    /// A call expression: of a closure, a module function, a `prescient`
    /// function (`spawns`), a local value, a constructor or something
    /// invisible.
    pub(super) fn call(&mut self, call: &syn::ExprCall) -> Node {
        let span = call.span();
        // `l()` of a closure bound by `let`: its body runs here.
        if let Some(body) = self.take_closure(&call.func) {
            return seq([self.exprs(&call.args), body]);
        }
        let syn::Expr::Path(p) = strip(&call.func) else {
            // A closure called where it is written: its body runs here.
            if let syn::Expr::Closure(c) = strip(&call.func) {
                let args = self.exprs(&call.args);
                let body = self.closure(c, Binding::Local);
                return seq([args, body]);
            }
            // A call through a value: `(v.visit)(x)`, `callbacks[i](x)`.
            let func = self.expr(&call.func);
            let args = self.exprs(&call.args);
            return self.indirect_call(compact(&call.func), seq([func, args]), span, None);
        };
        match self.resolve_path(&p.path, p.qself.is_some()) {
            Resolved::Module(id) => {
                let halves = self.halving(id, call.args.iter(), 0);
                let args = self.exprs(&call.args);
                let temp = self.call_temporary(id, call);
                seq([
                    Node::Call {
                        callee: Callee::Module(id),
                        args: Box::new(args),
                        span,
                        halves,
                    },
                    temp,
                ])
            }
            // `crate::…::prog::f(x)`: possibly the module function `f`.
            Resolved::ByName(id) => {
                let args = self.exprs(&call.args);
                seq([
                    noted_call(
                        UnseenKind::CratePath,
                        compact(&p.path),
                        Callee::Maybe(vec![id]),
                        args,
                        span,
                    ),
                    // Sized as the module function's result, which it is
                    // if the path leads to it.
                    self.call_temporary(id, call),
                ])
            }
            Resolved::Prescient(path) => self.prescient_call(call, &path),
            resolved @ (Resolved::Local | Resolved::Unknown) => {
                let args = self.exprs(&call.args);
                // A tuple struct or enum variant (`Some(x)`, `Big(buf)`) by
                // naming convention: a value, not a call.
                if is_constructor(&p.path) {
                    // Its size is not known: a variant's enum may be larger.
                    return seq([args, self.temporary_of(call, Size::unknown())]);
                }
                // A local (a parameter `f: fn(u64)`, a closure kept aside
                // whose body was taken): a call through a value.
                if resolved == Resolved::Local && self.lookup_first(&p.path) != Some(Binding::Item)
                {
                    let k = self.closure_binding(&call.func);
                    return self.indirect_call(compact(&p.path), args, span, k);
                }
                // `Type::method(..)` not found on that type: possibly any
                // module method of that name (a trait's default method) that
                // can take the type.
                if p.path.segments.len() >= 2 && self.lookup_first(&p.path).is_none() {
                    if let Some(last) = p.path.segments.last() {
                        let foreign = self.foreign_type_path(&p.path);
                        if let callee @ Callee::Maybe(_) =
                            self.possible_method(&last.ident.to_string(), foreign)
                        {
                            return noted_call(
                                UnseenKind::MethodByName,
                                compact(&p.path),
                                callee,
                                args,
                                span,
                            );
                        }
                    }
                }
                self.invisible(UnseenKind::Call, compact(&p.path), args, span)
            }
        }
    }

    /// For a call of this very function: the bit width of an integer
    /// parameter passed halved in its own position (`n / 2`, `n >> 1`).
    /// `offset`: the position of the first argument (1 for a method call,
    /// whose receiver is parameter 0).
    pub(super) fn halving<'e>(
        &self,
        callee: FnId,
        args: impl Iterator<Item = &'e syn::Expr>,
        offset: usize,
    ) -> Option<(usize, u32)> {
        if callee != self.fn_id {
            return None;
        }
        let mut best: Option<(usize, u32)> = None;
        for (i, arg) in args.enumerate() {
            let Some(Some((name, bits))) = self.params.get(i + offset) else {
                continue;
            };
            let syn::Expr::Binary(b) = strip(arg) else {
                continue;
            };
            let shrinks = match (&b.op, literal_int(&b.right)) {
                (syn::BinOp::Div(_), Some(k)) => k >= 2,
                (syn::BinOp::Shr(_), Some(k)) => k >= 1,
                _ => false,
            };
            let same = match strip(&b.left) {
                syn::Expr::Path(p) => {
                    p.qself.is_none() && p.path.is_ident(name.as_str()) && self.is_parameter(name)
                }
                _ => false,
            };
            if shrinks && same && best.is_none_or(|(_, b)| *bits < b) {
                best = Some((i + offset, *bits));
            }
        }
        best
    }

    /// A method call; `in_chain`: it is part of a spawn method's receiver
    /// chain, so not a spawn site of its own.
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall, in_chain: bool) -> Node {
        let name = m.method.to_string();
        let span = m.span();
        if !in_chain {
            if let Some(spawn) = self.scope_spawn(m) {
                return spawn;
            }
        }
        let receiver = if in_chain {
            self.receiver_chain(&m.receiver)
        } else {
            self.expr(&m.receiver)
        };
        let is_loop = runs_per_element(&name, &m.receiver);
        if is_loop {
            let trip = self.iter_trip(&m.receiver);
            let mut parts = vec![receiver];
            for a in &m.args {
                match strip(a) {
                    syn::Expr::Closure(c) => {
                        let body = self.closure(c, Binding::Local);
                        parts.push(Node::Loop {
                            kind: LoopKind::IterClosure,
                            trip: trip.clone(),
                            body: Box::new(body),
                            span: a.span(),
                        });
                    }
                    // A module function passed to the loop (`.map(walk)`):
                    // called once per element, by the iterator, not through
                    // a value of the module.
                    other => {
                        let function = match other {
                            syn::Expr::Path(p) => self.resolve_path(&p.path, p.qself.is_some()),
                            _ => Resolved::Unknown,
                        };
                        let Resolved::Module(id) = function else {
                            parts.push(self.expr(other));
                            continue;
                        };
                        parts.push(Node::Loop {
                            kind: LoopKind::IterClosure,
                            trip: trip.clone(),
                            body: Box::new(Node::Call {
                                callee: Callee::Module(id),
                                args: Box::new(Node::Ops(0)),
                                span: a.span(),
                                halves: None,
                            }),
                            span: a.span(),
                        });
                    }
                }
            }
            return seq(parts);
        }
        if let (syn::Expr::Path(p), Some(ty)) = (strip(&m.receiver), &self.impl_type) {
            if p.path.is_ident("self") {
                if let Some(&id) = self.module.methods.get(&(ty.clone(), name.clone())) {
                    let halves = self.halving(id, m.args.iter(), 1);
                    let args = self.exprs(&m.args);
                    let size = match self.modules.returns.get(id).cloned().flatten() {
                        Some(ty) => Size::of_type(ty),
                        None => Size::unknown(),
                    };
                    return seq([
                        Node::Call {
                            callee: Callee::Module(id),
                            args: Box::new(seq([receiver, args])),
                            span,
                            halves,
                        },
                        Node::Decl { size, span },
                    ]);
                }
            }
        }
        let args: Vec<Node> = m.args.iter().map(|a| self.expr(a)).collect();
        // A method call on a value (`l.sum()`): the model has no types, so it
        // may be any module method of that name that can take the receiver
        // (see `receivers`), or something invisible.
        let foreign = self.foreign_value(&m.receiver);
        let what = format!(".{name}()");
        match self.possible_method(&name, foreign) {
            callee @ Callee::Maybe(_) => noted_call(
                UnseenKind::MethodByName,
                what,
                callee,
                seq([receiver, seq(args)]),
                span,
            ),
            _ => self.invisible(
                UnseenKind::MethodCall,
                what,
                seq([receiver, seq(args)]),
                span,
            ),
        }
    }
}

/// A call to `callee` after `args` that the analysis sees only in part:
/// the call, preceded by its note for the report (`kind`, `what` as
/// written).
pub(super) fn noted_call(
    kind: UnseenKind,
    what: String,
    callee: Callee,
    args: Node,
    span: Span,
) -> Node {
    seq([
        Node::Unseen { kind, what, span },
        Node::Call {
            callee,
            args: Box::new(args),
            span,
            halves: None,
        },
    ])
}

#[cfg(test)]
mod tests {
    use crate::model::{Callee, Node, WalkCtx};
    use crate::test_support::program;

    #[test]
    fn calls_into_the_module() {
        let p = program(
            "mod m {
                struct T;
                impl T { fn a(&self) { self.b(); Self::b(self); T::b(self); } fn b(&self) {} }
                fn c() { d(); self::d(); let d = 1; d(); }
                fn d() {}
            }",
        );
        let mut callees = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call { callee, .. } = n {
                callees.push(callee.clone());
            }
        });
        assert_eq!(callees, vec![Callee::Module(1); 3]);
        let mut callees = Vec::new();
        p.functions[2].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call { callee, .. } = n {
                callees.push(callee.clone());
            }
        });
        // `d()` of the local `d`: a call through a value, and no module
        // function escapes into one here.
        assert_eq!(
            callees,
            vec![
                Callee::Module(3),
                Callee::Module(3),
                Callee::Indirect {
                    targets: vec![],
                    values: true
                }
            ]
        );
    }
}
