#![doc = include_str!("README.md")]

pub(crate) mod join_chain;
pub(crate) mod spawn_arena;
