//! The body of a worker thread, [`worker_main`]: it builds the thread's
//! [`WorkerThread`], runs the start handler, makes the worker this thread's
//! (`THREAD`) for exactly as long as its main loop runs (`idle.rs`),
//! then tells its pooled fibers to exit, runs the exit handler and lets a
//! dropping `Runtime` go on.

use super::thread::{WorkerThread, THREAD};
use crate::dast::PushPolicy;
use crate::inlining::NO_SITES;
use crate::job::deque::TaskDeque;
use crate::params::Inlining;
use crate::scheduler::fiber::FiberInput;
use crate::scheduler::latent::join_chain::{LatentChain, MAX_LATENT_JOINS};
use crate::scheduler::latent::spawn_arena::LatentSpawns;
use crate::scheduler::registry::{Registry, RegistryHandle};
use crate::scheduler::sleep::PARK_TIMEOUT_MIN;
#[cfg(feature = "trace")]
use crate::trace;
use crate::unwind::{drop_caught, report, AbortOnUnwind};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The next `WorkerThread::uid`.
static NEXT_WORKER_UID: AtomicU64 = AtomicU64::new(0);

/// The body of a worker thread.
pub(crate) fn worker_main(
    registry: Arc<Registry>,
    index: usize,
    deque: TaskDeque,
    pin_to: Option<usize>,
) {
    let _alt_stack = crate::scheduler::fiber::overflow::ensure_alt_stack();
    if let Some(pu) = pin_to {
        if let Err(error) = crate::topology::pin_current_thread(pu) {
            report(format_args!(
                "could not pin worker {index} to PU {pu}: {error}"
            ));
        }
    }
    let info = &registry.workers[index];
    let worker = WorkerThread {
        index,
        // Relaxed: only uniqueness matters.
        uid: NEXT_WORKER_UID.fetch_add(1, Ordering::Relaxed),
        queue_capacity: registry.params.queue_capacity,
        deque,
        local_len: Cell::new(0),
        steals_seen: Cell::new(0),
        latent: LatentChain::with_capacity(MAX_LATENT_JOINS),
        latent_limit: registry.params.queue_capacity.min(MAX_LATENT_JOINS),
        // Room for a short burst of small spawns before the arena grows.
        latent_spawns: LatentSpawns::with_capacity(registry.params.queue_capacity.min(64), 4096),
        inlining: registry.params.inlining != Inlining::Never,
        sites: &*info.sites,
        info,
        wake: info.wake.clone(),
        park_timeout: Cell::new(PARK_TIMEOUT_MIN),
        fiber_pool: RefCell::new(Vec::new()),
        pool_low_water: Cell::new(0),
        stacks: Cell::new(0),
        suspended: Cell::new(0),
        rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1) << 17)),
        dast_policy: PushPolicy::new(),
        dast_next_queue: Cell::new(index),
        registry: registry.clone(),
        registry_handle: Arc::new(RegistryHandle(registry.clone())),
    };
    // The handlers run outside the runtime (no worker registered yet / any
    // more): a handler that enters a runtime blocks like any other thread.
    if let Some(start) = &registry.handlers.start {
        call_handler(&registry, "start", index, || start(index));
    }
    THREAD.with(|thread| thread.worker.set(&worker));
    #[cfg(feature = "trace")]
    if let Some(tracer) = &registry.tracer {
        // SAFETY: `uninstall` below runs before this thread drops its
        // registry reference, which keeps the tracer alive.
        unsafe { trace::install(tracer, index) };
    }
    let escape = AbortOnUnwind("a worker's main loop");
    worker.main_loop();
    std::mem::forget(escape);
    #[cfg(feature = "trace")]
    trace::uninstall();
    THREAD.with(|thread| {
        thread.worker.set(std::ptr::null());
        // Before the worker (whose cache this may point to) goes; its
        // latent chain is empty between jobs, so this is `NO_SITES` already.
        thread.fast_sites.set(&NO_SITES);
    });
    for mut fiber in worker.fiber_pool.borrow_mut().drain(..) {
        let out = fiber.resume(FiberInput::Exit);
        debug_assert!(out.is_none());
    }
    if let Some(exit) = &registry.handlers.exit {
        call_handler(&registry, "exit", index, || exit(index));
    }
    drop(worker);
    // The last thing this thread does with the runtime: a dropping `Runtime`
    // may return (and free everything but our `registry` reference) as soon
    // as this count reaches zero.
    registry.running.decrement();
}

/// Runs a start or exit handler. A panic in it does not take the worker
/// down (a lost worker would strand the tasks of its deque): its payload
/// goes to the panic handler, as rayon routes them, or without one is
/// reported on stderr.
fn call_handler(registry: &Registry, which: &str, index: usize, handler: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler)) {
        if registry.handlers.panic.is_some() {
            registry.handle_detached_panic(payload);
        } else {
            report(format_args!(
                "the {which} handler panicked on worker {index}; the worker goes on"
            ));
            drop_caught(payload);
        }
    }
}
