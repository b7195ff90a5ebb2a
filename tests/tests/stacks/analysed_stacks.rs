//! Programs that overflowed the stack `#[task_program]` estimated for them
//! when the estimate was the stack's size, each run under its own `PARAMS`
//! — now with the estimate as the stack's commitment and the default 8 MiB
//! reserve — at the depth that used to overflow. A task overflowing its
//! stack aborts this process with the runtime's overflow message, so a
//! regression fails loudly.
//!
//! Also here: the analysis-level fixes that change `PARAMS`/`ANALYSIS` of
//! real programs — `#[cfg]`-gated items, task closures stored in variables,
//! aliased scopes, and a renamed `prescient` dependency (`crate = rt`).

// A renamed dependency: the crate is reachable as `::rt` (the test also keeps
// its `prescient` name, which the emitted code must not need).
extern crate prescient as rt;

use prescient::analysis::ProgramAnalysis;
use prescient::{Params, Runtime};
use prescient_tests::watchdog;
use std::time::Duration;

/// A runtime on exactly the analysed parameters.
fn runtime(params: Params, analysis: &ProgramAnalysis) -> Runtime {
    let rt = Runtime::builder()
        .params(params)
        .num_workers(2)
        .build()
        .expect("the analysed parameters are valid");
    assert_eq!(
        rt.params().committed_stack_size,
        analysis.committed_stack_size,
        "{analysis}"
    );
    assert_eq!(
        rt.params().stack_size,
        prescient::tuning::DEFAULT_STACK_SIZE
    );
    rt
}

/// Runs `f` on a runtime built from a module's `PARAMS`.
fn on_analysed_stack<R: Send>(
    params: Params,
    analysis: &ProgramAnalysis,
    f: impl FnOnce() -> R + Send,
) -> R {
    let rt = runtime(params, analysis);
    watchdog(analysis.module, Duration::from_secs(120), || rt.run(f))
}

/// `let buf = [x; 8192];` with `x` a variable: sized from its type (here
/// `u32`, 32 KiB), not as a 32-byte binding.
#[prescient::task_program]
mod repeat_of_variable {
    use prescient::join;

    pub fn fill(n: u64, x: u32) -> u64 {
        let buf = [x; 8192];
        let here = u64::from(std::hint::black_box(&buf)[(n % 8192) as usize]);
        if n == 0 {
            return here;
        }
        let (a, b) = join(|| fill(n - 1, x), || here);
        a + b
    }

    /// At depth 0: a task holding the array.
    pub fn once(x: u32) -> u64 {
        let (a, _) = join(
            || {
                let buf = [x; 8192];
                u64::from(std::hint::black_box(&buf)[8191])
            },
            || 0,
        );
        a
    }
}

#[test]
fn repeat_of_a_variable_runs_on_its_analysed_stack() {
    use repeat_of_variable::*;
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || once(3)), 3);
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || fill(100, 1)), 101);
}

/// `let buf = zeros();` returning `[u64; 8192]`: sized from the return type.
#[prescient::task_program]
mod returned_array {
    use prescient::join;

    fn zeros() -> [u64; 8192] {
        [0; 8192]
    }

    pub fn walk(n: u64) -> u64 {
        let mut buf = zeros();
        buf[(n % 8192) as usize] = n;
        let here = std::hint::black_box(&buf)[(n % 8192) as usize];
        if n == 0 {
            return here;
        }
        let (a, b) = join(|| walk(n - 1), || here);
        a + b
    }
}

#[test]
fn returned_array_runs_on_its_analysed_stack() {
    use returned_array::*;
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || walk(50)), 1275);
}

/// `let buf: [u8; N]` with a const generic `N`: an unknown length.
#[prescient::task_program]
mod const_generic_array {
    use prescient::join;

    pub fn walk<const N: usize>(n: u64) -> u64 {
        let buf: [u8; N] = [1; N];
        let here = u64::from(std::hint::black_box(&buf)[N - 1]);
        if n == 0 {
            return here;
        }
        let (a, b) = join(|| walk::<N>(n - 1), || here);
        a + b
    }
}

#[test]
fn const_generic_array_runs_on_its_analysed_stack() {
    use const_generic_array::*;
    assert_eq!(
        on_analysed_stack(PARAMS, &ANALYSIS, || walk::<32768>(100)),
        101
    );
}

/// A function-local `struct Big([u64; 8192])`: a type the analysis cannot
/// size.
#[prescient::task_program]
mod local_struct {
    use prescient::join;

    pub fn walk(n: u64) -> u64 {
        struct Big([u64; 8192]);
        let big = Big([n; 8192]);
        let here = std::hint::black_box(&big).0[(n % 8192) as usize];
        if n == 0 {
            return here;
        }
        let (a, b) = join(|| walk(n - 1), || here);
        a + b
    }
}

#[test]
fn local_struct_runs_on_its_analysed_stack() {
    use local_struct::*;
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || walk(50)), 1275);
}

/// Recursion through a method call on a value (`l.sum()`).
#[prescient::task_program]
mod method_recursion {
    use prescient::join;

    pub struct Tree {
        pub depth: u64,
    }

    impl Tree {
        pub fn sum(&self) -> u64 {
            let pad = [self.depth; 64];
            if self.depth == 0 {
                return 1;
            }
            let l = Tree {
                depth: self.depth - 1,
            };
            let (a, b) = join(|| l.sum(), || std::hint::black_box(&pad)[0]);
            a + b.min(1)
        }
    }
}

#[test]
fn recursion_through_a_method_call_runs_on_its_analysed_stack() {
    use method_recursion::*;
    let t = Tree { depth: 1000 };
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || t.sum()), 1001);
    assert_ne!(ANALYSIS.rho, 0, "{ANALYSIS}");
}

/// Recursion inside `vec![join(..)]`.
#[prescient::task_program]
mod macro_recursion {
    use prescient::join;

    #[allow(clippy::useless_vec)] // the pattern under test
    pub fn tree(n: u64) -> u64 {
        if n == 0 {
            return 1;
        }
        let v = vec![join(|| tree(n - 1), || 1)];
        v[0].0 + v[0].1
    }
}

#[test]
fn recursion_inside_a_macro_runs_on_its_analysed_stack() {
    use macro_recursion::*;
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || tree(1000)), 1001);
    assert_eq!(ANALYSIS.sites.len(), 1, "{ANALYSIS}");
}

/// Recursion through a trait's default method.
#[prescient::task_program]
mod default_method_recursion {
    use prescient::join;

    pub trait Walk: Sync {
        fn walk(&self, n: u64) -> u64 {
            if n == 0 {
                return 1;
            }
            let (a, b) = join(|| self.walk(n - 1), || 1);
            a + b
        }
    }

    pub struct W;

    impl Walk for W {}
}

#[test]
fn recursion_through_a_default_method_runs_on_its_analysed_stack() {
    use default_method_recursion::*;
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || W.walk(1000)), 1001);
}

/// Small visible frames recursing deeper than the 64 levels (CF'17's φ) the
/// analysis used to assume.
#[prescient::task_program]
mod deep_small_frames {
    use prescient::join;

    pub fn depth(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (a, b) = join(|| depth(n - 1), || 1);
        a + b
    }
}

#[test]
fn deep_recursion_of_small_frames_runs_on_its_analysed_stack() {
    use deep_small_frames::*;
    let n = if cfg!(debug_assertions) { 400 } else { 10_000 };
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || depth(n)), n);
}

/// A divide-and-conquer over a halved `u64` stays small: its depth is
/// bounded (65 levels, charged 16), so no conservative fallback; it runs 64
/// levels deep here, past the estimate, faulting its further pages in.
#[prescient::task_program]
mod halving {
    use prescient::join;

    pub fn levels(n: u64) -> u64 {
        if n < 2 {
            return 0;
        }
        let (a, b) = join(|| levels(n / 2), || levels(n >> 63));
        // No method call: a call the analysis cannot see would make it
        // fall back to the conservative size.
        if a > b {
            a + 1
        } else {
            b + 1
        }
    }
}

#[test]
fn halving_recursion_keeps_a_small_analysed_stack() {
    use halving::*;
    let analysis = ANALYSIS;
    assert!(
        analysis.stack_estimate < prescient::analysis::UNBOUNDED_STACK_ESTIMATE,
        "{analysis}"
    );
    assert_eq!(
        on_analysed_stack(PARAMS, &ANALYSIS, || levels(u64::MAX)),
        63
    );
}

/// Task closures stored in variables and passed to `join` later.
#[prescient::task_program]
mod stored_closures {
    use prescient::join;

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let l = move || fib(n - 1);
        let r = move || fib(n - 2);
        let (a, b) = join(l, r);
        a + b
    }
}

#[test]
fn task_closures_in_variables_are_recursive_parallel_paths() {
    use stored_closures::*;
    assert_eq!(ANALYSIS.contexts.len(), 1);
    assert_eq!(ANALYSIS.rho, 2, "{ANALYSIS}");
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, || fib(20)), 6765);
}

/// A scope value under another name spawns.
#[prescient::task_program]
mod aliased_scope {
    use prescient::scope;
    use std::sync::atomic::{AtomicU64, Ordering};

    pub fn run() -> u64 {
        let total = AtomicU64::new(0);
        scope(|s| {
            let s2 = s;
            for i in 0..8 {
                let total = &total;
                s2.spawn(move |_| {
                    total.fetch_add(i, Ordering::Relaxed);
                });
            }
        });
        total.into_inner()
    }
}

#[test]
fn an_aliased_scope_spawns() {
    use aliased_scope::*;
    assert_eq!(ANALYSIS.sites.len(), 1, "{ANALYSIS}");
    assert_eq!(ANALYSIS.lambda, 1, "{ANALYSIS}");
    assert_eq!(on_analysed_stack(PARAMS, &ANALYSIS, run), 28);
}

/// Two modules that differ only in a `#[cfg(test)]` recursive helper (this
/// file is compiled with `cfg(test)`): the helper must not change `PARAMS`.
#[prescient::task_program]
mod without_test_helper {
    use prescient::scope;

    pub fn run() -> u64 {
        let mut out = [0u64; 4];
        scope(|s| {
            for (i, slot) in out.iter_mut().enumerate() {
                s.spawn(move |_| *slot = i as u64);
            }
        });
        out.iter().sum()
    }
}

#[prescient::task_program]
mod with_test_helper {
    use prescient::scope;

    pub fn run() -> u64 {
        let mut out = [0u64; 4];
        scope(|s| {
            for (i, slot) in out.iter_mut().enumerate() {
                s.spawn(move |_| *slot = i as u64);
            }
        });
        out.iter().sum()
    }

    #[cfg(test)]
    pub fn helper(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (a, b) = prescient::join(|| helper(n - 1), || 1);
        a + b
    }
}

#[test]
fn cfg_test_items_do_not_change_params() {
    assert_eq!(with_test_helper::PARAMS, without_test_helper::PARAMS);
    assert_eq!(with_test_helper::ANALYSIS.contexts.len(), 1);
    assert_eq!(with_test_helper::helper(3), 3);
    assert_eq!(without_test_helper::run(), 6);
    assert_eq!(
        on_analysed_stack(
            with_test_helper::PARAMS,
            &with_test_helper::ANALYSIS,
            with_test_helper::run
        ),
        6
    );
}

/// A renamed dependency: `crate = rt` (and serde's string form).
#[prescient::task_program(crate = rt)]
mod renamed {
    use rt::join;

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
}

#[prescient::task_program(crate = "rt")]
mod renamed_quoted {
    pub fn count(n: u64) -> u64 {
        if n < 2 {
            return 1;
        }
        let (a, b) = ::rt::join(|| count(n / 2), || count(n / 2));
        a + b
    }
}

#[test]
fn a_renamed_crate_is_used_for_every_emitted_path() {
    assert_eq!(renamed::ANALYSIS.sites.len(), 1);
    assert_eq!(renamed::ANALYSIS.rho, 2);
    assert_eq!(
        on_analysed_stack(renamed::PARAMS, &renamed::ANALYSIS, || renamed::fib(15)),
        610
    );
    assert_eq!(renamed_quoted::ANALYSIS.sites.len(), 1);
    assert_eq!(
        on_analysed_stack(renamed_quoted::PARAMS, &renamed_quoted::ANALYSIS, || {
            renamed_quoted::count(64)
        }),
        64
    );
}
