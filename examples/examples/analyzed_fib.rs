//! The README's first example: `#[task_program]` analyses a module's spawn
//! sites and emits `PARAMS` (the runtime parameters the decision trees
//! choose) and `ANALYSIS` (the figures behind them).
//!
//! Run: `cargo run --release -p prescient-examples --example analyzed_fib`
//!
//! What to look at: the `params (calibrated trees)` line of the report, the
//! queue policy and capacity chosen for this module, and the `rho`, `lambda`
//! and `effort` figures they were chosen from.

#[prescient::task_program]
mod fib {
    use prescient::join;
    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(move || fib(n - 1), move || fib(n - 2));
        a + b
    }
}

fn main() {
    // The analyzer classified fib (ρ = 2, tiny effort) and the calibrated
    // trees chose (effort 6 < 7667: fine or opaque tasks) BF, capacity 32,
    // 256019 buckets, and the 8 MiB default stack (its recursion depth,
    // n - 1 per level, is not bounded by anything the macro can see).
    let runtime = prescient::Runtime::builder()
        .params(fib::PARAMS)
        .build()
        .unwrap();
    println!("{}", runtime.run(|| fib::fib(30)));
    println!("{}", fib::ANALYSIS);
    println!(
        "What to look at: `params (calibrated trees)`, what PARAMS holds for this module, \
         and the rho, lambda and effort it was chosen from."
    );
}
