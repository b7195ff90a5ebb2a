use prescient::{Params, MAX_QUEUE_CAPACITY};

const P: Params = Params::DEFAULT.with_queue_capacity(MAX_QUEUE_CAPACITY + 1).checked();

fn main() {
    let _ = P;
}
