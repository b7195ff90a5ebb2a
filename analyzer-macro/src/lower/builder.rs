//! The builder of one function's model and its lexical environment: what a
//! name bound in the body is (a variable, a scope value, a closure kept
//! aside, a local item) with what is known of its value, and what a path in
//! value position denotes. The lowering itself is spread over the other
//! files of `lower`, one concept each, as further `impl FnBuilder` blocks.

use super::syntax::{generic_names, int_bits};
use crate::macros::MacroDef;
use crate::model::{FnId, Node, Site, SiteKind, Size, Target};
use crate::module_scope::{cfg_gated, FnSource, ModuleScope, Modules, Resolved, ScopeId, ROOT};
use crate::stack;
use crate::sym::Sym;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// `prescient` types whose values are scope values (their `spawn`/`task`
/// methods are spawn sites).
pub(super) const SCOPE_TYPES: &[&str] = &["Scope", "TaskGroup", "Dataflow"];

/// What a scope value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ScopeKind {
    Scope,
    Group,
    Dataflow,
}

impl ScopeKind {
    pub(super) fn site_kind(self) -> SiteKind {
        match self {
            ScopeKind::Scope => SiteKind::ScopeSpawn,
            ScopeKind::Group => SiteKind::GroupSpawn,
            ScopeKind::Dataflow => SiteKind::DataflowTask,
        }
    }

    /// The scope kind of a `prescient` type name (one of [`SCOPE_TYPES`]).
    pub(super) fn of_type(name: &str) -> Option<ScopeKind> {
        const KINDS: [ScopeKind; 3] = [ScopeKind::Scope, ScopeKind::Group, ScopeKind::Dataflow];
        SCOPE_TYPES
            .iter()
            .position(|t| *t == name)
            .map(|i| KINDS[i])
    }
}

/// A name bound inside a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Binding {
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
pub(super) struct Entry {
    pub(super) binding: Binding,
    /// Its type, when known and resolving at module level.
    pub(super) ty: Option<syn::Type>,
    /// An upper bound of its size.
    pub(super) size: Size,
    /// Its type is visibly not the module's (see `receivers`).
    pub(super) foreign: bool,
    /// The module struct its written type names (`x: &Node`), whose field
    /// types are known.
    pub(super) owner: Option<String>,
}

impl Entry {
    /// A binding of which nothing but its size is known.
    pub(super) fn plain(binding: Binding, size: Size) -> Entry {
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
pub(super) struct FnBuilder<'a> {
    /// Every module of the program.
    pub(super) modules: &'a Modules,
    /// The module the function is defined in, and its names.
    pub(super) scope: ScopeId,
    pub(super) module: &'a ModuleScope,
    pub(super) fn_id: FnId,
    pub(super) impl_type: Option<String>,
    pub(super) generics: HashSet<String>,
    pub(super) lifetimes: HashSet<String>,
    pub(super) env: Vec<HashMap<String, Entry>>,
    pub(super) sites: &'a mut Vec<Site>,
    /// Bodies of closures bound by `let`, until a spawn construct takes one
    /// as its task (or the block ends and it is counted where it was written).
    pub(super) closures: Vec<Option<Node>>,
    /// Per parameter position: its name and bit width when it is a non-`mut`
    /// identifier of a primitive integer type (for [`Node::Call::halves`]).
    pub(super) params: Vec<Option<(String, u32)>>,
    /// Inside the parsed arguments of a macro: calls there are not rewritten.
    pub(super) in_macro: bool,
    /// The expression whose temporary is a `let` binding's storage (counted
    /// by the binding's declaration, not again as a temporary), by address.
    pub(super) bound_init: usize,
    /// The same, for a `let` initializer that is a call: the call's address.
    pub(super) bound_call: usize,
    /// Module functions that escape into values anywhere in the module —
    /// named as values, or called by closures held in values — with whether
    /// a closure calls them in a task or a loop: what a call through a
    /// value may reach (see `values`). Shared by every function's builder.
    pub(super) escaping: &'a mut Vec<Target>,
    /// Per closure kept aside (`closures`), the module functions its body
    /// calls, and whether it calls through a value itself.
    pub(super) closure_targets: Vec<(Vec<Target>, bool)>,
    /// `macro_rules!` macros defined in the body's blocks so far, innermost
    /// last.
    pub(super) local_macros: Vec<(String, Rc<MacroDef>)>,
    /// Levels of local macro expansion being lowered.
    pub(super) macro_depth: u32,
    /// Levels of local macro expansion being typed (`expr_type`, which
    /// does not lower).
    pub(super) type_depth: std::cell::Cell<u32>,
    /// Local macro expansions made so far (lowered or typed).
    pub(super) expansions: std::cell::Cell<u32>,
    /// The index of the module item that defines the function (a module
    /// macro is in scope from its definition on).
    pub(super) item: usize,
    /// The `impl`'s self type, for the receiver `self`.
    pub(super) self_ty: Option<syn::Type>,
}

impl<'a> FnBuilder<'a> {
    pub(super) fn new(
        modules: &'a Modules,
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
            modules,
            scope: src.scope,
            module: &modules.scopes[src.scope],
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

    /// The innermost binding of a name, with what is known of its value.
    pub(super) fn entry(&self, name: &str) -> Option<&Entry> {
        self.env.iter().rev().find_map(|s| s.get(name))
    }

    /// The innermost binding of a name.
    pub(super) fn lookup(&self, name: &str) -> Option<Binding> {
        self.entry(name).map(|e| e.binding)
    }

    /// Binds a name whose value is not known.
    pub(super) fn bind(&mut self, name: String, b: Binding) {
        let size = match b {
            // A scope value is a reference.
            Binding::Scope(_) => Size::Known(Sym::Lit(stack::REFERENCE_BYTES)),
            _ => Size::unknown(),
        };
        self.bind_entry(name, Entry::plain(b, size));
    }

    /// Binds a name in the innermost scope.
    pub(super) fn bind_entry(&mut self, name: String, entry: Entry) {
        if let Some(top) = self.env.last_mut() {
            top.insert(name, entry);
        }
    }

    /// The binding of a path's first segment, if it is a local one.
    pub(super) fn lookup_first(&self, path: &syn::Path) -> Option<Binding> {
        if path.leading_colon.is_some() {
            return None;
        }
        self.lookup(&path.segments.first()?.ident.to_string())
    }

    /// Whether `name` here is the function's parameter (not shadowed).
    pub(super) fn is_parameter(&self, name: &str) -> bool {
        self.env
            .iter()
            .rposition(|scope| scope.contains_key(name))
            .is_some_and(|depth| depth == 0)
    }

    /// What a path in value position denotes.
    pub(super) fn resolve_path(&self, path: &syn::Path, qself: bool) -> Resolved {
        if qself {
            return Resolved::Unknown;
        }
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(first) = segs.first() else {
            return Resolved::Unknown;
        };
        if path.leading_colon.is_some() {
            return if first == "prescient" || self.modules.krate.as_ref() == Some(first) {
                Resolved::Prescient(segs[1..].to_vec())
            } else {
                Resolved::Unknown
            };
        }
        if matches!(first.as_str(), "self" | "super" | "crate") && segs.len() > 1 {
            return self.modules.resolve(self.scope, &segs);
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
        self.modules.resolve(self.scope, &segs)
    }

    /// Whether the function is defined in a module nested in the annotated
    /// one: what the emitted code names at the annotated module's level
    /// (types it sizes, `const` loop bounds) must then mean the same there.
    pub(super) fn nested(&self) -> bool {
        self.scope != ROOT
    }
}
