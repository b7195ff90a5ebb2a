//! BOTS `floorplan`, annotated with `#[task_program]`: a branch-and-bound
//! search for the placement of cells on a board with the smallest bounding
//! rectangle.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `floorplan` (from the
//! Application Kernel Matrix by Cray), in its variant without a cut-off. An
//! input lists `N` cells; each has a few alternative shapes (rows × columns)
//! and names the cell to its left and the cell above it (earlier cells),
//! which fix where its north-west corner may go ([`tasks::starts`]), and the
//! next cell to place. [`tasks::add_cell`] places cell `id`: for every shape
//! and every admissible corner it spawns one task (`#pragma omp task` in the
//! two nested loops, here [`prescient::scope`]'s spawn in the loops). Each
//! task copies the cell extents and the 64 × 64 board into its own stack
//! frame (BOTS: a variable-length array and a `private` board), lays the cell
//! down ([`tasks::lay_down`]; an overlap prunes the alternative), computes
//! the new footprint (the bounding rectangle from the board's corner) and its
//! area. The last cell offers its area to the shared best ([`record`], BOTS'
//! `critical` section); any other cell recurses into the next one if its area
//! is still below the best area so far, and prunes otherwise. The scope waits
//! for the alternatives (`taskwait`) and returns how many corners the call
//! and its descendants examined (BOTS' task count).
//!
//! **The shared bound.** The best solution (area, footprint, board) lives in
//! a [`Mutex`], the `critical` section; its area is mirrored in an
//! [`AtomicI32`], the bound every task reads to prune (BOTS reads the plain
//! global `MIN_AREA`, a data race in C). All accesses to the mirror are
//! `Relaxed`: it is written only under the mutex and only ever decreases, so
//! a task that reads a stale value sees a
//! *larger* bound and merely prunes less — it never prunes an alternative the
//! current bound would keep, and no task ever acts on a value that was not
//! once the best area. The mutex orders the solutions themselves (test, then
//! replace, as BOTS' double-checked `if` in the `critical`), and the final
//! result is read after the root scope has joined every task, which
//! publishes all their writes. The minimal area is therefore deterministic;
//! the board that achieves it (when several do) and the count of examined
//! corners depend on the order in which tasks finish, as in BOTS.
//!
//! **What the analysis finds.** One task context, [`add_cell`], with one
//! spawn site inside the shape and corner loops (λ = 1) whose task calls
//! `add_cell` back: one recursive parallel path (ρ = 1). As for nqueens, ρ > 0
//! makes it a *recursive* program for CF'17's trees, which would give queue
//! policy `DEF` (ρ = 1 ≤ 5 and a task effort of about 50 thousand
//! operations, below the 1M coarse band: mostly [`tasks::lay_down`]'s two
//! nested loops, whose run-time bounds count 100 iterations each, plus the
//! recursive call and the bound test), capacity 4 and 256019 dependency
//! buckets. The calibrated trees (`PARAMS`) give `DEF`, capacity 8 (effort
//! 50539 ≥ 7667: visible work, DEF/8) and the same buckets. The recursion's depth (the
//! number of cells, read from the input) is not bounded by the analysis, so
//! the stack estimate is the conservative 8 MiB (the runtime's default).
//!
//! **Differences from BOTS.** (1) A cell that would reach past the 64 × 64
//! board does not fit (BOTS writes past the board's rows, undefined
//! behaviour; no input reaches it). (2) A cell with neither a left nor an
//! above neighbour has no corners (BOTS indexes `cells[-1]`; no input has
//! one). (3) The bound is an atomic mirror read `Relaxed` (see above), not a
//! racy plain read. (4) Cell extents live in a fixed array of
//! [`MAX_CELLS`]` + 1` entries (BOTS: a variable-length array of `N + 1`).
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`floorplan_seq`] (BOTS'
//! `add_cell_ser`) finds the minimal area of every run; BOTS' inputs end with
//! the expected area ([`Floorplan::solution`]: 216 for `input.5`, 713 for
//! `input.15`, 896 for `input.20`), which checks both.
//!
//! Inputs: BOTS' `input.5`, `input.15` and `input.20` in
//! `benches/data/floorplan/` ([`input_5`], [`input_15`], [`input_20`]; see
//! `SOURCE.md` there).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicI32;
use std::sync::Mutex;

pub use tasks::{add_cell, compute_floorplan, record, ANALYSIS, PARAMS};

/// BOTS' smallest floorplan input: 5 cells, minimal area 216.
pub fn input_5() -> PathBuf {
    crate::data::input("floorplan/input.5")
}

/// BOTS' medium floorplan input: 15 cells, minimal area 713.
pub fn input_15() -> PathBuf {
    crate::data::input("floorplan/input.15")
}

/// BOTS' largest floorplan input, the paper's: 20 cells, minimal area 896.
pub fn input_20() -> PathBuf {
    crate::data::input("floorplan/input.20")
}

/// The paper's input.
pub fn paper_input() -> PathBuf {
    input_20()
}

/// The input the integration tests run under both build profiles.
pub fn test_input() -> PathBuf {
    input_5()
}

/// The board's rows (BOTS' `ROWS`).
pub const ROWS: usize = 64;

/// The board's columns (BOTS' `COLS`).
pub const COLS: usize = 64;

/// The most cells an input may have (the extents are a fixed array of
/// `MAX_CELLS + 1` on each task's stack; BOTS' inputs have at most 20).
pub const MAX_CELLS: usize = 32;

/// The most corners [`tasks::starts`] can produce for one shape: a row or a
/// column range of the board (BOTS' `DMAX` is 64; `ROWS + 1` covers its
/// `bot - top + 1` with `bot` clamped to `ROWS`).
pub const MAX_STARTS: usize = ROWS + 1;

/// The board: 0 where free, else the id of the cell covering the square
/// (BOTS' `ibrd`).
pub type Board = [[u8; COLS]; ROWS];

/// A footprint: the rows and columns of the bounding rectangle from the
/// board's corner (BOTS' `coor`).
pub type Footprint = [i32; 2];

/// Where a cell was laid down: its first and last row and column, inclusive
/// (BOTS' `top`, `bot`, `lhs`, `rhs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    /// The first row.
    pub top: i32,
    /// The last row.
    pub bot: i32,
    /// The first column.
    pub lhs: i32,
    /// The last column.
    pub rhs: i32,
}

/// The extents of cells `0 ..= N` (cell 0 is the board's corner sentinel).
pub type Extents = [Extent; MAX_CELLS + 1];

/// One cell of the input (BOTS' `struct cell` less its extent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The alternative shapes, `[rows, columns]`.
    pub alt: Vec<[i32; 2]>,
    /// The cell to the left, if any (BOTS: `-1` for none).
    pub left: Option<usize>,
    /// The cell above, if any (BOTS: `-1` for none).
    pub above: Option<usize>,
    /// The next cell to place; 0 after the last.
    pub next: usize,
}

/// A floorplan input: the cells `1 ..= N` (index 0 is BOTS' sentinel cell,
/// no shapes) and the expected minimal area if the file gives one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Floorplan {
    /// The cells, index 0 the sentinel.
    pub cells: Vec<Cell>,
    /// The minimal area the file records (its last number), if any.
    pub solution: Option<i32>,
}

impl Floorplan {
    /// The number of cells `N`.
    pub fn len(&self) -> usize {
        self.cells.len() - 1
    }

    /// Whether the input has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The extents before the search: the sentinel cell 0 at row 0, column
    /// -1 (BOTS' `gcells[0]`), every other cell zero.
    pub fn initial_extents(&self) -> Extents {
        let mut cells = [Extent::default(); MAX_CELLS + 1];
        cells[0] = Extent {
            top: 0,
            bot: 0,
            lhs: -1,
            rhs: -1,
        };
        cells
    }
}

pub use super::input::ReadError;

/// Parses a floorplan input in BOTS' format (BOTS' `read_inputs`): white
/// space separated integers, `N`, then per cell the number of shapes, each
/// shape's rows and columns, and the left, above and next cells (`-1` for
/// none); optionally the expected minimal area last.
pub fn parse_floorplan(text: &str) -> Result<Floorplan, ReadError> {
    let mut numbers = text.split_whitespace().map(|w| {
        w.parse::<i32>()
            .map_err(|_| ReadError::Format(format!("{w:?} is not an integer")))
    });
    let mut next = || {
        numbers
            .next()
            .unwrap_or_else(|| Err(ReadError::Format("the file ends early".into())))
    };
    let n = usize::try_from(next()?)
        .ok()
        .filter(|&n| (1..=MAX_CELLS).contains(&n))
        .ok_or_else(|| ReadError::Format(format!("1 ..= {MAX_CELLS} cells expected")))?;
    let neighbour = |v: i32, i: usize| -> Result<Option<usize>, ReadError> {
        match usize::try_from(v) {
            Ok(c) if c < i => Ok(Some(c)),
            Ok(c) => Err(ReadError::Format(format!(
                "cell {i} names cell {c}, not an earlier one"
            ))),
            Err(_) => Ok(None),
        }
    };
    let mut cells = vec![Cell {
        alt: Vec::new(),
        left: None,
        above: None,
        next: 0,
    }];
    for i in 1..=n {
        let shapes = usize::try_from(next()?)
            .map_err(|_| ReadError::Format(format!("cell {i}: negative shape count")))?;
        let mut alt = Vec::with_capacity(shapes);
        for _ in 0..shapes {
            let (rows, cols) = (next()?, next()?);
            if rows < 1 || cols < 1 {
                return Err(ReadError::Format(format!("cell {i}: empty shape")));
            }
            alt.push([rows, cols]);
        }
        let left = neighbour(next()?, i)?;
        let above = neighbour(next()?, i)?;
        let following = usize::try_from(next()?)
            .ok()
            .filter(|&c| c <= n)
            .ok_or_else(|| ReadError::Format(format!("cell {i}: bad next cell")))?;
        cells.push(Cell {
            alt,
            left,
            above,
            next: following,
        });
    }
    let solution = numbers.next().transpose()?;
    Ok(Floorplan { cells, solution })
}

/// Reads and parses a floorplan file (see [`parse_floorplan`]).
pub fn read_floorplan(path: impl AsRef<Path>) -> Result<Floorplan, ReadError> {
    let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
    parse_floorplan(&text)
}

/// A placement of all cells: the area of its footprint, the footprint and
/// the board (BOTS' `MIN_AREA`, `MIN_FOOTPRINT` and `BEST_BOARD`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The footprint's area (`ROWS * COLS` before any placement is found).
    pub area: i32,
    /// The footprint: rows and columns.
    pub footprint: Footprint,
    /// The board with every cell laid down.
    pub board: Board,
}

impl Solution {
    /// No placement yet: the whole board's area (BOTS' initial `MIN_AREA`).
    pub fn none() -> Solution {
        Solution {
            area: (ROWS * COLS) as i32,
            footprint: [0, 0],
            board: [[0; COLS]; ROWS],
        }
    }

    /// Whether the board is a placement of every cell of `fp` within the
    /// footprint, each cell one of its shapes, and the area the footprint's.
    pub fn is_placement_of(&self, fp: &Floorplan) -> bool {
        let [rows, cols] = self.footprint;
        if rows * cols != self.area {
            return false;
        }
        for (id, cell) in fp.cells.iter().enumerate().skip(1) {
            // The bounding box of the squares marked `id`.
            let (mut top, mut bot, mut lhs, mut rhs, mut count) = (i32::MAX, -1, i32::MAX, -1, 0);
            for (i, row) in (0i32..).zip(self.board.iter()) {
                for (j, &v) in (0i32..).zip(row.iter()) {
                    if usize::from(v) == id {
                        if i >= rows || j >= cols {
                            return false;
                        }
                        (top, bot) = (top.min(i), bot.max(i));
                        (lhs, rhs) = (lhs.min(j), rhs.max(j));
                        count += 1;
                    }
                }
            }
            let (h, w) = (bot - top + 1, rhs - lhs + 1);
            if count == 0 || h * w != count || !cell.alt.contains(&[h, w]) {
                return false;
            }
        }
        true
    }
}

/// The shared best of the parallel search: the solution under a mutex (BOTS'
/// `critical`) and its area mirrored in an atomic, the pruning bound (see the
/// module documentation for the orderings).
#[derive(Debug)]
pub struct Best {
    /// The best area so far: written under `solution`'s lock, read `Relaxed`.
    pub bound: AtomicI32,
    /// The best placement so far.
    pub solution: Mutex<Solution>,
}

impl Best {
    /// No placement yet (area `ROWS * COLS`).
    pub fn new() -> Best {
        let solution = Solution::none();
        Best {
            bound: AtomicI32::new(solution.area),
            solution: Mutex::new(solution),
        }
    }

    /// The best placement found.
    pub fn into_solution(self) -> Solution {
        self.solution
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for Best {
    fn default() -> Best {
        Best::new()
    }
}

/// The sequential reference (BOTS' `add_cell_ser` from cell 1 on an empty
/// board): the best placement and the number of corners examined.
pub fn floorplan_seq(fp: &Floorplan) -> (Solution, u64) {
    fn add_cell_seq(
        fp: &Floorplan,
        id: usize,
        footprint: Footprint,
        board: &Board,
        cells: &mut Extents,
        best: &mut Solution,
    ) -> u64 {
        let mut examined = 0;
        let mut nws = [[0i32; 2]; MAX_STARTS];
        for (shape, &[rows, cols]) in fp.cells[id].alt.iter().enumerate() {
            let nn = tasks::starts(fp, id, shape, &mut nws, cells);
            examined += nn as u64;
            for &[top, lhs] in &nws[..nn] {
                cells[id] = Extent {
                    top,
                    bot: top + rows - 1,
                    lhs,
                    rhs: lhs + cols - 1,
                };
                let mut board = *board;
                if !tasks::lay_down(id, &mut board, cells) {
                    continue;
                }
                let footprint = [
                    footprint[0].max(cells[id].bot + 1),
                    footprint[1].max(cells[id].rhs + 1),
                ];
                let area = footprint[0] * footprint[1];
                let next = fp.cells[id].next;
                if next == 0 {
                    if area < best.area {
                        *best = Solution {
                            area,
                            footprint,
                            board,
                        };
                    }
                } else if area < best.area {
                    examined += add_cell_seq(fp, next, footprint, &board, cells, best);
                }
            }
        }
        examined
    }
    let mut best = Solution::none();
    let mut cells = fp.initial_extents();
    let examined = add_cell_seq(fp, 1, [0, 0], &[[0; COLS]; ROWS], &mut cells, &mut best);
    (best, examined)
}

/// The task code of floorplan, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use super::{
        Best, Board, Extent, Extents, Floorplan, Footprint, Solution, COLS, MAX_STARTS, ROWS,
    };
    use prescient::scope;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::PoisonError;

    /// The admissible north-west corners `[row, column]` of cell `id` in
    /// shape `shape`, written to `nws`; returns how many (BOTS' `starts`).
    ///
    /// With a left and an above neighbour the corner is fixed (just below the
    /// cell above, just right of the cell to the left) and admissible only if
    /// the cell then touches both; with only a left neighbour it is any row
    /// from which the cell overlaps the left one's rows; with only an above
    /// neighbour any such column. No neighbour: no corner (BOTS: undefined).
    pub fn starts(
        fp: &Floorplan,
        id: usize,
        shape: usize,
        nws: &mut [[i32; 2]; MAX_STARTS],
        cells: &Extents,
    ) -> usize {
        let [rows, cols] = fp.cells[id].alt[shape];
        match (fp.cells[id].left, fp.cells[id].above) {
            (Some(left), Some(above)) => {
                let (l, a) = (cells[left], cells[above]);
                let top = a.bot + 1;
                let lhs = l.rhs + 1;
                let bot = top + rows;
                let rhs = lhs + cols;
                if top <= l.bot && bot >= l.top && lhs <= a.rhs && rhs >= a.lhs {
                    nws[0] = [top, lhs];
                    1
                } else {
                    0
                }
            }
            (Some(left), None) => {
                let l = cells[left];
                let top = (l.top - rows + 1).max(0);
                let bot = l.bot.min(ROWS as i32);
                let n = usize::try_from(bot - top + 1).unwrap_or(0).min(MAX_STARTS);
                for (row, corner) in (top..).zip(nws[..n].iter_mut()) {
                    *corner = [row, l.rhs + 1];
                }
                n
            }
            (None, Some(above)) => {
                let a = cells[above];
                let lhs = (a.lhs - cols + 1).max(0);
                let rhs = a.rhs.min(COLS as i32);
                let n = usize::try_from(rhs - lhs + 1).unwrap_or(0).min(MAX_STARTS);
                for (col, corner) in (lhs..).zip(nws[..n].iter_mut()) {
                    *corner = [a.bot + 1, col];
                }
                n
            }
            (None, None) => 0,
        }
    }

    /// Lays cell `id` down on `board` over its extent in `cells`; `false` if
    /// a square is taken or off the board (BOTS' `lay_down`; the board may
    /// then be partly written, and is dropped).
    pub fn lay_down(id: usize, board: &mut Board, cells: &Extents) -> bool {
        let Extent { top, bot, lhs, rhs } = cells[id];
        if top < 0 || lhs < 0 || bot >= ROWS as i32 || rhs >= COLS as i32 {
            return false;
        }
        let mark = u8::try_from(id).expect("floorplan: cell ids fit in a byte");
        for row in &mut board[top as usize..=bot as usize] {
            for square in &mut row[lhs as usize..=rhs as usize] {
                if *square != 0 {
                    return false;
                }
                *square = mark;
            }
        }
        true
    }

    /// Offers a complete placement to the shared best: kept if its area is
    /// below the best so far (BOTS' `critical` section, with its test before
    /// and inside the lock).
    pub fn record(best: &Best, area: i32, footprint: Footprint, board: &Board) {
        if area < best.bound.load(Ordering::Relaxed) {
            let mut solution = best.solution.lock().unwrap_or_else(PoisonError::into_inner);
            if area < solution.area {
                solution.area = area;
                solution.footprint = footprint;
                solution.board = *board;
                best.bound.store(area, Ordering::Relaxed);
            }
        }
    }

    /// Places cell `id` and, recursively, the cells after it, on `board`
    /// (holding the cells before it, whose extents are in `cells`) with
    /// footprint `footprint` so far: one task per shape and admissible
    /// corner. Returns the number of corners examined by this call and its
    /// descendants (BOTS' `nnc + nnl`).
    pub fn add_cell(
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
        scope(|s| {
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
                            let examined = add_cell(fp, next, footprint, &board, &cells, best);
                            nnc_ref.fetch_add(examined, Ordering::Relaxed);
                        }
                    });
                }
            }
        });
        nnc.into_inner() + nnl
    }

    /// The best placement of `fp`'s cells and the number of corners examined
    /// (BOTS' `compute_floorplan`: `add_cell` from cell 1 on an empty board).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what
    /// the tests and the suite measure) or on the global runtime.
    pub fn compute_floorplan(fp: &Floorplan) -> (Solution, u64) {
        let best = Best::new();
        let cells = fp.initial_extents();
        let board: Board = [[0; COLS]; ROWS];
        let examined = add_cell(fp, 1, [0, 0], &board, &cells, &best);
        (best.into_solution(), examined)
    }
}
