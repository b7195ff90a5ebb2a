//! Compile-fail tests of `#[task_program]`'s errors, with checked-in
//! `.stderr` files (regenerate with `TRYBUILD=overwrite`, then read them),
//! and compile-pass tests of valid inputs the macro once rejected
//! (`tests/ui-pass`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
