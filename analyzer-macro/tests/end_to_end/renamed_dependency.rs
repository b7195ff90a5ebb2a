//! A crate that depends on `prescient` under another name
//! (`rt = { package = "prescient", … }`) uses `#[rt::task_program]` without
//! `crate = rt`: the macro reads the name from the crate's `Cargo.toml`.
//!
//! The fixture crate is written under `CARGO_TARGET_TMPDIR` and checked by
//! `cargo check --offline` (with this workspace's `Cargo.lock`, so nothing
//! is resolved anew): it fails to compile if the emitted code names
//! `::prescient`, which that crate does not have.

use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN: &str = r#"
#[rt::task_program]
pub mod fib {
    use rt::join;

    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
}

// The emitted items are in terms of the renamed crate.
const PARAMS: rt::Params = fib::PARAMS;
const RHO: u32 = fib::ANALYSIS.rho;
const _: () = assert!(RHO == 2);

fn main() {
    let runtime = rt::Runtime::builder().params(PARAMS).build().expect("runtime");
    assert_eq!(runtime.run(|| fib::fib(10)), 55);
}
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
    std::fs::write(path, text).expect("written");
}

#[test]
fn renamed_dependency_needs_no_crate_argument() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace = workspace.canonicalize().expect("the workspace");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("renamed-dependency");
    let runtime = workspace.join("runtime");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"renamed-fixture\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [workspace]\n\n\
             [dependencies]\nrt = {{ package = \"prescient\", path = {:?} }}\n",
            runtime.display().to_string()
        ),
    );
    write(&dir.join("src/main.rs"), MAIN);
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).expect("the lock file");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the fixture crate fails to compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
