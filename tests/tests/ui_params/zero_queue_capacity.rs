use prescient::tuning::QueuePolicy;
use prescient::Params;

const P: Params = Params::DEFAULT
    .with_queue_policy(QueuePolicy::InsertFrontStealBack)
    .with_queue_capacity(0)
    .checked();

fn main() {
    let _ = P;
}
