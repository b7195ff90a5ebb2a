//! Measures what a `join` costs on one worker, per queue policy and queue
//! capacity, as nanoseconds per join over sequential fib(27). Capacity 1 makes
//! every join below the first a plain `(a(), b())`; larger capacities let a
//! worker record up to `min(capacity, 8)` latent joins (the second halves it
//! could hand to a thief), each a few plain stores more than a plain call.
//! On one worker no thief asks, so nothing is ever pushed to the deque.
//! Each configuration runs without the inliner (`never`: the scheduler's
//! own rule) and with it (`adaptive`, the default: the site's joins become
//! plain calls once measured).
//!
//! Run: `cargo run --release -p prescient-examples --example deferred_cost`
//!
//! What to look at: the ns/join figures, a join's cost over a plain call on one
//! worker: a few nanoseconds under every policy and capacity, since nothing
//! reaches the deque.

use prescient::tuning::{Inlining, QueuePolicy};
use prescient::{Params, Runtime};
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
        for capacity in [1usize, 4, 16, 1 << 16] {
            for inlining in [Inlining::Never, Inlining::Adaptive] {
                let params = Params::DEFAULT
                    .with_queue_policy(policy)
                    .with_queue_capacity(capacity)
                    .with_inlining(inlining);
                let rt = Runtime::builder()
                    .params(params)
                    .num_workers(1)
                    .build()
                    .unwrap();
                let t = rt.run(|| best(&|| fib(n)));
                println!(
                    "{policy:>3} capacity {capacity:>5} inlining {inlining:<8}: {:.2} ms, {:.1} ns/join over sequential",
                    t * 1e3,
                    (t - seq) / joins * 1e9
                );
            }
        }
    }
    println!(
        "What to look at: ns/join, a join's cost over a plain call on one worker \
         (a few ns at any capacity: with no thief asking, nothing reaches the deque)."
    );
}
