//! The tables of `prescient-bench`, one module per subcommand: each has an
//! `Options` (its `clap` flags, the shared [`crate::cli::CommonArgs`]
//! flattened in) and a `run` that prints the table as Markdown on stdout and
//! writes its JSON (the shared [`crate::samples::TableHead`] and its own
//! data) to `--json`.

pub mod annotated;
pub mod inlining;
pub mod stack_memory;
