//! The graph crate's integration tests, one test binary: the dependency
//! graph against a brute-force pairwise model on random programs
//! (`random_programs`), the computation DAG's analysis on random recorded
//! runs and a large replay (`trace_replay`), and the parallelism profile and
//! (feature `svg`) the SVG report (`trace_svg`). `common` holds their seeded
//! generator.

mod common;
mod random_programs;
mod trace_replay;
mod trace_svg;
