//! Which tables the report runs, in which order, and at which size: the
//! table list in priority order with each table's time estimate, and the one
//! function that fits a table into what is left of the budget.
//!
//! The estimates are what a table took at each size on a 2-core development
//! machine, per thread count measured (a table's runs at more threads are
//! shorter, but its sequential reference and its sample-time targets are
//! not, so the count of thread counts is what scales it). Being wrong costs
//! completeness, never the budget: the report kills a table that runs past
//! its cap ([`Choice::cap_seconds`]) and the whole report stops at the
//! budget.

use crate::cli::Size;

/// A table of `prescient-bench` as the report runs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableSpec {
    /// The subcommand's name.
    pub name: &'static str,
    /// What the table shows, one line for report.md.
    pub about: &'static str,
    /// The table's share of the budget relative to the others.
    pub weight: f64,
    /// Estimated seconds per thread count measured, at [`Size::Full`],
    /// [`Size::Quick`] and [`Size::Test`].
    pub seconds_per_thread_count: [f64; 3],
    /// Estimated seconds that do not scale with the thread counts (inputs,
    /// the sequential reference), at the same three sizes.
    pub fixed_seconds: [f64; 3],
    /// Whether the table needs a build with the `trace` feature.
    pub needs_trace: bool,
    /// Whether the table runs the MPI example under `mpirun` (the report
    /// skips it, saying why, where either is missing).
    pub needs_mpi: bool,
    /// Whether the table takes `--competing N` (the report passes its own
    /// on to these tables only).
    pub competing: bool,
}

/// The tables in the order the report runs them: the comparisons a user on
/// a new host asks for first (fork-join and dataflow against rayon, chili
/// and sequential), then the CF'17 suite, loops (range loops, then loops over
/// slices and reductions), the distributed heat equation under MPI, what a
/// task costs over a plain call, the annotated programs, the inliner, the
/// profiler and stack memory.
pub const TABLES: [TableSpec; 11] = [
    TableSpec {
        name: "fork-join",
        about: "fine-grained fork-join programs: Prescient against rayon, chili and sequential",
        weight: 3.0,
        seconds_per_thread_count: [270.0, 78.0, 1.5],
        fixed_seconds: [10.0, 4.0, 1.0],
        needs_trace: false,
        needs_mpi: false,
        competing: true,
    },
    TableSpec {
        name: "dataflow",
        about: "dataflow programs and per-task costs under each DAST mode",
        weight: 2.0,
        seconds_per_thread_count: [60.0, 20.0, 1.0],
        fixed_seconds: [10.0, 5.0, 1.0],
        needs_trace: false,
        needs_mpi: false,
        competing: true,
    },
    TableSpec {
        name: "cf17",
        about: "the CF'17 suite: analyzer-tuned against default parameters, rayon and chili",
        weight: 2.5,
        seconds_per_thread_count: [550.0, 185.0, 2.0],
        fixed_seconds: [20.0, 8.0, 1.0],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "loops",
        about: "parallel loops against rayon and sequential",
        weight: 1.0,
        seconds_per_thread_count: [20.0, 5.0, 0.5],
        fixed_seconds: [5.0, 2.0, 0.5],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "par-loops",
        about: "loops over slices and reductions (sum of squares, Mandelbrot, stencil) against rayon and sequential",
        weight: 1.0,
        seconds_per_thread_count: [75.0, 16.0, 0.2],
        fixed_seconds: [15.0, 3.0, 0.3],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "mpi-heat",
        about: "a distributed heat equation under MPI at 1, 2 and 4 ranks: bulk-synchronous, \
                blocking-mode tasks, dataflow with bound requests, rayon; the exchange each hides, \
                over shared memory and over TCP links shaped in a network namespace",
        weight: 1.0,
        // One run per rank count and link, whatever the thread counts.
        seconds_per_thread_count: [0.0, 0.0, 0.0],
        fixed_seconds: [150.0, 40.0, 5.0],
        needs_trace: false,
        needs_mpi: true,
        competing: false,
    },
    TableSpec {
        name: "task-cost",
        about:
            "what a task nobody steals costs over a plain call, per form; nqueens at two capacities",
        weight: 0.5,
        seconds_per_thread_count: [8.0, 2.5, 0.1],
        fixed_seconds: [28.0, 8.0, 1.0],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "annotated",
        about: "the annotated BOTS programs: parameters the analyzer chose against the defaults",
        weight: 1.0,
        seconds_per_thread_count: [30.0, 3.0, 0.5],
        fixed_seconds: [5.0, 1.0, 0.5],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "inlining",
        about: "adaptive inlining against its fixed policies",
        weight: 1.0,
        seconds_per_thread_count: [150.0, 28.0, 0.5],
        fixed_seconds: [5.0, 2.0, 0.5],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "trace-overhead",
        about: "what the critical-path profiler costs",
        weight: 0.5,
        seconds_per_thread_count: [20.0, 5.0, 0.5],
        fixed_seconds: [10.0, 3.0, 0.5],
        needs_trace: true,
        needs_mpi: false,
        competing: false,
    },
    TableSpec {
        name: "stack-memory",
        about: "what task stacks cost in memory",
        weight: 0.5,
        seconds_per_thread_count: [0.0, 0.0, 0.0],
        fixed_seconds: [50.0, 5.0, 3.0],
        needs_trace: false,
        needs_mpi: false,
        competing: false,
    },
];

/// The sizes from largest to smallest.
const SIZES: [Size; 3] = [Size::Full, Size::Quick, Size::Test];

impl TableSpec {
    /// The estimated seconds at `size` with `thread_counts` thread counts.
    pub fn estimate(&self, size: Size, thread_counts: usize) -> f64 {
        let i = SIZES.iter().position(|&s| s == size).unwrap_or(0);
        self.fixed_seconds[i] + self.seconds_per_thread_count[i] * thread_counts as f64
    }
}

/// The table by its subcommand name.
pub fn table(name: &str) -> Option<&'static TableSpec> {
    TABLES.iter().find(|spec| spec.name == name)
}

/// How the report runs one table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The size it runs at.
    pub size: Size,
    /// The estimated seconds at that size.
    pub estimate_seconds: f64,
    /// When the report kills it (seconds after it starts).
    pub cap_seconds: f64,
}

/// Fits `spec` into `remaining_seconds` of the budget, of which the tables
/// still to run (this one included) weigh `remaining_weight` in all and the
/// later ones need `reserved_seconds` at their smallest size: the largest
/// size no larger than `largest` whose estimate fits the table's share
/// (`remaining × weight / remaining_weight`), else the smallest size if it
/// fits what the later tables leave, else `None` (the table is skipped).
///
/// The cap lets a table run past its estimate (to twice its share, or one
/// and a half times the estimate), but never into what the later tables
/// need at their smallest size, nor past the budget: a table whose estimate
/// is wrong costs its own completeness, not the tables after it.
pub fn choose(
    spec: &TableSpec,
    remaining_seconds: f64,
    remaining_weight: f64,
    reserved_seconds: f64,
    thread_counts: usize,
    largest: Size,
) -> Option<Choice> {
    let share = remaining_seconds * spec.weight / remaining_weight.max(spec.weight);
    let available = (remaining_seconds - reserved_seconds).max(0.0);
    let allowed = SIZES.iter().skip_while(|&&s| s != largest);
    let mut smallest = None;
    for &size in allowed {
        let estimate = spec.estimate(size, thread_counts);
        smallest = Some((size, estimate));
        if estimate <= share.min(available) {
            break;
        }
    }
    let (size, estimate_seconds) = smallest?;
    if estimate_seconds > available {
        return None;
    }
    let cap_seconds = (2.0 * share).max(1.5 * estimate_seconds).min(available);
    Some(Choice {
        size,
        estimate_seconds,
        cap_seconds,
    })
}

/// The budget when none is given: 8 minutes, or, where the size asked for
/// (`largest`: `--quick`, `--test-size`) is not full, the least budget
/// (in steps of a quarter over the tables' summed estimates at that size)
/// under which [`choose`] gives every table that size when each takes its
/// estimate, plus `reserve_seconds`, if that is more. A user who asks for
/// quick sizes gets them on any machine and thread list; only an explicit
/// `--budget` shrinks them. The budget bounds the report; the report takes
/// what its tables take.
pub fn default_budget(
    tables: &[&TableSpec],
    largest: Size,
    thread_counts: usize,
    reserve_seconds: f64,
) -> std::time::Duration {
    let floor = 8.0 * 60.0;
    if largest == Size::Full || tables.is_empty() {
        return std::time::Duration::from_secs_f64(floor);
    }
    let need: f64 = tables
        .iter()
        .map(|spec| spec.estimate(largest, thread_counts))
        .sum();
    let every_table_fits = |budget: f64| {
        replay(tables, budget, thread_counts, largest)
            .iter()
            .all(|choice| choice.is_some_and(|c| c.size == largest))
    };
    let mut budget = need;
    for _ in 0..32 {
        if every_table_fits(budget) {
            break;
        }
        budget *= 1.25;
    }
    std::time::Duration::from_secs_f64((budget + reserve_seconds).max(floor))
}

/// The report's planning of `tables` under `budget` seconds (after its
/// reserve), supposing each table takes exactly its estimate: each table's
/// [`choose`] in order, `None` where it would be skipped.
pub fn replay(
    tables: &[&TableSpec],
    budget: f64,
    thread_counts: usize,
    largest: Size,
) -> Vec<Option<Choice>> {
    let mut remaining = budget;
    tables
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let weight: f64 = tables[i..].iter().map(|t| t.weight).sum();
            let reserved = smallest_need(&tables[i + 1..], thread_counts);
            let choice = choose(spec, remaining, weight, reserved, thread_counts, largest);
            if let Some(choice) = choice {
                remaining -= choice.estimate_seconds;
            }
            choice
        })
        .collect()
}

/// What `tables` need at their test size, in seconds: what a table before
/// them must leave.
pub fn smallest_need(tables: &[&TableSpec], thread_counts: usize) -> f64 {
    tables
        .iter()
        .map(|spec| spec.estimate(Size::Test, thread_counts))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_unique_and_found() {
        for spec in &TABLES {
            assert_eq!(table(spec.name), Some(spec));
        }
        assert_eq!(table("no-such-table"), None);
    }

    #[test]
    fn the_default_quick_budget_runs_every_table_at_quick_size() {
        for thread_counts in [1, 2, 5, 9] {
            let tables: Vec<&TableSpec> = TABLES.iter().collect();
            let budget = default_budget(&tables, Size::Quick, thread_counts, 20.0).as_secs_f64();
            assert!(budget >= 8.0 * 60.0);
            // The report's planning, every table taking its estimate: each
            // gets its quick size.
            let choices = replay(&tables, budget - 20.0, thread_counts, Size::Quick);
            for (spec, choice) in tables.iter().zip(choices) {
                let choice = choice.unwrap_or_else(|| panic!("{} skipped", spec.name));
                assert_eq!(choice.size, Size::Quick, "{} at {thread_counts}", spec.name);
            }
        }
        let tables: Vec<&TableSpec> = TABLES.iter().collect();
        assert_eq!(default_budget(&tables, Size::Full, 2, 20.0).as_secs(), 480);
    }

    #[test]
    fn a_generous_budget_gets_the_full_size() {
        let spec = table("loops").unwrap();
        let choice = choose(spec, 10_000.0, 1.0, 0.0, 2, Size::Full).unwrap();
        assert_eq!(choice.size, Size::Full);
        assert!(choice.cap_seconds >= choice.estimate_seconds);
    }

    #[test]
    fn the_largest_size_asked_for_bounds_the_choice() {
        let spec = table("loops").unwrap();
        let choice = choose(spec, 10_000.0, 1.0, 0.0, 2, Size::Quick).unwrap();
        assert_eq!(choice.size, Size::Quick);
        let choice = choose(spec, 10_000.0, 1.0, 0.0, 2, Size::Test).unwrap();
        assert_eq!(choice.size, Size::Test);
    }

    #[test]
    fn a_tight_budget_shrinks_then_skips() {
        let spec = table("cf17").unwrap();
        let test = spec.estimate(Size::Test, 5);
        // Only the test size fits.
        let choice = choose(spec, test + 0.5, 1.0, 0.0, 5, Size::Full).unwrap();
        assert_eq!(choice.size, Size::Test);
        assert!(choice.cap_seconds <= test + 0.5);
        // Nothing fits.
        assert_eq!(choose(spec, test / 2.0, 1.0, 0.0, 5, Size::Full), None);
    }

    #[test]
    fn a_share_leaves_room_for_the_later_tables() {
        let spec = table("fork-join").unwrap();
        let total_weight: f64 = TABLES.iter().map(|t| t.weight).sum();
        let choice = choose(spec, 480.0, total_weight, 0.0, 2, Size::Full).unwrap();
        assert!(choice.estimate_seconds <= 480.0 * spec.weight / total_weight);
        assert!(choice.cap_seconds < 480.0);
    }

    #[test]
    fn a_table_never_takes_what_the_later_ones_need() {
        let spec = table("inlining").unwrap();
        let later: Vec<&TableSpec> = TABLES
            .iter()
            .skip_while(|t| t.name != "inlining")
            .skip(1)
            .collect();
        let reserved = smallest_need(&later, 2);
        assert!(reserved > 0.0);
        // A whole budget left for one heavy table and its light successors:
        // the cap stops short of their need.
        let choice = choose(spec, 300.0, spec.weight, reserved, 2, Size::Full).unwrap();
        assert!(choice.cap_seconds <= 300.0 - reserved);
        // With less left than the later tables need, it is skipped.
        assert_eq!(
            choose(spec, reserved, spec.weight, reserved, 2, Size::Full),
            None
        );
    }
}
