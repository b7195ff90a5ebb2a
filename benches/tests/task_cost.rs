//! `prescient-bench task-cost` end to end at its test size: the JSON has a
//! per-task sample of every form in both shapes at every capacity, and
//! nqueens' sequential and Prescient runs at each thread count.

use std::process::Command;

use prescient_benches::samples::{PRESCIENT, SEQUENTIAL};
use prescient_benches::tables::task_cost::{TaskCostJson, CAPACITIES, INLINERS, TABLE};

const EXE: &str = env!("CARGO_BIN_EXE_prescient-bench");

#[test]
fn the_json_has_every_form_at_every_capacity() {
    let json =
        std::env::temp_dir().join(format!("prescient-task-cost-{}.json", std::process::id()));
    let output = Command::new(EXE)
        .args([TABLE, "--test-size", "--threads", "1,2", "--json"])
        .arg(&json)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("| form  | shape |") && stdout.contains("nqueens("));

    let text = std::fs::read_to_string(&json).unwrap();
    std::fs::remove_file(&json).unwrap();
    let table: TaskCostJson = serde_json::from_str(&text).unwrap();
    assert_eq!(table.head.table, TABLE);
    assert_eq!(table.head.threads, [1, 2]);
    let samples = &table.head.samples;
    for form in ["join", "scope", "group", "spawn"] {
        for shape in ["loop", "tree"] {
            for (capacity, suffix) in CAPACITIES
                .into_iter()
                .flat_map(|c| [(c, ""), (c, " never")])
            {
                let program = format!("task-cost {form} {shape} c{capacity}{suffix}");
                let sample = samples
                    .iter()
                    .find(|s| s.program == program)
                    .unwrap_or_else(|| panic!("no sample of {program}"));
                assert!(sample.per_task && sample.threads == 1, "{sample:?}");
                assert_eq!(sample.runner, PRESCIENT);
                assert!(sample.seconds.is_finite());
                let row = table
                    .rows
                    .iter()
                    .find(|r| r.program == program)
                    .unwrap_or_else(|| panic!("no row of {program}"));
                assert!(row.task_ns > 0.0 && row.plain_ns > 0.0, "{row:?}");
                assert!(
                    row.deferred_per_task + row.inlined_per_task <= 1.0 + 1e-9,
                    "{row:?}"
                );
            }
        }
    }
    assert_eq!(table.rows.len(), 4 * 2 * CAPACITIES.len() * INLINERS.len());

    // nqueens: the sequential program, and Prescient at the default
    // capacity and at 128 at each thread count.
    let nqueens: Vec<_> = samples.iter().filter(|s| !s.per_task).collect();
    assert!(nqueens.iter().all(|s| s.program == "nqueens(8)"));
    assert!(nqueens
        .iter()
        .any(|s| s.runner == SEQUENTIAL && s.threads == 1));
    for threads in [1, 2] {
        for runner in [PRESCIENT, "prescient-c128"] {
            assert!(
                nqueens
                    .iter()
                    .any(|s| s.runner == runner && s.threads == threads && s.seconds > 0.0),
                "no nqueens run of {runner} at {threads} threads"
            );
        }
    }
}
