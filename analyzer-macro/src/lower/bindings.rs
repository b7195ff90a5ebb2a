//! Declarations: a function's parameters, its blocks (their local items,
//! `macro_rules!` macros, and the closures kept aside that no spawn took)
//! and statements, and the bindings a pattern makes, each declared with an
//! upper bound of its size (see `stack`) and bound in the environment with
//! what is known of its value.

use super::builder::{Binding, Entry, FnBuilder};
use super::syntax::{expr_attrs, pat_idents, strip, strip_pat, strip_type};
use super::values;
use crate::model::{seq, Node, Size};
use crate::module_scope::{cfg_gated, item_names};
use crate::stack;
use crate::sym::Sym;
use std::collections::HashMap;
use syn::spanned::Spanned;

impl FnBuilder<'_> {
    /// A function: its receiver and parameters declared, then its body.
    pub(super) fn function(&mut self, sig: &syn::Signature, block: &syn::Block) -> Node {
        self.env.push(HashMap::new());
        let mut parts = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    let size = match &r.kind {
                        syn::ReceiverKind::Reference(..) => {
                            Size::Known(Sym::Lit(stack::REFERENCE_BYTES))
                        }
                        _ => Size::unknown(),
                    };
                    parts.push(Node::Decl {
                        size: size.clone(),
                        span: r.self_token.span,
                    });
                    // `self` of a trait impl for a foreign type (`impl Ext
                    // for Vec<u64>`) is foreign; in a trait, any type.
                    let foreign = self
                        .self_ty
                        .as_ref()
                        .is_some_and(|t| self.type_is_foreign(t));
                    let owner = self
                        .impl_type
                        .clone()
                        .filter(|t| self.self_ty.is_some() && self.module.types.contains(t));
                    self.bind_entry(
                        "self".to_string(),
                        Entry {
                            foreign,
                            owner,
                            ..Entry::plain(Binding::Local, size)
                        },
                    );
                }
                syn::FnArg::Typed(pt) if cfg_gated(&pt.attrs) => {}
                syn::FnArg::Typed(pt) => {
                    parts.push(self.typed_binding(&pt.pat, &pt.ty, None));
                }
            }
        }
        parts.push(self.block(block));
        self.env.pop();
        seq(parts)
    }

    /// A pattern with a written type: one declaration of the type's size (or,
    /// where the type does not resolve, of the initializer's).
    pub(super) fn typed_binding(
        &mut self,
        pat: &syn::Pat,
        ty: &syn::Type,
        init: Option<&syn::Expr>,
    ) -> Node {
        let kind = self.scope_kind_of_type(ty);
        let mut size = self.size_of_type(ty);
        let mut exact = match &size {
            Size::Known(Sym::SizeOf(t)) => Some((**t).clone()),
            _ => None,
        };
        if let (Size::Unknown(_), Some(init)) = (&size, init) {
            // `let buf: [u8; _] = [7; 100];`: the element type written, the
            // length from the initializer.
            if let Some(t) = self.array_with_inferred_len(ty, init) {
                size = Size::of_type(t.clone());
                exact = Some(t);
            } else if let Some(t) = self.expr_type(init) {
                size = Size::of_type(t.clone());
                exact = Some(t);
            } else if let Size::Known(s) = self.expr_size(init) {
                size = Size::Known(s);
            }
        }
        let names = pat_idents(pat);
        let single = names.len() == 1;
        let foreign = single && self.type_is_foreign(ty);
        let owner = if single { self.module_struct(ty) } else { None };
        for n in names {
            let b = match kind {
                Some(k) if single => Binding::Scope(k),
                _ => Binding::Local,
            };
            let entry = Entry {
                binding: b,
                ty: if single { exact.clone() } else { None },
                size: if single { size.clone() } else { size.part() },
                foreign,
                owner: owner.clone(),
            };
            self.bind_entry(n, entry);
        }
        Node::Decl {
            size,
            span: ty.span(),
        }
    }

    /// `[T; _]` written, an array or repeat initializer of known length.
    pub(super) fn array_with_inferred_len(
        &self,
        ty: &syn::Type,
        init: &syn::Expr,
    ) -> Option<syn::Type> {
        let syn::Type::Array(a) = strip_type(ty) else {
            return None;
        };
        if !matches!(&a.len, syn::Expr::Infer(_)) || !self.type_resolves(&a.elem) {
            return None;
        }
        let elem = &a.elem;
        match strip(init) {
            syn::Expr::Repeat(r) => {
                self.bound(&r.len)?;
                let len = &r.len;
                Some(syn::parse_quote!([#elem; #len]))
            }
            syn::Expr::Array(arr) => {
                let n = arr.elems.len();
                Some(syn::parse_quote!([#elem; #n]))
            }
            _ => None,
        }
    }

    /// A pattern without a written type: its bindings, with the size of the
    /// initializer (or of the matched value, `matched`) where it is known.
    pub(super) fn untyped_binding(
        &mut self,
        pat: &syn::Pat,
        binding: Binding,
        init: Option<&syn::Expr>,
    ) -> Node {
        let names = pat_idents(pat);
        let (ty, size) = match init {
            Some(init) => (self.expr_type(init), self.expr_size(init)),
            None => (None, Size::unknown()),
        };
        let size = match binding {
            Binding::Scope(_) => Size::Known(Sym::Lit(stack::REFERENCE_BYTES)),
            _ => size,
        };
        if names.len() == 1 {
            let name = names.into_iter().next().unwrap_or_default();
            let foreign = init.is_some_and(|e| self.foreign_value(e));
            self.bind_entry(
                name,
                Entry {
                    ty,
                    foreign,
                    ..Entry::plain(binding, size.clone())
                },
            );
            return Node::Decl {
                size,
                span: pat.span(),
            };
        }
        // A destructuring pattern: the whole value is declared once; each
        // binding is a part of it (by element when the tuple type is known).
        let elems: Option<Vec<syn::Type>> = match (strip_pat(pat), &ty) {
            (syn::Pat::Tuple(pt), Some(syn::Type::Tuple(tt)))
                if pt.elems.len() == tt.elems.len() =>
            {
                Some(tt.elems.iter().cloned().collect())
            }
            _ => None,
        };
        if let (Some(elems), syn::Pat::Tuple(pt)) = (&elems, strip_pat(pat)) {
            for (p, t) in pt.elems.iter().zip(elems) {
                match p {
                    syn::Pat::Ident(pi) if pi.subpat.is_none() => {
                        let foreign = self.type_is_foreign(t);
                        self.bind_entry(
                            pi.ident.to_string(),
                            Entry {
                                ty: Some(t.clone()),
                                foreign,
                                ..Entry::plain(binding, Size::of_type(t.clone()))
                            },
                        )
                    }
                    p => {
                        for n in pat_idents(p) {
                            self.bind_entry(
                                n,
                                Entry::plain(binding, Size::of_type(t.clone()).part()),
                            );
                        }
                    }
                }
            }
        } else {
            for n in names {
                self.bind_entry(n, Entry::plain(binding, size.part()));
            }
        }
        if init.is_none() {
            // Pattern bindings of a `for`, `match` or closure: parts of a
            // value declared elsewhere, or references into it.
            return Node::Ops(0);
        }
        Node::Decl {
            size,
            span: pat.span(),
        }
    }

    /// Bindings of a pattern matched against a value of size `matched`
    /// (`match`, `if let`, `for`): each is a part of it, or a reference.
    pub(super) fn pattern_bindings(&mut self, pat: &syn::Pat, matched: Size) -> Node {
        let mut decls = Vec::new();
        for n in pat_idents(pat) {
            let size = matched.part();
            decls.push(Node::Decl {
                size: size.clone(),
                span: pat.span(),
            });
            self.bind_entry(n, Entry::plain(Binding::Local, size));
        }
        seq(decls)
    }

    /// A block, in a scope of its own.
    pub(super) fn block(&mut self, block: &syn::Block) -> Node {
        self.env.push(HashMap::new());
        let first_closure = self.closures.len();
        let macros = self.local_macros.len();
        for stmt in &block.stmts {
            if let syn::Stmt::Item(item) = stmt {
                for name in item_names(item) {
                    self.bind(name.to_string(), Binding::Item);
                }
            }
        }
        let mut parts = Vec::new();
        for stmt in &block.stmts {
            if let syn::Stmt::Item(syn::Item::Macro(m)) = stmt {
                if !cfg_gated(&m.attrs) {
                    self.define_macro(m);
                }
            }
            parts.push(self.stmt(stmt));
        }
        self.local_macros.truncate(macros);
        // Closures bound here that no spawn construct took: counted once
        // where they were written, as any closure.
        for k in first_closure..self.closures.len() {
            if let Some(body) = self.closures[k].take() {
                parts.push(body);
            }
        }
        self.env.pop();
        seq(parts)
    }

    /// A statement; a `let` binds its pattern after its initializer.
    pub(super) fn stmt(&mut self, stmt: &syn::Stmt) -> Node {
        match stmt {
            syn::Stmt::Local(local) if cfg_gated(&local.attrs) => Node::Ops(0),
            syn::Stmt::Local(local) => {
                let mut parts = Vec::new();
                let init = local.init.as_ref().map(|i| &*i.expr);
                // `let l = move || …;`: kept aside, the task of a spawn
                // construct that takes `l` later.
                if let (Some(syn::Expr::Closure(c)), syn::Pat::Ident(pi), None) = (
                    init.map(strip),
                    &local.pat,
                    local.init.as_ref().and_then(|i| i.diverge.as_ref()),
                ) {
                    if pi.subpat.is_none() {
                        let size = self.closure_size(c);
                        let body = self.closure(c, Binding::Local);
                        self.closure_targets.push(values::targets_of(&body));
                        self.closures.push(Some(body));
                        let k = self.closures.len() - 1;
                        self.bind_entry(
                            pi.ident.to_string(),
                            Entry {
                                foreign: true,
                                ..Entry::plain(Binding::Closure(k), size.clone())
                            },
                        );
                        return Node::Decl {
                            size,
                            span: pi.ident.span(),
                        };
                    }
                }
                if let Some(i) = &local.init {
                    let bound = strip(&i.expr);
                    let saved = (self.bound_init, self.bound_call);
                    self.bound_init = (bound as *const syn::Expr).addr();
                    self.bound_call = match bound {
                        syn::Expr::Call(c) => (c as *const syn::ExprCall).addr(),
                        _ => 0,
                    };
                    parts.push(self.expr(&i.expr));
                    (self.bound_init, self.bound_call) = saved;
                    if let Some((_, diverge)) = &i.diverge {
                        parts.push(self.expr(diverge));
                    }
                }
                match &local.pat {
                    syn::Pat::Type(pt) => {
                        let kind = self.scope_kind_of_type(&pt.ty);
                        let init_kind = init.and_then(|e| self.scope_kind_of_init(e));
                        parts.push(self.typed_binding(&pt.pat, &pt.ty, init));
                        if let (None, Some(k), syn::Pat::Ident(pi)) = (kind, init_kind, &*pt.pat) {
                            self.bind(pi.ident.to_string(), Binding::Scope(k));
                        }
                    }
                    pat => {
                        let binding = match init.and_then(|e| self.scope_kind_of_init(e)) {
                            Some(k) => Binding::Scope(k),
                            None => Binding::Local,
                        };
                        parts.push(self.untyped_binding(pat, binding, init));
                    }
                }
                seq(parts)
            }
            syn::Stmt::Item(_) => Node::Ops(0),
            syn::Stmt::Expr(e, _) if cfg_gated(expr_attrs(e)) => Node::Ops(0),
            syn::Stmt::Expr(e, _) => self.expr(e),
            syn::Stmt::Macro(m) if cfg_gated(&m.attrs) => Node::Ops(0),
            syn::Stmt::Macro(m) => self.macro_node(&m.mac, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Node, Size, WalkCtx};
    use crate::sym::Sym;
    use crate::test_support::{program, sites};

    #[test]
    fn cfg_gated_items_and_statements_are_skipped() {
        let p = program(
            "mod m {
                use prescient::join;
                #[cfg(windows)]
                fn w(h: std::os::windows::io::RawHandle) {}
                #[cfg(test)]
                fn helper(n: u64) -> u64 { join(|| helper(n - 1), || 1).0 }
                #[cfg(windows)]
                use prescient::spawn;
                struct S;
                impl S { #[cfg(test)] fn t(&self) {} fn u(&self) {} }
                fn f(#[cfg(windows)] h: std::os::windows::io::RawHandle, n: u64) {
                    #[cfg(windows)]
                    let h: std::os::windows::io::RawHandle = 0 as _;
                    #[cfg(test)]
                    join(|| 1, || 2);
                    spawn(|| 1);
                }
            }",
        );
        let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["S::u", "f"]);
        assert!(p.sites.is_empty(), "{:?}", sites(&p));
        let mut decls = 0;
        p.functions[1].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Decl { size, .. } = n {
                decls += 1;
                assert!(!matches!(size, Size::Known(Sym::SizeOf(t)) if quote::quote!(#t).to_string().contains("windows")));
            }
        });
        assert_eq!(decls, 1, "only `n`");
    }
}
