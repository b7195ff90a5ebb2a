//! The `trace-overhead` table of `prescient-bench` under its old binary
//! name (an alias until the one benchmark CLI replaces it): see
//! `prescient_benches::tables::trace_overhead`.
//!
//! `cargo bench-run trace_overhead --features trace -- [--quick] [--threads LIST] [--reps N] [--fib N] [--big N] [--json FILE]`

use clap::Parser;
use prescient_benches::tables::trace_overhead::{run, Options};

// No doc comment: the help's about and long about are `Options`'s.
#[derive(Parser)]
#[command(name = "trace_overhead")]
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
