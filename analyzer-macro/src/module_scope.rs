//! Module-level names: what the names of an annotated module, and of the
//! inline modules nested in it, refer to.
//!
//! Before any body is lowered, [`Modules::collect`] reads the items of every
//! module of the program once — the annotated module and each inline module
//! nested in it ([`is_nested_program_module`]), each a [`ModuleScope`] —
//! : their functions (free functions, `impl` methods and trait default
//! methods, in source order, each with its syntax and module: [`FnSource`]),
//! their `const`s and `static`s with their written types, every name an item
//! defines, and their `use` items: which names denote the `prescient` crate
//! (`prescient` itself, `use prescient as p`, `extern crate prescient as p`,
//! the attribute's `crate = rt`), which names are imported from it
//! (`use prescient::{join, spawn as sp}`, and `use prescient::*` for the
//! names in [`PRESCIENT_GLOB_NAMES`]), which by a path that may lead into the
//! program's modules (`use super::even`, `use self::odd::odd`,
//! `use super::*`), and which from anywhere else. [`Modules::resolve`] then
//! tells what a path denotes in one of the modules, following `self::`,
//! `super::`, nested modules' names and those imports from module to module;
//! the lowering (`lower`) asks it for the paths no local binding, generic
//! parameter or `Self` claims.
//!
//! A nested module is part of the program: its functions are module
//! functions, its spawn sites sites. The macro does not know where the
//! annotated module sits in its crate, so a `crate::…` path that names it by
//! its name is only possibly a call into it ([`Resolved::ByName`]); `super::`
//! above the annotated module leads outside the program. Modules declared in
//! files of their own (`mod x;`) are not in the attribute's tokens: calls
//! into them are calls outside the program.
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

/// Index of a module in [`Modules::scopes`].
pub(crate) type ScopeId = usize;

/// The annotated module's [`ScopeId`].
pub(crate) const ROOT: ScopeId = 0;

/// Import hops [`Modules::resolve`] follows at most (`use` of a `use`):
/// a cycle of imports, which rustc rejects anyway, ends here.
const MAX_IMPORT_HOPS: u32 = 16;

/// The names of one module of the program: the annotated module, or an
/// inline module nested in it (see [`is_nested_program_module`]).
#[derive(Default)]
pub(crate) struct ModuleScope {
    pub(crate) fns: HashMap<String, FnId>,
    pub(crate) methods: HashMap<(String, String), FnId>,
    pub(crate) consts: HashSet<String>,
    /// The written types of the module's `const`s and `static`s.
    pub(crate) value_types: HashMap<String, syn::Type>,
    items: HashSet<String>,
    imports: Imports,
    /// The module's structs, enums and unions: its own nominal types.
    pub(crate) types: HashSet<String>,
    /// `(type, field)` → the field's written type, for the module's structs
    /// (tuple fields by index, `"0"`).
    pub(crate) fields: HashMap<(String, String), syn::Type>,
    /// The `macro_rules!` macros the module defines, by name, with the index
    /// of the defining item (textual scope: a use sees the definitions before
    /// it).
    pub(crate) macros: HashMap<String, Vec<(usize, Rc<MacroDef>)>>,
    /// The enclosing module and the index of this module's `mod` item in
    /// it; `None` for the annotated module.
    pub(crate) parent: Option<(ScopeId, usize)>,
    /// The inline modules nested here that are part of the program, by name.
    children: HashMap<String, ScopeId>,
}

/// Every module of the program — the annotated module ([`ROOT`]) and the
/// inline modules nested in it — and what they share.
#[derive(Default)]
pub(crate) struct Modules {
    /// Per module, its names; the annotated module first, then the nested
    /// ones in source (pre-)order.
    pub(crate) scopes: Vec<ModuleScope>,
    /// The annotated module's name.
    pub(crate) name: String,
    /// Method name → every module method (impl or trait default) of that
    /// name, in any of the modules.
    pub(crate) method_names: HashMap<String, Vec<FnId>>,
    /// Per function, its return type when it resolves at the annotated
    /// module's level (`()` when none is written).
    pub(crate) returns: Vec<Option<syn::Type>>,
    /// The one-segment `crate = …` path, another absolute name of `prescient`.
    pub(crate) krate: Option<String>,
    /// The methods that may be called on a value of a type that is not the
    /// module's (trait default methods, and methods of trait impls for types
    /// that are not the module's: `impl Ext for Vec<u64>`, `impl<T> Ext for
    /// T`); inherent methods and trait impls for the module's types are not.
    pub(crate) foreign_receivers: HashSet<FnId>,
    /// Module functions named as values outside any function body (in a
    /// `const` or `static`: `static TABLE: [fn(u64); 1] = [walk];`).
    pub(crate) address_taken: Vec<FnId>,
}

/// What a module imports.
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
    /// Names imported by a path that may lead into the program's modules
    /// (`use super::even;`, `use self::odd::odd;`, `use odd::odd;`,
    /// `use crate::…`), with that path: [`Modules::resolve`] follows it.
    within: HashMap<String, Vec<String>>,
    /// The paths of glob imports that may lead into the program's modules
    /// (`use super::*;`).
    program_globs: Vec<Vec<String>>,
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
    /// The index of the item that defines the function in its module.
    pub(crate) item: usize,
    /// The module the function is defined in.
    pub(crate) scope: ScopeId,
}

/// What a path in value position denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// A local binding.
    Local,
    /// A module function.
    Module(FnId),
    /// A module function, through a `crate::…` path that names the annotated
    /// module by its name (`crate::app::prog::even` for `prog`'s `even`):
    /// the macro cannot tell where the annotated module sits in its crate,
    /// so the path may lead there or to another module of that name.
    ByName(FnId),
    /// A path inside `prescient` (crate name stripped).
    Prescient(Vec<String>),
    /// Anything else.
    Unknown,
}

/// Whether an item of a program's module is an inline module whose code is
/// part of the program: not `#[cfg]`-gated, with a body, and not annotated
/// with `#[task_program]` itself (such a module is a program of its own).
pub(crate) fn is_nested_program_module(item: &syn::Item) -> bool {
    match item {
        syn::Item::Mod(m) => {
            m.content.is_some()
                && !cfg_gated(&m.attrs)
                && !m.attrs.iter().any(|a| {
                    a.path()
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "task_program")
                })
        }
        _ => false,
    }
}

/// What [`Modules::collect`] gathers while it walks the modules, besides
/// the scopes.
struct Collecting<'a> {
    sources: Vec<FnSource<'a>>,
    /// Methods of trait impls, with their module and the impl's self type:
    /// whether they take foreign receivers is known once every type is.
    trait_impl_methods: Vec<(FnId, ScopeId, &'a syn::Type)>,
    errors: Option<syn::Error>,
}

impl Modules {
    /// Collects the names of the annotated module's items and of the inline
    /// modules nested in it. Returns them with the functions in source order
    /// (a function's index is its [`FnId`]).
    ///
    /// Fails on an item the macro would emit (`PARAMS`, `ANALYSIS`) already
    /// defined by the annotated module.
    pub(crate) fn collect<'a>(
        name: &syn::Ident,
        items: &'a [syn::Item],
        krate: Option<&syn::Path>,
    ) -> syn::Result<(Modules, Vec<FnSource<'a>>)> {
        let mut modules = Modules {
            name: name.to_string(),
            krate: krate
                .and_then(|p| p.get_ident().or_else(|| single_segment(p)))
                .map(|n| n.to_string()),
            ..Modules::default()
        };
        let mut work = Collecting {
            sources: Vec::new(),
            trait_impl_methods: Vec::new(),
            errors: None,
        };
        modules.collect_scope(items, None, Vec::new(), &mut work);
        if let Some(e) = work.errors {
            return Err(e);
        }
        for (id, scope, self_ty) in work.trait_impl_methods {
            if !modules.scopes[scope].is_module_type(self_ty) {
                modules.foreign_receivers.insert(id);
            }
        }
        for (id, src) in work.sources.iter().enumerate() {
            if src.impl_type.is_some() {
                let method = src.sig.ident.to_string();
                modules.method_names.entry(method).or_default().push(id);
            }
        }
        // Functions named as values in `const`s and `static`s (of a module
        // or its impls): a call through a value may reach them.
        let mut taken = NamedFunctions {
            modules: &modules,
            scope: ROOT,
            found: Vec::new(),
        };
        for (scope, items) in program_modules(items) {
            taken.scope = scope;
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
        }
        modules.address_taken = taken.found;
        Ok((modules, work.sources))
    }

    /// Collects one module's names (and, recursively, those of the modules
    /// nested in it) into a new scope; returns its id.
    fn collect_scope<'a>(
        &mut self,
        items: &'a [syn::Item],
        parent: Option<(ScopeId, usize)>,
        path: Vec<String>,
        work: &mut Collecting<'a>,
    ) -> ScopeId {
        let id = self.scopes.len();
        // Reserved now, filled in at the end: nested modules get the ids
        // after this one.
        self.scopes.push(ModuleScope::default());
        let mut scope = ModuleScope {
            parent,
            ..ModuleScope::default()
        };
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
                if parent.is_none() && ["PARAMS", "ANALYSIS"].contains(&name.to_string().as_str()) {
                    let e = syn::Error::new(
                        name.span(),
                        format!("#[task_program] emits `{name}` in this module; rename this item"),
                    );
                    match &mut work.errors {
                        Some(all) => all.combine(e),
                        None => work.errors = Some(e),
                    }
                }
                scope.items.insert(name.to_string());
            }
            let prefix = |name: String| match path.is_empty() {
                true => name,
                false => format!("{}::{name}", path.join("::")),
            };
            match item {
                syn::Item::Fn(f) => {
                    scope
                        .fns
                        .insert(f.sig.ident.to_string(), work.sources.len());
                    work.sources.push(FnSource {
                        name: prefix(f.sig.ident.to_string()),
                        span: f.sig.ident.span(),
                        sig: &f.sig,
                        block: &f.block,
                        impl_generics: None,
                        impl_type: None,
                        self_ty: None,
                        item: index,
                        scope: id,
                    });
                }
                syn::Item::Impl(imp) => {
                    let ty_name = impl_type_name(&imp.self_ty);
                    for it in &imp.items {
                        if let syn::ImplItem::Fn(f) = it {
                            if !cfg_gated(&f.attrs) {
                                if imp.trait_.is_some() {
                                    work.trait_impl_methods.push((
                                        work.sources.len(),
                                        id,
                                        &imp.self_ty,
                                    ));
                                }
                                add_method(
                                    &mut scope,
                                    work,
                                    (&ty_name, &prefix(ty_name.clone())),
                                    (&f.sig, &f.block),
                                    (&imp.generics, Some(&imp.self_ty)),
                                    (index, id),
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
                                self.foreign_receivers.insert(work.sources.len());
                                add_method(
                                    &mut scope,
                                    work,
                                    (&tr_name, &prefix(tr_name.clone())),
                                    (&f.sig, block),
                                    (&tr.generics, None),
                                    (index, id),
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
                syn::Item::Mod(m) if is_nested_program_module(item) => {
                    if let Some((_, nested)) = &m.content {
                        let mut inner = path.clone();
                        inner.push(m.ident.to_string());
                        let child = self.collect_scope(nested, Some((id, index)), inner, work);
                        scope.children.insert(m.ident.to_string(), child);
                    }
                }
                _ => {}
            }
        }

        // Imports: crate aliases first (`use prescient as p;` may be used by
        // `use p::join;` in any order), then everything else.
        if !scope.items.contains("prescient") {
            scope.imports.crate_aliases.insert("prescient".to_string());
        }
        if let Some(name) = &self.krate {
            if !scope.items.contains(name) {
                scope.imports.crate_aliases.insert(name.clone());
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
        let children: HashSet<String> = scope.children.keys().cloned().collect();
        for item in items {
            if cfg_gated(item_attrs(item)) {
                continue;
            }
            if let syn::Item::Use(u) = item {
                let leading = u.leading_colon.is_some();
                collect_use(&u.tree, &[], (leading, &children), &mut scope.imports);
            }
        }
        self.scopes[id] = scope;
        id
    }

    /// What a path denotes in the module `scope`, by its segments (at least
    /// one): a module function or method (of this module or, through
    /// `self::`, `super::`, a nested module's name, a `use` or a glob import,
    /// of another module of the program), a path inside `prescient` (crate
    /// name stripped), or something unknown.
    pub(crate) fn resolve(&self, scope: ScopeId, segs: &[String]) -> Resolved {
        self.resolve_in(scope, segs, 0)
    }

    fn resolve_in(&self, scope: ScopeId, segs: &[String], hops: u32) -> Resolved {
        let (Some(first), Some(s)) = (segs.first(), self.scopes.get(scope)) else {
            return Resolved::Unknown;
        };
        if hops > MAX_IMPORT_HOPS {
            return Resolved::Unknown;
        }
        match first.as_str() {
            "self" if segs.len() > 1 => return self.resolve_in(scope, &segs[1..], hops + 1),
            // Above the annotated module: outside the program.
            "super" => {
                return match s.parent {
                    Some((parent, _)) if segs.len() > 1 => {
                        self.resolve_in(parent, &segs[1..], hops + 1)
                    }
                    _ => Resolved::Unknown,
                }
            }
            "crate" => return self.resolve_crate_path(&segs[1..], hops),
            _ => {}
        }
        if segs.len() == 1 {
            if let Some(&id) = s.fns.get(first) {
                return Resolved::Module(id);
            }
        }
        if segs.len() == 2 {
            if let Some(&id) = s.methods.get(&(first.clone(), segs[1].clone())) {
                return Resolved::Module(id);
            }
        }
        if s.imports.crate_aliases.contains(first) {
            return Resolved::Prescient(segs[1..].to_vec());
        }
        if let Some(inner) = s.imports.names.get(first) {
            let mut full = inner.clone();
            full.extend(segs[1..].iter().cloned());
            return Resolved::Prescient(full);
        }
        if segs.len() > 1 {
            if let Some(&child) = s.children.get(first) {
                return self.resolve_in(child, &segs[1..], hops + 1);
            }
        }
        if let Some(path) = s.imports.within.get(first) {
            let mut full = path.clone();
            full.extend(segs[1..].iter().cloned());
            return self.resolve_in(scope, &full, hops + 1);
        }
        if s.items.contains(first) || s.imports.others.contains_key(first) {
            return Resolved::Unknown;
        }
        if s.imports.globs.contains("")
            && (PRESCIENT_GLOB_NAMES.contains(&first.as_str())
                || LIBRARY_LOOPS
                    .iter()
                    .any(|l| l.module.is_empty() && l.name == first))
        {
            return Resolved::Prescient(segs.to_vec());
        }
        if let Some(l) = LIBRARY_LOOPS
            .iter()
            .find(|l| !l.module.is_empty() && l.name == first && s.imports.globs.contains(l.module))
        {
            let mut full = vec![l.module.to_string()];
            full.extend(segs.iter().cloned());
            return Resolved::Prescient(full);
        }
        // What a glob import of one of the program's modules brings in.
        for glob in &s.imports.program_globs {
            let mut full = glob.clone();
            full.extend(segs.iter().cloned());
            match self.resolve_in(scope, &full, hops + 1) {
                Resolved::Unknown => {}
                found => return found,
            }
        }
        Resolved::Unknown
    }

    /// What `crate::rest` denotes: the macro does not know where the
    /// annotated module sits in its crate, so a path through a module of
    /// the annotated module's name that leads to one of its functions is
    /// [`Resolved::ByName`] (possibly that function); anything else is
    /// unknown.
    fn resolve_crate_path(&self, rest: &[String], hops: u32) -> Resolved {
        for (k, seg) in rest.iter().enumerate() {
            if *seg != self.name || k + 1 >= rest.len() {
                continue;
            }
            match self.resolve_in(ROOT, &rest[k + 1..], hops + 1) {
                Resolved::Module(id) | Resolved::ByName(id) => return Resolved::ByName(id),
                _ => {}
            }
        }
        Resolved::Unknown
    }
}

/// Each of the program's modules with its items: the annotated module
/// ([`ROOT`]) and the nested ones, in the order [`Modules::collect`] numbers
/// them.
pub(crate) fn program_modules(items: &[syn::Item]) -> Vec<(ScopeId, &[syn::Item])> {
    fn walk<'a>(items: &'a [syn::Item], out: &mut Vec<(ScopeId, &'a [syn::Item])>) {
        out.push((out.len(), items));
        for item in items {
            if let (true, syn::Item::Mod(m)) = (is_nested_program_module(item), item) {
                if let Some((_, nested)) = &m.content {
                    walk(nested, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(items, &mut out);
    out
}

impl ModuleScope {
    /// Whether the module defines or imports `name` (an item, compiled out
    /// or not, or a `use`): a name written alone here then means that, not
    /// what the prelude or the extern prelude would give it.
    pub(crate) fn defines(&self, name: &str) -> bool {
        self.items.contains(name)
            || self.imports.others.contains_key(name)
            || self.imports.names.contains_key(name)
            || (self.imports.crate_aliases.contains(name) && name != "prescient")
    }

    /// Whether `name` denotes the `prescient` crate here (`prescient`,
    /// `use prescient as p`, `crate = rt`).
    pub(crate) fn is_crate_alias(&self, name: &str) -> bool {
        self.imports.crate_aliases.contains(name)
    }

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
/// body; `display`: the same prefixed by a nested module's path) as a
/// function of the module, findable by `(owner, name)` and, for calls on
/// values of unknown type, by its name alone. `generics`: the impl's or
/// trait's generics, and the impl's self type; `at`: the defining item's
/// index and the module.
fn add_method<'a>(
    scope: &mut ModuleScope,
    work: &mut Collecting<'a>,
    (owner, display): (&str, &str),
    (sig, block): (&'a syn::Signature, &'a syn::Block),
    (generics, self_ty): (&'a syn::Generics, Option<&'a syn::Type>),
    (item, module): (usize, ScopeId),
) {
    let method = sig.ident.to_string();
    let id = work.sources.len();
    scope
        .methods
        .entry((owner.to_owned(), method.clone()))
        .or_insert(id);
    work.sources.push(FnSource {
        name: format!("{display}::{method}"),
        span: sig.ident.span(),
        sig,
        block,
        impl_generics: Some(generics),
        impl_type: Some(owner.to_owned()),
        self_ty,
        item,
        scope: module,
    });
}

/// Module functions named by paths in expressions outside function bodies.
struct NamedFunctions<'s> {
    modules: &'s Modules,
    /// The module whose items are visited.
    scope: ScopeId,
    found: Vec<FnId>,
}

impl<'ast> Visit<'ast> for NamedFunctions<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() && p.path.leading_colon.is_none() {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if !segs.is_empty() {
                if let Resolved::Module(id) | Resolved::ByName(id) =
                    self.modules.resolve(self.scope, &segs)
                {
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

/// Records what a `use` tree imports. `leading_colon`: the `use` starts with
/// `::`; `children`: the nested modules of the program declared in the
/// importing module (a path through one of them, or through `self`,
/// `super` or `crate`, may lead into the program).
fn collect_use(
    tree: &syn::UseTree,
    prefix: &[String],
    (leading_colon, children): (bool, &HashSet<String>),
    imports: &mut Imports,
) {
    let from_prescient = |path: &[String], imports: &Imports| match path.first() {
        Some(first) if leading_colon => first == "prescient",
        Some(first) => imports.crate_aliases.contains(first),
        None => false,
    };
    let within = |path: &[String]| {
        !leading_colon
            && path.first().is_some_and(|first| {
                matches!(first.as_str(), "self" | "super" | "crate") || children.contains(first)
            })
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
            if within(&full) {
                imports.within.insert(name.clone(), full.clone());
            }
            imports.others.insert(name, full);
        }
    };
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix.to_vec();
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, &prefix, (leading_colon, children), imports);
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
            } else if within(prefix) {
                imports.program_globs.push(prefix.to_vec());
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_use(t, prefix, (leading_colon, children), imports);
            }
        }
    }
}

#[cfg(test)]
mod tests;
