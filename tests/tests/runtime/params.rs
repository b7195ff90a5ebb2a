//! Invalid `Params` and builder settings are clear error values from
//! `build()` (never a panic deep in a worker, never a started thread), valid
//! edge values build and run, and `PRESCIENT_WORKERS` applies only where the
//! program gives no worker count. (The compile-time side — `checked()` in a
//! `const` — is the trybuild test `ui.rs`, cases `ui_params/`.)

use prescient::{
    tuning::ParamsError, tuning::QueuePolicy, tuning::MAX_DEPENDENCY_BUCKETS,
    tuning::MAX_QUEUE_CAPACITY, tuning::MAX_STACK_SIZE, tuning::MAX_WORKERS,
    tuning::MIN_STACK_SIZE, BuildError, Params, Runtime,
};
use prescient_tests::{test_path, threads_named};
use std::error::Error;
use std::process::Command;

fn build_error(params: Params) -> BuildError {
    Runtime::builder()
        .params(params)
        .num_workers(2)
        .thread_name(|i| format!("badparams-{i}"))
        .build()
        .expect_err("invalid params must not build")
}

#[test]
fn each_invalid_field_is_a_build_error() {
    let p = Params::DEFAULT;
    let cases = [
        (
            p.with_queue_capacity(0),
            ParamsError::ZeroQueueCapacity,
            "queue_capacity must be at least 1",
        ),
        (
            p.with_queue_capacity(MAX_QUEUE_CAPACITY + 1),
            ParamsError::QueueCapacityTooLarge(MAX_QUEUE_CAPACITY + 1),
            "65537",
        ),
        (
            p.with_queue_capacity(usize::MAX),
            ParamsError::QueueCapacityTooLarge(usize::MAX),
            "at most 65536",
        ),
        (
            p.with_stack_size(100_000),
            ParamsError::StackSizeNotPowerOfTwo(100_000),
            "power of two between 16 KiB and 1 GiB (got 100000: not a power of two)",
        ),
        // The range is checked first: zero is too small, not "not a power
        // of two".
        (
            p.with_stack_size(0),
            ParamsError::StackSizeOutOfRange(0),
            "(got 0: too small)",
        ),
        (
            p.with_stack_size(MIN_STACK_SIZE - 1),
            ParamsError::StackSizeOutOfRange(MIN_STACK_SIZE - 1),
            "(got 16383: too small)",
        ),
        (
            p.with_stack_size(MIN_STACK_SIZE / 2),
            ParamsError::StackSizeOutOfRange(8192),
            "a power of two between 16 KiB and 1 GiB (got 8192: too small)",
        ),
        (
            p.with_stack_size(MAX_STACK_SIZE * 2),
            ParamsError::StackSizeOutOfRange(2 << 30),
            "(got 2147483648: too large)",
        ),
        (
            p.with_dependency_buckets(0),
            ParamsError::ZeroDependencyBuckets,
            "dependency_buckets must be at least 1",
        ),
        // Would allocate 8 TiB in the first dataflow scope and abort.
        (
            p.with_dependency_buckets(1 << 40),
            ParamsError::DependencyBucketsTooLarge(1 << 40),
            "(got 1099511627776)",
        ),
        (
            p.with_dependency_buckets(MAX_DEPENDENCY_BUCKETS + 1),
            ParamsError::DependencyBucketsTooLarge(MAX_DEPENDENCY_BUCKETS + 1),
            "at most 16777216",
        ),
    ];
    for (params, error, text) in cases {
        assert_eq!(params.validate(), Err(error), "{params:?}");
        match build_error(params) {
            BuildError::InvalidParams(e) => {
                assert_eq!(e, error);
                let shown = BuildError::InvalidParams(e).to_string();
                assert!(shown.contains(text), "{shown:?} lacks {text:?}");
                assert!(shown.starts_with("invalid Params"), "{shown:?}");
            }
            other => panic!("{params:?}: {other:?}"),
        }
        // The source chain leads to the ParamsError.
        let e = build_error(params);
        let source = e.source().expect("InvalidParams has a source");
        assert_eq!(source.downcast_ref::<ParamsError>(), Some(&error));
    }
    // The first invalid field (in declaration order) is the one reported.
    assert_eq!(
        p.with_queue_capacity(0)
            .with_stack_size(3)
            .with_dependency_buckets(0)
            .validate(),
        Err(ParamsError::ZeroQueueCapacity)
    );
    assert_eq!(
        p.with_stack_size(3).with_dependency_buckets(0).validate(),
        Err(ParamsError::StackSizeOutOfRange(3))
    );
    // A failed build starts no worker.
    assert!(threads_named("badparams-").is_empty());
}

/// `num_workers(0)` means the default count, as rayon's `num_threads(0)`
/// does (here `PRESCIENT_WORKERS` is unset or set by another test's child
/// only, so the default is one worker per hardware thread).
#[test]
fn zero_workers_means_the_default_count() {
    let runtime = Runtime::builder()
        .num_workers(0)
        .thread_name(|i| format!("zeroworkers-{i}"))
        .build()
        .unwrap();
    let default = Runtime::builder().build().unwrap().num_workers();
    assert_eq!(runtime.num_workers(), default);
    assert_eq!(runtime.run(|| prescient::join(|| 1, || 2)), (1, 2));
}

#[test]
fn zero_stack_cap_and_too_many_workers_are_build_errors() {
    let e = Runtime::builder()
        .num_workers(1)
        .max_live_stacks(0)
        .build()
        .unwrap_err();
    assert!(matches!(e, BuildError::ZeroStackCap), "{e:?}");
    assert!(e.to_string().contains("max_live_stacks"));
    // Absurd worker counts are errors, not a capacity-overflow panic or
    // thousands of threads started before the mistake shows.
    for n in [MAX_WORKERS + 1, usize::MAX] {
        let e = Runtime::builder()
            .num_workers(n)
            .thread_name(|i| format!("toomany-{i}"))
            .build()
            .unwrap_err();
        assert!(
            matches!(e, BuildError::TooManyWorkers(m) if m == n),
            "{e:?}"
        );
        assert!(
            e.to_string().contains(&format!("at most {MAX_WORKERS}")),
            "{e}"
        );
        assert!(e.source().is_none());
    }
    assert!(threads_named("toomany-").is_empty());
    // Invalid params are reported before the worker count is looked at.
    let e = Runtime::builder()
        .params(Params::DEFAULT.with_queue_capacity(0))
        .num_workers(0)
        .build()
        .unwrap_err();
    assert!(
        matches!(e, BuildError::InvalidParams(ParamsError::ZeroQueueCapacity)),
        "{e:?}"
    );
}

#[test]
fn edge_values_build_and_run() {
    let p = Params::DEFAULT;
    for params in [
        p.with_queue_capacity(1),
        p.with_queue_capacity(MAX_QUEUE_CAPACITY),
        p.with_stack_size(MIN_STACK_SIZE),
        p.with_stack_size(MAX_STACK_SIZE),
        p.with_dependency_buckets(1),
        p.with_dependency_buckets(MAX_DEPENDENCY_BUCKETS),
    ] {
        assert_eq!(params.validate(), Ok(()));
        assert_eq!(params.checked(), params);
        let rt = Runtime::builder()
            .params(params)
            .num_workers(2)
            .max_live_stacks(1)
            .build()
            .unwrap();
        assert_eq!(rt.params(), params);
        assert_eq!(rt.max_live_stacks(), 1);
        assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2), "{params:?}");
    }
    // A 16 KiB stack is enough for a small join tree.
    let rt = Runtime::builder()
        .params(p.with_stack_size(MIN_STACK_SIZE))
        .num_workers(2)
        .build()
        .unwrap();
    fn fib(n: u32) -> u32 {
        if n < 2 {
            return n;
        }
        let (a, b) = prescient::join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
    assert_eq!(rt.run(|| fib(12)), 144);
}

#[test]
fn defaults_and_policy_names() {
    assert_eq!(Params::default(), Params::DEFAULT);
    assert_eq!(
        Params::DEFAULT.queue_policy,
        QueuePolicy::InsertBackStealBack
    );
    assert_eq!(Params::DEFAULT.queue_capacity, 16);
    assert_eq!(
        Params::DEFAULT.stack_size,
        prescient::tuning::DEFAULT_STACK_SIZE
    );
    assert_eq!(Params::DEFAULT.stack_size, 8 << 20);
    assert_eq!(Params::DEFAULT.committed_stack_size, 0);
    let names: Vec<String> = QueuePolicy::ALL.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["DEF", "PF", "BF", "FF"]);
    assert_eq!(
        QueuePolicy::InsertFrontStealBack,
        QueuePolicy::InsertFrontStealBack
    );
    let newest: Vec<bool> = QueuePolicy::ALL
        .iter()
        .map(|p| p.owner_takes_newest())
        .collect();
    assert_eq!(newest, [false, true, false, true]);
    // Without a cap the default is 16384 / workers, clamped to 16 ..= 1024.
    for (workers, cap) in [(1, 1024), (16, 1024), (32, 512), (2048, 16)] {
        if workers > 64 {
            continue; // do not start 2048 threads for a default
        }
        let rt = Runtime::builder().num_workers(workers).build().unwrap();
        assert_eq!(rt.max_live_stacks(), cap, "{workers} workers");
    }
}

const CHILD_ENV: &str = "PRESCIENT_TESTS_WORKERS_CHILD";

/// `PRESCIENT_WORKERS` is read in a child process (setting it here would race
/// with the other tests of this binary).
#[test]
fn prescient_workers_applies_only_without_a_worker_count() {
    const TEST: &str = "prescient_workers_applies_only_without_a_worker_count";
    if std::env::var(CHILD_ENV).is_ok() {
        let default = Runtime::builder().build().unwrap().num_workers();
        let explicit = Runtime::builder()
            .num_workers(2)
            .build()
            .unwrap()
            .num_workers();
        // The global runtime (free functions outside any runtime) too.
        let global = prescient::num_workers();
        let inside = prescient::join(prescient::num_workers, || {
            prescient::current_worker_index().is_some()
        });
        println!(
            "RESULT {default} {explicit} {global} {} {}",
            inside.0, inside.1
        );
        return;
    }
    let cores = std::thread::available_parallelism().unwrap().get();
    let too_many = (MAX_WORKERS + 1).to_string();
    for (value, expected) in [
        ("3", 3),
        (" 5 ", 5),
        ("0", cores),
        ("many", cores),
        ("-3", cores),
        ("3.5", cores),
        ("18446744073709551615", cores),
        (too_many.as_str(), cores),
    ] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &test_path(module_path!(), TEST)])
            .args(["--nocapture", "--test-threads", "1"])
            .env(CHILD_ENV, "1")
            .env("PRESCIENT_WORKERS", value)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("RESULT ").map(|(_, r)| r))
            .unwrap_or_else(|| {
                panic!(
                    "PRESCIENT_WORKERS={value:?}: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert_eq!(
            line,
            format!("{expected} 2 {expected} {expected} true"),
            "PRESCIENT_WORKERS={value:?}"
        );
        // An unusable value is not silently ignored: one warning, once.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let warnings = stderr.matches("ignoring PRESCIENT_WORKERS").count();
        // 0 means the default count, as rayon's RAYON_NUM_THREADS=0 does.
        let usable = value
            .trim()
            .parse::<usize>()
            .is_ok_and(|n| n == expected || n == 0);
        assert_eq!(
            warnings,
            usize::from(!usable),
            "PRESCIENT_WORKERS={value:?}: {stderr}"
        );
    }
}
