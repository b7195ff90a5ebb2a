//! Deriving decision trees from the sweep, and validating them leave one
//! program out: the evidence behind `prescient::analysis::calibrated`.
//!
//! `cargo bench-run prescient-bench -- cf17 --calibrate [DIR]`
//! (DIR defaults to the sweep stored in the repository,
//! `benches/results/sweep`).
//!
//! **The learner.** A tree over the analysis features (ρ, λ, effort) whose
//! leaves are grid configurations ([`Config`]: policy, capacity, stack; the
//! bucket count is pooled, see [`ProgramSweep::pooled_time`], because no
//! CF'17 program makes a dataflow task). The *loss* of a configuration on a
//! set of programs is the mean, over the programs and their
//! [`calibration_threads`] (≥ [`MIN_CALIBRATION_THREADS`]), of
//! `ln(T(config) / T(best config of that program and thread count))`: 0 when
//! it is every program's best, `ln 1.1` when it is 10 % slower on average. A
//! leaf holds the configuration of least loss, except that among those within
//! [`TIE_TOLERANCE`] of the least it prefers the analysed stack (less
//! memory), then the default policy, then the default capacity (a difference
//! the timer cannot tell apart is no evidence against the default). A node
//! splits on the feature and threshold that lower its programs' summed loss
//! most, if each side keeps at least [`MIN_LEAF_PROGRAMS`] programs, the mean
//! loss falls by at least [`MIN_SPLIT_GAIN`] and the depth stays within
//! [`MAX_DEPTH`]; thresholds lie between two programs' values (ρ and λ:
//! `x ≤ lower value`; effort: the geometric midpoint, rounded down). With
//! twelve programs, these limits are what keeps a tree from giving each
//! program its own leaf.
//!
//! **Validation.** For each program, the trees are derived from the other
//! programs only and the held-out program is run (looked up in its sweep)
//! under their choice: the ratio to its best configuration is what a new
//! program can expect. The full-data tree is what `analysis::calibrated`
//! encodes; a test checks the two agree.

use std::fmt::Write as _;

use prescient::analysis::{ContextAnalysis, ProgramAnalysis, Trees};

use super::sweep::{analysed_stack, Config, ProgramSweep, StackChoice};

/// Configurations whose loss is within this of the least count as tied.
pub const TIE_TOLERANCE: f64 = 0.01;
/// A split must lower the node's mean loss by at least this much.
pub const MIN_SPLIT_GAIN: f64 = 0.02;
/// Each side of a split keeps at least this many programs.
pub const MIN_LEAF_PROGRAMS: usize = 2;
/// The deepest a tree grows (root = depth 0).
pub const MAX_DEPTH: usize = 2;
/// The trees are calibrated on the parallel runs: one worker's best
/// configuration (the smallest queue, every task inline) says nothing about
/// sharing work, and would pull every leaf towards it.
pub const MIN_CALIBRATION_THREADS: usize = 2;

/// An analysis feature a tree can split on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// ρ, the recursive parallel paths.
    Rho,
    /// λ, the spawn sites in loops.
    Lambda,
    /// The aggregated effort.
    Effort,
}

impl Feature {
    /// Every feature.
    pub const ALL: [Feature; 3] = [Feature::Rho, Feature::Lambda, Feature::Effort];

    /// The feature's symbol.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Rho => "rho",
            Feature::Lambda => "lambda",
            Feature::Effort => "effort",
        }
    }

    /// The value of this feature in `features`.
    pub const fn of(self, features: Features) -> u64 {
        match self {
            Feature::Rho => features.rho as u64,
            Feature::Lambda => features.lambda as u64,
            Feature::Effort => features.effort,
        }
    }
}

/// The features of one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// ρ.
    pub rho: u32,
    /// λ.
    pub lambda: u32,
    /// The aggregated effort.
    pub effort: u64,
}

impl Features {
    /// A sweep's features.
    pub fn of(sweep: &ProgramSweep) -> Features {
        Features {
            rho: sweep.rho,
            lambda: sweep.lambda,
            effort: sweep.effort,
        }
    }
}

/// A decision tree whose leaves are configurations.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    /// Every program reaching here gets this configuration.
    Leaf {
        /// The configuration.
        config: Config,
        /// The programs it was derived from.
        programs: Vec<String>,
        /// Its loss on them.
        loss: f64,
    },
    /// `feature ≤ threshold` goes left, else right.
    Split {
        /// The feature tested.
        feature: Feature,
        /// The largest value that goes left.
        threshold: u64,
        /// `feature ≤ threshold`.
        left: Box<Tree>,
        /// `feature > threshold`.
        right: Box<Tree>,
    },
}

impl Tree {
    /// The configuration this tree chooses for `features`.
    pub fn predict(&self, features: Features) -> Config {
        match self {
            Tree::Leaf { config, .. } => *config,
            Tree::Split {
                feature,
                threshold,
                left,
                right,
            } => {
                if feature.of(features) <= *threshold {
                    left.predict(features)
                } else {
                    right.predict(features)
                }
            }
        }
    }

    /// The tree as indented text, each leaf with its programs and loss.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, depth: usize) {
        let indent = "  ".repeat(depth);
        match self {
            Tree::Leaf {
                config,
                programs,
                loss,
            } => {
                let _ = writeln!(
                    out,
                    "{indent}-> {config}  (on {}: mean {:.1} % over each one's best)",
                    programs.join(", "),
                    (loss.exp() - 1.0) * 100.0
                );
            }
            Tree::Split {
                feature,
                threshold,
                left,
                right,
            } => {
                let _ = writeln!(out, "{indent}if {} <= {threshold}:", feature.name());
                left.render_into(out, depth + 1);
                let _ = writeln!(out, "{indent}else:");
                right.render_into(out, depth + 1);
            }
        }
    }
}

/// The thread counts a sweep's loss is taken over: those of at least
/// [`MIN_CALIBRATION_THREADS`], or all if it has none.
pub fn calibration_threads(sweep: &ProgramSweep) -> Vec<usize> {
    let all = sweep.threads();
    let parallel: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&t| t >= MIN_CALIBRATION_THREADS)
        .collect();
    if parallel.is_empty() {
        all
    } else {
        parallel
    }
}

/// `ln(T(config) / T(best))` of one program, averaged over its
/// [`calibration_threads`]; `None` if a point is missing.
pub fn program_loss(sweep: &ProgramSweep, config: Config) -> Option<f64> {
    let threads = calibration_threads(sweep);
    let mut sum = 0.0;
    for &t in &threads {
        let (_, best) = sweep.pooled_best(t)?;
        sum += (sweep.pooled_time(config, t)? / best).ln();
    }
    (!threads.is_empty()).then(|| sum / threads.len() as f64)
}

/// The mean [`program_loss`] of `config` over `sweeps` (infinite if a point
/// is missing).
pub fn loss(sweeps: &[&ProgramSweep], config: Config) -> f64 {
    let mut sum = 0.0;
    for sweep in sweeps {
        match program_loss(sweep, config) {
            Some(l) => sum += l,
            None => return f64::INFINITY,
        }
    }
    sum / sweeps.len().max(1) as f64
}

/// The leaf configuration for `sweeps`: least loss over the grid's policy ×
/// capacity × stack (buckets pooled, see [`ProgramSweep::pooled_time`]);
/// among the configurations within [`TIE_TOLERANCE`] of the least, the one
/// with the analysed stack (less memory, a known mechanism), then the
/// default policy, then the default capacity, then the least loss: the
/// timer's noise is no evidence against the default.
pub fn best_leaf(sweeps: &[&ProgramSweep]) -> (Config, f64) {
    let scored: Vec<(Config, f64)> = Config::all()
        .into_iter()
        .filter(|c| c.buckets == Config::DEFAULT.buckets)
        .map(|c| (c, loss(sweeps, c)))
        .collect();
    let least = scored.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    scored
        .into_iter()
        .filter(|s| s.1 <= least + TIE_TOLERANCE)
        .min_by(|a, b| {
            let key = |c: &(Config, f64)| {
                (
                    c.0.stack != StackChoice::Analysed,
                    c.0.policy != Config::DEFAULT.policy,
                    c.0.capacity != Config::DEFAULT.capacity,
                )
            };
            key(a).cmp(&key(b)).then(a.1.total_cmp(&b.1))
        })
        .expect("the grid is not empty")
}

/// The candidate thresholds of `feature` over `sweeps`: between each two
/// adjacent distinct values.
fn thresholds(sweeps: &[&ProgramSweep], feature: Feature) -> Vec<u64> {
    let mut values: Vec<u64> = sweeps.iter().map(|s| feature.of(Features::of(s))).collect();
    values.sort_unstable();
    values.dedup();
    values
        .windows(2)
        .map(|w| match feature {
            Feature::Effort => ((w[0] as f64) * (w[1] as f64)).sqrt() as u64,
            Feature::Rho | Feature::Lambda => w[0],
        })
        .collect()
}

/// Derives a tree from `sweeps` (see the module documentation).
pub fn derive(sweeps: &[&ProgramSweep]) -> Tree {
    derive_at(sweeps, 0)
}

fn derive_at(sweeps: &[&ProgramSweep], depth: usize) -> Tree {
    let (config, leaf_loss) = best_leaf(sweeps);
    let leaf = Tree::Leaf {
        config,
        programs: sweeps.iter().map(|s| s.program.clone()).collect(),
        loss: leaf_loss,
    };
    if depth >= MAX_DEPTH || sweeps.len() < 2 * MIN_LEAF_PROGRAMS {
        return leaf;
    }
    let mut best_split: Option<(Feature, u64, f64)> = None;
    for feature in Feature::ALL {
        for threshold in thresholds(sweeps, feature) {
            let (left, right): (Vec<&ProgramSweep>, Vec<&ProgramSweep>) = sweeps
                .iter()
                .partition(|s| feature.of(Features::of(s)) <= threshold);
            if left.len() < MIN_LEAF_PROGRAMS || right.len() < MIN_LEAF_PROGRAMS {
                continue;
            }
            let split_loss = (best_leaf(&left).1 * left.len() as f64
                + best_leaf(&right).1 * right.len() as f64)
                / sweeps.len() as f64;
            if best_split.is_none_or(|b| split_loss < b.2) {
                best_split = Some((feature, threshold, split_loss));
            }
        }
    }
    match best_split {
        Some((feature, threshold, split_loss)) if leaf_loss - split_loss >= MIN_SPLIT_GAIN => {
            let (left, right): (Vec<&ProgramSweep>, Vec<&ProgramSweep>) = sweeps
                .iter()
                .partition(|s| feature.of(Features::of(s)) <= threshold);
            Tree::Split {
                feature,
                threshold,
                left: Box::new(derive_at(&left, depth + 1)),
                right: Box::new(derive_at(&right, depth + 1)),
            }
        }
        _ => leaf,
    }
}

/// A one-context analysis with `features` and a `stack` estimate, for asking
/// the runtime's trees about a program that does not exist. `ProgramAnalysis`
/// holds `'static` contexts, so each call leaks one small allocation: for
/// tests and tools, not for loops.
pub fn synthetic_analysis(features: Features, stack: u64) -> ProgramAnalysis {
    let contexts: &'static [ContextAnalysis] = Box::leak(Box::new([ContextAnalysis::new(
        "synthetic",
        features.rho,
        features.lambda,
        features.effort,
        stack,
        &[],
    )]));
    ProgramAnalysis::new("synthetic", contexts, &[])
}

/// The grid configuration the runtime's `trees` choose for `sweep`'s program.
pub fn runtime_choice(sweep: &ProgramSweep, trees: Trees) -> Option<Config> {
    let analysis = crate::annotated::find(&sweep.program).ok()?.analysis;
    Config::of(analysis.params(trees), analysed_stack(&analysis))
}

/// One program's row of the validation table.
#[derive(Clone, Debug)]
pub struct Validation {
    /// The program.
    pub program: String,
    /// Per thread count: (threads, best config, its time).
    pub best: Vec<(usize, Config, f64)>,
    /// The configuration the trees derived without this program choose.
    pub held_out: Config,
    /// The runtime's calibrated trees' choice (derived with it).
    pub calibrated: Option<Config>,
    /// CF'17's trees' choice.
    pub cf17: Option<Config>,
}

impl Validation {
    /// `T(config) / T(best)` at `threads`.
    pub fn ratio(
        &self,
        sweep: &ProgramSweep,
        config: Option<Config>,
        threads: usize,
    ) -> Option<f64> {
        let best = self.best.iter().find(|b| b.0 == threads)?.2;
        Some(sweep.pooled_time(config?, threads)? / best)
    }
}

/// Derives the trees once per program without it and records what they
/// choose for it, beside the runtime's calibrated and CF'17 choices.
pub fn leave_one_out(sweeps: &[ProgramSweep]) -> Vec<Validation> {
    sweeps
        .iter()
        .enumerate()
        .map(|(i, held)| {
            let rest: Vec<&ProgramSweep> = sweeps
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, s)| s)
                .collect();
            let tree = derive(&rest);
            Validation {
                program: held.program.clone(),
                best: held
                    .threads()
                    .into_iter()
                    .filter_map(|t| held.pooled_best(t).map(|(c, time)| (t, c, time)))
                    .collect(),
                held_out: tree.predict(Features::of(held)),
                calibrated: runtime_choice(held, Trees::Calibrated),
                cf17: runtime_choice(held, Trees::Cf17),
            }
        })
        .collect()
}

/// The geometric mean of `values` (1 for none).
pub fn geomean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 1.0;
    }
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// How far apart configurations that differ only in the bucket count lie:
/// per program, thread count and (policy, capacity, stack), `max / min - 1`
/// over the bucket counts; returns the median and the 90th percentile. For
/// programs without dataflow tasks the bucket count changes nothing the
/// runtime does, so this is the timer's noise.
pub fn bucket_spread(sweeps: &[ProgramSweep]) -> (f64, f64) {
    let mut spreads = Vec::new();
    for sweep in sweeps {
        for threads in sweep.threads() {
            for config in sweep.configs() {
                if config.buckets != super::sweep::BUCKETS[0] {
                    continue;
                }
                let times: Vec<f64> = super::sweep::BUCKETS
                    .iter()
                    .filter_map(|&buckets| sweep.time(Config { buckets, ..config }, threads))
                    .collect();
                if times.len() > 1 {
                    let max = times.iter().copied().fold(0.0, f64::max);
                    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
                    spreads.push(max / min - 1.0);
                }
            }
        }
    }
    spreads.sort_by(f64::total_cmp);
    let at = |q: f64| {
        spreads
            .get(((spreads.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    (at(0.5), at(0.9))
}

/// The report `--calibrate` prints: the full-data tree, then per thread
/// count a table per program (best, default, CF'17, calibrated, held-out
/// tree; each as `T / T_best`), and the summary ratios.
pub fn report(sweeps: &[ProgramSweep]) -> String {
    let mut out = String::new();
    let all: Vec<&ProgramSweep> = sweeps.iter().collect();
    let tree = derive(&all);
    let (median, p90) = bucket_spread(sweeps);
    let _ = writeln!(
        out,
        "noise: configurations differing only in buckets lie {:.1} % apart (median), {:.1} % (90th percentile)",
        median * 100.0,
        p90 * 100.0
    );
    let _ = writeln!(
        out,
        "tree derived from all {} programs, on thread counts >= {MIN_CALIBRATION_THREADS}:",
        sweeps.len()
    );
    out.push_str(&tree.render());
    let validations = leave_one_out(sweeps);
    let mut threads: Vec<usize> = sweeps.iter().flat_map(|s| s.threads()).collect();
    threads.sort_unstable();
    threads.dedup();
    for &t in &threads {
        let _ = writeln!(
            out,
            "\n{t} thread(s): T / T_best (best = fastest of the grid for that program)"
        );
        let _ = writeln!(
            out,
            "{:<10} {:<24} {:>9} {:>8} {:>8} {:>10} {:>9}  {:<24} {:>9} {:>9}",
            "program",
            "best",
            "best ms",
            "default",
            "cf17",
            "calibrated",
            "held-out",
            "held-out config",
            "def/cal",
            "def/held"
        );
        let (mut cal_speedups, mut held_speedups, mut cf17_speedups) = (vec![], vec![], vec![]);
        for (sweep, v) in sweeps.iter().zip(&validations) {
            let Some(&(_, best, best_s)) = v.best.iter().find(|b| b.0 == t) else {
                continue;
            };
            let r = |c: Option<Config>| v.ratio(sweep, c, t);
            let f = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
            let default = r(Some(Config::DEFAULT));
            let (cf17, cal, held) = (r(v.cf17), r(v.calibrated), r(Some(v.held_out)));
            let speedup = |x: Option<f64>| default.zip(x).map(|(d, x)| d / x);
            if let Some(s) = speedup(cal) {
                cal_speedups.push(s);
            }
            if let Some(s) = speedup(held) {
                held_speedups.push(s);
            }
            if let Some(s) = speedup(cf17) {
                cf17_speedups.push(s);
            }
            let _ = writeln!(
                out,
                "{:<10} {:<24} {:>9.2} {:>8} {:>8} {:>10} {:>9}  {:<24} {:>9} {:>9}",
                sweep.program,
                best.to_string(),
                best_s * 1e3,
                f(default),
                f(cf17),
                f(cal),
                f(held),
                v.held_out.to_string(),
                f(speedup(cal)),
                f(speedup(held)),
            );
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let _ = writeln!(
            out,
            "T_default / T_tuned, geomean (min): calibrated {:.3} ({:.3}), held-out {:.3} ({:.3}), cf17 {:.3} ({:.3})",
            geomean(&cal_speedups),
            min(&cal_speedups),
            geomean(&held_speedups),
            min(&held_speedups),
            geomean(&cf17_speedups),
            min(&cf17_speedups),
        );
    }
    out
}

/// `cf17 --calibrate [DIR]`: reads the sweep in DIR (default: the one
/// stored in the repository, [`STORED`](super::sweep::STORED)) and prints
/// the [`report`]. Returns the exit code.
pub fn run(dir: Option<&std::path::Path>) -> i32 {
    let dir = dir.map_or_else(
        || std::path::PathBuf::from(super::sweep::STORED),
        std::path::Path::to_path_buf,
    );
    match super::sweep::read_dir(&dir) {
        Ok(sweeps) if !sweeps.is_empty() => {
            print!("{}", report(&sweeps));
            0
        }
        Ok(_) => {
            eprintln!("error: no sweep files (*.json) in {}", dir.display());
            1
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cf17::sweep::{Point, ProgramSweep};
    use prescient::tuning::{QueuePolicy, MAX_STACK_SIZE};

    /// A sweep where `fast`'s policy and capacity take 1 s (under every
    /// bucket count) and every other point `slow` s.
    fn sweep(
        name: &str,
        rho: u32,
        lambda: u32,
        effort: u64,
        fast: Config,
        slow: f64,
    ) -> ProgramSweep {
        let points = Config::all()
            .into_iter()
            .filter(|c| c.stack == StackChoice::Max)
            .flat_map(|c| {
                [1, 2].map(|threads| Point {
                    threads,
                    policy: c.policy,
                    capacity: c.capacity,
                    buckets: c.buckets,
                    stack_bytes: MAX_STACK_SIZE,
                    best_s: if (c.policy, c.capacity) == (fast.policy, fast.capacity) {
                        1.0
                    } else {
                        slow
                    },
                    median_s: 1.0,
                })
            })
            .collect();
        ProgramSweep {
            program: name.into(),
            input: String::new(),
            size: "test".into(),
            reps: 1,
            machine: crate::harness::Machine {
                threads: 1,
                arch: String::new(),
                os: String::new(),
                cpu: String::new(),
            },
            rho,
            lambda,
            effort,
            stack_size: MAX_STACK_SIZE,
            seq_s: 1.0,
            points,
        }
    }

    fn config(policy: QueuePolicy, capacity: usize) -> Config {
        Config {
            policy,
            capacity,
            buckets: 97,
            stack: StackChoice::Max,
        }
    }

    #[test]
    fn one_best_configuration_is_one_leaf() {
        let pf4 = config(QueuePolicy::InsertFrontStealBack, 4);
        let sweeps: Vec<ProgramSweep> = (0..4)
            .map(|i| sweep(&format!("p{i}"), i, 0, 10, pf4, 2.0))
            .collect();
        let refs: Vec<&ProgramSweep> = sweeps.iter().collect();
        let tree = derive(&refs);
        // The stack choices are the same parameters here; ties prefer "analysed".
        assert_eq!(
            tree.predict(Features::of(&sweeps[0])),
            Config {
                stack: StackChoice::Analysed,
                ..pf4
            }
        );
        assert!(matches!(tree, Tree::Leaf { .. }), "{}", tree.render());
    }

    #[test]
    fn two_groups_split_on_the_feature_that_separates_them() {
        let pf4 = config(QueuePolicy::InsertFrontStealBack, 4);
        let def128 = config(QueuePolicy::InsertBackStealBack, 128);
        let sweeps = vec![
            sweep("a", 2, 0, 10, pf4, 2.0),
            sweep("b", 3, 0, 20, pf4, 2.0),
            sweep("c", 0, 1, 15, def128, 2.0),
            sweep("d", 0, 2, 5, def128, 2.0),
        ];
        let refs: Vec<&ProgramSweep> = sweeps.iter().collect();
        let tree = derive(&refs);
        let Tree::Split {
            feature, threshold, ..
        } = &tree
        else {
            panic!("no split:\n{}", tree.render());
        };
        assert!(
            matches!(
                (feature, threshold),
                (Feature::Rho, 0) | (Feature::Lambda, 0)
            ),
            "{}",
            tree.render()
        );
        for s in &sweeps {
            assert_eq!(program_loss(s, tree.predict(Features::of(s))), Some(0.0));
        }
        // Without one program a side has one program left: no split.
        let v = leave_one_out(&sweeps);
        assert_eq!(v.len(), 4);
    }

    #[test]
    fn a_split_needs_two_programs_per_side() {
        let pf4 = config(QueuePolicy::InsertFrontStealBack, 4);
        let def128 = config(QueuePolicy::InsertBackStealBack, 128);
        let sweeps = [
            sweep("a", 2, 0, 10, pf4, 2.0),
            sweep("b", 3, 0, 20, pf4, 2.0),
            sweep("c", 0, 1, 15, def128, 2.0),
        ];
        let refs: Vec<&ProgramSweep> = sweeps.iter().collect();
        assert!(matches!(derive(&refs), Tree::Leaf { .. }));
    }

    #[test]
    fn effort_thresholds_are_geometric_midpoints() {
        let c = config(QueuePolicy::InsertBackStealBack, 4);
        let sweeps = [
            sweep("a", 0, 0, 100, c, 2.0),
            sweep("b", 0, 0, 10_000, c, 2.0),
        ];
        let refs: Vec<&ProgramSweep> = sweeps.iter().collect();
        assert_eq!(thresholds(&refs, Feature::Effort), vec![1000]);
        assert_eq!(thresholds(&refs, Feature::Rho), Vec::<u64>::new());
    }

    /// The runtime's calibrated trees are the tree derived from the sweep
    /// stored in the repository: same policy, capacity and stack choice on
    /// every program and on features on both sides of every threshold.
    #[test]
    fn the_runtime_trees_are_the_tree_derived_from_the_stored_sweep() {
        let sweeps =
            crate::cf17::sweep::read_dir(std::path::Path::new(crate::cf17::sweep::STORED)).unwrap();
        assert_eq!(sweeps.len(), crate::cf17::workloads::NAMES.len());
        let refs: Vec<&ProgramSweep> = sweeps.iter().collect();
        let tree = derive(&refs);
        let mut probes: Vec<Features> = sweeps.iter().map(Features::of).collect();
        for rho in [0, 1, 2, 3, 5, 6, 7, 64] {
            for lambda in [0, 1, 2, 3, 16] {
                for effort in [0, 2, 4, 5, 6, 7, 12, 100, 1_000_000, 1 << 40] {
                    probes.push(Features {
                        rho,
                        lambda,
                        effort,
                    });
                }
            }
        }
        for features in probes {
            let want = tree.predict(features);
            let analysis = synthetic_analysis(features, 40_000);
            let got = analysis.params(Trees::Calibrated);
            assert_eq!(
                (got.queue_policy, got.queue_capacity),
                (want.policy, want.capacity),
                "{features:?}\n{}",
                tree.render()
            );
            let want_params = want.params(analysed_stack(&analysis));
            assert_eq!(
                got.committed_stack_size, want_params.committed_stack_size,
                "{features:?}"
            );
            assert_eq!(
                got.dependency_buckets,
                prescient::analysis::cf17::dependency_buckets(features.rho)
            );
        }
    }

    #[test]
    fn geomean_of_ratios() {
        assert!((geomean(&[2.0, 0.5]) - 1.0).abs() < 1e-12);
        assert_eq!(geomean(&[]), 1.0);
    }
}
