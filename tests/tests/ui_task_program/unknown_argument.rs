use prescient_macros::task_program;

#[task_program(stack = 65536)]
pub mod fib {
    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = prescient::join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
}

fn main() {
    // The module and its analysis are still emitted.
    let _ = (fib::PARAMS, fib::fib(10));
}
