//! The scheduler core: what runs tasks. Latent joins and spawns (work kept
//! owner-only until a thief asks for it), fibers and their stacks, latches
//! (waiting without blocking a worker), stack jobs, sleeping and waking, the
//! registry (the part of a runtime's workers other threads see) and the
//! workers themselves. The jobs and deques it schedules are `crate::job`;
//! DAST and the inliner, which the registry and the workers drive, are
//! `crate::dast` and `crate::inlining`.
//!
//! Layers inside, lowest first (ARCHITECTURE.md, "Module layers"; checked
//! by `.ci/check-layout`): `latent`, `fiber`; `latch`; `stack_job`, `sleep`;
//! `registry`; `worker`.

pub(crate) mod fiber;
pub(crate) mod latch;
pub(crate) mod latent;
pub(crate) mod registry;
pub(crate) mod sleep;
pub(crate) mod stack_job;
pub(crate) mod worker;
