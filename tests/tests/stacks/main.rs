//! Task stacks, one test binary (CI runs it in the debug and the release
//! profile: frame sizes differ): the reserve and the commitment
//! (`stack_reserve`), overflow reports (`stack_overflow`, in child
//! processes), the live-stack cap (`stack_cap`), deep joins and the per-join
//! frame cost (`deep_join`, `join_frame`), what an analysed commitment costs
//! against what tasks use (`commitment`), and programs whose stack
//! `#[task_program]` estimated wrongly or cannot bound (`analysed_stacks`,
//! `unseen_stacks`). A task overflowing its reserve aborts the process, so
//! a regression fails this whole binary loudly.

// `#[task_program(crate = rt)]` in `analysed_stacks` names the runtime as
// `rt`, a crate of the extern prelude only when declared at the crate root.
extern crate prescient as rt;

mod analysed_stacks;
mod commitment;
mod deep_join;
mod join_frame;
mod stack_cap;
mod stack_overflow;
mod stack_reserve;
mod unseen_stacks;
