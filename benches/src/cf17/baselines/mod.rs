//! The rayon and chili versions of the CF'17 programs' task code: the same
//! algorithm, cut-offs and sequential kernels as the `#[task_program]` version
//! in [`crate::annotated`] (each calls the program's public kernels), with
//! only the fork–join calls changed: `prescient::join` → `rayon::join` or
//! chili's `Scope::join`, `prescient::scope`/`s.spawn` →
//! `rayon::scope`/`s.spawn`. No program uses `for_range`.
//!
//! fib's versions are [`crate::programs::fib`]'s, shared with the suite.
//!
//! **rayon** versions exist for all twelve programs: every one is fork–join.
//!
//! **chili** versions exist for the programs whose tasks are binary joins or
//! a fixed number of recursive calls: fib, [`delannoy`] (its two nested
//! joins), [`fft`] (every join of the transform and of its loops), [`sort`]
//! (the four quarter sorts as `(A ‖ B) ‖ (C ‖ D)`, the merges' joins),
//! [`knapsack`] (the two branches) and [`strassen`] (the seven products as
//! three levels of nested joins). A fixed fan-out as a tree of joins is the
//! same set of tasks with the same dependences.
//!
//! The six programs that spawn in a loop have **no chili version**: nqueens,
//! alignment, uts, floorplan, health and sparselu. chili offers a two-way
//! join and nothing else, so their loops would have to become recursive
//! halvings of the iteration range: a different task graph (a tree of
//! `log n` levels of joins above every loop, where the spawning thread hands
//! out one task per iteration), and not a faithful one for most of them —
//! uts computes each child's SHA-1 state in the loop before spawning it,
//! floorplan's loop runs over shapes and corners whose count `starts`
//! computes per shape, health's parent village updates its hospital while
//! its children run, and sparselu's phases hand out disjoint blocks found by
//! a scan of the presence map. Rather than benchmark a restructured program
//! under chili alone, the suite leaves chili out of these rows.

pub mod alignment;
pub mod delannoy;
pub mod fft;
pub mod floorplan;
pub mod health;
pub mod knapsack;
pub mod nqueens;
pub mod sort;
pub mod sparselu;
pub mod strassen;
pub mod uts;

/// chili's [`Scope::join`](chili::Scope::join) in the order of
/// `prescient::join` and `rayon::join`: `a` runs on the calling thread, first,
/// and `b` is the job another thread may take. (chili's own join runs its
/// *second* closure on the calling thread first and offers the first; called
/// directly it would reverse the programs' evaluation order, which for
/// knapsack's branch and bound changes the search itself: taking the densest
/// item first finds a good bound at once and prunes most of the tree.)
pub fn chili_join<A, B, RA, RB>(scope: &mut chili::Scope<'_>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(&mut chili::Scope<'_>) -> RA + Send,
    B: FnOnce(&mut chili::Scope<'_>) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (rb, ra) = scope.join(b, a);
    (ra, rb)
}
