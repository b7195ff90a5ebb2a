//! Loops the lowering recognises beyond the syntactic ones, and trip
//! counts: which iterator methods run their closure once per element, how
//! many elements iterating over an expression yields (a range, an array, a
//! count-preserving adaptor chain), and loop bounds made of literals and
//! module-level `const`s.

use super::builder::FnBuilder;
use super::syntax::strip;
use crate::model::Trip;
use crate::sym::{Bound, BoundOp};

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

/// Whether the closure argument of a method `name` called on `receiver`
/// runs once per element: always for [`ALWAYS_LOOP_METHODS`], and for
/// [`ITER_LOOP_METHODS`] on a receiver that is recognisably an iterator.
pub(super) fn runs_per_element(name: &str, receiver: &syn::Expr) -> bool {
    ALWAYS_LOOP_METHODS.contains(&name)
        || (ITER_LOOP_METHODS.contains(&name) && looks_like_iterator(receiver))
}

impl FnBuilder<'_> {
    /// The trip count of a range loop over `range`: per index, or, for
    /// `for_range_chunked` (`chunked`), per chunk of at most `grain`.
    pub(super) fn range_loop_trip(
        &self,
        range: &syn::Expr,
        grain: &syn::Expr,
        chunked: bool,
    ) -> Trip {
        match (self.iter_trip(range), chunked) {
            (trip, false) => trip,
            // Chunks of at most `grain` (0 is taken as 1): at least
            // ⌈n / grain⌉ of them, when both are literal.
            (Trip::Literal(n), true) => match self.bound(grain).and_then(|g| g.literal()) {
                Some(g) => Trip::Literal(n.div_ceil(u64::try_from(g.max(1)).unwrap_or(u64::MAX))),
                None => Trip::Unknown,
            },
            (_, true) => Trip::Unknown,
        }
    }

    /// The trip count of iterating over `e` (a `for` loop's iterable or the
    /// receiver of an iterator closure method).
    pub(super) fn iter_trip(&self, e: &syn::Expr) -> Trip {
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

    pub(super) fn range_trip(&self, r: &syn::ExprRange) -> Trip {
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
    pub(super) fn bound(&self, e: &syn::Expr) -> Option<Bound> {
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
                // The emitted bound names the `const` at the annotated
                // module's level: a nested module's own `const`s are not
                // visible there.
                if self.nested() {
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
}

#[cfg(test)]
mod tests {
    use crate::model::{LoopKind, Node, Trip, WalkCtx};
    use crate::test_support::program;

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
