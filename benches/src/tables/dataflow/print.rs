//! The `dataflow` table's closing Markdown tables: the DAST counters, the
//! summary relative to `off` (and its [`ModeRatio`]s for the JSON) and,
//! with `dast-stats`, the per-request cost. The rows printed while the
//! benchmarks are measured are in [`super::measure`].

#[cfg(feature = "dast-stats")]
use super::measure::Sizes;
use super::measure::{Bench, Entry, NAME};
use crate::cf17::calibrate::geomean;
use prescient::tuning::DastMode;
use serde::{Deserialize, Serialize};

/// One cell of the summary's geometric-mean rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModeRatio {
    /// The mode's short name.
    pub mode: String,
    /// Worker threads.
    pub threads: usize,
    /// The geometric mean of `T_mode / T_off` over the benchmarks.
    pub geomean: f64,
    /// How many benchmarks that mean is over.
    pub benchmarks: usize,
}

/// The DAST counters of `entries`, per run (the change over a mode's runs
/// divided by their number): new / done / delete requests pushed to the
/// manager's queues vs executed inline, pushed requests executed by the
/// manager thread vs by workers, and done-bound doublings.
pub fn counters<'a>(bench: &Bench, entries: impl Iterator<Item = &'a Entry>) {
    let mut entries = entries.peekable();
    if entries.peek().is_none() {
        return;
    }
    println!(
        "\n### DAST counters per timed run (a task_cost run: its timing's tasks): requests \
         pushed to the DAST queues vs executed inline, pushed ones executed by the manager \
         thread vs by workers; tasks run inline at submission without a graph entry make no \
         request\n"
    );
    let columns = [
        "new push",
        "new inl",
        "done push",
        "done inl",
        "del push",
        "del inl",
        "by mgr",
        "by wrk",
        "doublings",
    ];
    let mut line = format!("| {:<NAME$} | {:>3} | {:<8} |", "benchmark", "P", "mode");
    let mut rule = format!("|{:-<w$}|{:->4}:|{:-<10}|", "", "", "", w = NAME + 2);
    for c in columns {
        line += &format!(" {c:>9} |");
        rule += &format!("{:->10}:|", "");
    }
    println!("{line}\n{rule}");
    for entry in entries {
        for (t, measured) in bench.threads.iter().zip(&entry.measured) {
            for (mode, s) in bench.modes.iter().zip(measured) {
                let d = &s.delta;
                let mut line = format!(
                    "| {:<NAME$} | {t:>3} | {:<8} |",
                    entry.label,
                    mode.short_name()
                );
                for value in [
                    d.dast_new_pushed,
                    d.dast_new_inline,
                    d.dast_done_pushed,
                    d.dast_done_inline,
                    d.dast_delete_pushed,
                    d.dast_delete_inline,
                    d.dast_executed_by_manager,
                    d.dast_executed_by_workers,
                    d.dast_bound_doublings,
                ] {
                    line += &format!(" {:>9.0} |", value as f64 / s.runs as f64);
                }
                println!("{line}");
            }
        }
    }
}

/// Each mode's time relative to `off`, per benchmark and thread count, and
/// the geometric mean of those ratios per mode and thread count (returned
/// for the JSON; empty without `off` or another mode).
pub fn summary(bench: &Bench, entries: &[Entry]) -> Vec<ModeRatio> {
    if entries.is_empty() {
        return Vec::new();
    }
    println!("\n### DAST modes relative to off: T_mode / T_off (< 1: faster than off)\n");
    let Some(off) = bench.modes.iter().position(|&m| m == DastMode::Off) else {
        println!("(no summary: `off`, the baseline, is not among the measured modes)");
        return Vec::new();
    };
    let others: Vec<usize> = (0..bench.modes.len()).filter(|&m| m != off).collect();
    if others.is_empty() {
        println!("(no summary: only `off` was measured)");
        return Vec::new();
    }
    let mut line = format!("| {:<NAME$} | {:<8} |", "benchmark", "mode");
    let mut rule = format!("|{:-<w$}|{:-<10}|", "", "", w = NAME + 2);
    for t in &bench.threads {
        line += &format!(" {:>6} |", format!("P{t}"));
        rule += &format!("{:->7}:|", "");
    }
    println!("{line}\n{rule}");
    let ratio = |entry: &Entry, i: usize, m: usize| {
        entry.measured[i][m].time.as_secs_f64() / entry.measured[i][off].time.as_secs_f64()
    };
    for entry in entries {
        for &m in &others {
            let mut line = format!(
                "| {:<NAME$} | {:<8} |",
                entry.label,
                bench.modes[m].short_name()
            );
            for i in 0..bench.threads.len() {
                line += &format!(" {:>6.2} |", ratio(entry, i, m));
            }
            println!("{line}");
        }
    }
    let mut means = Vec::new();
    for &m in &others {
        let mut line = format!(
            "| {:<NAME$} | {:<8} |",
            format!("geomean ({} benchmarks)", entries.len()),
            bench.modes[m].short_name()
        );
        for (i, &threads) in bench.threads.iter().enumerate() {
            let ratios: Vec<f64> = entries.iter().map(|e| ratio(e, i, m)).collect();
            let mean = geomean(&ratios);
            line += &format!(" {mean:>6.2} |");
            means.push(ModeRatio {
                mode: bench.modes[m].short_name().to_string(),
                threads,
                geomean: mean,
                benchmarks: entries.len(),
            });
        }
        println!("{line}");
    }
    means
}

/// With the `dast-stats` feature: per thread count and mode, the harmonic
/// mean execution time of each request kind by executor (the DAST paper's
/// Fig. 7) and the graph-lock acquisition time (its Fig. 8), over one run of
/// two-wave at task size 250 and one of dependent empty tasks (their counts
/// from `sizes`), all deferred (so that every task makes its three
/// requests).
#[cfg(feature = "dast-stats")]
pub fn request_cost(bench: &Bench, sizes: &Sizes) {
    use crate::cli::progress;
    use crate::dataflow::{overhead, runtime, two_wave, DEFERRING};
    use prescient::dataflow::{DastStats, Timing};
    println!(
        "\n### Per-request cost (harmonic mean ns; count in parentheses) and graph-lock \
         acquisition (dast-stats build: every timing adds two clock reads)\n"
    );
    println!(
        "| workload | P | mode | new inline | new queued | done inline | done queued | \
         delete inline | delete queued | lock hmean | lock mean | lock max |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let cell = |t: &Timing| {
        if t.count == 0 {
            "-".to_string()
        } else {
            format!("{:.0} ({})", t.harmonic_mean_ns, t.count)
        }
    };
    let (waves, dependent) = sizes.request_cost;
    let workloads: [(String, Box<dyn Fn() -> u64 + Sync>); 2] = [
        (
            format!("two_wave {waves}x2 size {}", two_wave::OVERHEAD),
            Box::new(move || two_wave::dataflow(waves, two_wave::OVERHEAD).len() as u64),
        ),
        (
            format!("{dependent} dependent empty"),
            Box::new(move || overhead::empty_dependent(dependent)),
        ),
    ];
    for (name, work) in &workloads {
        for &threads in &bench.threads {
            for &mode in &bench.modes {
                progress(format!(
                    "dataflow: request cost of {name}, {threads} thread{}, {}",
                    if threads == 1 { "" } else { "s" },
                    mode.short_name()
                ));
                let rt = runtime(threads, DEFERRING.with_dast(mode));
                rt.run(work);
                let before = DastStats::snapshot();
                std::hint::black_box(rt.run(work));
                let s = DastStats::snapshot().since(&before);
                println!(
                    "| {name} | {threads} | {mode} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} |",
                    cell(&s.new_inline),
                    cell(&s.new_queued),
                    cell(&s.done_inline),
                    cell(&s.done_queued),
                    cell(&s.delete_inline),
                    cell(&s.delete_queued),
                    s.lock_acquisition.harmonic_mean_ns,
                    s.lock_acquisition.mean_ns(),
                    s.lock_acquisition.max_ns,
                );
            }
        }
    }
}
