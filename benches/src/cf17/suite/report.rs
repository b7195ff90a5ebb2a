//! The `cf17` table's Markdown tables and summary, and its JSON
//! ([`Cf17Json`], through serde). The conventions are those of the module
//! documentation of [`crate::cf17::suite`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::child::{ChildResult, Outcome};
use super::cli::{Settings, SUBCOMMAND};
use super::runner::{params_text, Runner};
use crate::samples::{Sample, TableHead};
use crate::suite::machine::Machine;
use crate::suite::report::{counters_map, format_ns, md_header, md_row};

/// The counters shown per timed run: (name in [`prescient::tuning::Counters`],
/// column heading).
pub const PER_RUN_COUNTERS: [(&str, &str); 4] = [
    ("spawns", "spawns"),
    ("inlined_spawns", "inlined"),
    ("steals", "steals"),
    ("suspensions", "susp"),
];

/// The counter shown as is (a peak, not a sum): (name, heading).
pub const PEAK_COUNTER: (&str, &str) = ("peak_live_stacks", "stacks");

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 && a.is_finite() => Some(a / b),
        _ => None,
    }
}

fn opt(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_string(),
    }
}

/// A count for a narrow column: one decimal below 100, whole numbers below
/// ten million, else `1.23e7`.
fn count(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() && v < 100.0 => format!("{v:.1}"),
        Some(v) if v.is_finite() && v < 1e7 => format!("{v:.0}"),
        Some(v) if v.is_finite() => format!("{v:.2e}"),
        _ => "-".to_string(),
    }
}

/// One row of the table: a configuration and the figures derived from it
/// and the rows it is compared with.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration and what its child measured.
    pub outcome: Outcome,
    /// The Prescient parameters of the runner for this program, as text.
    pub params: Option<String>,
    /// Time over the program's sequential time.
    pub t_over_tseq: Option<f64>,
    /// The runner's own one-thread time over this time.
    pub speedup: Option<f64>,
    /// Prescient-default's time at the same thread count over this time
    /// (the speedup over default; > 1: faster).
    pub def_over_t: Option<f64>,
}

impl Row {
    /// What the child measured, if it succeeded.
    pub fn ok(&self) -> Option<&ChildResult> {
        self.outcome.result.as_ref().ok()
    }
}

/// Geometric mean, minimum and maximum of some ratios.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// How many ratios.
    pub n: usize,
    /// Their geometric mean.
    pub geomean: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Stats {
    /// The statistics of `values` (only the finite positive ones count);
    /// `None` if there are none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Stats> {
        let values: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        Some(Stats {
            n,
            geomean: (values.iter().map(|v| v.ln()).sum::<f64>() / n as f64).exp(),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(0.0, f64::max),
        })
    }

    fn render(stats: Option<Stats>) -> String {
        match stats {
            Some(s) => format!("{:.2} [{:.2}..{:.2}] ({})", s.geomean, s.min, s.max, s.n),
            None => "-".to_string(),
        }
    }
}

/// The summary at one thread count (see the module documentation of
/// [`crate::cf17::suite`] for the conventions).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The thread count.
    pub threads: usize,
    /// `T_default / T_tuned` over the programs (> 1: tuned is faster).
    pub tuned_over_default: Option<Stats>,
    /// `T_default / T_cf17` over the programs (> 1: cf17 is faster).
    pub cf17_over_default: Option<Stats>,
    /// Peak RSS of tuned over default's (< 1: tuned uses less memory).
    pub rss_tuned_over_default: Option<Stats>,
    /// `T_rayon / T_tuned` over the programs (> 1: tuned is faster).
    pub tuned_over_rayon: Option<Stats>,
}

/// The results with everything derived.
#[derive(Clone, Debug)]
pub struct Table {
    /// The rows, in the order run.
    pub rows: Vec<Row>,
    /// The programs, in the order run.
    pub programs: Vec<&'static str>,
}

impl Table {
    /// Derives every row's figures from the outcomes.
    pub fn new(outcomes: &[Outcome]) -> Table {
        let time = |program: &str, runner: Runner, threads: usize| {
            outcomes
                .iter()
                .find(|o| o.program == program && o.runner == runner && o.threads == threads)
                .and_then(|o| o.result.as_ref().ok())
                .map(|r| r.median_ns)
        };
        let mut programs = Vec::new();
        let rows = outcomes
            .iter()
            .map(|o| {
                if !programs.contains(&o.program) {
                    programs.push(o.program);
                }
                let t = o.result.as_ref().ok().map(|r| r.median_ns);
                let parallel = o.runner.is_parallel();
                Row {
                    outcome: o.clone(),
                    params: o
                        .runner
                        .params(o.program)
                        .ok()
                        .flatten()
                        .map(|p| params_text(&p)),
                    t_over_tseq: ratio(t, time(o.program, Runner::Seq, 1)),
                    speedup: if parallel {
                        ratio(time(o.program, o.runner, 1), t)
                    } else {
                        None
                    },
                    def_over_t: if parallel {
                        ratio(time(o.program, Runner::Default, o.threads), t)
                    } else {
                        None
                    },
                }
            })
            .collect();
        Table { rows, programs }
    }

    /// What the child of a configuration measured, if it succeeded.
    pub fn result(&self, program: &str, runner: Runner, threads: usize) -> Option<&ChildResult> {
        self.rows
            .iter()
            .find(|r| {
                r.outcome.program == program
                    && r.outcome.runner == runner
                    && r.outcome.threads == threads
            })
            .and_then(Row::ok)
    }

    /// The median time of a configuration, in nanoseconds.
    pub fn time(&self, program: &str, runner: Runner, threads: usize) -> Option<f64> {
        self.result(program, runner, threads).map(|r| r.median_ns)
    }

    /// The program's sequential time, in nanoseconds.
    pub fn seq_time(&self, program: &str) -> Option<f64> {
        self.time(program, Runner::Seq, 1)
    }

    /// The program's input, as its children reported it.
    pub fn input(&self, program: &str) -> Option<&str> {
        self.rows
            .iter()
            .filter(|r| r.outcome.program == program)
            .find_map(Row::ok)
            .map(|r| r.input.as_str())
    }

    /// Per program with both times, the speedup of `subject` over
    /// `reference` at `threads`: `T_reference / T_subject`.
    pub fn speedups(
        &self,
        threads: usize,
        subject: Runner,
        reference: Runner,
    ) -> Vec<(&'static str, f64)> {
        self.programs
            .iter()
            .filter_map(|&p| {
                ratio(
                    self.time(p, reference, threads),
                    self.time(p, subject, threads),
                )
                .map(|r| (p, r))
            })
            .collect()
    }

    /// Per program with both, the peak RSS of `subject` over `reference`'s
    /// at `threads`.
    pub fn rss_ratios(
        &self,
        threads: usize,
        subject: Runner,
        reference: Runner,
    ) -> Vec<(&'static str, f64)> {
        let rss = |p: &str, r: Runner| self.result(p, r, threads).map(|c| c.rss_kib as f64);
        self.programs
            .iter()
            .filter_map(|&p| ratio(rss(p, subject), rss(p, reference)).map(|r| (p, r)))
            .collect()
    }

    /// The summary at each of `threads`.
    pub fn summary(&self, threads: &[usize]) -> Vec<Summary> {
        let stats = |v: Vec<(&str, f64)>| Stats::of(v.into_iter().map(|(_, r)| r));
        threads
            .iter()
            .map(|&t| Summary {
                threads: t,
                tuned_over_default: stats(self.speedups(t, Runner::Tuned, Runner::Default)),
                cf17_over_default: stats(self.speedups(t, Runner::Cf17, Runner::Default)),
                rss_tuned_over_default: stats(self.rss_ratios(t, Runner::Tuned, Runner::Default)),
                tuned_over_rayon: stats(self.speedups(t, Runner::Tuned, Runner::Rayon)),
            })
            .collect()
    }

    /// The program with its input, as the samples name it: `fib (n=35)`
    /// (the program alone if no child reported its input).
    pub fn label(&self, program: &str) -> String {
        match self.input(program) {
            Some(input) => format!("{program} ({input})"),
            None => program.to_string(),
        }
    }

    /// The shared samples ([`crate::samples`]): one per measured
    /// configuration, the median of its timed runs, under the program's
    /// [`label`](Self::label) and the runner's
    /// [`sample_name`](Runner::sample_name).
    pub fn samples(&self) -> Vec<Sample> {
        self.rows
            .iter()
            .filter_map(|row| {
                let o = &row.outcome;
                let r = row.ok()?;
                Some(Sample::new(
                    self.label(o.program),
                    o.runner.sample_name(),
                    o.threads,
                    r.median_ns / 1e9,
                ))
            })
            .collect()
    }

    /// The table: per program a `###` heading with its input and
    /// sequential time, its parameter sets, then a Markdown table with per
    /// thread count one line per runner.
    pub fn render(&self, threads: &[usize]) -> String {
        let mut out = String::new();
        let mut columns: Vec<String> = [
            "thr", "runner", "time", "min", "T/Tseq", "speedup", "Tdef/T", "RSS MiB",
        ]
        .map(String::from)
        .to_vec();
        for (_, heading) in PER_RUN_COUNTERS {
            columns.push(format!("{heading}/run"));
        }
        columns.push(PEAK_COUNTER.1.to_string());

        for &program in &self.programs {
            let _ = writeln!(
                out,
                "### {SUBCOMMAND}: {program} ({}), seq {}\n",
                self.input(program).unwrap_or("?"),
                format_ns(self.seq_time(program).unwrap_or(f64::NAN))
            );
            let sets: Vec<String> = [Runner::Default, Runner::Tuned, Runner::Cf17]
                .into_iter()
                .filter_map(|r| {
                    let p = r.params(program).ok().flatten()?;
                    Some(format!("{r} `{}`", params_text(&p)))
                })
                .collect();
            let _ = writeln!(out, "params: {}\n", sets.join("; "));
            out.push_str(&md_header(&columns, 2));
            for row in self.rows.iter().filter(|r| r.outcome.program == program) {
                let o = &row.outcome;
                let thr = if o.runner.is_parallel() {
                    o.threads.to_string()
                } else {
                    "-".to_string()
                };
                let mut cells = vec![thr, o.runner.name().to_string()];
                match &o.result {
                    Ok(r) => {
                        cells.extend([
                            format_ns(r.median_ns),
                            format_ns(r.min_ns),
                            opt(row.t_over_tseq, 2),
                            opt(row.speedup, 2),
                            opt(row.def_over_t, 2),
                            format!("{:.1}", r.rss_kib as f64 / 1024.0),
                        ]);
                        for (name, _) in PER_RUN_COUNTERS {
                            cells.push(count(r.per_run(name)));
                        }
                        let peak = r
                            .counters
                            .as_ref()
                            .and_then(|c| c.get(PEAK_COUNTER.0))
                            .map(|v| v as f64);
                        cells.push(count(peak));
                    }
                    Err(e) => {
                        cells.push(format!("FAILED: {e}"));
                        cells.resize(columns.len(), String::new());
                    }
                }
                out.push_str(&md_row(&cells));
                out.push('\n');
            }
            out.push('\n');
        }
        let _ = write!(
            out,
            "threads: {}. time, min: median and fastest of the timed runs; T/Tseq: over the \
             sequential time;\nspeedup: the runner's own 1-thread time / time; Tdef/T: \
             Prescient-default's time at the same\nthread count / time (the speedup over \
             default: > 1 is faster); RSS: the child's peak;\ncounters per timed run: \
             spawns (pushed to a deque), inlined (deque full), steals, susp(ensions);\n\
             stacks: the most tasks suspended at once on one worker.\n",
            crate::suite::cli::join_list(threads)
        );
        out
    }

    /// The summary per thread count: geometric mean [min..max] (programs).
    pub fn render_summary(&self, threads: &[usize]) -> String {
        let mut out = format!(
            "### {SUBCOMMAND}: summary\n\nPer thread count, over the programs: geometric mean \
             [min..max] (programs).\nspeedup of X over Y = T_Y / T_X (> 1: X is faster); RSS \
             tuned/default = peak RSS of tuned / default's (< 1: tuned uses less).\n\n"
        );
        out.push_str(&md_header(
            &[
                "thr",
                "tuned/default",
                "cf17/default",
                "RSS tuned/default",
                "tuned/rayon",
            ],
            0,
        ));
        for s in self.summary(threads) {
            out.push_str(&md_row(&[
                s.threads.to_string(),
                Stats::render(s.tuned_over_default),
                Stats::render(s.cf17_over_default),
                Stats::render(s.rss_tuned_over_default),
                Stats::render(s.tuned_over_rayon),
            ]));
            out.push('\n');
        }
        out
    }
}

/// The conventions of the JSON's figures, recorded in it.
pub const CONVENTIONS: &str = "median_s, min_s: median and fastest of the timed runs; seq_s: \
     the program's sequential median; speedups are T_reference / T_subject (> 1: subject \
     faster); rss ratios are subject / reference; counters: sums over the timed runs \
     (live_stacks, peak_live_stacks: values after them)";

/// The `cf17` table's JSON: the shared head (table `cf17`, machine, size,
/// threads, samples) and the suite's own results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cf17Json {
    /// The head every table's JSON shares.
    #[serde(flatten)]
    pub head: TableHead,
    /// The input size: `paper`, `quick` or `test`.
    pub input_size: String,
    /// Timed runs per configuration.
    pub reps: usize,
    /// [`CONVENTIONS`].
    pub conventions: String,
    /// The programs, in the order run.
    pub programs: Vec<ProgramJson>,
    /// One entry per configuration, in the order run.
    pub results: Vec<ResultJson>,
    /// The summary per thread count.
    pub summary: Vec<Summary>,
}

/// A program in the JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramJson {
    /// The program's name.
    pub name: String,
    /// Its input, as its children reported it.
    pub input: Option<String>,
    /// Its sequential median, in seconds.
    pub seq_s: Option<f64>,
    /// The parameters of the Prescient runners as text, by runner name
    /// (`default`, `tuned`, `cf17`).
    pub params: BTreeMap<String, Option<String>>,
}

/// One configuration in the JSON: what its child measured and the figures
/// derived from it (absent where they do not apply), or its error.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultJson {
    /// The program.
    pub program: String,
    /// Its input.
    pub input: Option<String>,
    /// The runner's name (`seq`, `default`, `tuned`, `cf17`, `rayon`,
    /// `chili`).
    pub runner: String,
    /// The thread count.
    pub threads: usize,
    /// The Prescient parameters as text.
    pub params: Option<String>,
    /// The program's sequential median, in seconds.
    pub seq_s: Option<f64>,
    /// Whether the child succeeded.
    pub ok: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The median of the timed runs, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_s: Option<f64>,
    /// The fastest timed run, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_s: Option<f64>,
    /// The timed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps: Option<u64>,
    /// The child's peak RSS, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// Time over the sequential time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_over_tseq: Option<f64>,
    /// The runner's own one-thread time over this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    /// Prescient-default's time at the same thread count over this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup_over_default: Option<f64>,
    /// For Prescient, every counter summed over the timed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<BTreeMap<String, u64>>,
}

/// A finite number, `None` otherwise (JSON has no NaN).
fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

impl Cf17Json {
    /// The whole run's JSON.
    pub fn new(machine: &Machine, settings: &Settings, table: &Table) -> Cf17Json {
        let seq_s = |p: &str| finite(table.seq_time(p).map(|ns| ns / 1e9));
        let programs = table
            .programs
            .iter()
            .map(|&p| ProgramJson {
                name: p.to_string(),
                input: table.input(p).map(str::to_string),
                seq_s: seq_s(p),
                params: [Runner::Default, Runner::Tuned, Runner::Cf17]
                    .into_iter()
                    .map(|r| {
                        let text = r.params(p).ok().flatten().map(|p| params_text(&p));
                        (r.name().to_string(), text)
                    })
                    .collect(),
            })
            .collect();
        let results = table
            .rows
            .iter()
            .map(|row| {
                let o = &row.outcome;
                let base = ResultJson {
                    program: o.program.to_string(),
                    input: table.input(o.program).map(str::to_string),
                    runner: o.runner.name().to_string(),
                    threads: o.threads,
                    params: row.params.clone(),
                    seq_s: seq_s(o.program),
                    ..ResultJson::default()
                };
                match &o.result {
                    Ok(r) => ResultJson {
                        ok: true,
                        median_s: finite(Some(r.median_ns / 1e9)),
                        min_s: finite(Some(r.min_ns / 1e9)),
                        reps: Some(r.reps),
                        peak_rss_kib: Some(r.rss_kib),
                        t_over_tseq: finite(row.t_over_tseq),
                        speedup: finite(row.speedup),
                        speedup_over_default: finite(row.def_over_t),
                        counters: r.counters.as_ref().map(|c| counters_map(c, None)),
                        ..base
                    },
                    Err(e) => ResultJson {
                        error: Some(e.clone()),
                        ..base
                    },
                }
            })
            .collect();
        Cf17Json {
            head: TableHead {
                table: SUBCOMMAND.to_string(),
                machine: machine.clone(),
                size: settings.head_size(),
                threads: settings.threads.clone(),
                // The CF'17 table measures on a quiet machine only.
                competing: 0,
                samples: table.samples(),
            },
            input_size: settings.size.name().to_string(),
            reps: settings.reps,
            conventions: CONVENTIONS.to_string(),
            programs,
            results,
            summary: table.summary(&settings.threads),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use prescient::tuning::Counters;

    fn outcome(program: &'static str, runner: Runner, threads: usize, ns: f64) -> Outcome {
        Outcome {
            program,
            runner,
            threads,
            result: Ok(ChildResult {
                input: format!("{program} input"),
                median_ns: ns,
                min_ns: ns * 0.9,
                reps: 2,
                rss_kib: if runner == Runner::Tuned { 1024 } else { 2048 },
                counters: runner.is_prescient().then(|| {
                    let mut c = Counters::default();
                    c.steals = 4;
                    c.peak_live_stacks = 3;
                    c
                }),
            }),
        }
    }

    /// Two programs (fib twice under different names is enough for the
    /// arithmetic), threads 1 and 2, one failure.
    pub(crate) fn sample() -> Vec<Outcome> {
        let mut v = Vec::new();
        for (p, k) in [("fib", 1.0), ("nqueens", 2.0)] {
            v.push(outcome(p, Runner::Seq, 1, 100.0 * k));
            for t in [1, 2] {
                let t_f = t as f64;
                v.push(outcome(p, Runner::Default, t, 200.0 * k / t_f));
                v.push(outcome(p, Runner::Tuned, t, 100.0 * k / t_f));
                v.push(outcome(p, Runner::Cf17, t, 400.0 * k / t_f));
                v.push(outcome(p, Runner::Rayon, t, 150.0 * k / t_f));
            }
        }
        v.push(Outcome {
            program: "nqueens",
            runner: Runner::Chili,
            threads: 2,
            result: Err("wrong \"result\"".into()),
        });
        v
    }

    #[test]
    fn derived_figures() {
        let t = Table::new(&sample());
        assert_eq!(t.programs, vec!["fib", "nqueens"]);
        let tuned2 = t
            .rows
            .iter()
            .find(|r| {
                r.outcome.program == "fib"
                    && r.outcome.runner == Runner::Tuned
                    && r.outcome.threads == 2
            })
            .unwrap();
        assert_eq!(tuned2.t_over_tseq, Some(0.5));
        assert_eq!(tuned2.speedup, Some(2.0));
        assert_eq!(tuned2.def_over_t, Some(2.0));
        assert!(tuned2.params.as_deref().unwrap().contains("stack="));
        assert_eq!(t.rows[0].speedup, None);
        assert_eq!(t.rows[0].params, None);

        let s = t.summary(&[1, 2]);
        assert_eq!(s.len(), 2);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let st = s[1].tuned_over_default.unwrap();
        assert_eq!(st.n, 2);
        assert!(close(st.geomean, 2.0) && close(st.min, 2.0));
        assert!(close(s[1].cf17_over_default.unwrap().geomean, 0.5));
        assert!(close(s[0].rss_tuned_over_default.unwrap().geomean, 0.5));
        assert!(close(s[0].tuned_over_rayon.unwrap().max, 1.5));
        assert_eq!(Stats::of([f64::NAN, 0.0]), None);
        let g = Stats::of([1.0, 4.0]).unwrap();
        assert!(close(g.geomean, 2.0));

        let text = t.render(&[1, 2]);
        assert!(text.contains("fib (fib input), seq 100.0 ns"), "{text}");
        assert!(text.contains("FAILED: wrong \"result\""));
        assert!(text.contains("steals/run"));
        let summary = t.render_summary(&[1, 2]);
        assert!(summary.contains("2.00 [2.00..2.00] (2)"), "{summary}");
    }

    #[test]
    fn json_round_trips_through_serde() {
        let machine = Machine {
            threads: 2,
            arch: "x86_64".into(),
            os: "Linux".into(),
            cpu: "Some \"CPU\"".into(),
        };
        let settings = Settings::new(crate::cf17::Size::Test, vec![1, 2]);
        let table = Table::new(&sample());
        let json = Cf17Json::new(&machine, &settings, &table);
        let text = serde_json::to_string_pretty(&json).unwrap();
        // What was written reads back as the same JSON (numbers compared
        // as serde_json parses them).
        let back: Cf17Json = serde_json::from_str(&text).unwrap();
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), value(&text));
        assert_eq!(back.programs.len(), json.programs.len());
        assert_eq!(back.results.len(), json.results.len());

        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["table"], "cf17");
        assert_eq!(v["size"], "test");
        assert_eq!(v["input_size"], "test");
        assert_eq!(v["reps"], 1);
        let tuned2 = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["runner"] == "tuned" && r["threads"] == 2)
            .unwrap();
        assert_eq!(tuned2["counters"]["steals"], 4);
        assert_eq!(tuned2["median_s"], 5e-8);
        assert!(tuned2["params"].as_str().unwrap().contains("stack="));
        let failed = v["results"].as_array().unwrap().last().unwrap();
        assert_eq!(failed["ok"], false);
        assert_eq!(failed["error"], "wrong \"result\"");
        assert_eq!(v["summary"][1]["tuned_over_default"]["n"], 2);
        assert_eq!(v["summary"][1]["tuned_over_default"]["geomean"], 2.0);
        assert!(v["programs"][0]["params"]["cf17"].is_string());

        // The samples: every successful row, tuned as `prescient` and
        // default as `prescient-default`, the program with its input.
        let head: TableHead = serde_json::from_str(&text).unwrap();
        assert_eq!(head.samples.len(), 18);
        assert_eq!(head.samples.len(), table.samples().len());
        let runners: Vec<&str> = head.samples[..5]
            .iter()
            .map(|s| s.runner.as_str())
            .collect();
        assert_eq!(
            runners,
            [
                "sequential",
                "prescient-default",
                "prescient",
                "prescient-cf17",
                "rayon"
            ]
        );
        assert_eq!(head.samples[0].program, "fib (fib input)");
        assert!((head.samples[2].seconds - 100e-9).abs() < 1e-18);
    }

    #[test]
    fn markdown_tables() {
        let t = Table::new(&sample());
        for text in [t.render(&[1, 2]), t.render_summary(&[1, 2])] {
            assert!(text.starts_with("### cf17: "), "{text}");
            let mut lines = text.lines().filter(|l| l.starts_with('|')).peekable();
            let bars = lines.peek().unwrap().matches('|').count();
            for line in lines {
                assert_eq!(line.matches('|').count(), bars, "{line}");
            }
        }
    }
}
