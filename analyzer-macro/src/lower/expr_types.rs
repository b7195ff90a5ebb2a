//! Types the lowering knows: whether a written type means the same at
//! module level as where it is written (only then may `size_of::<T>()`
//! size it), a function's return type, and the exact type of an
//! expression where the model knows it.

use super::builder::FnBuilder;
use super::syntax::{generic_names, is_primitive, is_unsuffixed, pat_idents, strip};
use crate::module_scope::{FnSource, ModuleScope, Modules, Resolved, ROOT};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// Names that mean the same type in every module unless a module defines
/// or imports them: the primitive types, the prelude's types a frame holds,
/// and the standard crates (`std::…`).
const UNIVERSAL_TYPE_NAMES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str", "Box", "Option", "Result", "String", "Vec", "std", "core",
    "alloc",
];

/// A function's return type, when it resolves at the annotated module's
/// level: no generic parameter of the function or its `impl`/trait, no
/// `Self`, no `impl Trait`; in a nested module, only names that mean the
/// same in both modules.
pub(super) fn return_type(src: &FnSource<'_>, modules: &Modules) -> Option<syn::Type> {
    match &src.sig.output {
        syn::ReturnType::Default => Some(syn::parse_quote!(())),
        syn::ReturnType::Type(_, ty) => {
            let generics = generic_names(src).0;
            let mut check = ResolveCheck {
                generics: &generics,
                builder: None,
                nested: nested_pair(modules, src.scope),
                ok: true,
            };
            check.visit_type(ty);
            // Elided lifetimes of the signature: references are sized alike.
            let mut ty = (**ty).clone();
            EraseAllLifetimes.visit_type_mut(&mut ty);
            check.ok.then_some(ty)
        }
    }
}

/// For a function of a nested module: its module's names and the annotated
/// module's.
fn nested_pair(modules: &Modules, scope: usize) -> Option<(&ModuleScope, &ModuleScope)> {
    (scope != ROOT).then(|| (&modules.scopes[scope], &modules.scopes[ROOT]))
}

impl FnBuilder<'_> {
    /// Whether a type means the same at the annotated module's level as here.
    pub(super) fn type_resolves(&self, ty: &syn::Type) -> bool {
        let mut check = ResolveCheck {
            generics: &self.generics,
            builder: Some(self),
            nested: nested_pair(self.modules, self.scope),
            ok: true,
        };
        check.visit_type(ty);
        check.ok
    }

    /// The type of a literal. An unsuffixed integer may be inferred to any
    /// integer type: `u128` bounds them all; an unsuffixed float `f64`.
    pub(super) fn literal_type(&self, l: &syn::ExprLit) -> Option<syn::Type> {
        let name = match &l.lit {
            syn::Lit::Int(i) if i.suffix().is_empty() => "u128",
            syn::Lit::Int(i) => i.suffix(),
            syn::Lit::Float(f) if f.suffix().is_empty() => "f64",
            syn::Lit::Float(f) => f.suffix(),
            syn::Lit::Bool(_) => "bool",
            syn::Lit::Char(_) => "char",
            syn::Lit::Byte(_) => "u8",
            syn::Lit::Str(_) => "&str",
            _ => return None,
        };
        let ty: syn::Type = syn::parse_str(name).ok()?;
        self.type_resolves(&ty).then_some(ty)
    }

    /// The type of an expression, when the model knows it exactly (as an
    /// upper bound for unsuffixed literals) and it resolves at module level.
    pub(super) fn expr_type(&self, e: &syn::Expr) -> Option<syn::Type> {
        use syn::Expr as E;
        match strip(e) {
            E::Lit(l) => self.literal_type(l),
            E::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?.to_string();
                match self.entry(&name) {
                    Some(entry) => entry.ty.clone(),
                    None if !self.generics.contains(&name) => {
                        let ty = self.module.value_types.get(&name)?;
                        self.type_resolves(ty).then(|| ty.clone())
                    }
                    None => None,
                }
            }
            E::Cast(c) => self.type_resolves(&c.ty).then(|| (*c.ty).clone()),
            E::Binary(b) => {
                use syn::BinOp as B;
                match b.op {
                    B::Eq(_)
                    | B::Ne(_)
                    | B::Lt(_)
                    | B::Le(_)
                    | B::Gt(_)
                    | B::Ge(_)
                    | B::And(_)
                    | B::Or(_) => Some(syn::parse_quote!(bool)),
                    B::Shl(_) | B::Shr(_) => self.expr_type(&b.left).filter(is_primitive),
                    B::Add(_)
                    | B::Sub(_)
                    | B::Mul(_)
                    | B::Div(_)
                    | B::Rem(_)
                    | B::BitAnd(_)
                    | B::BitOr(_)
                    | B::BitXor(_) => {
                        // Primitive operands: the result has their type.
                        match (self.expr_type(&b.left), self.expr_type(&b.right)) {
                            (Some(l), _) if is_primitive(&l) && !is_unsuffixed(&b.left) => Some(l),
                            (_, Some(r)) if is_primitive(&r) => Some(r),
                            (Some(l), _) if is_primitive(&l) => Some(l),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            E::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => {
                self.expr_type(&u.expr).filter(is_primitive)
            }
            E::Tuple(t) => {
                let elems = t
                    .elems
                    .iter()
                    .map(|e| self.expr_type(e))
                    .collect::<Option<Vec<_>>>()?;
                Some(syn::parse_quote!((#(#elems,)*)))
            }
            E::Array(a) => {
                let elem = self.expr_type(a.elems.first()?)?;
                let n = a.elems.len();
                Some(syn::parse_quote!([#elem; #n]))
            }
            E::Repeat(r) => {
                let elem = self.expr_type(&r.expr)?;
                self.bound(&r.len)?;
                let len = &r.len;
                Some(syn::parse_quote!([#elem; #len]))
            }
            E::Call(c) => {
                let syn::Expr::Path(p) = strip(&c.func) else {
                    return None;
                };
                match self.resolve_path(&p.path, p.qself.is_some()) {
                    Resolved::Module(id) | Resolved::ByName(id) => {
                        self.modules.returns.get(id).cloned().flatten()
                    }
                    // `join(a, b)` returns both task results.
                    Resolved::Prescient(path)
                        if path.last().is_some_and(|l| l == "join") && c.args.len() == 2 =>
                    {
                        let a = self.task_result_type(&c.args[0])?;
                        let b = self.task_result_type(&c.args[1])?;
                        Some(syn::parse_quote!((#a, #b)))
                    }
                    _ => None,
                }
            }
            E::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => self.expr_type(e),
                _ => None,
            },
            E::Macro(m) => self.expansion_type(&m.mac),
            _ => None,
        }
    }

    /// The result type of a task: a closure's body, or a module function.
    pub(super) fn task_result_type(&self, task: &syn::Expr) -> Option<syn::Type> {
        match strip(task) {
            syn::Expr::Closure(c) => {
                // The closure's parameters shadow the function's bindings.
                let shadowed = c
                    .inputs
                    .iter()
                    .flat_map(pat_idents)
                    .any(|n| self.entry(&n).is_some());
                if !c.inputs.is_empty() || shadowed {
                    return None;
                }
                let tail = match strip(&c.body) {
                    syn::Expr::Block(b) => match b.block.stmts.as_slice() {
                        [syn::Stmt::Expr(e, None)] => e,
                        _ => return None,
                    },
                    e => e,
                };
                self.expr_type(tail)
            }
            syn::Expr::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Module(id) | Resolved::ByName(id) => {
                    self.modules.returns.get(id).cloned().flatten()
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Checks that every path of a type resolves at the annotated module's level.
struct ResolveCheck<'b, 'a> {
    /// Generic parameters in scope.
    generics: &'b HashSet<String>,
    /// The body's bindings, when inside one.
    builder: Option<&'b FnBuilder<'a>>,
    /// In a nested module: its names and the annotated module's. A path is
    /// then kept only where it means the same in both: `crate::…`, `::…`,
    /// or a [`UNIVERSAL_TYPE_NAMES`] name neither module defines or
    /// imports; anything else may name an item of the nested module (or an
    /// import of it) that the annotated module does not see.
    nested: Option<(&'b ModuleScope, &'b ModuleScope)>,
    ok: bool,
}

impl<'ast> Visit<'ast> for ResolveCheck<'_, '_> {
    fn visit_type(&mut self, ty: &'ast syn::Type) {
        match ty {
            syn::Type::ImplTrait(_)
            | syn::Type::Infer(_)
            | syn::Type::Macro(_)
            | syn::Type::Never(_)
            | syn::Type::Verbatim(_) => self.ok = false,
            _ => syn::visit::visit_type(self, ty),
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // `[u8; _]`: an inferred length does not resolve.
        match e {
            syn::Expr::Infer(_) | syn::Expr::Verbatim(_) => self.ok = false,
            _ => syn::visit::visit_expr(self, e),
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                let name = first.ident.to_string();
                if name == "Self"
                    || self.generics.contains(&name)
                    || self.builder.is_some_and(|b| b.lookup(&name).is_some())
                {
                    self.ok = false;
                }
                if let Some((own, root)) = self.nested {
                    let same_everywhere = name == "crate"
                        || (UNIVERSAL_TYPE_NAMES.contains(&name.as_str())
                            && !own.defines(&name)
                            && !root.defines(&name));
                    if !same_everywhere {
                        self.ok = false;
                    }
                }
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.ok = false;
    }
}

/// Replaces the function's (and `impl`'s) lifetime parameters by `'_`.
pub(super) struct EraseLifetimes<'a>(pub(super) &'a HashSet<String>);

impl VisitMut for EraseLifetimes<'_> {
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        if self.0.contains(&lt.ident.to_string()) {
            *lt = syn::Lifetime::new("'_", lt.apostrophe);
        }
    }
}

/// Replaces every lifetime but `'static` by `'_` (a signature's types, sized
/// in a `const`).
struct EraseAllLifetimes;

impl VisitMut for EraseAllLifetimes {
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        if lt.ident != "static" {
            *lt = syn::Lifetime::new("'_", lt.apostrophe);
        }
    }
}
