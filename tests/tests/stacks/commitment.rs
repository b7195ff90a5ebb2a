//! What `#[task_program]` commits per task stack stays within twice what the
//! tasks use: every committed page is pre-faulted in every stack, so an
//! estimate far above the use costs memory in each of them. "Used" is
//! measured as the stack-memory table measures it
//! (`prescient_benches::stack_memory::deepest_stack_use`): the program runs
//! under its `PARAMS` with the commitment set to 0, so every task stack keeps
//! exactly the pages its tasks touched, and the deepest stack's resident
//! bytes are read from `/proc/self/smaps` — in a child process (this test
//! binary again), so that no other test's stacks are counted.
//!
//! The programs: a flat module of range loops (ρ = 0, λ > 0), whose
//! splitting depth the analysis used to charge as 64 levels of joins per
//! loop; a halving recursion with 512 KiB of locals per level over a `u8`
//! (at most 9 levels, of which a call with 2 uses 2), which used to commit
//! all 9 levels in every stack.

use prescient::Params;
use prescient_benches::stack_memory::{deepest_stack_use, StackUse};
use prescient_tests::test_path;
use std::process::Command;

const CHILD_ENV: &str = "PRESCIENT_TESTS_COMMITMENT_CHILD";

/// Workers of the measured runs: enough thieves to split the loops.
const WORKERS: usize = 4;

/// Range loops and nothing recursive.
#[prescient::task_program]
mod flat_loops {
    use prescient::{for_each_mut, for_range, for_range_chunked, for_range_reduce};
    use std::sync::atomic::{AtomicU64, Ordering};

    const N: usize = 1 << 16;

    /// A little work per index.
    fn work(i: usize) -> u64 {
        let mut x = i as u64 | 1;
        for _ in 0..16 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        }
        x >> 60
    }

    /// Every loop form once; returns a checksum.
    pub fn run(v: &mut [u64]) -> u64 {
        let total = AtomicU64::new(0);
        for_range(0..N, 1, |i| {
            total.fetch_add(work(i), Ordering::Relaxed);
        });
        for_range_chunked(0..N, 64, |r| {
            let mut sum = 0;
            for i in r {
                sum += work(i);
            }
            total.fetch_add(sum, Ordering::Relaxed);
        });
        for_each_mut(v, 16, |i, x| *x = work(i));
        let reduced = for_range_reduce(0..N, 8, || 0u64, |a, i| a + work(i), |a, b| a + b);
        total.load(Ordering::Relaxed) + reduced
    }
}

/// A halving recursion with 512 KiB of locals per level.
#[prescient::task_program]
mod big_halving {
    use prescient::join;

    /// Levels down to 1, each holding a 512 KiB buffer; returns the leaves.
    /// (It calls nothing the analysis cannot see: its depth is bounded.)
    pub fn split(n: u8) -> u64 {
        let buf = [n; 512 * 1024];
        if n < 2 {
            return 1 + keep(&buf);
        }
        let (a, b) = join(|| split(n / 2), || split(n / 2));
        a + b + keep(&buf)
    }

    /// Keeps `buf` in memory (the optimiser would fold it away); 0 for the
    /// `n` the test passes (at most 200).
    fn keep(buf: &[u8; 512 * 1024]) -> u64 {
        u64::from(std::hint::black_box(buf)[1] > 200)
    }
}

/// The sequential checksum of [`flat_loops::run`]: three loops sum the work
/// of every index.
fn flat_loops_expected() -> u64 {
    let work = |i: usize| {
        let mut x = i as u64 | 1;
        for _ in 0..16 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        }
        x >> 60
    };
    3 * (0..1 << 16).map(work).sum::<u64>()
}

/// In the child: runs the program `role` names under its `PARAMS` with no
/// commitment and prints its stack use.
fn child(role: &str) {
    let measure = |params: Params, run: &(dyn Fn() -> Result<(), String> + Sync)| {
        deepest_stack_use(params, WORKERS, |rt| rt.run(run)).expect("measured")
    };
    let stack_use = match role {
        "flat_loops" => measure(flat_loops::PARAMS, &|| {
            let mut v = vec![0u64; 1 << 12];
            let got = flat_loops::run(&mut v);
            match got == flat_loops_expected() {
                true => Ok(()),
                false => Err(format!("flat_loops: wrong checksum {got}")),
            }
        }),
        "big_halving" => measure(big_halving::PARAMS, &|| match big_halving::split(2) {
            2 => Ok(()),
            other => Err(format!("big_halving: {other} leaves, expected 2")),
        }),
        other => panic!("unknown role {other}"),
    };
    println!("{}", stack_use.line());
}

/// Runs `test` again in a child process for `role`; returns what it
/// measured.
fn measured(test: &str, role: &str) -> StackUse {
    let exe = std::env::current_exe().expect("this test binary");
    let out = Command::new(exe)
        .args(["--exact", &test_path(module_path!(), test)])
        .args(["--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, role)
        .output()
        .expect("re-execute the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The test harness prints its own words before the child's on a line.
    let line = stdout
        .lines()
        .find_map(|l| l.find("STACKUSE ").map(|at| &l[at..]));
    match line.and_then(StackUse::parse) {
        Some(u) if out.status.success() => u,
        _ => panic!(
            "{role}: the child failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Checks, in the parent, that the commitment is at most twice the use.
fn check(test: &str, role: &str, analysis: &prescient::analysis::ProgramAnalysis) {
    if let Ok(role) = std::env::var(CHILD_ENV) {
        child(&role);
        return;
    }
    let u = measured(test, role);
    println!(
        "{role}: committed {} B, deepest task stack {} B over {} stacks ({:.2}x)",
        u.committed,
        u.deepest,
        u.stacks,
        u.ratio()
    );
    assert!(u.deepest > 0, "{role}: {u:?}");
    assert!(
        u.committed as u64 <= 2 * u.deepest,
        "{role}: commits {} B per stack where the deepest task stack touched {} B\n{analysis}",
        u.committed,
        u.deepest
    );
}

#[test]
fn a_flat_module_of_range_loops_commits_at_most_twice_its_use() {
    let analysis = flat_loops::ANALYSIS;
    assert_eq!(analysis.rho, 0, "{analysis}");
    assert!(analysis.lambda > 0, "{analysis}");
    check(
        "a_flat_module_of_range_loops_commits_at_most_twice_its_use",
        "flat_loops",
        &flat_loops::ANALYSIS,
    );
}

#[test]
fn a_halving_recursion_with_large_locals_commits_at_most_twice_its_use() {
    // Bounded (a `u8` halved), so it commits something, but not every
    // level the bound allows.
    assert_ne!(
        big_halving::PARAMS.committed_stack_size,
        0,
        "{}",
        big_halving::ANALYSIS
    );
    check(
        "a_halving_recursion_with_large_locals_commits_at_most_twice_its_use",
        "big_halving",
        &big_halving::ANALYSIS,
    );
}
