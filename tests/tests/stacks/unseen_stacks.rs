//! Programs whose stack `#[task_program]` cannot bound from one module's
//! syntax, written as users write them, each run on its own analysed
//! `PARAMS` at 1, 2 and 8 workers with its result checked. They need far
//! more stack than any estimate the macro could make of them; they run
//! because the estimate is only the stack's commitment and the reserve (8
//! MiB by default, as a thread's) is the limit. A task that overflowed would
//! abort this process with the runtime's overflow message.
//!
//! The patterns: a recursion that halves one argument but ends on another;
//! recursion and a `join` inside a local `macro_rules!`; recursion through a
//! function pointer stored in a struct; a call into another module that
//! recurses deeply; locals whose size the macro cannot write (a copy of a
//! generic `T`, an array made by `.map()`); a bounded recursion whose call
//! sits inside an iterator-adapter chain; and an entry function with a large
//! local and no spawn site. Run in the debug and the release profile.

use prescient::analysis::ProgramAnalysis;
use prescient::{Params, Runtime};
use prescient_tests::watchdog;
use std::time::Duration;

const WORKERS: [usize; 3] = [1, 2, 8];
const LIMIT: Duration = Duration::from_secs(300);

/// Runs `f` on a runtime of `params` at 1, 2 and 8 workers, checking each
/// result against `expected`, and that the runtime commits the analysed
/// stack on the default reserve.
fn on_each_worker_count<R: PartialEq + std::fmt::Debug + Send>(
    params: Params,
    analysis: &ProgramAnalysis,
    expected: R,
    f: impl Fn() -> R + Send + Sync,
) {
    assert_eq!(
        params.stack_size,
        prescient::tuning::DEFAULT_STACK_SIZE,
        "{analysis}"
    );
    assert_eq!(
        params.committed_stack_size, analysis.committed_stack_size,
        "{analysis}"
    );
    for workers in WORKERS {
        let rt = Runtime::builder()
            .params(params)
            .num_workers(workers)
            .build()
            .unwrap();
        let got = watchdog(analysis.module, LIMIT, || rt.run(&f));
        assert_eq!(got, expected, "{} at {workers} workers", analysis.module);
    }
}

// ----- 1. halves one argument, ends on another -----

#[prescient::task_program]
mod halves_one_ends_on_another {
    use prescient::join;

    /// `depth` levels: the base case is on `depth`, while `span` halves.
    pub fn walk(span: u64, depth: u32) -> u64 {
        let pad = [span as u8 ^ depth as u8; 96];
        let here = u64::from(std::hint::black_box(&pad)[5] & 1);
        if depth == 0 {
            return here;
        }
        if depth.is_multiple_of(32) {
            let (a, b) = join(|| walk(span / 2, depth - 1), || here);
            a + b
        } else {
            walk(span / 2, depth - 1) + here
        }
    }
}

/// `walk` as a loop: every level adds its parity bit.
fn walk_reference(span: u64, depth: u32) -> u64 {
    let mut sum = 0;
    let mut span = span;
    for d in (0..=depth).rev() {
        sum += u64::from((span as u8 ^ d as u8) & 1);
        span /= 2;
    }
    sum
}

#[test]
fn a_recursion_that_halves_one_argument_and_ends_on_another() {
    use halves_one_ends_on_another::*;
    const DEPTH: u32 = 4_000;
    on_each_worker_count(PARAMS, &ANALYSIS, walk_reference(u64::MAX, DEPTH), || {
        walk(u64::MAX, DEPTH)
    });
}

// ----- 2. recursion and a join inside a local macro -----

#[prescient::task_program]
mod recursion_in_a_local_macro {
    use prescient::join;

    macro_rules! descend {
        ($f:ident, $n:expr, $pad:expr) => {{
            let n = $n;
            if n == 0 {
                0
            } else {
                let (a, b) = join(|| $f(n - 1), || u64::from($pad & 1));
                a + b + 1
            }
        }};
    }

    pub fn chain(n: u64) -> u64 {
        let pad = std::hint::black_box([n as u8; 128]);
        descend!(chain, n, pad[3])
    }
}

#[test]
fn recursion_and_a_join_inside_a_local_macro() {
    use recursion_in_a_local_macro::*;
    const DEPTH: u64 = 2_000;
    // Each level adds 1 and its parity bit.
    let expected = DEPTH + (1..=DEPTH).filter(|n| n % 2 == 1).count() as u64;
    on_each_worker_count(PARAMS, &ANALYSIS, expected, || chain(DEPTH));
}

// ----- 3. recursion through a function pointer in a struct -----

#[prescient::task_program]
mod through_a_function_pointer {
    use prescient::join;

    pub struct Visitor {
        pub visit: fn(&Visitor, u64) -> u64,
        pub weight: u64,
    }

    pub fn step(v: &Visitor, n: u64) -> u64 {
        let pad = std::hint::black_box([n as u8; 128]);
        if n == 0 {
            return 0;
        }
        let (a, b) = join(|| (v.visit)(v, n - 1), || v.weight + u64::from(pad[9] & 1));
        a + b
    }

    pub fn run(n: u64) -> u64 {
        let visitor = Visitor {
            visit: step,
            weight: 2,
        };
        (visitor.visit)(&visitor, n)
    }
}

#[test]
fn recursion_through_a_function_pointer_stored_in_a_struct() {
    use through_a_function_pointer::*;
    const DEPTH: u64 = 2_000;
    let expected = 2 * DEPTH + (1..=DEPTH).filter(|n| n % 2 == 1).count() as u64;
    on_each_worker_count(PARAMS, &ANALYSIS, expected, || run(DEPTH));
}

// ----- 4. a call into another module that recurses deeply -----

/// Not annotated: the macro sees only a call to a path outside its module.
mod plain_recursion {
    #[inline(never)]
    pub fn deep(n: u64) -> u64 {
        let pad = std::hint::black_box([n as u8; 192]);
        if n == 0 {
            return 0;
        }
        deep(n - 1) + u64::from(pad[17] & 1)
    }
}

#[prescient::task_program]
mod calls_into_another_module {
    use prescient::join;

    pub fn both(n: u64) -> u64 {
        let (a, b) = join(
            || super::plain_recursion::deep(n),
            || super::plain_recursion::deep(n / 2),
        );
        a + b
    }
}

#[test]
fn a_call_into_another_module_that_recurses_deeply() {
    use calls_into_another_module::*;
    const DEPTH: u64 = 8_000;
    let odd = |n: u64| (1..=n).filter(|k| k % 2 == 1).count() as u64;
    on_each_worker_count(PARAMS, &ANALYSIS, odd(DEPTH) + odd(DEPTH / 2), || {
        both(DEPTH)
    });
}

// ----- 5. locals whose size the macro cannot write -----

#[prescient::task_program]
mod unwritable_local_sizes {
    use prescient::join;

    /// A copy of a generic `T` (here 256 KiB) held across a join.
    pub fn hold<T: Copy + Send + Sync + AsRef<[u64]>>(value: T) -> u64 {
        let copy = value;
        let (a, b) = join(
            || std::hint::black_box(&copy).as_ref().iter().sum::<u64>(),
            || std::hint::black_box(copy).as_ref().len() as u64,
        );
        a + b
    }

    /// An array produced by `.map()`: 256 KiB the macro cannot size.
    pub fn mapped(seed: u32) -> u64 {
        let doubled = [seed; 65_536].map(|v| v.wrapping_mul(2));
        let (a, b) = join(
            || {
                std::hint::black_box(&doubled)
                    .iter()
                    .map(|&v| u64::from(v))
                    .sum::<u64>()
            },
            || doubled.len() as u64,
        );
        a + b
    }
}

#[test]
fn locals_whose_size_the_macro_cannot_write() {
    use unwritable_local_sizes::*;
    on_each_worker_count(PARAMS, &ANALYSIS, 32_768 * 3 + 32_768, || {
        hold([3u64; 32_768])
    });
    on_each_worker_count(PARAMS, &ANALYSIS, 65_536 * 10 + 65_536, || mapped(5));
}

// ----- 6. a bounded recursion inside an iterator-adapter chain -----

#[prescient::task_program]
mod recursion_in_iterator_adapters {
    use prescient::join;

    /// At most 65 levels (`n` halves), but each level's call sits under
    /// `map`, `filter` and `fold`, whose frames the macro does not count.
    pub fn levels(n: u64) -> u64 {
        let pad = std::hint::black_box([n as u8; 1024]);
        if n == 0 {
            return u64::from(pad[0]);
        }
        [n].iter()
            .map(|&m| {
                let (a, b) = join(|| levels(m / 2), || u64::from(pad[1] & 1));
                a + b
            })
            .filter(|&v| v != u64::MAX)
            .fold(1, |sum, v| sum + v)
    }
}

#[test]
fn a_bounded_recursion_inside_an_iterator_adapter_chain() {
    use recursion_in_iterator_adapters::*;
    // 64 halvings of u64::MAX, each level adds 1 and its parity bit (set
    // while the value is odd: all ones down to 1).
    on_each_worker_count(PARAMS, &ANALYSIS, 64 + 64, || levels(u64::MAX));
}

// ----- 7. an entry function with a large local and no spawn site -----

#[prescient::task_program]
mod large_entry_frame {
    use prescient::join;

    /// What `Runtime::run` executes: 2 MiB on its task stack, no spawn.
    pub fn entry(fill: u8) -> u64 {
        let big = std::hint::black_box([fill; 2 << 20]);
        big.iter().map(|&b| u64::from(b)).sum::<u64>() + pair(u64::from(fill))
    }

    pub fn pair(x: u64) -> u64 {
        let (a, b) = join(|| x, || x + 1);
        a + b
    }
}

#[test]
fn an_entry_function_with_a_large_local_and_no_spawn_site() {
    use large_entry_frame::*;
    on_each_worker_count(PARAMS, &ANALYSIS, 3 * (2 << 20) + 7, || entry(3));
}
