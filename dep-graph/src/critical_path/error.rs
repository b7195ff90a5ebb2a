//! Why a recorded trace was rejected by [`Dag::new`](super::Dag::new).
//!
//! Every variant names the offending strand or edge so that a broken recorder
//! can be debugged from the message alone.

use std::fmt;

use super::ids::StrandId;

/// A trace is not a valid computation DAG of a run.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TraceError {
    /// The trace has no strand at all; every run has at least its root strand.
    NoStrands,
    /// The strand ran on a worker numbered `workers` or higher.
    UnknownWorker {
        /// The offending strand.
        strand: StrandId,
        /// Its worker.
        worker: u32,
        /// The number of workers of the run.
        workers: u32,
    },
    /// The strand ends before it starts.
    EndsBeforeStart {
        /// The offending strand.
        strand: StrandId,
        /// Its start time (ns).
        start: u64,
        /// Its end time (ns), smaller than `start`.
        end: u64,
    },
    /// The edge at this index names a strand that does not exist.
    UnknownStrand {
        /// Index of the edge in the edge list.
        edge: usize,
        /// The id it names.
        strand: StrandId,
    },
    /// The edge's successor starts before its predecessor ends.
    SuccessorStartsEarly {
        /// Index of the edge in the edge list.
        edge: usize,
        /// End time (ns) of the edge's `from` strand.
        from_end: u64,
        /// Start time (ns) of the edge's `to` strand, smaller than `from_end`.
        to_start: u64,
    },
    /// Two strands of one worker overlap in time.
    Overlap {
        /// The worker running both.
        worker: u32,
        /// The strand that starts first.
        first: StrandId,
        /// The strand that starts before `first` ends.
        second: StrandId,
    },
    /// The edges form a cycle (possible only among zero-length strands at
    /// one instant, as every edge goes forward in time); the strand lies on
    /// or behind it.
    Cycle {
        /// A strand that cannot be ordered.
        strand: StrandId,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TraceError::NoStrands => write!(f, "the trace has no strand"),
            TraceError::UnknownWorker {
                strand,
                worker,
                workers,
            } => write!(
                f,
                "{strand} ran on worker {worker}, but the run has {workers} workers"
            ),
            TraceError::EndsBeforeStart { strand, start, end } => {
                write!(
                    f,
                    "{strand} ends at {end} ns, before it starts at {start} ns"
                )
            }
            TraceError::UnknownStrand { edge, strand } => {
                write!(f, "edge #{edge} names {strand}, which is not in the trace")
            }
            TraceError::SuccessorStartsEarly {
                edge,
                from_end,
                to_start,
            } => write!(
                f,
                "edge #{edge}: its successor starts at {to_start} ns, \
                 before its predecessor ends at {from_end} ns"
            ),
            TraceError::Overlap {
                worker,
                first,
                second,
            } => write!(f, "worker {worker} runs {second} before {first} has ended"),
            TraceError::Cycle { strand } => {
                write!(f, "the edges form a cycle through or before {strand}")
            }
        }
    }
}

impl std::error::Error for TraceError {}
