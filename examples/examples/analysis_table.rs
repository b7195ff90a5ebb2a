//! What `#[task_program]` found in every annotated benchmark program, as a
//! table in the style of CF'17 Table 3 (Thoman, Zangerl, Fahringer): per
//! program the parallel structure ρ (recursive parallel paths) and λ (spawn
//! sites in loops), the task effort, the stack estimate, and the runtime
//! parameters the paper's decision trees chose from them.
//!
//! Run: `cargo run --release -p prescient-examples --example analysis_table`
//! (add `-- --verbose` for each program's full report: its task contexts and
//! spawn-site table).
//!
//! What to look at: the two right-hand columns, what CF'17's trees and the
//! calibrated trees (`PARAMS`) choose for each program from its ρ, λ and
//! effort.
//!
//! The rows are `prescient_benches::annotated::PROGRAMS`, every
//! `#[task_program]` module of the benchmark library. Stack figures include
//! the runtime's measured per-join frame cost, which differs between the debug
//! and the release profile, so the stack columns depend on the profile.

use prescient::analysis::{ProgramAnalysis, Trees};
use prescient::Params;
use prescient_benches::annotated::PROGRAMS;

/// The chosen parameters in one cell: `policy/capacity/buckets/committed
/// stack` (`-` for no commitment).
fn choice(p: &Params) -> String {
    let committed = match p.committed_stack_size {
        0 => "-".to_string(),
        bytes => human_bytes(bytes),
    };
    format!(
        "{}/{}/{}/{}",
        p.queue_policy.short_name(),
        p.queue_capacity,
        p.dependency_buckets,
        committed,
    )
}

/// One table row: the program's name, analysis and both trees' choices.
fn row(name: &str, a: &ProgramAnalysis) -> String {
    format!(
        "{:<10} {:>4} {:>5} {:>3} {:>3} {:>12} {:>9}  {:<24} {:<24}",
        name,
        a.contexts.len(),
        a.sites.len(),
        a.rho,
        a.lambda,
        a.effort,
        a.stack_estimate,
        choice(&a.params(Trees::Cf17)),
        choice(&a.params(Trees::Calibrated)),
    )
}

/// `131072` as `128 KiB`, `8388608` as `8 MiB`.
fn human_bytes(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

fn main() {
    let verbose = std::env::args()
        .skip(1)
        .any(|a| a == "--verbose" || a == "-v");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "#[task_program] analysis of the annotated benchmark programs \
         (CF'17 Table 3 style; {profile} profile)"
    );
    println!();
    let header = format!(
        "{:<10} {:>4} {:>5} {:>3} {:>3} {:>12} {:>9}  {:<24} {:<24}",
        "program",
        "ctx",
        "sites",
        "ρ",
        "λ",
        "effort",
        "stack B",
        "CF'17 trees",
        "calibrated trees (PARAMS)",
    );
    println!("{header}");
    println!("{}", "-".repeat(header.chars().count()));
    for program in PROGRAMS {
        assert_eq!(program.params, program.analysis.params(Trees::DEFAULT));
        println!("{}", row(program.name, &program.analysis));
    }
    println!();
    println!("ρ, λ: minimum over the task contexts; effort: their mean, in built-in operations;");
    println!(
        "stack B: the largest context estimate; rounded up to 4 KiB pages it is the committed"
    );
    println!("stack (pre-faulted, kept by a recycled stack), none (-) from 8 MiB up (unbounded);");
    println!("the reserve, the limit, is Params::stack_size (8 MiB) in every row.");
    println!("Each choice reads policy/capacity/buckets/committed stack.");
    println!("CF'17 trees (§3.3.4): policy PF if ρ > 5 or 1M < effort <= 1T, else DEF;");
    println!("capacity 128 if ρ = 0 and λ > 0, else 8 if 1M < effort <= 1T, else 4;");
    println!("buckets 256019 if ρ > 0, else 97; stack the estimate.");
    println!(
        "Calibrated trees: {}",
        prescient::analysis::calibrated::SUMMARY
    );
    println!();
    for program in PROGRAMS {
        println!("{:<10} {}", program.name, program.structure);
    }
    if verbose {
        for program in PROGRAMS {
            println!();
            print!("{}", program.analysis);
        }
    }
    println!();
    println!(
        "What to look at: the two right-hand columns, what each set of trees chose \
         from the program's rho, lambda and effort."
    );
}
