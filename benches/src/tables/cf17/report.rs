//! The `cf17` table's text — per program a Markdown table, then the
//! summary — and its JSON ([`Cf17Json`]). The conventions are those of the
//! module documentation of [`crate::tables::cf17`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::runner::{params, params_text, Settings, PRESCIENT_RUNNERS, SUBCOMMAND};
use crate::harness::record::Record;
use crate::harness::write::{count, finite, format_ns, join_list, opt, ratio, Md, Stats};
use crate::harness::{Machine, Outcome, Outcomes};
use crate::samples::{ConfigJson, TableHead};

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

/// One row of the table: a configuration and the figures derived from it
/// and the rows it is compared with.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration and what its child measured.
    pub outcome: Outcome<&'static str>,
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

/// The summary at one thread count (see the module documentation of
/// [`crate::tables::cf17`] for the conventions).
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
    /// The outcomes, in the order run.
    pub outcomes: Vec<Outcome<&'static str>>,
    /// The rows, in the order run.
    pub rows: Vec<Row>,
    /// The programs, in the order run.
    pub programs: Vec<&'static str>,
}

impl Table {
    /// Derives every row's figures from the outcomes.
    pub fn new(outcomes: &[Outcome<&'static str>]) -> Table {
        let mut programs = Vec::new();
        let rows = outcomes
            .iter()
            .map(|o| {
                let c = &o.config;
                if !programs.contains(&c.program) {
                    programs.push(c.program);
                }
                let time = |runner: &str, threads| outcomes.median(c.program, runner, threads);
                let t = o.result.as_ref().ok().map(Record::median_ns);
                let parallel = |v: Option<f64>| v.filter(|_| c.runner.is_parallel());
                Row {
                    outcome: o.clone(),
                    params: params(&c.runner.name, c.program)
                        .ok()
                        .flatten()
                        .map(|p| params_text(&p)),
                    t_over_tseq: ratio(t, time("seq", 1)),
                    speedup: parallel(ratio(time(&c.runner.name, 1), t)),
                    def_over_t: parallel(ratio(time("default", c.threads), t)),
                }
            })
            .collect();
        Table {
            outcomes: outcomes.to_vec(),
            rows,
            programs,
        }
    }

    /// The median time of a configuration, in nanoseconds.
    pub fn time(&self, program: &str, runner: &str, threads: usize) -> Option<f64> {
        let program = self.programs.iter().find(|&&p| p == program)?;
        self.outcomes.median(program, runner, threads)
    }

    /// The program's sequential time, in nanoseconds.
    pub fn seq_time(&self, program: &str) -> Option<f64> {
        self.time(program, "seq", 1)
    }

    /// The program's input, as its children reported it.
    pub fn input(&self, program: &str) -> Option<&str> {
        self.outcomes
            .iter()
            .filter(|o| o.config.program == program)
            .find_map(|o| o.result.as_ref().ok()?.input.as_deref())
    }

    /// Per program with both figures, `figure(reference) / figure(subject)`
    /// at `threads` (with `rss`, the other way round: the subject's peak
    /// RSS over the reference's).
    pub fn ratios(
        &self,
        threads: usize,
        subject: &str,
        reference: &str,
        rss: bool,
    ) -> Vec<(&'static str, f64)> {
        let figure = |p: &'static str, r: &str| {
            let record = self.outcomes.record(p, r, threads)?;
            if rss {
                record.peak_rss_kib.map(|k| k as f64)
            } else {
                Some(record.median_ns())
            }
        };
        self.programs
            .iter()
            .filter_map(|&p| {
                let (s, r) = (figure(p, subject), figure(p, reference));
                (if rss { ratio(s, r) } else { ratio(r, s) }).map(|v| (p, v))
            })
            .collect()
    }

    /// Per program with both times, the speedup of `subject` over
    /// `reference` at `threads`: `T_reference / T_subject`.
    pub fn speedups(
        &self,
        threads: usize,
        subject: &str,
        reference: &str,
    ) -> Vec<(&'static str, f64)> {
        self.ratios(threads, subject, reference, false)
    }

    /// The summary at each of `threads`.
    pub fn summary(&self, threads: &[usize]) -> Vec<Summary> {
        let stats = |v: Vec<(&str, f64)>| Stats::of(v.into_iter().map(|(_, r)| r));
        threads
            .iter()
            .map(|&t| Summary {
                threads: t,
                tuned_over_default: stats(self.speedups(t, "tuned", "default")),
                cf17_over_default: stats(self.speedups(t, "cf17", "default")),
                rss_tuned_over_default: stats(self.ratios(t, "tuned", "default", true)),
                tuned_over_rayon: stats(self.speedups(t, "tuned", "rayon")),
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
        columns.extend(PER_RUN_COUNTERS.iter().map(|(_, h)| format!("{h}/run")));
        columns.push(PEAK_COUNTER.1.to_string());
        for &program in &self.programs {
            let _ = writeln!(
                out,
                "### {SUBCOMMAND}: {program} ({}), seq {}\n",
                self.input(program).unwrap_or("?"),
                format_ns(self.seq_time(program).unwrap_or(f64::NAN))
            );
            let sets: Vec<String> = PRESCIENT_RUNNERS
                .iter()
                .filter_map(|r| Some(format!("{r} `{}`", params_text(&params(r, program).ok()??))))
                .collect();
            let _ = writeln!(out, "params: {}\n", sets.join("; "));
            let mut md = Md::new(&columns, 2);
            for row in self
                .rows
                .iter()
                .filter(|r| r.outcome.config.program == program)
            {
                let c = &row.outcome.config;
                let thr = if c.runner.is_parallel() {
                    c.threads.to_string()
                } else {
                    "-".to_string()
                };
                let first = vec![thr, c.runner.name.clone()];
                let r = match &row.outcome.result {
                    Ok(r) => r,
                    Err(e) => {
                        md.failed(first, e);
                        continue;
                    }
                };
                let peak = r
                    .counters
                    .as_ref()
                    .and_then(|c| c.get(PEAK_COUNTER.0))
                    .map(|&v| v as f64);
                let mut cells = first;
                cells.extend([
                    format_ns(r.median_ns()),
                    format_ns(r.min_ns()),
                    opt(row.t_over_tseq, 2),
                    opt(row.speedup, 2),
                    opt(row.def_over_t, 2),
                    opt(r.peak_rss_kib.map(|k| k as f64 / 1024.0), 1),
                ]);
                cells.extend(
                    PER_RUN_COUNTERS
                        .iter()
                        .map(|(name, _)| count(r.per_run(name))),
                );
                cells.push(count(peak));
                md.row(&cells);
            }
            out.push_str(&md.text);
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
            join_list(threads)
        );
        out
    }

    /// The summary per thread count: geometric mean [min..max] (programs).
    pub fn render_summary(&self, threads: &[usize]) -> String {
        let mut md = Md::new(
            &[
                "thr",
                "tuned/default",
                "cf17/default",
                "RSS tuned/default",
                "tuned/rayon",
            ],
            0,
        );
        for s in self.summary(threads) {
            md.row(&[
                s.threads.to_string(),
                Stats::render(s.tuned_over_default),
                Stats::render(s.cf17_over_default),
                Stats::render(s.rss_tuned_over_default),
                Stats::render(s.tuned_over_rayon),
            ]);
        }
        format!(
            "### {SUBCOMMAND}: summary\n\nPer thread count, over the programs: geometric mean \
             [min..max] (programs).\nspeedup of X over Y = T_Y / T_X (> 1: X is faster); RSS \
             tuned/default = peak RSS of tuned / default's (< 1: tuned uses less).\n\n{}",
            md.text
        )
    }
}

/// Writes the table's plots into `dir`: `speedup.svg` (per program, the
/// speedup over sequential against the thread count, the report's plot of
/// the samples; where a program has both), `tuned_vs_default.svg` (per
/// thread count, box plots over the programs of `T_default / T` of tuned
/// and of cf17: CF'17's Fig. 7) and `memory.svg` (per program, the peak
/// RSS of tuned over default's at each thread count, log scale: CF'17's
/// Fig. 10). Returns their paths.
///
/// # Errors
/// A plot that cannot be drawn or written.
pub fn write_plots(table: &Table, threads: &[usize], dir: &Path) -> Result<Vec<PathBuf>, String> {
    use crate::report::plots;
    use plotters::style::RGBColor;
    let mut files = Vec::new();
    let samples = table.outcomes.samples(|p| table.label(p));
    if let Some(svg) = plots::speedup(SUBCOMMAND, &samples)? {
        files.push(("speedup.svg", svg));
    }
    let labels: Vec<String> = threads.iter().map(ToString::to_string).collect();
    let subjects = [
        ("tuned", RGBColor(214, 39, 40)),
        ("cf17", RGBColor(255, 127, 14)),
    ];
    let data: Vec<Vec<Vec<f64>>> = threads
        .iter()
        .map(|&t| {
            let of = |s| {
                table
                    .speedups(t, s, "default")
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect()
            };
            subjects.iter().map(|&(s, _)| of(s)).collect()
        })
        .collect();
    let series = [
        ("tuned (analysed PARAMS)".to_string(), subjects[0].1),
        ("cf17 (CF'17 decision trees)".to_string(), subjects[1].1),
    ];
    let title = "Speedup of tuned and cf17 over default: T_default / T";
    let y = "T_default / T   (> 1: faster than default)";
    files.push((
        "tuned_vs_default.svg",
        plots::boxes((title, "threads", y), &labels, &series, &data)?,
    ));
    let programs: Vec<String> = table.programs.iter().map(ToString::to_string).collect();
    let points: Vec<(String, Vec<(usize, f64)>)> = threads
        .iter()
        .map(|&t| {
            let ratios = table.ratios(t, "tuned", "default", true);
            let at = |p| table.programs.iter().position(|&q| q == p);
            let points = ratios
                .into_iter()
                .filter_map(|(p, v)| Some((at(p)?, v)))
                .collect();
            (format!("{t} thread(s)"), points)
        })
        .collect();
    let title = "Peak memory of tuned over default (RSS ratio)";
    let y = "peak RSS tuned / default, log scale   (< 1: tuned uses less)";
    files.push((
        "memory.svg",
        plots::log_points((title, "program", y), &programs, &points)?,
    ));
    files
        .into_iter()
        .map(|(name, svg)| plots::write(dir, name, &svg).map(|()| dir.join(name)))
        .collect()
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
    /// Who ran what, whether it worked, its peak RSS, `T/Tseq`, speedup
    /// and counters.
    #[serde(flatten)]
    pub config: ConfigJson,
    /// Its input.
    pub input: Option<String>,
    /// The Prescient parameters as text.
    pub params: Option<String>,
    /// The program's sequential median, in seconds.
    pub seq_s: Option<f64>,
    /// The median of the timed runs, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_s: Option<f64>,
    /// The fastest timed run, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_s: Option<f64>,
    /// The timed runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps: Option<u64>,
    /// Prescient-default's time at the same thread count over this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup_over_default: Option<f64>,
}

impl Cf17Json {
    /// The whole run's JSON.
    pub fn new(machine: &Machine, settings: &Settings, table: &Table) -> Cf17Json {
        let seq_s = |p: &str| finite(table.seq_time(p).map(|ns| ns / 1e9));
        let input = |p: &str| table.input(p).map(str::to_string);
        let programs = table
            .programs
            .iter()
            .map(|&p| ProgramJson {
                name: p.to_string(),
                input: input(p),
                seq_s: seq_s(p),
                params: PRESCIENT_RUNNERS
                    .iter()
                    .map(|r| {
                        (
                            r.to_string(),
                            params(r, p).ok().flatten().map(|p| params_text(&p)),
                        )
                    })
                    .collect(),
            })
            .collect();
        let results = table
            .rows
            .iter()
            .map(|row| {
                let p = row.outcome.config.program;
                let r = row.outcome.result.as_ref().ok();
                ResultJson {
                    config: ConfigJson::of(&row.outcome, row.t_over_tseq, row.speedup),
                    input: input(p),
                    params: row.params.clone(),
                    seq_s: seq_s(p),
                    median_s: finite(r.map(|r| r.median_ns() / 1e9)),
                    min_s: finite(r.map(|r| r.min_ns() / 1e9)),
                    reps: r.map(Record::runs),
                    speedup_over_default: finite(row.def_over_t).filter(|_| r.is_some()),
                }
            })
            .collect();
        let plan = &settings.plan;
        Cf17Json {
            head: TableHead {
                table: SUBCOMMAND.to_string(),
                machine: machine.clone(),
                size: plan.size,
                threads: plan.threads.clone(),
                // The CF'17 table measures on a quiet machine only.
                competing: 0,
                samples: table.outcomes.samples(|p| table.label(p)),
                peers: Vec::new(),
            },
            input_size: settings.size.name().to_string(),
            reps: settings.reps,
            conventions: CONVENTIONS.to_string(),
            programs,
            results,
            summary: table.summary(&plan.threads),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::harness::table::Config;
    use crate::harness::{Kind, Runner};

    fn outcome(
        program: &'static str,
        runner: &str,
        threads: usize,
        ns: f64,
    ) -> Outcome<&'static str> {
        let sample = super::super::runner::RUNNERS
            .iter()
            .find(|r| r.0 == runner)
            .unwrap()
            .1;
        let kind = if runner == "seq" {
            Kind::Sequential
        } else {
            Kind::Own
        };
        let mut counters = prescient::tuning::Counters::default();
        (counters.steals, counters.peak_live_stacks) = (4, 3);
        Outcome {
            config: Config {
                program,
                runner: Runner::new(runner, sample, kind),
                threads,
            },
            result: Ok(Record {
                input: Some(format!("{program} input")),
                peak_rss_kib: Some(if runner == "tuned" { 1024 } else { 2048 }),
                ..Record::of_times(vec![ns * 0.9, ns * 1.1, ns])
            }
            .with_counters(PRESCIENT_RUNNERS.contains(&runner).then_some(counters))),
        }
    }

    /// Two programs (fib twice under different names is enough for the
    /// arithmetic), threads 1 and 2, one failure.
    pub(crate) fn sample() -> Vec<Outcome<&'static str>> {
        let mut v = Vec::new();
        for (p, k) in [("fib", 1.0), ("nqueens", 2.0)] {
            v.push(outcome(p, "seq", 1, 100.0 * k));
            for t in [1, 2] {
                let t_f = t as f64;
                v.push(outcome(p, "default", t, 200.0 * k / t_f));
                v.push(outcome(p, "tuned", t, 100.0 * k / t_f));
                v.push(outcome(p, "cf17", t, 400.0 * k / t_f));
                v.push(outcome(p, "rayon", t, 150.0 * k / t_f));
            }
        }
        let mut failed = outcome("nqueens", "chili", 2, 1.0);
        failed.result = Err("wrong \"result\"".into());
        v.push(failed);
        v
    }

    #[test]
    fn derived_figures_and_text() {
        let t = Table::new(&sample());
        assert_eq!(t.programs, vec!["fib", "nqueens"]);
        let tuned2 = &t.rows[6];
        assert_eq!(
            (
                tuned2.outcome.config.runner.name.as_str(),
                tuned2.outcome.config.threads
            ),
            ("tuned", 2)
        );
        assert_eq!(
            (tuned2.t_over_tseq, tuned2.speedup, tuned2.def_over_t),
            (Some(0.5), Some(2.0), Some(2.0))
        );
        assert!(tuned2.params.as_deref().unwrap().contains("stack="));
        assert_eq!(
            (t.rows[0].speedup, t.rows[0].params.as_deref()),
            (None, None)
        );
        let s = t.summary(&[1, 2]);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let st = s[1].tuned_over_default.unwrap();
        assert!(st.n == 2 && close(st.geomean, 2.0) && close(st.min, 2.0));
        assert!(close(s[1].cf17_over_default.unwrap().geomean, 0.5));
        assert!(close(s[0].rss_tuned_over_default.unwrap().geomean, 0.5));
        assert!(close(s[0].tuned_over_rayon.unwrap().max, 1.5));
        let text = t.render(&[1, 2]);
        assert!(
            text.starts_with("### cf17: fib (fib input), seq 100.0 ns"),
            "{text}"
        );
        assert!(text.contains("FAILED: wrong \"result\"") && text.contains("steals/run"));
        assert!(t.render_summary(&[1, 2]).contains("2.00 [2.00..2.00] (2)"));
        let dir = std::env::temp_dir().join(format!("cf17-plots-{}", std::process::id()));
        for (outcomes, files) in [(sample(), 3), (sample()[..2].to_vec(), 3), (Vec::new(), 2)] {
            let written = write_plots(&Table::new(&outcomes), &[1, 2], &dir).unwrap();
            assert_eq!(written.len(), files);
            for path in written {
                assert!(std::fs::read_to_string(path).unwrap().starts_with("<svg"));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_round_trips_through_serde() {
        let settings = Settings::new(crate::cf17::Size::Test, vec![1, 2]);
        let table = Table::new(&sample());
        let json = Cf17Json::new(&Machine::detect(), &settings, &table);
        let text = serde_json::to_string_pretty(&json).unwrap();
        let back: Cf17Json = serde_json::from_str(&text).unwrap();
        let v = serde_json::from_str::<serde_json::Value>(&text).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
        assert_eq!(
            (
                v["table"].as_str(),
                v["size"].as_str(),
                v["input_size"].as_str()
            ),
            (Some("cf17"), Some("test"), Some("test"))
        );
        let results = v["results"].as_array().unwrap();
        let tuned2 = results
            .iter()
            .find(|r| r["runner"] == "tuned" && r["threads"] == 2)
            .unwrap();
        assert_eq!(
            (
                tuned2["counters"]["steals"].as_u64(),
                tuned2["median_s"].as_f64()
            ),
            (Some(4), Some(5e-8))
        );
        assert!(tuned2["params"].as_str().unwrap().contains("stack="));
        let failed = results.last().unwrap();
        assert_eq!(
            (failed["ok"].as_bool(), failed["error"].as_str()),
            (Some(false), Some("wrong \"result\""))
        );
        assert_eq!(v["summary"][1]["tuned_over_default"]["geomean"], 2.0);
        assert!(v["programs"][0]["params"]["cf17"].is_string());
        // The samples: every successful row, tuned as `prescient`, the
        // program with its input.
        let samples = &json.head.samples;
        assert_eq!(samples.len(), 18);
        let runners: Vec<&str> = samples[..5].iter().map(|s| s.runner.as_str()).collect();
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
        assert_eq!(samples[0].program, "fib (fib input)");
    }
}
