// A task body cannot keep its borrow beyond the task.
use std::sync::Mutex;

fn main() {
    prescient::dataflow(|df| {
        let a = df.data(vec![1.0f64]);
        let stash: &'static Mutex<Option<&mut Vec<f64>>> = Box::leak(Box::new(Mutex::new(None)));
        df.task(a.inout(), move |a: &mut Vec<f64>| {
            *stash.lock().unwrap() = Some(a);
        });
    });
}
