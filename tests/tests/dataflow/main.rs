//! Dataflow scopes and DAST, one test binary: ordering, tiles, nesting,
//! panics and queueing (`dataflow`), who executes the graph requests in each
//! DAST mode (`dast`), and random programs against a sequential run
//! (`dataflow_random`). The compile-fail side is in the `ui` binary.
//!
//! The oversubscribed (32-worker) runtimes of `dast` and `dataflow_random`
//! starve each other when two run at once, so both take
//! [`prescient_tests::one_big_runtime_at_a_time`].

mod dast;
mod dataflow;
mod dataflow_random;
