//! The benchmark command line's guards, end to end through the binary:
//! thread counts out of range are refused at parse time (exit 2, no
//! backtrace), oversubscription is said once, a report whose tables fail
//! exits non-zero and names them, a report never overwrites another, a
//! single table writes JSON only where asked (or under cargo's target
//! folder), and `publish` refuses a report measured on a loaded machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_prescient-bench");

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .current_dir(dir)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .expect("prescient-bench runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prescient-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn thread_counts_above_the_runtime_limit_are_refused_at_parse_time() {
    let dir = scratch("limit");
    for table in [
        "loops",
        "par-loops",
        "task-cost",
        "fork-join",
        "dataflow",
        "cf17",
        "report",
    ] {
        for threads in ["5000", "4097", "1,2,4097"] {
            let out = run_in(&dir, &[table, "--test-size", "--threads", threads]);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{table} {threads}: {stderr}");
            assert!(stderr.contains("at most 4096"), "{table}: {stderr}");
            assert!(!stderr.contains("panicked"), "{table}: {stderr}");
        }
    }
    // So are unknown programs, with the names that are known.
    for (table, known) in [
        ("fork-join", "fib, tree1k, tree16m"),
        ("cf17", "known: fib"),
    ] {
        let out = run_in(&dir, &[table, "--only", "nope"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("unknown program `nope`") && stderr.contains(known),
            "{stderr}"
        );
    }
    // The variable is checked as strictly, with the same exit status.
    let out = Command::new(EXE)
        .args(["loops", "--test-size"])
        .env("PRESCIENT_BENCH_THREADS", "5000")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("PRESCIENT_BENCH_THREADS"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn oversubscription_is_said_once() {
    let dir = scratch("oversubscribe");
    let hardware = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = format!("1,{}", hardware + 1);
    let out = run_in(&dir, &["loops", "--test-size", "--threads", &threads]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(&format!("{} hardware thread", hardware)),
        "{}",
        warnings[0]
    );
    // Within the hardware threads: no warning.
    let out = run_in(&dir, &["loops", "--test-size", "--threads", "1"]);
    assert!(!text(&out.stderr).contains("warning:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_whose_tables_fail_exits_nonzero_and_names_them() {
    let dir = scratch("failing");
    // Without its input files, cf17's floorplan cannot run.
    let out = Command::new(EXE)
        .args([
            "report",
            "--test-size",
            "--threads",
            "1",
            "--tables",
            "cf17,loops",
            "--out",
        ])
        .arg(dir.join("out"))
        .env("PRESCIENT_BENCH_DATA", dir.join("no-such-data"))
        .env_remove("PRESCIENT_BENCH_THREADS")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let last = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap();
    assert!(
        last.contains("failed") && last.contains("cf17") && !last.contains("loops"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_never_overwrites_another() {
    let dir = scratch("overwrite");
    let out_dir = dir.join("out");
    let report = |extra: &[&str]| {
        let mut args = vec![
            "report",
            "--test-size",
            "--threads",
            "1",
            "--tables",
            "loops",
        ];
        args.extend_from_slice(extra);
        run_in(&dir, &args)
    };
    let first = report(&["--out", out_dir.to_str().unwrap()]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let written = std::fs::read_to_string(out_dir.join("report.json")).unwrap();
    // A second report into the same folder is refused, and the first stays.
    let second = report(&["--out", out_dir.to_str().unwrap()]);
    assert!(!second.status.success());
    assert!(
        text(&second.stderr).contains("already holds a report"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("report.json")).unwrap(),
        written
    );
    // The report says where it wrote.
    assert!(text(&first.stdout).contains(&out_dir.display().to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_single_table_writes_json_only_where_asked_or_under_the_target_folder() {
    let dir = scratch("json");
    let out = run_in(
        &dir,
        &[
            "fork-join",
            "--test-size",
            "--threads",
            "1",
            "--only",
            "tree1k",
            "--runners",
            "seq",
            "--no-idle",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !dir.join("target").exists(),
        "fork-join wrote into the current directory"
    );
    let json = dir.join("here.json");
    let out = run_in(
        &dir,
        &[
            "cf17",
            "--test-size",
            "--threads",
            "1",
            "--only",
            "fib",
            "--runners",
            "seq",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(json.is_file());
    assert!(
        !dir.join("target").exists(),
        "cf17 wrote into the current directory"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn publish_refuses_a_loaded_report_unless_told() {
    let root = scratch("publish");
    let stored = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/vm-2t/2026-11-26");
    let folder = root.join("results/h/d");
    std::fs::create_dir_all(&folder).unwrap();
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stored.join("report.json")).unwrap())
            .unwrap();
    let threads = report["machine"]["threads"].as_u64().unwrap();
    report["load_average"] = serde_json::json!(format!("{}.5", threads));
    std::fs::write(folder.join("report.json"), report.to_string()).unwrap();
    std::fs::copy(stored.join("report.md"), folder.join("report.md")).unwrap();
    std::fs::write(
        root.join("README.md"),
        "<!-- headline:start -->\n<!-- headline:end -->\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("docs/RESULTS.md"),
        "<!-- report:start -->\n<!-- report:end -->\n",
    )
    .unwrap();
    let publish = |extra: &[&str]| {
        let mut args = vec![
            "publish",
            folder.to_str().unwrap(),
            "--repo",
            root.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run_in(&root, &args)
    };
    let refused = publish(&[]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("load average"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!std::fs::read_to_string(root.join("README.md"))
        .unwrap()
        .contains("load average"));
    let allowed = publish(&["--allow-loaded"]);
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("loaded machine"), "{readme}");
    std::fs::remove_dir_all(&root).unwrap();
}
