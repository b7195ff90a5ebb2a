//! Items and statements under `#[cfg(...)]` are skipped by the analysis: a
//! compiled-out item's types (here Windows-only ones) are never emitted.

use prescient_macros::task_program;

#[task_program]
mod m {
    use prescient::join;

    #[cfg(windows)]
    pub fn w(h: std::os::windows::io::RawHandle) -> usize {
        h as usize
    }

    #[cfg(windows)]
    const HANDLES: std::os::windows::io::RawHandle = std::ptr::null_mut();

    pub struct S;

    impl S {
        #[cfg(windows)]
        pub fn handle(&self, h: std::os::windows::io::RawHandle) {
            let _ = h;
        }
    }

    pub fn f(n: u64) -> u64 {
        #[cfg(windows)]
        let h: std::os::windows::io::RawHandle = std::ptr::null_mut();
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| f(n / 2), || f(n / 4));
        a + b
    }
}

fn main() {
    let _ = m::PARAMS;
    let _ = m::f(3);
    // Used, so that this case also builds warning-free as a test target
    // (clippy denies warnings there; trybuild did not).
    let _ = m::S;
}

// A test target of `prescient-macros` (`Cargo.toml`): this case must compile
// as a crate of its own, and its `main` must return.
#[test]
fn main_returns() {
    main();
}
