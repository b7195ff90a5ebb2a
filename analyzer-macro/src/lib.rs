//! `#[task_program]`: the static analyzer of the Prescient task runtime.
//!
//! Put the attribute on an inline module holding a program's task code. At
//! compile time it runs the analyses of Thoman, Zangerl and Fahringer,
//! *Task-parallel runtime system optimization using static compiler analysis*
//! (CF'17) — task contexts, parallel structure ρ/λ, effort, stack size — and
//! emits, inside the module, the runtime parameters that decision trees choose
//! from them (the trees calibrated on this runtime by default, or CF'17's with
//! `trees = cf17`; see below):
//!
//! ```ignore
//! #[prescient::task_program]
//! pub mod fib {
//!     use prescient::join;
//!
//!     pub fn fib(n: u64) -> u64 {
//!         if n < 2 {
//!             return n;
//!         }
//!         let (a, b) = join(|| fib(n - 1), || fib(n - 2));
//!         a + b
//!     }
//! }
//!
//! // How PARAMS reaches the runtime:
//! let runtime = prescient::Runtime::builder().params(fib::PARAMS).build();
//! println!("{}", fib::ANALYSIS); // the report: contexts, sites, parameters
//! ```
//!
//! # What is emitted
//!
//! * `pub const PARAMS: prescient::Params` — the decision trees applied to the
//!   analysis (the calibrated trees unless `trees = cf17`; queue policy,
//!   queue capacity, dependency buckets, and the committed stack: the
//!   analysed stack estimate, which every task stack pre-faults and a
//!   recycled stack is trimmed back to — never a limit; the limit is the
//!   reserve, `Params::stack_size`, 8 MiB unless `stack_size = …` says
//!   otherwise; every other field `Params::DEFAULT`'s), with the attribute's overrides,
//!   validated at compile time. Pass it to the runtime builder:
//!   `prescient::Runtime::builder().params(my_mod::PARAMS).build()`. Each
//!   annotated module has its own.
//! * `pub const ANALYSIS: prescient::analysis::ProgramAnalysis` — ρ, λ, effort
//!   and stack per task context and aggregated, and the spawn-site table
//!   (`ANALYSIS.sites`: site number, enclosing function, kind, location,
//!   per-site static effort); its `Display` is a human-readable report,
//!   which also says, per context, what the analysis could not see
//!   (`ContextAnalysis::unseen`: calls into other modules and crates,
//!   method calls it matched by name only or not at all, calls through
//!   function pointers and closures, macros it did not expand, locals of
//!   unwritten size, loops without a visible trip count — each a count and
//!   the first one's location), where its estimates stand in for the code.
//! * One hidden `static` of type `prescient::__private::SpawnSite` per spawn
//!   site: a site's id is the address of its static, unique across every
//!   annotated module of a program. `ANALYSIS.sites` refers to the `SiteInfo`
//!   inside these statics.
//! * Recognised `join(a, b)` calls become
//!   `prescient::__private::join_at(&SITE, a, b)`, `spawn(f)` calls
//!   `prescient::__private::spawn_at(&SITE, f)`, and `for_range(r, g, f)` /
//!   `for_range_chunked(r, g, f)` calls `for_range_at(&SITE, r, g, f)` /
//!   `for_range_chunked_at(&SITE, r, g, f)`: they compute the same thing
//!   and receive the site's id, for the adaptive inliner. Scope and
//!   task-group `spawn(f)` calls become `__spawn_at(&SITE, f)`, a hidden
//!   method of the same receiver. Dataflow tasks are recorded as sites and
//!   left unchanged.
//!   A rewritten call through a path keeps the path's crate segment
//!   (`p::join(…)` → `p::__private::join_at(…)`); an imported name that no
//!   rewritten call names any more (`join` of `use prescient::join`) is used
//!   once more by a hidden anonymous `const`, and every emitted item is used
//!   from another, so the expansion needs no `#[allow(…)]`: a module's
//!   `#![forbid(unused_imports)]`, `#![forbid(dead_code)]` or
//!   `#![forbid(unused)]` holds. The user's code is otherwise unchanged.
//!
//! The macro emits the *raw* analysis: effort and stack contain `const` terms —
//! `core::mem::size_of::<T>()` for types written in the code, module-level
//! `const` loop bounds, the runtime's per-join frame cost — that rustc
//! evaluates; `prescient::analysis` aggregates (ρ, λ by minimum over contexts,
//! effort by mean, stack by maximum; the committed stack is the estimate in
//! whole 4 KiB pages, at most 256 KiB, and nothing for an estimate below
//! 16 KiB or of 8 MiB or more — `prescient::analysis::committed_stack_size`)
//! and decides, in
//! `const fn`s, with one of two sets of decision trees,
//! `prescient::analysis::Trees`:
//!
//! * **calibrated** (`Trees::Calibrated`, the default): the same features and
//!   decisions, with trees derived on this runtime from a parameter sweep of
//!   the CF'17 programs; see `prescient::analysis::calibrated`;
//! * **CF'17's** (`Trees::Cf17`, with `#[task_program(trees = cf17)]`): the
//!   paper's trees, derived on the Insieme runtime
//!   (`prescient::analysis::cf17`). CF'17's rules:
//!
//!   * queue policy = `PF` if ρ > 5 or 1M < e ≤ 1T, else `DEF`;
//!   * queue capacity = 128 if ρ = 0 and λ > 0; else 8 if 1M < e ≤ 1T; else 4;
//!   * dependency buckets = 256019 if ρ > 0, else 97;
//!   * committed stack = the aggregated estimate (the reserve stays
//!     `Params::stack_size`).
//!
//! Both decide queue policy, queue capacity, dependency buckets and the
//! committed stack; the attribute's overrides apply on top of either.
//!
//! # Arguments
//!
//! `trees = cf17` or `trees = calibrated` (also `Cf17`, `Calibrated`) picks
//! the decision trees `PARAMS` start from (calibrated when absent). Each other
//! argument overrides one parameter, on top of the trees' choice:
//! `#[task_program(stack_size = 65536)]`, `queue_capacity = 8`,
//! `queue_policy = InsertFrontStealBack` (a `QueuePolicy` variant name),
//! `dependency_buckets = 97`. Integer literals are validated by the macro;
//! other `const` expressions by `Params::checked` at compile time.
//! `stack_size = …` sets the reserve of every task stack — the hard limit,
//! like a thread's, mapped without commit charge: a power of two in
//! 16 KiB ..= 1 GiB (8 MiB without it); the analysed estimate stays what is
//! committed. `crate = rt` names a renamed dependency (below).
//!
//! # What the analysis sees
//!
//! The macro has no name resolution, so it is conservative:
//!
//! * **Spawn constructs** are `prescient::…` paths (`prescient::join`,
//!   `::prescient::spawn`), names the module imports from `prescient`
//!   (`use prescient::{join, spawn as sp}`, `use prescient as p`, and
//!   `use prescient::*` for `join`, `spawn`, the loops, `scope`,
//!   `dataflow`, `Scope`, `TaskGroup`, `Dataflow` and `slice`, and
//!   `use prescient::slice::*` for the sorts), and the methods `spawn` / `task` called on a
//!   *scope value*: the parameter of a closure passed to a `prescient` function
//!   (`prescient::scope(|s| s.spawn(…))`, `prescient::dataflow(|df| df.task()…)`)
//!   or to a scope spawn, or a binding typed `prescient::Scope`, `TaskGroup` or
//!   `Dataflow` or initialised by their associated functions
//!   (`let g = TaskGroup::new()`). Local bindings shadow all of these.
//!   `rayon::join`, `Path::join`, `std::thread::spawn` and
//!   `std::thread::scope(|s| s.spawn(…))` are never spawns. `Runtime::run` is
//!   the parallel region, not a task.
//! * **Nested modules**: an inline module nested in the annotated one (at
//!   any depth, unless `#[cfg]`-gated or annotated with `#[task_program]`
//!   itself) is part of the program: its functions are module functions
//!   (named `odd::odd` in the report), its spawn sites are sites and are
//!   rewritten like the others (each still gets its own static, in the
//!   annotated module, reached through `super::`). Paths are followed
//!   between the modules as rustc resolves them — `self::`, `super::`, a
//!   nested module's name (`odd::odd(n)`), each module's own `use`s
//!   (`use super::even;`, `use self::odd::odd as o;`, `use super::*;`) —
//!   and names are not inherited (a nested module sees the enclosing one's
//!   names only through `super::` or a `use`). `super::` above the annotated
//!   module and modules in files of their own (`mod x;`, not in the
//!   attribute's tokens) are outside the program. A `crate::…` path that
//!   names the annotated module (`crate::app::prog::even`) is followed as a
//!   *possible* call of that function, since the macro cannot know where
//!   the module sits in its crate: recursion through it counts for ρ, and
//!   the report lists it. Sizes and `const` loop bounds are emitted in the
//!   annotated module, so in a nested module only types that mean the same
//!   there are sized (primitives, the prelude's `Vec`/`String`/`Box`/
//!   `Option`/`Result`, `std::…`, `::…` and `crate::…` paths, when neither
//!   module defines the name); its own types and `const`s are unknown.
//! * **Task contexts** (Alg. 1): a spawn site's context is the innermost module
//!   function containing it (closures belong to their function).
//! * **ρ** (Alg. 2): recursive parallel paths reachable from a context — a call
//!   that reaches, directly or mutually, back to a function on its own call
//!   path, with at least one call of that cycle inside a task body. **λ**: spawn
//!   sites reachable from a context that run inside a loop (`for`, `while`,
//!   `loop`, iterator closures such as `for_each`); a range loop
//!   (`for_range`, `for_range_chunked`) is a site whose task is the loop body,
//!   in a loop of its own, so it counts wherever it is written. Counts per
//!   context, as in CF'17 Table 3.
//! * **Effort** (Alg. 3) in units of one built-in operation: operators cost 1,
//!   a call 2 plus its arguments plus the callee (a recursive call: arguments
//!   only), an invisible call 10, a macro invocation 10, a spawn construct 10
//!   plus its tasks, a loop its trip count × (body + 1), `if`/`match` the
//!   dearest branch. A loop's trip count is its literal one, or a module-level
//!   `const` bound (`0..N`) that no generic, const parameter or local binding
//!   could shadow, else 100. A site's effort is that of its task bodies; a
//!   context's is the mean over its sites. Arithmetic saturates.
//! * **Stack** (Alg. 4), the committed stack — what each task stack
//!   pre-faults and a recycled one keeps; a wrong estimate costs page faults
//!   or memory, never a crash, since the reserve (`stack_size`) is the
//!   limit: per frame, the sum of the declarations and temporaries — `size_of::<T>()`
//!   where `T` is written, or follows from the initializer (`[x; LEN]` from
//!   `x`'s type and `LEN`, a module function's return type, `join`'s results,
//!   literals, casts), and resolves at module level (no generic or const
//!   parameter of the function or its `impl`, no `Self`, no item or `use`
//!   local to a body, no `_`) — plus 64 bytes of frame overhead; a task
//!   body is a frame of its own below
//!   `prescient::__private::JOIN_FRAME_BYTES` per level of spawn nesting (the
//!   deepest chain of them counts, not their sum), and a range loop's body
//!   also below two join frames per level of its splitting (⌈log2 ⌈trips /
//!   grain⌉⌉ levels where both are visible, at most 4: splits answer
//!   thieves' requests, so a stack nests a level per request its worker
//!   answers); plus the largest stack of the callees. Since the estimate is
//!   what every stack pre-faults, uncertain parts are charged typical
//!   values, not bounds, and a task that goes deeper faults its further
//!   pages in. A recursion is trusted only where its depth is bounded: a
//!   function calling itself with an integer parameter halved (`f(n / 2)`:
//!   at most bits + 1 levels, charged at most 16, a problem 2^16 times its
//!   base case). Any other recursion
//!   (`fib(n - 1)`, mutual recursion), and any recursion with a local of
//!   unknown size or a call the macro cannot see (method calls on values,
//!   macros, paths outside the module, calls through values), gets the
//!   conservative 8 MiB, which the runtime reads as unbounded: no stack is
//!   committed, and the reserve is the limit. Outside recursion, unknown
//!   pieces get typical sizes (a call it cannot see: one page). The rules
//!   and their reasons are in the `stack` module.
//! * **`#[cfg]`**: the attribute sees the module before cfg stripping, so
//!   cfg-gated items (functions, `impl` and trait methods, `use`s, `const`s),
//!   statements, parameters, `match` arms and struct-literal fields are not
//!   analysed at all: `PARAMS` is the same in every configuration, and no
//!   type of a compiled-out item is emitted. Code under `#[cfg]` that runs
//!   (a `#[cfg(test)]` helper in a test build) is not covered by the estimate.
//!   Attributes on other expressions (array elements, call arguments) are not
//!   looked at.
//! * **The module's own macros**: an invocation of a `macro_rules!` macro the
//!   module defines (at module level before the invoking item, or in an
//!   enclosing block before the invocation) is expanded — its rules matched
//!   as rustc matches them, fragments parsed with syn — and analysed as the
//!   code it expands to: a `join` and a recursive call in its body are a
//!   site and a call of the invoking function. Such sites are counted for ρ,
//!   λ and effort but not rewritten to pass their id (the body's tokens
//!   serve every invocation), so they run without the adaptive inliner's
//!   per-site statistics; an invocation that cannot be expanded is treated
//!   as any other macro, with the module functions its rules name taken as
//!   possible calls.
//! * **Method calls on values**: `l.sum()` may be any module method named
//!   `sum` — unless the receiver's type is visibly not the module's: a
//!   literal, array, range, tuple or closure, `vec![…]`, a binding or field
//!   whose written type (or initializer) is a primitive, a slice, an array,
//!   a tuple, a function pointer or a standard container, string, `Option`
//!   or `Result` (through references, `Box`, `Rc`, `Arc`), the result of an
//!   iterator source or adaptor or another method with a standard result
//!   the module does not define (`x.iter()`, `….map(f)`, `v.len()`), a
//!   standard constructor (`Vec::new()`). On such a receiver only a trait's
//!   default method or a method of a trait the module implements for a type
//!   not its own (`impl Ext for Vec<u64>`) can be called; so
//!   `row.iter().sum()` in `Matrix::sum` is not a recursion, while
//!   `self.sum()`, `node.sum()` and `self.left.sum()` still may be.
//! * **Calls through values**: a call through a function pointer, a closure
//!   held in a variable, field or parameter, or a task passed as a value
//!   (`(v.visit)(x)`, `(self.f)(x)`, `callbacks[i](x)`, `f(x)` with
//!   `f: fn(u64)`, `spawn(task)`) may run every module function that the
//!   module lets escape into a value — named as a value (`visit: walk`,
//!   `let f: fn(u64) = walk;`, `apply(walk, x)`, a `static` table) or called
//!   by a closure that becomes a value (`apply(|x| walk(x), n)`,
//!   `Box::new(move |x| walk(x))`) — so recursion through it counts for ρ
//!   where a spawn is on the cycle (in the closure too). A `let` closure
//!   called again after a construct took its body runs its own callees.
//! * **Seen through** as well: a trait's default method, the arguments of any
//!   macro when they parse as expressions (`vec![join(…)]`: the `join` is a
//!   site, not rewritten); a task closure stored in a `let` and passed to a
//!   spawn construct later (`let l = move || fib(n - 1); join(l, r)`); a
//!   scope value under another name (`let s2 = s;`, `let s2 = &s;`).
//! * **Invisible**, and estimated (conservatively in recursion), and listed
//!   per context in the report: the expansion of other macros and arguments
//!   that do not parse as expressions, items nested in function bodies or
//!   made by a macro invoked at module level, calls (or recursion) through
//!   modules outside the program, through
//!   trait objects (except by method name) and through function values made
//!   outside the module; scope values stored in structs, returned from
//!   functions or passed as parameters without a `prescient` type written.
//!
//! # A renamed dependency
//!
//! The emitted code names the runtime `::prescient`. With a renamed
//! dependency (`rt = { package = "prescient", … }` in `[dependencies]`,
//! `[dev-dependencies]`, a `[target.'…'.dependencies]` table, or inherited
//! with `workspace = true`) it names `::rt`: the macro reads the name from
//! the crate's `Cargo.toml` (`CARGO_MANIFEST_DIR`), as proc-macro crates
//! commonly do, and the module's paths and `use`s may then say `rt`
//! (`use rt::join;`). `#[task_program(crate = rt)]` or
//! `#[task_program(crate = "rt")]` (as serde's `#[serde(crate = "…")]`) names
//! the crate explicitly and wins over the manifest; a one-segment path is also
//! recognised as the crate in the module's paths and `use`s.
//!
//! # Errors
//!
//! The attribute on anything but an inline module, and malformed or unknown
//! arguments, are compile errors pointing at the offending tokens; the item is
//! still emitted (with the analysis, if only an argument was wrong) so no
//! follow-on errors appear.

#![deny(missing_docs)]

// The pipeline: `args` parses the attribute's arguments (`manifest` reads a
// renamed dependency's name from the crate's Cargo.toml); `module_scope`
// collects the module's names (and its `macro_rules!` macros, parsed by
// `macros`) and `lower` builds the program `model` from the syn AST (with
// `types` telling which types are visibly not the module's); `analysis` runs
// the analyses over the model (`contexts`, `structure`, `effort`, `stack`,
// on the symbolic terms of `sym`, and `unseen` for the report); `emit`
// writes `PARAMS`, `ANALYSIS` and the site statics into the module and
// rewrites its `join`/`spawn`/`for_range` calls.
mod analysis;
mod args;
mod contexts;
mod effort;
mod emit;
mod library_loops;
mod lower;
mod macros;
mod manifest;
mod model;
mod module_scope;
mod stack;
mod structure;
mod sym;
#[cfg(test)]
mod test_support;
mod types;
mod unseen;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// Analyses the inline module it is put on and emits, inside it:
///
/// * `pub const PARAMS: prescient::Params` — the parameters decision trees
///   choose from the module's parallel structure (ρ: recursive parallel
///   paths, λ: spawn sites in loops), task effort and stack needs, as
///   analysed after Thoman, Zangerl and Fahringer (CF'17), validated at
///   compile time. The trees are `prescient::analysis::Trees`: by default
///   those calibrated on this runtime, with `trees = cf17` the paper's;
/// * `pub const ANALYSIS: prescient::analysis::ProgramAnalysis` — what the
///   analysis found, per task context and aggregated, with the spawn-site
///   table; its `Display` is a report.
///
/// The module's code is unchanged, except that its `join`/`spawn` calls pass
/// their spawn site's id to the runtime.
///
/// `trees = cf17` / `trees = calibrated` picks the decision trees; the other
/// arguments override single parameters on top of them and keep the rest:
/// `#[task_program(stack_size = 65536, queue_capacity = 8, queue_policy = InsertFrontStealBack,
/// dependency_buckets = 97)]`; `crate = path` names a renamed `prescient`
/// dependency (otherwise read from the crate's `Cargo.toml`). A misspelt or malformed argument, or the attribute on anything
/// but an inline module, is a compile error pointing at it.
#[proc_macro_attribute]
pub fn task_program(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand(args.into(), item.into()).into()
}

/// The expansion, on `proc_macro2` tokens.
fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let (mut overrides, mut errors) = args::parse(args);
    if overrides.krate.is_none() {
        // A renamed dependency (`rt = { package = "prescient", … }`): the
        // name the user's manifest gives the crate.
        overrides.krate = manifest::renamed_crate_here()
            .and_then(|name| syn::parse_str::<syn::Ident>(&name).ok())
            .map(|name| syn::parse_quote!(::#name));
    }
    let fail = |e: syn::Error, errors: &mut Option<syn::Error>| match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    };
    let module = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Mod(m)) if m.content.is_some() => Some(m),
        Ok(syn::Item::Mod(m)) => {
            let head = quote!(#m);
            fail(
                syn::Error::new_spanned(
                    head,
                    "#[task_program] needs an inline module with a body: `mod name { ... }`",
                ),
                &mut errors,
            );
            None
        }
        Ok(other) => {
            fail(
                syn::Error::new_spanned(
                    item_head(&other),
                    "#[task_program] applies to an inline module (`mod name { ... }`) holding the task code",
                ),
                &mut errors,
            );
            None
        }
        Err(e) => {
            fail(e, &mut errors);
            None
        }
    };
    let output = match module {
        Some(module) => match lower::build_with(&module, overrides.krate.as_ref()) {
            Ok(program) => {
                let result = analysis::analyse(&program);
                emit::module(module, &program, &result, &overrides)
            }
            Err(e) => {
                fail(e, &mut errors);
                item
            }
        },
        None => item,
    };
    let errors = errors.map(|e| e.to_compile_error());
    quote!(#output #errors)
}

/// The tokens that name an item (its keyword and name), for error spans.
fn item_head(item: &syn::Item) -> TokenStream {
    match item {
        syn::Item::Struct(i) => {
            let (k, n) = (&i.struct_token, &i.ident);
            quote!(#k #n)
        }
        syn::Item::Enum(i) => {
            let (k, n) = (&i.enum_token, &i.ident);
            quote!(#k #n)
        }
        syn::Item::Fn(i) => {
            let (k, n) = (&i.sig.fn_token, &i.sig.ident);
            quote!(#k #n)
        }
        syn::Item::Trait(i) => {
            let (k, n) = (&i.trait_token, &i.ident);
            quote!(#k #n)
        }
        syn::Item::Impl(i) => {
            let (k, t) = (&i.impl_token, &i.self_ty);
            quote!(#k #t)
        }
        syn::Item::Const(i) => {
            let (k, n) = (&i.const_token, &i.ident);
            quote!(#k #n)
        }
        syn::Item::Static(i) => {
            let (k, n) = (&i.static_token, &i.ident);
            quote!(#k #n)
        }
        syn::Item::Type(i) => {
            let (k, n) = (&i.type_token, &i.ident);
            quote!(#k #n)
        }
        other => other.to_token_stream(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_keep_the_item() {
        let out = expand(
            quote!(),
            quote!(
                struct S {
                    x: u8,
                }
            ),
        )
        .to_string();
        assert!(out.starts_with("struct S {"), "{out}");
        assert!(out.contains("compile_error"));
        assert!(out.contains("applies to an inline module"));

        let out = expand(
            quote!(),
            quote!(
                mod m;
            ),
        )
        .to_string();
        assert!(out.contains("needs an inline module with a body"), "{out}");

        let out = expand(
            quote!(stack = 1),
            quote!(
                mod m {
                    fn f() {}
                }
            ),
        )
        .to_string();
        assert!(out.contains("unknown task_program argument"), "{out}");
        assert!(
            out.contains("pub const PARAMS"),
            "the analysis is still emitted: {out}"
        );
    }
}
