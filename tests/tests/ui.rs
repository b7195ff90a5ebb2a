//! Every compile-fail (trybuild) test of the workspace, in one batch: trybuild
//! checks all the cases added to one `TestCases` with a single `cargo check`
//! of one generated crate, so the dependencies are checked once.
//!
//! * `tests/ui_params/`: invalid `Params` constants are compile-time errors —
//!   `Params::checked` in a `const` item panics during constant evaluation,
//!   and rustc reports the `ParamsError` message at the constant. Not covered:
//!   an inline `const { … .checked() }` block inside a function body, which
//!   rustc evaluates only when the function is built, so that `cargo build`
//!   rejects it with the same E0080 error but `cargo check` (what trybuild
//!   runs here) accepts it.
//! * `tests/ui_dataflow/`: the dataflow API's static guarantees — handles
//!   stay in their scope (`'df` brand), tasks cannot capture handles or the
//!   scope, and a body's borrows end with the task.
//! * `tests/ui_task_program/`: `#[task_program]`'s errors (`prescient-macros`
//!   cases, here so that one `cargo check` covers them too). The macro's
//!   compile-pass cases, `analyzer-macro/tests/ui-pass/`, are test targets of
//!   that crate: one case that must pass in a `TestCases` makes trybuild
//!   `cargo build` every case of it separately, one after the other.
//!
//! Each case has its expected compiler output checked in next to it
//! (`.stderr`). Regenerate it with `TRYBUILD=overwrite cargo test -p
//! prescient-tests --test ui` after a compiler upgrade, and read the diff
//! before committing it.

#[test]
fn misuse_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui_params/*.rs");
    cases.compile_fail("tests/ui_dataflow/*.rs");
    cases.compile_fail("tests/ui_task_program/*.rs");
}
