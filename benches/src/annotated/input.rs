//! Reading BOTS input files: the error every program's reader returns.

use std::fmt;

/// Why an input file (a BOTS sequence, floorplan, health, knapsack or UTS
/// file) could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be read.
    Io(std::io::Error),
    /// The file is not in BOTS' format for its program.
    Format(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read the input file: {e}"),
            ReadError::Format(m) => write!(f, "bad input file: {m}"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            ReadError::Format(_) => None,
        }
    }
}
