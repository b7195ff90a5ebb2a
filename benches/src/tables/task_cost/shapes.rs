//! The programs the `task-cost` table times: each task form (`join`, a
//! scope's `spawn`, `TaskGroup::spawn` + `wait`, `spawn` + `TaskHandle::join`)
//! in two shapes a user writes — a loop of [`LOOP_TASKS`] tiny tasks, and a
//! binary recursion that creates its tasks at every level — each next to
//! its plain twin: the same closures' bodies, called directly.
//!
//! Every task does the same tiny work, [`work`]: an integer hash of its
//! index, whose input and result go through `black_box`, so that neither
//! form can be folded away or vectorised and the difference between the two
//! is what creating (or inlining) the tasks costs.

use prescient::{join, scope, spawn, TaskGroup, TaskHandle};
use std::hint::black_box;

/// Tasks per unit of the loop shape: a loop that spawns a handful of tiny
/// tasks and ends, as a user's `scope` over a few items does.
pub(crate) const LOOP_TASKS: usize = 8;

/// How a task is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `join(a, b)`: one task per join (`b`, the half that could be handed
    /// to a thief; `a` always runs right away).
    Join,
    /// `scope(|s| s.spawn(..))`, the scope ending after its tasks.
    Scope,
    /// `TaskGroup::spawn` into a new group, then `wait`.
    Group,
    /// `spawn(..)`, then `TaskHandle::join` of each handle.
    Spawn,
}

impl Form {
    /// Every form, in table order.
    pub(crate) const ALL: [Form; 4] = [Form::Join, Form::Scope, Form::Group, Form::Spawn];

    /// The form's name in the table and the samples.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Form::Join => "join",
            Form::Scope => "scope",
            Form::Group => "group",
            Form::Spawn => "spawn",
        }
    }
}

/// Where the tasks are created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A loop of [`LOOP_TASKS`] tasks (for `join`: that many joins of two
    /// work items each), then the end of the scope, group or handles.
    Loop,
    /// A binary recursion of the given depth: every inner node creates its
    /// two children as tasks (for `join`: one join of the two); a leaf does
    /// the work.
    Tree(u32),
}

impl Shape {
    /// The shape's name in the table and the samples (`loop`, `tree`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Loop => "loop",
            Shape::Tree(_) => "tree",
        }
    }

    /// Tasks that one unit of `form` in this shape creates: [`LOOP_TASKS`]
    /// per loop; per tree one per join (2^depth − 1 inner nodes) or two per
    /// inner node for the spawning forms.
    pub(crate) fn tasks(self, form: Form) -> u64 {
        match (self, form) {
            (Shape::Loop, _) => LOOP_TASKS as u64,
            (Shape::Tree(depth), Form::Join) => (1u64 << depth) - 1,
            (Shape::Tree(depth), _) => 2 * ((1u64 << depth) - 1),
        }
    }
}

/// The work of one task: splitmix64 of its index, a few nanoseconds. The
/// index goes through `black_box` so the compiler cannot compute the hash
/// ahead, nor turn a loop of them into vector code.
#[inline(always)]
pub(crate) fn work(i: u64) -> u64 {
    let mut x = black_box(i).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One unit of `form` in `shape`, from index `base`, with tasks (`tasked`)
/// or as plain calls. Returns a checksum that is the same both ways (the
/// group form's tasks return nothing: its checksum is 0 both ways).
pub(crate) fn unit(form: Form, shape: Shape, base: u64, tasked: bool) -> u64 {
    match (shape, tasked) {
        (Shape::Loop, true) => loop_tasked(form, base),
        (Shape::Loop, false) => loop_plain(form, base),
        (Shape::Tree(depth), true) => tree_tasked(form, depth, base),
        (Shape::Tree(depth), false) => tree_plain(form, depth, base),
    }
}

/// A loop of tasks.
fn loop_tasked(form: Form, base: u64) -> u64 {
    const K: u64 = LOOP_TASKS as u64;
    match form {
        Form::Join => {
            let mut sum = 0u64;
            for i in 0..K {
                let (a, b) = join(|| work(base + 2 * i), || work(base + 2 * i + 1));
                sum = sum.wrapping_add(a).wrapping_add(b);
            }
            sum
        }
        Form::Scope => {
            let mut out = [0u64; LOOP_TASKS];
            scope(|s| {
                for (i, slot) in out.iter_mut().enumerate() {
                    s.spawn(move |_| *slot = work(base + i as u64));
                }
            });
            out.iter().fold(0, |a, &b| a.wrapping_add(b))
        }
        Form::Group => {
            let group = TaskGroup::new();
            for i in 0..K {
                group.spawn(move || {
                    black_box(work(base + i));
                });
            }
            group.wait();
            0
        }
        Form::Spawn => {
            let handles: [TaskHandle<u64>; LOOP_TASKS] =
                std::array::from_fn(|i| spawn(move || work(base + i as u64)));
            handles.into_iter().fold(0, |a, h| a.wrapping_add(h.join()))
        }
    }
}

/// The same loop as plain calls: what each form's closures do, in the same
/// order, without the runtime.
fn loop_plain(form: Form, base: u64) -> u64 {
    const K: u64 = LOOP_TASKS as u64;
    match form {
        Form::Join => {
            let mut sum = 0u64;
            for i in 0..K {
                let (a, b) = (work(base + 2 * i), work(base + 2 * i + 1));
                sum = sum.wrapping_add(a).wrapping_add(b);
            }
            sum
        }
        Form::Scope | Form::Spawn => {
            let mut out = [0u64; LOOP_TASKS];
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = work(base + i as u64);
            }
            out.iter().fold(0, |a, &b| a.wrapping_add(b))
        }
        Form::Group => {
            for i in 0..K {
                black_box(work(base + i));
            }
            0
        }
    }
}

/// A binary recursion whose inner nodes create their children as tasks.
fn tree_tasked(form: Form, depth: u32, index: u64) -> u64 {
    if depth == 0 {
        return leaf(form, index);
    }
    let (left, right) = (2 * index, 2 * index + 1);
    match form {
        Form::Join => {
            let (a, b) = join(
                || tree_tasked(form, depth - 1, left),
                || tree_tasked(form, depth - 1, right),
            );
            a.wrapping_add(b)
        }
        Form::Scope => {
            let (mut a, mut b) = (0, 0);
            scope(|s| {
                s.spawn(|_| a = tree_tasked(form, depth - 1, left));
                s.spawn(|_| b = tree_tasked(form, depth - 1, right));
            });
            a.wrapping_add(b)
        }
        Form::Group => {
            let group = TaskGroup::new();
            group.spawn(move || {
                tree_tasked(form, depth - 1, left);
            });
            group.spawn(move || {
                tree_tasked(form, depth - 1, right);
            });
            group.wait();
            0
        }
        Form::Spawn => {
            let a = spawn(move || tree_tasked(form, depth - 1, left));
            let b = spawn(move || tree_tasked(form, depth - 1, right));
            a.join().wrapping_add(b.join())
        }
    }
}

/// The same recursion as plain calls.
fn tree_plain(form: Form, depth: u32, index: u64) -> u64 {
    if depth == 0 {
        return leaf(form, index);
    }
    let a = tree_plain(form, depth - 1, 2 * index);
    let b = tree_plain(form, depth - 1, 2 * index + 1);
    a.wrapping_add(b)
}

/// A leaf of a tree: the work; the group form's tasks return nothing, so
/// its leaves only `black_box` their result (and count 0).
#[inline(always)]
fn leaf(form: Form, index: u64) -> u64 {
    match form {
        Form::Group => {
            black_box(work(index));
            0
        }
        _ => work(index),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prescient::{Params, Runtime};

    #[test]
    fn task_counts() {
        assert_eq!(Shape::Loop.tasks(Form::Scope), 8);
        assert_eq!(Shape::Tree(3).tasks(Form::Join), 7);
        assert_eq!(Shape::Tree(3).tasks(Form::Spawn), 14);
    }

    #[test]
    fn tasked_and_plain_agree() {
        for capacity in [1, 4, 128] {
            let rt = Runtime::builder()
                .num_workers(2)
                .params(Params::DEFAULT.with_queue_capacity(capacity))
                .build()
                .unwrap();
            for form in Form::ALL {
                for shape in [Shape::Loop, Shape::Tree(5)] {
                    let plain = unit(form, shape, 40, false);
                    let tasked = rt.run(|| unit(form, shape, 40, true));
                    assert_eq!(tasked, plain, "{form:?} {shape:?} capacity {capacity}");
                    if form != Form::Group {
                        assert_ne!(plain, 0, "{form:?} {shape:?}");
                    }
                }
            }
        }
    }
}
