//! Helpers over the syn AST that know nothing of the builder: stripping
//! parentheses and invisible groups, literal values, the identifiers a
//! pattern binds, primitive types, a function's generic names, attributes,
//! and tokens as text for the report.

use crate::module_scope::FnSource;
use std::collections::HashSet;

/// The generic type/const parameter names and the lifetime names of a
/// function and its `impl` or trait.
pub(super) fn generic_names(src: &FnSource<'_>) -> (HashSet<String>, HashSet<String>) {
    let mut generics = HashSet::new();
    let mut lifetimes = HashSet::new();
    for g in src.impl_generics.into_iter().chain([&src.sig.generics]) {
        for p in &g.params {
            match p {
                syn::GenericParam::Type(t) => {
                    generics.insert(t.ident.to_string());
                }
                syn::GenericParam::Const(c) => {
                    generics.insert(c.ident.to_string());
                }
                syn::GenericParam::Lifetime(l) => {
                    lifetimes.insert(l.lifetime.ident.to_string());
                }
            }
        }
    }
    (generics, lifetimes)
}

/// The bit width of a primitive integer type.
pub(super) fn int_bits(ty: &syn::Type) -> Option<u32> {
    let syn::Type::Path(p) = strip_type(ty) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let name = p.path.get_ident()?.to_string();
    Some(match name.as_str() {
        "u8" | "i8" => 8,
        "u16" | "i16" => 16,
        "u32" | "i32" => 32,
        "u64" | "i64" | "usize" | "isize" => 64,
        "u128" | "i128" => 128,
        _ => return None,
    })
}

/// Whether a type is a primitive scalar (arithmetic keeps it).
pub(super) fn is_primitive(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = strip_type(ty) else {
        return false;
    };
    p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| {
            matches!(
                i.to_string().as_str(),
                "u8" | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "usize"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "isize"
                    | "f32"
                    | "f64"
                    | "bool"
                    | "char"
            )
        })
}

/// The value of an integer literal.
pub(super) fn literal_int(e: &syn::Expr) -> Option<u128> {
    match strip(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// Whether an expression is an unsuffixed numeric literal (its type is
/// inferred from the other operand).
pub(super) fn is_unsuffixed(e: &syn::Expr) -> bool {
    match strip(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.suffix().is_empty(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.suffix().is_empty(),
        _ => false,
    }
}

/// Whether a called path is a tuple struct or enum variant by naming
/// convention (its last segment starts with an upper-case letter).
pub(super) fn is_constructor(path: &syn::Path) -> bool {
    path.segments
        .last()
        .and_then(|s| s.ident.to_string().trim_start_matches("r#").chars().next())
        .is_some_and(char::is_uppercase)
}

/// The outer attributes of an expression statement's expression.
pub(super) fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match e {
        E::Array(x) => &x.attrs,
        E::Assign(x) => &x.attrs,
        E::Async(x) => &x.attrs,
        E::Await(x) => &x.attrs,
        E::Binary(x) => &x.attrs,
        E::Block(x) => &x.attrs,
        E::Break(x) => &x.attrs,
        E::Call(x) => &x.attrs,
        E::Cast(x) => &x.attrs,
        E::Closure(x) => &x.attrs,
        E::Continue(x) => &x.attrs,
        E::Field(x) => &x.attrs,
        E::ForLoop(x) => &x.attrs,
        E::If(x) => &x.attrs,
        E::Index(x) => &x.attrs,
        E::Loop(x) => &x.attrs,
        E::Macro(x) => &x.attrs,
        E::Match(x) => &x.attrs,
        E::MethodCall(x) => &x.attrs,
        E::Paren(x) => &x.attrs,
        E::Path(x) => &x.attrs,
        E::Return(x) => &x.attrs,
        E::Struct(x) => &x.attrs,
        E::Try(x) => &x.attrs,
        E::Tuple(x) => &x.attrs,
        E::Unary(x) => &x.attrs,
        E::Unsafe(x) => &x.attrs,
        E::While(x) => &x.attrs,
        _ => &[],
    }
}

/// Strips parentheses from a pattern.
pub(super) fn strip_pat(mut p: &syn::Pat) -> &syn::Pat {
    while let syn::Pat::Paren(inner) = p {
        p = &inner.pat;
    }
    p
}

/// Tokens as text for the report, without the spaces token printing puts
/// between punctuation (`(v.visit)`, `other::f`), at most 48 characters.
pub(super) fn compact(tokens: &impl quote::ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
            if !(word(out.chars().last().as_ref()) && word(chars.get(i + 1))) {
                continue;
            }
        }
        out.push(c);
    }
    if out.chars().count() > 48 {
        out = out.chars().take(47).collect::<String>() + "…";
    }
    out
}

/// Strips parentheses and invisible groups.
pub(super) fn strip(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        e = match e {
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            _ => return e,
        };
    }
}

/// Strips parentheses and invisible groups from a type.
pub(super) fn strip_type(mut ty: &syn::Type) -> &syn::Type {
    loop {
        ty = match ty {
            syn::Type::Paren(p) => &p.elem,
            syn::Type::Group(g) => &g.elem,
            _ => return ty,
        };
    }
}

/// The identifiers a pattern binds.
pub(super) fn pat_idents(pat: &syn::Pat) -> Vec<String> {
    fn go(pat: &syn::Pat, out: &mut Vec<String>) {
        match pat {
            syn::Pat::Ident(p) => {
                out.push(p.ident.to_string());
                if let Some((_, sub)) = &p.subpat {
                    go(sub, out);
                }
            }
            syn::Pat::Or(p) => {
                if let Some(first) = p.cases.first() {
                    go(first, out);
                }
            }
            syn::Pat::Paren(p) => go(&p.pat, out),
            syn::Pat::Reference(p) => go(&p.pat, out),
            syn::Pat::Slice(p) => p.elems.iter().for_each(|p| go(p, out)),
            syn::Pat::Struct(p) => p.fields.iter().for_each(|f| go(&f.pat, out)),
            syn::Pat::Tuple(p) => p.elems.iter().for_each(|p| go(p, out)),
            syn::Pat::TupleStruct(p) => p.elems.iter().for_each(|p| go(p, out)),
            syn::Pat::Type(p) => go(&p.pat, out),
            syn::Pat::Guard(p) => go(&p.pat, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(pat, &mut out);
    out
}
