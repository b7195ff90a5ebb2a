//! The atomics of the lock-free protocols that have loom models
//! (`RUSTFLAGS="--cfg loom" cargo test -p prescient --lib loom`): under
//! `--cfg loom` they are loom's instrumented types, otherwise std's.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicUsize};
