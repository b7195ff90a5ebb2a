//! The critical-path profiler's tests, one test binary built only with the
//! `trace` feature (`cargo test -p prescient-tests --features trace --test
//! trace`): a profiled run of every construct forms a valid DAG with the
//! scheduler's counts (`trace`), and strand references kept across 300
//! sessions add nothing to later ones (`trace_sessions`).

mod trace;
mod trace_sessions;
