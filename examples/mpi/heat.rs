//! A 2-D heat equation (Jacobi sweeps) across MPI ranks, each rank owning a
//! block of rows with one halo row above and below, in three versions:
//!
//! * `bsp` — bulk-synchronous: exchange the halos (MPI waits on the main
//!   thread), then compute every row with Prescient's fork-join;
//! * `tasks` — Prescient tasks in TAMPI's blocking mode: the tasks of the
//!   two boundary rows post their exchange and `prescient::mpi::wait` for
//!   it (suspending; their worker computes interior rows meanwhile), so the
//!   exchange overlaps the interior's computation;
//! * `rayon` — `bsp` with rayon inside each rank.
//!
//! Every version is checked against a sequential solve of the whole grid
//! (bit for bit: each cell is computed with the same operations). Prints
//! the time per iteration, the exchange time `bsp` waits for, and the
//! fraction of it the `tasks` version hides:
//! `(bsp - tasks) / bsp's exchange`.
//!
//! ```text
//! cargo build --release -p prescient-examples --features mpi --example heat_mpi
//! mpirun -np 2 target/release/examples/heat_mpi [--rows 2048] [--cols 2048] [--iterations 50] [--workers N]
//! ```

use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use std::time::{Duration, Instant};

/// Rows of a rank's block per interior task.
const ROWS_PER_TASK: usize = 16;

struct Args {
    rows: usize,
    cols: usize,
    iterations: usize,
    workers: Option<usize>,
}

fn parse_args() -> Args {
    let mut args = Args {
        rows: 1024,
        cols: 1024,
        iterations: 40,
        workers: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().and_then(|v| v.parse::<usize>().ok());
        let value = value.unwrap_or_else(|| panic!("{flag} needs a number"));
        match flag.as_str() {
            "--rows" => args.rows = value,
            "--cols" => args.cols = value,
            "--iterations" => args.iterations = value,
            "--workers" => args.workers = Some(value),
            other => panic!("unknown flag {other}"),
        }
    }
    assert!(
        args.rows >= 3 && args.cols >= 3,
        "the grid needs an interior"
    );
    args
}

/// The initial grid: the top row hot (1.0), everything else 0; the border
/// never changes.
fn initial(global_row: usize, _col: usize) -> f64 {
    if global_row == 0 {
        1.0
    } else {
        0.0
    }
}

/// One Jacobi update of the interior columns of a row.
fn update_row(above: &[f64], row: &[f64], below: &[f64], out: &mut [f64]) {
    let cols = row.len();
    out[0] = row[0];
    out[cols - 1] = row[cols - 1];
    for j in 1..cols - 1 {
        out[j] = 0.25 * (above[j] + below[j] + row[j - 1] + row[j + 1]);
    }
}

/// The whole grid, sequentially: the reference.
fn sequential(rows: usize, cols: usize, iterations: usize) -> Vec<f64> {
    let mut old: Vec<f64> = (0..rows * cols)
        .map(|k| initial(k / cols, k % cols))
        .collect();
    let mut new = old.clone();
    for _ in 0..iterations {
        for i in 1..rows - 1 {
            let (above, rest) = old[(i - 1) * cols..].split_at(cols);
            let (row, rest) = rest.split_at(cols);
            update_row(
                above,
                row,
                &rest[..cols],
                &mut new[i * cols..(i + 1) * cols],
            );
        }
        std::mem::swap(&mut old, &mut new);
    }
    old
}

/// A rank's block: `own` rows of the global grid from `first`, stored with
/// a halo row above and below (`(own + 2) * cols` values).
#[derive(Clone)]
struct Block {
    first: usize,
    own: usize,
    cols: usize,
    total_rows: usize,
    cells: Vec<f64>,
}

impl Block {
    fn new(rank: usize, ranks: usize, rows: usize, cols: usize) -> Block {
        let first = rank * rows / ranks;
        let own = (rank + 1) * rows / ranks - first;
        let cells = (0..(own + 2) * cols)
            .map(|k| {
                let local = k / cols;
                let global = (first + local).checked_sub(1);
                global.map_or(0.0, |g| if g < rows { initial(g, k % cols) } else { 0.0 })
            })
            .collect();
        Block {
            first,
            own,
            cols,
            total_rows: rows,
            cells,
        }
    }

    /// Whether local row `l` (1..=own) is on the global border (fixed).
    fn fixed(&self, local: usize) -> bool {
        let global = self.first + local - 1;
        global == 0 || global == self.total_rows - 1
    }
}

/// Computes local rows `range` (within 1..=own) of `new` from `old`.
fn compute_rows(old: &[f64], new_rows: &mut [f64], range: std::ops::Range<usize>, block: &Block) {
    let cols = block.cols;
    for (k, local) in range.enumerate() {
        let out = &mut new_rows[k * cols..(k + 1) * cols];
        let row = &old[local * cols..(local + 1) * cols];
        if block.fixed(local) {
            out.copy_from_slice(row);
        } else {
            update_row(
                &old[(local - 1) * cols..local * cols],
                row,
                &old[(local + 1) * cols..(local + 2) * cols],
                out,
            );
        }
    }
}

/// Exchanges the halos of `cells` with the neighbours, waiting with MPI on
/// this thread.
fn exchange_blocking(world: &SimpleCommunicator, cells: &mut [f64], own: usize, cols: usize) {
    let (rank, size) = (world.rank(), world.size());
    let (top_halo, rest) = cells.split_at_mut(cols);
    let (body, bottom_halo) = rest.split_at_mut(own * cols);
    let first_row = &body[..cols];
    let last_row = &body[(own - 1) * cols..];
    mpi::request::scope(|scope| {
        let mut requests = Vec::new();
        if rank > 0 {
            let up = world.process_at_rank(rank - 1);
            requests.push(up.immediate_send_with_tag(scope, first_row, 1));
        }
        if rank + 1 < size {
            let down = world.process_at_rank(rank + 1);
            requests.push(down.immediate_send_with_tag(scope, last_row, 2));
        }
        let mut receives = Vec::new();
        if rank > 0 {
            let up = world.process_at_rank(rank - 1);
            receives.push(up.immediate_receive_into_with_tag(scope, &mut *top_halo, 2));
        }
        if rank + 1 < size {
            let down = world.process_at_rank(rank + 1);
            receives.push(down.immediate_receive_into_with_tag(scope, &mut *bottom_halo, 1));
        }
        for request in requests.into_iter().chain(receives) {
            request.wait();
        }
    });
}

/// A bulk-synchronous version's compute phase: a block's rows of `new`
/// from `old`.
type ComputePhase = fn(&[f64], &mut [f64], &Block);

/// The bulk-synchronous version with `compute` for the compute phase;
/// returns the block and the time spent exchanging.
fn bsp(mut old: Block, iterations: usize, compute: ComputePhase) -> (Block, Duration) {
    let world = SimpleCommunicator::world();
    let mut new = old.clone();
    let mut exchanging = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        exchange_blocking(&world, &mut old.cells, old.own, old.cols);
        exchanging += start.elapsed();
        let cols = old.cols;
        compute(&old.cells, &mut new.cells[cols..(old.own + 1) * cols], &old);
        std::mem::swap(&mut old, &mut new);
    }
    (old, exchanging)
}

/// Prescient's compute phase: blocks of rows as scope tasks.
fn prescient_compute(old: &[f64], new_rows: &mut [f64], block: &Block) {
    let cols = block.cols;
    prescient::scope(|s| {
        for (k, rows) in new_rows.chunks_mut(ROWS_PER_TASK * cols).enumerate() {
            let first = 1 + k * ROWS_PER_TASK;
            let range = first..first + rows.len() / cols;
            s.spawn(move |_| compute_rows(old, rows, range, block));
        }
    });
}

/// rayon's compute phase.
fn rayon_compute(old: &[f64], new_rows: &mut [f64], block: &Block) {
    use rayon::prelude::*;
    let cols = block.cols;
    new_rows
        .par_chunks_mut(ROWS_PER_TASK * cols)
        .enumerate()
        .for_each(|(k, rows)| {
            let first = 1 + k * ROWS_PER_TASK;
            compute_rows(old, rows, first..first + rows.len() / cols, block);
        });
}

/// The task version: per iteration, a scope whose two boundary tasks
/// exchange one halo each and then compute their row, while the interior
/// rows' tasks run.
fn tasks(rank: i32, size: i32, mut old: Block, iterations: usize) -> Block {
    let mut new = old.clone();
    let (own, cols) = (old.own, old.cols);
    for _ in 0..iterations {
        {
            // The block's shape, for the tasks (its cells are split below).
            let meta = old.clone_meta();
            let (top_halo, rest) = old.cells.split_at_mut(cols);
            let (body, bottom_halo) = rest.split_at_mut(own * cols);
            let body: &[f64] = body;
            let new_rows = &mut new.cells[cols..(own + 1) * cols];
            let (new_first, rest) = new_rows.split_at_mut(cols);
            let (new_middle, new_last) = rest.split_at_mut(own.saturating_sub(2) * cols);
            let meta = &meta;
            prescient::scope(|s| {
                // Interior rows 2..own-1, which read only the block's own rows.
                // Spawned first: a scope runs its unstolen tasks newest first,
                // so the boundary tasks below post their exchange first, and
                // the interior is computed while the messages travel.
                for (k, rows) in new_middle.chunks_mut(ROWS_PER_TASK * cols).enumerate() {
                    s.spawn(move |_| {
                        let first = 2 + k * ROWS_PER_TASK;
                        for (r, out) in rows.chunks_mut(cols).enumerate() {
                            let local = first + r;
                            let row = &body[(local - 1) * cols..local * cols];
                            if meta.fixed(local) {
                                out.copy_from_slice(row);
                            } else {
                                update_row(
                                    &body[(local - 2) * cols..(local - 1) * cols],
                                    row,
                                    &body[local * cols..(local + 1) * cols],
                                    out,
                                );
                            }
                        }
                    });
                }
                // Upper boundary: exchange with rank - 1, then row 1.
                s.spawn(move |_| {
                    let world = SimpleCommunicator::world();
                    if rank > 0 {
                        let up = world.process_at_rank(rank - 1);
                        mpi::request::scope(|scope| {
                            let send = up.immediate_send_with_tag(scope, &body[..cols], 1);
                            let receive = up.immediate_receive_into_with_tag(scope, top_halo, 2);
                            prescient::mpi::wait(send);
                            prescient::mpi::wait(receive);
                        });
                    }
                    let view = Halo3 {
                        above: top_halo,
                        body,
                        below: None,
                        cols,
                    };
                    view.compute_first(new_first, meta);
                });
                // Lower boundary: exchange with rank + 1, then row `own`.
                if own >= 2 {
                    s.spawn(move |_| {
                        let world = SimpleCommunicator::world();
                        if rank + 1 < size {
                            let down = world.process_at_rank(rank + 1);
                            mpi::request::scope(|scope| {
                                let send = down.immediate_send_with_tag(
                                    scope,
                                    &body[(own - 1) * cols..],
                                    2,
                                );
                                let receive =
                                    down.immediate_receive_into_with_tag(scope, bottom_halo, 1);
                                prescient::mpi::wait(send);
                                prescient::mpi::wait(receive);
                            });
                        }
                        let view = Halo3 {
                            above: &[],
                            body,
                            below: Some(bottom_halo),
                            cols,
                        };
                        view.compute_last(new_last, meta);
                    });
                }
            });
        }
        std::mem::swap(&mut old, &mut new);
    }
    old
}

/// The dataflow version: every iteration's tasks are submitted at once,
/// ordered by their accesses. Per iteration, per neighbour, a task receives
/// the halo into its `out` data and one sends the boundary row it reads,
/// each binding its request to its completion (`prescient::mpi::bind`, so
/// no task waits); a task per block of rows computes the block of the next
/// grid from the block and the rows around it (the neighbour blocks, or
/// the halos). Nothing waits for a whole iteration: a block goes on to the
/// next iteration as soon as its neighbours have.
fn dataflow_version(rank: i32, size: i32, start: &Block, iterations: usize) -> Block {
    let (own, cols) = (start.own, start.cols);
    let rows_per_task = ROWS_PER_TASK.min(own / 2).max(1);
    let blocks = own.div_ceil(rows_per_task);
    let body = |block: &Block| block.cells[cols..(own + 1) * cols].to_vec();
    let mut grids = [body(start), body(start)];
    let meta = &start.clone_meta();
    // Tags: per iteration and direction (upward 1, downward 2), so that a
    // receive posted early for a later iteration never takes an earlier
    // iteration's message.
    let tag = |iteration: usize, direction: i32| (iteration % 8192) as i32 * 4 + direction;
    {
        let [grid_a, grid_b] = &mut grids;
        prescient::dataflow(|df| {
            let tile = rows_per_task * cols;
            let grids = [df.tiles(grid_a, tile), df.tiles(grid_b, tile)];
            let top = [df.data(vec![0.0; cols]), df.data(vec![0.0; cols])];
            let bottom = [df.data(vec![0.0; cols]), df.data(vec![0.0; cols])];
            for k in 0..iterations {
                let (old, new) = (&grids[k % 2], &grids[(k + 1) % 2]);
                let (top, bottom) = (&top[k % 2], &bottom[k % 2]);
                if rank > 0 {
                    df.task(top.out(), move |halo: &mut Vec<f64>| {
                        bind_receive(rank - 1, halo, tag(k, 2));
                    });
                    df.task(old.read(0), move |rows: &[f64]| {
                        bind_send(rank - 1, &rows[..cols], tag(k, 1));
                    });
                }
                if rank + 1 < size {
                    df.task(bottom.out(), move |halo: &mut Vec<f64>| {
                        bind_receive(rank + 1, halo, tag(k, 1));
                    });
                    df.task(old.read(blocks - 1), move |rows: &[f64]| {
                        bind_send(rank + 1, &rows[rows.len() - cols..], tag(k, 2));
                    });
                }
                for b in 0..blocks {
                    let first = 1 + b * rows_per_task;
                    let compute =
                        move |above: &[f64], rows: &[f64], below: &[f64], out: &mut [f64]| {
                            compute_block(above, rows, below, out, first, meta);
                        };
                    let last_row = |rows: &[f64]| rows[rows.len() - cols..].to_vec();
                    match (b == 0, b + 1 == blocks) {
                        (true, true) => unreachable!("at least two blocks"),
                        (true, false) => df.task(
                            (top.read(), old.read(b), old.read(b + 1), new.out(b)),
                            move |(halo, rows, next, out): (
                                &Vec<f64>,
                                &[f64],
                                &[f64],
                                &mut [f64],
                            )| {
                                compute(halo, rows, &next[..cols], out)
                            },
                        ),
                        (false, true) => df.task(
                            (old.read(b - 1), old.read(b), bottom.read(), new.out(b)),
                            move |(previous, rows, halo, out): (
                                &[f64],
                                &[f64],
                                &Vec<f64>,
                                &mut [f64],
                            )| {
                                compute(&last_row(previous), rows, halo, out)
                            },
                        ),
                        (false, false) => df.task(
                            (old.read(b - 1), old.read(b), old.read(b + 1), new.out(b)),
                            move |(previous, rows, next, out): (
                                &[f64],
                                &[f64],
                                &[f64],
                                &mut [f64],
                            )| {
                                compute(&last_row(previous), rows, &next[..cols], out)
                            },
                        ),
                    }
                }
            }
        });
    }
    let mut block = start.clone();
    block.cells[cols..(own + 1) * cols].copy_from_slice(&grids[iterations % 2]);
    block
}

/// A receive from `from` into `halo`, bound to the running dataflow task.
fn bind_receive(from: i32, halo: &mut [f64], tag: i32) {
    let world = SimpleCommunicator::world();
    mpi::request::scope(|scope| {
        let receive = world
            .process_at_rank(from)
            .immediate_receive_into_with_tag(scope, halo, tag);
        // SAFETY: `halo` is the task's own `out` data: nothing else touches
        // it until the task completes, which waits for the receive.
        unsafe { prescient::mpi::bind(vec![receive]) };
    });
}

/// A send of `row` to `to`, bound to the running dataflow task.
fn bind_send(to: i32, row: &[f64], tag: i32) {
    let world = SimpleCommunicator::world();
    mpi::request::scope(|scope| {
        let send = world
            .process_at_rank(to)
            .immediate_send_with_tag(scope, row, tag);
        // SAFETY: `row` is in the task's own `in` data: nothing writes it
        // until the task completes, which waits for the send.
        unsafe { prescient::mpi::bind(vec![send]) };
    });
}

/// Computes the block of rows from local row `first` (`rows`, with the row
/// `above` and the row `below` it) into `out`.
fn compute_block(
    above: &[f64],
    rows: &[f64],
    below: &[f64],
    out: &mut [f64],
    first: usize,
    block: &Block,
) {
    let cols = block.cols;
    let count = rows.len() / cols;
    for r in 0..count {
        let local = first + r;
        let row = &rows[r * cols..(r + 1) * cols];
        let dest = &mut out[r * cols..(r + 1) * cols];
        if block.fixed(local) {
            dest.copy_from_slice(row);
            continue;
        }
        let up = if r == 0 {
            above
        } else {
            &rows[(r - 1) * cols..r * cols]
        };
        let down = if r + 1 == count {
            below
        } else {
            &rows[(r + 1) * cols..(r + 2) * cols]
        };
        update_row(up, row, down, dest);
    }
}

/// The rows a boundary task reads: its halo and the block's rows.
struct Halo3<'a> {
    above: &'a [f64],
    body: &'a [f64],
    below: Option<&'a [f64]>,
    cols: usize,
}

impl Halo3<'_> {
    /// Local row 1 (from the upper halo, row 1 and row 2).
    fn compute_first(&self, out: &mut [f64], block: &Block) {
        let cols = self.cols;
        let row = &self.body[..cols];
        if block.fixed(1) || block.own < 2 {
            out.copy_from_slice(row);
        } else {
            update_row(self.above, row, &self.body[cols..2 * cols], out);
        }
    }

    /// Local row `own` (from row own - 1, row own and the lower halo).
    fn compute_last(&self, out: &mut [f64], block: &Block) {
        let (cols, own) = (self.cols, block.own);
        let row = &self.body[(own - 1) * cols..own * cols];
        if block.fixed(own) {
            out.copy_from_slice(row);
        } else {
            let below = self.below.expect("the lower halo");
            update_row(
                &self.body[(own - 2) * cols..(own - 1) * cols],
                row,
                below,
                out,
            );
        }
    }
}

impl Block {
    fn clone_meta(&self) -> Block {
        Block {
            first: self.first,
            own: self.own,
            cols: self.cols,
            total_rows: self.total_rows,
            cells: Vec::new(),
        }
    }
}

/// Gathers every rank's rows on rank 0 and compares them with the
/// sequential solve there.
fn check(world: &SimpleCommunicator, block: &Block, expected: Option<&[f64]>, what: &str) {
    let cols = block.cols;
    let mine = &block.cells[cols..(block.own + 1) * cols];
    let root = world.process_at_rank(0);
    if world.rank() == 0 {
        let expected = expected.expect("rank 0 has the reference");
        let mut all = mine.to_vec();
        for rank in 1..world.size() {
            let (rows, _) = world.process_at_rank(rank).receive_vec::<f64>();
            all.extend(rows);
        }
        assert_eq!(all.len(), expected.len(), "{what}: grid size");
        let worst = all
            .iter()
            .zip(expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(
            worst == 0.0,
            "{what}: differs from the sequential solve by {worst}"
        );
    } else {
        root.send(mine);
    }
}

fn main() {
    let args = parse_args();
    let universe = prescient::mpi::initialize().expect("MPI with MPI_THREAD_MULTIPLE");
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let runtime = prescient::Runtime::builder()
        .num_workers(workers)
        .build()
        .unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .unwrap();
    let expected = (rank == 0).then(|| sequential(args.rows, args.cols, args.iterations));
    let start_block = Block::new(rank as usize, size as usize, args.rows, args.cols);
    assert!(start_block.own >= 2, "at least two rows per rank");

    let mut results = Vec::new();
    for version in ["bsp", "tasks", "dataflow", "rayon"] {
        world.barrier();
        let block = start_block.clone();
        let start = Instant::now();
        let (block, exchanging) = match version {
            "bsp" => runtime.run(|| bsp(block, args.iterations, prescient_compute)),
            "rayon" => pool.install(|| bsp(block, args.iterations, rayon_compute)),
            "dataflow" => (
                runtime.run(|| dataflow_version(rank, size, &block, args.iterations)),
                Duration::ZERO,
            ),
            _ => (
                runtime.run(|| tasks(rank, size, block, args.iterations)),
                Duration::ZERO,
            ),
        };
        let elapsed = start.elapsed();
        world.barrier();
        check(&world, &block, expected.as_deref(), version);
        results.push((version, elapsed, exchanging));
    }
    if rank == 0 {
        let per = |d: Duration| d.as_secs_f64() * 1e3 / args.iterations as f64;
        println!(
            "heat {}x{}, {} iterations, {size} ranks x {workers} workers: every version equals the sequential solve",
            args.rows, args.cols, args.iterations
        );
        println!(
            "{:<8} {:>12} {:>16}",
            "version", "ms/iteration", "exchange ms/it"
        );
        for (version, elapsed, exchanging) in &results {
            println!(
                "{version:<8} {:>12.3} {:>16.3}",
                per(*elapsed),
                per(*exchanging)
            );
        }
        // What a version hides of the exchange bsp waits for: the time it
        // saves over bsp, as a fraction of that exchange.
        let (bsp_time, bsp_exchange) = (results[0].1, results[0].2);
        if bsp_exchange.as_secs_f64() >= 0.1 * bsp_time.as_secs_f64() {
            for (version, elapsed, _) in &results[1..3] {
                let saved = bsp_time.as_secs_f64() - elapsed.as_secs_f64();
                let hidden = saved / bsp_exchange.as_secs_f64();
                println!("exchange hidden by {version}: {:.0} %", 100.0 * hidden);
            }
        } else {
            println!(
                "the exchange is under 10 % of bsp's time: too small to measure what is hidden"
            );
        }
    }
}
