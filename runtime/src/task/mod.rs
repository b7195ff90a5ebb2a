//! The task API: `join`, `spawn` and its `TaskHandle`, `scope`, task groups,
//! events and task-local values. The crate root re-exports what a program
//! names; `__private` the site-aware entry points `#[task_program]` emits.

pub(crate) mod event;
pub(crate) mod group;
mod handle_state;
pub(crate) mod join;
pub(crate) mod local;
pub(crate) mod scope;
pub(crate) mod spawn;
