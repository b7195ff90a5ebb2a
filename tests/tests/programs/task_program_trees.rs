//! `#[task_program(trees = …)]`: the decision trees `PARAMS` start from.
//! Without the argument `PARAMS` are the default trees' choice
//! (`Trees::DEFAULT`, the calibrated ones); `trees = cf17` selects CF'17's,
//! `trees = calibrated` the calibrated ones, and the other arguments still
//! override single parameters on top.

use prescient::analysis::Trees;

/// The same program under each choice of trees.
macro_rules! fib_module {
    ($name:ident $(, $($args:tt)*)?) => {
        #[prescient::task_program($($($args)*)?)]
        pub mod $name {
            use prescient::join;

            /// The `n`th Fibonacci number, both halves in parallel.
            pub fn fib(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                let (a, b) = join(|| fib(n - 1), || fib(n - 2));
                a + b
            }
        }
    };
}

fib_module!(default_trees);
fib_module!(cf17, trees = cf17);
fib_module!(cf17_variant, trees = Cf17);
fib_module!(calibrated, trees = calibrated);
fib_module!(cf17_capacity, trees = cf17, queue_capacity = 8);

#[test]
fn without_the_argument_the_default_trees_choose() {
    assert_eq!(
        default_trees::PARAMS,
        default_trees::ANALYSIS.params(prescient::analysis::Trees::DEFAULT)
    );
    assert_eq!(
        default_trees::PARAMS,
        default_trees::ANALYSIS.params(Trees::DEFAULT)
    );
}

#[test]
fn trees_selects_the_decision_trees() {
    assert_eq!(cf17::PARAMS, cf17::ANALYSIS.params(Trees::Cf17));
    assert_eq!(
        cf17_variant::PARAMS,
        cf17_variant::ANALYSIS.params(Trees::Cf17)
    );
    assert_eq!(
        calibrated::PARAMS,
        calibrated::ANALYSIS.params(Trees::Calibrated)
    );
}

#[test]
fn overrides_apply_on_top_of_the_chosen_trees() {
    let trees = cf17_capacity::ANALYSIS.params(Trees::Cf17);
    assert_eq!(cf17_capacity::PARAMS.queue_capacity, 8);
    assert_eq!(cf17_capacity::PARAMS, trees.with_queue_capacity(8));
}

#[test]
fn the_annotated_program_runs_under_cf17_params() {
    let runtime = prescient::Runtime::builder()
        .params(cf17::PARAMS)
        .num_workers(2)
        .build()
        .unwrap();
    assert_eq!(runtime.run(|| cf17::fib(20)), 6765);
}
