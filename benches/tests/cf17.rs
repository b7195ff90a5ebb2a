//! The `cf17` binary end to end: the parent runs fib at the test size with
//! one and two threads through real child processes (the binary re-spawning
//! itself), prints the table and summary, and writes the JSON and the plots.

use std::process::Command;

#[test]
fn cf17_runs_fib_through_child_processes() {
    let dir = std::env::temp_dir().join(format!("prescient-cf17-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let json = dir.join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_cf17"))
        .args([
            "--size",
            "test",
            "--threads",
            "1,2",
            "--reps",
            "2",
            "--only",
            "fib",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--plots")
        .arg(&dir)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .expect("the cf17 binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");

    // The table: fib's block, a line per runner and thread count.
    assert!(stdout.contains("fib (n="), "{stdout}");
    for runner in ["seq", "default", "tuned", "cf17", "rayon", "chili"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.split_whitespace().nth(1) == Some(runner)),
            "no {runner} line:\n{stdout}"
        );
    }
    assert!(!stdout.contains("FAILED"), "{stdout}");
    assert!(stdout.contains("tuned/default") && stdout.contains("T_Y / T_X"));

    // The JSON: one seq row and five parallel runners at two thread counts.
    let text = std::fs::read_to_string(&json).expect("the JSON is written");
    assert_eq!(text.matches("\"ok\": true").count(), 11, "{text}");
    assert!(text.contains("\"size\": \"test\""));
    assert!(text.contains("\"runner\": \"tuned\", \"threads\": 2, \"params\": \""));
    assert!(text.contains("\"steals\": "));

    for file in ["speedup.svg", "tuned_vs_default.svg", "memory.svg"] {
        let svg = std::fs::read_to_string(dir.join(file)).expect("the plot is written");
        assert!(svg.starts_with("<svg"), "{file}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cf17_reports_bad_arguments_and_help() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cf17"))
            .args(args)
            .output()
            .expect("the cf17 binary runs")
    };
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--plots DIR"));
    let bad = run(&["--only", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown program `nope`"));
}
