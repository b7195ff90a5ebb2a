//! `cargo bench -p prescient-benches --bench report [-- FLAGS]`: the whole
//! benchmark report, `prescient-bench report FLAGS` (every flag the same;
//! an argument the report does not take is an error), by default every
//! table within 8 minutes, at the thread counts of
//! `PRESCIENT_BENCH_THREADS` (else all), into `benches/results/<host>/<date>/`.
//!
//! cargo adds `--bench` to a bench's arguments; it is left out. The
//! report's child processes run this same executable with a table's
//! subcommand, which goes to `prescient-bench`'s parser
//! (`prescient_benches::command::bench_command`).
//!
//! Built by `cargo bench`, the binaries get the compiler's default function
//! alignment, which the report's build section records; `cargo bench-run
//! prescient-bench -- report` builds with the 64-byte alignment the
//! committed results use (see `.cargo/config.toml`).

fn main() {
    let code = match prescient_benches::command::bench_command(std::env::args().skip(1)) {
        Ok(cli) => prescient_benches::command::run(cli.command),
        Err(e) => e.exit(),
    };
    std::process::exit(code);
}
