//! Invocations of the module's own `macro_rules!` macros, lowered as the
//! code they expand to (the expander is [`crate::macros`]).
//!
//! A macro defined at module level is in scope in the functions of the
//! items after its definition (`macro_rules!` scoping is textual; a later
//! definition of the same name shadows an earlier one), and through
//! `crate::name!`/`self::name!` (a `#[macro_export]`ed one) anywhere; one
//! defined in a block, in the statements after it. The expansion is parsed
//! as an expression where the invocation is one, else as statements, and
//! lowered in place of the invocation: its spawn constructs are sites of
//! the invoking function (one per invocation, located in the macro's body),
//! its calls and recursion are calls of that function, its loops and
//! declarations are its own. Hygiene is not modelled: the body's names are
//! looked up where the macro is used, as an unhygienic expansion would.
//!
//! Sites in an expansion are not rewritten to pass their id (the tokens of
//! a macro body serve every invocation; rewriting them would put one site's
//! id in all of them): they run as plain `join`/`spawn` calls, without the
//! adaptive inliner's per-site statistics, and are counted for ρ, λ and
//! effort like any site. The same holds for sites in a macro's arguments.
//!
//! An invocation that matches no rule as this expander matches them, whose
//! expansion does not parse, that is nested deeper than
//! [`MAX_EXPANSION_DEPTH`] or beyond the function's [`MAX_EXPANSIONS`] is
//! treated as any macro, with the names of module
//! functions in the macro's rule bodies taken as possible calls too.

use super::builder::FnBuilder;
use crate::macros::{MacroDef, MAX_EXPANSIONS, MAX_EXPANSION_DEPTH};
use crate::model::{seq, Node};
use std::rc::Rc;

impl FnBuilder<'_> {
    /// The `macro_rules!` macro of the module (or of an enclosing block) a
    /// macro path names here.
    pub(super) fn local_macro(&self, path: &syn::Path) -> Option<Rc<MacroDef>> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let (name, anywhere) = match (path.leading_colon.is_some(), segs.as_slice()) {
            (false, [name]) => (name, false),
            (false, [root, name]) if root == "crate" || root == "self" => (name, true),
            _ => return None,
        };
        if !anywhere {
            if let Some((_, def)) = self.local_macros.iter().rev().find(|(n, _)| n == name) {
                return Some(def.clone());
            }
        }
        if let Some(defs) = self.module.macros.get(name) {
            let before = defs.iter().rev().find(|(item, _)| *item < self.item);
            match (before, anywhere) {
                (Some((_, def)), _) => return Some(def.clone()),
                (None, true) => return defs.last().map(|(_, def)| def.clone()),
                (None, false) => {}
            }
        }
        if anywhere {
            return None;
        }
        // Textual scope reaches into nested modules: a macro the enclosing
        // modules define before this module's `mod` item.
        let mut at = self.module.parent;
        while let Some((parent, mod_item)) = at {
            let scope = &self.modules.scopes[parent];
            let before = scope
                .macros
                .get(name)
                .and_then(|defs| defs.iter().rev().find(|(item, _)| *item < mod_item));
            if let Some((_, def)) = before {
                return Some(def.clone());
            }
            at = scope.parent;
        }
        None
    }

    /// The type of the expression a module macro's invocation expands to,
    /// when `expr_type` knows it (`let (a, b) = par!(f(x), f(y));`).
    pub(super) fn expansion_type(&self, mac: &syn::Macro) -> Option<syn::Type> {
        let def = self.local_macro(&mac.path)?;
        let depth = self.macro_depth + self.type_depth.get();
        if depth >= MAX_EXPANSION_DEPTH || !self.count_expansion() {
            return None;
        }
        let e = syn::parse2::<syn::Expr>(def.expand(&mac.tokens)?).ok()?;
        self.type_depth.set(self.type_depth.get() + 1);
        let ty = self.expr_type(&e);
        self.type_depth.set(self.type_depth.get() - 1);
        ty
    }

    /// Counts one more expansion; false when the function's budget
    /// ([`MAX_EXPANSIONS`]) is spent.
    fn count_expansion(&self) -> bool {
        let n = self.expansions.get();
        self.expansions.set(n.saturating_add(1));
        n < MAX_EXPANSIONS
    }

    /// Records a `macro_rules!` definition of a block (in scope until the
    /// block ends).
    pub(super) fn define_macro(&mut self, item: &syn::ItemMacro) {
        if !item.mac.path.is_ident("macro_rules") {
            return;
        }
        if let (Some(name), Some(def)) = (&item.ident, MacroDef::parse(item.mac.tokens.clone())) {
            self.local_macros.push((name.to_string(), Rc::new(def)));
        }
    }

    /// The expansion of an invocation of a module macro, lowered; `None`
    /// when it is not one, or cannot be expanded (the caller falls back).
    /// `statement`: the invocation is a statement.
    pub(super) fn expand_macro(&mut self, mac: &syn::Macro, statement: bool) -> Option<Node> {
        let def = self.local_macro(&mac.path)?;
        if self.macro_depth >= MAX_EXPANSION_DEPTH || !self.count_expansion() {
            return None;
        }
        let tokens = def.expand(&mac.tokens)?;
        let expr = if statement {
            None
        } else {
            syn::parse2::<syn::Expr>(tokens.clone()).ok()
        };
        let stmts = match &expr {
            Some(_) => None,
            None => Some(syn::parse::Parser::parse2(syn::Block::parse_within, tokens).ok()?),
        };
        self.macro_depth += 1;
        let was = std::mem::replace(&mut self.in_macro, true);
        let node = match (&expr, stmts) {
            (Some(e), _) => self.expr(e),
            (None, Some(stmts)) => self.block(&syn::Block {
                brace_token: Default::default(),
                stmts,
            }),
            (None, None) => seq([]),
        };
        self.in_macro = was;
        self.macro_depth -= 1;
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Node, SiteKind, WalkCtx};
    use crate::structure::tests::{analysed, rho_lambda};
    use crate::test_support::program;

    #[test]
    fn spawns_and_recursion_in_a_local_macro_are_seen_at_its_use() {
        let src = "mod m {
            use prescient::join;
            macro_rules! par {
                ($a:expr, $b:expr) => { join(|| $a, || $b) };
            }
            pub fn fib(n: u64) -> u64 {
                if n < 2 { return n; }
                let (a, b) = par!(fib(n - 1), fib(n - 2));
                a + b
            }
        }";
        let p = program(src);
        assert_eq!(p.sites.len(), 1);
        assert_eq!(p.sites[0].kind, SiteKind::Join);
        assert!(
            p.sites[0].rewrite.is_none(),
            "a site in a macro is not rewritten"
        );
        assert_eq!(rho_lambda(src, "fib"), (2, 0));
        // No macro is left in the model: the expansion is lowered instead.
        let mut macros = 0;
        p.functions[0].body.walk(WalkCtx::default(), &mut |n, _| {
            macros += usize::from(matches!(n, Node::Macro { .. }));
        });
        assert_eq!(macros, 0);
    }

    #[test]
    fn the_body_itself_may_hold_the_construct_and_the_call() {
        let src = "mod m {
            use prescient::{join, scope};
            macro_rules! split {
                ($n:expr) => {{ let (a, b) = join(|| walk($n / 2), || walk($n / 2)); a + b }};
            }
            macro_rules! each {
                ($s:ident, $v:expr, $f:ident) => { for x in $v { $s.spawn(move |_| { $f(x); }); } };
            }
            pub fn walk(n: u64) -> u64 { if n < 2 { n } else { split!(n) } }
            fn leaf(x: u64) {}
            pub fn run(v: Vec<u64>) { scope(|s| { each!(s, v, leaf); }); }
        }";
        assert_eq!(rho_lambda(src, "walk"), (2, 0));
        assert_eq!(rho_lambda(src, "run"), (0, 1));
        let p = program(src);
        let kinds: Vec<SiteKind> = p.sites.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [SiteKind::Join, SiteKind::ScopeSpawn]);
    }

    #[test]
    fn scoping_and_fallbacks() {
        // A block's macro; a module macro defined after its use is not the
        // one used (a macro of that name from elsewhere is).
        let src = "mod m {
            use prescient::spawn;
            pub fn a(n: u64) { macro_rules! go { () => { spawn(move || a(n - 1)) }; } go!(); }
            pub fn b() { later!(); }
            macro_rules! later { () => { spawn(|| b()) }; }
            pub fn c() { later!(); }
        }";
        let p = program(src);
        let fns: Vec<&str> = p
            .sites
            .iter()
            .map(|s| p.functions[s.function].name.as_str())
            .collect();
        assert_eq!(fns, ["a", "c"]);
        assert_eq!(rho_lambda(src, "a"), (1, 0));
        // No rule matches: the names of module functions in the rules are
        // possible calls, so the recursion is still seen (not as parallel:
        // the spawn is not).
        let src = "mod m {
            macro_rules! odd { (only $x:ident) => { walk($x) }; }
            pub fn walk(n: u64) { odd!(1 + 2); }
        }";
        let (_, g, walk) = analysed(src, "walk");
        assert!(g.is_recursive_call(walk, walk));
        // A macro that recurses without end stops at the depth limit.
        let src = "mod m {
            macro_rules! forever { ($($t:tt)*) => { forever!($($t)* x) }; }
            pub fn f() { forever!(); }
        }";
        assert_eq!(program(src).functions.len(), 1);
        // One that doubles with each level stops at the budget.
        let src = "mod m {
            macro_rules! twice { ($($t:tt)*) => { twice!($($t)* x); twice!($($t)* y); }; }
            pub fn f() { twice!(); }
        }";
        let started = std::time::Instant::now();
        assert_eq!(program(src).functions.len(), 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }
}
