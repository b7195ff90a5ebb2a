//! Compile-fail tests of `#[task_program]`'s errors, with checked-in
//! `.stderr` files (regenerate with `TRYBUILD=overwrite`, then read them).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
