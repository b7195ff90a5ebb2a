//! The pool a measuring child builds once and runs a program in: none for
//! the sequential reference, a Prescient runtime, a rayon pool or a chili
//! pool. The fork-join table, the CF'17 child and the inlining table build
//! theirs here.

use std::num::NonZeroUsize;

use prescient::tuning::Counters;
use prescient::Params;

/// A built runner.
pub enum Pool {
    /// No pool: the sequential reference runs on the calling thread.
    Seq,
    /// A Prescient runtime.
    Prescient(prescient::Runtime),
    /// A rayon thread pool.
    Rayon(rayon::ThreadPool),
    /// A chili thread pool (its scopes run on the calling thread, which
    /// counts as one of its `thread_count` threads).
    Chili(chili::ThreadPool),
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Pool::Seq => "Pool::Seq",
            Pool::Prescient(_) => "Pool::Prescient",
            Pool::Rayon(_) => "Pool::Rayon",
            Pool::Chili(_) => "Pool::Chili",
        })
    }
}

impl Pool {
    /// The pool of `runner` with `threads` threads: `seq` (no pool),
    /// `rayon`, `chili`, or Prescient under `params` (any other name, which
    /// the messages quote).
    ///
    /// # Errors
    /// A pool that cannot be built, or a Prescient runner without
    /// parameters.
    pub fn build(runner: &str, params: Option<Params>, threads: usize) -> Result<Pool, String> {
        let threads = threads.max(1);
        match (runner, params) {
            ("seq", _) => Ok(Pool::Seq),
            ("rayon", _) => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map(Pool::Rayon)
                .map_err(|e| format!("building the rayon pool ({threads} threads): {e}")),
            ("chili", _) => Ok(Pool::Chili(chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZeroUsize::new(threads),
                ..Default::default()
            }))),
            (_, Some(params)) => prescient::Runtime::builder()
                .params(params)
                .num_workers(threads)
                .build()
                .map(Pool::Prescient)
                .map_err(|e| format!("building Prescient ({runner}, {threads} workers): {e}")),
            (_, None) => Err(format!("`{runner}` is not a runner of this executable")),
        }
    }

    /// The runtime's counters, for Prescient.
    pub fn counters(&self) -> Option<Counters> {
        match self {
            Pool::Prescient(rt) => Some(rt.counters()),
            Pool::Seq | Pool::Rayon(_) | Pool::Chili(_) => None,
        }
    }
}
