// Only the scope's body submits tasks: a task cannot capture the scope.
fn main() {
    prescient::dataflow(|df| {
        let a = df.data(0u32);
        df.task((), |()| {
            let _ = df.live_tasks();
        });
        drop(a);
    });
}
