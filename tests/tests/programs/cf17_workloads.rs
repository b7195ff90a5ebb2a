//! The CF'17 suite's workloads (`prescient_benches::cf17::workloads`) at the
//! test size: every program's sequential, Prescient, rayon and (where there is
//! one) chili run gives the right result on four workers, and the list of
//! programs is the annotated programs' table.

use prescient::Runtime;
use prescient_benches::annotated::PROGRAMS;
use prescient_benches::cf17::workloads::{prepare, NAMES};
use prescient_benches::cf17::{Size, Workload};
use prescient_tests::watchdog;
use std::num::NonZeroUsize;
use std::time::Duration;

/// The workers (threads) of every pool.
const WORKERS: usize = 4;

/// A generous bound for all programs' runs: a hang ends the process instead
/// of the CI job.
const LIMIT: Duration = Duration::from_secs(300);

/// `name`'s workload at the test size.
fn test_workload(name: &str) -> Workload {
    prepare(name, Size::Test).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_runner_of_every_program_is_right_at_the_test_size() {
    let runtime = Runtime::builder().num_workers(WORKERS).build().unwrap();
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(WORKERS)
        .build()
        .unwrap();
    let chili_pool = chili::ThreadPool::with_config(chili::Config {
        thread_count: NonZeroUsize::new(WORKERS),
        ..Default::default()
    });
    watchdog("cf17 workloads at the test size", LIMIT, || {
        for name in NAMES {
            let w = test_workload(name);
            assert_eq!(w.program, name);
            assert!(!w.input.is_empty(), "{name}: no input description");
            let (_, seq) = (w.seq)();
            assert_eq!(seq, Ok(()), "{name} seq");
            let (_, prescient) = runtime.run(|| (w.prescient)());
            assert_eq!(prescient, Ok(()), "{name} prescient");
            let rayon = w
                .rayon
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no rayon"));
            let (_, rayon) = rayon_pool.install(rayon);
            assert_eq!(rayon, Ok(()), "{name} rayon");
            if let Some(chili) = &w.chili {
                let (_, chili) = chili(&mut chili_pool.scope());
                assert_eq!(chili, Ok(()), "{name} chili");
            }
        }
    });
}

#[test]
fn chili_versions_are_the_binary_join_programs() {
    let with_chili: Vec<&str> = NAMES
        .into_iter()
        .filter(|name| test_workload(name).chili.is_some())
        .collect();
    assert_eq!(
        with_chili,
        ["fib", "delannoy", "fft", "sort", "strassen", "knapsack"]
    );
}

#[test]
fn unknown_programs_are_errors() {
    let err = prepare("nope", Size::Test).unwrap_err();
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn names_are_the_annotated_programs_in_order() {
    let annotated: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
    assert_eq!(NAMES.to_vec(), annotated);
}
