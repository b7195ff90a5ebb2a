// A handle of one scope cannot be named by a task of another scope: each
// scope has its own brand `'df`, and the brand is invariant.
use prescient::dataflow::{Data, Dataflow};

fn submit_elsewhere<'a, 'b>(other_scope: &'a Dataflow<'a, 'static>, handle: &Data<'b, u32>) {
    other_scope.task(handle.inout(), |v: &mut u32| *v += 1);
}

fn main() {
    let _ = submit_elsewhere;
}
