//! Module-level names: what the names of an annotated module refer to.
//!
//! Before any body is lowered, [`ModuleScope::collect`] reads the module's
//! items once: its functions (free functions, `impl` methods and trait default
//! methods, in source order, each with its syntax: [`FnSource`]), its `const`s
//! and `static`s with their written types, every name an item defines, and its
//! `use` items: which names denote the `prescient` crate (`prescient` itself,
//! `use prescient as p`, `extern crate prescient as p`, the attribute's
//! `crate = rt`), which names are imported from it
//! (`use prescient::{join, spawn as sp}`, and `use prescient::*` for the names
//! in [`PRESCIENT_GLOB_NAMES`]), and which from anywhere else.
//! [`ModuleScope::resolve`] then tells what a path denotes at module level; the
//! lowering (`lower`) asks it for the paths no local binding, generic
//! parameter or `Self` claims.
//!
//! Items gated on `#[cfg]` ([`cfg_gated`]) are not collected, but their names
//! still shadow: the attribute sees the module before cfg stripping.

use crate::library_loops::LIBRARY_LOOPS;
use crate::macros::MacroDef;
use crate::model::FnId;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::visit::Visit;

/// Free functions of `prescient` (and scope types, and the `slice` module)
/// that a glob import `use prescient::*` is taken to bring in, besides the
/// library loops of the crate root ([`LIBRARY_LOOPS`]).
const PRESCIENT_GLOB_NAMES: &[&str] = &[
    "join",
    "spawn",
    "scope",
    "dataflow",
    "Scope",
    "TaskGroup",
    "Dataflow",
    "slice",
];

/// Module-level names.
#[derive(Default)]
pub(crate) struct ModuleScope {
    pub(crate) fns: HashMap<String, FnId>,
    pub(crate) methods: HashMap<(String, String), FnId>,
    /// Method name → every module method (impl or trait default) of that name.
    pub(crate) method_names: HashMap<String, Vec<FnId>>,
    pub(crate) consts: HashSet<String>,
    /// The written types of module `const`s and `static`s.
    pub(crate) value_types: HashMap<String, syn::Type>,
    items: HashSet<String>,
    imports: Imports,
    /// Per function, its return type when it resolves at module level (`()`
    /// when none is written).
    pub(crate) returns: Vec<Option<syn::Type>>,
    /// The one-segment `crate = …` path, another absolute name of `prescient`.
    pub(crate) krate: Option<String>,
    /// The module's structs, enums and unions: its own nominal types.
    pub(crate) types: HashSet<String>,
    /// `(type, field)` → the field's written type, for the module's structs
    /// (tuple fields by index, `"0"`).
    pub(crate) fields: HashMap<(String, String), syn::Type>,
    /// The methods that may be called on a value of a type that is not the
    /// module's (trait default methods, and methods of trait impls for types
    /// that are not the module's: `impl Ext for Vec<u64>`, `impl<T> Ext for
    /// T`); inherent methods and trait impls for the module's types are not.
    pub(crate) foreign_receivers: HashSet<FnId>,
    /// The `macro_rules!` macros the module defines, by name, with the index
    /// of the defining item (textual scope: a use sees the definitions before
    /// it).
    pub(crate) macros: HashMap<String, Vec<(usize, Rc<MacroDef>)>>,
    /// Module functions named as values outside any function body (in a
    /// `const` or `static`: `static TABLE: [fn(u64); 1] = [walk];`).
    pub(crate) address_taken: Vec<FnId>,
}

/// What the module imports.
#[derive(Default)]
struct Imports {
    /// Names that denote the `prescient` crate.
    crate_aliases: HashSet<String>,
    /// Local name → path inside `prescient`.
    names: HashMap<String, Vec<String>>,
    /// The modules of `prescient` glob-imported (`use prescient::*` is
    /// `""`, `use prescient::slice::*` is `"slice"`).
    globs: HashSet<String>,
    /// Names imported from anywhere else, with the path they come from.
    others: HashMap<String, Vec<String>>,
}

/// A function of the module: its syntax, which the lowering reads.
pub(crate) struct FnSource<'a> {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) sig: &'a syn::Signature,
    pub(crate) block: &'a syn::Block,
    pub(crate) impl_generics: Option<&'a syn::Generics>,
    pub(crate) impl_type: Option<String>,
    /// The `impl`'s self type as written (none in a trait, where `Self` is
    /// any implementor).
    pub(crate) self_ty: Option<&'a syn::Type>,
    /// The index of the module item that defines the function.
    pub(crate) item: usize,
}

/// What a path in value position denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// A local binding.
    Local,
    /// A module function.
    Module(FnId),
    /// A path inside `prescient` (crate name stripped).
    Prescient(Vec<String>),
    /// Anything else.
    Unknown,
}

impl ModuleScope {
    /// Collects the names of a module's items. Returns them with the module's
    /// functions in source order (a function's index is its [`FnId`]).
    ///
    /// Fails on an item the macro would emit (`PARAMS`, `ANALYSIS`) already
    /// defined by the module.
    pub(crate) fn collect<'a>(
        items: &'a [syn::Item],
        krate: Option<&syn::Path>,
    ) -> syn::Result<(ModuleScope, Vec<FnSource<'a>>)> {
        let mut errors: Option<syn::Error> = None;
        let mut scope = ModuleScope::default();
        let mut sources: Vec<FnSource<'_>> = Vec::new();
        // Methods of trait impls, with the impl's self type: whether they
        // take foreign receivers is known once every type is.
        let mut trait_impl_methods: Vec<(FnId, &syn::Type)> = Vec::new();

        for (index, item) in items.iter().enumerate() {
            if cfg_gated(item_attrs(item)) {
                // Compiled out in some configuration: its names may shadow, but
                // nothing in it is analysed.
                for name in item_names(item) {
                    scope.items.insert(name.to_string());
                }
                continue;
            }
            for name in item_names(item) {
                if ["PARAMS", "ANALYSIS"].contains(&name.to_string().as_str()) {
                    let e = syn::Error::new(
                        name.span(),
                        format!("#[task_program] emits `{name}` in this module; rename this item"),
                    );
                    match &mut errors {
                        Some(all) => all.combine(e),
                        None => errors = Some(e),
                    }
                }
                scope.items.insert(name.to_string());
            }
            match item {
                syn::Item::Fn(f) => {
                    scope.fns.insert(f.sig.ident.to_string(), sources.len());
                    sources.push(FnSource {
                        name: f.sig.ident.to_string(),
                        span: f.sig.ident.span(),
                        sig: &f.sig,
                        block: &f.block,
                        impl_generics: None,
                        impl_type: None,
                        self_ty: None,
                        item: index,
                    });
                }
                syn::Item::Impl(imp) => {
                    let ty_name = impl_type_name(&imp.self_ty);
                    for it in &imp.items {
                        if let syn::ImplItem::Fn(f) = it {
                            if !cfg_gated(&f.attrs) {
                                if imp.trait_.is_some() {
                                    trait_impl_methods.push((sources.len(), &imp.self_ty));
                                }
                                add_method(
                                    &mut scope,
                                    &mut sources,
                                    &ty_name,
                                    &f.sig,
                                    &f.block,
                                    (&imp.generics, Some(&imp.self_ty)),
                                    index,
                                );
                            }
                        }
                    }
                }
                // Default methods of the module's traits are functions too: a
                // recursion through them (`self.walk()` in `trait Walk`) is seen.
                syn::Item::Trait(tr) => {
                    let tr_name = tr.ident.to_string();
                    for it in &tr.items {
                        if let syn::TraitItem::Fn(f) = it {
                            if let (Some(block), false) = (&f.default, cfg_gated(&f.attrs)) {
                                // Any implementor's method, of any type.
                                scope.foreign_receivers.insert(sources.len());
                                add_method(
                                    &mut scope,
                                    &mut sources,
                                    &tr_name,
                                    &f.sig,
                                    block,
                                    (&tr.generics, None),
                                    index,
                                );
                            }
                        }
                    }
                }
                syn::Item::Const(c) => {
                    scope.consts.insert(c.ident.to_string());
                    scope
                        .value_types
                        .insert(c.ident.to_string(), (*c.ty).clone());
                }
                syn::Item::Static(st) => {
                    scope
                        .value_types
                        .insert(st.ident.to_string(), (*st.ty).clone());
                }
                syn::Item::Struct(st) => {
                    scope.types.insert(st.ident.to_string());
                    for (k, field) in st.fields.iter().enumerate() {
                        let name = match &field.ident {
                            Some(i) => i.to_string(),
                            None => k.to_string(),
                        };
                        scope
                            .fields
                            .insert((st.ident.to_string(), name), field.ty.clone());
                    }
                }
                syn::Item::Enum(e) => {
                    scope.types.insert(e.ident.to_string());
                }
                syn::Item::Union(u) => {
                    scope.types.insert(u.ident.to_string());
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let (Some(name), Some(def)) =
                        (&m.ident, MacroDef::parse(m.mac.tokens.clone()))
                    {
                        scope
                            .macros
                            .entry(name.to_string())
                            .or_default()
                            .push((index, Rc::new(def)));
                    }
                }
                _ => {}
            }
        }
        if let Some(e) = errors {
            return Err(e);
        }
        for (id, self_ty) in trait_impl_methods {
            if !scope.is_module_type(self_ty) {
                scope.foreign_receivers.insert(id);
            }
        }
        // Functions named as values in `const`s and `static`s (of the module
        // or its impls): a call through a value may reach them.
        let mut taken = NamedFunctions {
            scope: &scope,
            found: Vec::new(),
        };
        for item in items {
            if cfg_gated(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Const(c) => taken.visit_expr(&c.expr),
                syn::Item::Static(s) => taken.visit_expr(&s.expr),
                syn::Item::Impl(imp) => {
                    for it in &imp.items {
                        if let syn::ImplItem::Const(c) = it {
                            taken.visit_expr(&c.expr);
                        }
                    }
                }
                _ => {}
            }
        }
        scope.address_taken = taken.found;

        // Imports: crate aliases first (`use prescient as p;` may be used by
        // `use p::join;` in any order), then everything else.
        if !scope.items.contains("prescient") {
            scope.imports.crate_aliases.insert("prescient".to_string());
        }
        if let Some(name) = krate.and_then(|p| p.get_ident().or_else(|| single_segment(p))) {
            scope.krate = Some(name.to_string());
            if !scope.items.contains(&name.to_string()) {
                scope.imports.crate_aliases.insert(name.to_string());
            }
        }
        for item in items {
            if cfg_gated(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Use(u) => collect_aliases(&u.tree, &[], &mut scope.imports),
                syn::Item::ExternCrate(c) if c.ident == "prescient" => {
                    if let Some((_, alias)) = &c.rename {
                        scope.imports.crate_aliases.insert(alias.to_string());
                    }
                }
                _ => {}
            }
        }
        for item in items {
            if cfg_gated(item_attrs(item)) {
                continue;
            }
            if let syn::Item::Use(u) = item {
                let leading = u.leading_colon.is_some();
                collect_use(&u.tree, &[], leading, &mut scope.imports);
            }
        }
        Ok((scope, sources))
    }

    /// What a path denotes at module level, by its segments (at least one; a
    /// leading `self` removed): a module function or method, a path inside
    /// `prescient` (crate name stripped), or something unknown.
    pub(crate) fn resolve(&self, segs: &[String]) -> Resolved {
        let first = &segs[0];
        if segs.len() == 1 {
            if let Some(&id) = self.fns.get(first) {
                return Resolved::Module(id);
            }
        }
        if segs.len() == 2 {
            if let Some(&id) = self.methods.get(&(first.clone(), segs[1].clone())) {
                return Resolved::Module(id);
            }
        }
        if self.imports.crate_aliases.contains(first) {
            return Resolved::Prescient(segs[1..].to_vec());
        }
        if let Some(inner) = self.imports.names.get(first) {
            let mut full = inner.clone();
            full.extend(segs[1..].iter().cloned());
            return Resolved::Prescient(full);
        }
        if self.items.contains(first) || self.imports.others.contains_key(first) {
            return Resolved::Unknown;
        }
        if self.imports.globs.contains("")
            && (PRESCIENT_GLOB_NAMES.contains(&first.as_str())
                || LIBRARY_LOOPS
                    .iter()
                    .any(|l| l.module.is_empty() && l.name == first))
        {
            return Resolved::Prescient(segs.to_vec());
        }
        if let Some(l) = LIBRARY_LOOPS.iter().find(|l| {
            !l.module.is_empty() && l.name == first && self.imports.globs.contains(l.module)
        }) {
            let mut full = vec![l.module.to_string()];
            full.extend(segs.iter().cloned());
            return Resolved::Prescient(full);
        }
        Resolved::Unknown
    }
}

impl ModuleScope {
    /// Whether `name`, a type's name written alone, means the standard
    /// library's type of that name here: imported from `std`, `core` or
    /// `alloc`, or (`prelude`) in the prelude and neither defined nor
    /// imported by the module. The caller checks the body's bindings and
    /// generics.
    pub(crate) fn is_std_name(&self, name: &str, prelude: bool) -> bool {
        if let Some(path) = self.imports.others.get(name) {
            return path
                .first()
                .is_some_and(|c| matches!(c.as_str(), "std" | "core" | "alloc"));
        }
        prelude && !self.items.contains(name)
    }

    /// Whether a type is one of the module's own (a struct, enum or union it
    /// defines), possibly behind references or `Box`/`Rc`/`Arc`: a method
    /// of a trait impl for it takes only such receivers.
    pub(crate) fn is_module_type(&self, ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => self.is_module_type(&r.elem),
            syn::Type::Paren(p) => self.is_module_type(&p.elem),
            syn::Type::Group(g) => self.is_module_type(&g.elem),
            syn::Type::Path(p) if p.qself.is_none() => {
                let segs = &p.path.segments;
                let Some(last) = segs.last() else {
                    return false;
                };
                let local = p.path.leading_colon.is_none()
                    && (segs.len() == 1 || (segs.len() == 2 && segs[0].ident == "self"));
                let name = last.ident.to_string();
                if local && self.types.contains(&name) {
                    return true;
                }
                if ["Box", "Rc", "Arc"].contains(&name.as_str())
                    && self.is_std_name(&name, name == "Box")
                {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(inner)) = a.args.first() {
                            return self.is_module_type(inner);
                        }
                    }
                }
                false
            }
            _ => false,
        }
    }
}

/// Registers a method of `owner` (an impl's type or a trait with a default
/// body) as a function of the module, findable by `(owner, name)` and, for
/// calls on values of unknown type, by its name alone. `generics`: the
/// impl's or trait's generics, and the impl's self type.
fn add_method<'a>(
    scope: &mut ModuleScope,
    sources: &mut Vec<FnSource<'a>>,
    owner: &str,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
    (generics, self_ty): (&'a syn::Generics, Option<&'a syn::Type>),
    item: usize,
) {
    let method = sig.ident.to_string();
    let id = sources.len();
    scope
        .methods
        .entry((owner.to_owned(), method.clone()))
        .or_insert(id);
    scope
        .method_names
        .entry(method.clone())
        .or_default()
        .push(id);
    sources.push(FnSource {
        name: format!("{owner}::{method}"),
        span: sig.ident.span(),
        sig,
        block,
        impl_generics: Some(generics),
        impl_type: Some(owner.to_owned()),
        self_ty,
        item,
    });
}

/// Module functions named by paths in expressions outside function bodies.
struct NamedFunctions<'s> {
    scope: &'s ModuleScope,
    found: Vec<FnId>,
}

impl<'ast> Visit<'ast> for NamedFunctions<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() {
            let mut segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if segs.first().is_some_and(|s| s == "self") && segs.len() > 1 {
                segs.remove(0);
            }
            if p.path.leading_colon.is_none() && !segs.is_empty() {
                if let Resolved::Module(id) = self.scope.resolve(&segs) {
                    if !self.found.contains(&id) {
                        self.found.push(id);
                    }
                }
            }
        }
        syn::visit::visit_expr_path(self, p);
    }
}

/// Whether attributes gate their item on a `#[cfg(...)]`. Attribute macros see
/// the module before cfg stripping, so such items are skipped: `PARAMS` is the
/// same in every configuration, and nothing of a compiled-out item (its types,
/// its constants) is emitted.
pub(crate) fn cfg_gated(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg"))
}

/// The attributes of a module item.
fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The identifier of a one-segment path with a leading `::`.
fn single_segment(p: &syn::Path) -> Option<&syn::Ident> {
    match p.segments.len() {
        1 => p.segments.first().map(|s| &s.ident),
        _ => None,
    }
}

/// The name of the type of an `impl` block, as used in `Type::method`.
fn impl_type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        syn::Type::Paren(p) => impl_type_name(&p.elem),
        syn::Type::Group(g) => impl_type_name(&g.elem),
        other => quote::quote!(#other).to_string(),
    }
}

/// The names an item defines (for `use`, the names it imports).
pub(crate) fn item_names(item: &syn::Item) -> Vec<syn::Ident> {
    fn use_names(tree: &syn::UseTree, last: Option<&syn::Ident>, out: &mut Vec<syn::Ident>) {
        match tree {
            syn::UseTree::Path(p) => use_names(&p.tree, Some(&p.ident), out),
            syn::UseTree::Name(n) if n.ident == "self" => {
                if let Some(l) = last {
                    out.push(l.clone());
                }
            }
            syn::UseTree::Name(n) => out.push(n.ident.clone()),
            syn::UseTree::Rename(r) if r.rename != "_" => out.push(r.rename.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    use_names(t, last, out);
                }
            }
            _ => {}
        }
    }
    match item {
        syn::Item::Const(i) => vec![i.ident.clone()],
        syn::Item::Enum(i) => vec![i.ident.clone()],
        syn::Item::ExternCrate(i) => vec![i
            .rename
            .as_ref()
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| i.ident.clone())],
        syn::Item::Fn(i) => vec![i.sig.ident.clone()],
        syn::Item::Macro(i) => i.ident.iter().cloned().collect(),
        syn::Item::Mod(i) => vec![i.ident.clone()],
        syn::Item::Static(i) => vec![i.ident.clone()],
        syn::Item::Struct(i) => vec![i.ident.clone()],
        syn::Item::Trait(i) => vec![i.ident.clone()],
        syn::Item::TraitAlias(i) => vec![i.ident.clone()],
        syn::Item::Type(i) => vec![i.ident.clone()],
        syn::Item::Union(i) => vec![i.ident.clone()],
        syn::Item::Use(u) => {
            let mut out = Vec::new();
            use_names(&u.tree, None, &mut out);
            out
        }
        _ => Vec::new(),
    }
}

/// Records `use prescient as p` (and `use prescient::{self as p}`).
fn collect_aliases(tree: &syn::UseTree, prefix: &[String], imports: &mut Imports) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix.to_vec();
            prefix.push(p.ident.to_string());
            collect_aliases(&p.tree, &prefix, imports);
        }
        syn::UseTree::Rename(r) => {
            let is_crate = (prefix.is_empty() && r.ident == "prescient")
                || (prefix == ["prescient"] && r.ident == "self");
            if is_crate && r.rename != "_" {
                imports.crate_aliases.insert(r.rename.to_string());
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_aliases(t, prefix, imports);
            }
        }
        _ => {}
    }
}

/// Records what a `use` tree imports.
fn collect_use(tree: &syn::UseTree, prefix: &[String], leading_colon: bool, imports: &mut Imports) {
    let from_prescient = |path: &[String], imports: &Imports| match path.first() {
        Some(first) if leading_colon => first == "prescient",
        Some(first) => imports.crate_aliases.contains(first),
        None => false,
    };
    let record = |name: String, full: Vec<String>, imports: &mut Imports| {
        if name == "_" {
            return;
        }
        if full.len() == 1 && from_prescient(&full, imports) {
            return; // `use prescient;` / `use prescient as p;`: an alias, already known.
        }
        if from_prescient(&full, imports) {
            imports.names.insert(name, full[1..].to_vec());
        } else {
            imports.others.insert(name, full);
        }
    };
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix.to_vec();
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, &prefix, leading_colon, imports);
        }
        syn::UseTree::Name(n) => {
            if n.ident == "self" {
                if let Some(last) = prefix.last() {
                    record(last.clone(), prefix.to_vec(), imports);
                }
            } else {
                let mut full = prefix.to_vec();
                full.push(n.ident.to_string());
                record(n.ident.to_string(), full, imports);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.to_vec();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            record(r.rename.to_string(), full, imports);
        }
        syn::UseTree::Glob(_) => {
            if from_prescient(prefix, imports) {
                imports.globs.insert(prefix[1..].join("::"));
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_use(t, prefix, leading_colon, imports);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> syn::ItemMod {
        syn::parse_str(src).expect("test module parses")
    }

    fn items(module: &syn::ItemMod) -> &[syn::Item] {
        &module.content.as_ref().expect("an inline module").1
    }

    fn path(s: &str) -> Vec<String> {
        s.split("::").map(str::to_owned).collect()
    }

    #[test]
    fn collects_functions_methods_and_trait_defaults() {
        let m = module(
            "mod m {
                fn f() {}
                struct T;
                impl T { fn a(&self) {} #[cfg(test)] fn t(&self) {} }
                trait Walk { fn walk(&self) {} fn required(&self); }
                impl Walk for T {}
                #[cfg(windows)]
                fn w() {}
                const N: usize = 4;
                static S: u8 = 0;
            }",
        );
        let Ok((scope, sources)) = ModuleScope::collect(items(&m), None) else {
            panic!("the module collects");
        };
        let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["f", "T::a", "Walk::walk"]);
        assert_eq!(scope.resolve(&path("f")), Resolved::Module(0));
        assert_eq!(scope.resolve(&path("T::a")), Resolved::Module(1));
        assert_eq!(scope.resolve(&path("Walk::walk")), Resolved::Module(2));
        assert_eq!(scope.method_names["walk"], [2]);
        // Compiled out: not a function, but a name of the module.
        assert!(!scope.fns.contains_key("w") && scope.items.contains("w"));
        assert!(scope.consts.contains("N") && !scope.consts.contains("S"));
        assert_eq!(scope.value_types.len(), 2);
    }

    #[test]
    fn resolves_imports_from_prescient() {
        let m = module(
            "mod m {
                use p::{join as j, Scope};
                use prescient as p;
                extern crate prescient as q;
                use ::prescient::spawn;
                use rayon::scope;
                use prescient::*;
                use std::thread;
                #[cfg(windows)]
                fn dataflow() {}
            }",
        );
        let Ok((scope, _)) = ModuleScope::collect(items(&m), None) else {
            panic!("the module collects");
        };
        let prescient = |s: &str| Resolved::Prescient(path(s));
        assert_eq!(scope.resolve(&path("j")), prescient("join"));
        assert_eq!(scope.resolve(&path("p::join")), prescient("join"));
        assert_eq!(scope.resolve(&path("q::spawn")), prescient("spawn"));
        assert_eq!(scope.resolve(&path("spawn")), prescient("spawn"));
        assert_eq!(
            scope.resolve(&path("Scope::spawn")),
            prescient("Scope::spawn")
        );
        // From the glob import.
        assert_eq!(
            scope.resolve(&path("TaskGroup::new")),
            prescient("TaskGroup::new")
        );
        // Imported from elsewhere, or defined by the module (even when
        // compiled out): not the glob's.
        assert_eq!(scope.resolve(&path("scope")), Resolved::Unknown);
        assert_eq!(scope.resolve(&path("dataflow")), Resolved::Unknown);
        assert_eq!(scope.resolve(&path("thread::spawn")), Resolved::Unknown);
    }

    #[test]
    fn the_crate_argument_names_prescient_unless_an_item_does() {
        let krate: syn::Path = syn::parse_str("rt").expect("a path");
        let m = module("mod m { use rt::join; }");
        let Ok((scope, _)) = ModuleScope::collect(items(&m), Some(&krate)) else {
            panic!("the module collects");
        };
        assert_eq!(scope.krate.as_deref(), Some("rt"));
        assert_eq!(
            scope.resolve(&path("join")),
            Resolved::Prescient(path("join"))
        );
        let m = module("mod m { mod rt {} mod prescient {} }");
        let Ok((scope, _)) = ModuleScope::collect(items(&m), Some(&krate)) else {
            panic!("the module collects");
        };
        assert_eq!(scope.resolve(&path("rt::join")), Resolved::Unknown);
        assert_eq!(scope.resolve(&path("prescient::join")), Resolved::Unknown);
    }

    #[test]
    fn rejects_every_item_the_macro_emits() {
        let m = module("mod m { const PARAMS: u8 = 1; fn ANALYSIS() {} use x::PARAMS as P; }");
        let Err(e) = ModuleScope::collect(items(&m), None) else {
            panic!("the clashes are errors");
        };
        let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "#[task_program] emits `PARAMS` in this module; rename this item",
                "#[task_program] emits `ANALYSIS` in this module; rename this item",
            ]
        );
    }
}
