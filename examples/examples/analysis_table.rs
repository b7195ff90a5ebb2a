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
//! The rows are `prescient_benches::annotated::PROGRAMS`, every
//! `#[task_program]` module of the benchmark library. Stack figures include
//! the runtime's measured per-join frame cost, which differs between the debug
//! and the release profile, so the stack columns depend on the profile.

use prescient::analysis::ProgramAnalysis;
use prescient::Params;
use prescient_benches::annotated::PROGRAMS;

/// One table row: the program's name, analysis and chosen parameters.
fn row(name: &str, a: &ProgramAnalysis, p: &Params) -> String {
    format!(
        "{:<10} {:>4} {:>5} {:>3} {:>3} {:>12} {:>9} {:>6} {:>8} {:>8} {:>10}",
        name,
        a.contexts.len(),
        a.sites.len(),
        a.rho,
        a.lambda,
        a.effort,
        a.stack_estimate,
        p.queue_policy.short_name(),
        p.queue_capacity,
        p.dependency_buckets,
        human_bytes(p.stack_size),
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
        "{:<10} {:>4} {:>5} {:>3} {:>3} {:>12} {:>9} {:>6} {:>8} {:>8} {:>10}",
        "program",
        "ctx",
        "sites",
        "ρ",
        "λ",
        "effort",
        "stack B",
        "policy",
        "capacity",
        "buckets",
        "stack size"
    );
    println!("{header}");
    println!("{}", "-".repeat(header.chars().count()));
    for program in PROGRAMS {
        println!("{}", row(program.name, &program.analysis, &program.params));
    }
    println!();
    println!("ρ, λ: minimum over the task contexts; effort: their mean, in built-in operations;");
    println!(
        "stack B: the largest context estimate, rounded up to a power of two as the stack size."
    );
    println!("Decision trees (CF'17 §3.3.4): policy PF if ρ > 5 or 1M < effort <= 1T, else DEF;");
    println!("capacity 128 if ρ = 0 and λ > 0, else 8 if 1M < effort <= 1T, else 4;");
    println!("buckets 256019 if ρ > 0, else 97.");
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
}
