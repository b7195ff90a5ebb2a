//! [`StrandId`], the id of a strand in a recorded DAG. It sits below both
//! the model and its validation errors, which name strands by it.

use std::fmt;

/// Index of a strand in [`Dag::strands`](super::Dag::strands).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct StrandId(pub u32);

impl StrandId {
    /// The id as an index into [`Dag::strands`](super::Dag::strands).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for StrandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "strand {}", self.0)
    }
}
