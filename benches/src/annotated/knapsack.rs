//! BOTS `knapsack`, annotated with `#[task_program]`: the 0/1 knapsack
//! problem by branch and bound.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `knapsack` (Matteo
//! Frigo's Cilk program), in its variant without a cut-off. The items are
//! sorted by decreasing value density (value / weight); the search decides
//! them in that order. A node of the search tree is the first undecided item
//! `e`, the remaining capacity `c` and the value `v` of the items taken so
//! far:
//!
//! * `c < 0`: the last item did not fit, no solution (`i64::MIN`, BOTS'
//!   `INT_MIN`);
//! * no item left or `c == 0`: a solution of value `v`;
//! * otherwise the upper bound `v + c · value(e) / weight(e)` (in integers,
//!   as BOTS computes it: `e` has the best density of the remaining items, so
//!   no completion can beat it) is compared with the best value found so far
//!   by any task, and the node is pruned if the bound is below it;
//! * else the node forks its two branches — leave `e` out, take `e` — as two
//!   tasks (BOTS: two `#pragma omp task`s and a `taskwait`, here one
//!   [`prescient::join`]), returns the larger of their results and raises the
//!   shared best-so-far to it.
//!
//! **The shared bound.** BOTS keeps the best value so far in a global `int`
//! that every task reads and writes without synchronisation ("notice the race
//! condition here"). Here it is an
//! [`AtomicI64`](std::sync::atomic::AtomicI64) passed down the search (so
//! concurrent searches do not share it), read with `load(Relaxed)` and raised
//! with `fetch_max(Relaxed)` when a node's result beats the value loaded
//! (BOTS: `if (best > best_so_far) best_so_far = best;`). Relaxed is enough:
//! the bound only prunes, and every value it ever holds is the value of a
//! feasible solution that some node has returned towards the root, so the
//! root's result is at least any value the bound held. A node pruned against
//! a stale (lower) bound is merely explored further; a node pruned against
//! any bound cannot hold a solution better than the root's result. Whatever
//! the interleaving, the root returns the optimum; only the amount of pruning
//! (and so the number of tasks) varies between runs, as in BOTS. `fetch_max`
//! also closes BOTS' lost-update window (a smaller value overwriting a larger
//! one between the test and the store), which in BOTS could only weaken the
//! pruning. Testing with a load before the read-modify-write matters: on one
//! worker, an unconditional `fetch_max` at every node made the search about
//! 2.6 × the sequential time on `knapsack-036`, the load first 1.2 ×.
//!
//! **What the analysis finds.** One task context, [`knapsack`], with one join
//! site whose two task bodies each call `knapsack` back: two recursive
//! parallel paths, ρ = 2, and no spawn in a loop, λ = 0. A task is a call
//! plus a few comparisons and a division, a tiny effort. CF'17's decision
//! trees would give `DEF` (ρ ≤ 5, effort ≤ 1M), capacity 4 and 256019
//! dependency buckets: the recursive class of fib. The calibrated trees
//! (`PARAMS`) give `BF`, capacity 32 (effort 6 < 7667: fine or opaque
//! tasks, BF/32) and the same buckets. The recursion walks down the
//! item slice, a depth the analysis cannot bound, so the stack estimate is
//! the conservative 8 MiB.
//!
//! **Differences from BOTS.** No cut-off: BOTS' default build has none (its
//! `BOTS_CUTOFF_DEF_VALUE` of 24 levels is used only by the `if_clause` and
//! `manual` cut-off variants). The items are a slice rather than a pointer
//! and a count; values are `i64` rather than `int`. The density sort compares
//! `value(a) · weight(b)` with `value(b) · weight(a)` exactly and is stable,
//! where BOTS compares `double` quotients with `qsort` (which leaves the order
//! of equal densities unspecified): it can change the order in which equally
//! dense items are decided, never the optimum. The bound is an atomic
//! (above). BOTS' per-thread task counter is left out.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential references are [`knapsack_seq`] (the same
//! search without a runtime, BOTS' `knapsack_seq`, what a speed-up is
//! measured against) and [`knapsack_dp`] (the textbook dynamic program over
//! capacities); every run's best value must equal both.
//!
//! Inputs: BOTS' `knapsack-NNN.input` files (12 to 128 items) in
//! `benches/data/knapsack/` ([`input`]; see `SOURCE.md` there).

use std::path::{Path, PathBuf};

pub use tasks::{knapsack, knapsack_main, ANALYSIS, PARAMS};

/// The item counts of the BOTS knapsack inputs in `benches/data/knapsack/`
/// (BOTS ships 12 to 128 items; the sequential search of its 40-item input
/// already takes about 13 s in release on the development host, so the larger
/// ones are not copied).
pub const INPUT_SIZES: [usize; 7] = [12, 16, 20, 24, 32, 36, 40];

/// The largest input the integration tests run under both build profiles
/// (24 items: about 3 ms for the sequential search in release).
pub const TEST_SIZE: usize = 24;

/// The input the measurements use (36 items: about 1.3 s for the sequential
/// search in release on the development host).
pub const BENCH_SIZE: usize = 36;

/// The path of BOTS' input with `items` items (`knapsack-012.input` for 12);
/// see [`INPUT_SIZES`].
pub fn input(items: usize) -> PathBuf {
    crate::data::input(&format!("knapsack/knapsack-{items:03}.input"))
}

/// One item: its value and its weight (positive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// What the item adds to the knapsack's value.
    pub value: i64,
    /// How much of the capacity it takes (positive).
    pub weight: i64,
}

/// A knapsack instance: a capacity and the items, sorted by decreasing value
/// density as the search needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The capacity of the knapsack.
    pub capacity: i64,
    /// The items, by decreasing `value / weight` ([`sort_by_density`]).
    pub items: Vec<Item>,
}

pub use super::input::ReadError;

/// Sorts items by decreasing value density, comparing `a.value · b.weight`
/// with `b.value · a.weight` exactly (BOTS' `compare`, which subtracts the
/// `double` quotients); stable, so equally dense items keep their file order.
pub fn sort_by_density(items: &mut [Item]) {
    items.sort_by(|a, b| {
        let (x, y) = (
            i128::from(a.value) * i128::from(b.weight),
            i128::from(b.value) * i128::from(a.weight),
        );
        y.cmp(&x)
    });
}

/// Parses an input in BOTS' format: the number of items `n` and the
/// capacity, then `n` pairs `value weight`, all white-space separated
/// integers (BOTS' `read_input`); the items come back sorted by density.
pub fn parse_instance(text: &str) -> Result<Instance, ReadError> {
    let mut numbers = text.split_whitespace().map(|w| {
        w.parse::<i64>()
            .map_err(|_| ReadError::Format(format!("not an integer: {w:?}")))
    });
    let mut next = |what: &str| {
        numbers
            .next()
            .unwrap_or_else(|| Err(ReadError::Format(format!("missing {what}"))))
    };
    let n = next("the item count")?;
    let capacity = next("the capacity")?;
    let n = usize::try_from(n).map_err(|_| ReadError::Format(format!("bad item count {n}")))?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let value = next("a value")?;
        let weight = next("a weight")?;
        if weight <= 0 || value < 0 {
            return Err(ReadError::Format(format!(
                "item of value {value} and weight {weight}: weights must be positive"
            )));
        }
        items.push(Item { value, weight });
    }
    sort_by_density(&mut items);
    Ok(Instance { capacity, items })
}

/// Reads and parses an input file in BOTS' format (see [`parse_instance`]).
pub fn read_instance(path: impl AsRef<Path>) -> Result<Instance, ReadError> {
    let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
    parse_instance(&text)
}

/// The sequential reference: the same branch and bound without a runtime
/// (BOTS' `knapsack_seq` and `knapsack_main_seq`), the best value of the
/// sorted `items` in a knapsack of `capacity`.
pub fn knapsack_seq(items: &[Item], capacity: i64) -> i64 {
    fn search(items: &[Item], c: i64, v: i64, best: &mut i64) -> i64 {
        if c < 0 {
            return i64::MIN;
        }
        let Some(e) = items.first() else {
            return v;
        };
        if c == 0 {
            return v;
        }
        let ub = v + c * e.value / e.weight;
        if ub < *best {
            return i64::MIN;
        }
        let without = search(&items[1..], c, v, best);
        let with = search(&items[1..], c - e.weight, v + e.value, best);
        let result = without.max(with);
        *best = (*best).max(result);
        result
    }
    let mut best = i64::MIN;
    search(items, capacity, 0, &mut best)
}

/// The best value by dynamic programming over the capacities `0 ..=
/// capacity` (one pass per item, `O(n · capacity)`): the expected result of
/// every run, independent of the item order and of the search.
pub fn knapsack_dp(items: &[Item], capacity: i64) -> i64 {
    let Ok(capacity) = usize::try_from(capacity) else {
        return 0; // a negative capacity holds nothing
    };
    let mut best = vec![0i64; capacity + 1];
    for item in items {
        let Ok(w) = usize::try_from(item.weight) else {
            continue;
        };
        for c in (w..=capacity).rev() {
            best[c] = best[c].max(best[c - w] + item.value);
        }
    }
    best[capacity]
}

/// The task code of knapsack, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use super::Item;
    use prescient::join;
    use std::sync::atomic::{AtomicI64, Ordering};

    /// The best value of a solution below the search node (`items`: the
    /// undecided items, densest first; `c`: the remaining capacity; `v`: the
    /// value taken so far), or `i64::MIN` if the node has none or is pruned
    /// against `best`, the best value found so far by any task (BOTS'
    /// `knapsack_par`). Forks the two branches — leave `items[0]` out, take it
    /// — with a join, then raises `best` to the result if it is larger (a
    /// load first, as BOTS tests before it stores: the read-modify-write, and
    /// the cache-line transfer it costs, only when the bound improves).
    pub fn knapsack(items: &[Item], c: i64, v: i64, best: &AtomicI64) -> i64 {
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
        let (without, with) = join(
            || knapsack(rest, c, v, best),
            || knapsack(rest, c - e.weight, v + e.value, best),
        );
        let result = without.max(with);
        if result > best.load(Ordering::Relaxed) {
            best.fetch_max(result, Ordering::Relaxed);
        }
        result
    }

    /// The best value of the sorted `items` in a knapsack of `capacity`
    /// (BOTS' `knapsack_main_par`): the search from the root with a fresh
    /// best-so-far bound.
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what the
    /// tests and the suite measure) or on the global runtime.
    pub fn knapsack_main(items: &[Item], capacity: i64) -> i64 {
        let best = AtomicI64::new(i64::MIN);
        knapsack(items, capacity, 0, &best)
    }
}
