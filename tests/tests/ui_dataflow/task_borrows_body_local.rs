// A task may borrow what outlives the scope, not a local of the body (the
// task may run after the body returned).
fn main() {
    prescient::dataflow(|df| {
        let local = vec![1u32, 2, 3];
        let a = df.data(0u32);
        df.task(a.out(), |a: &mut u32| *a = local.len() as u32);
    });
}
