use prescient::tuning::MAX_QUEUE_CAPACITY;
use prescient::Params;

const P: Params = Params::DEFAULT.with_queue_capacity(MAX_QUEUE_CAPACITY + 1).checked();

fn main() {
    let _ = P;
}
