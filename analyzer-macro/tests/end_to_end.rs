//! End-to-end tests of `#[task_program]`: the expansion compiles against the
//! real runtime, the program computes the same thing, and the emitted
//! `ANALYSIS` and the parameters are what the decision trees say: `PARAMS`
//! the calibrated trees' (the default), `ANALYSIS.params(Trees::Cf17)`
//! CF'17's. Run under both the debug and the release test profile (the
//! per-join frame cost differs).
//!
//! Also here, as a module (one test binary instead of two):
//! `renamed_dependency` (`tests/end_to_end/`), a crate that names the
//! runtime `rt`. The macro's
//! compile-pass cases, `tests/ui-pass/`, are test targets of their own
//! (`Cargo.toml`); its compile-fail cases are in the workspace's
//! `tests/tests/ui_task_program/`, checked with every other trybuild case by
//! `prescient-tests`' `ui` binary.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::{Params, Runtime};
use prescient_macros::task_program;

#[path = "end_to_end/renamed_dependency.rs"]
mod renamed_dependency;

/// A module the analyzed code may call: `rayon::join` here is not a spawn.
mod rayon {
    pub fn join<A: FnOnce() -> u32, B: FnOnce() -> u32>(a: A, b: B) -> (u32, u32) {
        (a(), b())
    }
}

#[task_program]
pub mod fib {
    use prescient::join;

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| fib(n - 1), || fib(n - 2));
        a + b
    }

    pub fn run(n: u64) -> u64 {
        let runtime = prescient::Runtime::builder()
            .params(PARAMS)
            .num_workers(2)
            .build()
            .expect("runtime");
        runtime.run(|| fib(n))
    }
}

#[task_program]
pub mod loops {
    use prescient::scope;

    const N: usize = 64;

    fn work(i: usize) -> usize {
        let mut acc = 0;
        for k in 0..100 {
            acc += k * i;
        }
        acc
    }

    pub fn run() -> usize {
        let mut out = [0usize; N];
        scope(|s| {
            for (i, slot) in out.iter_mut().enumerate() {
                s.spawn(move |_| *slot = work(i));
            }
        });
        out.iter().sum()
    }
}

#[task_program]
pub mod coarse {
    use prescient::{spawn as start, TaskGroup};

    const N: u64 = 2_000_000;

    pub fn heavy(seed: u64) -> u64 {
        let mut x = seed;
        for i in 0..N {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        x
    }

    pub fn run() -> u64 {
        let h = start(|| heavy(1));
        let group = TaskGroup::new();
        group.spawn(|| {
            heavy(2);
        });
        group.wait();
        h.join()
    }
}

#[task_program(stack_size = 65536, queue_policy = InsertFrontStealBack, queue_capacity = 32, dependency_buckets = 1021)]
pub mod overridden {
    pub fn f() -> (u32, u32) {
        prescient::join(|| 1, || 2)
    }
}

#[task_program]
pub mod generic {
    use prescient::join;

    #[derive(Default, Clone, Copy)]
    pub struct Pair(pub u64, pub u64);

    pub fn both<T: Send + Default + Copy, const K: usize>(x: T) -> (T, [T; K]) {
        let local: T = x;
        let array: [T; K] = [T::default(); K];
        let pair: Pair = Pair::default();
        let _ = pair;
        join(move || local, move || array)
    }

    pub struct Tree<T> {
        pub value: T,
        pub children: Vec<Tree<T>>,
    }

    impl<T: Sync + Copy + Into<u64>> Tree<T> {
        pub fn sum(&self) -> u64 {
            let me: &Self = self;
            let own: T = me.value;
            let sums: Vec<u64> = prescient::scope(|s| {
                let _ = s;
                self.children.iter().map(|c| c.sum()).collect()
            });
            own.into() + sums.iter().sum::<u64>()
        }

        pub fn par_sum(&self) -> u64 {
            match self.children.as_slice() {
                [] => self.value.into(),
                [a, rest @ ..] => {
                    let (x, y) = join(
                        || a.par_sum(),
                        || rest.iter().map(Self::par_sum).sum::<u64>(),
                    );
                    self.value.into() + x + y
                }
            }
        }
    }
}

#[task_program]
pub mod foreign {
    use crate::rayon;
    use std::path::Path;

    pub fn run() -> u32 {
        let (a, b) = rayon::join(|| 1, || 2);
        let p = Path::new("a").join("b");
        let t = std::thread::spawn(|| 3).join().unwrap_or(0);
        std::thread::scope(|s| {
            s.spawn(|| 4);
        });
        a + b + t + p.components().count() as u32
    }
}

#[task_program]
pub mod lifetimes {
    use prescient::join;

    pub struct Pair(pub u64, pub u64);

    pub fn sum<'a>(xs: &'a [u64], p: &'a Pair, name: &'static str) -> u64 {
        let head: &'a [u64] = &xs[..xs.len() / 2];
        let tail: &[u64] = &xs[xs.len() / 2..];
        let f = |x: &u64| *x + p.0;
        struct Local(u8);
        let local: Local = Local(1);
        let boxed: Box<dyn Fn(u64) -> u64 + 'a> = Box::new(move |x| x + p.1);
        let (a, b) = join(
            || head.iter().map(f).sum::<u64>(),
            || tail.iter().sum::<u64>(),
        );
        boxed(a + b) + name.len() as u64 + u64::from(local.0)
    }
}

#[task_program]
pub mod flow {
    use prescient::dataflow;

    pub fn run() -> u64 {
        dataflow(|df| {
            let x = df.data(1u64);
            let y = df.data(0u64);
            for _ in 0..4 {
                df.task((x.read(), y.inout()), |(x, y): (&u64, &mut u64)| *y += *x);
            }
            df.task(y.inout(), |y: &mut u64| *y *= 10);
            df.wait();
            y.into_inner()
        })
    }
}

/// Spawns and recursion written in the module's own `macro_rules!` macros.
#[task_program]
pub mod macros {
    use prescient::join;

    macro_rules! both {
        ($a:expr, $b:expr) => {
            join(|| $a, || $b)
        };
    }

    macro_rules! halves {
        ($f:ident, $n:expr) => {{
            let (a, b) = both!($f($n / 2), $f($n / 2));
            a + b
        }};
    }

    pub fn sum(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        halves!(sum, n)
    }

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = both!(fib(n - 1), fib(n - 2));
        a + b
    }
}

/// Recursion through a function pointer held in a struct.
#[task_program]
pub mod pointers {
    use prescient::join;

    pub struct Visitor {
        pub visit: fn(&Visitor, u64) -> u64,
    }

    pub fn walk(v: &Visitor, n: u64) -> u64 {
        if n < 2 {
            return 1;
        }
        let (a, b) = join(|| (v.visit)(v, n - 1), || (v.visit)(v, n - 2));
        a + b
    }

    pub fn run(n: u64) -> u64 {
        let v = Visitor { visit: walk };
        walk(&v, n)
    }
}

/// A loop of spawns whose tasks call a standard method of the same name as
/// the module's own.
#[task_program]
pub mod rows {
    use prescient::scope;

    pub struct Matrix {
        pub rows: Vec<Vec<u64>>,
    }

    impl Matrix {
        pub fn sum(&self) -> u64 {
            let mut sums = vec![0u64; self.rows.len()];
            scope(|s| {
                for (row, out) in self.rows.iter().zip(sums.iter_mut()) {
                    s.spawn(move |_| *out = row.iter().sum());
                }
            });
            sums.into_iter().sum()
        }
    }
}

/// The program: recursion from the annotated module into a nested
/// one and back (`odd::odd`, `super::even`), and a nested module's own
/// imports and sites two levels down.
#[task_program]
pub mod parity {
    pub fn even(n: u64) -> u64 {
        if n == 0 {
            1
        } else {
            let (a, b) = prescient::join(|| odd::odd(n - 1), || 1);
            a + b
        }
    }

    pub mod odd {
        pub fn odd(n: u64) -> u64 {
            if n == 0 {
                0
            } else {
                let (a, b) = prescient::join(|| super::even(n - 1), || 0);
                a + b
            }
        }

        pub mod count {
            use super::super::even;
            use prescient::join;

            /// Halves until 1, counting the leaves, with `even` at each.
            pub fn leaves(n: u64) -> u64 {
                if n < 2 {
                    return even(0);
                }
                let (a, b) = join(|| leaves(n / 2), || leaves(n - n / 2));
                a + b
            }
        }
    }
}

/// A nested module calling back through a `crate::` path: the macro cannot
/// tell that `crate::by_name` is this module, so it follows the call as a
/// possible one and says so.
#[task_program]
pub mod by_name {
    pub fn count(n: u64) -> u64 {
        if n < 2 {
            return 1;
        }
        let (a, b) = prescient::join(|| inner::down(n / 2), || 1);
        a + b
    }

    pub mod inner {
        pub fn down(n: u64) -> u64 {
            crate::by_name::count(n)
        }
    }
}

#[rustfmt::skip]
#[task_program]
pub mod located {
    pub fn f() -> u32 { let (a, b) = prescient::join(|| 1, || 2); a + b } pub const LINE: u32 = line!();
}

#[test]
fn recursion_through_a_nested_module_is_recursive() {
    let a = parity::ANALYSIS;
    let contexts: Vec<_> = a.contexts.iter().map(|c| (c.function, c.rho)).collect();
    assert_eq!(
        contexts,
        [("even", 1), ("odd::odd", 1), ("odd::count::leaves", 3)],
        "{a}"
    );
    assert!(a.contexts.iter().all(|c| c.unseen.is_empty()), "{a}");
    // ρ > 0: the recursive trees' dependency buckets; a mutual recursion:
    // no commitment.
    assert_eq!(parity::PARAMS.dependency_buckets, 256_019, "{a}");
    assert_eq!(parity::PARAMS.committed_stack_size, 0, "{a}");
    // Every site has its own static, named from its own module.
    assert_eq!(a.sites.len(), 3, "{a}");
    for (k, site) in a.sites.iter().enumerate() {
        assert_eq!(site.index as usize, k);
        for other in &a.sites[..k] {
            assert!(!std::ptr::eq(*site, *other), "{a}");
        }
    }
    assert_eq!(a.sites[2].function, "odd::count::leaves");
    let rt = Runtime::builder()
        .params(parity::PARAMS)
        .num_workers(2)
        .build()
        .expect("runtime");
    assert_eq!(rt.run(|| parity::even(10)), 6);
    assert_eq!(rt.run(|| parity::odd::odd(7)), 4);
    assert_eq!(rt.run(|| parity::odd::count::leaves(9)), 9);
}

#[test]
fn a_crate_path_to_the_module_is_a_possible_call() {
    let a = by_name::ANALYSIS;
    assert_eq!(a.rho, 1, "{a}");
    let unseen = a.contexts[0].unseen;
    assert_eq!(unseen.len(), 1, "{a}");
    assert_eq!(unseen[0].kind, prescient::analysis::UnseenKind::CratePath);
    assert_eq!(unseen[0].first, "crate::by_name::count");
    assert!(
        a.to_string().contains("matched to the module by its name"),
        "{a}"
    );
    assert_eq!(by_name::count(16), 5);
}

#[test]
fn fib_is_recursive_and_tiny() {
    let a = fib::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "fib");
    assert_eq!(a.rho, 2);
    assert_eq!(a.lambda, 0);
    assert!(a.effort < 100, "{a}");
    // CF'17: ρ = 2 ≤ 5 and a tiny effort: DEF, capacity 4; ρ > 0: 256019.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(cf17.queue_policy, QueuePolicy::InsertBackStealBack);
    assert_eq!(cf17.queue_capacity, 4);
    assert_eq!(cf17.dependency_buckets, 256_019);
    assert_eq!(cf17.committed_stack_size, a.committed_stack_size);
    // Calibrated (`PARAMS`): effort 6 < 7667: fine or opaque tasks, BF/32;
    // buckets as CF'17.
    const P: Params = fib::PARAMS;
    assert_eq!(P, a.params(prescient::analysis::Trees::DEFAULT));
    assert_eq!(P, a.params(Trees::Calibrated));
    assert!(a.effort < 7_667, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32);
    assert_eq!(P.dependency_buckets, 256_019);
    assert_eq!(P.stack_size, prescient::tuning::DEFAULT_STACK_SIZE);
    assert_eq!(P.committed_stack_size, a.committed_stack_size);
    assert_eq!(P.pinning, Params::DEFAULT.pinning);
    // `fib(n - 1)`: a recursion depth the analysis cannot bound, so no
    // commitment rather than a guess (the reserve is the limit).
    assert!(a.stack_estimate >= 64 * JOIN_FRAME_BYTES as u64, "{a}");
    assert_eq!(P.committed_stack_size, 0, "{a}");
    assert_eq!(fib::run(20), 6765);
    assert_eq!(fib::fib(15), 610, "outside a runtime too");
}

#[test]
fn loop_program_gets_cf17_capacity_128() {
    let a = loops::ANALYSIS;
    assert_eq!((a.rho, a.lambda), (0, 1), "{a}");
    assert_eq!(a.sites[0].kind, SiteKind::ScopeSpawn);
    assert!(a.sites[0].in_loop);
    // CF'17: ρ = 0 and λ > 0 (loop parallelism): capacity 128; ρ = 0: 97
    // buckets; effort ≤ 1M: DEF.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(cf17.queue_capacity, 128);
    assert_eq!(cf17.dependency_buckets, 97);
    assert_eq!(cf17.queue_policy, QueuePolicy::InsertBackStealBack);
    // Calibrated (`PARAMS`): effort 304 < 7667: fine or opaque tasks, BF/32;
    // buckets as CF'17.
    assert_eq!(loops::PARAMS, a.params(Trees::Calibrated));
    assert!(a.effort < 7_667, "{a}");
    assert_eq!(
        loops::PARAMS.queue_policy,
        QueuePolicy::InsertBackStealFront
    );
    assert_eq!(loops::PARAMS.queue_capacity, 32);
    assert_eq!(loops::PARAMS.dependency_buckets, 97);
    let expected: usize = (0..64).map(|i| (0..100).sum::<usize>() * i).sum();
    let rt = Runtime::builder()
        .params(loops::PARAMS)
        .num_workers(2)
        .build()
        .expect("runtime");
    assert_eq!(rt.run(loops::run), expected);
}

#[test]
fn const_loop_bounds_are_evaluated_by_rustc() {
    let a = coarse::ANALYSIS;
    assert_eq!(a.sites.len(), 2, "{a}");
    assert_eq!(a.sites[0].kind, SiteKind::Spawn);
    assert_eq!(a.sites[1].kind, SiteKind::GroupSpawn);
    // 2M iterations × (2 invisible calls + 1): far above 1M, below 1T.
    assert!(a.sites[0].static_effort > 2_000_000 * 20, "{a}");
    assert!(a.effort > 1_000_000 && a.effort <= 1_000_000_000_000);
    // CF'17: 1M < effort ≤ 1T: PF, capacity 8; ρ = 0: 97 buckets.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(cf17.queue_policy, QueuePolicy::InsertFrontStealBack);
    assert_eq!(cf17.queue_capacity, 8);
    assert_eq!(cf17.dependency_buckets, 97);
    // Calibrated (`PARAMS`): effort > 1M ≥ 7667: visible work, DEF/8; 97
    // buckets.
    assert_eq!(coarse::PARAMS, a.params(Trees::Calibrated));
    assert_eq!(
        coarse::PARAMS.queue_policy,
        QueuePolicy::InsertBackStealBack
    );
    assert_eq!(coarse::PARAMS.queue_capacity, 8);
    assert_eq!(coarse::PARAMS.dependency_buckets, 97);
    assert_eq!(coarse::run(), coarse::heavy(1));
}

#[test]
fn overrides_replace_single_parameters() {
    const P: Params = overridden::PARAMS;
    assert_eq!(P.stack_size, 65536);
    assert_eq!(P.queue_policy, QueuePolicy::InsertFrontStealBack);
    assert_eq!(P.queue_capacity, 32);
    assert_eq!(P.dependency_buckets, 1021);
    // Without the overrides: calibrated (the default trees), effort 0 < 7667
    // (nothing visible in `|| 1`): fine or opaque tasks, BF/32; CF'17 capacity
    // 4 (ρ = 0 but λ = 0: no loop). Each override replaces only its field.
    let a = overridden::ANALYSIS;
    assert_eq!(a.effort, 0, "{a}");
    assert_eq!(
        a.params(prescient::analysis::Trees::DEFAULT).queue_policy,
        QueuePolicy::InsertBackStealFront
    );
    assert_eq!(
        a.params(prescient::analysis::Trees::DEFAULT).queue_capacity,
        32
    );
    assert_eq!(a.params(Trees::Cf17).queue_capacity, 4);
    assert_eq!(
        P,
        a.params(prescient::analysis::Trees::DEFAULT)
            .with_stack_size(65536)
            .with_queue_policy(QueuePolicy::InsertFrontStealBack)
            .with_queue_capacity(32)
            .with_dependency_buckets(1021)
    );
    assert_eq!(overridden::f(), (1, 2));
}

#[test]
fn generic_functions_compile_with_estimates() {
    let a = generic::ANALYSIS;
    assert_eq!(a.sites.len(), 2, "{a}");
    let (x, arr) = generic::both::<u8, 3>(7);
    assert_eq!((x, arr), (7, [0, 0, 0]));
    let tree = generic::Tree {
        value: 1u32,
        children: vec![
            generic::Tree {
                value: 2u32,
                children: vec![],
            },
            generic::Tree {
                value: 3u32,
                children: vec![],
            },
        ],
    };
    assert_eq!(tree.sum(), 6);
    assert_eq!(tree.par_sum(), 6);
    let par = a
        .contexts
        .iter()
        .find(|c| c.function == "Tree::par_sum")
        .expect("context");
    assert!(par.rho >= 1, "{a}");
}

#[test]
fn lifetimes_are_erased_in_size_terms() {
    let p = lifetimes::Pair(10, 100);
    assert_eq!(
        lifetimes::sum(&[1, 2, 3, 4], &p, "ab"),
        10 + 20 + 100 + 2 + 1
    );
    const { assert!(lifetimes::ANALYSIS.stack_estimate > 0) };
}

#[test]
fn dataflow_tasks_are_sites() {
    let a = flow::ANALYSIS;
    assert_eq!(a.sites.len(), 2, "{a}");
    assert!(a.sites.iter().all(|s| s.kind == SiteKind::DataflowTask));
    assert!(a.sites[0].in_loop && !a.sites[1].in_loop);
    assert_eq!((a.rho, a.lambda), (0, 1));
    // Calibrated (`PARAMS`): effort < 7667: fine or opaque tasks, BF/32.
    assert!(a.effort < 7_667, "{a}");
    assert_eq!(flow::PARAMS.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(flow::PARAMS.queue_capacity, 32);
    assert_eq!(flow::run(), 40);
}

#[test]
fn foreign_joins_and_spawns_are_not_sites() {
    assert_eq!(foreign::ANALYSIS.sites.len(), 0);
    // No context, no stack estimate: nothing committed.
    assert_eq!(foreign::ANALYSIS.stack_estimate, 0);
    assert_eq!(foreign::PARAMS.committed_stack_size, 0);
    assert_eq!(foreign::run(), 8);
}

#[test]
fn sites_are_statics_with_locations() {
    let site = located::ANALYSIS.sites[0];
    assert_eq!(site.line, located::LINE);
    assert!(site.file.ends_with("end_to_end.rs"), "{}", site.file);
    assert_eq!(site.function, "f");
    assert_eq!(site.module, "end_to_end::located");
    assert_eq!(site.kind, SiteKind::Join);
    // Ids are addresses, distinct across modules.
    assert!(!std::ptr::eq(
        located::ANALYSIS.sites[0],
        overridden::ANALYSIS.sites[0]
    ));
    assert!(std::ptr::eq(fib::ANALYSIS.sites[0], fib::ANALYSIS.sites[0]));
    assert!(std::ptr::eq(
        fib::ANALYSIS.contexts[0].sites[0],
        fib::ANALYSIS.sites[0]
    ));
    assert_eq!(located::f(), 3);
}

#[test]
fn analysis_prints_a_report() {
    let text = fib::ANALYSIS.to_string();
    assert!(
        text.contains("task program end_to_end::fib: 1 task context(s), 1 spawn site(s)"),
        "{text}"
    );
    assert!(text.contains("context fib: rho = 2, lambda = 0"), "{text}");
    assert!(text.contains("site #0 join in fib at"), "{text}");
    assert!(text.contains("dependency buckets 256019"), "{text}");
}

#[test]
fn local_macros_are_expanded_where_they_are_used() {
    assert_eq!(macros::sum(8), 8);
    assert_eq!(macros::fib(10), 55);
    let a = &macros::ANALYSIS;
    // One site per invocation, in the function that invokes the macro.
    let functions: Vec<&str> = a.sites.iter().map(|s| s.function).collect();
    assert_eq!(functions, ["sum", "fib"]);
    assert!(a.sites.iter().all(|s| s.kind == SiteKind::Join));
    let rho: Vec<(&str, u32)> = a.contexts.iter().map(|c| (c.function, c.rho)).collect();
    assert_eq!(rho, [("sum", 2), ("fib", 2)]);
    // `sum` halves its parameter inside the expansion: a bounded recursion.
    assert!(a.contexts[0].stack < a.contexts[1].stack, "{a}");
}

#[test]
fn recursion_through_function_pointers_is_seen() {
    assert_eq!(pointers::run(10), 89);
    let a = &pointers::ANALYSIS;
    assert_eq!((a.contexts[0].function, a.contexts[0].rho), ("walk", 2));
    assert_eq!(a.rho, 2);
}

#[test]
fn standard_methods_of_module_names_are_not_recursion() {
    let m = rows::Matrix {
        rows: vec![vec![1, 2], vec![3]],
    };
    assert_eq!(m.sum(), 6);
    let a = &rows::ANALYSIS;
    assert_eq!((a.rho, a.lambda), (0, 1));
    // A loop program's parameters: CF'17's capacity 128.
    assert_eq!(a.params(Trees::Cf17).queue_capacity, 128);
}

#[test]
fn the_report_says_what_the_analysis_could_not_see() {
    use prescient::analysis::UnseenKind;
    let c = &pointers::ANALYSIS.contexts[0];
    let kinds: Vec<UnseenKind> = c.unseen.iter().map(|u| u.kind).collect();
    // The join's results: what a call through a value returns.
    assert_eq!(kinds, [UnseenKind::IndirectCall, UnseenKind::UnknownSize]);
    let u = c.unseen[0];
    assert_eq!((u.count, u.first), (2, "(v.visit)"));
    assert!(u.file.ends_with("end_to_end.rs") && u.line > 0, "{u}");
    let text = pointers::ANALYSIS.to_string();
    let line = format!(
        "    not seen: 2 calls through function pointers or closures in values, first `(v.visit)` at {}:{}:{}\n",
        u.file, u.line, u.column
    );
    assert!(text.contains(&line), "{text}");
    // `rows`: the standard methods, the vec! macro, the `for` over a
    // slice's iterator.
    let text = rows::ANALYSIS.to_string();
    for part in [
        "not seen: ",
        "method calls the module does not define, first `.len()`",
        "macro invocations not expanded, first `vec!`",
        "loops without a visible trip count, first `for`",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // fib sees everything it runs.
    assert!(!fib::ANALYSIS.to_string().contains("not seen"));
}
