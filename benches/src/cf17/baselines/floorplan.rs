//! floorplan under rayon: [`crate::annotated::floorplan`]'s branch and bound
//! with `prescient::scope` replaced by `rayon::scope`: one spawn per shape
//! and admissible corner of the cell being placed, each task copying the
//! extents and the board, laying the cell down ([`lay_down`]) and recursing
//! or offering its placement to the shared best ([`record`]), on the
//! program's own kernels and shared bound ([`Best`]).

use crate::annotated::floorplan::tasks::{lay_down, record, starts};
use crate::annotated::floorplan::{
    Best, Board, Extent, Extents, Floorplan, Footprint, Solution, COLS, MAX_STARTS, ROWS,
};
use std::sync::atomic::{AtomicU64, Ordering};

/// Places cell `id` and the cells after it, one `rayon::scope` spawn per
/// shape and corner; returns the number of corners examined (the task
/// version's [`add_cell`](crate::annotated::floorplan::add_cell)).
pub fn add_cell_rayon(
    fp: &Floorplan,
    id: usize,
    footprint: Footprint,
    board: &Board,
    cells: &Extents,
    best: &Best,
) -> u64 {
    let nnc = AtomicU64::new(0);
    let mut nnl = 0;
    let nnc_ref = &nnc;
    rayon::scope(|s| {
        let mut nws = [[0i32; 2]; MAX_STARTS];
        for (shape, &[rows, cols]) in fp.cells[id].alt.iter().enumerate() {
            let nn = starts(fp, id, shape, &mut nws, cells);
            nnl += nn as u64;
            for &[top, lhs] in &nws[..nn] {
                s.spawn(move |_| {
                    let mut cells: Extents = *cells;
                    cells[id] = Extent {
                        top,
                        bot: top + rows - 1,
                        lhs,
                        rhs: lhs + cols - 1,
                    };
                    let mut board: Board = *board;
                    if !lay_down(id, &mut board, &cells) {
                        return;
                    }
                    let footprint = [
                        footprint[0].max(cells[id].bot + 1),
                        footprint[1].max(cells[id].rhs + 1),
                    ];
                    let area = footprint[0] * footprint[1];
                    let next = fp.cells[id].next;
                    if next == 0 {
                        record(best, area, footprint, &board);
                    } else if area < best.bound.load(Ordering::Relaxed) {
                        let examined = add_cell_rayon(fp, next, footprint, &board, &cells, best);
                        nnc_ref.fetch_add(examined, Ordering::Relaxed);
                    }
                });
            }
        }
    });
    nnc.into_inner() + nnl
}

/// The best placement of `fp`'s cells and the number of corners examined,
/// under rayon.
pub fn compute_floorplan_rayon(fp: &Floorplan) -> (Solution, u64) {
    let best = Best::new();
    let cells = fp.initial_extents();
    let board: Board = [[0; COLS]; ROWS];
    let examined = add_cell_rayon(fp, 1, [0, 0], &board, &cells, &best);
    (best.into_solution(), examined)
}
