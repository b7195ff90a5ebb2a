// A task cannot capture a handle (handles are !Send): it could only wait for
// its own scope from inside it.
fn main() {
    prescient::dataflow(|df| {
        let a = df.data(1u32);
        let b = df.data(2u32);
        df.task(b.inout(), move |b: &mut u32| {
            *b += a.into_inner();
        });
    });
}
