use prescient_macros::task_program;

#[task_program(stack_size)]
pub mod a {}

#[task_program(queue_capacity = 8 queue_policy = InsertFrontStealBack)]
pub mod b {}

#[task_program(queue_policy = LIFO)]
pub mod c {}

#[task_program(dependency_buckets = "97")]
pub mod d {}

#[task_program(queue_capacity = 4, queue_capacity = 8)]
pub mod e {}

fn main() {
    let _ = (a::PARAMS, c::PARAMS, d::PARAMS, e::PARAMS);
}
