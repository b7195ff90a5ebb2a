//! Each CF'17 program prepared as a [`Workload`] at a [`Size`]: the input
//! read or generated once, the reference result computed once, and one timed,
//! verified closure per runner.
//!
//! **Sizes.** [`Size::Paper`] is the input of CF'17 Table 2 (knapsack, which
//! replaces QAP2, at its measurement size [`knapsack::BENCH_SIZE`]);
//! [`Size::Test`] the program's own test size (`TEST_*`); [`Size::Quick`] an
//! input whose sequential run takes roughly 20–200 ms in a release build on
//! the 2-core development host (most 30–100 ms) (each `QUICK_*` constant gives its measured
//! time), with the paper's cut-offs and task granularity, only the input
//! smaller.
//!
//! **Expected results.** Where the program has an exact answer that costs
//! little — fib's closed form, nqueens' table, delannoy's dynamic program,
//! sort's identity check (sorted *and* a permutation), knapsack's dynamic
//! program, floorplan's recorded area (BOTS' inputs), uts' recorded node
//! count — that answer is the reference, and the sequential run is checked
//! against it like every other runner. Otherwise (alignment, fft, strassen,
//! health, sparselu, and the cut uts and floorplan inputs of the quick size)
//! `prepare` runs the sequential reference once and checks it against the
//! known answer where there is one (BOTS' fingerprints, statistics, the naive
//! product); the runners must then equal that result exactly (bit for bit for
//! the floating-point programs, whose parallel versions do the same
//! operations in the same order).
//!
//! **Runs.** An in-place program's closure copies its input (sort's keys,
//! health's village tree, sparselu's matrix) before the clock starts; a
//! result is checked after the clock stops; a wrong result is an `Err`
//! naming the program and the runner, never a panic.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use super::baselines;
use super::{Size, Timed, Workload};
use crate::annotated::{
    alignment, delannoy, fft, fib, floorplan, health, knapsack, nqueens, sort, sparselu, strassen,
    uts,
};

/// The programs [`prepare`] knows, in table order (that of
/// [`crate::annotated::PROGRAMS`]).
pub const NAMES: [&str; 12] = [
    "fib",
    "nqueens",
    "alignment",
    "delannoy",
    "fft",
    "sort",
    "strassen",
    "knapsack",
    "uts",
    "floorplan",
    "health",
    "sparselu",
];

/// fib's quick `n`: about 22 ms sequentially (the paper's 35: about 36 ms).
pub const QUICK_FIB_N: u64 = 34;

/// The paper's nqueens board: `14 × 14` (365 596 solutions).
pub const PAPER_NQUEENS_N: usize = 14;

/// nqueens' quick board: `11 × 11`, about 38 ms sequentially.
pub const QUICK_NQUEENS_N: usize = 11;

/// The sequences of `prot.20.aa` aligned at the quick size (28 pairs): about
/// 62 ms sequentially.
pub const QUICK_ALIGNMENT_SEQUENCES: usize = 8;

/// The sequences of `prot.20.aa` aligned at the test size (6 pairs).
pub const TEST_ALIGNMENT_SEQUENCES: usize = 4;

/// delannoy's quick `D(m, n)`: `D(10, 11)`, about 38 ms sequentially (`D(10,
/// 10)` takes about 22 ms, the paper's `D(11, 11)` about 93 ms).
pub const QUICK_DELANNOY: (u64, u64) = (10, 11);

/// fft's quick size: `2^19` points, about 32 ms sequentially.
pub const QUICK_FFT_LOG2: u32 = 19;

/// The seed of fft's pseudo-random input ([`fft::input`]).
pub const FFT_SEED: u64 = 1;

/// sort's quick size: `2^20` keys, about 60 ms sequentially.
pub const QUICK_SORT_N: usize = 1 << 20;

/// strassen's quick size: `512 × 512` at BOTS' cut-off 64 (three levels of
/// seven products), about 19 ms sequentially; `1024 × 1024` takes about
/// 160 ms.
pub const QUICK_STRASSEN_N: usize = 512;

/// knapsack's quick input: BOTS' 32-item file, about 185 ms sequentially
/// (the next smaller file, 24 items, takes 3 ms).
pub const QUICK_KNAPSACK_ITEMS: usize = 32;

/// uts' quick tree: the subtree of `test.input`'s root child 187
/// ([`QUICK_UTS_NODES`] nodes), about 58 ms sequentially. A cut of the
/// root's children does not fit: the first 120 root subtrees hold about 10
/// thousand nodes, the 121st alone 2.38 million (about 390 ms).
pub const QUICK_UTS_ROOT_CHILD: u32 = 187;

/// The node count of the quick tree (computed with [`uts::tree_search_seq`];
/// `prepare` checks it again).
pub const QUICK_UTS_NODES: u64 = 356_345;

/// floorplan's quick input: the first 13 cells of `input.15` (the 13th
/// placed last), about 50 ms sequentially; 14 cells take about 160 ms and
/// the whole of `input.15` about 530 ms.
pub const QUICK_FLOORPLAN_CELLS: usize = 13;

/// The minimal area of the quick floorplan input (computed with
/// [`floorplan::floorplan_seq`]; `prepare` checks it again).
pub const QUICK_FLOORPLAN_AREA: i32 = 460;

/// health's quick run: `medium.input`'s village tree (the paper's) for this
/// many time steps instead of 365, about 75–80 ms sequentially.
pub const QUICK_HEALTH_STEPS: i32 = 5;

/// sparselu's quick matrix: 8 × 8 blocks of BOTS' `100 × 100`, about 90 ms
/// sequentially.
pub const QUICK_SPARSELU_NB: usize = 8;

/// The entry of [`NAMES`] spelled `name`: how the command lines turn a
/// program name into one.
///
/// # Errors
/// If no program is called that, naming the known ones.
pub fn known_name(name: &str) -> Result<&'static str, String> {
    NAMES
        .iter()
        .copied()
        .find(|&n| n == name)
        .ok_or_else(|| format!("unknown program `{name}` (known: {})", NAMES.join(", ")))
}

/// Times `run` and checks its result with `check` after the clock stops.
pub fn timed<T>(run: impl FnOnce() -> T, check: impl FnOnce(T) -> Result<(), String>) -> Timed {
    let start = Instant::now();
    let got = run();
    let time = start.elapsed();
    (time, check(got))
}

/// `Ok` when `got == expected`, else an error naming `what`:
/// `"{what}: got {got:?}, expected {expected:?}"`.
///
/// # Errors
/// When `got != expected`.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: T,
    expected: T,
) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {expected:?}"))
    }
}

/// `Ok` when the slices are equal, else an error naming `what` and the first
/// difference (without printing whole arrays).
fn expect_same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[T],
    expected: &[T],
) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "{what}: {} elements, the sequential reference has {}",
            got.len(),
            expected.len()
        ));
    }
    match got.iter().zip(expected).position(|(g, e)| g != e) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} of {} is {:?}, the sequential reference's {:?}",
            got.len(),
            got[i],
            expected[i]
        )),
    }
}

/// Prepares the program `name` at `size`: reads or generates its input and
/// computes (or looks up) the expected result.
///
/// # Errors
/// An unknown program, an input file that cannot be read, or a reference
/// result that disagrees with the program's known answer.
pub fn prepare(name: &str, size: Size) -> Result<Workload, String> {
    match name {
        "fib" => Ok(fib_workload(size)),
        "nqueens" => nqueens_workload(size),
        "alignment" => alignment_workload(size),
        "delannoy" => delannoy_workload(size),
        "fft" => Ok(fft_workload(size)),
        "sort" => Ok(sort_workload(size)),
        "strassen" => strassen_workload(size),
        "knapsack" => knapsack_workload(size),
        "uts" => uts_workload(size),
        "floorplan" => floorplan_workload(size),
        "health" => health_workload(size),
        "sparselu" => Ok(sparselu_workload(size)),
        other => Err(format!("unknown CF'17 program `{other}`")),
    }
}

fn fib_workload(size: Size) -> Workload {
    fib_at(match size {
        Size::Test => fib::TEST_N,
        Size::Quick => QUICK_FIB_N,
        Size::Paper => 35,
    })
}

/// The fib workload at `n` (any `n`, not only a [`Size`]'s; what a table
/// with sizes of its own prepares).
pub fn fib_at(n: u64) -> Workload {
    let expected = fib::expected(n);
    Workload {
        program: "fib",
        input: format!("n={n}"),
        seq: Box::new(move || {
            timed(
                || fib::fib_seq(black_box(n)),
                |got| expect_eq("fib seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || fib::fib(black_box(n)),
                |got| expect_eq("fib", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || crate::programs::fib::fib_rayon(black_box(n)),
                |got| expect_eq("fib rayon", got, expected),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || crate::programs::fib::fib_chili(scope, black_box(n)),
                |got| expect_eq("fib chili", got, expected),
            )
        })),
    }
}

fn nqueens_workload(size: Size) -> Result<Workload, String> {
    nqueens_at(match size {
        Size::Test => nqueens::TEST_SIZES[nqueens::TEST_SIZES.len() - 1],
        Size::Quick => QUICK_NQUEENS_N,
        Size::Paper => PAPER_NQUEENS_N,
    })
}

/// The nqueens workload at board size `n` (see [`fib_at`]).
///
/// # Errors
/// A board size without a known solution count.
pub fn nqueens_at(n: usize) -> Result<Workload, String> {
    let expected =
        nqueens::expected(n).ok_or_else(|| format!("nqueens: no known solution count for {n}"))?;
    Ok(Workload {
        program: "nqueens",
        input: format!("n={n}"),
        seq: Box::new(move || {
            timed(
                || nqueens::nqueens_seq(black_box(n)),
                |got| expect_eq("nqueens seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || nqueens::find_queens(black_box(n)),
                |got| expect_eq("nqueens", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || baselines::nqueens::find_queens_rayon(black_box(n)),
                |got| expect_eq("nqueens rayon", got, expected),
            )
        })),
        chili: None,
    })
}

fn alignment_workload(size: Size) -> Result<Workload, String> {
    let (path, file, count) = match size {
        Size::Test => (
            alignment::prot_20(),
            "prot.20",
            Some(TEST_ALIGNMENT_SEQUENCES),
        ),
        Size::Quick => (
            alignment::prot_20(),
            "prot.20",
            Some(QUICK_ALIGNMENT_SEQUENCES),
        ),
        Size::Paper => (alignment::prot_100(), "prot.100", None),
    };
    let mut seqs = alignment::read_sequences(&path)
        .map_err(|e| format!("alignment: {}: {e}", path.display()))?;
    let input = match count {
        Some(k) if k < seqs.len() => {
            seqs.truncate(k);
            format!("{file}[..{k}]")
        }
        _ => file.to_string(),
    };
    let scoring = alignment::Scoring::protein();
    let reference = alignment::pairalign_seq(&seqs, &scoring);
    if size == Size::Paper {
        expect_eq(
            "alignment reference (BOTS' prot.100 fingerprint)",
            reference.fingerprint(),
            alignment::BOTS_PROT_100_FINGERPRINT,
        )?;
    }
    let data = Arc::new((seqs, scoring, reference));
    let (d_seq, d_par, d_rayon) = (data.clone(), data.clone(), data);
    Ok(Workload {
        program: "alignment",
        input,
        seq: Box::new(move || {
            let (seqs, scoring, reference) = &*d_seq;
            timed(
                || alignment::pairalign_seq(seqs, scoring),
                |got| expect_same("alignment seq", got.scores(), reference.scores()),
            )
        }),
        prescient: Box::new(move || {
            let (seqs, scoring, reference) = &*d_par;
            timed(
                || alignment::pairalign(seqs, scoring),
                |got| expect_same("alignment", got.scores(), reference.scores()),
            )
        }),
        rayon: Some(Box::new(move || {
            let (seqs, scoring, reference) = &*d_rayon;
            timed(
                || baselines::alignment::pairalign_rayon(seqs, scoring),
                |got| expect_same("alignment rayon", &got, reference.scores()),
            )
        })),
        chili: None,
    })
}

fn delannoy_workload(size: Size) -> Result<Workload, String> {
    let (m, n) = match size {
        Size::Test => (delannoy::TEST_N, delannoy::TEST_N),
        Size::Quick => QUICK_DELANNOY,
        Size::Paper => (delannoy::PAPER_N, delannoy::PAPER_N),
    };
    let expected = u64::try_from(delannoy::delannoy_dp(m, n))
        .map_err(|_| format!("delannoy: D({m}, {n}) does not fit in a u64"))?;
    Ok(Workload {
        program: "delannoy",
        input: format!("D({m}, {n})"),
        seq: Box::new(move || {
            timed(
                || delannoy::delannoy_seq(black_box(m), black_box(n)),
                |got| expect_eq("delannoy seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || delannoy::delannoy(black_box(m), black_box(n)),
                |got| expect_eq("delannoy", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || baselines::delannoy::delannoy_rayon(black_box(m), black_box(n)),
                |got| expect_eq("delannoy rayon", got, expected),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || baselines::delannoy::delannoy_chili(scope, black_box(m), black_box(n)),
                |got| expect_eq("delannoy chili", got, expected),
            )
        })),
    })
}

fn fft_workload(size: Size) -> Workload {
    let log2 = match size {
        Size::Test => fft::TEST_LOG2,
        Size::Quick => QUICK_FFT_LOG2,
        Size::Paper => fft::PAPER_LOG2,
    };
    let points = fft::input(1 << log2, FFT_SEED);
    let reference = fft::fft_seq(&points);
    let data = Arc::new((points, reference));
    let (d_seq, d_par, d_rayon, d_chili) = (data.clone(), data.clone(), data.clone(), data);
    Workload {
        program: "fft",
        input: format!("2^{log2} points"),
        seq: Box::new(move || {
            let (points, reference) = &*d_seq;
            timed(
                || fft::fft_seq(points),
                |got| expect_same("fft seq", &got, reference),
            )
        }),
        prescient: Box::new(move || {
            let (points, reference) = &*d_par;
            timed(
                || fft::fft(points),
                |got| expect_same("fft", &got, reference),
            )
        }),
        rayon: Some(Box::new(move || {
            let (points, reference) = &*d_rayon;
            timed(
                || baselines::fft::fft_rayon(points),
                |got| expect_same("fft rayon", &got, reference),
            )
        })),
        chili: Some(Box::new(move |scope| {
            let (points, reference) = &*d_chili;
            timed(
                || baselines::fft::fft_chili(scope, points),
                |got| expect_same("fft chili", &got, reference),
            )
        })),
    }
}

/// `Ok` if `sorted` is `0 .. n` (BOTS' check: sorted and a permutation of
/// its input), else an error naming `what` and the first wrong key.
fn check_sorted(what: &str, sorted: &[sort::Elm]) -> Result<(), String> {
    if sort::is_identity(sorted) {
        return Ok(());
    }
    let i = sorted
        .iter()
        .enumerate()
        .position(|(i, &x)| usize::try_from(x) != Ok(i))
        .unwrap_or(0);
    Err(format!(
        "{what}: not 0 .. {}: key {i} is {}",
        sorted.len(),
        sorted[i]
    ))
}

fn sort_workload(size: Size) -> Workload {
    let n = match size {
        Size::Test => sort::TEST_SIZES[0],
        Size::Quick => QUICK_SORT_N,
        Size::Paper => sort::PAPER_N,
    };
    let keys = Arc::new(sort::bots_input(n));
    let (k_seq, k_par, k_rayon, k_chili) = (keys.clone(), keys.clone(), keys.clone(), keys);
    let input = format!("2^{} keys", n.ilog2());
    let input = if n.is_power_of_two() {
        input
    } else {
        format!("{n} keys")
    };
    Workload {
        program: "sort",
        input,
        seq: Box::new(move || {
            let mut a = k_seq.to_vec();
            timed(
                move || {
                    sort::sort_seq(&mut a);
                    a
                },
                |a| check_sorted("sort seq", &a),
            )
        }),
        prescient: Box::new(move || {
            let mut a = k_par.to_vec();
            timed(
                move || {
                    sort::sort(&mut a);
                    a
                },
                |a| check_sorted("sort", &a),
            )
        }),
        rayon: Some(Box::new(move || {
            let mut a = k_rayon.to_vec();
            timed(
                move || {
                    baselines::sort::sort_rayon(&mut a);
                    a
                },
                |a| check_sorted("sort rayon", &a),
            )
        })),
        chili: Some(Box::new(move |scope| {
            let mut a = k_chili.to_vec();
            timed(
                move || {
                    baselines::sort::sort_chili(scope, &mut a);
                    a
                },
                |a| check_sorted("sort chili", &a),
            )
        })),
    }
}

/// The largest size whose sequential reference is also checked against the
/// naive triple loop.
const STRASSEN_NAIVE_CHECK_MAX: usize = 256;

fn strassen_workload(size: Size) -> Result<Workload, String> {
    let (n, cutoff) = match size {
        Size::Test => (strassen::TEST_N, strassen::TEST_CUTOFF),
        Size::Quick => (QUICK_STRASSEN_N, strassen::BOTS_CUTOFF),
        Size::Paper => (strassen::PAPER_N, strassen::BOTS_CUTOFF),
    };
    let a = strassen::Matrix::random(n, 1);
    let b = strassen::Matrix::random(n, 2);
    let reference = strassen::strassen_seq(&a, &b, cutoff);
    if n <= STRASSEN_NAIVE_CHECK_MAX {
        let error = strassen::max_relative_error(&reference, &strassen::naive_multiply(&a, &b));
        if error > strassen::EPSILON {
            return Err(format!(
                "strassen reference: relative error {error:e} against the naive product"
            ));
        }
    }
    let data = Arc::new((a, b, reference));
    let (d_seq, d_par, d_rayon, d_chili) = (data.clone(), data.clone(), data.clone(), data);
    Ok(Workload {
        program: "strassen",
        input: format!("{n}x{n}, cut-off {cutoff}"),
        seq: Box::new(move || {
            let (a, b, reference) = &*d_seq;
            timed(
                || strassen::strassen_seq(a, b, cutoff),
                |got| expect_same("strassen seq", got.data(), reference.data()),
            )
        }),
        prescient: Box::new(move || {
            let (a, b, reference) = &*d_par;
            timed(
                || strassen::multiply(a, b, cutoff),
                |got| expect_same("strassen", got.data(), reference.data()),
            )
        }),
        rayon: Some(Box::new(move || {
            let (a, b, reference) = &*d_rayon;
            timed(
                || baselines::strassen::multiply_rayon(a, b, cutoff),
                |got| expect_same("strassen rayon", got.data(), reference.data()),
            )
        })),
        chili: Some(Box::new(move |scope| {
            let (a, b, reference) = &*d_chili;
            timed(
                || baselines::strassen::multiply_chili(scope, a, b, cutoff),
                |got| expect_same("strassen chili", got.data(), reference.data()),
            )
        })),
    })
}

fn knapsack_workload(size: Size) -> Result<Workload, String> {
    let items = match size {
        Size::Test => knapsack::TEST_SIZE,
        Size::Quick => QUICK_KNAPSACK_ITEMS,
        Size::Paper => knapsack::BENCH_SIZE,
    };
    let path = knapsack::input(items);
    let instance =
        knapsack::read_instance(&path).map_err(|e| format!("knapsack: {}: {e}", path.display()))?;
    let expected = knapsack::knapsack_dp(&instance.items, instance.capacity);
    let instance = Arc::new(instance);
    let (i_seq, i_par, i_rayon, i_chili) = (
        instance.clone(),
        instance.clone(),
        instance.clone(),
        instance,
    );
    Ok(Workload {
        program: "knapsack",
        input: format!("knapsack-{items:03}"),
        seq: Box::new(move || {
            timed(
                || knapsack::knapsack_seq(&i_seq.items, i_seq.capacity),
                |got| expect_eq("knapsack seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || knapsack::knapsack_main(&i_par.items, i_par.capacity),
                |got| expect_eq("knapsack", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || baselines::knapsack::knapsack_main_rayon(&i_rayon.items, i_rayon.capacity),
                |got| expect_eq("knapsack rayon", got, expected),
            )
        })),
        chili: Some(Box::new(move |scope| {
            timed(
                || {
                    baselines::knapsack::knapsack_main_chili(
                        scope,
                        &i_chili.items,
                        i_chili.capacity,
                    )
                },
                |got| expect_eq("knapsack chili", got, expected),
            )
        })),
    })
}

fn uts_workload(size: Size) -> Result<Workload, String> {
    let tree =
        uts::read_tree(uts::test()).map_err(|e| format!("uts: {}: {e}", uts::test().display()))?;
    let (tree, start, expected, input) = match size {
        Size::Test => {
            let tree = tree.with_root_branching(uts::TEST_ROOT_CHILDREN);
            let input = format!(
                "test.input, first {} root children",
                uts::TEST_ROOT_CHILDREN
            );
            (tree, tree.root(), uts::TEST_ROOT_100_NODES, input)
        }
        Size::Quick => {
            let start = uts::child(&tree, &tree.root(), QUICK_UTS_ROOT_CHILD);
            let nodes = uts::tree_search_seq(&tree, &start);
            expect_eq("uts reference (quick tree)", nodes, QUICK_UTS_NODES)?;
            let input = format!("test.input, root child {QUICK_UTS_ROOT_CHILD}'s subtree");
            (tree, start, nodes, input)
        }
        Size::Paper => (tree, tree.root(), tree.expected_size, "test.input".into()),
    };
    let data = Arc::new((tree, start));
    let (d_seq, d_par, d_rayon) = (data.clone(), data.clone(), data);
    Ok(Workload {
        program: "uts",
        input,
        seq: Box::new(move || {
            let (tree, start) = &*d_seq;
            timed(
                || uts::tree_search_seq(tree, start),
                |got| expect_eq("uts seq", got, expected),
            )
        }),
        prescient: Box::new(move || {
            let (tree, start) = &*d_par;
            timed(
                || uts::par_tree_search(tree, start),
                |got| expect_eq("uts", got, expected),
            )
        }),
        rayon: Some(Box::new(move || {
            let (tree, start) = &*d_rayon;
            timed(
                || baselines::uts::tree_search_rayon(tree, start),
                |got| expect_eq("uts rayon", got, expected),
            )
        })),
        chili: None,
    })
}

/// The first `cells` cells of `fp`, the last of them placed last.
fn first_cells(fp: &floorplan::Floorplan, cells: usize) -> floorplan::Floorplan {
    let mut cut = fp.clone();
    cut.cells.truncate(cells + 1);
    for cell in &mut cut.cells {
        if cell.next > cells {
            cell.next = 0;
        }
    }
    cut.solution = None;
    cut
}

/// `Ok` if `got` is a placement of `fp` with the minimal area `area`.
fn check_floorplan(
    what: &str,
    fp: &floorplan::Floorplan,
    area: i32,
    got: &floorplan::Solution,
) -> Result<(), String> {
    expect_eq(what, got.area, area)?;
    if got.is_placement_of(fp) {
        Ok(())
    } else {
        Err(format!("{what}: the board is not a placement of the cells"))
    }
}

/// The last component of `path` (`input.5`), for the input's description.
fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}

fn floorplan_workload(size: Size) -> Result<Workload, String> {
    let path = match size {
        Size::Test => floorplan::test_input(),
        Size::Quick => floorplan::input_15(),
        Size::Paper => floorplan::paper_input(),
    };
    let file = file_name(&path);
    let fp = floorplan::read_floorplan(&path)
        .map_err(|e| format!("floorplan: {}: {e}", path.display()))?;
    let (fp, area, input) = if size == Size::Quick {
        let fp = first_cells(&fp, QUICK_FLOORPLAN_CELLS);
        let (reference, _) = floorplan::floorplan_seq(&fp);
        check_floorplan(
            "floorplan reference (quick input)",
            &fp,
            QUICK_FLOORPLAN_AREA,
            &reference,
        )?;
        let input = format!("{file}, first {QUICK_FLOORPLAN_CELLS} cells");
        (fp, QUICK_FLOORPLAN_AREA, input)
    } else {
        let area = fp
            .solution
            .ok_or_else(|| format!("floorplan: {} records no minimal area", path.display()))?;
        (fp, area, file.to_string())
    };
    let fp = Arc::new(fp);
    let (f_seq, f_par, f_rayon) = (fp.clone(), fp.clone(), fp);
    Ok(Workload {
        program: "floorplan",
        input,
        seq: Box::new(move || {
            timed(
                || floorplan::floorplan_seq(&f_seq),
                |(got, _)| check_floorplan("floorplan seq", &f_seq, area, &got),
            )
        }),
        prescient: Box::new(move || {
            timed(
                || floorplan::compute_floorplan(&f_par),
                |(got, _)| check_floorplan("floorplan", &f_par, area, &got),
            )
        }),
        rayon: Some(Box::new(move || {
            timed(
                || baselines::floorplan::compute_floorplan_rayon(&f_rayon),
                |(got, _)| check_floorplan("floorplan rayon", &f_rayon, area, &got),
            )
        })),
        chili: None,
    })
}

/// `Ok` if the simulated tree `got` equals the sequential reference's.
fn check_village(
    what: &str,
    got: &health::Village,
    reference: &health::Village,
) -> Result<(), String> {
    if got == reference {
        return Ok(());
    }
    let (g, r) = (health::get_results(got), health::get_results(reference));
    Err(format!(
        "{what}: the village tree differs from the sequential reference's \
         (statistics {g:?}, the reference's {r:?})"
    ))
}

fn health_workload(size: Size) -> Result<Workload, String> {
    let (path, steps) = match size {
        Size::Test => (health::test_input(), None),
        Size::Quick => (health::paper_input(), Some(QUICK_HEALTH_STEPS)),
        Size::Paper => (health::paper_input(), None),
    };
    health_at(&path, steps)
}

/// The health workload on the input file `path`, simulating `steps` steps
/// instead of the file's own count if given (see [`fib_at`]; the reference
/// is checked against BOTS' stated statistics only for the file's count).
///
/// # Errors
/// An unreadable input, a reference that disagrees with BOTS.
pub fn health_at(path: &std::path::Path, steps: Option<i32>) -> Result<Workload, String> {
    let file = file_name(path);
    let mut sim =
        health::read_simulation(path).map_err(|e| format!("health: {}: {e}", path.display()))?;
    let input = match steps {
        Some(time) => {
            sim.time = time;
            format!("{file}, {time} steps")
        }
        None => file.to_string(),
    };
    let village = health::allocate_village(&sim);
    let mut reference = village.clone();
    health::sim_main_seq(&mut reference, &sim);
    if steps.is_none() && !health::matches_expected(&sim, &health::get_results(&reference)) {
        return Err(format!(
            "health reference: statistics {:?}, BOTS expects {:?}",
            health::get_results(&reference),
            sim.expected
        ));
    }
    let data = Arc::new((sim, village, reference));
    let (d_seq, d_par, d_rayon) = (data.clone(), data.clone(), data);
    Ok(Workload {
        program: "health",
        input,
        seq: Box::new(move || {
            let (sim, village, reference) = &*d_seq;
            let mut top = village.clone();
            timed(
                move || {
                    health::sim_main_seq(&mut top, sim);
                    top
                },
                |top| check_village("health seq", &top, reference),
            )
        }),
        prescient: Box::new(move || {
            let (sim, village, reference) = &*d_par;
            let mut top = village.clone();
            timed(
                move || {
                    health::sim_main(&mut top, sim);
                    top
                },
                |top| check_village("health", &top, reference),
            )
        }),
        rayon: Some(Box::new(move || {
            let (sim, village, reference) = &*d_rayon;
            let mut top = village.clone();
            timed(
                move || {
                    baselines::health::sim_main_rayon(&mut top, sim);
                    top
                },
                |top| check_village("health rayon", &top, reference),
            )
        })),
        chili: None,
    })
}

/// `Ok` if the factorisation `got` equals the reference bit for bit.
fn check_lu(
    what: &str,
    got: &sparselu::Matrix,
    reference: &sparselu::Matrix,
) -> Result<(), String> {
    if sparselu::same_bits(got, reference) {
        Ok(())
    } else {
        Err(format!(
            "{what}: {}",
            sparselu::check(got, reference)
                .err()
                .unwrap_or_else(|| "differs in the bits of a value".to_string())
        ))
    }
}

fn sparselu_workload(size: Size) -> Workload {
    let (nb, bs) = match size {
        Size::Test => (sparselu::TEST_NB, sparselu::TEST_BS),
        Size::Quick => (QUICK_SPARSELU_NB, sparselu::PAPER_BS),
        Size::Paper => (sparselu::PAPER_NB, sparselu::PAPER_BS),
    };
    let matrix = sparselu::generate(nb, bs);
    let mut reference = matrix.clone();
    sparselu::sparselu_seq(&mut reference);
    let data = Arc::new((matrix, reference));
    let (d_seq, d_par, d_rayon) = (data.clone(), data.clone(), data);
    Workload {
        program: "sparselu",
        input: format!("{nb}x{nb} blocks of {bs}x{bs}"),
        seq: Box::new(move || {
            let (matrix, reference) = &*d_seq;
            let mut m = matrix.clone();
            timed(
                move || {
                    sparselu::sparselu_seq(&mut m);
                    m
                },
                |m| check_lu("sparselu seq", &m, reference),
            )
        }),
        prescient: Box::new(move || {
            let (matrix, reference) = &*d_par;
            let mut m = matrix.clone();
            timed(
                move || {
                    sparselu::sparselu(&mut m);
                    m
                },
                |m| check_lu("sparselu", &m, reference),
            )
        }),
        rayon: Some(Box::new(move || {
            let (matrix, reference) = &*d_rayon;
            let mut m = matrix.clone();
            timed(
                move || {
                    baselines::sparselu::sparselu_rayon(&mut m);
                    m
                },
                |m| check_lu("sparselu rayon", &m, reference),
            )
        })),
        chili: None,
    }
}
