//! The CF'17 suite under every runner: `cargo run --release -p
//! prescient-benches --bin cf17 -- --quick` (see `--help`, and
//! `prescient_benches::cf17::suite` for the output and its conventions).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Other modes dispatch here on their flag before the default mode, e.g.
    // `if args.iter().any(|a| a == "--sweep") { exit(cf17::sweep::main(args)) }`.
    std::process::exit(prescient_benches::cf17::suite::main(args));
}
