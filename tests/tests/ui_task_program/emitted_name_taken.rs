use prescient_macros::task_program;

#[task_program]
pub mod m {
    pub const PARAMS: u32 = 1;

    pub fn f() -> (u8, u8) {
        prescient::join(|| 1, || 2)
    }
}

fn main() {
    let _ = (m::PARAMS, m::f());
}
