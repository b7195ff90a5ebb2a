//! The CF'17 suite under every runner: `cargo bench-run cf17 --
//! --quick` (see `--help`, and
//! `prescient_benches::cf17::suite` for the output and its conventions).
//! `--sweep` runs the parameter sweep (`prescient_benches::cf17::sweep`),
//! `--calibrate [DIR]` derives and validates the decision trees from a sweep
//! (`prescient_benches::cf17::calibrate`).

use prescient_benches::cf17::{calibrate, suite, sweep};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("--sweep") => sweep::main(args[1..].to_vec()),
        Some("--sweep-child") => sweep::child_args_main(&args[1..]),
        Some("--calibrate") => calibrate::main(&args[1..]),
        _ => suite::main(args),
    };
    std::process::exit(code);
}
