//! The tables of `prescient-bench`, one module per subcommand: each has its
//! clap `Options` (the shared [`crate::cli::CommonArgs`] flattened in, then
//! its own flags) and a `run` that prints the table as Markdown on stdout,
//! says what it measures on stderr ([`crate::cli::progress`]) and, with
//! `--json FILE`, writes its results with the shared `samples` list
//! ([`crate::samples`]). Fork-join and CF'17 measure every configuration
//! in a child process of its own ([`crate::harness::table`]); every table
//! writes its text with [`crate::harness::write`].

pub mod annotated;
pub mod cf17;
pub mod dataflow;
pub mod fork_join;
pub mod inlining;
pub mod loops;
pub mod mpi_heat;
pub mod par_loops;
pub mod stack_memory;
pub mod task_cost;
#[cfg(feature = "trace")]
pub mod trace_overhead;

/// Reads `text` as the JSON of table `table` into the table's own type
/// (every field it knows) and writes that back: how the tests check that
/// what a table writes, and every stored report, still loads.
///
/// # Errors
/// An unknown table, or JSON that does not load.
pub fn reload(table: &str, text: &str) -> Result<serde_json::Value, String> {
    fn via<T: serde::de::DeserializeOwned + serde::Serialize>(
        text: &str,
    ) -> Result<serde_json::Value, String> {
        let value: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
        serde_json::to_value(value).map_err(|e| e.to_string())
    }
    match table {
        "fork-join" => via::<fork_join::report::ForkJoinJson>(text),
        "cf17" => via::<cf17::report::Cf17Json>(text),
        "dataflow" => via::<dataflow::DataflowJson>(text),
        "loops" => via::<loops::LoopsJson>(text),
        "par-loops" => via::<par_loops::ParLoopsJson>(text),
        "mpi-heat" => via::<mpi_heat::MpiHeatJson>(text),
        "task-cost" => via::<task_cost::TaskCostJson>(text),
        "annotated" => via::<annotated::AnnotatedJson>(text),
        "inlining" => via::<inlining::InliningJson>(text),
        #[cfg(feature = "trace")]
        "trace-overhead" => via::<trace_overhead::TraceOverheadJson>(text),
        // Without the profiler built in, its table's shared head.
        #[cfg(not(feature = "trace"))]
        "trace-overhead" => via::<crate::samples::TableHead>(text),
        "stack-memory" => via::<stack_memory::StackMemoryJson>(text),
        other => Err(format!("no table `{other}`")),
    }
}
