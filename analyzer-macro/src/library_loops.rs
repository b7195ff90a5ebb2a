//! The runtime's library loops: every `prescient` function that runs a body
//! (or a comparator) many times, in parallel pieces split on demand —
//! `for_range` and its chunked, slice and reduction forms (at the crate
//! root), and the parallel sorts (`prescient::slice`). The lowering (`lower/spawns.rs`) turns a call of one of them into
//! loop parallelism (λ): a [`LoopKind::RangeLoop`](crate::model::LoopKind)
//! around a site whose tasks are the closures the loop runs; the emitter
//! rewrites the call to its `__private` twin with the site. This table is
//! the one place that says which functions those are, which arguments are
//! their closures, and what their trip count is, so adding a loop to the
//! runtime is one row here.
//!
//! A row that is wrong costs precision, never correctness: the `_at` twins
//! ignore the site, and the analysis only chooses parameters.

/// How a library loop's trip count is read from its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoopTrip {
    /// Once per index of the range in argument 0.
    Indices,
    /// Once per chunk of at most argument 1's indices of the range in
    /// argument 0.
    Chunks,
    /// Not known from the call (a slice's length, a sort's comparisons).
    Unknown,
}

/// One library loop of the runtime.
#[derive(Debug)]
pub(crate) struct LibraryLoop {
    /// The function's name (`for_range`).
    pub(crate) name: &'static str,
    /// The module of `prescient` that exports it: `""` for the crate root
    /// (`prescient::for_range`), `"slice"` for the sorts
    /// (`prescient::slice::par_sort`). A glob import of that module brings
    /// it in.
    pub(crate) module: &'static str,
    /// Its `__private` twin taking the site first (`for_range_at`).
    pub(crate) at: &'static str,
    /// Its number of arguments: a call with another count is not this
    /// function (a shadowing local, a mistake rustc will report).
    pub(crate) args: usize,
    /// The arguments that are closures run in the loop's pieces; the others
    /// are evaluated once, in the calling task.
    pub(crate) tasks: &'static [usize],
    /// How its trip count is read.
    pub(crate) trip: LoopTrip,
    /// Arguments that satisfy the function's bounds with nothing inferred
    /// from the program: the emitter's use of an imported name.
    pub(crate) sample_args: &'static str,
}

/// Every library loop of the runtime.
pub(crate) const LIBRARY_LOOPS: &[LibraryLoop] = &[
    LibraryLoop {
        name: "for_range",
        module: "",
        at: "for_range_at",
        args: 3,
        tasks: &[2],
        trip: LoopTrip::Indices,
        sample_args: "0..0, 1, |_| ()",
    },
    LibraryLoop {
        name: "for_range_chunked",
        module: "",
        at: "for_range_chunked_at",
        args: 3,
        tasks: &[2],
        trip: LoopTrip::Chunks,
        sample_args: "0..0, 1, |_| ()",
    },
    LibraryLoop {
        name: "for_range_reduce",
        module: "",
        at: "for_range_reduce_at",
        args: 5,
        tasks: &[2, 3, 4],
        trip: LoopTrip::Indices,
        sample_args: "0..0, 1, || (), |a, _| a, |a, _| a",
    },
    LibraryLoop {
        name: "for_range_chunked_reduce",
        module: "",
        at: "for_range_chunked_reduce_at",
        args: 5,
        tasks: &[2, 3, 4],
        trip: LoopTrip::Chunks,
        sample_args: "0..0, 1, || (), |a, _| a, |a, _| a",
    },
    LibraryLoop {
        name: "for_chunks",
        module: "",
        at: "for_chunks_at",
        args: 3,
        tasks: &[2],
        trip: LoopTrip::Unknown,
        sample_args: "&[(); 0], 1, |_, _| ()",
    },
    LibraryLoop {
        name: "for_chunks_mut",
        module: "",
        at: "for_chunks_mut_at",
        args: 3,
        tasks: &[2],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], 1, |_, _| ()",
    },
    LibraryLoop {
        name: "for_each_mut",
        module: "",
        at: "for_each_mut_at",
        args: 3,
        tasks: &[2],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], 1, |_, _| ()",
    },
    LibraryLoop {
        name: "for_chunks_reduce",
        module: "",
        at: "for_chunks_reduce_at",
        args: 5,
        tasks: &[2, 3, 4],
        trip: LoopTrip::Unknown,
        sample_args: "&[(); 0], 1, || (), |a, _, _| a, |a, _| a",
    },
    LibraryLoop {
        name: "par_sort",
        module: "slice",
        at: "par_sort_at",
        args: 1,
        tasks: &[],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0]",
    },
    LibraryLoop {
        name: "par_sort_by",
        module: "slice",
        at: "par_sort_by_at",
        args: 2,
        tasks: &[1],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], |_, _| ::core::cmp::Ordering::Equal",
    },
    LibraryLoop {
        name: "par_sort_by_key",
        module: "slice",
        at: "par_sort_by_key_at",
        args: 2,
        tasks: &[1],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], |_| ()",
    },
    LibraryLoop {
        name: "par_sort_unstable",
        module: "slice",
        at: "par_sort_unstable_at",
        args: 1,
        tasks: &[],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0]",
    },
    LibraryLoop {
        name: "par_sort_unstable_by",
        module: "slice",
        at: "par_sort_unstable_by_at",
        args: 2,
        tasks: &[1],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], |_, _| ::core::cmp::Ordering::Equal",
    },
    LibraryLoop {
        name: "par_sort_unstable_by_key",
        module: "slice",
        at: "par_sort_unstable_by_key_at",
        args: 2,
        tasks: &[1],
        trip: LoopTrip::Unknown,
        sample_args: "&mut [(); 0], |_| ()",
    },
];

/// The library loop named `name` taking `args` arguments, if any.
pub(crate) fn library_loop(name: &str, args: usize) -> Option<&'static LibraryLoop> {
    LIBRARY_LOOPS
        .iter()
        .find(|l| l.name == name && l.args == args)
}

/// The library loop whose `__private` twin is `at`, if any.
pub(crate) fn library_loop_at(at: &str) -> Option<&'static LibraryLoop> {
    LIBRARY_LOOPS.iter().find(|l| l.at == at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_consistent() {
        for l in LIBRARY_LOOPS {
            assert_eq!(l.at, format!("{}_at", l.name), "{}", l.name);
            assert!(l.tasks.iter().all(|&t| t < l.args), "{}", l.name);
            assert!(
                l.trip == LoopTrip::Unknown || l.args >= 2,
                "{}: a range trip needs a range and a grain",
                l.name
            );
            let sample: proc_macro2::TokenStream = l.sample_args.parse().unwrap();
            let parsed = syn::parse2::<syn::ExprCall>(quote::quote!(f(#sample))).unwrap();
            assert_eq!(parsed.args.len(), l.args, "{}", l.name);
        }
    }
}
