//! The program model: what the analyses see of an annotated module.
//!
//! [`build`] walks the syn AST of the module once and keeps only what CF'17's
//! analyses need: the module's functions (free functions and `impl` methods),
//! and in each body a tree of [`Node`]s — built-in operations, sequences,
//! alternatives, loops with their trip counts, calls (into the module or
//! invisible), spawn constructs with their task bodies, and declarations with
//! their sizes — each keeping its span. Everything below works on this model,
//! so it is unit tested without a proc-macro invocation.
//!
//! The macro has no name resolution; the builder resolves names lexically and
//! conservatively:
//!
//! * **Spawn constructs** are recognised only as `prescient::…` paths
//!   (`::prescient::join`, `prescient::spawn`), names the module imports from
//!   `prescient` (`use prescient::{join, spawn as sp}`, `use prescient as p`,
//!   `use prescient::*` for the names in [`PRESCIENT_GLOB_NAMES`]), and the
//!   methods [`SPAWN_METHODS`] called on a *scope value*: a parameter of a
//!   closure passed to a `prescient` function (`prescient::scope(|s| s.spawn(…))`)
//!   or to a scope spawn, a binding typed with a `prescient` scope type
//!   ([`SCOPE_TYPES`]) or initialised by one of its associated functions
//!   (`let g = TaskGroup::new()`). A local binding of the same name shadows all
//!   of these. `rayon::join`, `Path::join`, `thread::spawn` and
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
//! Invisible to the model, and estimated instead: the inside of macro
//! invocations, items nested in bodies or in inner modules, trait default
//! methods, calls through trait objects, function pointers and closures held in
//! variables.

use crate::sym::{Bound, BoundOp};
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// Index of a function in [`Program::functions`].
pub type FnId = usize;
/// Index of a spawn site in [`Program::sites`].
pub type SiteId = usize;

/// Free functions of `prescient` (and scope types) that a glob import
/// `use prescient::*` is taken to bring in.
pub const PRESCIENT_GLOB_NAMES: &[&str] = &[
    "join",
    "spawn",
    "scope",
    "dataflow",
    "Scope",
    "TaskGroup",
    "Dataflow",
];
/// `prescient` types whose values are scope values (their `spawn`/`task`
/// methods are spawn sites).
pub const SCOPE_TYPES: &[&str] = &["Scope", "TaskGroup", "Dataflow"];
/// Methods on a scope value that spawn a task.
pub const SPAWN_METHODS: &[&str] = &["spawn", "task"];
/// Iterator methods whose closure argument runs once per element, whatever the
/// receiver.
pub const ALWAYS_LOOP_METHODS: &[&str] = &[
    "for_each",
    "try_for_each",
    "for_each_with",
    "for_each_init",
    "retain",
];
/// Iterator methods whose closure argument runs once per element when the
/// receiver is recognisably an iterator (a range or an iterator adaptor chain).
pub const ITER_LOOP_METHODS: &[&str] = &[
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

/// The model of an annotated module.
#[derive(Debug)]
pub struct Program {
    /// The module's name.
    pub module: String,
    /// Free functions and `impl` methods, in source order.
    pub functions: Vec<Function>,
    /// Spawn sites, in source (pre-)order; the index is the site's number.
    pub sites: Vec<Site>,
    /// Indices (into the module's items) of `use` items that import `join` or
    /// `spawn` from `prescient` (or glob-import it): rewriting the calls may
    /// leave them unused.
    pub prescient_uses: Vec<usize>,
}

/// One function of the module.
#[derive(Debug)]
pub struct Function {
    /// `name` for a free function, `Type::name` for a method.
    pub name: String,
    /// The function's name token.
    #[allow(dead_code)] // kept for diagnostics
    pub span: Span,
    /// The body, parameters first.
    pub body: Node,
}

/// Which spawn construct a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// `join(a, b)`.
    Join,
    /// `spawn(f)`.
    Spawn,
    /// `spawn` on a scope value.
    ScopeSpawn,
    /// `spawn` on a task group.
    GroupSpawn,
    /// A dataflow task (`task`, or `spawn` on a dataflow scope).
    DataflowTask,
}

/// A spawn site: one task invocation (CF'17 Alg. 1).
#[derive(Debug)]
pub struct Site {
    /// The construct.
    pub kind: SiteKind,
    /// The enclosing function: the site's task context.
    pub function: FnId,
    /// The whole call.
    pub span: Span,
    /// For `join`/`spawn` calls: the call to rewrite to `join_at`/`spawn_at`.
    pub rewrite: Option<CallKey>,
}

/// Identifies an `ExprCall` of the module the model was built from, by address.
///
/// Every expression of a parsed module lives in heap storage (`Box`, `Vec`), so
/// the address stays valid while the module is moved, as long as it is not
/// changed; `emit` rewrites the calls children first, so a parent's key is
/// still right when its turn comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallKey(pub usize);

impl CallKey {
    /// The key of a call node.
    pub fn of(call: &syn::ExprCall) -> CallKey {
        CallKey((call as *const syn::ExprCall).addr())
    }
}

/// What kind of loop a [`Node::Loop`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `for`.
    For,
    /// `while` / `while let`.
    While,
    /// `loop`.
    Loop,
    /// A closure passed to an iterator method such as `for_each`.
    IterClosure,
    /// The element copies of an array repeat expression `[x; n]`.
    Repeat,
}

/// The trip count of a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trip {
    /// A literal count.
    Literal(u64),
    /// A range whose bounds involve module-level `const`s.
    Range {
        /// Start of the range.
        start: Bound,
        /// End of the range.
        end: Bound,
        /// `..=`.
        inclusive: bool,
    },
    /// Not visible: the documented default applies.
    Unknown,
}

/// The target of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function of the module.
    Module(FnId),
    /// Anything the model cannot see.
    External,
}

/// The size of a declaration.
#[derive(Clone, Debug)]
pub enum Size {
    /// A type that resolves at module level: `size_of::<T>()`.
    Type(Box<syn::Type>),
    /// A reference or raw pointer whose pointee does not resolve.
    Reference,
    /// A written type that does not resolve at module level.
    Unresolved,
    /// A binding without a written type.
    Untyped,
}

/// A node of a function body.
#[derive(Clone, Debug)]
pub enum Node {
    /// This many built-in operations.
    Ops(u64),
    /// Executed one after the other.
    Seq(Vec<Node>),
    /// Exactly one of these runs (`if`, `match`).
    Choice(Vec<Node>),
    /// A loop.
    Loop {
        /// The loop construct.
        kind: LoopKind,
        /// How often the body runs.
        trip: Trip,
        /// The body, per iteration.
        body: Box<Node>,
        /// The loop expression.
        #[allow(dead_code)] // kept for diagnostics
        span: Span,
    },
    /// A call; the arguments are evaluated first.
    Call {
        /// The target.
        callee: Callee,
        /// The arguments (and receiver).
        args: Box<Node>,
        /// The call expression.
        span: Span,
    },
    /// A spawn construct.
    Spawn {
        /// The site.
        site: SiteId,
        /// What is evaluated in the spawning task (receiver, non-task arguments).
        args: Box<Node>,
        /// The task bodies.
        tasks: Vec<Node>,
    },
    /// A declaration of one binding (or one typed pattern).
    Decl {
        /// Its size.
        size: Size,
        /// The binding or type.
        #[allow(dead_code)] // kept for diagnostics
        span: Span,
    },
    /// A macro invocation (invisible inside).
    Macro {
        /// The invocation.
        #[allow(dead_code)] // kept for diagnostics
        span: Span,
    },
}

/// Where a node sits, for [`Node::walk`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkCtx {
    /// Inside a task body of a spawn construct.
    pub in_spawn: bool,
    /// Inside a loop body.
    pub in_loop: bool,
    /// Number of enclosing spawn constructs.
    pub spawn_depth: u32,
}

impl Node {
    /// Calls `f` on this node and every node below it, pre-order, with its
    /// context.
    pub fn walk(&self, ctx: WalkCtx, f: &mut dyn FnMut(&Node, WalkCtx)) {
        f(self, ctx);
        match self {
            Node::Seq(nodes) | Node::Choice(nodes) => {
                for n in nodes {
                    n.walk(ctx, f);
                }
            }
            Node::Loop { body, .. } => body.walk(
                WalkCtx {
                    in_loop: true,
                    ..ctx
                },
                f,
            ),
            Node::Call { args, .. } => args.walk(ctx, f),
            Node::Spawn { args, tasks, .. } => {
                args.walk(ctx, f);
                let inner = WalkCtx {
                    in_spawn: true,
                    spawn_depth: ctx.spawn_depth + 1,
                    ..ctx
                };
                for t in tasks {
                    t.walk(inner, f);
                }
            }
            Node::Ops(_) | Node::Decl { .. } | Node::Macro { .. } => {}
        }
    }
}

/// A sequence, flattened, without empty parts.
pub fn seq(nodes: impl IntoIterator<Item = Node>) -> Node {
    let mut out = Vec::new();
    let mut ops = 0u64;
    for n in nodes {
        match n {
            Node::Ops(k) => ops = ops.saturating_add(k),
            Node::Seq(inner) => {
                for n in inner {
                    match n {
                        Node::Ops(k) => ops = ops.saturating_add(k),
                        n => out.push(n),
                    }
                }
            }
            n => out.push(n),
        }
    }
    if ops > 0 {
        out.push(Node::Ops(ops));
    }
    match out.len() {
        0 => Node::Ops(0),
        1 => out.pop().unwrap_or(Node::Ops(0)),
        _ => Node::Seq(out),
    }
}

/// Builds the model of an inline module.
///
/// Fails only on what `emit` could not handle: a module without a body, or an
/// item the macro would emit (`PARAMS`, `ANALYSIS`) already
/// defined by the module.
pub fn build(module: &syn::ItemMod) -> syn::Result<Program> {
    let Some((_, items)) = &module.content else {
        return Err(syn::Error::new(
            module.ident.span(),
            "#[task_program] needs an inline module with a body: `mod name { ... }`",
        ));
    };
    let mut errors: Option<syn::Error> = None;
    let mut scope = ModuleScope::default();
    let mut sources: Vec<FnSource<'_>> = Vec::new();

    for item in items {
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
                });
            }
            syn::Item::Impl(imp) => {
                let ty_name = impl_type_name(&imp.self_ty);
                for it in &imp.items {
                    if let syn::ImplItem::Fn(f) = it {
                        let method = f.sig.ident.to_string();
                        scope
                            .methods
                            .entry((ty_name.clone(), method.clone()))
                            .or_insert(sources.len());
                        sources.push(FnSource {
                            name: format!("{ty_name}::{method}"),
                            span: f.sig.ident.span(),
                            sig: &f.sig,
                            block: &f.block,
                            impl_generics: Some(&imp.generics),
                            impl_type: Some(ty_name.clone()),
                        });
                    }
                }
            }
            syn::Item::Const(c) => {
                scope.consts.insert(c.ident.to_string());
            }
            _ => {}
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }

    // Imports: crate aliases first (`use prescient as p;` may be used by
    // `use p::join;` in any order), then everything else.
    if !scope.items.contains("prescient") {
        scope.imports.crate_aliases.insert("prescient".to_string());
    }
    for item in items {
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
    let mut prescient_uses = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if let syn::Item::Use(u) = item {
            let mut feeds_spawn = false;
            let leading = u.leading_colon.is_some();
            collect_use(&u.tree, &[], leading, &mut scope.imports, &mut feeds_spawn);
            if feeds_spawn {
                prescient_uses.push(index);
            }
        }
    }

    let mut sites = Vec::new();
    let mut functions = Vec::new();
    for (id, src) in sources.iter().enumerate() {
        let mut b = FnBuilder::new(&scope, id, src, &mut sites);
        let body = b.function(src.sig, src.block);
        functions.push(Function {
            name: src.name.clone(),
            span: src.span,
            body,
        });
    }
    Ok(Program {
        module: module.ident.to_string(),
        functions,
        sites,
        prescient_uses,
    })
}

/// A function's syntax, while building.
struct FnSource<'a> {
    name: String,
    span: Span,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
    impl_generics: Option<&'a syn::Generics>,
    impl_type: Option<String>,
}

/// Module-level names.
#[derive(Default)]
struct ModuleScope {
    fns: HashMap<String, FnId>,
    methods: HashMap<(String, String), FnId>,
    consts: HashSet<String>,
    items: HashSet<String>,
    imports: Imports,
}

/// What the module imports.
#[derive(Default)]
struct Imports {
    /// Names that denote the `prescient` crate.
    crate_aliases: HashSet<String>,
    /// Local name → path inside `prescient`.
    names: HashMap<String, Vec<String>>,
    /// `use prescient::*`.
    glob: bool,
    /// Names imported from anywhere else.
    others: HashSet<String>,
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
fn item_names(item: &syn::Item) -> Vec<syn::Ident> {
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

/// Records what a `use` tree imports; `feeds_spawn` is set when it imports
/// `join`/`spawn` from `prescient` or glob-imports `prescient`.
fn collect_use(
    tree: &syn::UseTree,
    prefix: &[String],
    leading_colon: bool,
    imports: &mut Imports,
    feeds_spawn: &mut bool,
) {
    let from_prescient = |path: &[String], imports: &Imports| match path.first() {
        Some(first) if leading_colon => first == "prescient",
        Some(first) => imports.crate_aliases.contains(first),
        None => false,
    };
    let mut record = |name: String, full: Vec<String>, imports: &mut Imports| {
        if name == "_" {
            return;
        }
        if full.len() == 1 && from_prescient(&full, imports) {
            return; // `use prescient;` / `use prescient as p;`: an alias, already known.
        }
        if from_prescient(&full, imports) {
            let inner = full[1..].to_vec();
            if matches!(inner.last().map(String::as_str), Some("join" | "spawn")) {
                *feeds_spawn = true;
            }
            imports.names.insert(name, inner);
        } else {
            imports.others.insert(name);
        }
    };
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix.to_vec();
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, &prefix, leading_colon, imports, feeds_spawn);
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
            if prefix.len() == 1 && from_prescient(prefix, imports) {
                imports.glob = true;
                *feeds_spawn = true;
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_use(t, prefix, leading_colon, imports, feeds_spawn);
            }
        }
    }
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
    /// An item or `use` local to a block.
    Item,
}

/// What a path in value position denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Resolved {
    /// A local binding.
    Local,
    /// A module function.
    Module(FnId),
    /// A path inside `prescient` (crate name stripped).
    Prescient(Vec<String>),
    /// Anything else.
    Unknown,
}

/// Builds the body of one function, with a lexical environment.
struct FnBuilder<'a> {
    module: &'a ModuleScope,
    fn_id: FnId,
    impl_type: Option<String>,
    generics: HashSet<String>,
    lifetimes: HashSet<String>,
    env: Vec<HashMap<String, Binding>>,
    sites: &'a mut Vec<Site>,
}

impl<'a> FnBuilder<'a> {
    fn new(
        module: &'a ModuleScope,
        fn_id: FnId,
        src: &FnSource<'_>,
        sites: &'a mut Vec<Site>,
    ) -> Self {
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
        FnBuilder {
            module,
            fn_id,
            impl_type: src.impl_type.clone(),
            generics,
            lifetimes,
            env: Vec::new(),
            sites,
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.env.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: String, b: Binding) {
        if let Some(top) = self.env.last_mut() {
            top.insert(name, b);
        }
    }

    fn function(&mut self, sig: &syn::Signature, block: &syn::Block) -> Node {
        self.env.push(HashMap::new());
        let mut parts = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    let size = match &r.kind {
                        syn::ReceiverKind::Reference(..) => Size::Reference,
                        _ => Size::Unresolved,
                    };
                    parts.push(Node::Decl {
                        size,
                        span: r.self_token.span,
                    });
                }
                syn::FnArg::Typed(pt) => {
                    parts.push(self.typed_binding(&pt.pat, &pt.ty));
                }
            }
        }
        parts.push(self.block(block));
        self.env.pop();
        seq(parts)
    }

    /// A pattern with a written type: one declaration of the type's size.
    fn typed_binding(&mut self, pat: &syn::Pat, ty: &syn::Type) -> Node {
        let kind = self.scope_kind_of_type(ty);
        let names = pat_idents(pat);
        let single = names.len() == 1;
        for n in names {
            let b = match kind {
                Some(k) if single => Binding::Scope(k),
                _ => Binding::Local,
            };
            self.bind(n, b);
        }
        Node::Decl {
            size: self.size_of_type(ty),
            span: ty.span(),
        }
    }

    /// A pattern without a written type: one declaration per binding.
    fn untyped_binding(
        &mut self,
        pat: &syn::Pat,
        binding: Binding,
        init: Option<&syn::Expr>,
    ) -> Node {
        let names = pat_idents(pat);
        let size = match (names.len(), init) {
            (1, Some(init)) => self.size_of_initializer(init),
            _ => Size::Untyped,
        };
        let mut decls = Vec::new();
        for n in names {
            decls.push(Node::Decl {
                size: size.clone(),
                span: pat.span(),
            });
            self.bind(n, binding);
        }
        seq(decls)
    }

    fn block(&mut self, block: &syn::Block) -> Node {
        self.env.push(HashMap::new());
        for stmt in &block.stmts {
            if let syn::Stmt::Item(item) = stmt {
                for name in item_names(item) {
                    self.bind(name.to_string(), Binding::Item);
                }
            }
        }
        let mut parts = Vec::new();
        for stmt in &block.stmts {
            parts.push(self.stmt(stmt));
        }
        self.env.pop();
        seq(parts)
    }

    fn stmt(&mut self, stmt: &syn::Stmt) -> Node {
        match stmt {
            syn::Stmt::Local(local) => {
                let mut parts = Vec::new();
                let init = local.init.as_ref().map(|i| &*i.expr);
                if let Some(i) = &local.init {
                    parts.push(self.expr(&i.expr));
                    if let Some((_, diverge)) = &i.diverge {
                        parts.push(self.expr(diverge));
                    }
                }
                match &local.pat {
                    syn::Pat::Type(pt) => {
                        let kind = self.scope_kind_of_type(&pt.ty);
                        let init_kind = init.and_then(|e| self.scope_kind_of_init(e));
                        parts.push(self.typed_binding(&pt.pat, &pt.ty));
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
            syn::Stmt::Expr(e, _) => self.expr(e),
            syn::Stmt::Macro(m) => Node::Macro { span: m.mac.span() },
        }
    }

    fn exprs<'e>(&mut self, exprs: impl IntoIterator<Item = &'e syn::Expr>) -> Node {
        let parts: Vec<Node> = exprs.into_iter().map(|e| self.expr(e)).collect();
        seq(parts)
    }

    fn expr(&mut self, e: &syn::Expr) -> Node {
        use syn::Expr as E;
        match e {
            E::Array(a) => self.exprs(&a.elems),
            E::Assign(a) => {
                let parts = [self.expr(&a.left), self.expr(&a.right), Node::Ops(1)];
                seq(parts)
            }
            E::Async(a) => self.block(&a.block),
            E::Await(a) => {
                let base = self.expr(&a.base);
                external_call(base, e.span())
            }
            E::Binary(b) => {
                let parts = [self.expr(&b.left), self.expr(&b.right), Node::Ops(1)];
                seq(parts)
            }
            E::Block(b) => self.block(&b.block),
            E::Break(b) => self.exprs(b.expr.as_deref()),
            E::Call(call) => self.call(call),
            E::Cast(c) => seq([self.expr(&c.expr), Node::Ops(1)]),
            E::Closure(c) => self.closure(c, Binding::Local),
            E::Const(_) | E::Continue(_) | E::Infer(_) | E::Lit(_) => Node::Ops(0),
            E::Field(f) => self.expr(&f.base),
            E::ForLoop(f) => {
                let iter = self.expr(&f.expr);
                let trip = self.iter_trip(&f.expr);
                self.env.push(HashMap::new());
                let decls = self.untyped_binding(&f.pat, Binding::Local, None);
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
                let decls = self.untyped_binding(&l.pat, Binding::Local, None);
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
            E::Macro(m) => Node::Macro { span: m.mac.span() },
            E::Match(m) => {
                let scrutinee = self.expr(&m.expr);
                let mut arms = Vec::new();
                for arm in &m.arms {
                    self.env.push(HashMap::new());
                    let mut parts = Vec::new();
                    match &arm.pat {
                        syn::Pat::Guard(g) => {
                            parts.push(self.untyped_binding(&g.pat, Binding::Local, None));
                            parts.push(self.expr(&g.guard));
                        }
                        p => parts.push(self.untyped_binding(p, Binding::Local, None)),
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
                Resolved::Module(id) => Node::Call {
                    callee: Callee::Module(id),
                    args: Box::new(Node::Ops(0)),
                    span: e.span(),
                },
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
                ])
            }
            E::Return(r) => self.exprs(r.expr.as_deref()),
            E::Struct(s) => {
                let fields = s.fields.iter().map(|f| &f.expr);
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
                    parts.push(self.typed_binding(&pt.pat, &pt.ty));
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

    /// The body of a task passed to a spawn construct: a closure, a module
    /// function, or something invisible.
    fn task(&mut self, arg: &syn::Expr, params: Binding) -> Node {
        match strip(arg) {
            syn::Expr::Closure(c) => self.closure(c, params),
            syn::Expr::Path(p) => match self.resolve_path(&p.path, p.qself.is_some()) {
                Resolved::Module(id) => Node::Call {
                    callee: Callee::Module(id),
                    args: Box::new(Node::Ops(0)),
                    span: arg.span(),
                },
                _ => external_call(Node::Ops(0), arg.span()),
            },
            other => {
                let value = self.expr(other);
                external_call(value, arg.span())
            }
        }
    }

    fn new_site(&mut self, kind: SiteKind, span: Span, rewrite: Option<CallKey>) -> SiteId {
        self.sites.push(Site {
            kind,
            function: self.fn_id,
            span,
            rewrite,
        });
        self.sites.len() - 1
    }

    fn call(&mut self, call: &syn::ExprCall) -> Node {
        let span = call.span();
        let syn::Expr::Path(p) = strip(&call.func) else {
            let func = self.expr(&call.func);
            let args = self.exprs(&call.args);
            return external_call(seq([func, args]), span);
        };
        match self.resolve_path(&p.path, p.qself.is_some()) {
            Resolved::Module(id) => Node::Call {
                callee: Callee::Module(id),
                args: Box::new(self.exprs(&call.args)),
                span,
            },
            Resolved::Prescient(path) => {
                let last = path.last().map(String::as_str).unwrap_or("");
                let module_path = path[..path.len().saturating_sub(1)]
                    .iter()
                    .all(|s| s.chars().next().is_some_and(|c| c.is_lowercase()));
                let construct = match last {
                    "join" if module_path => Some(SiteKind::Join),
                    "spawn" if module_path => Some(SiteKind::Spawn),
                    _ => None,
                };
                if let Some(kind) = construct {
                    let site = self.new_site(kind, span, Some(CallKey::of(call)));
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
            Resolved::Local | Resolved::Unknown => {
                let args = self.exprs(&call.args);
                external_call(args, span)
            }
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
                let site = self.new_site(site_kind, span, None);
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
                        other => args.push(self.expr(other)),
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
                    other => parts.push(self.expr(other)),
                }
            }
            return seq(parts);
        }
        if let (syn::Expr::Path(p), Some(ty)) = (strip(&m.receiver), &self.impl_type) {
            if p.path.is_ident("self") {
                if let Some(&id) = self.module.methods.get(&(ty.clone(), name.clone())) {
                    let args = self.exprs(&m.args);
                    return Node::Call {
                        callee: Callee::Module(id),
                        args: Box::new(seq([receiver, args])),
                        span,
                    };
                }
            }
        }
        let args: Vec<Node> = m.args.iter().map(|a| self.expr(a)).collect();
        external_call(seq([receiver, seq(args)]), span)
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
            return if first == "prescient" {
                Resolved::Prescient(segs[1..].to_vec())
            } else {
                Resolved::Unknown
            };
        }
        if first == "self" && segs.len() > 1 {
            return self.resolve_module_level(&segs[1..]);
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
        self.resolve_module_level(&segs)
    }

    fn resolve_module_level(&self, segs: &[String]) -> Resolved {
        let m = self.module;
        let first = &segs[0];
        if segs.len() == 1 {
            if let Some(&id) = m.fns.get(first) {
                return Resolved::Module(id);
            }
        }
        if segs.len() == 2 {
            if let Some(&id) = m.methods.get(&(first.clone(), segs[1].clone())) {
                return Resolved::Module(id);
            }
        }
        if m.imports.crate_aliases.contains(first) {
            return Resolved::Prescient(segs[1..].to_vec());
        }
        if let Some(inner) = m.imports.names.get(first) {
            let mut full = inner.clone();
            full.extend(segs[1..].iter().cloned());
            return Resolved::Prescient(full);
        }
        if m.items.contains(first) || m.imports.others.contains(first) {
            return Resolved::Unknown;
        }
        if m.imports.glob && PRESCIENT_GLOB_NAMES.contains(&first.as_str()) {
            return Resolved::Prescient(segs.to_vec());
        }
        Resolved::Unknown
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
    /// function (`TaskGroup::new()`).
    fn scope_kind_of_init(&self, e: &syn::Expr) -> Option<ScopeKind> {
        let syn::Expr::Call(c) = strip(e) else {
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
                self.module
                    .consts
                    .contains(name)
                    .then(|| Bound::Const(name.clone()))
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

    /// The size of a written type.
    fn size_of_type(&self, ty: &syn::Type) -> Size {
        if self.type_resolves(ty) {
            let mut ty = ty.clone();
            EraseLifetimes(&self.lifetimes).visit_type_mut(&mut ty);
            Size::Type(Box::new(ty))
        } else {
            match strip_type(ty) {
                syn::Type::Reference(_) | syn::Type::Ptr(_) => Size::Reference,
                _ => Size::Unresolved,
            }
        }
    }

    /// The size of an untyped binding: known only for array repeats of
    /// literals (`[0u8; 4096]`; an unsuffixed element counts as `u64` / `f64`,
    /// the largest type it is commonly inferred to).
    fn size_of_initializer(&self, e: &syn::Expr) -> Size {
        if !matches!(strip(e), syn::Expr::Repeat(_)) {
            return Size::Untyped;
        }
        match self.literal_type(e) {
            Some(ty) if self.type_resolves(&ty) => Size::Type(Box::new(ty)),
            _ => Size::Untyped,
        }
    }

    /// The type of a literal or an array repeat of one.
    fn literal_type(&self, e: &syn::Expr) -> Option<syn::Type> {
        match strip(e) {
            syn::Expr::Repeat(r) => {
                let elem = self.literal_type(&r.expr)?;
                self.bound(&r.len)?;
                let len = &r.len;
                Some(syn::parse_quote!([#elem; #len]))
            }
            syn::Expr::Lit(l) => {
                let name = match &l.lit {
                    syn::Lit::Int(i) if i.suffix().is_empty() => "u64",
                    syn::Lit::Int(i) => i.suffix(),
                    syn::Lit::Float(f) if f.suffix().is_empty() => "f64",
                    syn::Lit::Float(f) => f.suffix(),
                    syn::Lit::Bool(_) => "bool",
                    syn::Lit::Char(_) => "char",
                    syn::Lit::Byte(_) => "u8",
                    _ => return None,
                };
                syn::parse_str(name).ok()
            }
            _ => None,
        }
    }

    /// Whether a type means the same at module level as here.
    fn type_resolves(&self, ty: &syn::Type) -> bool {
        let mut check = ResolveCheck {
            builder: self,
            ok: true,
        };
        check.visit_type(ty);
        check.ok
    }
}

/// Checks that every path of a type resolves at module level.
struct ResolveCheck<'b, 'a> {
    builder: &'b FnBuilder<'a>,
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

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                let name = first.ident.to_string();
                if name == "Self"
                    || self.builder.generics.contains(&name)
                    || self.builder.lookup(&name).is_some()
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

/// A call of something invisible, after `args`.
fn external_call(args: Node, span: Span) -> Node {
    Node::Call {
        callee: Callee::External,
        args: Box::new(args),
        span,
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
        assert_eq!(p.prescient_uses, vec![0]);
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
        assert!(p.sites.iter().all(|s| s.rewrite.is_none()));
    }

    #[test]
    fn dataflow_tasks_are_sites() {
        let p = program(
            "mod m {
                use prescient::{dataflow, Dataflow};
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
                callees.push(*callee);
            }
        });
        assert_eq!(callees, vec![Callee::Module(1); 3]);
        let mut callees = Vec::new();
        p.functions[2].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Call { callee, .. } = n {
                callees.push(*callee);
            }
        });
        assert_eq!(
            callees,
            vec![Callee::Module(3), Callee::Module(3), Callee::External]
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
        let mut sizes = Vec::new();
        p.functions[1].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Decl { size, .. } = n {
                sizes.push(match size {
                    Size::Type(t) => quote::quote!(#t).to_string(),
                    Size::Reference => "ref".into(),
                    Size::Unresolved => "?".into(),
                    Size::Untyped => "untyped".into(),
                });
            }
        });
        assert_eq!(
            sizes,
            [
                "?",
                "ref",
                "& '_ S",
                "?",
                "[u8 ; 16]",
                "u64",
                "untyped",
                "[u8 ; 128]",
                "?",
                "?"
            ]
        );
        let mut method = Vec::new();
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
            if let Node::Decl { size, .. } = n {
                method.push(matches!(size, Size::Reference | Size::Unresolved));
            }
        });
        assert_eq!(method, [true, true]);
    }

    #[test]
    fn rejects_clashing_items_and_outline_modules() {
        let module: syn::ItemMod = syn::parse_str("mod m { const PARAMS: u8 = 1; }").unwrap();
        let e = build(&module).unwrap_err();
        assert!(e.to_string().contains("emits `PARAMS`"));
        let module: syn::ItemMod = syn::parse_str("mod m;").unwrap();
        assert!(build(&module).is_err());
    }
}
