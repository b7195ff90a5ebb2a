//! Compile-fail tests of the dataflow API's static guarantees: handles stay
//! in their scope (`'df` brand), tasks cannot capture handles or the scope,
//! and a body's borrows end with the task. Each case has a checked-in
//! `.stderr` under `tests/ui_dataflow/` (regenerate with `TRYBUILD=overwrite
//! cargo test -p prescient-tests --test dataflow_ui` after a compiler
//! upgrade, and review the diff).

#[test]
fn dataflow_misuse_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui_dataflow/*.rs");
}
