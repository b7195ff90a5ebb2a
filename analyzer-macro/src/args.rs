//! The attribute's arguments: the decision trees `PARAMS` start from and
//! overrides of single parameters,
//! `#[task_program(trees = cf17, stack_size = 65536, queue_policy = InsertFrontStealBack)]`.
//!
//! | argument | value |
//! |---|---|
//! | `queue_policy` | a `QueuePolicy` variant name |
//! | `queue_capacity` | `1 ..= 65536` |
//! | `stack_size` | the reserve of every task stack (a hard limit, like a thread's; 8 MiB when absent): a power of two in `16384 ..= 1073741824` (16 KiB ..= 1 GiB) |
//! | `dependency_buckets` | `>= 1` |
//! | `trees` | the decision trees `PARAMS` start from: `calibrated` (the default) or `cf17` (also `Calibrated`, `Cf17`) |
//! | `crate` | the path of the `prescient` crate: `crate = rt`, `crate = "rt"` |
//!
//! Integer literals are checked here, with an error on the literal; any other
//! `const` expression is checked by `Params::checked` when rustc evaluates
//! `PARAMS`. `crate` follows serde's `#[serde(crate = "…")]` convention (a
//! string literal), and also takes the path unquoted.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// The argument names.
pub const ARGUMENTS: &[&str] = &[
    "queue_policy",
    "queue_capacity",
    "stack_size",
    "dependency_buckets",
    "trees",
    "crate",
];

/// The smallest `stack_size` the attribute accepts (16 KiB), as
/// `prescient::Params` does.
pub const MIN_STACK_SIZE: u128 = 16 * 1024;
/// The largest `stack_size` the attribute accepts (1 GiB), as
/// `prescient::Params` does: the reserve is address space mapped without
/// commit charge, so a large one costs no memory until it is used.
pub const MAX_STACK_SIZE: u128 = 1 << 30;

/// A queue policy override: the `prescient::tuning::QueuePolicy` item to use.
#[derive(Clone, Debug)]
pub struct PolicyOverride {
    /// A variant name of `QueuePolicy`.
    pub item: &'static str,
    /// The value as written.
    pub span: Span,
}

/// A decision-trees choice: the `prescient::analysis::Trees` variant `PARAMS`
/// start from.
#[derive(Clone, Debug)]
pub struct TreesOverride {
    /// `Cf17` or `Calibrated`.
    pub item: &'static str,
    /// The value as written.
    pub span: Span,
}

/// Parameter overrides given as attribute arguments.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `queue_policy = …`.
    pub queue_policy: Option<PolicyOverride>,
    /// `queue_capacity = …`.
    pub queue_capacity: Option<syn::Expr>,
    /// `stack_size = …`.
    pub stack_size: Option<syn::Expr>,
    /// `dependency_buckets = …`.
    pub dependency_buckets: Option<syn::Expr>,
    /// `trees = …`: the decision trees `PARAMS` start from (the default trees
    /// when absent).
    pub trees: Option<TreesOverride>,
    /// `crate = …`: the path of the `prescient` crate (a renamed dependency).
    pub krate: Option<syn::Path>,
}

impl Overrides {
    /// The path of the `prescient` crate for emitted items: `crate = …`, or
    /// `::prescient`.
    pub fn crate_path(&self) -> TokenStream {
        match &self.krate {
            Some(path) => quote::quote!(#path),
            None => quote::quote!(::prescient),
        }
    }
}

/// One `name = value`.
struct Arg {
    name: syn::Ident,
    value: syn::Expr,
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        // `crate` is a keyword: parse any identifier.
        let name = input.call(syn::Ident::parse_any)?;
        if !input.peek(syn::Token![=]) {
            return Err(syn::Error::new(
                name.span(),
                format!("expected `{name} = value`"),
            ));
        }
        input.parse::<syn::Token![=]>()?;
        let value: syn::Expr = input.parse()?;
        Ok(Arg { name, value })
    }
}

/// Parses the arguments. Every valid argument is kept; the errors of the
/// others are combined.
pub fn parse(tokens: TokenStream) -> (Overrides, Option<syn::Error>) {
    let mut overrides = Overrides::default();
    let args = match Punctuated::<Arg, syn::Token![,]>::parse_terminated.parse2(tokens) {
        Ok(args) => args,
        Err(e) => return (overrides, Some(e)),
    };
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for arg in args {
        let name = arg.name.to_string();
        let duplicate = match name.as_str() {
            "queue_policy" => overrides.queue_policy.is_some(),
            "queue_capacity" => overrides.queue_capacity.is_some(),
            "stack_size" => overrides.stack_size.is_some(),
            "dependency_buckets" => overrides.dependency_buckets.is_some(),
            "trees" => overrides.trees.is_some(),
            "crate" => overrides.krate.is_some(),
            _ => {
                push(syn::Error::new(
                    arg.name.span(),
                    format!(
                        "unknown task_program argument `{name}`; expected one of {}",
                        ARGUMENTS
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
                continue;
            }
        };
        if duplicate {
            push(syn::Error::new(
                arg.name.span(),
                format!("`{name}` is given more than once"),
            ));
            continue;
        }
        match name.as_str() {
            "queue_policy" => match policy(&arg.value) {
                Ok(p) => overrides.queue_policy = Some(p),
                Err(e) => push(e),
            },
            "queue_capacity" => match integer(&arg.value, &name, |v| {
                (1..=65536)
                    .contains(&v)
                    .then_some(())
                    .ok_or("must be in 1 ..= 65536")
            }) {
                Ok(()) => overrides.queue_capacity = Some(arg.value),
                Err(e) => push(e),
            },
            "stack_size" => match integer(&arg.value, &name, |v| {
                // One rule, stated whole; the range first, so that 0 reads as
                // too small rather than as not a power of two.
                if v < MIN_STACK_SIZE {
                    Err("must be a power of two between 16384 (16 KiB) and 1073741824 (1 GiB): too small")
                } else if v > MAX_STACK_SIZE {
                    Err("must be a power of two between 16384 (16 KiB) and 1073741824 (1 GiB): too large")
                } else if !v.is_power_of_two() {
                    Err("must be a power of two between 16384 (16 KiB) and 1073741824 (1 GiB)")
                } else {
                    Ok(())
                }
            }) {
                Ok(()) => overrides.stack_size = Some(arg.value),
                Err(e) => push(e),
            },
            "trees" => match trees(&arg.value) {
                Ok(t) => overrides.trees = Some(t),
                Err(e) => push(e),
            },
            "crate" => match crate_path(&arg.value) {
                Ok(p) => overrides.krate = Some(p),
                Err(e) => push(e),
            },
            _ => match integer(&arg.value, &name, |v| {
                (v >= 1).then_some(()).ok_or("must be at least 1")
            }) {
                Ok(()) => overrides.dependency_buckets = Some(arg.value),
                Err(e) => push(e),
            },
        }
    }
    (overrides, errors)
}

/// The crate path of `crate = rt` / `crate = ::rt` / `crate = "rt"`.
fn crate_path(value: &syn::Expr) -> syn::Result<syn::Path> {
    let err = || {
        syn::Error::new(
            value.span(),
            "expected the path of the prescient crate: `crate = prescient` or `crate = \"prescient\"`",
        )
    };
    match value {
        syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
                return Err(err());
            }
            Ok(p.path.clone())
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => {
            let path = s
                .parse_with(syn::Path::parse_mod_style)
                .map_err(|_| err())?;
            // Re-span the tokens at the literal, so errors point at it.
            Ok(respan(path, s.span()))
        }
        _ => Err(err()),
    }
}

/// `path` with every identifier spanned at `span`.
fn respan(mut path: syn::Path, span: Span) -> syn::Path {
    for seg in &mut path.segments {
        seg.ident.set_span(span);
    }
    path
}

/// The `QueuePolicy` item named by a value.
fn policy(value: &syn::Expr) -> syn::Result<PolicyOverride> {
    let name = match value {
        syn::Expr::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    };
    let item = match name.as_deref() {
        Some("InsertBackStealBack") => "InsertBackStealBack",
        Some("InsertFrontStealBack") => "InsertFrontStealBack",
        Some("InsertBackStealFront") => "InsertBackStealFront",
        Some("InsertFrontStealFront") => "InsertFrontStealFront",
        _ => {
            return Err(syn::Error::new(
                value.span(),
                "expected a queue policy, a `QueuePolicy` variant: `InsertBackStealBack`, \
                 `InsertFrontStealBack`, `InsertBackStealFront` or `InsertFrontStealFront`",
            ))
        }
    };
    Ok(PolicyOverride {
        item,
        span: value.span(),
    })
}

/// The `Trees` variant named by a value.
fn trees(value: &syn::Expr) -> syn::Result<TreesOverride> {
    let name = match value {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    };
    let item = match name.as_deref() {
        Some("cf17") | Some("Cf17") => "Cf17",
        Some("calibrated") | Some("Calibrated") => "Calibrated",
        _ => {
            return Err(syn::Error::new(
                value.span(),
                "expected decision trees: `cf17` or `calibrated`",
            ))
        }
    };
    Ok(TreesOverride {
        item,
        span: value.span(),
    })
}

/// Checks an integer literal (other expressions are left to rustc).
fn integer(
    value: &syn::Expr,
    name: &str,
    check: impl Fn(u128) -> Result<(), &'static str>,
) -> syn::Result<()> {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => {
            let v: u128 = i.base10_parse()?;
            check(v).map_err(|why| syn::Error::new(i.span(), format!("`{name}` {why}")))
        }
        syn::Expr::Lit(l) => Err(syn::Error::new(
            l.span(),
            format!("`{name}` expects an integer"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str) -> Overrides {
        let (o, e) = parse(src.parse().unwrap());
        assert!(e.is_none(), "{src}: {e:?}");
        o
    }

    fn err(src: &str) -> String {
        parse(src.parse().unwrap()).1.expect("an error").to_string()
    }

    #[test]
    fn accepts_each_override() {
        assert!(ok("").stack_size.is_none());
        let o = ok(
            "stack_size = 65536, queue_capacity = 8, queue_policy = InsertFrontStealBack, dependency_buckets = 97,",
        );
        assert!(
            o.stack_size.is_some() && o.queue_capacity.is_some() && o.dependency_buckets.is_some()
        );
        assert_eq!(o.queue_policy.unwrap().item, "InsertFrontStealBack");
        assert_eq!(
            ok("queue_policy = InsertFrontStealFront")
                .queue_policy
                .unwrap()
                .item,
            "InsertFrontStealFront"
        );
        assert!(ok("stack_size = 64 * 1024").stack_size.is_some());
        // The reserve's whole range: 16 KiB ..= 1 GiB, powers of two.
        for v in ["16384", "8388608", "16777216", "1073741824"] {
            assert!(ok(&format!("stack_size = {v}")).stack_size.is_some(), "{v}");
        }
    }

    #[test]
    fn crate_path_argument() {
        let path = |src: &str| {
            let o = ok(src);
            o.crate_path().to_string()
        };
        assert_eq!(path(""), ":: prescient");
        assert_eq!(path("crate = rt"), "rt");
        assert_eq!(path("crate = ::rt"), ":: rt");
        assert_eq!(path("crate = \"rt\""), "rt");
        assert_eq!(path("crate = \"::a::b\", stack_size = 65536"), ":: a :: b");
        assert!(err("crate = 1").contains("expected the path of the prescient crate"));
        assert!(err("crate = \"not a path\"").contains("expected the path"));
        assert!(err("crate = rt, crate = rt").contains("more than once"));
    }

    #[test]
    fn trees_argument() {
        assert!(ok("").trees.is_none());
        assert_eq!(ok("trees = cf17").trees.unwrap().item, "Cf17");
        assert_eq!(ok("trees = Cf17").trees.unwrap().item, "Cf17");
        assert_eq!(ok("trees = calibrated").trees.unwrap().item, "Calibrated");
        let o = ok("trees = Calibrated, queue_capacity = 8");
        assert_eq!(o.trees.unwrap().item, "Calibrated");
        assert!(o.queue_capacity.is_some());
        for bad in [
            "trees = insieme",
            "trees = \"cf17\"",
            "trees = 17",
            "trees = a::cf17",
        ] {
            assert!(
                err(bad).contains("expected decision trees: `cf17` or `calibrated`"),
                "{bad}"
            );
        }
        assert!(err("trees = cf17, trees = calibrated").contains("`trees` is given more than once"));
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(err("stack = 1").contains("unknown task_program argument `stack`"));
        assert!(err("stack_size").contains("expected `stack_size = value`"));
        assert!(err("stack_size = 65536, stack_size = 65536").contains("more than once"));
        assert!(err("stack_size = 1000").contains("power of two"));
        assert!(err("stack_size = 8192").contains("between"));
        assert!(err("stack_size = 8192").contains("1073741824 (1 GiB)"));
        assert!(err("stack_size = 2147483648").contains("between"));
        assert!(err("queue_capacity = 0").contains("1 ..= 65536"));
        assert!(err("dependency_buckets = \"x\"").contains("expects an integer"));
        assert!(err("queue_policy = LIFO").contains("expected a queue policy"));
        assert!(err("stack_size = 65536 queue_capacity = 4").contains("expected `,`"));
    }
}
