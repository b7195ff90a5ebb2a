//! `let buf: [u8; _] = …` is valid Rust: the analysis sizes it from the
//! initializer instead of emitting `size_of::<[u8; _]>()` (E0284).

// `PARAMS` is a constant: the assertion below is checked at run time on
// purpose, as this case always was (clippy, which checks it as a test
// target, would ask for a `const` assertion).
#![allow(clippy::assertions_on_constants)]

use prescient_macros::task_program;

#[task_program]
mod m {
    use prescient::spawn;

    pub fn f() -> u8 {
        let buf: [u8; _] = [7; 100];
        let more: [u16; _] = [1, 2, 3];
        spawn(move || buf[99] + more.len() as u8).join()
    }
}

fn main() {
    // Sized from the initializers: a small bounded estimate (below the
    // smallest commitment), not an unknown one.
    assert!(m::ANALYSIS.stack_estimate >= 100 + 6);
    assert!(m::ANALYSIS.stack_estimate < prescient::analysis::UNBOUNDED_STACK_ESTIMATE);
    let _ = m::f;
}

// A test target of `prescient-macros` (`Cargo.toml`): this case must compile
// as a crate of its own, and its `main` must return.
#[test]
fn main_returns() {
    main();
}
