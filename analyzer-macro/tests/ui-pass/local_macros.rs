//! Invocations of the module's own `macro_rules!` macros are analysed as
//! their expansions; the sizes of what an expansion declares are emitted
//! only where they resolve at module level, so every form below compiles.

use prescient_macros::task_program;

#[task_program]
pub mod m {
    use prescient::join;

    pub struct Grid {
        pub cells: Vec<u64>,
    }

    pub fn pair<A, B>(a: A, b: B) -> (u64, u64)
    where
        A: FnOnce() -> u64 + Send,
        B: FnOnce() -> u64 + Send,
    {
        join(a, b)
    }

    // Types written in the body and passed in, a module type, `$crate`.
    macro_rules! leaf {
        ($t:ty, $n:expr) => {{
            let buf: [$t; 4] = [1; 4];
            let grid: Grid = Grid { cells: vec![$n] };
            let total: $crate::m::Count = buf.len() as u64 + grid.cells[0];
            total
        }};
    }

    // A type local to the expansion: not emitted.
    macro_rules! local_type {
        ($n:expr) => {{
            struct Local(u64);
            let l: Local = Local($n);
            l.0
        }};
    }

    macro_rules! both {
        ($a:expr, $b:expr $(,)?) => {
            pair(|| $a, || $b)
        };
    }

    pub type Count = u64;

    pub fn sum(n: u64) -> u64 {
        if n < 2 {
            return leaf!(u8, n) + local_type!(n);
        }
        let (a, b) = both!(sum(n / 2), sum(n / 2),);
        a + b
    }

    // A generic type passed in: not emitted either.
    pub fn generic<T: Default + Copy + Send>(n: u64) -> u64 {
        macro_rules! make {
            ($t:ty) => {{
                let x: $t = <$t>::default();
                let y: [$t; 2] = [x, x];
                y.len() as u64
            }};
        }
        let (a, b) = join(|| make!(T), || make!(u32));
        a + b + n
    }

    // Recursion through a function pointer in a static table.
    static TABLE: [fn(u64) -> u64; 1] = [walk];

    pub fn walk(n: u64) -> u64 {
        if n == 0 {
            return 1;
        }
        let (a, b) = join(|| TABLE[0](n - 1), || (TABLE[0])(n - 1));
        a + b
    }
}

fn main() {
    // leaf: 4 + 1 = 5, local_type: 1 → 6 per leaf, 8 leaves.
    assert_eq!(m::sum(8), 48);
    assert_eq!(m::generic::<u8>(1), 5);
    assert_eq!(m::walk(3), 8);
    assert!(m::ANALYSIS.contexts.iter().all(|c| c.stack > 0));
    let _ = m::PARAMS;
}

// A test target of `prescient-macros` (`Cargo.toml`): this case must compile
// as a crate of its own, and its `main` must return.
#[test]
fn main_returns() {
    main();
}
