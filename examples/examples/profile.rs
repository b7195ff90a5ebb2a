//! The critical-path profiler on three programs: fib, BOTS alignment and
//! BOTS sparselu (their `#[task_program]` ports in `prescient-benches`).
//! Each is profiled under its analyser-chosen `PARAMS`; alignment also with
//! a queue capacity of 4, the case where the loop-spawning task runs most
//! pairs itself, and with room for every pair, where it runs none. Every profile's report is printed and its files written to
//! `target/profile/example-NAME/` (`report.txt`, `trace.json` for Perfetto,
//! `profile.svg`).
//!
//! `cargo run --release -p prescient-examples --features trace --example profile [-- WORKERS]`
//!
//! WORKERS defaults to the hardware threads.
//!
//! What to look at: each report's `findings`, and the closing lines on
//! alignment: with a small queue capacity the loop's spawner runs many pairs
//! itself (children run by the spawner on the critical path); with room for
//! every pair it runs none.

use prescient::profile::Profile;
use prescient::{Params, Runtime};
use prescient_benches::annotated::{alignment, fib, sparselu};
use std::path::PathBuf;

fn profiled<R>(
    name: &str,
    workers: usize,
    params: Params,
    run: impl Fn() -> R + Send + Sync,
) -> Profile<R>
where
    R: Send,
{
    let runtime = Runtime::builder()
        .num_workers(workers)
        .params(params)
        .trace(true)
        .build()
        .expect("a valid runtime");
    // Warm-up: stacks mapped, the inliner's decisions learnt.
    runtime.run(&run);
    let profile = runtime.profile(&run).expect("the runtime traces");
    let dir = PathBuf::from("target/profile").join(format!("example-{name}"));
    let files = profile.write(&dir).expect("the profile folder is writable");
    println!(
        "## {name} on {workers} workers (queue capacity {})\n",
        params.queue_capacity
    );
    print!("{}", profile.report());
    println!("written to {}\n", files.report.parent().unwrap().display());
    profile
}

/// A profile's length (ms) and nowork share of elapsed × workers (%), for
/// the comparison lines.
fn losses<R>(profile: &Profile<R>) -> (f64, f64) {
    let analysis = profile.analysis();
    (
        analysis.elapsed as f64 / 1e6,
        100.0 * analysis.run.nowork as f64 / analysis.run.total() as f64,
    )
}

fn main() {
    let workers = std::env::args()
        .nth(1)
        .map(|w| w.parse().expect("WORKERS is a whole number"))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

    let fib_profile = profiled("fib", workers, fib::PARAMS, || fib::fib(30));
    assert_eq!(*fib_profile.result(), 832_040);

    let seqs = alignment::read_sequences(alignment::prot_20()).expect("the alignment input");
    let scoring = alignment::Scoring::protein();
    let expected = alignment::pairalign_seq(&seqs, &scoring);
    let align = || alignment::pairalign(&seqs, &scoring);
    let capacity_4 = profiled(
        "alignment-c4",
        workers,
        alignment::PARAMS.with_queue_capacity(4),
        align,
    );
    assert!(capacity_4.result().scores() == expected.scores());
    let own = profiled("alignment", workers, alignment::PARAMS, align);
    assert!(own.result().scores() == expected.scores());
    // Room for every pair: the spawner runs none itself.
    let pairs = seqs.len() * (seqs.len() - 1) / 2;
    let roomy = profiled(
        "alignment-roomy",
        workers,
        alignment::PARAMS.with_queue_capacity(pairs.next_power_of_two()),
        align,
    );
    assert!(roomy.result().scores() == expected.scores());

    let nb = sparselu::TEST_NB * 2;
    let bs = sparselu::TEST_BS * 4;
    let reference = {
        let mut m = sparselu::generate(nb, bs);
        sparselu::sparselu_seq(&mut m);
        m
    };
    let lu = profiled("sparselu", workers, sparselu::PARAMS, || {
        let mut m = sparselu::generate(nb, bs);
        sparselu::sparselu(&mut m);
        m
    });
    assert!(sparselu::same_bits(lu.result(), &reference));

    println!("alignment on {workers} workers, by queue capacity:");
    for (capacity, profile) in [
        (4, &capacity_4),
        (alignment::PARAMS.queue_capacity, &own),
        (pairs.next_power_of_two(), &roomy),
    ] {
        let (ms, nowork) = losses(profile);
        let inline = profile.inline_on_path();
        let path_work = profile.analysis().critical_path.work.max(1);
        println!(
            "  capacity {capacity:>4}: {ms:>7.1} ms; nowork {nowork:>5.1}% of elapsed × workers; \
             {:>3} children run by the spawner on the critical path ({:.1}% of its work)",
            inline.children,
            100.0 * inline.ns as f64 / path_work as f64
        );
    }
    println!(
        "What to look at: each report's findings, and above how many pairs the spawner ran \
         itself at each capacity (many at 4, none with room for every pair)."
    );
}
