//! Examples for the Prescient task runtime: see the `examples/` folder of
//! this package (`cargo run --release --example <name>` from the repository
//! root). This library is empty; the examples use `prescient` and the
//! benchmark programs of `prescient-benches`.
#![deny(missing_docs)]
