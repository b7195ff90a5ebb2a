//! The `dataflow` table of `prescient-bench` under its old binary name (an
//! alias until the one benchmark CLI replaces it): see
//! `prescient_benches::tables::dataflow`.
//!
//! `cargo bench-run dataflow_table -- [--quick] [--threads LIST] [--dast LIST] [--reps N] [--only SECTIONS] [--counters] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::dataflow::{run, Options};

// No doc comment: the help's about and long about are `Options`'s.
#[derive(Parser)]
#[command(name = "dataflow_table")]
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
