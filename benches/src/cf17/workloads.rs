//! Each CF'17 program prepared as a [`Workload`] at a [`Size`]: the input
//! read or generated once, the reference result computed once, and one timed,
//! verified closure per runner.

use std::hint::black_box;
use std::time::Instant;

use super::{Size, Timed, Workload};
use crate::annotated::fib;

/// The programs [`prepare`] knows, in table order.
pub const NAMES: [&str; 1] = ["fib"];

/// Times `run` and checks its result with `check` after the clock stops.
fn timed<T>(run: impl FnOnce() -> T, check: impl FnOnce(T) -> Result<(), String>) -> Timed {
    let start = Instant::now();
    let got = run();
    let time = start.elapsed();
    (time, check(got))
}

/// `Ok` when `got == expected`, else an error naming `what`.
fn expect_eq<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: T,
    expected: T,
) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {expected:?}"))
    }
}

/// Prepares the program `name` at `size`.
pub fn prepare(name: &str, size: Size) -> Result<Workload, String> {
    match name {
        "fib" => Ok(fib_workload(size)),
        other => Err(format!("unknown CF'17 program `{other}`")),
    }
}

fn fib_workload(size: Size) -> Workload {
    let n: u64 = match size {
        Size::Test => fib::TEST_N,
        Size::Quick => 30,
        Size::Paper => 35,
    };
    let expected = fib::expected(n);
    Workload {
        program: "fib",
        input: format!("n={n}"),
        seq: Box::new(move || {
            timed(
                || fib::fib_seq(black_box(n)),
                |got| expect_eq("fib seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || fib::fib(black_box(n)),
                |got| expect_eq("fib", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || crate::programs::fib::fib_rayon(black_box(n)),
                |got| expect_eq("fib rayon", got, expected),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || crate::programs::fib::fib_chili(scope, black_box(n)),
                |got| expect_eq("fib chili", got, expected),
            )
        })),
    }
}
