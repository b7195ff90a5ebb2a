//! A loop bound named by a raw identifier (`r#loop`) is emitted as written;
//! the macro used to panic on it (`Ident::new("r#loop")`) and lose the module.

use prescient_macros::task_program;

#[task_program]
mod m {
    use prescient::scope;

    #[allow(non_upper_case_globals)]
    pub const r#loop: usize = 8;

    pub fn f() {
        scope(|s| {
            for i in 0..r#loop {
                s.spawn(move |_| {
                    let _ = i;
                });
            }
        });
    }
}

fn main() {
    // Calibrated trees (`PARAMS`): effort < 7667: fine or opaque tasks, BF/32.
    assert_eq!(m::PARAMS.queue_capacity, 32);
    let _ = m::f;
}

// A test target of `prescient-macros` (`Cargo.toml`): this case must compile
// as a crate of its own, and its `main` must return.
#[test]
fn main_returns() {
    main();
}
