//! `trees = …` takes `cf17` or `calibrated` (or `Cf17`, `Calibrated`), once.

use prescient_macros::task_program;

#[task_program(trees = insieme)]
pub mod a {}

#[task_program(trees = "cf17")]
pub mod b {}

#[task_program(trees = cf17, trees = calibrated)]
pub mod c {}

fn main() {
    // The modules and their analyses are still emitted.
    let _ = (a::PARAMS, b::PARAMS, c::PARAMS);
}
