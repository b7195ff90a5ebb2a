//! `#[task_program]` on real programs, one test binary: the annotated
//! benchmark programs of `prescient_benches::annotated` (fib, nqueens and
//! alignment in `annotated_programs`, one module per other CF'17 port) run
//! correctly under their own `PARAMS` and are classified as the decision
//! trees say; the CF'17 workloads agree across runtimes (`cf17_workloads`);
//! and `trees = …` selects the trees (`task_program_trees`).

mod annotated_cf17_delannoy;
mod annotated_cf17_fft;
mod annotated_cf17_floorplan;
mod annotated_cf17_health;
mod annotated_cf17_knapsack;
mod annotated_cf17_sort;
mod annotated_cf17_sparselu;
mod annotated_cf17_strassen;
mod annotated_cf17_uts;
mod annotated_programs;
mod cf17_workloads;
// Public, as its programs were at the root of a test crate of their own:
// their `fib` functions are items of the analysed programs, called by no
// test, and not dead code.
pub mod task_program_trees;
