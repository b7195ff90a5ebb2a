use prescient::Params;

const P: Params = Params::DEFAULT.with_stack_size(100_000).checked();

fn main() {
    let _ = P;
}
