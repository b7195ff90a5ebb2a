//! The DAST paper's synthetic benchmark: two waves of [`NUM_TASKS`] tasks;
//! task *i* of wave 1 writes value *i* (`out`), task *i* of wave 2 depends on
//! it (`inout` of the same value). Each task runs [`chain`]: `TASK_SIZE`
//! iterations of a dependent floating-point recurrence, so its cost is
//! latency-bound and does not vectorise.
//!
//! Sizes: [`FINE`] (25,000 iterations) and [`COARSE`] (50,000) as in the
//! paper, [`OVERHEAD`] (250), where runtime overhead dominates, and
//! [`MEDIUM`] (2,500) between them.

/// Tasks per wave.
pub const NUM_TASKS: usize = 10_000;
/// The paper's fine-grained task size (iterations per task).
pub const FINE: usize = 25_000;
/// The paper's coarse-grained task size.
pub const COARSE: usize = 50_000;
/// A task size where the runtime's per-task overhead dominates.
pub const OVERHEAD: usize = 250;
/// A task size between the two: the runtime's per-task overhead is still
/// visible, but no longer the whole cost.
pub const MEDIUM: usize = 2_500;
/// The four task sizes, in the order the benches report them.
pub const TASK_SIZES: [usize; 4] = [OVERHEAD, MEDIUM, FINE, COARSE];

/// `iterations` steps of `x = x * a + b`: each step needs the previous one
/// (a multiply and an add of latency), so a task is a serial chain.
#[inline(never)]
pub fn chain(mut x: f64, iterations: usize) -> f64 {
    for _ in 0..iterations {
        x = x * 0.999_999_9 + 1e-7;
    }
    x
}

/// The initial value task *i* of wave 1 starts from.
fn seed(i: usize) -> f64 {
    i as f64 * 1e-3
}

/// The sequential reference: wave 1, then wave 2.
pub fn sequential(num_tasks: usize, task_size: usize) -> Vec<f64> {
    let mut values = vec![0.0; num_tasks];
    for (i, v) in values.iter_mut().enumerate() {
        *v = chain(seed(i), task_size);
    }
    for v in values.iter_mut() {
        *v = chain(*v, task_size);
    }
    values
}

/// The dataflow version: one tile (region) per value, wave 1 `out`, wave 2
/// `inout`, all submitted by one task; returns the values after both waves.
pub fn dataflow(num_tasks: usize, task_size: usize) -> Vec<f64> {
    let mut values = vec![0.0; num_tasks];
    prescient::dataflow(|df| {
        let tiles = df.tiles(&mut values, 1);
        for i in 0..num_tasks {
            df.task(tiles.out(i), move |v: &mut [f64]| {
                v[0] = chain(seed(i), task_size)
            });
        }
        for i in 0..num_tasks {
            df.task(tiles.inout(i), move |v: &mut [f64]| {
                v[0] = chain(v[0], task_size)
            });
        }
    });
    values
}

/// Checks a result against the sequential reference (exactly).
///
/// # Errors
/// The first difference.
pub fn check(result: &[f64], num_tasks: usize, task_size: usize) -> Result<(), String> {
    super::compare_exact(result, &sequential(num_tasks, task_size), "two_wave")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataflow_matches_sequential() {
        let runtime = crate::dataflow::runtime(2, prescient::Params::DEFAULT);
        let result = runtime.run(|| dataflow(300, 50));
        check(&result, 300, 50).unwrap();
        // The checker can fail: one wave only is not the answer.
        let one_wave: Vec<f64> = (0..300).map(|i| chain(seed(i), 50)).collect();
        assert!(check(&one_wave, 300, 50).is_err());
    }
}
