//! The lowering: builds the [program model](crate::model) of an annotated
//! module from its syn AST.
//!
//! [`build_with`] collects the module's names first
//! ([`Modules::collect`]), then walks each function's signature and body
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
//!   `module_scope::PRESCIENT_GLOB_NAMES` and the root's library loops,
//!   `use prescient::slice::*` for the sorts), and the
//!   methods [`SPAWN_METHODS`](spawns::SPAWN_METHODS) called on a *scope value*: a parameter of a
//!   closure passed to a `prescient` function (`prescient::scope(|s| s.spawn(…))`)
//!   or to a scope spawn, a binding typed with a `prescient` scope type
//!   ([`SCOPE_TYPES`](builder::SCOPE_TYPES)) or initialised by one of its associated functions
//!   (`let g = TaskGroup::new()`). A local binding of the same name shadows all
//!   of these. `for_range(range, grain, body)` and `for_range_chunked(…)`,
//!   recognised the same way as `join`, are range loops: a
//!   [`LoopKind::RangeLoop`](crate::model::LoopKind::RangeLoop) around the site's spawn of `body`. `rayon::join`, `Path::join`, `thread::spawn` and
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
//!   `Type::method` path the module does not define is [`Callee::Maybe`](crate::model::Callee::Maybe) any
//!   module method of that name (trait default methods included) that can
//!   take the receiver — on a receiver whose type is visibly not the
//!   module's, only methods of traits the module implements for types not
//!   its own (`receivers`) — so recursion through it is in the call graph;
//!   so is an identifier naming a module function in a macro's tokens that
//!   do not parse as expressions.
//! * **Calls through values** (function pointers, closures in variables,
//!   fields or parameters, tasks passed as values) are [`Callee::Indirect`](crate::model::Callee::Indirect):
//!   every module function that escapes into a value (`values`).
//! * **The module's `macro_rules!` macros** are expanded at their
//!   invocations and lowered as the code they expand to (`expand`).
//! * **Macro arguments** of other macros that parse as comma-separated
//!   expressions (or `expr; expr`) are modelled like code; spawns there are
//!   sites, not rewritten.
//! * **What is not seen** is marked for the report: [`Node::Unseen`](crate::model::Node::Unseen) next to
//!   each invisible, by-name or indirect call (unknown sizes, trip counts and
//!   macros are read from their own nodes).
//! * **Stored task closures**: `let l = move || …;` keeps the closure's body
//!   aside; a spawn construct (or a call `l()`) that takes `l` gets it as its
//!   task, otherwise it counts at the end of its block.
//! * **`#[cfg]`-gated** items, methods, statements, parameters, arms and
//!   fields are skipped ([`cfg_gated`](crate::module_scope::cfg_gated)).
//! * **Sizes** of declarations and temporaries: see `stack`.
//!
//! Invisible to the model, and estimated instead: the expansion of other
//! macros, items nested in bodies, modules outside the program (see
//! `module_scope`: inline modules nested in the annotated one are part of
//! it, each function lowered with its own module's names), calls through trait
//! objects (but by method name), and calls of values made outside the
//! module.
//!
//! # Files
//!
//! One concept per file; this one only declares them and re-exports the
//! entry points:
//!
//! * `program`: [`build_with`], the whole module;
//! * `builder`: the [`FnBuilder`] of one function, its lexical environment
//!   and what a path denotes;
//! * `bindings`: parameters, blocks, statements and the bindings of
//!   patterns;
//! * `expressions`: each kind of expression, and closures;
//! * `calls`: calls of module functions and of what is invisible;
//! * `spawns`: spawn constructs, scope values and tasks;
//! * `trip_counts`: what runs in a loop, and how many times;
//! * `sizes`: the sizes of declarations and temporaries;
//! * `expr_types`: which types resolve at module level, and the types of
//!   expressions;
//! * `macro_tokens`: invocations of macros other than the module's own;
//! * `expand`, `receivers`, `values`: the three holes of the name-only
//!   resolution closed (see above);
//! * `syntax`: helpers over the syn AST that know nothing of the builder.
//!
//! [`Modules::collect`]: crate::module_scope::Modules::collect
//! [`FnBuilder`]: builder::FnBuilder

mod bindings;
mod builder;
mod calls;
mod expand;
mod expr_types;
mod expressions;
mod macro_tokens;
mod program;
mod receivers;
mod sizes;
mod spawns;
mod syntax;
mod trip_counts;
mod values;

#[cfg(test)]
pub(crate) use program::build;
pub(crate) use program::build_with;
