//! The DAST paper's push policies (Bosch et al., §4): for each graph request
//! a worker is about to make, whether to queue it for the manager or to
//! execute it inline. One [`PushPolicy`] per worker, owner-only (plain
//! `Cell`s): the decisions read the worker's own request queue and deque, so
//! they cost a few loads and compares and never touch another worker's state.
//!
//! * **new task** — push only while every queued new-task request of this
//!   worker is a sibling of this one (same dataflow scope, i.e. same parent),
//!   else execute inline. This keeps the queued new-task requests of a
//!   worker from one scope at a time, which is what makes inline execution
//!   safe: a scope's submissions must reach its graph in program order, and
//!   when another scope's requests are the ones queued, this scope has none
//!   queued that an inline `new` could overtake.
//! * **done task** — hysteresis on the worker's queued requests (`pending`):
//!   inline when `pending > upper`, or `pending > lower` after a decision
//!   that saw the backlog above `upper`; also inline when the worker has
//!   fewer than [`MIN_TASKS`] ready tasks (it needs the successors this task
//!   releases now, not when the manager gets round to it). When the backlog
//!   has drained from above `upper` to below `lower`, the manager is keeping
//!   up: both bounds double (up to [`MAX_UPPER`]). They start at
//!   [`START_LOWER`]/[`START_UPPER`].
//! * **delete task** — push only while the task's done request is still
//!   queued (FIFO then keeps the delete after it); once the done request has
//!   been executed, delete inline.

use super::state::QUEUE_SLOTS;
use std::cell::Cell;

/// A worker with fewer ready tasks than this executes its done-task requests
/// inline (the paper's `MIN_TASKS`).
pub(crate) const MIN_TASKS: usize = 1;
/// The done-task hysteresis bounds' starting values (the paper's 3 and 5).
pub(crate) const START_LOWER: usize = 3;
/// See [`START_LOWER`].
pub(crate) const START_UPPER: usize = 5;
/// The most the upper bound grows to by doubling: half a request queue, so
/// that a worker never fills its queue with done requests alone.
pub(crate) const MAX_UPPER: usize = QUEUE_SLOTS / 2;

/// What a push decision says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Queue the request for the manager.
    Push,
    /// Execute it now, on this worker.
    Inline,
}

/// One worker's push-policy state (owner-only).
pub(crate) struct PushPolicy {
    /// The scope whose new-task requests this worker queued last, and the
    /// position of the last one (see [`PushPolicy::route_new`]).
    last_new: Cell<Option<(usize, usize)>>,
    lower: Cell<usize>,
    upper: Cell<usize>,
    /// A done decision saw the backlog above `upper`, and it has not yet
    /// drained below `lower`.
    above_upper: Cell<bool>,
}

impl PushPolicy {
    pub(crate) fn new() -> PushPolicy {
        PushPolicy {
            last_new: Cell::new(None),
            lower: Cell::new(START_LOWER),
            upper: Cell::new(START_UPPER),
            above_upper: Cell::new(false),
        }
    }

    /// The new-task policy for a task of `scope` (an address identifying its
    /// dataflow scope), given how many of this worker's requests have
    /// completed.
    pub(crate) fn route_new(&self, scope: usize, completed: usize) -> Route {
        match self.last_new.get() {
            // The last new-task request queued here is of another scope and
            // still queued: not siblings.
            Some((last_scope, position)) if last_scope != scope && completed <= position => {
                Route::Inline
            }
            _ => Route::Push,
        }
    }

    /// Records that a new-task request of `scope` was queued at `position`.
    pub(crate) fn pushed_new(&self, scope: usize, position: usize) {
        self.last_new.set(Some((scope, position)));
    }

    /// The done-task policy, given this worker's queued requests and its
    /// ready tasks. The second value says whether the bounds doubled.
    pub(crate) fn route_done(&self, pending: usize, ready_tasks: usize) -> (Route, bool) {
        let (lower, upper) = (self.lower.get(), self.upper.get());
        let mut doubled = false;
        if self.above_upper.get() && pending < lower {
            // Drained from above `upper` to below `lower`: the manager keeps
            // up, so let more requests be queued.
            self.above_upper.set(false);
            if upper < MAX_UPPER {
                self.lower.set(lower * 2);
                self.upper.set((upper * 2).min(MAX_UPPER));
                doubled = true;
            }
        }
        if pending > self.upper.get() {
            self.above_upper.set(true);
        }
        let backlogged = self.above_upper.get() && pending > self.lower.get();
        let route = if backlogged || ready_tasks < MIN_TASKS {
            Route::Inline
        } else {
            Route::Push
        };
        (route, doubled)
    }

    /// The delete-task policy: push while the done request (queued at
    /// `done_position`, if it was queued) has not completed.
    pub(crate) fn route_delete(done_position: Option<usize>, completed: usize) -> Route {
        match done_position {
            Some(position) if completed <= position => Route::Push,
            _ => Route::Inline,
        }
    }

    /// The current hysteresis bounds (diagnostics and tests).
    #[cfg(test)]
    fn bounds(&self) -> (usize, usize) {
        (self.lower.get(), self.upper.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_tasks_push_only_behind_siblings() {
        let policy = PushPolicy::new();
        assert_eq!(policy.route_new(1, 0), Route::Push);
        policy.pushed_new(1, 0);
        // A sibling follows its queued sibling.
        assert_eq!(policy.route_new(1, 0), Route::Push);
        policy.pushed_new(1, 1);
        // Another scope's task while scope 1's requests are queued: inline.
        assert_eq!(policy.route_new(2, 1), Route::Inline);
        // Once they completed, it may push.
        assert_eq!(policy.route_new(2, 2), Route::Push);
    }

    #[test]
    fn done_hysteresis_and_doubling() {
        let policy = PushPolicy::new();
        // No ready task of its own: inline whatever the backlog.
        assert_eq!(policy.route_done(0, 0).0, Route::Inline);
        assert_eq!(policy.route_done(0, 1).0, Route::Push);
        assert_eq!(policy.route_done(5, 1).0, Route::Push);
        // Above upper: inline, and stay inline down to lower.
        assert_eq!(policy.route_done(6, 1).0, Route::Inline);
        assert_eq!(policy.route_done(4, 1).0, Route::Inline);
        assert_eq!(policy.route_done(3, 1).0, Route::Push);
        assert_eq!(policy.bounds(), (3, 5));
        // Drained below lower: the bounds double.
        assert_eq!(policy.route_done(2, 1), (Route::Push, true));
        assert_eq!(policy.bounds(), (6, 10));
        assert_eq!(policy.route_done(10, 1).0, Route::Push);
        assert_eq!(policy.route_done(11, 1).0, Route::Inline);
    }

    #[test]
    fn upper_bound_is_capped() {
        let policy = PushPolicy::new();
        for _ in 0..64 {
            let (_, upper) = policy.bounds();
            policy.route_done(upper + 1, 1);
            policy.route_done(0, 1);
        }
        assert_eq!(policy.bounds().1, MAX_UPPER);
    }

    #[test]
    fn delete_follows_a_queued_done() {
        assert_eq!(PushPolicy::route_delete(None, 0), Route::Inline);
        assert_eq!(PushPolicy::route_delete(Some(4), 4), Route::Push);
        assert_eq!(PushPolicy::route_delete(Some(4), 5), Route::Inline);
    }
}
