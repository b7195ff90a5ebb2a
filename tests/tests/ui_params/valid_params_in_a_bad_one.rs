// A valid constant compiles; only the invalid one derived from it is
// reported, also when it is a `static`.
use prescient::tuning::QueuePolicy;
use prescient::Params;

const GOOD: Params = Params::DEFAULT
    .with_queue_policy(QueuePolicy::InsertFrontStealBack)
    .with_queue_capacity(4)
    .with_stack_size(64 * 1024)
    .checked();

static BAD: Params = GOOD.with_stack_size(3 * 64 * 1024).checked();

fn main() {
    let _ = (GOOD, &BAD);
}
