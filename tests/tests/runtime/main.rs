//! The runtime's fork-join API and scheduler, one test binary: every API
//! under every configuration, panics and panicking drops, shutdown, wake-ups,
//! idle parking, suspension, inlining, latent joins and spawns, lazy task creation,
//! pinning, the global runtime, `Params` validation and the fork-join
//! stress. One module per concern (its own `//!` says what it checks); a
//! test's name is `module::test`, e.g. `cargo test -p prescient-tests --test
//! runtime -- shutdown::`.
//!
//! The tests of one binary share a process and, under `cargo test`, run on
//! parallel threads: worker threads are told apart by their name prefixes,
//! and the tests that need a process of their own (`params`'s
//! `PRESCIENT_WORKERS`, `panicking_drops`'s closed stderr) re-run themselves
//! alone in a child process ([`prescient_tests::test_path`]).

mod annotated_loops;
mod api_matrix;
mod cross_runtime;
mod for_range;
mod global;
mod idle;
mod inlining;
mod latent_joins;
mod latent_spawns;
mod lazy_creation;
mod loops_mut_reduce;
mod one_worker;
mod panicking_drops;
mod panics;
mod params;
mod pinning;
mod shutdown;
mod sort;
mod stress;
mod suspension;
mod wakeups;
