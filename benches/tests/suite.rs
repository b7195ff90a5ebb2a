//! The fork-join suite (`prescient-bench fork-join`) end to
//! end at the test size: every program x runner x thread count through real
//! child processes (`EXE fork-join --child ...`), the Markdown tables on
//! stdout, and the JSON with the shared samples.

use std::process::Command;

#[test]
fn suite_runs_every_configuration_through_child_processes() {
    let dir = std::env::temp_dir().join(format!("prescient-suite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let json = dir.join("fork-join.json");
    let out = Command::new(env!("CARGO_BIN_EXE_prescient-bench"))
        .arg("fork-join")
        .args(["--test-size", "--threads", "1,2", "--json"])
        .arg(&json)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .expect("prescient-bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for heading in [
        "### fork-join: time per run",
        "### fork-join: summary",
        "### fork-join: idle CPU",
    ] {
        assert!(stdout.contains(heading), "{heading}:\n{stdout}");
    }
    assert!(!stdout.contains("FAILED"), "{stdout}");
    assert!(stderr.contains("progress: fork-join: "), "{stderr}");

    let text = std::fs::read_to_string(&json).expect("the JSON is written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the JSON parses");
    assert_eq!(v["table"], "fork-join");
    assert_eq!(v["size"], "test");
    // Per program: seq once, six parallel runners at two thread counts.
    let samples = v["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 3 * (1 + 6 * 2), "{text}");
    for program in ["fib(20)", "tree 2^10", "tree 2^16"] {
        for runner in [
            "sequential",
            "prescient",
            "prescient-never",
            "rayon",
            "chili",
        ] {
            assert!(
                samples
                    .iter()
                    .any(|s| s["program"] == program && s["runner"] == runner),
                "no {program} {runner} sample"
            );
        }
    }
    assert!(samples.iter().all(|s| s["seconds"].as_f64().unwrap() > 0.0));
    assert_eq!(v["idle"].as_array().unwrap().len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fork_join_has_help_rejects_bad_flags_and_runs_a_child() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_prescient-bench"))
            .arg("fork-join")
            .args(args)
            .output()
            .expect("prescient-bench runs")
    };
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--tree-layout"));
    let bad = run(&["--only", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown program `nope`"));
    // A child measures one configuration and prints its RESULT line.
    let child = run(&["--child", "fib", "rayon", "1", "--test-size"]);
    assert!(child.status.success());
    assert!(String::from_utf8_lossy(&child.stdout).starts_with("RESULT program=fib runner=rayon"));
}
