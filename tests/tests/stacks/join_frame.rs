//! The analyzer's stack estimate adds `prescient::__private::JOIN_FRAME_BYTES`
//! per level of spawn nesting: check, in the profile this test runs under
//! (debug by `cargo test`, release by `cargo test --release`), that one level
//! of a deferred `join` really costs no more than that.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::tuning::QueuePolicy;
use prescient::{Params, Runtime};
use std::hint::black_box;

fn depth_probe(levels: usize, addresses: &mut Vec<usize>) {
    let marker = 0u8;
    addresses.push(black_box(&marker) as *const u8 as usize);
    if levels == 0 {
        return;
    }
    let (_, ()) = prescient::join(|| depth_probe(levels - 1, addresses), || ());
}

fn bytes_per_level(capacity: usize) -> usize {
    let params = Params::DEFAULT
        .with_queue_policy(QueuePolicy::InsertFrontStealBack)
        .with_queue_capacity(capacity)
        .checked();
    let runtime = Runtime::builder()
        .params(params)
        .num_workers(1)
        .build()
        .unwrap();
    // Eight levels: a worker records at most eight latent joins, and past
    // them a join is a plain call, so a deeper probe would average the
    // deferred cost with the inline one.
    runtime.run(|| {
        let mut addresses = Vec::with_capacity(16);
        depth_probe(8, &mut addresses);
        (addresses[0] - addresses[8]) / 8
    })
}

#[test]
fn a_deferred_join_level_fits_the_analyzers_frame_cost() {
    let deferred = bytes_per_level(1 << 16);
    let inlined = bytes_per_level(1);
    println!("deferred join: {deferred} B/level, inlined: {inlined} B/level, JOIN_FRAME_BYTES = {JOIN_FRAME_BYTES}");
    assert!(deferred > 0 && inlined > 0);
    assert!(
        deferred <= JOIN_FRAME_BYTES,
        "a deferred join costs {deferred} bytes per level, more than JOIN_FRAME_BYTES = {JOIN_FRAME_BYTES}"
    );
    assert!(inlined <= deferred);
}
