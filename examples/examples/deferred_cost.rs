//! Measures the cost of a deferred join (every join pushes: capacity 2^16)
//! and of an inlined join (capacity 1) per queue policy, on one worker.
//!
//! Run: `cargo run --release --example deferred_cost`

use prescient::{Params, QueuePolicy, Runtime};
use std::hint::black_box;
use std::time::Instant;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(move || fib(black_box(n - 1)), move || fib(black_box(n - 2)));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(black_box(n - 1)) + fib_seq(black_box(n - 2))
}

fn main() {
    let n = 27;
    let joins = 317_810.0; // internal nodes of fib(27)'s call tree: fib(28) - 1
    let best = |f: &dyn Fn() -> u64| {
        (0..7)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let seq = best(&|| fib_seq(n));
    println!("sequential fib({n}): {:.2} ms", seq * 1e3);
    for policy in QueuePolicy::ALL {
        for (label, capacity) in [("deferred", 1usize << 16), ("inlined", 1)] {
            let params = Params::DEFAULT
                .with_queue_policy(policy)
                .with_queue_capacity(capacity);
            let rt = Runtime::builder()
                .params(params)
                .num_workers(1)
                .build()
                .unwrap();
            let t = rt.run(|| best(&|| fib(n)));
            println!(
                "{policy:>3} {label:>8}: {:.2} ms, {:.1} ns/join over sequential",
                t * 1e3,
                (t - seq) / joins * 1e9
            );
        }
    }
}
