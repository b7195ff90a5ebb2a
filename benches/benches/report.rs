//! `cargo bench -p prescient-benches --bench report`: the whole benchmark
//! report (`prescient-bench report`) with its defaults — every table within
//! 8 minutes, at the thread counts of `PRESCIENT_BENCH_THREADS` (else all),
//! into `benches/results/<host>/<date>/`.
//!
//! cargo runs a bench with its own arguments (`--bench`, a filter); those
//! start the report. The report's child processes run this same executable
//! with a table's subcommand, which goes to `prescient-bench`'s parser.
//!
//! Built by `cargo bench`, the binaries get the compiler's default function
//! alignment, which the report's build section records; `cargo bench-run
//! prescient-bench -- report` builds with the 64-byte alignment the
//! committed results use (see `.cargo/config.toml`).

use clap::Parser;
use prescient_benches::command::{self, Cli};

fn main() {
    let first = std::env::args().nth(1).unwrap_or_default();
    let code = if command::subcommand_names().contains(&first) {
        command::main()
    } else {
        let cli = Cli::parse_from(["prescient-bench", "report"]);
        command::run(cli.command)
    };
    std::process::exit(code);
}
