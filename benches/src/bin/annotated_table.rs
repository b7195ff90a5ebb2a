//! The `annotated` table under its old binary name: a thin alias of
//! `prescient_benches::tables::annotated` (see there for what it measures).
//!
//! `cargo bench-run annotated_table -- [--quick] [--threads LIST] [--reps N] [--only PROGRAMS] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::annotated::{run, Options};

/// The `annotated` table (`prescient-bench annotated`).
#[derive(Parser)]
#[command(
    name = "annotated_table",
    about = "The #[task_program] programs under runtime configurations"
)]
struct Cli {
    #[command(flatten)]
    options: Options,
}

fn main() {
    if let Err(e) = run(&Cli::parse().options) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
