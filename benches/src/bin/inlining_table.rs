//! The `inlining` table under its old binary name: a thin alias of
//! `prescient_benches::tables::inlining` (see there for what it measures).
//!
//! `cargo bench-run inlining_table -- [--quick] [--threads LIST] [--policies LIST] [--programs LIST] [--reps N] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::inlining::{run, Options};

/// The `inlining` table (`prescient-bench inlining`).
#[derive(Parser)]
#[command(
    name = "inlining_table",
    about = "Task inlining policies per spawn site, next to rayon, chili and sequential"
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
