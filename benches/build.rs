//! Records how the benchmark binaries were built, for the report's "build"
//! section (`prescient_benches::report::build_info`): the commit, the cargo
//! profile, the compiler, the flags (function alignment) and the features;
//! and cargo's target folder, under which a table writes by default
//! (`prescient_benches::cli::default_output`). A binary copied to a host
//! without the source tree or git still says what it is.
//!
//! It also builds the C/C++ peers (`peers/build.rs`).

use std::path::Path;
use std::process::Command;

#[path = "peers/build.rs"]
mod peers;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let run = |program: &str, args: &[&str]| -> Option<String> {
        let output = Command::new(program)
            .args(args)
            .current_dir(&manifest_dir)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };

    let commit = run("git", &["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    let dirty = run("git", &["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    let commit = match (commit.is_empty(), dirty) {
        (true, _) => "unknown".to_string(),
        (false, true) => format!("{commit} (with uncommitted changes)"),
        (false, false) => commit,
    };
    println!("cargo:rustc-env=PRESCIENT_BENCH_COMMIT={commit}");

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let compiler = run(&rustc, &["-V"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=PRESCIENT_BENCH_RUSTC={compiler}");

    // CARGO_ENCODED_RUSTFLAGS separates the flags with 0x1f.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .replace('\u{1f}', " ");
    println!("cargo:rustc-env=PRESCIENT_BENCH_RUSTFLAGS={flags}");

    // OUT_DIR is <target>/<profile folder>/build/<package>-<hash>/out; the
    // profile folder names the cargo profile (`benchmark`, `release`,
    // `debug` for dev and test).
    let out_dir = std::env::var("OUT_DIR").unwrap_or_default();
    let profile = Path::new(&out_dir)
        .ancestors()
        .nth(3)
        .and_then(|dir| dir.file_name())
        .map_or_else(
            || "unknown".to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
    println!("cargo:rustc-env=PRESCIENT_BENCH_PROFILE={profile}");
    let target = Path::new(&out_dir)
        .ancestors()
        .nth(4)
        .unwrap_or(Path::new(""));
    println!(
        "cargo:rustc-env=PRESCIENT_BENCH_TARGET_DIR={}",
        target.display()
    );

    let mut features: Vec<String> = std::env::vars()
        .filter_map(|(key, _)| {
            key.strip_prefix("CARGO_FEATURE_")
                .map(|f| f.to_lowercase().replace('_', "-"))
        })
        .collect();
    features.sort();
    println!(
        "cargo:rustc-env=PRESCIENT_BENCH_FEATURES={}",
        features.join(",")
    );

    // Rerun when the commit moves — HEAD, the branch it points to (a loose
    // ref, or packed) — or any source of the workspace changes (a directory
    // is scanned recursively); not on `git status`, which rewrites the index.
    // Only files that exist are named: cargo reruns for a missing one always.
    let git_dir = run("git", &["rev-parse", "--absolute-git-dir"]);
    let common = run(
        "git",
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    );
    if let (Some(git_dir), Some(common)) = (git_dir, common) {
        let branch = run("git", &["symbolic-ref", "-q", "HEAD"]);
        let watched = [
            Some(format!("{git_dir}/HEAD")),
            branch.map(|b| format!("{common}/{b}")),
            Some(format!("{common}/packed-refs")),
        ];
        for path in watched.into_iter().flatten() {
            if Path::new(&path).is_file() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    for dir in [
        "src",
        "benches",
        "Cargo.toml",
        "../runtime/src",
        "../analyzer-macro/src",
        "../dep-graph/src",
    ] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    peers::build(Path::new(&manifest_dir), Path::new(&out_dir));
}
