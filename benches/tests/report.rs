//! The report end to end: `prescient-bench report` at test sizes writes its
//! folder with every table, the plots and the JSON (each table's loads into
//! its own type and writes back the same), and `publish` puts it into a
//! repository's README and results page. The tables' own checks ride on
//! that run: fork-join's and cf17's children, task-cost's forms.

use std::path::{Path, PathBuf};
use std::process::Command;

use prescient_benches::report::plan::TABLES;
use prescient_benches::report::{read_samples, ReportJson};

const EXE: &str = env!("CARGO_BIN_EXE_prescient-bench");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "prescient-report-test-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_report_writes_every_table_plots_and_json() {
    let root = scratch("full");
    let out = root.join("results/test-host/2026-01-01");
    let status = Command::new(EXE)
        .args([
            "report",
            "--test-size",
            "--threads",
            "1,2",
            "--budget",
            "10m",
            "--out",
        ])
        .arg(&out)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .status()
        .unwrap();
    assert!(status.success());

    let report: ReportJson = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    assert_eq!(report.threads, [1, 2]);
    let markdown = read(&out.join("report.md"));
    for spec in &TABLES {
        let run = report
            .tables
            .iter()
            .find(|run| run.name == spec.name)
            .unwrap_or_else(|| panic!("{} is missing from report.json", spec.name));
        assert!(
            markdown.contains(&format!("## {}\n", spec.name)),
            "{} has no section",
            spec.name
        );
        if spec.needs_trace && !cfg!(feature = "trace") {
            // Without a trace build beside it, the profiler's table is
            // skipped with a reason, not run.
            assert!(matches!(
                run.status,
                prescient_benches::harness::child::Status::Skipped(_)
            ));
            continue;
        }
        if spec.needs_mpi {
            // The MPI table runs only where the `heat_mpi` example lies
            // beside the binary and `mpirun` is installed; otherwise it is
            // skipped with that reason.
            if let Some(why) = prescient_benches::tables::mpi_heat::unavailable(Path::new(EXE)) {
                assert_eq!(
                    run.status,
                    prescient_benches::harness::child::Status::Skipped(why)
                );
                continue;
            }
        }
        assert_eq!(
            run.status,
            prescient_benches::harness::child::Status::Done,
            "{}: {:?}",
            spec.name,
            run
        );
        assert_eq!(run.size.as_deref(), Some("test"));
        let json = out.join(run.json_file.as_ref().expect("a JSON file"));
        let value: serde_json::Value = serde_json::from_str(&read(&json)).unwrap();
        assert_eq!(value["table"], spec.name);
        let reloaded = prescient_benches::tables::reload(spec.name, &read(&json));
        assert_eq!(reloaded.as_ref(), Ok(&value), "{}", spec.name);
        // The table's own text, as report.md shows it.
        let section = markdown
            .split(&format!("\n## {}\n", spec.name))
            .nth(1)
            .unwrap();
        let section = section.split("\n## ").next().unwrap();
        assert!(!section.contains("FAILED"), "{}: {section}", spec.name);
        table_checks(spec.name, &value, section);
        if spec.name != "stack-memory" {
            assert!(
                !read_samples(&json).is_empty(),
                "{} wrote no samples",
                spec.name
            );
        }
    }
    // The headline has the fork-join and dataflow programs, with rayon.
    assert!(report
        .headline
        .iter()
        .any(|row| row.table == "fork-join" && row.rayon.is_some()));
    assert!(report.headline.iter().any(|row| row.table == "dataflow"));
    assert!(markdown.contains("## Headline") && markdown.contains("geometric mean"));
    for plot in [
        "fork-join-speedup.svg",
        "dataflow-speedup.svg",
        "dataflow-task-cost.svg",
        "tuned-vs-default.svg",
    ] {
        let svg = read(&out.join(plot));
        assert!(svg.starts_with("<svg"), "{plot}");
        assert!(
            markdown.contains(&format!("]({plot})")),
            "report.md does not show {plot}"
        );
    }

    // publish: the headline into a README, the report into docs/RESULTS.md.
    std::fs::write(
        root.join("README.md"),
        "# R\n<!-- headline:start -->\nold\n<!-- headline:end -->\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("docs/RESULTS.md"),
        "# Results\n<!-- report:start -->\n<!-- report:end -->\n",
    )
    .unwrap();
    let status = Command::new(EXE)
        .arg("publish")
        .arg(&out)
        .arg("--repo")
        .arg(&root)
        // The test machine may well be loaded; the refusal has its own test.
        .arg("--allow-loaded")
        .status()
        .unwrap();
    assert!(status.success());
    let readme = read(&root.join("README.md"));
    assert!(
        readme.contains("test-host") && readme.contains("| fork-join |") && !readme.contains("old")
    );
    let results = read(&root.join("docs/RESULTS.md"));
    assert!(results.contains("](../results/test-host/2026-01-01/fork-join-speedup.svg)"));
    std::fs::remove_dir_all(&root).unwrap();
}

/// What a table's JSON and text at the test size (threads 1 and 2) must
/// hold beyond the shared head.
fn table_checks(table: &str, v: &serde_json::Value, text: &str) {
    let samples = v["samples"].as_array().unwrap();
    let has = |program: &str, runner: &str, threads: u64| {
        samples
            .iter()
            .any(|s| s["program"] == program && s["runner"] == runner && s["threads"] == threads)
    };
    match table {
        "fork-join" => {
            for heading in ["time per run", "summary", "idle CPU"] {
                assert!(
                    text.contains(&format!("### fork-join: {heading}")),
                    "{text}"
                );
            }
            // Per program: seq once, six parallel runners and each peer
            // that ran at two counts; the idle CPU of three and the peers.
            let peers = v["peers"]
                .as_array()
                .map_or(0, |n| n.iter().filter(|n| n["skipped"].is_null()).count());
            assert_eq!(samples.len(), 3 * (1 + (6 + peers) * 2), "{v}");
            for program in ["fib(20)", "tree 2^10", "tree 2^16"] {
                for runner in ["prescient", "prescient-never", "rayon", "chili"] {
                    assert!(has(program, runner, 2), "{program} {runner}");
                }
                assert!(has(program, "sequential", 1), "{program}");
            }
            assert_eq!(v["idle"].as_array().unwrap().len(), 3 + peers);
        }
        "cf17" => {
            // fib at 1 and 2 threads, every runner, through child processes.
            assert!(
                text.contains("### cf17: fib (n=") && text.contains("T_Y / T_X"),
                "{text}"
            );
            let fib: Vec<_> = v["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["program"] == "fib")
                .collect();
            let peers = v["peers"]
                .as_array()
                .map_or(0, |n| n.iter().filter(|n| n["skipped"].is_null()).count());
            assert_eq!(fib.len(), 1 + (5 + peers) * 2, "{v}");
            let tuned2 = fib
                .iter()
                .find(|r| r["runner"] == "tuned" && r["threads"] == 2)
                .unwrap();
            assert!(tuned2["params"].is_string() && tuned2["counters"]["steals"].is_u64());
            for runner in ["prescient", "prescient-default", "prescient-cf17", "chili"] {
                assert!(
                    samples
                        .iter()
                        .any(|s| s["runner"] == runner && s["threads"] == 2),
                    "{runner}"
                );
            }
        }
        "task-cost" => {
            use prescient_benches::tables::task_cost::{CAPACITIES, INLINERS};
            assert!(text.contains("| form  | shape |") && text.contains("nqueens("));
            let rows = v["rows"].as_array().unwrap();
            assert_eq!(rows.len(), 4 * 2 * CAPACITIES.len() * INLINERS.len());
            for form in ["join", "scope", "group", "spawn"] {
                for shape in ["loop", "tree"] {
                    for capacity in CAPACITIES {
                        for suffix in ["", " never"] {
                            let program = format!("task-cost {form} {shape} c{capacity}{suffix}");
                            let sample = samples.iter().find(|s| s["program"] == program.as_str());
                            let sample = sample.unwrap_or_else(|| panic!("no sample of {program}"));
                            assert!(sample["per_task"] == true && sample["runner"] == "prescient");
                            let row = rows
                                .iter()
                                .find(|r| r["program"] == program.as_str())
                                .unwrap();
                            assert!(row["task_ns"].as_f64() > Some(0.0), "{row}");
                        }
                    }
                }
            }
            for threads in [1, 2] {
                assert!(
                    has("nqueens(8)", "prescient", threads)
                        && has("nqueens(8)", "prescient-c128", threads)
                );
            }
            assert!(has("nqueens(8)", "sequential", 1));
        }
        _ => {}
    }
}

#[test]
fn a_bad_budget_or_table_is_a_clear_error() {
    let output = Command::new(EXE)
        .args(["report", "--budget", "5x"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown unit"));
    let out = scratch("bad-table");
    let output = Command::new(EXE)
        .args(["report", "--tables", "nope", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown table `nope`"));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn competing_reaches_fork_join_and_dataflow_only() {
    let out = scratch("competing");
    let status = Command::new(EXE)
        .args([
            "report",
            "--test-size",
            "--threads",
            "1",
            "--tables",
            "fork-join,dataflow,loops",
            "--competing",
            "1",
            "--budget",
            "10m",
            "--out",
        ])
        .arg(&out)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .status()
        .unwrap();
    assert!(status.success());
    let report: ReportJson = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    assert_eq!(report.competing, 1);
    for run in &report.tables {
        let passed = run.args.windows(2).any(|w| w == ["--competing", "1"]);
        assert_eq!(passed, run.name != "loops", "{}: {:?}", run.name, run.args);
        let json: serde_json::Value = serde_json::from_str(&read(
            &out.join(run.json_file.as_ref().expect("a JSON file")),
        ))
        .unwrap();
        let expected = u64::from(run.name != "loops");
        assert_eq!(json["competing"], expected, "{}", run.name);
    }
    let markdown = read(&out.join("report.md"));
    assert!(
        markdown.contains("- competing busy processes: 1 (one CPU spin loop each)"),
        "{markdown}"
    );
    assert!(
        markdown.contains("competing busy processes: 1\n"),
        "{markdown}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every JSON file under `dir`, recursively.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn every_stored_result_loads() {
    // Each file under benches/results into its own type: a report's
    // report.json and its tables' JSON (written before `competing` existed:
    // each reads as a quiet run), the sweep, and the CF'17 runs stored
    // before the shared head.
    use prescient_benches::tables::cf17::report::{ProgramJson, ResultJson, Summary};
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct OldCf17 {
        programs: Vec<ProgramJson>,
        results: Vec<ResultJson>,
        summary: Vec<Summary>,
    }
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut files = Vec::new();
    json_files(&results, &mut files);
    assert!(files.len() > 20, "{files:?}");
    for path in files {
        let text = read(&path);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let folder = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        let loaded = match (folder.as_ref(), name.as_str()) {
            ("sweep", _) => {
                prescient_benches::cf17::sweep::ProgramSweep::from_json(&text).map(drop)
            }
            ("cf17" | "cf17-paper", _) => serde_json::from_str::<OldCf17>(&text)
                .map(drop)
                .map_err(|e| e.to_string()),
            (_, "report") => serde_json::from_str::<ReportJson>(&text)
                .map(|r| assert_eq!(r.competing, 0))
                .map_err(|e| e.to_string()),
            (_, table) => prescient_benches::tables::reload(table, &text)
                .map(|v| assert!(v["samples"].is_array() && v["competing"] == 0, "{table}")),
        };
        loaded.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
