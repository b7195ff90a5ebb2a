//! The `stack-memory` table under its old binary name: a thin alias of
//! `prescient_benches::tables::stack_memory` (see there for what it
//! measures; it runs this binary again as its child processes).
//!
//! `cargo bench-run stack_memory -- [--quick] [--threads LIST] [--tasks LIST] [--deep BYTES] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::stack_memory::{run, Options};

/// The `stack-memory` table (`prescient-bench stack-memory`).
#[derive(Parser)]
#[command(
    name = "stack_memory",
    about = "What task stacks cost in memory: suspended tasks, the pool after a deep phase, OS threads"
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
