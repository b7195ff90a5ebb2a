//! A 2-D heat equation (Jacobi sweeps) across MPI ranks, each rank owning a
//! block of rows with one halo row above and below, in four versions:
//!
//! * `bsp` — bulk-synchronous: exchange the halos (MPI waits on the main
//!   thread), then compute every row with a Prescient parallel loop
//!   (`for_chunks_mut`);
//! * `tasks` — Prescient tasks in TAMPI's blocking mode: per iteration a
//!   scope whose body posts the exchange, spawns the interior rows' tasks
//!   and waits with `prescient::mpi::wait_all` (suspending; its worker
//!   computes the interior meanwhile), then computes the two edge rows, so
//!   the exchange overlaps the interior's computation;
//! * `dataflow` — every iteration's tasks submitted at once, ordered by the
//!   rows they touch; the receives are tasks that bind their requests to
//!   their completion (`prescient::mpi::bind`), and the task of each edge
//!   block sends the row it computed the same way, so no thread waits and
//!   a block goes on to its next iteration as soon as the rows around it
//!   are there;
//! * `rayon` — `bsp` with rayon inside each rank.
//!
//! Every version is checked against a sequential solve of the whole grid
//! (bit for bit: each cell is computed with the same operations), which
//! every rank computes once, comparing its own rows: no grid crosses the
//! network for the check.
//!
//! # What it measures
//!
//! Each version runs twice per round: as it is, and with the exchange left
//! out (the same tasks and the same computation, stale halos, no MPI call).
//! The difference is the communication the version leaves *exposed*: time
//! per iteration the exchange adds. `bsp`'s exposed exchange is all of its
//! exchange (it computes nothing meanwhile; the example also prints the
//! time its main thread waited in MPI, which should agree). A version
//! *hides* `1 - exposed / bsp's exposed` of the exchange bulk-synchronous
//! code waits for. Times are per iteration, the slowest rank's, the median
//! of `--reps` rounds after one warm-up round; the versions and the two
//! modes alternate within a round, so a change of the machine's load hits
//! them alike. With more ranks × workers than cores the ranks share cores,
//! and the exchange then also measures the operating system's scheduling.
//!
//! ```text
//! cargo build --release -p prescient-examples --features mpi --example heat_mpi
//! mpirun -np 2 target/release/examples/heat_mpi [--rows 1024] [--cols 1024] [--iterations 40]
//!     [--workers N] [--reps 3] [--queue-capacity 65536] [--json]
//! ```
//!
//! `--json` prints the results as one JSON object on rank 0's last line,
//! a `prescient_benches::tables::mpi_heat::HeatRun` (`prescient-bench
//! mpi-heat` runs the example at 1, 2 and 4 ranks and reads it).

use mpi::collective::SystemOperation;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use prescient_benches::tables::mpi_heat::{rows_of, HeatRun, VersionTimes};
use std::time::{Duration, Instant};

/// Rows of a rank's block per task.
const ROWS_PER_TASK: usize = 16;

/// The versions, in the order each round runs them.
const VERSIONS: [&str; 4] = ["bsp", "tasks", "dataflow", "rayon"];

struct Args {
    rows: usize,
    cols: usize,
    iterations: usize,
    workers: Option<usize>,
    reps: usize,
    queue_capacity: usize,
    json: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        rows: 1024,
        cols: 1024,
        iterations: 40,
        workers: None,
        reps: 3,
        queue_capacity: prescient::tuning::MAX_QUEUE_CAPACITY,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--json" {
            args.json = true;
            continue;
        }
        let value = it.next().and_then(|v| v.parse::<usize>().ok());
        let value = value.unwrap_or_else(|| panic!("{flag} needs a number"));
        match flag.as_str() {
            "--rows" => args.rows = value,
            "--cols" => args.cols = value,
            "--iterations" => args.iterations = value,
            "--workers" => args.workers = Some(value.max(1)),
            "--reps" => args.reps = value.max(1),
            "--queue-capacity" => {
                args.queue_capacity = value.clamp(1, prescient::tuning::MAX_QUEUE_CAPACITY)
            }
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

    /// The block's shape without its cells, for tasks that get the cells
    /// split up.
    fn shape(&self) -> Block {
        Block {
            cells: Vec::new(),
            ..*self
        }
    }
}

/// Computes the rows from local row `first` (`rows`, with the row `above`
/// and the row `below` them) into `out`. Every version computes its rows
/// through this one function, so that all give the same bits.
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

/// Computes local rows `first..first + new_rows.len() / cols` of a block
/// whose cells (halos included) are `old`.
fn compute_rows(old: &[f64], new_rows: &mut [f64], first: usize, block: &Block) {
    let cols = block.cols;
    let count = new_rows.len() / cols;
    compute_block(
        &old[(first - 1) * cols..first * cols],
        &old[first * cols..(first + count) * cols],
        &old[(first + count) * cols..(first + count + 1) * cols],
        new_rows,
        first,
        block,
    );
}

/// The ranks a rank exchanges halos with: `None` at the grid's edge, and
/// for both when the exchange is left out (the measurement's second mode).
#[derive(Clone, Copy)]
struct Neighbours {
    up: Option<i32>,
    down: Option<i32>,
}

impl Neighbours {
    fn of(rank: i32, size: i32, exchange: bool) -> Neighbours {
        Neighbours {
            up: (exchange && rank > 0).then(|| rank - 1),
            down: (exchange && rank + 1 < size).then_some(rank + 1),
        }
    }
}

/// Exchanges the halos of `cells` with the neighbours, waiting with MPI on
/// this thread.
fn exchange_blocking(cells: &mut [f64], own: usize, cols: usize, neighbours: Neighbours) {
    let world = SimpleCommunicator::world();
    let (top_halo, rest) = cells.split_at_mut(cols);
    let (body, bottom_halo) = rest.split_at_mut(own * cols);
    let first_row = &body[..cols];
    let last_row = &body[(own - 1) * cols..];
    mpi::request::scope(|scope| {
        let mut requests = Vec::new();
        if let Some(up) = neighbours.up {
            let up = world.process_at_rank(up);
            requests.push(up.immediate_send_with_tag(scope, first_row, 1));
            requests.push(up.immediate_receive_into_with_tag(scope, &mut *top_halo, 2));
        }
        if let Some(down) = neighbours.down {
            let down = world.process_at_rank(down);
            requests.push(down.immediate_send_with_tag(scope, last_row, 2));
            requests.push(down.immediate_receive_into_with_tag(scope, &mut *bottom_halo, 1));
        }
        for request in requests {
            request.wait();
        }
    });
}

/// A bulk-synchronous version's compute phase: a block's rows of `new`
/// (local rows 1..=own) from `old`.
type ComputePhase = fn(&[f64], &mut [f64], &Block);

/// The bulk-synchronous version with `compute` for the compute phase;
/// returns the block and the time its thread spent in the exchange.
fn bsp(
    mut old: Block,
    iterations: usize,
    neighbours: Neighbours,
    compute: ComputePhase,
) -> (Block, Duration) {
    let mut new = old.clone();
    let mut exchanging = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        exchange_blocking(&mut old.cells, old.own, old.cols, neighbours);
        exchanging += start.elapsed();
        let cols = old.cols;
        compute(&old.cells, &mut new.cells[cols..(old.own + 1) * cols], &old);
        std::mem::swap(&mut old, &mut new);
    }
    (old, exchanging)
}

/// Prescient's compute phase: a parallel loop over blocks of rows.
fn prescient_compute(old: &[f64], new_rows: &mut [f64], block: &Block) {
    let cols = block.cols;
    prescient::for_chunks_mut(new_rows, ROWS_PER_TASK * cols, |k, rows| {
        compute_rows(old, rows, 1 + k * ROWS_PER_TASK, block)
    });
}

/// rayon's compute phase.
fn rayon_compute(old: &[f64], new_rows: &mut [f64], block: &Block) {
    use rayon::prelude::*;
    let cols = block.cols;
    new_rows
        .par_chunks_mut(ROWS_PER_TASK * cols)
        .enumerate()
        .for_each(|(k, rows)| compute_rows(old, rows, 1 + k * ROWS_PER_TASK, block));
}

/// The task version (TAMPI's blocking mode): per iteration, a scope whose
/// body posts the halo exchange with both neighbours, spawns the interior
/// rows' tasks, and waits for the exchange with `prescient::mpi::wait_all`,
/// which suspends the body only: its worker computes the interior rows
/// meanwhile. Then the body computes the two boundary rows.
///
/// Why the body posts, and not two boundary tasks spawned after the
/// interior (this version's first form): a spawn may run at once, inline,
/// when the worker's deque is full (lazy task creation) or the inliner
/// finds the task cheap, so such boundary tasks posted the exchange only
/// after much of the interior was computed (1.5 ms into a 3.7 ms iteration
/// at 2 ranks of one worker: `docs/measurements.md`), leaving the messages
/// little computation to travel behind.
fn tasks(mut old: Block, iterations: usize, neighbours: Neighbours) -> Block {
    let mut new = old.clone();
    let (own, cols) = (old.own, old.cols);
    let shape = &old.shape();
    for _ in 0..iterations {
        let (top_halo, rest) = old.cells.split_at_mut(cols);
        let (body, bottom_halo) = rest.split_at_mut(own * cols);
        let body: &[f64] = body;
        let new_rows = &mut new.cells[cols..(own + 1) * cols];
        let (new_first, rest) = new_rows.split_at_mut(cols);
        let (new_middle, new_last) = rest.split_at_mut((own - 2) * cols);
        let interior: Vec<&mut [f64]> = new_middle.chunks_mut(ROWS_PER_TASK * cols).collect();
        // Local row r (1..=own) is body[(r - 1) * cols..r * cols].
        let row = |r: usize| &body[(r - 1) * cols..r * cols];
        prescient::scope(|s| {
            // rsmpi's communicators are not `Send`: the body takes its own.
            let world = SimpleCommunicator::world();
            mpi::request::scope(|requests| {
                let mut exchange = Vec::new();
                if let Some(up) = neighbours.up {
                    let up = world.process_at_rank(up);
                    exchange.push(up.immediate_send_with_tag(requests, row(1), 1));
                    exchange.push(up.immediate_receive_into_with_tag(requests, &mut *top_halo, 2));
                }
                if let Some(down) = neighbours.down {
                    let down = world.process_at_rank(down);
                    exchange.push(down.immediate_send_with_tag(requests, row(own), 2));
                    exchange.push(down.immediate_receive_into_with_tag(
                        requests,
                        &mut *bottom_halo,
                        1,
                    ));
                }
                // Interior rows 2..own-1 read only the block's own rows.
                for (k, rows) in interior.into_iter().enumerate() {
                    s.spawn(move |_| {
                        let first = 2 + k * ROWS_PER_TASK;
                        let count = rows.len() / cols;
                        compute_block(
                            row(first - 1),
                            &body[(first - 1) * cols..(first - 1 + count) * cols],
                            row(first + count),
                            rows,
                            first,
                            shape,
                        );
                    });
                }
                prescient::mpi::wait_all(exchange);
            });
            compute_block(top_halo, row(1), row(2), new_first, 1, shape);
            compute_block(row(own - 1), row(own), bottom_halo, new_last, own, shape);
        });
        std::mem::swap(&mut old, &mut new);
    }
    old
}

/// The dataflow version: every iteration's tasks are submitted at once,
/// ordered by their accesses. Per iteration, per neighbour, a task receives
/// the halo into its `out` data, binding the receive to its completion
/// (`prescient::mpi::bind`, so no task waits); a task per block of rows
/// computes the block of the next grid from the block and the rows around
/// it (the neighbour blocks, or the halos), and the task of a block at the
/// rank's edge then sends the edge row it computed to the neighbour, bound
/// the same way (iteration 0's edge rows, which nobody computed, are sent
/// by tasks of their own). Nothing waits for a whole iteration: a block
/// goes on to the next iteration as soon as its neighbours have.
///
/// Why the edge block sends its row itself: the path from one rank's halo
/// to the next is then one task — the receive's completion releases the
/// edge block, which computes and sends — where a separate send task,
/// released by the edge block's finish, was queued behind the ready
/// interior blocks (the default queue policy runs a worker's deque oldest
/// first) and the neighbour waited a wave of computation for each halo
/// (`docs/measurements.md`).
fn dataflow_version(mut start: Block, iterations: usize, neighbours: Neighbours) -> Block {
    let (own, cols) = (start.own, start.cols);
    let rows_per_task = ROWS_PER_TASK.min(own / 2).max(1);
    let blocks = own.div_ceil(rows_per_task);
    // The two grids are two blocks' rows, as in the other versions (one
    // copy of the block, made here): the halo rows stay out of the tiles,
    // in data of their own per iteration parity.
    let mut other = start.clone();
    let shape = &start.shape();
    // The halos start as the block's own (edge rows keep them forever).
    let halo = |local: usize| start.cells[local * cols..(local + 1) * cols].to_vec();
    let (top_halo, bottom_halo) = (halo(0), halo(own + 1));
    // Tags: per iteration and direction (upward 1, downward 2), so that a
    // receive posted early for a later iteration never takes an earlier
    // iteration's message.
    let tag = |iteration: usize, direction: i32| (iteration % 8192) as i32 * 4 + direction;
    {
        let grid_a = &mut start.cells[cols..(own + 1) * cols];
        let grid_b = &mut other.cells[cols..(own + 1) * cols];
        prescient::dataflow(|df| {
            let tile = rows_per_task * cols;
            let grids = [df.tiles(grid_a, tile), df.tiles(grid_b, tile)];
            let top = [df.data(top_halo.clone()), df.data(top_halo)];
            let bottom = [df.data(bottom_halo.clone()), df.data(bottom_halo)];
            for k in 0..iterations {
                let (old, new) = (&grids[k % 2], &grids[(k + 1) % 2]);
                let (top, bottom) = (&top[k % 2], &bottom[k % 2]);
                if let Some(up) = neighbours.up {
                    df.task(top.out(), move |halo: &mut Vec<f64>| {
                        bind_receive(up, halo, tag(k, 2));
                    });
                    if k == 0 {
                        df.task(old.read(0), move |rows: &[f64]| {
                            bind_send(up, &rows[..cols], tag(0, 1));
                        });
                    }
                }
                if let Some(down) = neighbours.down {
                    df.task(bottom.out(), move |halo: &mut Vec<f64>| {
                        bind_receive(down, halo, tag(k, 1));
                    });
                    if k == 0 {
                        df.task(old.read(blocks - 1), move |rows: &[f64]| {
                            bind_send(down, &rows[rows.len() - cols..], tag(0, 2));
                        });
                    }
                }
                // The edge rows computed now are the neighbours' halos of
                // iteration k + 1, if there is one.
                let next_up = neighbours.up.filter(|_| k + 1 < iterations);
                let next_down = neighbours.down.filter(|_| k + 1 < iterations);
                for b in 0..blocks {
                    let first = 1 + b * rows_per_task;
                    let compute =
                        move |above: &[f64], rows: &[f64], below: &[f64], out: &mut [f64]| {
                            compute_block(above, rows, below, out, first, shape);
                        };
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
                                compute(halo, rows, &next[..cols], out);
                                if let Some(up) = next_up {
                                    bind_send(up, &out[..cols], tag(k + 1, 1));
                                }
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
                                compute(last_row(previous, cols), rows, halo, out);
                                if let Some(down) = next_down {
                                    bind_send(down, last_row(out, cols), tag(k + 1, 2));
                                }
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
                                compute(last_row(previous, cols), rows, &next[..cols], out)
                            },
                        ),
                    }
                }
            }
        });
    }
    if iterations.is_multiple_of(2) {
        start
    } else {
        other
    }
}

/// The last row of `rows` (rows of `cols` values).
fn last_row(rows: &[f64], cols: usize) -> &[f64] {
    &rows[rows.len() - cols..]
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
        // SAFETY: `row` is in the task's own data (an `in` tile, or the
        // `out` tile it just computed): nothing writes it, nor frees it,
        // until the task completes, which waits for the send.
        unsafe { prescient::mpi::bind(vec![send]) };
    });
}

/// Compares every rank's rows with the same rows of the sequential solve
/// (`expected`, the whole grid, which every rank computes: a check that
/// sends nothing over the link, which may be slow) and fails on every rank
/// if any rank's differ.
fn check(world: &SimpleCommunicator, block: &Block, expected: &[f64], what: &str) {
    let cols = block.cols;
    let mine = &block.cells[cols..(block.own + 1) * cols];
    let reference = &expected[block.first * cols..(block.first + block.own) * cols];
    let worst = mine
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let mut worst_anywhere = 0.0;
    world.all_reduce_into(&worst, &mut worst_anywhere, SystemOperation::max());
    assert!(
        worst_anywhere == 0.0,
        "{what}: differs from the sequential solve by {worst_anywhere}"
    );
}

/// Every rank's host (`MPI_Get_processor_name`), in rank order, on rank 0
/// (empty on the others).
fn hosts(world: &SimpleCommunicator) -> Vec<String> {
    let mine = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
    if world.rank() != 0 {
        world.process_at_rank(0).send(mine.as_bytes());
        return Vec::new();
    }
    let mut hosts = vec![mine];
    for rank in 1..world.size() {
        let (name, _) = world.process_at_rank(rank).receive_vec::<u8>();
        hosts.push(String::from_utf8_lossy(&name).into_owned());
    }
    hosts
}

/// The slowest rank's value of `seconds`, on every rank.
fn slowest(world: &SimpleCommunicator, seconds: f64) -> f64 {
    let mut max = 0.0;
    world.all_reduce_into(&seconds, &mut max, SystemOperation::max());
    max
}

/// The median of `values` (not empty).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// A version's times over the timed rounds, in seconds per iteration.
#[derive(Default)]
struct Times {
    with_exchange: Vec<f64>,
    without_exchange: Vec<f64>,
    waiting: Vec<f64>,
}

fn main() {
    let args = parse_args();
    let universe = prescient::mpi::initialize().expect("MPI with MPI_THREAD_MULTIPLE");
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Every task deferred by default (`--queue-capacity`, the largest): at
    // the runtime's default of 16, lazy task creation runs every ready task
    // a submission makes inline in the submitter once 16 are queued, and
    // with one worker per rank the tasks queued first — the dataflow
    // version's first receives and sends — then wait for the whole
    // submission (the first send of a 20-iteration solve was posted after
    // 98 of its 150 ms: `docs/measurements.md`).
    let runtime = prescient::Runtime::builder()
        .num_workers(workers)
        .params(prescient::Params::DEFAULT.with_queue_capacity(args.queue_capacity))
        .build()
        .unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .unwrap();
    let expected = sequential(args.rows, args.cols, args.iterations);
    let start_block = Block::new(rank as usize, size as usize, args.rows, args.cols);
    assert!(start_block.own >= 2, "at least two rows per rank");

    let mut times: Vec<Times> = VERSIONS.iter().map(|_| Times::default()).collect();
    // Round 0 warms up (and checks every version); rounds 1..=reps are timed.
    for round in 0..=args.reps {
        for (version, times) in VERSIONS.iter().zip(&mut times) {
            for exchange in [true, false] {
                let neighbours = Neighbours::of(rank, size, exchange);
                let block = start_block.clone();
                world.barrier();
                let start = Instant::now();
                let (block, waiting) = match *version {
                    "bsp" => {
                        runtime.run(|| bsp(block, args.iterations, neighbours, prescient_compute))
                    }
                    "rayon" => {
                        pool.install(|| bsp(block, args.iterations, neighbours, rayon_compute))
                    }
                    "tasks" => (
                        runtime.run(|| tasks(block, args.iterations, neighbours)),
                        Duration::ZERO,
                    ),
                    _ => (
                        runtime.run(|| dataflow_version(block, args.iterations, neighbours)),
                        Duration::ZERO,
                    ),
                };
                let per_iteration = |d: Duration| d.as_secs_f64() / args.iterations as f64;
                let elapsed = slowest(&world, per_iteration(start.elapsed()));
                let waiting = slowest(&world, per_iteration(waiting));
                if round == 0 && exchange {
                    check(&world, &block, &expected, version);
                }
                if round > 0 {
                    if exchange {
                        times.with_exchange.push(elapsed);
                        times.waiting.push(waiting);
                    } else {
                        times.without_exchange.push(elapsed);
                    }
                }
            }
        }
    }
    let hosts = hosts(&world);
    if rank != 0 {
        return;
    }
    println!(
        "heat {}x{}, {} iterations, {size} ranks x {workers} workers: every version equals the \
         sequential solve; median of {} rounds, slowest rank",
        args.rows, args.cols, args.iterations, args.reps
    );
    println!(
        "{:<9} {:>13} {:>17} {:>15} {:>13} {:>7}",
        "version", "ms/iteration", "without exchange", "exposed ms/it", "MPI wait ms/it", "hidden"
    );
    let versions = VERSIONS
        .iter()
        .zip(&mut times)
        .map(|(version, times)| VersionTimes {
            version: version.to_string(),
            seconds_per_iteration: median(&mut times.with_exchange),
            seconds_per_iteration_without_exchange: median(&mut times.without_exchange),
            mpi_wait_seconds_per_iteration: median(&mut times.waiting),
        })
        .collect();
    let run = HeatRun {
        rows: args.rows,
        cols: args.cols,
        iterations: args.iterations,
        ranks: size as usize,
        workers,
        reps: args.reps,
        versions,
        hosts,
    };
    // Exposed and hidden as `prescient-bench mpi-heat` computes them.
    let hardware_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for row in rows_of(&run, hardware_threads) {
        let times = &row.times;
        println!(
            "{:<9} {:>13.3} {:>17.3} {:>15.3} {:>13} {:>7}",
            times.version,
            times.seconds_per_iteration * 1e3,
            times.seconds_per_iteration_without_exchange * 1e3,
            row.exposed_seconds_per_iteration * 1e3,
            if matches!(times.version.as_str(), "bsp" | "rayon") {
                format!("{:.3}", times.mpi_wait_seconds_per_iteration * 1e3)
            } else {
                "-".to_string()
            },
            row.hidden
                .map_or("-".to_string(), |h| format!("{:.0} %", 100.0 * h)),
        );
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&run).expect("plain numbers and names")
        );
    }
}
