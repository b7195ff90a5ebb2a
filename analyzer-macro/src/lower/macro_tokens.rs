//! Invocations of macros other than the module's own `macro_rules!`
//! macros (those are expanded, `expand`): arguments that parse as
//! expressions are lowered like code, with their sites not rewritten; in
//! tokens that do not parse, every identifier naming a module function may
//! be a call of it.

use super::builder::FnBuilder;
use crate::model::{seq, Callee, FnId, Node};
use crate::module_scope::Resolved;
use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

impl FnBuilder<'_> {
    /// A macro invocation. Its expansion is invisible, but arguments that
    /// parse as expressions (`vec![join(..)]`, `assert!(f(x))`,
    /// `println!("{}", g())`) are modelled like any code; in arguments that do
    /// not, every identifier naming a module function may be a call of it.
    ///
    /// An invocation of a `macro_rules!` macro of the module is lowered as
    /// its expansion instead (`expand`); `statement`: the invocation is a
    /// statement.
    pub(super) fn macro_node(&mut self, mac: &syn::Macro, statement: bool) -> Node {
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
    pub(super) fn token_calls(
        &self,
        tokens: proc_macro2::TokenStream,
        span: Span,
        out: &mut Vec<Node>,
    ) {
        for tt in tokens {
            match tt {
                proc_macro2::TokenTree::Group(g) => self.token_calls(g.stream(), span, out),
                proc_macro2::TokenTree::Ident(i) => {
                    let name = i.to_string();
                    if self.lookup(&name).is_some() {
                        continue;
                    }
                    // A function of this module, or one its `use`s bring in.
                    let mut candidates: Vec<FnId> = match self
                        .modules
                        .resolve(self.scope, std::slice::from_ref(&name))
                    {
                        Resolved::Module(id) => vec![id],
                        _ => Vec::new(),
                    };
                    if let Some(m) = self.modules.method_names.get(&name) {
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
