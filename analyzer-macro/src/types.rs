//! What the macro can tell about a type without name resolution: whether it
//! is *visibly not the module's* — a primitive, a slice, an array, a tuple,
//! a function pointer, or a standard-library container, iterator or
//! wrapper that does not dereference to its contents — so that a method
//! called on a value of it is not one of the module's inherent methods.
//!
//! The lowering uses this to keep `row.iter().sum()` inside `Matrix::sum`
//! from being taken for a call of `Matrix::sum`: a method call on such a
//! value may only be a module method that can take it — a trait's default
//! method, or a method of a trait the module implements for a type that is
//! not its own (`impl Ext for Vec<u64>`, `impl<T> Ext for T`:
//! [`Modules::foreign_receivers`](crate::module_scope::Modules::foreign_receivers)). Everything else stays possible:
//! references, `Box`, `Rc` and `Arc` are looked through (they dereference
//! to what they hold), generic parameters, `impl Trait`, `dyn Trait`,
//! `Self` and any type the module or another crate defines may be or hold
//! the module's type.
//!
//! A standard name counts only where it means the standard item: imported
//! from `std`, `core` or `alloc`, written with that path, or (for the
//! prelude's `Vec`, `String`, `Option`, `Result`, `Box`) neither defined nor
//! imported otherwise by the module. Being wrong here can only drop a call
//! edge the program has (a recursion through a module trait implemented
//! elsewhere for a standard type, which the module cannot see either): ρ
//! then misses a recursion, which costs speed, never correctness.

use crate::module_scope::ModuleScope;

/// Primitive types: no module method is inherent to them.
pub const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str",
];

/// Standard types in the prelude that do not dereference to what they
/// hold (`Box` does, so it is looked through instead).
const PRELUDE_TYPES: &[&str] = &["Vec", "String", "Option", "Result"];

/// Standard types outside the prelude that do not dereference to what they
/// hold.
const STD_TYPES: &[&str] = &[
    "VecDeque",
    "LinkedList",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "BinaryHeap",
    "Range",
    "RangeInclusive",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "AtomicBool",
    "AtomicU8",
    "AtomicU16",
    "AtomicU32",
    "AtomicU64",
    "AtomicUsize",
    "AtomicI8",
    "AtomicI16",
    "AtomicI32",
    "AtomicI64",
    "AtomicIsize",
];

/// Standard smart pointers: they dereference to what they hold, so a value
/// of one is foreign exactly when its contents are.
const POINTERS: &[&str] = &["Box", "Rc", "Arc"];

/// Methods whose standard result is visibly not the module's type whatever
/// they are called on — iterators and their adaptors, lengths, slices,
/// strings, `Option`s — when the module defines no method of that name
/// (the lowering checks). `row.iter()`, `xs.iter().map(f)`, `v.len()`.
pub const FOREIGN_RESULT_METHODS: &[&str] = &[
    // Iterator sources.
    "iter",
    "iter_mut",
    "into_iter",
    "chars",
    "char_indices",
    "bytes",
    "lines",
    "split_whitespace",
    "windows",
    "chunks",
    "chunks_mut",
    "chunks_exact",
    "chunks_exact_mut",
    "rchunks",
    "keys",
    "values",
    "values_mut",
    "drain",
    "par_iter",
    "par_iter_mut",
    "into_par_iter",
    // Iterator (and `Option`) adaptors.
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "flatten",
    "enumerate",
    "zip",
    "rev",
    "step_by",
    "skip",
    "take",
    "skip_while",
    "take_while",
    "map_while",
    "copied",
    "cloned",
    "chain",
    "cycle",
    "peekable",
    "fuse",
    "inspect",
    "scan",
    // Plain standard results.
    "len",
    "count",
    "is_empty",
    "to_vec",
    "to_string",
    "as_slice",
    "as_mut_slice",
    "as_str",
    "as_bytes",
    "split_at",
    "split_at_mut",
    "partition",
];

/// Whether a path names a standard type (by its last segment, returned):
/// `std::collections::HashMap`, or a name alone that means the standard
/// one ([`ModuleScope::is_std_name`]) and that no body binding or generic
/// parameter claims (`shadowed`).
pub fn std_type_name(
    path: &syn::Path,
    scope: &ModuleScope,
    shadowed: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let first = path.segments.first()?.ident.to_string();
    let last = path.segments.last()?.ident.to_string();
    if path.segments.len() > 1 {
        return matches!(first.as_str(), "std" | "core" | "alloc").then_some(last);
    }
    if path.leading_colon.is_some() || shadowed(&last) {
        return None;
    }
    if PRIMITIVES.contains(&last.as_str()) {
        // A primitive can only be shadowed by an item of the module.
        return scope.is_std_name(&last, true).then_some(last);
    }
    let prelude = PRELUDE_TYPES.contains(&last.as_str()) || last == "Box";
    scope.is_std_name(&last, prelude).then_some(last)
}

/// Whether a value of type `ty` is visibly not of the module's type (see
/// the module's documentation); `shadowed` tells the names a body binding,
/// generic parameter or body-local item claims.
pub fn is_foreign(ty: &syn::Type, scope: &ModuleScope, shadowed: &dyn Fn(&str) -> bool) -> bool {
    match ty {
        syn::Type::Reference(r) => is_foreign(&r.elem, scope, shadowed),
        syn::Type::Paren(p) => is_foreign(&p.elem, scope, shadowed),
        syn::Type::Group(g) => is_foreign(&g.elem, scope, shadowed),
        syn::Type::Slice(_)
        | syn::Type::Array(_)
        | syn::Type::Tuple(_)
        | syn::Type::FnPtr(_)
        | syn::Type::Ptr(_) => true,
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(name) = std_type_name(&p.path, scope, shadowed) else {
                return false;
            };
            if POINTERS.contains(&name.as_str()) {
                let inner = match p.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => a.args.first(),
                    _ => None,
                };
                return match inner {
                    Some(syn::GenericArgument::Type(inner)) => is_foreign(inner, scope, shadowed),
                    _ => false,
                };
            }
            PRIMITIVES.contains(&name.as_str())
                || PRELUDE_TYPES.contains(&name.as_str())
                || STD_TYPES.contains(&name.as_str())
        }
        _ => false,
    }
}

/// Whether `Type::function(…)` on a standard type `name` makes a value of
/// that type (a constructor), so that the value is foreign when the type
/// is.
pub fn is_constructor_fn(name: &str) -> bool {
    matches!(
        name,
        "new" | "with_capacity" | "default" | "from" | "from_iter" | "with_hasher"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_scope::{Modules, ROOT};

    fn scope(src: &str) -> Modules {
        let m: syn::ItemMod = syn::parse_str(src).expect("a module");
        let items = &m.content.as_ref().expect("a body").1;
        let Ok((modules, _)) = Modules::collect(&m.ident, items, None) else {
            panic!("collects");
        };
        modules
    }

    fn foreign(modules: &Modules, ty: &str) -> bool {
        let ty: syn::Type = syn::parse_str(ty).expect("a type");
        is_foreign(&ty, &modules.scopes[ROOT], &|n| n == "T")
    }

    #[test]
    fn standard_and_structural_types_are_foreign() {
        let s = scope(
            "mod m {
                use std::collections::HashMap;
                use std::rc::Rc;
                pub struct Node;
            }",
        );
        for ty in [
            "u64",
            "&[u64]",
            "&mut [T]",
            "[f64; 4]",
            "(u8, Node)",
            "fn(u64) -> u64",
            "*const u8",
            "str",
            "&str",
            "Vec<Node>",
            "&Vec<Vec<f64>>",
            "String",
            "Option<Node>",
            "HashMap<u64, Node>",
            "std::collections::BTreeMap<u8, u8>",
            "std::ops::Range<usize>",
            "Box<[u8]>",
            "Rc<Vec<u8>>",
            "core::cell::Cell<u64>",
        ] {
            assert!(foreign(&s, ty), "{ty}");
        }
    }

    #[test]
    fn the_modules_types_and_unknown_ones_are_not() {
        let s = scope(
            "mod m {
                use other::VecDeque;
                pub struct Node;
                pub struct Vec;
            }",
        );
        for ty in [
            "Node",
            "&Node",
            "Box<Node>",
            "std::sync::Arc<Node>",
            "T",
            "&T",
            "Self",
            "impl Iterator<Item = u8>",
            "dyn Fn(u8)",
            "other::Thing",
            // Defined or imported by the module: not the standard ones.
            "Vec<u8>",
            "VecDeque<u8>",
            // Not in the prelude and not imported: unknown.
            "HashMap<u8, u8>",
            "Rc<Vec<u8>>",
        ] {
            assert!(!foreign(&s, ty), "{ty}");
        }
    }

    #[test]
    fn methods_of_trait_impls_for_foreign_types_take_foreign_receivers() {
        let s = scope(
            "mod m {
                pub struct Matrix;
                pub trait Total { fn total(&self) -> u64; fn twice(&self) -> u64 { 2 * self.total() } }
                impl Matrix { pub fn sum(&self) -> u64 { 0 } }
                impl Total for Matrix { fn total(&self) -> u64 { 0 } }
                impl Total for Vec<u64> { fn total(&self) -> u64 { 0 } }
                impl<T> Total for Box<T> { fn total(&self) -> u64 { 0 } }
                impl Total for &Matrix { fn total(&self) -> u64 { 0 } }
            }",
        );
        // Total::twice (a default method: any implementor), Matrix::sum,
        // Matrix's total, Vec's, Box<T>'s, &Matrix's: the default method,
        // Vec's and Box<T>'s take receivers that are not the module's.
        let mut ids: Vec<_> = s.foreign_receivers.iter().copied().collect();
        ids.sort_unstable();
        assert_eq!(ids, [0, 3, 4]);
    }
}
