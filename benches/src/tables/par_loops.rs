//! The `par-loops` table: the parallel loops a rayon or OpenMP user reaches
//! for — a reduction, an image by rows, a stencil sweep, a sort —
//! sequential vs Prescient's `for_chunks_reduce` / `for_range_reduce` /
//! `for_chunks_mut` / `par_sort*` vs rayon's `par_iter().sum()` /
//! `par_chunks_mut` / `par_sort*`, at each thread count.
//! [`Options`] documents what it prints; [`run`] prints it.
//!
//! The JSON (`--json FILE`) is a [`ParLoopsJson`]. Its `samples` hold, per
//! workload (the program, e.g. `sum of squares 10000000 f64`), the best time
//! of each runner at each thread count: `sequential` (1 thread), `prescient`
//! (`Params::DEFAULT`), `prescient-range` (the sum by `for_range_reduce`,
//! index by index), `rayon`, and the C/C++ peers ([`crate::peers`]:
//! `omp-gcc`, `omp-llvm`, `tbb`; each in a child process, its best run, its
//! result checked against the sequential one's checksum); `peers` says what
//! each peer is, or why it was skipped.

use crate::cli::{self, progress, CommonArgs, Size};
use crate::dataflow::runtime;
use crate::harness::inproc::{contenders, rayon_pools, round_robin, LoopRow, LoopTable};
use crate::harness::load_average;
use crate::peers::{self, checksum};
use crate::samples::{TableHead, PRESCIENT};
use prescient::{Params, Runtime};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "par-loops";

/// Parallel loops over slices: sum of squares, Mandelbrot, stencil, sorts.
///
/// Seven workloads, each side by side: sequential, Prescient and rayon at
/// each thread count.
///
/// * sum of squares of n `f64`: `for_chunks_reduce` (chunks of 4096;
///   `prescient`) and `for_range_reduce` (grain 4096, one index at a time;
///   `prescient-range`) against `par_iter().map(|x| x * x).sum()` and a
///   plain loop; the parallel sums may differ from the sequential one in
///   the last bits (another grouping), and are checked to a relative 1e-9;
/// * a Mandelbrot image (at most 256 iterations a pixel), one row per chunk:
///   `for_chunks_mut(&mut image, width, ..)` against
///   `par_chunks_mut(width).enumerate().for_each` and a loop over
///   `chunks_mut`; rows cost very differently, so the loop must balance;
/// * one sweep of a 5-point stencil over a square grid, one output row per
///   chunk reading the input grid: `for_chunks_mut` against
///   `par_chunks_mut` and sequential;
/// * sorts of `u64`, random and nearly sorted (1 % swapped), stable
///   (`par_sort` vs rayon's `par_sort` vs `slice::sort`) and unstable (the
///   `_unstable` forms); each run copies the input first.
///
/// The image, the stencil and the sorts are checked exactly against the
/// sequential ones. Full size: 10^8 numbers, 2048×2048 pixels, 4096×4096
/// cells, 10^7 sorted numbers; --quick: 10^7, 1024×1024, 2048×2048, 2·10^6;
/// --test-size: tiny. The runners of
/// one workload run round robin, one warm-up round and then --reps timed
/// rounds, and each keeps its best time: the machine may be shared, and a
/// change in its load then hits every runner alike. T/Tseq is a runner's
/// time over the sequential one; /rayon, Prescient's over rayon's at the
/// same thread count.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Timed repetitions per configuration, best of (default 5; quick 3;
    /// test size 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: Option<u64>,
}

impl Options {
    /// Timed repetitions: `--reps`, else the size's default.
    pub fn reps(&self) -> usize {
        match self.reps {
            Some(reps) => reps as usize,
            None => Sizes::of(self.common.size()).reps,
        }
    }
}

/// The workloads and repetitions of one [`Size`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizes {
    /// Timed rounds unless `--reps` says otherwise.
    pub reps: usize,
    /// Numbers in the sum of squares.
    pub sum_n: usize,
    /// Width and height of the Mandelbrot image.
    pub mandelbrot: usize,
    /// Width and height of the stencil's grid.
    pub stencil: usize,
    /// Numbers sorted.
    pub sort_n: usize,
}

impl Sizes {
    /// The workloads of `size`.
    pub fn of(size: Size) -> Sizes {
        match size {
            Size::Full => Sizes {
                reps: 5,
                sum_n: 100_000_000,
                mandelbrot: 2048,
                stencil: 4096,
                sort_n: 10_000_000,
            },
            Size::Quick => Sizes {
                reps: 3,
                sum_n: 10_000_000,
                mandelbrot: 1024,
                stencil: 2048,
                sort_n: 2_000_000,
            },
            Size::Test => Sizes {
                reps: 1,
                sum_n: 10_000,
                mandelbrot: 64,
                stencil: 64,
                sort_n: 10_000,
            },
        }
    }
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ParLoopsJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// Timed rounds per configuration (each time is the best round).
    pub reps: usize,
    /// The one-minute load average at the start.
    pub load_average: String,
    /// Every row of the table.
    pub rows: Vec<LoopRow>,
}

/// Elements per chunk of the sum (and the grain of its range form): about
/// a microsecond of work, so that a request for work waits little.
pub const SUM_CHUNK: usize = 4096;

/// The numbers of the sum of squares: `n` values in [0, 1).
pub fn sum_input(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 1000) as f64 / 1000.0).collect()
}

/// The sum of squares of `data`, sequentially.
pub fn sum_of_squares(data: &[f64]) -> f64 {
    data.iter().map(|x| x * x).sum()
}

/// The sum of squares of `data` by `for_chunks_reduce`.
pub fn sum_of_squares_chunks(data: &[f64]) -> f64 {
    prescient::for_chunks_reduce(
        data,
        SUM_CHUNK,
        || 0.0,
        |acc, _, chunk| acc + chunk.iter().map(|x| x * x).sum::<f64>(),
        |a, b| a + b,
    )
}

/// The sum of squares of `data` by `for_range_reduce`, index by index.
pub fn sum_of_squares_range(data: &[f64]) -> f64 {
    prescient::for_range_reduce(
        0..data.len(),
        SUM_CHUNK,
        || 0.0,
        |acc, i| acc + data[i] * data[i],
        |a, b| a + b,
    )
}

/// The most iterations of a Mandelbrot pixel.
pub const MANDELBROT_ITERATIONS: u32 = 256;

/// One row of a `size`×`size` Mandelbrot image of [-2, 0.5] × [-1.25,
/// 1.25]: the iterations before each pixel escapes (at most
/// [`MANDELBROT_ITERATIONS`]).
pub fn mandelbrot_row(size: usize, row: usize, pixels: &mut [u32]) {
    let scale = 2.5 / size as f64;
    let ci = -1.25 + row as f64 * scale;
    for (x, pixel) in pixels.iter_mut().enumerate() {
        let cr = -2.0 + x as f64 * scale;
        let (mut zr, mut zi, mut n) = (0.0f64, 0.0f64, 0);
        while n < MANDELBROT_ITERATIONS && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            n += 1;
        }
        *pixel = n;
    }
}

/// One sweep of the 5-point stencil over row `row` of a `size`×`size`
/// grid: each inner cell becomes the mean of itself and its four
/// neighbours in `input`; border cells are copied.
pub fn stencil_row(input: &[f64], size: usize, row: usize, out: &mut [f64]) {
    let at = |r: usize, c: usize| input[r * size + c];
    if row == 0 || row + 1 == size {
        out.copy_from_slice(&input[row * size..(row + 1) * size]);
        return;
    }
    out[0] = at(row, 0);
    out[size - 1] = at(row, size - 1);
    let (above, here, below) = (
        &input[(row - 1) * size..row * size],
        &input[row * size..(row + 1) * size],
        &input[(row + 1) * size..(row + 2) * size],
    );
    for c in 1..size - 1 {
        out[c] = 0.2 * (here[c] + here[c - 1] + here[c + 1] + above[c] + below[c]);
    }
}

/// `n` numbers to sort: random, or sorted with 1 % of them swapped with a
/// random other (nearly sorted). Seeded: the same on every run.
pub fn sort_input(n: usize, nearly_sorted: bool) -> Vec<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    if !nearly_sorted {
        return (0..n).map(|_| next()).collect();
    }
    let mut v: Vec<u64> = (0..n as u64).collect();
    for _ in 0..n / 100 {
        let (a, b) = (next() as usize % n, next() as usize % n);
        v.swap(a, b);
    }
    v
}

/// The stencil's input grid: a smooth field with some noise.
pub fn stencil_input(size: usize) -> Vec<f64> {
    (0..size * size)
        .map(|k| {
            ((k / size) as f64 * 0.01).sin() + ((k % size) as f64 * 0.02).cos() + (k % 7) as f64
        })
        .collect()
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list in the environment, a rayon pool that cannot be built,
/// or a JSON file that cannot be written.
///
/// # Panics
/// If a parallel result differs from the sequential one.
pub fn run(options: &Options) -> Result<(), String> {
    let size = options.common.size();
    let sizes = Sizes::of(size);
    let threads = options.common.threads()?;
    let reps = options.reps();
    let load = load_average();
    println!(
        "### Parallel loops over slices: Prescient vs rayon ({} size, best of {reps} runs; {} \
         hardware threads; thread counts {threads:?}; load average {load} at start)\n",
        size.name(),
        cli::available_threads(),
    );
    println!(
        "runners: prescient = Params::DEFAULT, for_chunks_reduce (sum), for_chunks_mut (rows) \
         or par_sort / par_sort_unstable; prescient-range = for_range_reduce, index by index; \
         rayon = par_iter().sum(), par_chunks_mut(width).enumerate().for_each or par_sort / \
         par_sort_unstable; seq = the loop, or slice::sort / sort_unstable (every sort copies its \
         input first). T/Tseq: over the sequential loop; /rayon: over rayon's time at the same \
         thread count.\n"
    );
    let runtimes: Vec<(&str, usize, Runtime)> = threads
        .iter()
        .map(|&t| ("", t, runtime(t, Params::DEFAULT)))
        .collect();
    let pools = rayon_pools(&threads)?;
    let mut table = LoopTable::new(TABLE, size, &threads, reps, false);

    // Sum of squares.
    let n = sizes.sum_n;
    let program = format!("sum of squares {n} f64");
    progress(format!("{TABLE}: {program}, threads {threads:?}"));
    let data = sum_input(n);
    let reference = sum_of_squares(&data);
    let data = &data;
    let chunks = move |o: &mut f64| *o = sum_of_squares_chunks(data);
    let range = move |o: &mut f64| *o = sum_of_squares_range(data);
    let rayon_sum = move |o: &mut f64| *o = data.par_iter().map(|x| x * x).sum::<f64>();
    let list = contenders(
        move |o: &mut f64| *o = sum_of_squares(black_box(data)),
        &[
            (PRESCIENT, PRESCIENT, &chunks),
            ("prescient-range", "prescient-range", &range),
        ],
        &runtimes,
        &pools,
        &rayon_sum,
    );
    let best = round_robin(&list, &mut 0.0, reps, |o, name| {
        let error = (o - reference).abs() / reference.abs().max(f64::MIN_POSITIVE);
        assert!(error < 1e-9, "{name}: sum {o} vs {reference}");
    });
    let expect = Some(checksum::of(&[reference]));
    table.add(("sum", &program), &list, &best, 0, expect);

    // Mandelbrot and the stencil, one row per chunk.
    let m = sizes.mandelbrot;
    let program = format!("mandelbrot {m}x{m}");
    progress(format!("{TABLE}: {program}, threads {threads:?}"));
    let rows = move |image: &mut Vec<u32>| {
        image
            .chunks_mut(m)
            .enumerate()
            .for_each(|(row, pixels)| mandelbrot_row(m, row, pixels));
    };
    let mut reference = vec![0u32; m * m];
    rows(&mut reference);
    let prescient_rows = move |image: &mut Vec<u32>| {
        prescient::for_chunks_mut(image, m, |row, pixels| mandelbrot_row(m, row, pixels));
    };
    let rayon_rows = move |image: &mut Vec<u32>| {
        image
            .par_chunks_mut(m)
            .enumerate()
            .for_each(|(row, pixels)| mandelbrot_row(m, row, pixels));
    };
    let list = contenders(
        rows,
        &[(PRESCIENT, PRESCIENT, &prescient_rows)],
        &runtimes,
        &pools,
        &rayon_rows,
    );
    let best = round_robin(&list, &mut vec![0u32; m * m], reps, |image, name| {
        assert!(*image == reference, "{name}: the image differs");
    });
    let expect = Some(checksum::of(&reference));
    table.add(("mandelbrot", &program), &list, &best, 0, expect);

    let s = sizes.stencil;
    let program = format!("stencil {s}x{s}");
    progress(format!("{TABLE}: {program}, threads {threads:?}"));
    let input = stencil_input(s);
    let input = &input;
    let rows = move |grid: &mut Vec<f64>| {
        grid.chunks_mut(s)
            .enumerate()
            .for_each(|(row, cells)| stencil_row(input, s, row, cells));
    };
    let mut reference = vec![0.0f64; s * s];
    rows(&mut reference);
    let prescient_rows = move |grid: &mut Vec<f64>| {
        prescient::for_chunks_mut(grid, s, |row, cells| stencil_row(input, s, row, cells));
    };
    let rayon_rows = move |grid: &mut Vec<f64>| {
        grid.par_chunks_mut(s)
            .enumerate()
            .for_each(|(row, cells)| stencil_row(input, s, row, cells));
    };
    let list = contenders(
        rows,
        &[(PRESCIENT, PRESCIENT, &prescient_rows)],
        &runtimes,
        &pools,
        &rayon_rows,
    );
    let best = round_robin(&list, &mut vec![0.0f64; s * s], reps, |grid, name| {
        assert!(*grid == reference, "{name}: the grid differs");
    });
    let expect = Some(checksum::of(&reference));
    table.add(("stencil", &program), &list, &best, 0, expect);

    // Sorts: random and nearly sorted, stable and unstable.
    for (shape, nearly) in [("random", false), ("nearly sorted", true)] {
        let input = sort_input(sizes.sort_n, nearly);
        let mut reference = input.clone();
        reference.sort_unstable();
        let input = &input;
        for stable in [true, false] {
            let kind = if stable { "sort" } else { "sort_unstable" };
            let program = format!("{kind} {} u64 {shape}", sizes.sort_n);
            progress(format!("{TABLE}: {program}, threads {threads:?}"));
            let prescient_sort = move |v: &mut Vec<u64>| {
                v.copy_from_slice(input);
                if stable {
                    prescient::slice::par_sort(v)
                } else {
                    prescient::slice::par_sort_unstable(v)
                }
            };
            let rayon_sort = move |v: &mut Vec<u64>| {
                v.copy_from_slice(input);
                if stable {
                    v.par_sort()
                } else {
                    v.par_sort_unstable()
                }
            };
            let sequential = move |v: &mut Vec<u64>| {
                v.copy_from_slice(input);
                if stable {
                    v.sort()
                } else {
                    v.sort_unstable()
                }
            };
            let list = contenders(
                sequential,
                &[(PRESCIENT, PRESCIENT, &prescient_sort)],
                &runtimes,
                &pools,
                &rayon_sort,
            );
            let best = round_robin(&list, &mut vec![0u64; sizes.sort_n], reps, |v, name| {
                assert!(*v == reference, "{name}: not sorted");
            });
            let expect = Some(checksum::of(&reference));
            table.add(("sort", &program), &list, &best, 0, expect);
        }
    }
    println!("{}", table.md.text);
    let records = table.peer_records.iter().map(|(r, rec)| (r.as_str(), rec));
    table.head.peers = peers::notes(&table.peers, records);
    println!("{}", peers::render_notes(&table.head.peers));
    let failed = table.peer_failures;
    options.common.write_json(&ParLoopsJson {
        head: table.head,
        reps,
        load_average: load,
        rows: table.rows,
    })?;
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} peer row(s) failed (see the table)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_agree_with_their_parallel_forms() {
        let data = sum_input(100_003);
        let seq = sum_of_squares(&data);
        for parallel in [sum_of_squares_chunks(&data), sum_of_squares_range(&data)] {
            assert!((parallel - seq).abs() <= 1e-9 * seq, "{parallel} vs {seq}");
        }
        let m = 48;
        let mut a = vec![0u32; m * m];
        let mut b = vec![0u32; m * m];
        a.chunks_mut(m)
            .enumerate()
            .for_each(|(r, p)| mandelbrot_row(m, r, p));
        prescient::for_chunks_mut(&mut b, m, |r, p| mandelbrot_row(m, r, p));
        assert_eq!(a, b);
        // Points inside the set reach the limit; far outside escape at once.
        assert_eq!(a[(m / 2) * m + m * 3 / 4], MANDELBROT_ITERATIONS);
        assert!(a[0] < 3);
        let input = stencil_input(m);
        let mut c = vec![0.0; m * m];
        let mut d = vec![0.0; m * m];
        c.chunks_mut(m)
            .enumerate()
            .for_each(|(r, p)| stencil_row(&input, m, r, p));
        prescient::for_chunks_mut(&mut d, m, |r, p| stencil_row(&input, m, r, p));
        assert_eq!(c, d);
        assert_eq!(c[..m], input[..m], "borders are copied");
        let k = 5 * m + 7;
        let mean = 0.2 * (input[k] + input[k - 1] + input[k + 1] + input[k - m] + input[k + m]);
        assert_eq!(c[k], mean);
    }
}
