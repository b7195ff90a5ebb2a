//! The CF'17 suite under every runner, `prescient-bench cf17` under its old
//! name: `cargo bench-run cf17 -- --quick` (see `--help`, and
//! `prescient_benches::cf17::suite` for the output and its conventions).
//! `--sweep` runs the parameter sweep, `--calibrate [DIR]` derives and
//! validates the decision trees from a sweep. A leading `cf17` word (how the
//! suite runs its children) is accepted and ignored.

use clap::Parser;
use prescient_benches::cf17::suite::{self, Options};

#[derive(Parser)]
#[command(name = "cf17")]
struct Cli {
    /// The subcommand's name, accepted for the children (`cf17`).
    #[arg(hide = true, value_parser = [suite::SUBCOMMAND])]
    subcommand: Option<String>,
    #[command(flatten)]
    options: Options,
}

fn main() {
    std::process::exit(suite::run(&Cli::parse().options));
}
