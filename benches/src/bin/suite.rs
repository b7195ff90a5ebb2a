//! The side-by-side benchmark suite: `cargo run --release -p
//! prescient-benches --bin suite -- --quick` (see `--help`).

fn main() {
    std::process::exit(prescient_benches::suite::main(std::env::args().skip(1)));
}
