//! Symbolic `u64` expressions: the effort and stack estimates whose value only
//! rustc knows (`core::mem::size_of::<T>()`, module-level `const` loop bounds,
//! the runtime's per-join frame cost).
//!
//! The analyses build [`Sym`] trees with the folding constructors ([`sum`],
//! [`product`], [`max`], [`div`]), so that wherever every leaf is a literal the
//! tree is a single [`Sym::Lit`]. `emit` turns the rest into a `const`
//! expression over saturating `const fn`s of `prescient::__private`; tests
//! evaluate it with `Sym::eval`.

use std::fmt;

/// A loop bound expression: literals, module-level `const`s and `+ - * /`
/// (division only by a non-zero literal). Evaluated in `i128`, saturating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// An integer literal.
    Lit(i128),
    /// A module-level `const` item, as written (emitted as this identifier,
    /// so raw identifiers such as `r#loop` stay valid).
    Const(syn::Ident),
    /// A binary operation on two bounds.
    Bin(BoundOp, Box<Bound>, Box<Bound>),
}

/// The operators a [`Bound`] may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundOp {
    /// Saturating addition.
    Add,
    /// Saturating subtraction.
    Sub,
    /// Saturating multiplication.
    Mul,
    /// Division by a non-zero literal.
    Div,
}

impl Bound {
    /// The literal value, if the bound involves no `const`.
    pub fn literal(&self) -> Option<i128> {
        self.eval(&|_| None)
    }

    /// Evaluates the bound, asking `consts` for the value of each `const`.
    pub fn eval(&self, consts: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        match self {
            Bound::Lit(v) => Some(*v),
            Bound::Const(name) => consts(&name.to_string()),
            Bound::Bin(op, l, r) => {
                let (l, r) = (l.eval(consts)?, r.eval(consts)?);
                Some(match op {
                    BoundOp::Add => l.saturating_add(r),
                    BoundOp::Sub => l.saturating_sub(r),
                    BoundOp::Mul => l.saturating_mul(r),
                    BoundOp::Div => l.checked_div(r)?,
                })
            }
        }
    }
}

/// The trip count of `start..end` / `start..=end` in `i128`, as
/// `prescient::analysis::trip_count` computes it.
pub fn trip_count(start: i128, end: i128, inclusive: bool) -> u64 {
    let trips = end.saturating_sub(start);
    let trips = if inclusive {
        trips.saturating_add(1)
    } else {
        trips
    };
    u64::try_from(trips.max(0)).unwrap_or(u64::MAX)
}

/// A symbolic, saturating `u64` expression.
#[derive(Clone, Debug)]
pub enum Sym {
    /// A known value.
    Lit(u64),
    /// Saturating sum.
    Sum(Vec<Sym>),
    /// Saturating product.
    Product(Vec<Sym>),
    /// Maximum (0 for none).
    Max(Vec<Sym>),
    /// Floor division by a non-zero constant (a mean).
    Div(Box<Sym>, u64),
    /// The trip count of a range whose bounds involve module-level `const`s.
    Trip {
        /// The range start.
        start: Bound,
        /// The range end.
        end: Bound,
        /// `..=` rather than `..`.
        inclusive: bool,
    },
    /// `core::mem::size_of::<T>()` for a type that resolves at module level.
    SizeOf(Box<syn::Type>),
    /// `prescient::__private::JOIN_FRAME_BYTES` (defined in the runtime's
    /// `analysis/emitted.rs`).
    JoinFrame,
    /// The levels of joins a range loop's splitting nests on one stack:
    /// `⌈log2 ⌈trips / grain⌉⌉` (a piece of at most `grain` is not split),
    /// at most `at_most` ([`split_levels_of`]).
    SplitLevels {
        /// The loop's trip count (indices, or chunks with a grain of 1).
        trips: Box<Sym>,
        /// Its grain (0 is taken as 1).
        grain: Bound,
        /// The most levels charged.
        at_most: u32,
    },
    /// The effort of a module function, emitted as a `const` of its own.
    FnEffort(usize),
    /// The stack estimate of a module function, emitted as a `const` of its own.
    FnStack(usize),
}

impl PartialEq for Sym {
    fn eq(&self, other: &Sym) -> bool {
        // Types compare by their tokens; everything else structurally.
        self.to_string() == other.to_string()
    }
}

/// Saturating sum with folding: nested sums are flattened, literals added up,
/// zeros dropped.
pub fn sum(terms: impl IntoIterator<Item = Sym>) -> Sym {
    let mut lit: u64 = 0;
    let mut rest = Vec::new();
    for t in terms {
        match t {
            Sym::Lit(v) => lit = lit.saturating_add(v),
            Sym::Sum(inner) => {
                for t in inner {
                    match t {
                        Sym::Lit(v) => lit = lit.saturating_add(v),
                        other => rest.push(other),
                    }
                }
            }
            other => rest.push(other),
        }
    }
    if lit == u64::MAX {
        return Sym::Lit(u64::MAX);
    }
    if rest.is_empty() {
        return Sym::Lit(lit);
    }
    if lit != 0 {
        rest.push(Sym::Lit(lit));
    }
    if rest.len() == 1 {
        rest.pop().unwrap_or(Sym::Lit(0))
    } else {
        Sym::Sum(rest)
    }
}

/// Saturating product with folding: a literal 0 makes it 0, ones are dropped.
pub fn product(factors: impl IntoIterator<Item = Sym>) -> Sym {
    let mut lit: u64 = 1;
    let mut rest = Vec::new();
    for f in factors {
        match f {
            Sym::Lit(v) => lit = lit.saturating_mul(v),
            Sym::Product(inner) => {
                for f in inner {
                    match f {
                        Sym::Lit(v) => lit = lit.saturating_mul(v),
                        other => rest.push(other),
                    }
                }
            }
            other => rest.push(other),
        }
    }
    if lit == 0 || rest.is_empty() {
        return Sym::Lit(lit);
    }
    if lit != 1 {
        rest.push(Sym::Lit(lit));
    }
    if rest.len() == 1 {
        rest.pop().unwrap_or(Sym::Lit(1))
    } else {
        Sym::Product(rest)
    }
}

/// Maximum with folding: literals collapse to their maximum, zeros are dropped.
pub fn max(terms: impl IntoIterator<Item = Sym>) -> Sym {
    let mut lit: u64 = 0;
    let mut rest: Vec<Sym> = Vec::new();
    for t in terms {
        match t {
            Sym::Lit(v) => lit = lit.max(v),
            Sym::Max(inner) => {
                for t in inner {
                    match t {
                        Sym::Lit(v) => lit = lit.max(v),
                        other => rest.push(other),
                    }
                }
            }
            other => {
                if !rest.contains(&other) {
                    rest.push(other)
                }
            }
        }
    }
    if rest.is_empty() {
        return Sym::Lit(lit);
    }
    if lit != 0 {
        rest.push(Sym::Lit(lit));
    }
    if rest.len() == 1 {
        rest.pop().unwrap_or(Sym::Lit(0))
    } else {
        Sym::Max(rest)
    }
}

/// Floor division by `divisor` (treated as 1 if zero).
pub fn div(value: Sym, divisor: u64) -> Sym {
    let divisor = divisor.max(1);
    match value {
        Sym::Lit(v) => Sym::Lit(v / divisor),
        v if divisor == 1 => v,
        v => Sym::Div(Box::new(v), divisor),
    }
}

/// The trip count of a range, folded to a literal when both bounds are.
pub fn trip(start: Bound, end: Bound, inclusive: bool) -> Sym {
    match (start.literal(), end.literal()) {
        (Some(s), Some(e)) => Sym::Lit(trip_count(s, e, inclusive)),
        _ => Sym::Trip {
            start,
            end,
            inclusive,
        },
    }
}

/// The levels of joins a loop of `trips` iterations nests when its pieces
/// are halved down to at most `grain` iterations (`⌈log2 ⌈trips / grain⌉⌉`,
/// 0 for a single piece), at most `at_most`: what
/// `prescient::__private::split_levels` computes.
pub fn split_levels_of(trips: u64, grain: i128, at_most: u32) -> u64 {
    let grain = u64::try_from(grain.max(1)).unwrap_or(u64::MAX);
    let pieces = trips.div_ceil(grain);
    let levels = match pieces {
        0 | 1 => 0,
        p => u64::from(u64::BITS - (p - 1).leading_zeros()),
    };
    levels.min(u64::from(at_most))
}

/// [`Sym::SplitLevels`], folded to a literal when the trip count and the
/// grain are.
pub fn split_levels(trips: Sym, grain: Bound, at_most: u32) -> Sym {
    match (trips.literal(), grain.literal()) {
        (Some(t), Some(g)) => Sym::Lit(split_levels_of(t, g, at_most)),
        _ => Sym::SplitLevels {
            trips: Box::new(trips),
            grain,
            at_most,
        },
    }
}

/// What [`Sym::eval`] needs to know about the leaves rustc would evaluate.
#[cfg(test)]
pub trait Env {
    /// The value of a module-level `const`.
    fn constant(&self, name: &str) -> Option<i128>;
    /// `size_of::<ty>()`.
    fn size_of(&self, ty: &syn::Type) -> Option<u64>;
    /// `JOIN_FRAME_BYTES`.
    fn join_frame(&self) -> u64;
    /// The value of a per-function `const`.
    fn function(&self, sym: &Sym) -> Option<u64>;
}

impl Sym {
    /// Whether the expression is a literal.
    pub fn literal(&self) -> Option<u64> {
        match self {
            Sym::Lit(v) => Some(*v),
            _ => None,
        }
    }

    /// Evaluates the expression as rustc would evaluate the emitted `const`.
    #[cfg(test)]
    pub fn eval(&self, env: &dyn Env) -> Option<u64> {
        Some(match self {
            Sym::Lit(v) => *v,
            Sym::Sum(t) => t
                .iter()
                .try_fold(0u64, |a, t| Some(a.saturating_add(t.eval(env)?)))?,
            Sym::Product(t) => t
                .iter()
                .try_fold(1u64, |a, t| Some(a.saturating_mul(t.eval(env)?)))?,
            Sym::Max(t) => t.iter().try_fold(0u64, |a, t| Some(a.max(t.eval(env)?)))?,
            Sym::Div(v, d) => v.eval(env)? / d,
            Sym::Trip {
                start,
                end,
                inclusive,
            } => {
                let consts = |n: &str| env.constant(n);
                trip_count(start.eval(&consts)?, end.eval(&consts)?, *inclusive)
            }
            Sym::SplitLevels {
                trips,
                grain,
                at_most,
            } => split_levels_of(
                trips.eval(env)?,
                grain.eval(&|n: &str| env.constant(n))?,
                *at_most,
            ),
            Sym::SizeOf(ty) => env.size_of(ty)?,
            Sym::JoinFrame => env.join_frame(),
            Sym::FnEffort(_) | Sym::FnStack(_) => env.function(self)?,
        })
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Lit(v) => write!(f, "{v}"),
            Bound::Const(n) => write!(f, "{n}"),
            Bound::Bin(op, l, r) => {
                let op = match op {
                    BoundOp::Add => "+",
                    BoundOp::Sub => "-",
                    BoundOp::Mul => "*",
                    BoundOp::Div => "/",
                };
                write!(f, "({l} {op} {r})")
            }
        }
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, t: &[Sym]| {
            write!(f, "{name}(")?;
            for (i, t) in t.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{t}")?;
            }
            f.write_str(")")
        };
        match self {
            Sym::Lit(v) => write!(f, "{v}"),
            Sym::Sum(t) => list(f, "sum", t),
            Sym::Product(t) => list(f, "product", t),
            Sym::Max(t) => list(f, "max", t),
            Sym::Div(v, d) => write!(f, "({v} / {d})"),
            Sym::Trip {
                start,
                end,
                inclusive,
            } => write!(
                f,
                "trip({start}..{}{end})",
                if *inclusive { "=" } else { "" }
            ),
            Sym::SizeOf(ty) => {
                let ty = ty.as_ref();
                write!(f, "size_of::<{}>()", quote::quote!(#ty))
            }
            Sym::SplitLevels {
                trips,
                grain,
                at_most,
            } => write!(f, "split_levels({trips}, {grain}, {at_most})"),
            Sym::JoinFrame => f.write_str("JOIN_FRAME_BYTES"),
            Sym::FnEffort(i) => write!(f, "effort#{i}"),
            Sym::FnStack(i) => write!(f, "stack#{i}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_constructors() {
        assert_eq!(sum([Sym::Lit(2), Sym::Lit(3)]), Sym::Lit(5));
        assert_eq!(
            sum([Sym::Lit(u64::MAX), Sym::JoinFrame]),
            Sym::Lit(u64::MAX)
        );
        assert_eq!(sum([Sym::JoinFrame, Sym::Lit(0)]), Sym::JoinFrame);
        assert_eq!(product([Sym::Lit(0), Sym::JoinFrame]), Sym::Lit(0));
        assert_eq!(product([Sym::Lit(1), Sym::JoinFrame]), Sym::JoinFrame);
        assert_eq!(
            product([Sym::Lit(u64::MAX), Sym::Lit(2)]),
            Sym::Lit(u64::MAX)
        );
        assert_eq!(max([Sym::Lit(4), Sym::Lit(9), Sym::Lit(0)]), Sym::Lit(9));
        assert_eq!(max([Sym::JoinFrame, Sym::JoinFrame]), Sym::JoinFrame);
        assert_eq!(div(Sym::Lit(9), 2), Sym::Lit(4));
        assert_eq!(div(Sym::Lit(9), 0), Sym::Lit(9));
        assert_eq!(trip(Bound::Lit(0), Bound::Lit(10), true), Sym::Lit(11));
        assert_eq!(trip(Bound::Lit(5), Bound::Lit(1), false), Sym::Lit(0));
        let n = trip(
            Bound::Lit(0),
            Bound::Const(quote::format_ident!("N")),
            false,
        );
        assert_eq!(n.to_string(), "trip(0..N)");
    }

    #[test]
    fn split_levels_halve_pieces_down_to_the_grain() {
        for (trips, grain, levels) in [
            (0, 1, 0),
            (1, 1, 0),
            (2, 1, 1),
            (3, 1, 2),
            (1000, 16, 6),
            (1024, 16, 6),
            (1025, 16, 7),
            (100, 0, 7),
            (100, -5, 7),
            (100, 1000, 0),
            (u64::MAX, 1, 64),
        ] {
            assert_eq!(split_levels_of(trips, grain, 64), levels, "{trips}/{grain}");
        }
        assert_eq!(split_levels_of(1 << 20, 1, 8), 8);
        assert_eq!(
            split_levels(Sym::Lit(1 << 20), Bound::Lit(1), 30),
            Sym::Lit(20)
        );
        let n = split_levels(
            trip(
                Bound::Lit(0),
                Bound::Const(quote::format_ident!("N")),
                false,
            ),
            Bound::Lit(4),
            8,
        );
        assert_eq!(n.to_string(), "split_levels(trip(0..N), 4, 8)");
    }

    #[test]
    fn trip_counts_saturate() {
        assert_eq!(trip_count(0, 10, false), 10);
        assert_eq!(trip_count(i128::MIN, i128::MAX, true), u64::MAX);
        let b = Bound::Bin(
            BoundOp::Div,
            Box::new(Bound::Const(quote::format_ident!("N"))),
            Box::new(Bound::Lit(2)),
        );
        assert_eq!(b.eval(&|_| Some(9)), Some(4));
        assert_eq!(b.literal(), None);
    }
}
