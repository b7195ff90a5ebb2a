//! The side-by-side fork-join suite, `prescient-bench fork-join` under its
//! old name: `cargo bench-run suite -- --quick` (see `--help`). A leading
//! `fork-join` word (how the suite runs its children) is accepted and
//! ignored.

use clap::Parser;
use prescient_benches::suite::{self, Options};

#[derive(Parser)]
#[command(name = "suite")]
struct Cli {
    /// The subcommand's name, accepted for the children (`fork-join`).
    #[arg(hide = true, value_parser = [suite::SUBCOMMAND])]
    subcommand: Option<String>,
    #[command(flatten)]
    options: Options,
}

fn main() {
    std::process::exit(suite::run(&Cli::parse().options));
}
