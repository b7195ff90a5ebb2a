use prescient_macros::task_program;

#[task_program(stack_size = 100000)]
pub mod a {}

#[task_program(stack_size = 4096)]
pub mod b {}

#[task_program(queue_capacity = 0)]
pub mod c {}

fn main() {
    let _ = (a::PARAMS, b::PARAMS, c::PARAMS);
}
