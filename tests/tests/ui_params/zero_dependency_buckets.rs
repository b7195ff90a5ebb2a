use prescient::Params;

const P: Params = Params::DEFAULT.with_dependency_buckets(0).checked();

fn main() {
    let _ = P;
}
