//! The `loops` table of `prescient-bench` under its old binary name (an
//! alias until the one benchmark CLI replaces it): see
//! `prescient_benches::tables::loops`.
//!
//! `cargo bench-run loop_table -- [--quick] [--threads LIST] [--reps N] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::loops::{run, Options};

#[derive(Parser)]
#[command(name = "loop_table")]
struct Cli {
    #[command(flatten)]
    options: Options,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(&cli.options) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
