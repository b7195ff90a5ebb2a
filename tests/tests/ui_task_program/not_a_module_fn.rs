use prescient_macros::task_program;

#[task_program]
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn main() {
    let _ = fib(10);
}
