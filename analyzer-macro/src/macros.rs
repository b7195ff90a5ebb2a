//! `macro_rules!` macros defined in the annotated module, expanded where they
//! are used, so that the spawn sites, calls and recursion written in their
//! bodies are seen at their invocations (a `join` in a local macro's body is
//! a site of the function that invokes it).
//!
//! This is a best-effort `macro_rules!` expander on tokens: [`MacroDef::parse`]
//! reads the rules, [`MacroDef::expand`] tries them in order like rustc does
//! and transcribes the first that matches. A matcher's literal tokens must
//! match exactly; its fragments (`$e:expr`, `$t:ty`, `$i:ident`, `$x:tt`,
//! `$p:pat`, `$b:block`, …) are parsed with syn's parsers for that syntax;
//! repetitions (`$(…),*`, `+`, `?`) match greedily, as many times as their
//! contents match, which is what rustc does for macros whose repetitions are
//! unambiguous (rustc rejects the others). The transcriber substitutes each
//! fragment (an `expr` inside an invisible group, so `$a * 2` keeps its
//! precedence) and repeats `$(…)` once per match; `$crate` becomes `crate`.
//!
//! Where a rule does not match as rustc would match it, or an expansion
//! does not parse, the invocation falls back to what the lowering does for
//! any macro (`lower`: arguments modelled where they parse, names of module
//! functions in its tokens taken as possible calls) — the analysis sees
//! less, and nothing is wrong in the program, since expansions are only
//! read, never emitted.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use std::collections::HashMap;
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};

/// Expansions nested deeper than this are not expanded (a recursive macro
/// that does not terminate on its input, or one deeper than this analysis
/// needs to follow); rustc's own limit is 128.
pub const MAX_EXPANSION_DEPTH: u32 = 32;

/// Expansions one function's lowering makes at most (a macro whose
/// expansion invokes itself twice doubles with each level): beyond it,
/// invocations are treated as any macro.
pub const MAX_EXPANSIONS: u32 = 1024;

/// A parsed `macro_rules!` definition: its rules, in order.
#[derive(Clone, Debug)]
pub struct MacroDef {
    rules: Vec<Rule>,
}

#[derive(Clone, Debug)]
struct Rule {
    matcher: Vec<Matcher>,
    body: TokenStream,
}

/// One element of a rule's matcher.
#[derive(Clone, Debug)]
enum Matcher {
    /// A token to match exactly (an identifier, punctuation, a literal).
    Token(TokenTree),
    /// A delimited group and its contents.
    Group(Delimiter, Vec<Matcher>),
    /// `$name:fragment`.
    Var(String, Fragment),
    /// `$( … ) sep op`.
    Repeat {
        inner: Vec<Matcher>,
        separator: Option<TokenTree>,
        op: char,
    },
}

/// A fragment specifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fragment {
    Expr,
    Ident,
    Ty,
    Pat,
    PatParam,
    Path,
    Block,
    Stmt,
    Literal,
    Lifetime,
    Vis,
    Item,
    Meta,
    Tt,
}

impl Fragment {
    fn of(name: &str) -> Option<Fragment> {
        Some(match name {
            "expr" | "expr_2021" => Fragment::Expr,
            "ident" => Fragment::Ident,
            "ty" => Fragment::Ty,
            "pat" => Fragment::Pat,
            "pat_param" => Fragment::PatParam,
            "path" => Fragment::Path,
            "block" => Fragment::Block,
            "stmt" => Fragment::Stmt,
            "literal" => Fragment::Literal,
            "lifetime" => Fragment::Lifetime,
            "vis" => Fragment::Vis,
            "item" => Fragment::Item,
            "meta" => Fragment::Meta,
            "tt" => Fragment::Tt,
            _ => return None,
        })
    }
}

/// What a metavariable matched: a fragment, or one match per repetition.
#[derive(Clone, Debug)]
enum Binding {
    One(TokenStream, Fragment),
    Many(Vec<Binding>),
}

type Bindings = HashMap<String, Binding>;

impl MacroDef {
    /// The rules of a `macro_rules!` body (`{ (…) => {…}; … }`'s contents);
    /// `None` when they do not have that shape or use a fragment this
    /// expander does not know.
    pub fn parse(body: TokenStream) -> Option<MacroDef> {
        let mut rules = Vec::new();
        let mut tokens = body.into_iter().peekable();
        while let Some(t) = tokens.next() {
            let TokenTree::Group(matcher) = t else {
                return None;
            };
            match (tokens.next()?, tokens.next()?) {
                (TokenTree::Punct(a), TokenTree::Punct(b))
                    if a.as_char() == '=' && b.as_char() == '>' => {}
                _ => return None,
            }
            let TokenTree::Group(body) = tokens.next()? else {
                return None;
            };
            rules.push(Rule {
                matcher: matchers(matcher.stream())?,
                body: body.stream(),
            });
            if let Some(TokenTree::Punct(p)) = tokens.peek() {
                if p.as_char() == ';' {
                    tokens.next();
                }
            }
        }
        (!rules.is_empty()).then_some(MacroDef { rules })
    }

    /// The tokens an invocation with these arguments expands to: the first
    /// rule whose matcher matches, transcribed; `None` when none matches.
    pub fn expand(&self, input: &TokenStream) -> Option<TokenStream> {
        self.rules.iter().find_map(|rule| {
            let bindings = (|stream: ParseStream<'_>| match_all(&rule.matcher, stream))
                .parse2(input.clone())
                .ok()?;
            transcribe(rule.body.clone(), &bindings)
        })
    }

    /// Every token of the rules' bodies, for a fallback that looks for names
    /// in them.
    pub fn body_tokens(&self) -> TokenStream {
        self.rules.iter().map(|r| r.body.clone()).collect()
    }
}

/// Parses a matcher.
fn matchers(stream: TokenStream) -> Option<Vec<Matcher>> {
    let mut out = Vec::new();
    let mut tokens = stream.into_iter().peekable();
    while let Some(t) = tokens.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.next()? {
                TokenTree::Ident(name) => {
                    // `$name:fragment`.
                    match tokens.next()? {
                        TokenTree::Punct(c) if c.as_char() == ':' => {}
                        _ => return None,
                    }
                    let TokenTree::Ident(fragment) = tokens.next()? else {
                        return None;
                    };
                    let name = name.unraw().to_string();
                    out.push(Matcher::Var(name, Fragment::of(&fragment.to_string())?));
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                    let inner = matchers(g.stream())?;
                    let (separator, op) = repetition_tail(&mut tokens)?;
                    out.push(Matcher::Repeat {
                        inner,
                        separator,
                        op,
                    });
                }
                _ => return None,
            },
            TokenTree::Group(g) => out.push(Matcher::Group(g.delimiter(), matchers(g.stream())?)),
            other => out.push(Matcher::Token(other)),
        }
    }
    Some(out)
}

/// After a `$( … )`: an optional separator token, then `*`, `+` or `?`.
fn repetition_tail(
    tokens: &mut std::iter::Peekable<impl Iterator<Item = TokenTree>>,
) -> Option<(Option<TokenTree>, char)> {
    let op_of = |t: &TokenTree| match t {
        TokenTree::Punct(p) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    let first = tokens.next()?;
    if let Some(op) = op_of(&first) {
        return Some((None, op));
    }
    let op = op_of(&tokens.next()?)?;
    Some((Some(first), op))
}

/// Whether two tokens are the same token (spans and spacing aside).
fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// Matches the whole input against a matcher.
fn match_all(matchers: &[Matcher], input: ParseStream<'_>) -> syn::Result<Bindings> {
    let mut bindings = Bindings::new();
    match_seq(matchers, input, &mut bindings)?;
    if !input.is_empty() {
        return Err(input.error("unexpected tokens"));
    }
    Ok(bindings)
}

/// Matches a sequence of matchers at the start of `input`.
fn match_seq(
    matchers: &[Matcher],
    input: ParseStream<'_>,
    bindings: &mut Bindings,
) -> syn::Result<()> {
    for m in matchers {
        match m {
            Matcher::Token(expected) => {
                let found: TokenTree = input.parse()?;
                if !same_token(expected, &found) {
                    return Err(syn::Error::new(found.span(), "a different token"));
                }
            }
            Matcher::Group(delimiter, inner) => {
                let found: TokenTree = input.parse()?;
                let TokenTree::Group(g) = found else {
                    return Err(syn::Error::new(found.span(), "not a group"));
                };
                if g.delimiter() != *delimiter {
                    return Err(syn::Error::new(g.span(), "a different group"));
                }
                let inner_bindings =
                    (|stream: ParseStream<'_>| match_all(inner, stream)).parse2(g.stream())?;
                bindings.extend(inner_bindings);
            }
            Matcher::Var(name, fragment) => {
                let tokens = fragment_tokens(*fragment, input)?;
                bindings.insert(name.clone(), Binding::One(tokens, *fragment));
            }
            Matcher::Repeat {
                inner,
                separator,
                op,
            } => {
                let mut matches: Vec<Bindings> = Vec::new();
                loop {
                    if *op == '?' && !matches.is_empty() {
                        break;
                    }
                    let fork = input.fork();
                    if !matches.is_empty() {
                        if let Some(sep) = separator {
                            match fork.parse::<TokenTree>() {
                                Ok(t) if same_token(sep, &t) => {}
                                _ => break,
                            }
                        }
                    }
                    let mut one = Bindings::new();
                    // An empty match would repeat forever.
                    if fork.is_empty() || match_seq(inner, &fork, &mut one).is_err() {
                        break;
                    }
                    input.advance_to(&fork);
                    matches.push(one);
                }
                if *op == '+' && matches.is_empty() {
                    return Err(input.error("a repetition that matches nothing"));
                }
                for name in var_names(inner) {
                    let each = matches
                        .iter_mut()
                        .filter_map(|m| m.remove(&name))
                        .collect::<Vec<_>>();
                    bindings.insert(name, Binding::Many(each));
                }
            }
        }
    }
    Ok(())
}

/// The metavariables of a matcher, at any depth.
fn var_names(matchers: &[Matcher]) -> Vec<String> {
    let mut out = Vec::new();
    for m in matchers {
        match m {
            Matcher::Var(name, _) => out.push(name.clone()),
            Matcher::Group(_, inner) | Matcher::Repeat { inner, .. } => {
                out.extend(var_names(inner))
            }
            Matcher::Token(_) => {}
        }
    }
    out
}

/// Parses one fragment at the start of `input`, returning its tokens.
fn fragment_tokens(fragment: Fragment, input: ParseStream<'_>) -> syn::Result<TokenStream> {
    use quote::ToTokens;
    Ok(match fragment {
        Fragment::Expr => input.parse::<syn::Expr>()?.into_token_stream(),
        Fragment::Ident => {
            let ident = input.call(syn::Ident::parse_any)?;
            if ident == "_" {
                return Err(syn::Error::new(ident.span(), "`_` is not an identifier"));
            }
            ident.into_token_stream()
        }
        Fragment::Ty => input.parse::<syn::Type>()?.into_token_stream(),
        Fragment::Pat => syn::Pat::parse_multi_with_leading_vert(input)?.into_token_stream(),
        Fragment::PatParam => syn::Pat::parse_single(input)?.into_token_stream(),
        Fragment::Path => input.parse::<syn::Path>()?.into_token_stream(),
        Fragment::Block => input.parse::<syn::Block>()?.into_token_stream(),
        Fragment::Stmt => input.parse::<syn::Stmt>()?.into_token_stream(),
        Fragment::Literal => {
            let mut out = TokenStream::new();
            if input.peek(syn::Token![-]) {
                out.extend(input.parse::<syn::Token![-]>()?.into_token_stream());
            }
            out.extend(input.parse::<syn::Lit>()?.into_token_stream());
            out
        }
        Fragment::Lifetime => input.parse::<syn::Lifetime>()?.into_token_stream(),
        Fragment::Vis => input.parse::<syn::Visibility>()?.into_token_stream(),
        Fragment::Item => input.parse::<syn::Item>()?.into_token_stream(),
        Fragment::Meta => input.parse::<syn::Meta>()?.into_token_stream(),
        Fragment::Tt => input.parse::<TokenTree>()?.into_token_stream(),
    })
}

/// Transcribes a rule's body with the matched fragments; `None` where a
/// repetition's metavariables disagree on its length.
fn transcribe(body: TokenStream, bindings: &Bindings) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '$' && i + 1 < tokens.len() => {
                match &tokens[i + 1] {
                    TokenTree::Ident(name) if name == "crate" => {
                        out.extend([TokenTree::Ident(syn::Ident::new("crate", name.span()))]);
                        i += 2;
                        continue;
                    }
                    TokenTree::Ident(name) => match bindings.get(&name.unraw().to_string()) {
                        Some(Binding::One(tokens, fragment)) => {
                            out.extend(substitute(tokens, *fragment));
                            i += 2;
                            continue;
                        }
                        // Still repeating here: not something rustc accepts.
                        Some(Binding::Many(_)) => return None,
                        // Not a metavariable of this rule (a nested
                        // `macro_rules!`): kept.
                        None => {}
                    },
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                        let mut rest = tokens[i + 2..].iter().cloned().peekable();
                        let before = rest.len();
                        let (separator, _) = repetition_tail(&mut rest)?;
                        let used = before - rest.len();
                        out.extend(repeat(g.stream(), separator, bindings)?);
                        i += 2 + used;
                        continue;
                    }
                    _ => {}
                }
                out.extend([tokens[i].clone()]);
                i += 1;
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), transcribe(g.stream(), bindings)?);
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
                i += 1;
            }
            other => {
                out.extend([other.clone()]);
                i += 1;
            }
        }
    }
    Some(out)
}

/// A fragment as transcribed: an expression inside an invisible group, so
/// that it stays one operand; everything else as its tokens.
fn substitute(tokens: &TokenStream, fragment: Fragment) -> TokenStream {
    match fragment {
        Fragment::Expr => TokenTree::Group(Group::new(Delimiter::None, tokens.clone())).into(),
        _ => tokens.clone(),
    }
}

/// A `$( … ) sep op` of a body: once per match of the metavariables it uses
/// that repeat at this depth.
fn repeat(
    inner: TokenStream,
    separator: Option<TokenTree>,
    bindings: &Bindings,
) -> Option<TokenStream> {
    let used = used_names(&inner);
    let mut count: Option<usize> = None;
    for name in &used {
        if let Some(Binding::Many(each)) = bindings.get(name) {
            match count {
                Some(n) if n != each.len() => return None,
                _ => count = Some(each.len()),
            }
        }
    }
    // No repeating metavariable: rustc rejects that.
    let count = count?;
    let mut out = TokenStream::new();
    for k in 0..count {
        if k > 0 {
            if let Some(sep) = &separator {
                let mut sep = sep.clone();
                if let TokenTree::Punct(p) = &mut sep {
                    let mut q = proc_macro2::Punct::new(p.as_char(), Spacing::Alone);
                    q.set_span(p.span());
                    *p = q;
                }
                out.extend([sep]);
            }
        }
        let narrowed: Bindings = bindings
            .iter()
            .map(|(name, b)| {
                let b = match b {
                    Binding::Many(each) if used.contains(name) => each[k].clone(),
                    other => other.clone(),
                };
                (name.clone(), b)
            })
            .collect();
        out.extend(transcribe(inner.clone(), &narrowed)?);
    }
    Some(out)
}

/// The names after `$` in a body.
fn used_names(body: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut dollar = false;
    for t in body.clone() {
        match &t {
            TokenTree::Ident(i) if dollar => out.push(i.unraw().to_string()),
            TokenTree::Group(g) => out.extend(used_names(&g.stream())),
            _ => {}
        }
        dollar = matches!(&t, TokenTree::Punct(p) if p.as_char() == '$');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn def(body: TokenStream) -> MacroDef {
        MacroDef::parse(body).expect("the rules parse")
    }

    fn expand(def: &MacroDef, input: TokenStream) -> Option<String> {
        def.expand(&input).map(|t| {
            // Invisible groups print as their contents.
            let e: syn::Expr = syn::parse2(quote!({ #t })).expect("the expansion parses");
            quote!(#e).to_string()
        })
    }

    #[test]
    fn fragments_are_substituted() {
        let d = def(quote! {
            ($a:expr, $b:expr) => { join(|| $a, || $b) };
        });
        assert_eq!(
            expand(&d, quote!(fib(n - 1), fib(n - 2))).as_deref(),
            Some("{ join (| | fib (n - 1) , | | fib (n - 2)) }")
        );
        // An expression stays one operand: `$a * 2` of `x + 1`.
        let d = def(quote! { ($a:expr) => { $a * 2 } });
        let out = d.expand(&quote!(x + 1)).expect("matches");
        let e: syn::Expr = syn::parse2(out).expect("parses");
        let syn::Expr::Binary(b) = e else {
            panic!("{e:?}");
        };
        assert!(matches!(b.op, syn::BinOp::Mul(_)));
    }

    #[test]
    fn rules_are_tried_in_order() {
        let d = def(quote! {
            () => { 0 };
            ($x:ident) => { $x + 1 };
            ($x:ident, $($rest:ident),+) => { $x + count!($($rest),+) };
        });
        assert_eq!(expand(&d, quote!()).as_deref(), Some("{ 0 }"));
        assert_eq!(expand(&d, quote!(a)).as_deref(), Some("{ a + 1 }"));
        assert_eq!(
            expand(&d, quote!(a, b, c)).as_deref(),
            Some("{ a + count ! (b , c) }")
        );
        assert_eq!(expand(&d, quote!(1 2)), None, "no rule matches");
    }

    #[test]
    fn repetitions_and_literal_tokens() {
        let d = def(quote! {
            (spawn all $($f:expr);* in $s:ident) => {{ $( $s.spawn(move |_| $f); )* }};
        });
        assert_eq!(
            expand(&d, quote!(spawn all a(1); b(2) in s)).as_deref(),
            Some("{ { s . spawn (move | _ | a (1)) ; s . spawn (move | _ | b (2)) ; } }")
        );
        assert_eq!(
            expand(&d, quote!(spawn all in s)).as_deref(),
            Some("{ { } }"),
            "zero repetitions"
        );
        // `?` and nested repetitions.
        let d = def(quote! {
            ($($name:ident = [$($v:expr),*]);* $(;)?) => { [$( $name($($v),*) ),*] };
        });
        assert_eq!(
            expand(&d, quote!(f = [1, 2]; g = []; )).as_deref(),
            Some("{ [f (1 , 2) , g ()] }")
        );
    }

    #[test]
    fn other_fragments_and_crate() {
        let d = def(quote! {
            ($v:vis fn $name:ident($p:pat_param: $t:ty) $body:block) => {
                $v fn $name($p: $t) -> $crate::Out $body
            };
        });
        let out = d
            .expand(&quote!(
                pub fn go(x: u64) {
                    x
                }
            ))
            .expect("matches")
            .to_string();
        assert_eq!(out, "pub fn go (x : u64) -> crate :: Out { x }");
        let d = def(quote! { ($l:literal, $t:tt, $lt:lifetime) => { ($l, $t, $lt) } });
        assert_eq!(
            d.expand(&quote!(-1, +, 'a)).expect("matches").to_string(),
            "(- 1 , + , 'a)"
        );
    }

    #[test]
    fn malformed_definitions_are_not_parsed() {
        assert!(MacroDef::parse(quote!()).is_none());
        assert!(MacroDef::parse(quote!(($x:frob) => {})).is_none());
        assert!(MacroDef::parse(quote!((x) {})).is_none());
    }
}
