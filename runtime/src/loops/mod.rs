//! Loops and sorts over the task API: `split`, the engine that folds a range
//! or a slice chunk by chunk and splits it in halves with a `join` only when
//! another worker asks for work; the range loops (`range`), the slice loops
//! (`chunks`), the reductions over both (`reduce`), and the parallel merge
//! sorts (`sort`).

pub(crate) mod chunks;
pub(crate) mod range;
pub(crate) mod reduce;
pub(crate) mod sort;
pub(crate) mod split;
