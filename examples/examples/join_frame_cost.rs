//! Measures the stack bytes one level of nested `join` costs on a task stack
//! (the runtime's own per-join frame cost that the analyzer's stack estimate
//! adds per recursion level), for a deferred join (deque has room) and an
//! inlined one (deque full).
//!
//! Run: `cargo run --release --example join_frame_cost` (and without
//! `--release` for the debug figure).

use prescient::{Params, QueuePolicy, Runtime};
use std::hint::black_box;

fn depth_probe(levels: usize, addresses: &mut Vec<usize>) {
    let marker = 0u8;
    addresses.push(black_box(&marker) as *const u8 as usize);
    if levels == 0 {
        return;
    }
    let (_, ()) = prescient::join(|| depth_probe(levels - 1, addresses), || ());
}

fn per_level(capacity: usize) -> usize {
    let params = Params::DEFAULT
        .with_queue_policy(QueuePolicy::PF)
        .with_queue_capacity(capacity)
        .checked();
    let runtime = Runtime::builder()
        .params(params)
        .num_workers(1)
        .build()
        .unwrap();
    runtime.run(|| {
        let mut addresses = Vec::with_capacity(64);
        depth_probe(32, &mut addresses);
        (addresses[0] - addresses[32]) / 32
    })
}

fn main() {
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "{profile}: deferred join {} bytes/level, inlined join {} bytes/level",
        per_level(1 << 16),
        per_level(1)
    );
}
