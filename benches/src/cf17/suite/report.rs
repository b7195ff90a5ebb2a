//! The `cf17` binary's table, summary and JSON (written by hand, with the
//! suite's [`json_string`] and [`json_number`]). The conventions are those of
//! the module documentation of [`crate::cf17::suite`].

use std::fmt::Write as _;

use super::child::{ChildResult, Outcome};
use super::cli::Options;
use super::runner::{params_text, Runner};
use crate::suite::machine::Machine;
use crate::suite::report::{counters_json, format_ns, json_number, json_string};

/// The counters shown per timed run: (name in [`prescient::Counters`],
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
#[derive(Clone, Copy, Debug, PartialEq)]
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

    fn json(stats: Option<Stats>) -> String {
        match stats {
            Some(s) => format!(
                "{{\"n\": {}, \"geomean\": {}, \"min\": {}, \"max\": {}}}",
                s.n,
                json_number(Some(s.geomean)),
                json_number(Some(s.min)),
                json_number(Some(s.max))
            ),
            None => "null".to_string(),
        }
    }
}

/// The summary at one thread count (see the module documentation of
/// [`crate::cf17::suite`] for the conventions).
#[derive(Clone, Copy, Debug, PartialEq)]
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

    /// The table: per program a block headed by its input, sequential time
    /// and parameter sets, then per thread count one line per runner.
    pub fn render(&self, threads: &[usize]) -> String {
        let mut out = String::new();
        let mut header = format!(
            "  {:>3} {:<8} {:>10} {:>10} {:>7} {:>7} {:>7} {:>8}",
            "thr", "runner", "time", "min", "T/Tseq", "speedup", "Tdef/T", "RSS MiB"
        );
        for (_, heading) in PER_RUN_COUNTERS {
            let _ = write!(header, " {:>10}", format!("{heading}/run"));
        }
        let _ = write!(header, " {:>7}", PEAK_COUNTER.1);

        for &program in &self.programs {
            let _ = writeln!(
                out,
                "{program} ({}), seq {}",
                self.input(program).unwrap_or("?"),
                format_ns(self.seq_time(program).unwrap_or(f64::NAN))
            );
            let sets: Vec<String> = [Runner::Default, Runner::Tuned, Runner::Cf17]
                .into_iter()
                .filter_map(|r| {
                    let p = r.params(program).ok().flatten()?;
                    Some(format!("{r} {}", params_text(&p)))
                })
                .collect();
            let _ = writeln!(out, "  params: {}", sets.join("; "));
            let _ = writeln!(out, "{header}");
            let rows = self.rows.iter().filter(|r| r.outcome.program == program);
            let mut last_threads = None;
            for row in rows {
                let o = &row.outcome;
                let thr = if o.runner.is_parallel() {
                    if last_threads.is_some() && last_threads != Some(o.threads) {
                        out.push('\n');
                    }
                    last_threads = Some(o.threads);
                    o.threads.to_string()
                } else {
                    "-".to_string()
                };
                let _ = write!(out, "  {thr:>3} {:<8} ", o.runner.name());
                match &o.result {
                    Ok(r) => {
                        let _ = write!(
                            out,
                            "{:>10} {:>10} {:>7} {:>7} {:>7} {:>8.1}",
                            format_ns(r.median_ns),
                            format_ns(r.min_ns),
                            opt(row.t_over_tseq, 2),
                            opt(row.speedup, 2),
                            opt(row.def_over_t, 2),
                            r.rss_kib as f64 / 1024.0
                        );
                        for (name, _) in PER_RUN_COUNTERS {
                            let _ = write!(out, " {:>10}", count(r.per_run(name)));
                        }
                        let peak = r
                            .counters
                            .as_ref()
                            .and_then(|c| c.get(PEAK_COUNTER.0))
                            .map(|v| v as f64);
                        let _ = writeln!(out, " {:>7}", count(peak));
                    }
                    Err(e) => {
                        let _ = writeln!(out, "FAILED: {e}");
                    }
                }
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
        let mut out = String::from(
            "summary per thread count, over the programs: geometric mean [min..max] (programs)\n\
             speedup of X over Y = T_Y / T_X (> 1: X is faster); RSS tuned/default = peak RSS \
             of tuned / default's (< 1: tuned uses less)\n",
        );
        let _ = writeln!(
            out,
            "{:>3}  {:<28} {:<28} {:<28} tuned/rayon",
            "thr", "tuned/default", "cf17/default", "RSS tuned/default"
        );
        for s in self.summary(threads) {
            let _ = writeln!(
                out,
                "{:>3}  {:<28} {:<28} {:<28} {}",
                s.threads,
                Stats::render(s.tuned_over_default),
                Stats::render(s.cf17_over_default),
                Stats::render(s.rss_tuned_over_default),
                Stats::render(s.tuned_over_rayon),
            );
        }
        out
    }
}

/// The whole run as JSON.
pub fn json(machine: &Machine, options: &Options, table: &Table) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"machine\": {},", machine.json());
    let _ = writeln!(out, "  \"size\": {},", json_string(options.size.name()));
    let _ = writeln!(out, "  \"reps\": {},", options.reps);
    let _ = writeln!(
        out,
        "  \"threads\": [{}],",
        crate::suite::cli::join_list(&options.threads)
    );
    let _ = writeln!(
        out,
        "  \"conventions\": {},",
        json_string(
            "median_s, min_s: median and fastest of the timed runs; seq_s: the program's \
             sequential median; speedups are T_reference / T_subject (> 1: subject faster); \
             rss ratios are subject / reference; counters: sums over the timed runs \
             (live_stacks, peak_live_stacks: values after them)"
        )
    );
    out.push_str("  \"programs\": [");
    for (i, &p) in table.programs.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n    {{\"name\": {}, \"input\": {}, \"seq_s\": {}, \"params\": {{",
            if i == 0 { "" } else { "," },
            json_string(p),
            table.input(p).map_or("null".to_string(), json_string),
            json_number(table.seq_time(p).map(|ns| ns / 1e9)),
        );
        let sets: Vec<String> = [Runner::Default, Runner::Tuned, Runner::Cf17]
            .into_iter()
            .map(|r| {
                let text = r.params(p).ok().flatten().map(|p| params_text(&p));
                format!(
                    "{}: {}",
                    json_string(r.name()),
                    text.map_or("null".to_string(), |t| json_string(&t))
                )
            })
            .collect();
        let _ = write!(out, "{}}}}}", sets.join(", "));
    }
    out.push_str("\n  ],\n  \"results\": [\n");
    for (i, row) in table.rows.iter().enumerate() {
        let o = &row.outcome;
        let _ = write!(
            out,
            "    {{\"program\": {}, \"input\": {}, \"runner\": {}, \"threads\": {}, \"params\": {}, \
             \"seq_s\": {}, ",
            json_string(o.program),
            table.input(o.program).map_or("null".to_string(), json_string),
            json_string(o.runner.name()),
            o.threads,
            row.params.as_deref().map_or("null".to_string(), json_string),
            json_number(table.seq_time(o.program).map(|ns| ns / 1e9)),
        );
        match &o.result {
            Ok(r) => {
                let _ = write!(
                    out,
                    "\"ok\": true, \"median_s\": {}, \"min_s\": {}, \"reps\": {}, \
                     \"peak_rss_kib\": {}, \"t_over_tseq\": {}, \"speedup\": {}, \
                     \"speedup_over_default\": {}, \"counters\": ",
                    json_number(Some(r.median_ns / 1e9)),
                    json_number(Some(r.min_ns / 1e9)),
                    r.reps,
                    r.rss_kib,
                    json_number(row.t_over_tseq),
                    json_number(row.speedup),
                    json_number(row.def_over_t),
                );
                out.push_str(&counters_json(r.counters.as_ref(), None));
            }
            Err(e) => {
                let _ = write!(out, "\"ok\": false, \"error\": {}", json_string(e));
            }
        }
        out.push('}');
        out.push_str(if i + 1 < table.rows.len() {
            ",\n"
        } else {
            "\n"
        });
    }
    out.push_str("  ],\n  \"summary\": [\n");
    let summary = table.summary(&options.threads);
    for (i, s) in summary.iter().enumerate() {
        let _ = write!(
            out,
            "    {{\"threads\": {}, \"tuned_over_default\": {}, \"cf17_over_default\": {}, \
             \"rss_tuned_over_default\": {}, \"tuned_over_rayon\": {}}}",
            s.threads,
            Stats::json(s.tuned_over_default),
            Stats::json(s.cf17_over_default),
            Stats::json(s.rss_tuned_over_default),
            Stats::json(s.tuned_over_rayon),
        );
        out.push_str(if i + 1 < summary.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use prescient::Counters;

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
    fn json_is_well_formed_enough() {
        let machine = Machine {
            threads: 2,
            arch: "x86_64".into(),
            os: "Linux".into(),
            cpu: "Some \"CPU\"".into(),
        };
        let options = Options::new(crate::cf17::Size::Test, vec![1, 2]);
        let text = json(&machine, &options, &Table::new(&sample()));
        let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
        for c in text.chars() {
            match (in_str, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (true, false, '"') => in_str = false,
                (false, _, '"') => in_str = true,
                (false, _, '{' | '[') => depth += 1,
                (false, _, '}' | ']') => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0);
        }
        assert_eq!(depth, 0, "{text}");
        assert!(!text.contains(",\n  ]") && !text.contains(", }"));
        assert!(text.contains("\"size\": \"test\""));
        assert!(text.contains("\"steals\": 4"));
        assert!(text.contains("\"median_s\": 0.0000001,"), "{text}");
        assert!(text.contains("\"error\": \"wrong \\\"result\\\"\""));
        assert!(text.contains("\"tuned_over_default\": {\"n\": 2, \"geomean\": 2,"));
    }
}
