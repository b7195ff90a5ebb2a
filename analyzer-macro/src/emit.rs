//! Emission: the annotated module, with its `join`/`spawn` calls passing their
//! site ids, followed by the analysis as `const`s and `static`s.
//!
//! Appended to the module (all paths absolute, `::prescient::…`; what only
//! the emitted code uses is under `::prescient::__private`):
//!
//! ```text
//! const __PRESCIENT_EFFORT_i / __PRESCIENT_STACK_i: u64  // per function, when not a literal
//! static __PRESCIENT_SITE_k: SpawnSite       // one per spawn site; its address is the id
//! const __PRESCIENT_SITES, __PRESCIENT_CONTEXT_SITES_c, __PRESCIENT_CONTEXTS  // tables
//! const __PRESCIENT_CONTEXT_UNSEEN_c: [Unseen; n] // per context, what it could not see
//! pub const ANALYSIS: ProgramAnalysis        // raw analysis + const fn aggregation
//! pub const PARAMS: Params                   // ANALYSIS.params(trees), overrides, checked
//! ```
//!
//! Recognised `join(a, b)` calls become
//! `::prescient::__private::join_at(&SITE, a, b)`, `spawn(f)` calls
//! `::prescient::__private::spawn_at(&SITE, f)`, and a library loop's
//! (`crate::library_loops`: `for_range(r, g, f)`, the chunked, slice and
//! reduction forms, the sorts) its twin with the site first,
//! `for_range_at(&SITE, r, g, f)`; scope and group `spawn(f)`
//! method calls become `__spawn_at(&SITE, f)` on the same receiver; dataflow
//! tasks are recorded as sites but left unchanged. A call through a path
//! keeps its crate segment (`p::join` → `p::__private::join_at`); a `use`
//! whose imported name a rewritten call no longer names is used once more
//! by an anonymous `const` (see [`rewrite_sites`]). The emitted code carries
//! no `#[allow(...)]`, so a module's `#![forbid(unused_imports)]` or
//! `#![forbid(dead_code)]` holds.

use crate::analysis::ProgramResult;
use crate::args::Overrides;
use crate::library_loops::library_loop_at;
use crate::model::{CallKey, Program, SiteKind, UnseenKind};
use crate::module_scope::is_nested_program_module;
use crate::sym::{Bound, BoundOp, Sym};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::HashMap;
use syn::visit_mut::VisitMut;

/// The name of a site's `static`.
pub fn site_static(site: usize) -> syn::Ident {
    format_ident!("__PRESCIENT_SITE_{}", site)
}

fn effort_const(f: usize) -> syn::Ident {
    format_ident!("__PRESCIENT_EFFORT_{}", f)
}

fn stack_const(f: usize) -> syn::Ident {
    format_ident!("__PRESCIENT_STACK_{}", f)
}

/// A symbolic expression as a `u64` `const` expression; `krate` is the path
/// of the `prescient` crate (`::prescient` unless `crate = …` says otherwise).
pub fn sym_tokens(sym: &Sym, krate: &TokenStream) -> TokenStream {
    let list = |terms: &[Sym]| {
        let terms = terms.iter().map(|t| sym_tokens(t, krate));
        quote!(&[#(#terms),*])
    };
    match sym {
        Sym::Lit(v) => Literal::u64_suffixed(*v).into_token_stream(),
        Sym::Sum(t) => {
            let l = list(t);
            quote!(#krate::__private::sum(#l))
        }
        Sym::Product(t) => {
            let l = list(t);
            quote!(#krate::__private::product(#l))
        }
        Sym::Max(t) => {
            let l = list(t);
            quote!(#krate::__private::max(#l))
        }
        Sym::Div(v, d) => {
            let v = sym_tokens(v, krate);
            let d = Literal::u64_suffixed(*d);
            quote!((#v / #d))
        }
        Sym::Trip {
            start,
            end,
            inclusive,
        } => {
            let (s, e) = (bound_tokens(start), bound_tokens(end));
            quote!(#krate::__private::trip_count(#s, #e, #inclusive))
        }
        Sym::SplitLevels {
            trips,
            grain,
            at_most,
        } => {
            let (t, g) = (sym_tokens(trips, krate), bound_tokens(grain));
            quote!(#krate::__private::split_levels(#t, #g, #at_most))
        }
        Sym::SizeOf(ty) => quote!((::core::mem::size_of::<#ty>() as u64)),
        Sym::JoinFrame => quote!((#krate::__private::JOIN_FRAME_BYTES as u64)),
        Sym::FnEffort(f) => effort_const(*f).into_token_stream(),
        Sym::FnStack(f) => stack_const(*f).into_token_stream(),
    }
}

/// The `prescient::analysis::UnseenKind` variant of a kind.
fn unseen_kind(kind: UnseenKind) -> &'static str {
    match kind {
        UnseenKind::Call => "Call",
        UnseenKind::CratePath => "CratePath",
        UnseenKind::MethodCall => "MethodCall",
        UnseenKind::MethodByName => "MethodByName",
        UnseenKind::IndirectCall => "IndirectCall",
        UnseenKind::Macro => "Macro",
        UnseenKind::UnknownSize => "UnknownSize",
        UnseenKind::UnknownTrip => "UnknownTrip",
    }
}

/// A loop bound as an `i128` `const` expression.
fn bound_tokens(b: &Bound) -> TokenStream {
    match b {
        Bound::Lit(v) => Literal::i128_suffixed(*v).into_token_stream(),
        Bound::Const(name) => quote!((#name as i128)),
        Bound::Bin(op, l, r) => {
            let (l, r) = (bound_tokens(l), bound_tokens(r));
            match op {
                BoundOp::Add => quote!(i128::saturating_add(#l, #r)),
                BoundOp::Sub => quote!(i128::saturating_sub(#l, #r)),
                BoundOp::Mul => quote!(i128::saturating_mul(#l, #r)),
                BoundOp::Div => quote!((#l / #r)),
            }
        }
    }
}

/// Rewrites the recognised `join`/`spawn`/`for_range` calls and scope and
/// group `spawn` method calls of one module of the program, children first.
struct Rewriter<'c> {
    /// Per call to rewrite: its site, the `__private` function it becomes,
    /// and whether its path's first segment names the crate (kept).
    calls: &'c HashMap<CallKey, (usize, &'static str, bool)>,
    krate: TokenStream,
    /// How far the module being rewritten is nested in the annotated one,
    /// where the site statics are: `super::` this many times reaches them.
    depth: usize,
    /// The paths of rewritten calls as written, without generic arguments
    /// (`join` of `use prescient::join`, `super::join`, `slice::par_sort`
    /// of `use prescient::slice`), with the `__private` function they
    /// became: the imports they went through must stay used.
    imported: Vec<(syn::Path, &'static str)>,
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let syn::Expr::MethodCall(call) = e {
            // `scope.spawn(f)` → `scope.__spawn_at(&SITE, f)`.
            let Some(&(site, name, _)) = self.calls.get(&CallKey::of_method(call)) else {
                return;
            };
            let span = call.method.span();
            call.method = syn::Ident::new(name, span);
            prepend_site(&mut call.args, site, self.depth, span);
            return;
        }
        let syn::Expr::Call(call) = e else {
            return;
        };
        let Some(&(site, name, crate_segment)) = self.calls.get(&CallKey::of(call)) else {
            return;
        };
        let syn::Expr::Path(func) = strip_mut(&mut call.func) else {
            return;
        };
        let Some(last) = func.path.segments.last() else {
            return;
        };
        let span = last.ident.span();
        let generics = last.arguments.clone();
        let at = syn::Ident::new(name, span);
        // The segments that name the function inside `prescient`: 1 at the
        // crate root (`join`), 2 in a module (`slice::par_sort`).
        let inside = match library_loop_at(name) {
            Some(l) if !l.module.is_empty() => 2,
            _ => 1,
        };
        let path: syn::Path = if crate_segment {
            // `prescient::join`, `p::join`, `::rt::join`,
            // `p::slice::par_sort`: the segments before those name the crate;
            // keeping them keeps a `use prescient as p` used.
            let mut path = func.path.clone();
            for _ in 0..inside {
                path.segments.pop();
            }
            syn::parse_quote_spanned!(span=> #path __private::#at #generics)
        } else {
            // `join`, `self::join`, `super::join`, `odd::join`,
            // `slice::par_sort`: through imports of the function or its
            // module, or of the program's modules, which must stay used.
            let mut written = func.path.clone();
            for segment in written.segments.iter_mut() {
                segment.arguments = syn::PathArguments::None;
            }
            let key = written.to_token_stream().to_string();
            if !self
                .imported
                .iter()
                .any(|(p, n)| *n == name && p.to_token_stream().to_string() == key)
            {
                self.imported.push((written, name));
            }
            let krate = &self.krate;
            syn::parse_quote_spanned!(span=> #krate::__private::#at #generics)
        };
        func.path = path;
        func.qself = None;
        prepend_site(&mut call.args, site, self.depth, span);
    }
}

/// Makes `&self::SITE` (the static of `site`; `&super::SITE`,
/// `&super::super::SITE`, … from a module nested `depth` levels in the
/// annotated one) the first argument of a call.
fn prepend_site(
    call_args: &mut syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    site: usize,
    depth: usize,
    span: Span,
) {
    let site = site_static(site);
    let up: Vec<_> = (0..depth).map(|_| quote_spanned!(span=> super::)).collect();
    let path = if depth == 0 {
        quote_spanned!(span=> self::#site)
    } else {
        quote_spanned!(span=> #(#up)* #site)
    };
    let mut args = syn::punctuated::Punctuated::new();
    args.push(syn::parse_quote_spanned!(span=> &#path));
    args.extend(std::mem::take(call_args));
    *call_args = args;
}

fn strip_mut(e: &mut syn::Expr) -> &mut syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_mut(&mut p.expr),
        syn::Expr::Group(g) => strip_mut(&mut g.expr),
        e => e,
    }
}

/// Passes site ids: rewrites the `join`/`spawn`/`for_range` calls of the
/// module and of the inline modules nested in it that are part of the
/// program (the module must be the one the program was built from,
/// unchanged since).
///
/// A call through an imported name (`join(a, b)` after
/// `use prescient::join`) becomes a call of `__private::join_at`, which would
/// leave the import unused. Rather than `#[allow(unused_imports)]` on it
/// (which a module's `#![forbid(unused_imports)]` rejects), the returned items
/// use each such path once more, in a closure that is never called:
/// `const _: fn() = || { let _ = join(|| (), || ()); };` — appended to each
/// nested module whose calls need it, returned for the annotated module.
pub fn rewrite_sites(
    module: &mut syn::ItemMod,
    program: &Program,
    krate: TokenStream,
) -> TokenStream {
    let calls = program
        .sites
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            s.rewrite
                .map(|(key, name)| (key, (i, name, s.crate_segment)))
        })
        .collect();
    let Some((_, items)) = &mut module.content else {
        return TokenStream::new();
    };
    rewrite_module(items, 0, &calls, &krate)
}

/// Rewrites the calls of one module (`depth` levels below the annotated
/// one), and recursively of its nested program modules; returns the items
/// that keep its imports used (empty when none are needed).
fn rewrite_module(
    items: &mut [syn::Item],
    depth: usize,
    calls: &HashMap<CallKey, (usize, &'static str, bool)>,
    krate: &TokenStream,
) -> TokenStream {
    let mut rewriter = Rewriter {
        calls,
        krate: krate.clone(),
        depth,
        imported: Vec::new(),
    };
    for item in items.iter_mut() {
        if is_nested_program_module(item) {
            if let syn::Item::Mod(syn::ItemMod {
                content: Some((_, nested)),
                ..
            }) = item
            {
                let keep = rewrite_module(nested, depth + 1, calls, krate);
                if !keep.is_empty() {
                    nested.push(syn::Item::Verbatim(keep));
                }
            }
            continue;
        }
        rewriter.visit_item_mut(item);
    }
    if rewriter.imported.is_empty() {
        return TokenStream::new();
    }
    let uses = rewriter.imported.iter().map(|(path, at)| {
        // Arguments that satisfy the function's bounds with nothing inferred
        // from the program.
        let args = match *at {
            "join_at" => quote!(|| (), || ()),
            "spawn_at" => quote!(|| ()),
            at => library_loop_at(at)
                .expect("a rewritten call is a join, a spawn or a library loop")
                .sample_args
                .parse()
                .expect("library loop sample arguments are tokens"),
        };
        quote!(let _ = #path(#args);)
    });
    quote! {
        #[doc(hidden)]
        const _: fn() = || { #(#uses)* };
    }
}

/// The items describing the analysis, to append to the module.
pub fn analysis_items(
    program: &Program,
    result: &ProgramResult,
    overrides: &Overrides,
) -> TokenStream {
    let krate = overrides.crate_path();
    let pa = quote!(#krate::analysis);
    let private = quote!(#krate::__private);
    let mut out = TokenStream::new();
    // Every emitted item is used from one anonymous `const`, so that none
    // needs `#[allow(dead_code)]` (which a module's `#![forbid(dead_code)]`
    // or `#![forbid(unused)]` rejects) when the program does not use it.
    let mut anchored: Vec<syn::Ident> = Vec::new();

    // Per-function effort and stack constants that are referenced symbolically.
    for (f, e) in result.function_efforts.iter().enumerate() {
        if e.literal().is_none() {
            let name = effort_const(f);
            let value = sym_tokens(e, &krate);
            out.extend(quote! {
                #[doc(hidden)]
                const #name: u64 = #value;
            });
            anchored.push(name);
        }
    }
    for (f, s) in result.function_stacks.iter().enumerate() {
        if s.literal().is_none() {
            let name = stack_const(f);
            let value = sym_tokens(s, &krate);
            out.extend(quote! {
                #[doc(hidden)]
                const #name: u64 = #value;
            });
            anchored.push(name);
        }
    }

    // The site statics, in source order: their addresses are the site ids.
    let n_sites = program.sites.len();
    let statics: Vec<syn::Ident> = (0..n_sites).map(site_static).collect();
    for (i, site) in program.sites.iter().enumerate() {
        let name = &statics[i];
        let index = Literal::u32_suffixed(i as u32);
        let function = &program.functions[site.function].name;
        let kind = format_ident!(
            "{}",
            match site.kind {
                SiteKind::Join => "Join",
                SiteKind::Spawn => "Spawn",
                SiteKind::ScopeSpawn => "ScopeSpawn",
                SiteKind::GroupSpawn => "GroupSpawn",
                SiteKind::DataflowTask => "DataflowTask",
                SiteKind::RangeLoop => "RangeLoop",
            }
        );
        let in_loop = result.sites[i].in_loop;
        let effort = sym_tokens(&result.sites[i].effort, &krate);
        let span = site.span;
        let file = quote_spanned!(span=> ::core::file!());
        let line = quote_spanned!(span=> ::core::line!());
        let column = quote_spanned!(span=> ::core::column!());
        out.extend(quote! {
            #[doc(hidden)]
            static #name: #private::SpawnSite = #private::SpawnSite::new(
                ::core::module_path!(),
                #index,
                #function,
                #pa::SiteKind::#kind,
                #file,
                #line,
                #column,
                #in_loop,
                #effort,
            );
        });
    }
    out.extend(quote! {
        #[doc(hidden)]
        const __PRESCIENT_SITES: [&'static #pa::SiteInfo; #n_sites] = [#(&#statics.info),*];
    });

    // The contexts, each with its own table of site references (a reference
    // to a `const` is promoted to `'static`; an array literal of references
    // to statics in a call argument would not be).
    let mut contexts = Vec::new();
    for (k, c) in result.contexts.iter().enumerate() {
        let table = format_ident!("__PRESCIENT_CONTEXT_SITES_{}", k);
        let sites = c.sites.iter().map(|&s| &statics[s]);
        let n = c.sites.len();
        out.extend(quote! {
            #[doc(hidden)]
            const #table: [&'static #pa::SiteInfo; #n] = [#(&#sites.info),*];
        });
        let function = &program.functions[c.function].name;
        let rho = Literal::u32_suffixed(c.rho);
        let lambda = Literal::u32_suffixed(c.lambda);
        let effort = sym_tokens(&c.effort, &krate);
        let stack = sym_tokens(&c.stack, &krate);
        let mut context =
            quote!(#pa::ContextAnalysis::new(#function, #rho, #lambda, #effort, #stack, &#table));
        if !c.unseen.is_empty() {
            // What the analysis could not see, per kind, with the first one's
            // location (as a site's: spanned `file!()`, `line!()`).
            let table = format_ident!("__PRESCIENT_CONTEXT_UNSEEN_{}", k);
            let n = c.unseen.len();
            let entries = c.unseen.iter().map(|u| {
                let kind = format_ident!("{}", unseen_kind(u.kind));
                let count = Literal::u32_suffixed(u.count);
                let first = &u.first;
                let span = u.span;
                let file = quote_spanned!(span=> ::core::file!());
                let line = quote_spanned!(span=> ::core::line!());
                let column = quote_spanned!(span=> ::core::column!());
                quote!(#pa::Unseen::new(#pa::UnseenKind::#kind, #count, #first, #file, #line, #column))
            });
            out.extend(quote! {
                #[doc(hidden)]
                const #table: [#pa::Unseen; #n] = [#(#entries),*];
            });
            context = quote!(#context.with_unseen(&#table));
        }
        contexts.push(context);
    }
    let n_contexts = result.contexts.len();
    let doc = format!(
        " The `#[task_program]` analysis of module `{}` (CF'17): ρ, λ, effort and",
        program.module
    );
    out.extend(quote! {
        #[doc(hidden)]
        const __PRESCIENT_CONTEXTS: [#pa::ContextAnalysis; #n_contexts] = [#(#contexts),*];
        #[doc = #doc]
        /// stack per task context and aggregated, and the spawn-site table (the
        /// site statics, whose addresses are the site ids). `Display` prints it
        /// as a report.
        pub const ANALYSIS: #pa::ProgramAnalysis =
            #pa::ProgramAnalysis::new(::core::module_path!(), &__PRESCIENT_CONTEXTS, &__PRESCIENT_SITES);
    });

    // The parameters.
    let mut params = match &overrides.trees {
        Some(t) => {
            let item = syn::Ident::new(t.item, t.span);
            quote_spanned!(t.span=> ANALYSIS.params(#pa::Trees::#item))
        }
        None => quote!(ANALYSIS.params(#pa::Trees::DEFAULT)),
    };
    if let Some(p) = &overrides.queue_policy {
        let item = syn::Ident::new(p.item, p.span);
        params =
            quote_spanned!(p.span=> #params.with_queue_policy(#krate::tuning::QueuePolicy::#item));
    }
    for (value, method) in [
        (&overrides.queue_capacity, "with_queue_capacity"),
        (&overrides.stack_size, "with_stack_size"),
        (&overrides.dependency_buckets, "with_dependency_buckets"),
    ] {
        if let Some(v) = value {
            let method = syn::Ident::new(method, Span::call_site());
            params = quote!(#params.#method(#v));
        }
    }
    out.extend(quote! {
        /// Runtime parameters chosen for this module by the `#[task_program]`
        /// analysis and the decision trees (calibrated on this runtime unless
        /// `trees = cf17`), with the attribute's overrides. Pass them to the
        /// runtime with `prescient::Runtime::builder().params(PARAMS)`.
        pub const PARAMS: #krate::Params = #params.checked();
        #[doc(hidden)]
        const _: () = {
            let _ = (&ANALYSIS, &PARAMS);
            #(let _ = #anchored;)*
        };
    });
    out
}

/// The whole expansion: the rewritten module with the analysis appended.
pub fn module(
    mut module: syn::ItemMod,
    program: &Program,
    result: &ProgramResult,
    overrides: &Overrides,
) -> TokenStream {
    let mut items = rewrite_sites(&mut module, program, overrides.crate_path());
    items.extend(analysis_items(program, result, overrides));
    if let Some((_, content)) = &mut module.content {
        content.push(syn::Item::Verbatim(items));
    }
    module.into_token_stream()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::build;

    fn expand(src: &str) -> String {
        let item: syn::ItemMod = syn::parse_str(src).unwrap();
        let program = build(&item).unwrap();
        let result = crate::analysis::analyse(&program);
        module(item, &program, &result, &Overrides::default()).to_string()
    }

    #[test]
    fn rewrites_join_and_spawn_with_site_statics() {
        let out = expand(
            "mod m {
                use prescient::{join, spawn};
                fn f() { join(|| spawn(|| 1), || 2); prescient::spawn::<_, u8>(|| 3); }
            }",
        );
        assert!(!out.contains("allow"), "no lint is allowed: {out}");
        assert!(out.contains(
            ":: prescient :: __private :: join_at (& self :: __PRESCIENT_SITE_0 , | | :: prescient :: __private :: spawn_at (& self :: __PRESCIENT_SITE_1 , | | 1) , | | 2)"
        ), "{out}");
        // A path keeps its crate segment.
        assert!(
            out.contains(
                "= prescient :: __private :: spawn_at :: < _ , u8 > (& self :: __PRESCIENT_SITE_2 , | | 3)"
            ) || out.contains(
                "; prescient :: __private :: spawn_at :: < _ , u8 > (& self :: __PRESCIENT_SITE_2 , | | 3)"
            ),
            "{out}"
        );
        // The imports the rewritten calls no longer name stay used.
        assert!(
            out.contains(
                "const _ : fn () = || { let _ = spawn (|| ()) ; let _ = join (|| () , || ()) ; } ;"
            ),
            "{out}"
        );
        // Every emitted item is used.
        assert!(
            out.contains("const _ : () = { let _ = (& ANALYSIS , & PARAMS) ;"),
            "{out}"
        );
        assert!(out.contains("static __PRESCIENT_SITE_2 : :: prescient :: __private :: SpawnSite"));
        assert!(out.contains("pub const PARAMS : :: prescient :: Params"));
    }

    #[test]
    fn nested_modules_sites_reach_the_statics_from_where_they_are() {
        let out = expand(
            "mod prog {
                use prescient::join;
                pub fn even(n: u64) -> u64 { join(|| odd::odd(n), || 1).0 }
                pub mod odd {
                    use prescient::join;
                    pub fn odd(n: u64) -> u64 { join(|| super::even(n), || 0).0 + deep::d() }
                    pub mod deep {
                        pub fn d() -> u64 {
                            prescient::scope(|s| { s.spawn(|_| 1); });
                            super::super::join(|| 1, || 2).0
                        }
                    }
                }
                #[cfg(any())]
                mod gated { fn g() { prescient::join(|| 1, || 2); } }
            }",
        );
        for call in [
            ":: prescient :: __private :: join_at (& self :: __PRESCIENT_SITE_0 ,",
            ":: prescient :: __private :: join_at (& super :: __PRESCIENT_SITE_1 ,",
            "s . __spawn_at (& super :: super :: __PRESCIENT_SITE_2 ,",
            ":: prescient :: __private :: join_at (& super :: super :: __PRESCIENT_SITE_3 ,",
            // Compiled out: not part of the program, not rewritten.
            "prescient :: join (| | 1 , | | 2)",
        ] {
            assert!(out.contains(call), "{call}: {out}");
        }
        // One static per site, defined once, in the annotated module.
        for k in 0..4 {
            let defined = format!("static __PRESCIENT_SITE_{k} :");
            assert_eq!(out.matches(&defined).count(), 1, "{defined}: {out}");
        }
        assert!(!out.contains("__PRESCIENT_SITE_4"), "{out}");
        // Each module keeps the imports its rewritten calls went through.
        assert_eq!(
            out.matches("const _ : fn () = || { let _ = join (|| () , || ()) ; } ;")
                .count(),
            2,
            "{out}"
        );
        assert!(
            out.contains(
                "const _ : fn () = || { let _ = super :: super :: join (|| () , || ()) ; } ;"
            ),
            "{out}"
        );
        assert!(out.contains("\"odd::deep::d\""), "{out}");
    }

    #[test]
    fn rewrites_scope_spawns_and_leaves_foreign_calls_alone() {
        let out = expand(
            "mod m {
                fn f() { prescient::scope(|s| { s.spawn(|_| 1); }); rayon::join(|| 1, || 2); }
            }",
        );
        assert!(
            out.contains("s . __spawn_at (& self :: __PRESCIENT_SITE_0 , | _ | 1)"),
            "{out}"
        );
        assert!(out.contains("rayon :: join (| | 1 , | | 2)"), "{out}");
        assert!(out.contains("SiteKind :: ScopeSpawn"));
        assert!(
            !out.contains("const _ : fn ()"),
            "no import to keep used: {out}"
        );
    }

    #[test]
    fn raw_identifier_bounds_are_emitted_raw() {
        let out = expand(
            "mod m {
                use prescient::spawn;
                const r#loop: usize = 8;
                fn f() { for _ in 0..r#loop { spawn(|| 1); } }
            }",
        );
        assert!(out.contains("(r#loop as i128)"), "{out}");
    }

    #[test]
    fn crate_argument_renames_every_emitted_path() {
        let item: syn::ItemMod =
            syn::parse_str("mod m { use rt::join; fn f(n: u64) { join(|| 1, || f(n / 2)); } }")
                .unwrap();
        let (overrides, errors) = crate::args::parse(quote!(crate = rt));
        assert!(errors.is_none());
        let program = crate::lower::build_with(&item, overrides.krate.as_ref()).unwrap();
        let result = crate::analysis::analyse(&program);
        let out = module(item, &program, &result, &overrides).to_string();
        assert!(!out.contains(":: prescient"), "{out}");
        assert!(
            out.contains("rt :: __private :: join_at (& self :: __PRESCIENT_SITE_0"),
            "{out}"
        );
        assert!(out.contains("pub const PARAMS : rt :: Params"), "{out}");
    }

    #[test]
    fn trees_argument_selects_the_decision_trees() {
        let src = "mod m { use prescient::join; fn f(n: u64) { join(|| 1, || f(n / 2)); } }";
        let expand_with = |args: TokenStream| {
            let item: syn::ItemMod = syn::parse_str(src).unwrap();
            let (overrides, errors) = crate::args::parse(args);
            assert!(errors.is_none());
            let program = crate::lower::build_with(&item, overrides.krate.as_ref()).unwrap();
            let result = crate::analysis::analyse(&program);
            module(item, &program, &result, &overrides).to_string()
        };
        let out = expand_with(quote!());
        assert!(
            out.contains("PARAMS : :: prescient :: Params = ANALYSIS . params (:: prescient :: analysis :: Trees :: DEFAULT) . checked ()"),
            "{out}"
        );
        assert!(out.contains("calibrated on this runtime unless"), "{out}");
        let out = expand_with(quote!(trees = cf17, queue_capacity = 8));
        assert!(
            out.contains("PARAMS : :: prescient :: Params = ANALYSIS . params (:: prescient :: analysis :: Trees :: Cf17) . with_queue_capacity (8) . checked ()"),
            "{out}"
        );
        let out = expand_with(quote!(crate = rt, trees = Calibrated));
        assert!(
            out.contains("PARAMS : rt :: Params = ANALYSIS . params (rt :: analysis :: Trees :: Calibrated) . checked ()"),
            "{out}"
        );
    }

    #[test]
    fn symbolic_terms_become_const_expressions() {
        let b = Bound::Bin(
            BoundOp::Sub,
            Box::new(Bound::Const(format_ident!("N"))),
            Box::new(Bound::Lit(1)),
        );
        let s = crate::sym::sum([
            crate::sym::trip(Bound::Lit(0), b, true),
            Sym::JoinFrame,
            Sym::FnStack(3),
        ]);
        assert_eq!(
            sym_tokens(&s, &quote!(::prescient)).to_string(),
            ":: prescient :: __private :: sum (& [:: prescient :: __private :: trip_count (0i128 , i128 :: saturating_sub ((N as i128) , 1i128) , true) , (:: prescient :: __private :: JOIN_FRAME_BYTES as u64) , __PRESCIENT_STACK_3])"
        );
    }
}
