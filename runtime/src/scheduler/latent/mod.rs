//! Latent work: a worker's `join` second halves (`join_chain`) and spawned
//! tasks (`spawn_arena`) kept where only their worker sees them, and handed
//! to thieves only when one asks. The worker's side (recording and
//! publishing) is `scheduler/worker/publish.rs`.

pub(crate) mod join_chain;
pub(crate) mod spawn_arena;
