//! `prescient-bench`: every benchmark table of Prescient, and `report`,
//! which runs them all (see `prescient-bench --help`, and
//! `prescient_benches::command`).

fn main() {
    std::process::exit(prescient_benches::command::main());
}
