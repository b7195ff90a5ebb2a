//! The benchmark programs.
//!
//! Each program has a sequential reference (`*_seq`) and one variant per
//! runner: `*_prescient` ([`prescient::join`]), `*_rayon` ([`rayon::join`]) and
//! `*_chili` ([`chili::Scope::join`]). The variants have the same shape as the
//! reference, call for call, and [`std::hint::black_box`] sits in the same
//! place in each of them (on the argument of every recursive call), so that
//! LLVM cannot turn one of the two recursive calls of the sequential
//! reference into a loop and make the baseline do less work than the
//! parallel variants. Every program also states its expected result and its
//! number of joins analytically, so that the suite checks every run and
//! reports the overhead per join.
//!
//! The parallel variants work from any thread: inside a pool (what the suite
//! measures) or, for Prescient and rayon, on their global pool.

pub mod fib;
pub mod tree;
