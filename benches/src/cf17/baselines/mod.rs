//! The rayon and chili versions of the CF'17 programs' task code: the same
//! algorithm, cut-offs and sequential kernels as the `#[task_program]` version
//! in [`crate::annotated`], with only the fork–join calls changed.
//!
//! fib's versions are [`crate::programs::fib`]'s, shared with the suite.
