//! The lowering: builds the [program model](crate::model) of an annotated
//! module from its syn AST.
//!
//! [`build_with`] collects the module's names first
//! ([`ModuleScope::collect`]), then walks each function's signature and body
//! once with a [`FnBuilder`] (which tracks the body's bindings lexically),
//! keeping only what the analyses need.
//!
//! The macro has no name resolution; the builder resolves names lexically and
//! conservatively:
//!
//! * **Spawn constructs** are recognised only as `prescient::…` paths
//!   (`::prescient::join`, `prescient::spawn`), names the module imports from
//!   `prescient` (`use prescient::{join, spawn as sp}`, `use prescient as p`,
//!   `use prescient::*` for the names in
//!   `module_scope::PRESCIENT_GLOB_NAMES`), and the
//!   methods [`SPAWN_METHODS`] called on a *scope value*: a parameter of a
//!   closure passed to a `prescient` function (`prescient::scope(|s| s.spawn(…))`)
//!   or to a scope spawn, a binding typed with a `prescient` scope type
//!   ([`SCOPE_TYPES`]) or initialised by one of its associated functions
//!   (`let g = TaskGroup::new()`). A local binding of the same name shadows all
//!   of these. `for_range(range, grain, body)` and `for_range_chunked(…)`,
//!   recognised the same way as `join`, are range loops: a
//!   [`LoopKind::RangeLoop`] around the site's spawn of `body`. `rayon::join`, `Path::join`, `thread::spawn` and
//!   `std::thread::scope(|s| s.spawn(…))` are never spawns.
//! * **Calls into the module** are calls of a module function by its name (not
//!   shadowed by a local), `self::f`, `Type::method`, `Self::method`, and
//!   `self.method()` inside an `impl`; a module function used as a value (e.g.
//!   `spawn(worker)`) counts as a call. Every other call is invisible.
//! * **Types** become `size_of::<T>()` only when they resolve at module level: no
//!   type or const parameter of the function or its `impl`, no `Self`, no item
//!   or `use` local to an enclosing block, no `_`, `impl Trait` or macro.
//!   Lifetime parameters of the function are replaced by `'_`.
//! * **Loop bounds** are literals or module-level `const`s not shadowed by a
//!   generic, const parameter or body-local binding or item.
//!
//! * **Possible calls**: a method call on a value (`l.sum()`) or a
//!   `Type::method` path the module does not define is [`Callee::Maybe`] any
//!   module method of that name (trait default methods included) that can
//!   take the receiver — on a receiver whose type is visibly not the
//!   module's, only methods of traits the module implements for types not
//!   its own (`receivers`) — so recursion through it is in the call graph;
//!   so is an identifier naming a module function in a macro's tokens that
//!   do not parse as expressions.
//! * **Calls through values** (function pointers, closures in variables,
//!   fields or parameters, tasks passed as values) are [`Callee::Indirect`]:
//!   every module function that escapes into a value (`values`).
//! * **The module's `macro_rules!` macros** are expanded at their
//!   invocations and lowered as the code they expand to (`expand`).
//! * **Macro arguments** of other macros that parse as comma-separated
//!   expressions (or `expr; expr`) are modelled like code; spawns there are
//!   sites, not rewritten.
//! * **What is not seen** is marked for the report: [`Node::Unseen`] next to
//!   each invisible, by-name or indirect call (unknown sizes, trip counts and
//!   macros are read from their own nodes).
//! * **Stored task closures**: `let l = move || …;` keeps the closure's body
//!   aside; a spawn construct (or a call `l()`) that takes `l` gets it as its
//!   task, otherwise it counts at the end of its block.
//! * **`#[cfg]`-gated** items, methods, statements, parameters, arms and
//!   fields are skipped ([`cfg_gated`]).
//! * **Sizes** of declarations and temporaries: see `stack`.
//!
//! Invisible to the model, and estimated instead: the expansion of other
//! macros, items nested in bodies or in inner modules, calls through trait
//! objects (but by method name), and calls of values made outside the
//! module.

use crate::macros::MacroDef;
use crate::model::{
    seq, CallKey, Callee, FnId, Function, LoopKind, Node, Program, Site, SiteId, SiteKind, Size,
    Target, Trip, UnseenKind,
};
use crate::module_scope::{cfg_gated, item_names, FnSource, ModuleScope, Resolved};
use crate::stack;
use crate::sym::{self as symb, Bound, BoundOp, Sym};
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

mod expand;
mod receivers;
mod values;

/// `prescient` types whose values are scope values (their `spawn`/`task`
/// methods are spawn sites).
const SCOPE_TYPES: &[&str] = &["Scope", "TaskGroup", "Dataflow"];
/// Methods on a scope value that spawn a task.
const SPAWN_METHODS: &[&str] = &["spawn", "task"];
/// Iterator methods whose closure argument runs once per element, whatever the
/// receiver.
const ALWAYS_LOOP_METHODS: &[&str] = &[
    "for_each",
    "try_for_each",
    "for_each_with",
    "for_each_init",
    "retain",
];
/// Iterator methods whose closure argument runs once per element when the
/// receiver is recognisably an iterator (a range or an iterator adaptor chain).
const ITER_LOOP_METHODS: &[&str] = &[
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "fold",
    "try_fold",
    "any",
    "all",
    "find",
    "find_map",
    "position",
    "inspect",
    "take_while",
    "skip_while",
    "map_while",
    "scan",
    "reduce",
    "max_by_key",
    "min_by_key",
    "partition",
];
/// Methods that make a receiver recognisably an iterator.
const ITER_SOURCES: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "chars",
    "bytes",
    "lines",
    "windows",
    "chunks",
    "chunks_mut",
    "chunks_exact",
    "enumerate",
    "zip",
    "rev",
    "step_by",
    "skip",
    "take",
    "par_iter",
    "par_iter_mut",
    "into_par_iter",
    "keys",
    "values",
    "values_mut",
    "drain",
    "split_whitespace",
    "copied",
    "cloned",
];
/// Iterator adaptors that keep the number of elements.
const COUNT_PRESERVING: &[&str] = &[
    "rev",
    "into_iter",
    "iter",
    "into_par_iter",
    "enumerate",
    "copied",
    "cloned",
    "map",
    "inspect",
];

// The sizes the lowering writes. Their estimates are the stack analysis's
// constants; the constructors live here so that the model depends on no
// analysis.
impl Size {
    /// `size_of::<ty>()`.
    fn of_type(ty: syn::Type) -> Size {
        Size::Known(Sym::SizeOf(Box::new(ty)))
    }

    /// An unknown size with the default estimate.
    fn unknown() -> Size {
        Size::Unknown(Sym::Lit(stack::UNKNOWN_LOCAL_BYTES))
    }

    /// An upper bound of the size of a part of a value of this size (a
    /// pattern binding): the whole, and at least a fat pointer (the binding
    /// may be a reference into it).
    fn part(&self) -> Size {
        match self {
            Size::Known(s) => Size::Known(symb::max([s.clone(), Sym::Lit(stack::REFERENCE_BYTES)])),
            Size::Unknown(_) => Size::unknown(),
        }
    }
}

/// Builds the model of an inline module.
///
/// Fails only on what `emit` could not handle: a module without a body, or an
/// item the macro would emit (`PARAMS`, `ANALYSIS`) already
/// defined by the module.
#[cfg(test)]
pub fn build(module: &syn::ItemMod) -> syn::Result<Program> {
    build_with(module, None)
}

/// Builds the model of a module, with the path the attribute's `crate = …`
/// argument gave the `prescient` crate (a one-segment path is one more name of the crate).
pub fn build_with(module: &syn::ItemMod, krate: Option<&syn::Path>) -> syn::Result<Program> {
    let Some((_, items)) = &module.content else {
        return Err(syn::Error::new(
            module.ident.span(),
            "#[task_program] needs an inline module with a body: `mod name { ... }`",
        ));
    };
    let (mut scope, sources) = ModuleScope::collect(items, krate)?;
    scope.returns = sources.iter().map(return_type).collect();
    let mut sites = Vec::new();
    let mut functions = Vec::new();
    let mut escaping = Vec::new();
    for (id, src) in sources.iter().enumerate() {
        let mut b = FnBuilder::new(&scope, id, src, &mut sites, &mut escaping);
        let body = b.function(src.sig, src.block);
        functions.push(Function {
            name: src.name.clone(),
            span: src.span,
            body,
        });
    }
    // Calls through values reach whatever escaped into a value anywhere in
    // the module, which is known only now.
    let escaping = values::escaping_set(&escaping, &scope.address_taken);
    for f in &mut functions {
        values::fill_indirect(&mut f.body, &escaping);
    }
    Ok(Program {
        module: module.ident.to_string(),
        functions,
        sites,
    })
}

/// A function's return type, when it resolves at module level: no generic
/// parameter of the function or its `impl`/trait, no `Self`, no `impl Trait`.
fn return_type(src: &FnSource<'_>) -> Option<syn::Type> {
    match &src.sig.output {
        syn::ReturnType::Default => Some(syn::parse_quote!(())),
        syn::ReturnType::Type(_, ty) => {
            let generics = generic_names(src).0;
            let mut check = ResolveCheck {
                generics: &generics,
                builder: None,
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

/// The generic type/const parameter names and the lifetime names of a
/// function and its `impl` or trait.
fn generic_names(src: &FnSource<'_>) -> (HashSet<String>, HashSet<String>) {
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

/// What a scope value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScopeKind {
    Scope,
    Group,
    Dataflow,
}

impl ScopeKind {
    fn site_kind(self) -> SiteKind {
        match self {
            ScopeKind::Scope => SiteKind::ScopeSpawn,
            ScopeKind::Group => SiteKind::GroupSpawn,
            ScopeKind::Dataflow => SiteKind::DataflowTask,
        }
    }

    /// The scope kind of a `prescient` type name (one of [`SCOPE_TYPES`]).
    fn of_type(name: &str) -> Option<ScopeKind> {
        const KINDS: [ScopeKind; 3] = [ScopeKind::Scope, ScopeKind::Group, ScopeKind::Dataflow];
        SCOPE_TYPES
            .iter()
            .position(|t| *t == name)
            .map(|i| KINDS[i])
    }
}

/// A name bound inside a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binding {
    /// A variable.
    Local,
    /// A variable holding a scope value.
    Scope(ScopeKind),
    /// A variable holding a closure written in its `let`: the index of its
    /// body in [`FnBuilder::closures`] (passed to a spawn construct later, it
    /// is that task's body).
    Closure(usize),
    /// An item or `use` local to a block.
    Item,
}

/// A binding with what is known of its value.
#[derive(Clone, Debug)]
struct Entry {
    binding: Binding,
    /// Its type, when known and resolving at module level.
    ty: Option<syn::Type>,
    /// An upper bound of its size.
    size: Size,
    /// Its type is visibly not the module's (see `receivers`).
    foreign: bool,
    /// The module struct its written type names (`x: &Node`), whose field
    /// types are known.
    owner: Option<String>,
}

impl Entry {
    /// A binding of which nothing but its size is known.
    fn plain(binding: Binding, size: Size) -> Entry {
        Entry {
            binding,
            ty: None,
            size,
            foreign: false,
            owner: None,
        }
    }
}

/// Builds the body of one function, with a lexical environment.
struct FnBuilder<'a> {
    module: &'a ModuleScope,
    fn_id: FnId,
    impl_type: Option<String>,
    generics: HashSet<String>,
    lifetimes: HashSet<String>,
    env: Vec<HashMap<String, Entry>>,
    sites: &'a mut Vec<Site>,
    /// Bodies of closures bound by `let`, until a spawn construct takes one
    /// as its task (or the block ends and it is counted where it was written).
    closures: Vec<Option<Node>>,
    /// Per parameter position: its name and bit width when it is a non-`mut`
    /// identifier of a primitive integer type (for [`Node::Call::halves`]).
    params: Vec<Option<(String, u32)>>,
    /// Inside the parsed arguments of a macro: calls there are not rewritten.
    in_macro: bool,
    /// The expression whose temporary is a `let` binding's storage (counted
    /// by the binding's declaration, not again as a temporary), by address.
    bound_init: usize,
    /// The same, for a `let` initializer that is a call: the call's address.
    bound_call: usize,
    /// Module functions that escape into values anywhere in the module —
    /// named as values, or called by closures held in values — with whether
    /// a closure calls them in a task or a loop: what a call through a
    /// value may reach (see `values`). Shared by every function's builder.
    escaping: &'a mut Vec<Target>,
    /// Per closure kept aside (`closures`), the module functions its body
    /// calls, and whether it calls through a value itself.
    closure_targets: Vec<(Vec<Target>, bool)>,
    /// `macro_rules!` macros defined in the body's blocks so far, innermost
    /// last.
    local_macros: Vec<(String, Rc<MacroDef>)>,
    /// Levels of local macro expansion being lowered.
    macro_depth: u32,
    /// Levels of local macro expansion being typed (`expr_type`, which
    /// does not lower).
    type_depth: std::cell::Cell<u32>,
    /// Local macro expansions made so far (lowered or typed).
    expansions: std::cell::Cell<u32>,
    /// The index of the module item that defines the function (a module
    /// macro is in scope from its definition on).
    item: usize,
    /// The `impl`'s self type, for the receiver `self`.
    self_ty: Option<syn::Type>,
}

/// The bit width of a primitive integer type.
fn int_bits(ty: &syn::Type) -> Option<u32> {
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
fn is_primitive(ty: &syn::Type) -> bool {
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

impl<'a> FnBuilder<'a> {
    fn new(
        module: &'a ModuleScope,
        fn_id: FnId,
        src: &FnSource<'_>,
        sites: &'a mut Vec<Site>,
        escaping: &'a mut Vec<Target>,
    ) -> Self {
        let (generics, lifetimes) = generic_names(src);
        let params = src
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(pt) if !cfg_gated(&pt.attrs) => match &*pt.pat {
                    syn::Pat::Ident(pi) if pi.mutability.is_none() && pi.subpat.is_none() => {
                        int_bits(&pt.ty).map(|bits| (pi.ident.to_string(), bits))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        FnBuilder {
            module,
            fn_id,
            impl_type: src.impl_type.clone(),
            generics,
            lifetimes,
            env: Vec::new(),
            sites,
            closures: Vec::new(),
            params,
            in_macro: false,
            bound_init: 0,
            bound_call: 0,
            escaping,
            closure_targets: Vec::new(),
            local_macros: Vec::new(),
            macro_depth: 0,
            type_depth: std::cell::Cell::new(0),
            expansions: std::cell::Cell::new(0),
            item: src.item,
            self_ty: src.self_ty.cloned(),
        }
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.env.iter().rev().find_map(|s| s.get(name))
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.entry(name).map(|e| e.binding)
    }

    /// Binds a name whose value is not known.
    fn bind(&mut self, name: String, b: Binding) {
        let size = match b {
            // A scope value is a reference.
            Binding::Scope(_) => Size::Known(Sym::Lit(stack::REFERENCE_BYTES)),
            _ => Size::unknown(),
        };
        self.bind_entry(name, Entry::plain(b, size));
    }

    fn bind_entry(&mut self, name: String, entry: Entry) {
        if let Some(top) = self.env.last_mut() {
            top.insert(name, entry);
        }
    }

    fn function(&mut self, sig: &syn::Signature, block: &syn::Block) -> Node {
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
    fn typed_binding(&mut self, pat: &syn::Pat, ty: &syn::Type, init: Option<&syn::Expr>) -> Node {
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
    fn array_with_inferred_len(&self, ty: &syn::Type, init: &syn::Expr) -> Option<syn::Type> {
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
    fn untyped_binding(
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
    fn pattern_bindings(&mut self, pat: &syn::Pat, matched: Size) -> Node {
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

    fn block(&mut self, block: &syn::Block) -> Node {
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

    fn stmt(&mut self, stmt: &syn::Stmt) -> Node {
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

    fn exprs<'e>(&mut self, exprs: impl IntoIterator<Item = &'e syn::Expr>) -> Node {
        let parts: Vec<Node> = exprs.into_iter().map(|e| self.expr(e)).collect();
        seq(parts)
    }

    fn expr(&mut self, e: &syn::Expr) -> Node {
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
    fn closure(&mut self, c: &syn::ExprClosure, params: Binding) -> Node {
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

    /// The closure bound to a local the expression names (`l`, `&l`), if
    /// its body has not been taken yet: takes it.
    fn take_closure(&mut self, e: &syn::Expr) -> Option<Node> {
        let k = self.closure_binding(e)?;
        self.closures.get_mut(k)?.take()
    }

    /// The body of a task passed to a spawn construct: a closure (written
    /// there, or bound by a `let` before), a module function, or something
    /// invisible.
    fn task(&mut self, arg: &syn::Expr, params: Binding) -> Node {
        if let Some(body) = self.take_closure(arg) {
            return body;
        }
        // A closure kept aside whose body an earlier construct took: it runs
        // its callees again.
        if let Some(k) = self.closure_binding(arg) {
            return self.indirect_call(compact(arg), Node::Ops(0), arg.span(), Some(k));
        }
        match strip(arg) {
            syn::Expr::Closure(c) => self.closure(c, params),
            syn::Expr::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Module(id) => Node::Call {
                    callee: Callee::Module(id),
                    args: Box::new(Node::Ops(0)),
                    span: arg.span(),
                    halves: None,
                },
                // A task held in a variable or parameter.
                Resolved::Local => self.indirect_call(compact(arg), Node::Ops(0), arg.span(), None),
                Resolved::Prescient(_) | Resolved::Unknown => {
                    self.invisible(UnseenKind::Call, compact(arg), Node::Ops(0), arg.span())
                }
            },
            // A task made by an expression (`self.task`, `make()`).
            other => {
                let value = self.expr(other);
                self.indirect_call(compact(other), value, arg.span(), None)
            }
        }
    }

    /// A call of something invisible (`what`, as written), after `args`,
    /// with its note for the report.
    fn invisible(&self, kind: UnseenKind, what: String, args: Node, span: Span) -> Node {
        noted_call(kind, what, Callee::External, args, span)
    }

    fn new_site(
        &mut self,
        kind: SiteKind,
        span: Span,
        rewrite: Option<(CallKey, &'static str)>,
    ) -> SiteId {
        self.sites.push(Site {
            kind,
            function: self.fn_id,
            span,
            // Calls parsed out of a macro's tokens are not in the module.
            rewrite: if self.in_macro { None } else { rewrite },
        });
        self.sites.len() - 1
    }

    fn call(&mut self, call: &syn::ExprCall) -> Node {
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
            Resolved::Prescient(path) => {
                let last = path.last().map(String::as_str).unwrap_or("");
                let module_path = path[..path.len().saturating_sub(1)]
                    .iter()
                    .all(|s| s.chars().next().is_some_and(|c| c.is_lowercase()));
                let construct = match last {
                    "join" if module_path => Some((SiteKind::Join, "join_at")),
                    "spawn" if module_path => Some((SiteKind::Spawn, "spawn_at")),
                    "for_range" if module_path && call.args.len() == 3 => {
                        return self.range_loop(call, "for_range_at");
                    }
                    "for_range_chunked" if module_path && call.args.len() == 3 => {
                        return self.range_loop(call, "for_range_chunked_at");
                    }
                    _ => None,
                };
                if let Some((kind, at)) = construct {
                    let site = self.new_site(kind, span, Some((CallKey::of(call), at)));
                    let tasks = call
                        .args
                        .iter()
                        .map(|a| self.task(a, Binding::Local))
                        .collect();
                    return Node::Spawn {
                        site,
                        args: Box::new(Node::Ops(0)),
                        tasks,
                    };
                }
                // Any other `prescient` function: closures it receives get
                // scope values as parameters.
                let kind = if last.contains("dataflow") {
                    ScopeKind::Dataflow
                } else {
                    ScopeKind::Scope
                };
                let args: Vec<Node> = call
                    .args
                    .iter()
                    .map(|a| match strip(a) {
                        syn::Expr::Closure(c) => self.closure(c, Binding::Scope(kind)),
                        other => self.expr(other),
                    })
                    .collect();
                external_call(seq(args), span)
            }
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

    /// A range loop, `for_range(range, grain, body)` or
    /// `for_range_chunked(…)` (`at`: the `__private` function the call
    /// becomes): the range and grain are evaluated in the calling task, then
    /// the body is the site's task, once per index (or per chunk) inside a
    /// [`LoopKind::RangeLoop`]. So the site counts as in a loop (λ), its
    /// effort is one run of the body, and a call back into the module from
    /// the body is made inside a task (ρ) and inside a loop.
    fn range_loop(&mut self, call: &syn::ExprCall, at: &'static str) -> Node {
        let span = call.span();
        let site = self.new_site(SiteKind::RangeLoop, span, Some((CallKey::of(call), at)));
        let (range, grain, body) = (&call.args[0], &call.args[1], &call.args[2]);
        let args = self.exprs([range, grain]);
        let trip = match (self.iter_trip(range), at == "for_range_chunked_at") {
            (trip, false) => trip,
            // Chunks of at most `grain` (0 is taken as 1): at least
            // ⌈n / grain⌉ of them, when both are literal.
            (Trip::Literal(n), true) => match self.bound(grain).and_then(|g| g.literal()) {
                Some(g) => Trip::Literal(n.div_ceil(u64::try_from(g.max(1)).unwrap_or(u64::MAX))),
                None => Trip::Unknown,
            },
            (_, true) => Trip::Unknown,
        };
        let task = self.task(body, Binding::Local);
        seq([
            args,
            Node::Loop {
                kind: LoopKind::RangeLoop,
                trip,
                body: Box::new(Node::Spawn {
                    site,
                    args: Box::new(Node::Ops(0)),
                    tasks: vec![task],
                }),
                span,
            },
        ])
    }

    /// The binding of a path's first segment, if it is a local one.
    fn lookup_first(&self, path: &syn::Path) -> Option<Binding> {
        if path.leading_colon.is_some() {
            return None;
        }
        self.lookup(&path.segments.first()?.ident.to_string())
    }

    /// For a call of this very function: the bit width of an integer
    /// parameter passed halved in its own position (`n / 2`, `n >> 1`).
    /// `offset`: the position of the first argument (1 for a method call,
    /// whose receiver is parameter 0).
    fn halving<'e>(
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

    /// Whether `name` here is the function's parameter (not shadowed).
    fn is_parameter(&self, name: &str) -> bool {
        self.env
            .iter()
            .rposition(|scope| scope.contains_key(name))
            .is_some_and(|depth| depth == 0)
    }

    /// The temporary holding a module call's result (none when a `let`
    /// binds it: the binding's declaration is its storage).
    fn call_temporary(&self, callee: FnId, call: &syn::ExprCall) -> Node {
        let size = match self.module.returns.get(callee).cloned().flatten() {
            Some(ty) => Size::of_type(ty),
            None => Size::unknown(),
        };
        self.temporary_of(call, size)
    }

    /// A temporary of expression `e` (an array, a repeat) of its own size,
    /// unless a `let` binds it.
    fn temporary(&self, e: &syn::Expr) -> Node {
        if (e as *const syn::Expr).addr() == self.bound_init {
            return Node::Ops(0);
        }
        Node::Decl {
            size: self.expr_size(e),
            span: e.span(),
        }
    }

    /// A temporary of a call of size `size`, unless a `let` binds it.
    fn temporary_of(&self, call: &syn::ExprCall, size: Size) -> Node {
        if (call as *const syn::ExprCall).addr() == self.bound_call {
            return Node::Ops(0);
        }
        Node::Decl {
            size,
            span: call.span(),
        }
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall, in_chain: bool) -> Node {
        let name = m.method.to_string();
        let span = m.span();
        if !in_chain && SPAWN_METHODS.contains(&name.as_str()) {
            if let Some(kind) = self.chain_root_scope(&m.receiver) {
                let site_kind = if name == "task" {
                    SiteKind::DataflowTask
                } else {
                    kind.site_kind()
                };
                // Scope and group spawns pass their site to the runtime's
                // inliner (`__spawn_at`); dataflow tasks do not inline.
                let rewrite = (name == "spawn" && kind != ScopeKind::Dataflow)
                    .then(|| (CallKey::of_method(m), "__spawn_at"));
                let site = self.new_site(site_kind, span, rewrite);
                let receiver = self.receiver_chain(&m.receiver);
                // A scope's tasks receive the scope; group and dataflow tasks
                // receive nothing or their data.
                let params = match kind {
                    ScopeKind::Scope => Binding::Scope(kind),
                    ScopeKind::Group | ScopeKind::Dataflow => Binding::Local,
                };
                let mut args = vec![receiver];
                let mut tasks = Vec::new();
                for a in &m.args {
                    if let Some(body) = self.take_closure(a) {
                        tasks.push(body);
                        continue;
                    }
                    match strip(a) {
                        syn::Expr::Closure(c) => tasks.push(self.closure(c, params)),
                        syn::Expr::Path(p)
                            if matches!(
                                self.resolve_path(&p.path, p.qself.is_some()),
                                Resolved::Module(_)
                            ) =>
                        {
                            tasks.push(self.task(a, Binding::Local))
                        }
                        // A dataflow task's other arguments are its data;
                        // a scope or group spawn's argument is its task.
                        other if kind == ScopeKind::Dataflow => args.push(self.expr(other)),
                        _ => tasks.push(self.task(a, Binding::Local)),
                    }
                }
                return Node::Spawn {
                    site,
                    args: Box::new(seq(args)),
                    tasks,
                };
            }
        }
        let receiver = if in_chain {
            self.receiver_chain(&m.receiver)
        } else {
            self.expr(&m.receiver)
        };
        let is_loop = ALWAYS_LOOP_METHODS.contains(&name.as_str())
            || (ITER_LOOP_METHODS.contains(&name.as_str()) && looks_like_iterator(&m.receiver));
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
                    let size = match self.module.returns.get(id).cloned().flatten() {
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

    /// The receiver chain of a spawn method: its method calls are part of the
    /// construct (a builder), not sites of their own.
    fn receiver_chain(&mut self, e: &syn::Expr) -> Node {
        match e {
            syn::Expr::MethodCall(m) => self.method_call(m, true),
            syn::Expr::Paren(p) => self.receiver_chain(&p.expr),
            other => self.expr(other),
        }
    }

    /// The scope kind of the value at the root of a receiver chain.
    fn chain_root_scope(&self, mut e: &syn::Expr) -> Option<ScopeKind> {
        loop {
            e = match e {
                syn::Expr::MethodCall(m) => &m.receiver,
                syn::Expr::Paren(p) => &p.expr,
                syn::Expr::Group(g) => &g.expr,
                syn::Expr::Reference(r) => &r.expr,
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
                syn::Expr::Path(p) if p.qself.is_none() => {
                    let ident = p.path.get_ident()?;
                    return match self.lookup(&ident.to_string())? {
                        Binding::Scope(k) => Some(k),
                        _ => None,
                    };
                }
                _ => return None,
            };
        }
    }

    /// What a path in value position denotes.
    fn resolve_path(&self, path: &syn::Path, qself: bool) -> Resolved {
        if qself {
            return Resolved::Unknown;
        }
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(first) = segs.first() else {
            return Resolved::Unknown;
        };
        if path.leading_colon.is_some() {
            return if first == "prescient" || self.module.krate.as_ref() == Some(first) {
                Resolved::Prescient(segs[1..].to_vec())
            } else {
                Resolved::Unknown
            };
        }
        if first == "self" && segs.len() > 1 {
            return self.module.resolve(&segs[1..]);
        }
        if first == "Self" {
            return match (&self.impl_type, segs.len()) {
                (Some(ty), 2) => match self.module.methods.get(&(ty.clone(), segs[1].clone())) {
                    Some(&id) => Resolved::Module(id),
                    None => Resolved::Unknown,
                },
                _ => Resolved::Unknown,
            };
        }
        if self.lookup(first).is_some() {
            return if segs.len() == 1 {
                Resolved::Local
            } else {
                Resolved::Unknown
            };
        }
        if self.generics.contains(first) {
            return Resolved::Unknown;
        }
        self.module.resolve(&segs)
    }

    /// The scope kind of a written type (`&Scope<'_>`, `prescient::TaskGroup`).
    fn scope_kind_of_type(&self, ty: &syn::Type) -> Option<ScopeKind> {
        match ty {
            syn::Type::Reference(r) => self.scope_kind_of_type(&r.elem),
            syn::Type::Paren(p) => self.scope_kind_of_type(&p.elem),
            syn::Type::Group(g) => self.scope_kind_of_type(&g.elem),
            syn::Type::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Prescient(path) => ScopeKind::of_type(path.last()?),
                _ => None,
            },
            _ => None,
        }
    }

    /// The scope kind of a value built by a `prescient` scope type's associated
    /// function (`TaskGroup::new()`), or of another name of a scope value
    /// (`let s2 = s;`, `let s2 = &s;`).
    fn scope_kind_of_init(&self, e: &syn::Expr) -> Option<ScopeKind> {
        let mut e = strip(e);
        loop {
            e = match e {
                syn::Expr::Reference(r) => strip(&r.expr),
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
                _ => break,
            };
        }
        if let syn::Expr::Path(p) = e {
            if p.qself.is_some() {
                return None;
            }
            return match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Scope(k) => Some(k),
                _ => None,
            };
        }
        let syn::Expr::Call(c) = e else {
            return None;
        };
        let syn::Expr::Path(p) = strip(&c.func) else {
            return None;
        };
        match self.resolve_path(&p.path, p.qself.is_some()) {
            Resolved::Prescient(path) if path.len() >= 2 => {
                ScopeKind::of_type(&path[path.len() - 2])
            }
            _ => None,
        }
    }

    /// The trip count of iterating over `e` (a `for` loop's iterable or the
    /// receiver of an iterator closure method).
    fn iter_trip(&self, e: &syn::Expr) -> Trip {
        match strip(e) {
            syn::Expr::Range(r) => self.range_trip(r),
            syn::Expr::Array(a) => Trip::Literal(a.elems.len() as u64),
            syn::Expr::Reference(r) => match strip(&r.expr) {
                syn::Expr::Array(a) => Trip::Literal(a.elems.len() as u64),
                _ => Trip::Unknown,
            },
            syn::Expr::MethodCall(m)
                if COUNT_PRESERVING.contains(&m.method.to_string().as_str()) =>
            {
                self.iter_trip(&m.receiver)
            }
            _ => Trip::Unknown,
        }
    }

    fn range_trip(&self, r: &syn::ExprRange) -> Trip {
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            return Trip::Unknown;
        };
        let (Some(start), Some(end)) = (self.bound(start), self.bound(end)) else {
            return Trip::Unknown;
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        match (start.literal(), end.literal()) {
            (Some(s), Some(e)) => Trip::Literal(crate::sym::trip_count(s, e, inclusive)),
            _ => Trip::Range {
                start,
                end,
                inclusive,
            },
        }
    }

    /// A loop bound: literals, unshadowed module-level `const`s, `+ - *` and
    /// division by a non-zero literal.
    fn bound(&self, e: &syn::Expr) -> Option<Bound> {
        match strip(e) {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<i128>().ok().map(Bound::Lit),
                _ => None,
            },
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let name = match segs.as_slice() {
                    [name] if p.path.leading_colon.is_none() => {
                        if self.lookup(name).is_some() || self.generics.contains(name) {
                            return None;
                        }
                        name
                    }
                    [first, name] if first == "self" && p.path.leading_colon.is_none() => name,
                    _ => return None,
                };
                if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
                    return None;
                }
                // The identifier as written (`r#loop` stays raw).
                let ident = p.path.segments.last()?.ident.clone();
                self.module
                    .consts
                    .contains(name)
                    .then_some(Bound::Const(ident))
            }
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => BoundOp::Add,
                    syn::BinOp::Sub(_) => BoundOp::Sub,
                    syn::BinOp::Mul(_) => BoundOp::Mul,
                    syn::BinOp::Div(_) => BoundOp::Div,
                    _ => return None,
                };
                let (l, r) = (self.bound(&b.left)?, self.bound(&b.right)?);
                if op == BoundOp::Div && !matches!(r, Bound::Lit(v) if v != 0) {
                    return None;
                }
                Some(Bound::Bin(op, Box::new(l), Box::new(r)))
            }
            _ => None,
        }
    }

    /// The size of a written type: `size_of::<T>()` when it resolves at
    /// module level, 16 bytes for a reference or pointer, else unknown (an
    /// array of unknown length: the conservative size even outside recursion).
    fn size_of_type(&self, ty: &syn::Type) -> Size {
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
    fn array_estimate(&self, len: &syn::Expr) -> Size {
        match self.bound(len).and_then(|b| b.literal()) {
            Some(n) => Size::Unknown(symb::product([
                Sym::Lit(u64::try_from(n.max(0)).unwrap_or(u64::MAX)),
                Sym::Lit(stack::UNRESOLVED_ELEMENT_BYTES),
            ])),
            None => Size::Unknown(Sym::Lit(stack::CONSERVATIVE_STACK_BYTES)),
        }
    }

    /// The type of a literal. An unsuffixed integer may be inferred to any
    /// integer type: `u128` bounds them all; an unsuffixed float `f64`.
    fn literal_type(&self, l: &syn::ExprLit) -> Option<syn::Type> {
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
    fn expr_type(&self, e: &syn::Expr) -> Option<syn::Type> {
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
                    Resolved::Module(id) => self.module.returns.get(id).cloned().flatten(),
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
    fn task_result_type(&self, task: &syn::Expr) -> Option<syn::Type> {
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
                Resolved::Module(id) => self.module.returns.get(id).cloned().flatten(),
                _ => None,
            },
            _ => None,
        }
    }

    /// An upper bound of the size of an expression's value.
    fn expr_size(&self, e: &syn::Expr) -> Size {
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
    fn sum_sizes<'e>(&self, es: impl Iterator<Item = &'e syn::Expr>) -> Size {
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
    fn closure_size(&self, c: &syn::ExprClosure) -> Size {
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
    fn element_size(&self, iter: &syn::Expr) -> Size {
        if let syn::Expr::Range(r) = strip(iter) {
            let bound = r.start.as_deref().or(r.end.as_deref());
            if let Some(ty) = bound.and_then(|b| self.expr_type(b)) {
                return Size::of_type(ty);
            }
        }
        Size::unknown()
    }

    /// A macro invocation. Its expansion is invisible, but arguments that
    /// parse as expressions (`vec![join(..)]`, `assert!(f(x))`,
    /// `println!("{}", g())`) are modelled like any code; in arguments that do
    /// not, every identifier naming a module function may be a call of it.
    ///
    /// An invocation of a `macro_rules!` macro of the module is lowered as
    /// its expansion instead (`expand`); `statement`: the invocation is a
    /// statement.
    fn macro_node(&mut self, mac: &syn::Macro, statement: bool) -> Node {
        if let Some(node) = self.expand_macro(mac, statement) {
            return node;
        }
        let span = mac.span();
        let parsed = mac
            .parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            .map(|p| p.into_iter().collect::<Vec<_>>())
            .or_else(|_| {
                mac.parse_body_with(|input: syn::parse::ParseStream<'_>| {
                    let a: syn::Expr = input.parse()?;
                    input.parse::<syn::Token![;]>()?;
                    let b: syn::Expr = input.parse()?;
                    Ok(vec![a, b])
                })
            });
        let inner = match parsed {
            Ok(exprs) => {
                let was = std::mem::replace(&mut self.in_macro, true);
                let node = self.exprs(&exprs);
                self.in_macro = was;
                node
            }
            Err(_) => {
                let mut calls = Vec::new();
                self.token_calls(mac.tokens.clone(), span, &mut calls);
                seq(calls)
            }
        };
        // A module macro that could not be expanded: the functions its rules
        // name may be called too.
        let inner = match self.local_macro(&mac.path) {
            Some(def) => {
                let mut calls = Vec::new();
                self.token_calls(def.body_tokens(), span, &mut calls);
                seq([inner, seq(calls)])
            }
            None => inner,
        };
        Node::Macro {
            span,
            name: macro_name(mac),
            inner: Box::new(inner),
        }
    }

    /// Possible calls of module functions named in tokens.
    fn token_calls(&self, tokens: proc_macro2::TokenStream, span: Span, out: &mut Vec<Node>) {
        for tt in tokens {
            match tt {
                proc_macro2::TokenTree::Group(g) => self.token_calls(g.stream(), span, out),
                proc_macro2::TokenTree::Ident(i) => {
                    let name = i.to_string();
                    if self.lookup(&name).is_some() {
                        continue;
                    }
                    let mut candidates: Vec<FnId> =
                        self.module.fns.get(&name).copied().into_iter().collect();
                    if let Some(m) = self.module.method_names.get(&name) {
                        candidates.extend(m);
                    }
                    if !candidates.is_empty() {
                        out.push(Node::Call {
                            callee: Callee::Maybe(candidates),
                            args: Box::new(Node::Ops(0)),
                            span,
                            halves: None,
                        });
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether a type means the same at module level as here.
    fn type_resolves(&self, ty: &syn::Type) -> bool {
        let mut check = ResolveCheck {
            generics: &self.generics,
            builder: Some(self),
            ok: true,
        };
        check.visit_type(ty);
        check.ok
    }
}

/// The identifiers a closure body names (possible captures); `opaque` when it
/// contains a macro (whose tokens may name more).
#[derive(Default)]
struct Names {
    names: HashSet<String>,
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

/// Checks that every path of a type resolves at module level.
struct ResolveCheck<'b, 'a> {
    /// Generic parameters in scope.
    generics: &'b HashSet<String>,
    /// The body's bindings, when inside one.
    builder: Option<&'b FnBuilder<'a>>,
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
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.ok = false;
    }
}

/// Replaces the function's (and `impl`'s) lifetime parameters by `'_`.
struct EraseLifetimes<'a>(&'a HashSet<String>);

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

/// The value of an integer literal.
fn literal_int(e: &syn::Expr) -> Option<u128> {
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
fn is_unsuffixed(e: &syn::Expr) -> bool {
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
fn is_constructor(path: &syn::Path) -> bool {
    path.segments
        .last()
        .and_then(|s| s.ident.to_string().trim_start_matches("r#").chars().next())
        .is_some_and(char::is_uppercase)
}

/// The outer attributes of an expression statement's expression.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
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

/// A macro's name as written, `name!` (`path::name!`).
fn macro_name(mac: &syn::Macro) -> String {
    let path: Vec<String> = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    format!("{}!", path.join("::"))
}

/// Strips parentheses from a pattern.
fn strip_pat(mut p: &syn::Pat) -> &syn::Pat {
    while let syn::Pat::Paren(inner) = p {
        p = &inner.pat;
    }
    p
}

/// Tokens as text for the report, without the spaces token printing puts
/// between punctuation (`(v.visit)`, `other::f`), at most 48 characters.
fn compact(tokens: &impl quote::ToTokens) -> String {
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

/// A call of something invisible, after `args`.
/// A call to `callee` after `args` that the analysis sees only in part:
/// the call, preceded by its note for the report (`kind`, `what` as
/// written).
fn noted_call(kind: UnseenKind, what: String, callee: Callee, args: Node, span: Span) -> Node {
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

fn external_call(args: Node, span: Span) -> Node {
    Node::Call {
        callee: Callee::External,
        args: Box::new(args),
        span,
        halves: None,
    }
}

/// Strips parentheses and invisible groups.
fn strip(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        e = match e {
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            _ => return e,
        };
    }
}

fn strip_type(mut ty: &syn::Type) -> &syn::Type {
    loop {
        ty = match ty {
            syn::Type::Paren(p) => &p.elem,
            syn::Type::Group(g) => &g.elem,
            _ => return ty,
        };
    }
}

/// Whether a receiver is recognisably an iterator: a range, or a chain with an
/// iterator method.
fn looks_like_iterator(mut e: &syn::Expr) -> bool {
    loop {
        e = match e {
            syn::Expr::Range(_) => return true,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            syn::Expr::MethodCall(m) => {
                if ITER_SOURCES.contains(&m.method.to_string().as_str()) {
                    return true;
                }
                &m.receiver
            }
            _ => return false,
        };
    }
}

/// The identifiers a pattern binds.
fn pat_idents(pat: &syn::Pat) -> Vec<String> {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::WalkCtx;

    /// Parses a module and builds its model.
    pub(crate) fn program(src: &str) -> Program {
        let module: syn::ItemMod = syn::parse_str(src).expect("test module parses");
        build(&module).expect("model builds")
    }

    /// `function → [site kinds]`.
    fn sites(p: &Program) -> Vec<(String, SiteKind)> {
        p.sites
            .iter()
            .map(|s| (p.functions[s.function].name.clone(), s.kind))
            .collect()
    }

    #[test]
    fn recognises_prescient_paths_and_imports() {
        let p = program(
            "mod m {
                use prescient::{join as j, spawn};
                fn a() { prescient::join(|| 1, || 2); ::prescient::spawn(|| 3); }
                fn b() { j(|| 1, || 2); spawn(|| 3); }
                fn c() { let spawn = |f: fn()| f(); spawn(x); }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("a".into(), SiteKind::Join),
                ("a".into(), SiteKind::Spawn),
                ("b".into(), SiteKind::Join),
                ("b".into(), SiteKind::Spawn),
            ]
        );
        assert!(p.sites.iter().all(|s| s.rewrite.is_some()));
    }

    #[test]
    fn never_takes_rayon_path_or_thread_spawns() {
        let p = program(
            "mod m {
                use std::path::Path;
                use std::thread;
                fn f(p: &Path) {
                    rayon::join(|| 1, || 2);
                    let _ = p.join(\"x\");
                    let _ = Path::new(\"a\").join(\"b\");
                    thread::spawn(|| 1).join();
                    std::thread::spawn(|| 1);
                    std::thread::scope(|s| { s.spawn(|| 1); });
                    join(|| 1, || 2);
                    spawn(|| 1);
                }
            }",
        );
        assert!(p.sites.is_empty(), "{:?}", sites(&p));
    }

    #[test]
    fn glob_import_respects_shadowing() {
        let p = program(
            "mod m {
                use prescient::*;
                use rayon::join;
                fn spawn(x: u32) {}
                fn f() { join(|| 1, || 2); spawn(3); scope(|s| s.spawn(|| 1)); }
            }",
        );
        assert_eq!(sites(&p), vec![("f".into(), SiteKind::ScopeSpawn)]);
    }

    #[test]
    fn crate_alias_and_scope_values() {
        let p = program(
            "mod m {
                use prescient as p;
                use prescient::TaskGroup;
                fn f(g: &TaskGroup, s: &p::Scope<'_>) {
                    g.spawn(|| 1);
                    s.spawn(|| 2);
                    let h = TaskGroup::new();
                    h.spawn(|| 3);
                    p::scope(|t| { t.spawn(|u| u.spawn(|| 4)); });
                    p::dataflow(|df| { df.task().input(&x).spawn(|| 5); });
                    let s = 7;
                    s.spawn(|| 6);
                }
            }",
        );
        assert_eq!(
            sites(&p).into_iter().map(|(_, k)| k).collect::<Vec<_>>(),
            vec![
                SiteKind::GroupSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::GroupSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::ScopeSpawn,
                SiteKind::DataflowTask,
            ]
        );
        // Scope and group spawns pass their site to the inliner; dataflow
        // tasks do not.
        let rewrites: Vec<_> = p
            .sites
            .iter()
            .map(|s| s.rewrite.map(|(_, name)| name))
            .collect();
        assert_eq!(rewrites[..5], [Some("__spawn_at"); 5]);
        assert_eq!(rewrites[5], None);
    }

    #[test]
    fn dataflow_tasks_are_sites() {
        let p = program(
            "mod m {
                use prescient::dataflow;
                use prescient::dataflow::Dataflow;
                fn submit(df: &Dataflow<'_, '_>, x: &u64) { df.task((), |()| {}); }
                fn f() -> u64 {
                    dataflow(|df| {
                        let x = df.data(1u64);
                        let y = df.data(0u64);
                        df.task((x.read(), y.inout()), |(x, y): (&u64, &mut u64)| *y += *x);
                        df.task(y.inout(), |y: &mut u64| { y.spawn(|| 1); });
                        y.into_inner()
                    })
                }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("submit".into(), SiteKind::DataflowTask),
                ("f".into(), SiteKind::DataflowTask),
                ("f".into(), SiteKind::DataflowTask),
            ]
        );
    }

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

    #[test]
    fn loop_trip_counts() {
        let p = program(
            "mod m {
                const N: usize = 10;
                fn f<const M: usize>(k: usize) {
                    for _ in 0..N {}
                    for _ in 0..=5 {}
                    for _ in (1..N * 2).rev() {}
                    for _ in 0..M {}
                    for _ in 0..k {}
                    { const N: usize = 3; for _ in 0..N {} }
                    let N = 4; for _ in 0..N {}
                    (0..8).for_each(|_| {});
                    for _ in [1, 2, 3] {}
                    while true {}
                }
            }",
        );
        let mut trips = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Loop { trip, .. } = n {
                trips.push(match trip {
                    Trip::Literal(v) => v.to_string(),
                    Trip::Range { start, end, .. } => format!("{start}..{end}"),
                    Trip::Unknown => "?".into(),
                });
            }
        });
        assert_eq!(
            trips,
            ["0..N", "6", "1..(N * 2)", "?", "?", "?", "?", "8", "3", "?"]
        );
    }

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

    #[test]
    fn raw_identifier_bounds_are_kept_as_written() {
        let p = program(
            "mod m {
                const r#loop: usize = 8;
                fn f() { for _ in 0..r#loop {} }
            }",
        );
        let mut trips = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Loop {
                trip: Trip::Range { end, .. },
                ..
            } = n
            {
                trips.push(end.clone());
            }
        });
        assert_eq!(trips.len(), 1);
        assert_eq!(trips[0].to_string(), "r#loop");
    }

    #[test]
    fn stored_task_closures_and_aliased_scopes() {
        let p = program(
            "mod m {
                use prescient::{join, scope};
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let l = move || fib(n - 1);
                    let r = move || fib(n - 2);
                    let (a, b) = join(l, r);
                    a + b
                }
                fn s() {
                    scope(|s| {
                        let s2 = s;
                        let s3 = &s2;
                        s2.spawn(|_| 1);
                        s3.spawn(|_| 2);
                    });
                }
                fn unused() { let l = || s(); }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("fib".into(), SiteKind::Join),
                ("s".into(), SiteKind::ScopeSpawn),
                ("s".into(), SiteKind::ScopeSpawn),
            ]
        );
        // The stored closures are the join's tasks: their calls are in a task.
        let mut in_spawn = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, ctx| {
            if let Node::Call {
                callee: Callee::Module(0),
                ..
            } = n
            {
                in_spawn.push(ctx.in_spawn);
            }
        });
        assert_eq!(in_spawn, [true, true]);
        // A stored closure no spawn takes is still counted where written.
        let mut calls = 0;
        p.functions[2].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call {
                callee: Callee::Module(1),
                ..
            } = n
            {
                calls += 1;
            }
        });
        assert_eq!(calls, 1);
    }

    #[test]
    fn renamed_crate_is_a_prescient_path() {
        let module: syn::ItemMod = syn::parse_str(
            "mod m {
                use rt::join;
                fn f() { join(|| 1, || 2); ::rt::spawn(|| 3); rt::spawn(|| 4); }
            }",
        )
        .unwrap();
        let krate: syn::Path = syn::parse_str("rt").unwrap();
        let p = build_with(&module, Some(&krate)).unwrap();
        assert_eq!(p.sites.len(), 3);
        assert_eq!(
            program("mod m { use rt::join; fn f() { join(|| 1, || 2); } }")
                .sites
                .len(),
            0
        );
    }

    #[test]
    fn rejects_clashing_items_and_outline_modules() {
        let module: syn::ItemMod = syn::parse_str("mod m { const PARAMS: u8 = 1; }").unwrap();
        let e = build(&module).unwrap_err();
        assert!(e.to_string().contains("emits `PARAMS`"));
        let module: syn::ItemMod = syn::parse_str("mod m;").unwrap();
        assert!(build(&module).is_err());
    }

    #[test]
    fn recognises_range_loops_like_join() {
        let p = program(
            "mod m {
                use prescient::{for_range, for_range_chunked as chunked};
                use prescient as p;
                fn a() { for_range(0..10, 1, |i| ()); chunked(0..10, 4, |r| ()); }
                fn b() { prescient::for_range(0..10, 1, |i| ()); ::prescient::for_range_chunked(0..4, 1, |r| ()); }
                fn c() { p::for_range(0..10, 1, |i| ()); }
                fn d(for_range: fn(u8)) {
                    for_range(1);
                    rayon::for_range(0..10, 1, |i| ());
                    Pool::for_range(0..10, 1, |i| ());
                    prescient::for_range(0..10, |i| ());
                }
            }",
        );
        assert_eq!(
            sites(&p),
            vec![
                ("a".into(), SiteKind::RangeLoop),
                ("a".into(), SiteKind::RangeLoop),
                ("b".into(), SiteKind::RangeLoop),
                ("b".into(), SiteKind::RangeLoop),
                ("c".into(), SiteKind::RangeLoop),
            ]
        );
        let targets: Vec<&str> = p
            .sites
            .iter()
            .filter_map(|s| s.rewrite)
            .map(|r| r.1)
            .collect();
        assert_eq!(
            targets,
            [
                "for_range_at",
                "for_range_chunked_at",
                "for_range_at",
                "for_range_chunked_at",
                "for_range_at"
            ]
        );
        // A glob import brings both in; a local or another import shadows.
        let p = program(
            "mod m {
                use prescient::*;
                use other::for_range_chunked;
                fn f() { for_range(0..4, 1, |i| ()); for_range_chunked(0..4, 1, |r| ()); }
                fn g() { let for_range = |a: u8, b: u8, c: u8| (); for_range(1, 2, 3); }
            }",
        );
        assert_eq!(sites(&p), vec![("f".into(), SiteKind::RangeLoop)]);
    }

    /// `(rho, lambda, in_loop of site 0)` of the program's first context.
    fn loop_structure(src: &str) -> (u32, u32, bool) {
        let r = crate::analysis::analyse(&program(src));
        let c = &r.contexts[0];
        (c.rho, c.lambda, r.sites[0].in_loop)
    }

    #[test]
    fn a_range_loop_is_loop_parallelism() {
        // The only parallelism is one `for_range`, written outside any loop:
        // its site runs in a loop (λ = 1), no recursion (ρ = 0).
        let src = "mod m {
                use prescient::for_range;
                fn work(i: usize) -> usize { i * 2 + 1 }
                pub fn run(out: &[AtomicUsize]) {
                    for_range(0..1000, 16, |i| { out[i].store(work(i), Relaxed); });
                }
            }";
        assert_eq!(loop_structure(src), (0, 1, true));
        let r = crate::analysis::analyse(&program(src));
        let c = &r.contexts[0];
        // The site's effort is one run of the body: the index, the store (an
        // invisible method call) and `work` (a call, two operations).
        use crate::effort::{CALL_OVERHEAD, INVISIBLE_CALL, LOOP_ITERATION, SPAWN_OVERHEAD};
        let body = 1 + (CALL_OVERHEAD + INVISIBLE_CALL) + (CALL_OVERHEAD + 2);
        assert_eq!(r.sites[0].effort, Sym::Lit(body));
        assert_eq!(c.effort, r.sites[0].effort);
        // CF'17's decision trees: ρ = 0 and λ > 0 give the loop capacity.
        let effort = c.effort.literal().unwrap();
        assert_eq!(
            prescient::analysis::cf17::queue_capacity(c.rho, c.lambda, effort),
            prescient::analysis::cf17::LOOP_QUEUE_CAPACITY
        );
        assert_eq!(prescient::analysis::cf17::LOOP_QUEUE_CAPACITY, 128);
        // The function's effort: 1000 iterations of spawn + body + 1.
        assert_eq!(
            r.function_efforts[1],
            Sym::Lit(1000 * (SPAWN_OVERHEAD + body + LOOP_ITERATION))
        );

        // The chunked form, with a module `const` bound and a chunk loop.
        let chunked = "mod m {
                use prescient as p;
                const N: usize = 1 << 20;
                fn run() { p::for_range_chunked(0..N, 1024, |r| { for i in r { x += i; } }); }
            }";
        assert_eq!(loop_structure(chunked), (0, 1, true));
    }

    #[test]
    fn range_loop_bodies_are_tasks_for_rho() {
        // A call back into the function from the body is recursion through a
        // task (ρ = 1), and the site is still in a loop.
        let src = "mod m {
                use prescient::for_range;
                fn walk(depth: u32) {
                    if depth > 0 { for_range(0..4, 1, move |_| walk(depth - 1)); }
                }
            }";
        assert_eq!(loop_structure(src), (1, 1, true));
        let r = crate::analysis::analyse(&program(src));
        // ρ > 0: no loop capacity (CF'17's trees).
        let c = &r.contexts[0];
        assert_eq!(
            prescient::analysis::cf17::queue_capacity(c.rho, c.lambda, 0),
            prescient::analysis::cf17::SMALL_QUEUE_CAPACITY
        );
        // A spawn inside a range loop body is reached in a loop too.
        let nested = "mod m {
                use prescient::{for_range, spawn};
                fn f() { for_range(0..4, 1, |i| { spawn(move || i); }); }
            }";
        let r = crate::analysis::analyse(&program(nested));
        assert_eq!(r.contexts[0].lambda, 2);
        assert!(r.sites[1].in_loop);
    }

    #[test]
    fn range_loop_trip_counts() {
        fn trip(src: &str) -> Trip {
            let p = program(src);
            let mut out = None;
            p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
                if let Node::Loop {
                    kind: LoopKind::RangeLoop,
                    trip,
                    ..
                } = n
                {
                    out = Some(trip.clone());
                }
            });
            out.expect("a range loop")
        }
        let f = |call: &str| format!("mod m {{ use prescient::*; fn f(n: usize) {{ {call}; }} }}");
        assert_eq!(trip(&f("for_range(0..100, 7, |i| ())")), Trip::Literal(100));
        assert_eq!(trip(&f("for_range(0..n, 7, |i| ())")), Trip::Unknown);
        assert_eq!(
            trip(&f("for_range_chunked(0..100, 7, |r| ())")),
            Trip::Literal(15)
        );
        assert_eq!(
            trip(&f("for_range_chunked(0..100, 0, |r| ())")),
            Trip::Literal(100)
        );
        assert_eq!(
            trip(&f("for_range_chunked(0..100, n, |r| ())")),
            Trip::Unknown
        );
    }
}
