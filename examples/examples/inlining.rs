//! Adaptive task inlining, per spawn site: runs fib (one fine-grained `join`
//! site) and a mixed-granularity loop (a site of tiny tasks next to a site
//! of large ones) under each inlining policy, and prints the time and the
//! inliner's per-site report — executions, the share inlined, samples and
//! their mean duration, the decision and `Adaptive`'s threshold (in spawn
//! overheads; `*` once frozen).
//!
//! Run: `cargo run --release -p prescient-examples --example inlining [-- WORKERS]`
//!
//! What to look at: fib's time against sequential per policy, and in each
//! report the `inlined` share and `mode` per site: the sites of tiny tasks
//! end inlined, the site of large tasks keeps spawning.

use prescient::tuning::Inlining;
use prescient::{Params, Runtime};
use prescient_benches::programs::fib::{fib_prescient as fib, fib_seq};
use std::hint::black_box;
use std::time::Instant;

/// `iterations` rounds of dependent multiply-adds (about a nanosecond each).
fn spin(iterations: u64) -> u64 {
    let mut x = iterations;
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

/// One sweep: 2 000 tiny tasks (≈ 20 ns) and 16 large ones (≈ 50 µs), each
/// from its own `spawn` site, as an alternating-least-squares step mixes
/// per-row updates of very different sizes.
fn mixed_sweep() -> u64 {
    let tiny: Vec<_> = (0..2000)
        .map(|i| prescient::spawn(move || spin(8 + i % 4)))
        .collect();
    let large: Vec<_> = (0..16)
        .map(|i| prescient::spawn(move || spin(20_000 + i)))
        .collect();
    tiny.into_iter()
        .chain(large)
        .map(|h| h.join())
        .fold(0, u64::wrapping_add)
}

fn main() {
    let workers: usize = std::env::args()
        .nth(1)
        .map(|w| w.parse().expect("WORKERS must be a number"))
        .unwrap_or(2);
    let n = 30;
    let expected = fib_seq(n);
    let seq = (0..5)
        .map(|_| {
            let start = Instant::now();
            black_box(fib_seq(black_box(n)));
            start.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    println!("fib({n}) sequential: {:.2} ms\n", seq * 1e3);
    for policy in [Inlining::Never, Inlining::BASELINE, Inlining::Adaptive] {
        let runtime = Runtime::builder()
            .params(Params::DEFAULT.with_inlining(policy))
            .num_workers(workers)
            .build()
            .expect("runtime");
        let fib_time = (0..5)
            .map(|_| {
                let start = Instant::now();
                assert_eq!(runtime.run(|| fib(n)), expected);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        let sweep_time = (0..5)
            .map(|_| {
                let start = Instant::now();
                black_box(runtime.run(mixed_sweep));
                start.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        println!(
            "{policy}, {workers} workers: fib({n}) {:.2} ms ({:.2}x sequential), mixed sweep {:.3} ms",
            fib_time * 1e3,
            fib_time / seq,
            sweep_time * 1e3
        );
        println!("{}", runtime.inlining_report());
    }
    println!(
        "What to look at: each report's `inlined` and `mode` per site: the sites of tiny tasks \
         end inlined, the site of large tasks keeps spawning."
    );
}
