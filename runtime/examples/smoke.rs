use prescient::{Params, QueuePolicy, Runtime};
use std::time::Instant;
fn fib(n: u64) -> u64 {
    if n < 2 { return n; }
    let (a, b) = prescient::join(|| fib(std::hint::black_box(n - 1)), || fib(std::hint::black_box(n - 2)));
    a + b
}
fn fib_seq(n: u64) -> u64 {
    if n < 2 { return n; }
    fib_seq(std::hint::black_box(n - 1)) + fib_seq(std::hint::black_box(n - 2))
}
fn main() {
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(30);
    let t = Instant::now(); let r = fib_seq(n); let seq = t.elapsed(); println!("seq {r} {seq:?}");
    for policy in QueuePolicy::ALL {
        for cap in [4usize, 16] {
            for workers in [1usize, 2] {
                let rt = Runtime::builder().params(Params::DEFAULT.with_queue_policy(policy).with_queue_capacity(cap)).num_workers(workers).build().unwrap();
                rt.run(|| fib(20));
                let c0 = rt.counters();
                let t = Instant::now(); let r = rt.run(|| fib(n)); let el = t.elapsed();
                let c = rt.counters().since(&c0);
                println!("{policy} cap {cap} w {workers}: {r} {el:?} ratio {:.2} {c:?}", el.as_secs_f64()/seq.as_secs_f64());
            }
        }
    }
}
