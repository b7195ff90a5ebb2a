//! The side-by-side benchmark suite: `cargo bench-run suite --
//! --quick` (see `--help`).

fn main() {
    std::process::exit(prescient_benches::suite::main(std::env::args().skip(1)));
}
