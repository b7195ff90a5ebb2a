//! knapsack under rayon and chili: [`crate::annotated::knapsack`]'s branch
//! and bound, the two branches of every node forked by `rayon::join` or
//! chili's `Scope::join` instead of `prescient::join`, with the same shared
//! best-so-far bound (an `AtomicI64` read `Relaxed`, raised by `fetch_max`
//! only when the node's result beats the value loaded).

use super::chili_join;

use crate::annotated::knapsack::Item;
use std::sync::atomic::{AtomicI64, Ordering};

/// The best value below the search node, under rayon (the task version's
/// [`knapsack`](crate::annotated::knapsack::knapsack)).
pub fn knapsack_rayon(items: &[Item], c: i64, v: i64, best: &AtomicI64) -> i64 {
    if c < 0 {
        return i64::MIN;
    }
    if items.is_empty() || c == 0 {
        return v;
    }
    let e = items[0];
    let ub = v + c * e.value / e.weight;
    if ub < best.load(Ordering::Relaxed) {
        return i64::MIN;
    }
    let rest = &items[1..];
    let (without, with) = rayon::join(
        || knapsack_rayon(rest, c, v, best),
        || knapsack_rayon(rest, c - e.weight, v + e.value, best),
    );
    let result = without.max(with);
    if result > best.load(Ordering::Relaxed) {
        best.fetch_max(result, Ordering::Relaxed);
    }
    result
}

/// The best value of the sorted `items` in a knapsack of `capacity`, under
/// rayon, with a fresh bound.
pub fn knapsack_main_rayon(items: &[Item], capacity: i64) -> i64 {
    let best = AtomicI64::new(i64::MIN);
    knapsack_rayon(items, capacity, 0, &best)
}

/// The best value below the search node, on a chili scope.
pub fn knapsack_chili(
    scope: &mut chili::Scope<'_>,
    items: &[Item],
    c: i64,
    v: i64,
    best: &AtomicI64,
) -> i64 {
    if c < 0 {
        return i64::MIN;
    }
    if items.is_empty() || c == 0 {
        return v;
    }
    let e = items[0];
    let ub = v + c * e.value / e.weight;
    if ub < best.load(Ordering::Relaxed) {
        return i64::MIN;
    }
    let rest = &items[1..];
    let (without, with) = chili_join(
        scope,
        |s| knapsack_chili(s, rest, c, v, best),
        |s| knapsack_chili(s, rest, c - e.weight, v + e.value, best),
    );
    let result = without.max(with);
    if result > best.load(Ordering::Relaxed) {
        best.fetch_max(result, Ordering::Relaxed);
    }
    result
}

/// The best value of the sorted `items` in a knapsack of `capacity`, on a
/// chili scope, with a fresh bound.
pub fn knapsack_main_chili(scope: &mut chili::Scope<'_>, items: &[Item], capacity: i64) -> i64 {
    let best = AtomicI64::new(i64::MIN);
    knapsack_chili(scope, items, capacity, 0, &best)
}
