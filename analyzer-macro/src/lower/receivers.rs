//! Receivers of method calls whose type is visibly not the module's: the
//! lowering's side of [`crate::types`].
//!
//! A method call on a value (`l.sum()`) may be any module method of that
//! name, since the macro has no types ([`Callee::Maybe`]). Where the
//! receiver is *visibly foreign* — a literal, an array, a range, a tuple, a
//! closure, `vec![…]`, a binding whose written type (or initializer) is
//! foreign, a field of the module's struct whose written type is, the
//! result of a method whose standard result is foreign and which the module
//! does not define (`x.iter()`, `….map(f)`, `v.len()`), a constructor of a
//! standard type (`Vec::new()`), a module function returning a foreign
//! type, a slice of a foreign value (`v[a..b]`), a cast — only the module
//! methods that can take such a receiver remain candidates
//! ([`Modules::foreign_receivers`]); with none, the call is invisible.
//! Anything else (`self`, a binding of unwritten or module type, a field of
//! unknown type, an element `v[i]`, a result of `unwrap()`) keeps every
//! candidate of the name.
//!
//! [`Modules::foreign_receivers`]: crate::module_scope::Modules::foreign_receivers

use super::builder::FnBuilder;
use super::syntax::strip;
use crate::model::{Callee, FnId};
use crate::module_scope::Resolved;
use crate::types;

impl FnBuilder<'_> {
    /// Whether a written type is visibly not the module's here.
    pub(super) fn type_is_foreign(&self, ty: &syn::Type) -> bool {
        types::is_foreign(ty, self.module, &|name| {
            self.generics.contains(name) || self.lookup(name).is_some()
        })
    }

    /// Whether the value of an expression is visibly of a type that is not
    /// the module's (see the module documentation).
    pub(super) fn foreign_value(&self, e: &syn::Expr) -> bool {
        use syn::Expr as E;
        match strip(e) {
            E::Lit(_) | E::Array(_) | E::Repeat(_) | E::Range(_) | E::Tuple(_) | E::Closure(_) => {
                true
            }
            E::Cast(c) => self.type_is_foreign(&c.ty),
            E::Reference(r) => self.foreign_value(&r.expr),
            E::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.foreign_value(&u.expr),
            E::Binary(_) | E::Unary(_) => {
                self.expr_type(e).is_some_and(|t| self.type_is_foreign(&t))
            }
            E::Path(p) if p.qself.is_none() => {
                let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
                    return false;
                };
                match self.entry(&name) {
                    Some(entry) => entry.foreign,
                    None if !self.generics.contains(&name) => self
                        .module
                        .value_types
                        .get(&name)
                        .is_some_and(|ty| self.type_is_foreign(ty)),
                    None => false,
                }
            }
            E::Macro(m) => {
                // `vec![…]`, `format!(…)`, unless the module defines a macro
                // of that name.
                m.mac.path.get_ident().is_some_and(|i| {
                    (i == "vec" || i == "format") && self.local_macro(&m.mac.path).is_none()
                })
            }
            E::MethodCall(m) => {
                let name = m.method.to_string();
                types::FOREIGN_RESULT_METHODS.contains(&name.as_str())
                    && !self.modules.method_names.contains_key(&name)
            }
            E::Index(i) => matches!(strip(&i.index), E::Range(_)) && self.foreign_value(&i.expr),
            E::Field(f) => self.field_type(f).is_some_and(|t| self.type_is_foreign(&t)),
            E::Call(c) => {
                let E::Path(p) = strip(&c.func) else {
                    return false;
                };
                if p.qself.is_some() {
                    return false;
                }
                match self.resolve_path(&p.path, false) {
                    Resolved::Module(id) => self
                        .modules
                        .returns
                        .get(id)
                        .cloned()
                        .flatten()
                        .is_some_and(|t| self.type_is_foreign(&t)),
                    _ => self.standard_constructor(&p.path),
                }
            }
            _ => false,
        }
    }

    /// `Vec::new()`, `String::from(…)`, `HashMap::with_capacity(n)`: a
    /// constructor of a standard type that does not dereference to what it
    /// holds.
    fn standard_constructor(&self, path: &syn::Path) -> bool {
        let n = path.segments.len();
        if n < 2 || !types::is_constructor_fn(&path.segments[n - 1].ident.to_string()) {
            return false;
        }
        self.type_is_foreign(&type_of_prefix(path))
    }

    /// The written type of a field of the module's struct: `self.f` in one
    /// of its methods, or `x.f` of a binding written with its type.
    fn field_type(&self, f: &syn::ExprField) -> Option<syn::Type> {
        let owner = match strip(&f.base) {
            syn::Expr::Path(p) if p.path.is_ident("self") => self.impl_type.clone()?,
            syn::Expr::Path(p) => {
                let name = p.path.get_ident()?.to_string();
                self.entry(&name)?.owner.clone()?
            }
            _ => return None,
        };
        if !self.module.types.contains(&owner) {
            return None;
        }
        let field = match &f.member {
            syn::Member::Named(i) => i.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let ty = self.module.fields.get(&(owner, field))?;
        // The struct's generics are not this function's: a field typed with
        // one of them is not known here.
        Some(ty.clone())
    }

    /// The module methods named `name` a call on `receiver` may be: all of
    /// them, or those that take foreign receivers when the receiver is
    /// visibly foreign.
    pub(super) fn method_candidates(&self, name: &str, foreign: bool) -> Vec<FnId> {
        let Some(all) = self.modules.method_names.get(name) else {
            return Vec::new();
        };
        all.iter()
            .copied()
            .filter(|id| !foreign || self.modules.foreign_receivers.contains(id))
            .collect()
    }

    /// A possible call of the module methods `name` on a receiver, or an
    /// invisible call when none can take it.
    pub(super) fn possible_method(&self, name: &str, foreign: bool) -> Callee {
        let candidates = self.method_candidates(name, foreign);
        if candidates.is_empty() {
            Callee::External
        } else {
            Callee::Maybe(candidates)
        }
    }

    /// Whether the type in `Type::method(…)` (its path without the last
    /// segment) is visibly foreign: `f64::max(a, b)`, `Vec::len(&v)`.
    pub(super) fn foreign_type_path(&self, path: &syn::Path) -> bool {
        let n = path.segments.len();
        if n < 2 || self.lookup_first(path).is_some() {
            return false;
        }
        self.type_is_foreign(&type_of_prefix(path))
    }

    /// The module struct a written type names, possibly behind references
    /// or `Box`/`Rc`/`Arc` (`&Node`), whose fields' types are known.
    pub(super) fn module_struct(&self, ty: &syn::Type) -> Option<String> {
        if !self.module.is_module_type(ty) || !self.type_resolves(ty) {
            return None;
        }
        let mut ty = ty;
        loop {
            ty = match ty {
                syn::Type::Reference(r) => &r.elem,
                syn::Type::Paren(p) => &p.elem,
                syn::Type::Group(g) => &g.elem,
                syn::Type::Path(p) => {
                    let last = p.path.segments.last()?;
                    let name = last.ident.to_string();
                    if self.module.types.contains(&name) {
                        return Some(name);
                    }
                    match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                            syn::GenericArgument::Type(inner) => inner,
                            _ => return None,
                        },
                        _ => return None,
                    }
                }
                _ => return None,
            };
        }
    }
}

/// The type a path names without its last segment (`Vec` of `Vec::new`).
fn type_of_prefix(path: &syn::Path) -> syn::Type {
    let mut prefix = path.clone();
    prefix.segments.pop();
    // A trailing `::` would remain: rebuild the segments.
    let segments: Vec<&syn::PathSegment> = prefix.segments.iter().collect();
    let colon = prefix.leading_colon;
    syn::parse_quote!(#colon #(#segments)::*)
}

#[cfg(test)]
mod tests {
    use crate::model::{Callee, Node, WalkCtx};
    use crate::structure::tests::rho_lambda;
    use crate::test_support::program;

    /// The callees of the method calls named `name` in function `f`.
    fn callees(src: &str, f: &str) -> Vec<Callee> {
        let p = program(src);
        let f = p.functions.iter().find(|g| g.name == f).expect("function");
        let mut out = Vec::new();
        f.body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call { callee, .. } = n {
                out.push(callee.clone());
            }
        });
        out
    }

    #[test]
    fn iterator_chains_are_not_the_modules_methods() {
        // The program: a loop of spawns, each summing a row.
        let src = "mod m {
            use prescient::scope;
            pub struct Matrix { rows: Vec<Vec<f64>> }
            impl Matrix {
                pub fn sum(&self) -> f64 {
                    let mut sums = vec![0.0; self.rows.len()];
                    scope(|s| {
                        for (row, out) in self.rows.iter().zip(sums.iter_mut()) {
                            s.spawn(move |_| *out = row.iter().sum());
                        }
                    });
                    sums.into_iter().sum()
                }
            }
        }";
        assert_eq!(rho_lambda(src, "Matrix::sum"), (0, 1));
        assert!(callees(src, "Matrix::sum")
            .iter()
            .all(|c| !matches!(c, Callee::Maybe(_))));
    }

    #[test]
    fn visibly_foreign_receivers() {
        // `sum` is a module method; none of these receivers can be a Matrix.
        for receiver in [
            "xs.iter()",
            "xs.iter().map(|x| x * 2)",
            "(0..n)",
            "[1, 2, 3]",
            "vec![1, 2]",
            "Vec::<u64>::new()",
            "String::from(\"x\")",
            "v",
            "s",
            "t",
            "xs[1..]",
            "self.rows",
            "rows()",
            "(n as u64)",
        ] {
            let src = format!(
                "mod m {{
                    pub struct Matrix {{ rows: Vec<u64> }}
                    fn rows() -> Vec<u64> {{ Vec::new() }}
                    impl Matrix {{
                        pub fn sum(&self) -> u64 {{ 0 }}
                        fn f(&self, xs: &[u64], n: u64, t: (u8, u8)) {{
                            let v: Vec<u64> = Vec::new();
                            let s = String::new();
                            {receiver}.sum();
                        }}
                    }}
                }}"
            );
            let c = callees(&src, "Matrix::f");
            assert!(
                !c.iter().any(|c| matches!(c, Callee::Maybe(_))),
                "{receiver}: {c:?}"
            );
        }
    }

    #[test]
    fn receivers_that_may_be_the_modules_type_still_match() {
        for receiver in [
            "self",
            "other",
            "self.left",
            "self.kids[0]",
            "node",
            "boxed",
            "x.unwrap()",
            "self.kids.iter().next().unwrap()",
        ] {
            let src = format!(
                "mod m {{
                    pub struct Tree {{ left: Box<Tree>, kids: Vec<Tree> }}
                    impl Tree {{
                        pub fn sum(&self) -> u64 {{ 0 }}
                        fn f(&self, other: &Tree, node: Tree, boxed: Box<Tree>, x: Option<Tree>) {{
                            {receiver}.sum();
                        }}
                    }}
                }}"
            );
            let c = callees(&src, "Tree::f");
            assert!(
                c.iter()
                    .any(|c| matches!(c, Callee::Maybe(_) | Callee::Module(_))),
                "{receiver}: {c:?}"
            );
        }
        // Recursion on the module's type through a field stays recursion.
        let src = "mod m {
            use prescient::join;
            pub struct Tree { left: Option<Box<Tree>>, right: Option<Box<Tree>>, v: u64 }
            impl Tree {
                pub fn sum(&self) -> u64 {
                    let (a, b) = join(
                        || self.left.as_ref().map_or(0, |l| l.sum()),
                        || self.right.as_ref().map_or(0, |r| r.sum()),
                    );
                    a + b + self.v
                }
            }
        }";
        assert_eq!(rho_lambda(src, "Tree::sum"), (2, 0));
    }

    #[test]
    fn extension_traits_on_foreign_types_stay_candidates() {
        let src = "mod m {
            use prescient::join;
            pub trait Total { fn total(&self) -> u64; }
            impl Total for [u64] {
                fn total(&self) -> u64 {
                    if self.len() < 2 { return self.iter().sum(); }
                    let (a, b) = self.split_at(self.len() / 2);
                    let (x, y) = join(|| a.total(), || [1u64, 2].total());
                    x + y
                }
            }
            pub struct Matrix;
            impl Matrix { pub fn total(&self) -> u64 { 0 } }
        }";
        assert_eq!(rho_lambda(src, "[u64]::total"), (2, 0));
        // The array literal's candidates: only the impl for a foreign type.
        let c = callees(src, "[u64]::total");
        assert!(c.contains(&Callee::Maybe(vec![0])), "{c:?}");
        // A primitive's associated function is not the module's `max`.
        let src = "mod m {
            pub struct P;
            impl P { pub fn max(&self, o: u64) -> u64 { o } fn f(a: u64) -> u64 { u64::max(a, 1) } }
        }";
        assert!(!callees(src, "P::f")
            .iter()
            .any(|c| matches!(c, Callee::Maybe(_))));
    }
}
