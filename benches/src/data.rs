//! Where the benchmark input files are (the BOTS inputs of `benches/data/`):
//! beside the running binary when it was copied into a folder with its
//! inputs (`prescient-bench bundle`), else in this package's `data` folder
//! of the checkout it was built from. The variable [`DATA_ENV`] overrides
//! both.

use std::path::{Path, PathBuf};

/// The environment variable naming the folder that holds the input files
/// (the `benches/data` layout: `alignment/`, `health/`, ...).
pub const DATA_ENV: &str = "PRESCIENT_BENCH_DATA";

/// The folder of the input files: [`DATA_ENV`] if set, else `data/` beside
/// the running executable if it exists, else `benches/data` of the checkout
/// this package was built in.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DATA_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("data")))
        .filter(|dir| dir.is_dir());
    beside_binary.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("data"))
}

/// The input file `relative` (e.g. `health/test.input`) under
/// [`data_dir`].
pub fn input(relative: &str) -> PathBuf {
    data_dir().join(relative)
}
