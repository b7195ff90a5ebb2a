//! A module that forbids unused imports and dead code compiles: the
//! rewritten `join`/`spawn`/`for_range` calls keep the user's imports used,
//! and the emitted items need no `#[allow(...)]` (which `forbid` rejects).

#![deny(warnings)]

use prescient_macros::task_program;

#[task_program]
mod imports {
    #![forbid(unused_imports, dead_code)]

    use prescient as p;
    use prescient::for_range as range;
    use prescient::{join, spawn as start};

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| fib(n - 1), || self::fib(n - 2));
        a + b
    }

    pub fn both(n: u64) -> u64 {
        let h = start(move || n + 1);
        let (a, b) = p::join(|| 1, || 2);
        range(0..4, 1, |_| ());
        h.join() + a + b
    }
}

#[task_program]
mod glob {
    #![forbid(unused)]

    use prescient::*;

    pub fn sum(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| sum(n / 2), || sum(n - n / 2));
        a + b
    }
}

// Calls in nested modules, through their own imports and through the
// enclosing module's: every import stays used.
#[task_program]
mod nested {
    #![forbid(unused_imports, dead_code)]

    use prescient::join;

    pub fn top() -> u8 {
        join(|| 1, inner::below).0
    }

    pub mod inner {
        use prescient::spawn;

        pub fn below() -> u8 {
            let h = spawn(|| 2);
            super::join(|| 3, || h.join()).1
        }
    }
}

// Never read: its `PARAMS` and `ANALYSIS` are not dead code either.
#[task_program]
mod unread {
    #![forbid(dead_code)]

    use prescient::join;

    pub fn pair() -> (u8, u8) {
        join(|| 1, || 2)
    }
}

fn main() {
    assert_eq!(imports::fib(10), 55);
    assert_eq!(imports::both(1), 5);
    assert_eq!(glob::sum(8), 8);
    assert_eq!(unread::pair(), (1, 2));
    assert_eq!(nested::top(), 1);
    assert_eq!(nested::inner::below(), 2);
    let _ = (imports::PARAMS, glob::ANALYSIS.rho);
}

// A test target of `prescient-macros` (`Cargo.toml`): this case must compile
// as a crate of its own, and its `main` must return.
#[test]
fn main_returns() {
    main();
}
