//! Sizes of declarations and temporaries: `size_of::<T>()` where the type
//! resolves at module level, else an estimate from the stack analysis's
//! constants (an upper bound where one follows from the expression, such
//! as a closure's captures).

use super::builder::FnBuilder;
use super::expr_types::EraseLifetimes;
use super::syntax::{strip, strip_type};
use crate::model::{FnId, Node, Size};
use crate::stack;
use crate::sym::{self as symb, Sym};
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

// The sizes the lowering writes. Their estimates are the stack analysis's
// constants; the constructors live here so that the model depends on no
// analysis.
impl Size {
    /// `size_of::<ty>()`.
    pub(super) fn of_type(ty: syn::Type) -> Size {
        Size::Known(Sym::SizeOf(Box::new(ty)))
    }

    /// An unknown size with the default estimate.
    pub(super) fn unknown() -> Size {
        Size::Unknown(Sym::Lit(stack::UNKNOWN_LOCAL_BYTES))
    }

    /// An upper bound of the size of a part of a value of this size (a
    /// pattern binding): the whole, and at least a fat pointer (the binding
    /// may be a reference into it).
    pub(super) fn part(&self) -> Size {
        match self {
            Size::Known(s) => Size::Known(symb::max([s.clone(), Sym::Lit(stack::REFERENCE_BYTES)])),
            Size::Unknown(_) => Size::unknown(),
        }
    }
}

impl FnBuilder<'_> {
    /// The size of a written type: `size_of::<T>()` when it resolves at
    /// module level, 16 bytes for a reference or pointer, else unknown (an
    /// array of unknown length: the conservative size even outside recursion).
    pub(super) fn size_of_type(&self, ty: &syn::Type) -> Size {
        if self.type_resolves(ty) {
            let mut ty = ty.clone();
            EraseLifetimes(&self.lifetimes).visit_type_mut(&mut ty);
            Size::of_type(ty)
        } else {
            match strip_type(ty) {
                syn::Type::Reference(_) | syn::Type::Ptr(_) => {
                    Size::Known(Sym::Lit(stack::REFERENCE_BYTES))
                }
                syn::Type::Array(a) => self.array_estimate(&a.len),
                _ => Size::unknown(),
            }
        }
    }

    /// The estimate for an array of unknown element type or length: its
    /// length times [`stack::UNRESOLVED_ELEMENT_BYTES`], or the conservative
    /// size when the length is not a literal.
    pub(super) fn array_estimate(&self, len: &syn::Expr) -> Size {
        match self.bound(len).and_then(|b| b.literal()) {
            Some(n) => Size::Unknown(symb::product([
                Sym::Lit(u64::try_from(n.max(0)).unwrap_or(u64::MAX)),
                Sym::Lit(stack::UNRESOLVED_ELEMENT_BYTES),
            ])),
            None => Size::Unknown(Sym::Lit(stack::CONSERVATIVE_STACK_BYTES)),
        }
    }

    /// An upper bound of the size of an expression's value.
    pub(super) fn expr_size(&self, e: &syn::Expr) -> Size {
        if let Some(ty) = self.expr_type(e) {
            return Size::of_type(ty);
        }
        match strip(e) {
            syn::Expr::Reference(_) | syn::Expr::RawAddr(_) => {
                Size::Known(Sym::Lit(stack::REFERENCE_BYTES))
            }
            syn::Expr::Path(p) if p.qself.is_none() => {
                match p.path.get_ident().and_then(|i| self.entry(&i.to_string())) {
                    Some(entry) => entry.size.clone(),
                    None => Size::unknown(),
                }
            }
            syn::Expr::Closure(c) => self.closure_size(c),
            syn::Expr::Tuple(t) => self.sum_sizes(t.elems.iter()),
            syn::Expr::Repeat(r) => self.array_estimate(&r.len),
            syn::Expr::Array(a) => match self.sum_sizes(a.elems.iter()) {
                Size::Known(s) => Size::Known(s),
                Size::Unknown(_) => Size::Unknown(symb::product([
                    Sym::Lit(a.elems.len() as u64),
                    Sym::Lit(stack::UNRESOLVED_ELEMENT_BYTES),
                ])),
            },
            syn::Expr::Paren(p) => self.expr_size(&p.expr),
            _ => Size::unknown(),
        }
    }

    /// The sizes of several values side by side (a tuple, a closure's
    /// captures), each with 16 bytes of padding.
    pub(super) fn sum_sizes<'e>(&self, es: impl Iterator<Item = &'e syn::Expr>) -> Size {
        let mut terms = Vec::new();
        for e in es {
            match self.expr_size(e) {
                Size::Known(s) => terms.push(symb::sum([s, Sym::Lit(stack::REFERENCE_BYTES)])),
                Size::Unknown(_) => return Size::unknown(),
            }
        }
        Size::Known(symb::sum(terms))
    }

    /// An upper bound of a closure's size: its captures (each by value or by
    /// reference), the bindings of the function its body names.
    pub(super) fn closure_size(&self, c: &syn::ExprClosure) -> Size {
        let mut names = Names::default();
        names.visit_expr(&c.body);
        if names.opaque {
            return Size::unknown();
        }
        let mut terms = Vec::new();
        for n in names.names {
            let Some(entry) = self.entry(&n) else {
                continue;
            };
            match &entry.size {
                Size::Known(s) => {
                    terms.push(symb::sum([s.clone(), Sym::Lit(stack::REFERENCE_BYTES)]))
                }
                Size::Unknown(_) => return Size::unknown(),
            }
        }
        Size::Known(symb::sum(terms))
    }

    /// The size of the elements a `for` loop binds: the type of a range's
    /// bounds, else unknown.
    pub(super) fn element_size(&self, iter: &syn::Expr) -> Size {
        if let syn::Expr::Range(r) = strip(iter) {
            let bound = r.start.as_deref().or(r.end.as_deref());
            if let Some(ty) = bound.and_then(|b| self.expr_type(b)) {
                return Size::of_type(ty);
            }
        }
        Size::unknown()
    }

    /// The temporary holding a module call's result (none when a `let`
    /// binds it: the binding's declaration is its storage).
    pub(super) fn call_temporary(&self, callee: FnId, call: &syn::ExprCall) -> Node {
        let size = match self.modules.returns.get(callee).cloned().flatten() {
            Some(ty) => Size::of_type(ty),
            None => Size::unknown(),
        };
        self.temporary_of(call, size)
    }

    /// A temporary of expression `e` (an array, a repeat) of its own size,
    /// unless a `let` binds it.
    pub(super) fn temporary(&self, e: &syn::Expr) -> Node {
        if (e as *const syn::Expr).addr() == self.bound_init {
            return Node::Ops(0);
        }
        Node::Decl {
            size: self.expr_size(e),
            span: e.span(),
        }
    }

    /// A temporary of a call of size `size`, unless a `let` binds it.
    pub(super) fn temporary_of(&self, call: &syn::ExprCall, size: Size) -> Node {
        if (call as *const syn::ExprCall).addr() == self.bound_call {
            return Node::Ops(0);
        }
        Node::Decl {
            size,
            span: call.span(),
        }
    }
}

/// The identifiers a closure body names (possible captures), in name order so
/// that the emitted size sum is the same on every build; `opaque` when it
/// contains a macro (whose tokens may name more).
#[derive(Default)]
struct Names {
    names: BTreeSet<String>,
    opaque: bool,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.names.insert(i.to_string());
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.opaque = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Node, Size, WalkCtx};
    use crate::test_support::program;

    #[test]
    fn sizes_resolve_only_at_module_level() {
        let p = program(
            "mod m {
                struct S([u8; 64]);
                impl S { fn m(&self, x: Self) {} }
                fn g<'a, T>(t: T, r: &'a T, s: &'a S, v: Vec<T>, w: [u8; 16]) {
                    let a: u64 = 1;
                    let b = 2;
                    let c = [0u8; 128];
                    struct L;
                    let d: L = L;
                    let e: Vec<_> = Vec::new();
                }
            }",
        );
        let sizes = |f: usize| {
            let mut sizes = Vec::new();
            p.functions[f].body.walk(WalkCtx::default(), &mut |n, _| {
                if let Node::Decl { size, .. } = n {
                    sizes.push(match size {
                        Size::Known(s) => s.to_string(),
                        Size::Unknown(_) => "?".into(),
                    });
                }
            });
            sizes
        };
        assert_eq!(
            sizes(1),
            [
                "?",
                "16",
                "size_of::<& '_ S>()",
                "?",
                "size_of::<[u8 ; 16]>()",
                "size_of::<u64>()",
                "size_of::<u128>()",
                "size_of::<[u8 ; 128]>()",
                "?",
                "?"
            ]
        );
        assert_eq!(sizes(0), ["16", "?"]);
    }

    #[test]
    fn a_nested_modules_sizes_resolve_where_they_are_emitted() {
        // The terms are emitted in the annotated module: a nested module's
        // own names (its types, its imports, its `const`s) do not resolve
        // there; primitives, the prelude's types and `std::` paths do,
        // unless either module defines the name.
        let p = program(
            "mod m {
                pub struct Wide([u8; 64]);
                pub mod inner {
                    use std::collections::HashMap;
                    pub struct Local([u8; 8]);
                    const N: usize = 4;
                    pub fn f(a: u64, b: Local, c: Vec<u8>, d: HashMap<u8, u8>, e: super::Wide) {
                        let x = [0u8; N];
                        let y: std::num::Wrapping<u32> = std::num::Wrapping(1);
                        let z: crate::Thing = make();
                        let w = 7;
                    }
                    pub struct String;
                    pub fn g(s: String, t: ::std::string::String) {}
                }
            }",
        );
        let sizes = |f: usize| {
            let mut sizes = Vec::new();
            p.functions[f].body.walk(WalkCtx::default(), &mut |n, _| {
                if let Node::Decl { size, .. } = n {
                    sizes.push(match size {
                        Size::Known(s) => s.to_string(),
                        Size::Unknown(_) => "?".into(),
                    });
                }
            });
            sizes
        };
        assert_eq!(p.functions[0].name, "inner::f");
        assert_eq!(
            sizes(0),
            [
                "size_of::<u64>()",
                "?",
                "size_of::<Vec < u8 >>()",
                "?",
                "?",
                "?",
                "size_of::<std :: num :: Wrapping < u32 >>()",
                "size_of::<crate :: Thing>()",
                "size_of::<u128>()",
            ]
        );
        // `String` is the module's own here; `::std::…` is absolute.
        assert_eq!(sizes(1), ["?", "size_of::<:: std :: string :: String>()"]);
    }
}
