//! `prescient-bench cf17` end to end: the parent runs fib at the test size with
//! one and two threads through real child processes (the binary re-spawning
//! itself), prints the table and summary, and writes the JSON and the plots.

use std::process::Command;

#[test]
fn cf17_runs_fib_through_child_processes() {
    let dir = std::env::temp_dir().join(format!("prescient-cf17-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let json = dir.join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_prescient-bench"))
        .arg("cf17")
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
        .expect("prescient-bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");

    // The table: fib's block (a Markdown table), a row per runner and
    // thread count.
    assert!(stdout.contains("### cf17: fib (n="), "{stdout}");
    for runner in ["seq", "default", "tuned", "cf17", "rayon", "chili"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.split('|').nth(2).map(str::trim) == Some(runner)),
            "no {runner} row:\n{stdout}"
        );
    }
    assert!(!stdout.contains("FAILED"), "{stdout}");
    assert!(stdout.contains("tuned/default") && stdout.contains("T_Y / T_X"));

    // The JSON: one seq row and five parallel runners at two thread counts.
    let text = std::fs::read_to_string(&json).expect("the JSON is written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the JSON parses");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 11, "{text}");
    assert!(results.iter().all(|r| r["ok"] == true), "{text}");
    assert_eq!(v["table"], "cf17");
    assert_eq!(v["size"], "test");
    assert_eq!(v["input_size"], "test");
    let tuned2 = results
        .iter()
        .find(|r| r["runner"] == "tuned" && r["threads"] == 2)
        .unwrap();
    assert!(tuned2["params"].is_string());
    assert!(tuned2["counters"]["steals"].is_u64());
    // The shared samples: every row, tuned as `prescient`.
    let samples = v["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 11);
    assert!(samples
        .iter()
        .any(|s| s["runner"] == "prescient" && s["threads"] == 2));
    assert!(samples.iter().any(|s| s["runner"] == "prescient-default"));

    for file in ["speedup.svg", "tuned_vs_default.svg", "memory.svg"] {
        let svg = std::fs::read_to_string(dir.join(file)).expect("the plot is written");
        assert!(svg.starts_with("<svg"), "{file}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cf17_reports_bad_arguments_and_help() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_prescient-bench"))
            .arg("cf17")
            .args(args)
            .output()
            .expect("prescient-bench runs")
    };
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--plots <DIR>"));
    let bad = run(&["--only", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown program `nope`"));
    let calibrate = run(&["--calibrate"]);
    assert!(calibrate.status.success());
}
