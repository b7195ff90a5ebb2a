use prescient_macros::task_program;

#[task_program]
pub struct Program {
    pub depth: u32,
}

fn main() {
    // The struct is still emitted: no follow-on error here.
    let _ = Program { depth: 1 };
}
