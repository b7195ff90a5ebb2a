//! Invalid `Params` constants are compile-time errors: `Params::checked` in a
//! `const` item panics during constant evaluation, and rustc reports the
//! `ParamsError` message at the constant. The expected compiler output is
//! checked in next to each case (`tests/ui_params/*.stderr`); regenerate it
//! with `TRYBUILD=overwrite cargo test -p prescient-tests --test params_ui`
//! and read the diff before committing it.
//!
//! Not covered here: an inline `const { … .checked() }` block inside a
//! function body. rustc evaluates it only when the function is built, so
//! `cargo build` rejects it with the same E0080 error but `cargo check` (what
//! trybuild runs) accepts it.

#[test]
fn invalid_const_params_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui_params/*.rs");
}
