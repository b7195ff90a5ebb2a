//! The critical-path row's data: its categories (work, busy delay, and
//! scheduler delay by the edge waited on) and colours, and the one sweep over
//! the run that cuts the path's gaps into those pieces while downsampling the
//! parallelism profile.

use plotters::style::RGBColor;

use super::super::analysis::Analysis;
use super::super::model::{Dag, EdgeKind};
use super::super::parallelism::{for_each_change, Downsampler, ProfileBucket, ProfilePoint};
use super::style::{BUSY_DELAY, CRITICAL, SCHEDULER_DELAY};

/// Categories of the critical-path row: work, busy delay, then scheduler
/// delay before the first strand and after each edge kind.
pub(super) const WORK: usize = 0;
pub(super) const BUSY: usize = 1;
pub(super) const PATH_CATEGORIES: usize = 7;

/// The category of scheduler delay before a step reached via `via`.
pub(super) fn scheduler_category(via: Option<EdgeKind>) -> usize {
    2 + via.map_or(0, |kind| 1 + kind.index())
}

pub(super) fn path_colour(category: usize) -> RGBColor {
    match category {
        WORK => CRITICAL,
        BUSY => BUSY_DELAY,
        c => SCHEDULER_DELAY[c - 2],
    }
}

/// One piece of the critical-path row: `[from, to)` of one category.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Piece {
    pub(super) from: u64,
    pub(super) to: u64,
    pub(super) category: usize,
}

/// A gap of the critical path before one of its strands.
#[derive(Clone, Copy, Debug)]
struct Gap {
    from: u64,
    to: u64,
    /// The scheduler-delay category of the gap.
    category: usize,
}

/// What one sweep over the run yields.
pub(super) struct Gathered {
    /// The profile, one bucket per profile column.
    pub(super) buckets: Vec<ProfileBucket>,
    /// The critical-path row: the gaps' busy and scheduler pieces (merged
    /// within each gap), then the path's strands.
    pub(super) pieces: Vec<Piece>,
}

/// Sweeps the run once: downsamples the profile into `buckets` buckets and
/// cuts the critical path's gaps into busy and scheduler delay.
pub(super) fn gather(dag: &Dag, analysis: &Analysis, buckets: usize) -> Gathered {
    let steps = &analysis.critical_path.steps;
    let gaps: Vec<Gap> = steps
        .iter()
        .filter_map(|step| {
            let start = dag.strand(step.strand).start;
            (step.gap_start < start).then(|| Gap {
                from: step.gap_start,
                to: start,
                category: scheduler_category(step.via),
            })
        })
        .collect();
    let workers = dag.workers();
    let mut down = Downsampler::new(analysis.elapsed, buckets);
    let mut pieces: Vec<Piece> = Vec::new();
    let (mut next_gap, mut gap_first_piece) = (0usize, 0usize);
    let mut previous: Option<ProfilePoint> = None;
    for_each_change(dag, |point| {
        let Some(prev) = previous.replace(point) else {
            return;
        };
        let (a, b) = (prev.time, point.time);
        down.feed(a, b, prev.running, prev.ready);
        // The gaps overlapping [a, b): all workers busy or not throughout.
        while let Some(gap) = gaps.get(next_gap) {
            if gap.from >= b {
                break;
            }
            let (lo, hi) = (a.max(gap.from), b.min(gap.to));
            if lo < hi {
                let category = if prev.running == workers {
                    BUSY
                } else {
                    gap.category
                };
                let in_gap = pieces.len() > gap_first_piece;
                match pieces.last_mut() {
                    Some(last) if in_gap && last.category == category && last.to == lo => {
                        last.to = hi;
                    }
                    _ => pieces.push(Piece {
                        from: lo,
                        to: hi,
                        category,
                    }),
                }
            }
            if gap.to > b {
                break;
            }
            next_gap += 1;
            gap_first_piece = pieces.len();
        }
    });
    pieces.extend(steps.iter().map(|step| {
        let s = dag.strand(step.strand);
        Piece {
            from: s.start,
            to: s.end,
            category: WORK,
        }
    }));
    Gathered {
        buckets: down.finish(),
        pieces,
    }
}
