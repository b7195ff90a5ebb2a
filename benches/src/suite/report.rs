//! The suite's table, summary, idle-CPU report and JSON (written by hand).

use std::fmt::Write as _;

pub use super::json::{counters_json, json_number, json_string};

use super::child::{ChildResult, IdleOutcome, Outcome};
use super::cli::{join_list, Options};
use super::config::{Program, Runner};
use super::machine::Machine;

/// A time in nanoseconds with a unit that keeps it short.
pub fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "-".to_string()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

fn opt(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_string(),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 && a.is_finite() => Some(a / b),
        _ => None,
    }
}

/// One row of the table: a configuration and the figures derived from it and
/// the rows it is compared with.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration and what its child measured.
    pub outcome: Outcome,
    /// Time over the sequential reference's time.
    pub t_over_tseq: Option<f64>,
    /// `(T1 - Tseq) / joins` in ns, on one-thread rows of parallel runners.
    pub overhead_ns_per_join: Option<f64>,
    /// The runner's own one-thread time over this time.
    pub speedup: Option<f64>,
    /// This time over rayon's at the same thread count.
    pub vs_rayon: Option<f64>,
    /// This time over chili's at the same thread count.
    pub vs_chili: Option<f64>,
}

impl Row {
    fn ok(&self) -> Option<&ChildResult> {
        self.outcome.result.as_ref().ok()
    }

    /// Suspensions per timed run (Prescient only).
    pub fn per_run(&self, field: fn(&prescient::Counters) -> u64) -> Option<f64> {
        let r = self.ok()?;
        let c = r.counters.as_ref()?;
        Some(field(c) as f64 / r.runs().max(1) as f64)
    }
}

/// The suite's results with everything derived.
#[derive(Clone, Debug)]
pub struct Table {
    /// The rows, in the order run.
    pub rows: Vec<Row>,
}

impl Table {
    /// Derives every row's figures from the outcomes.
    pub fn new(outcomes: &[Outcome]) -> Table {
        let time = |program: Program, runner: Runner, threads: usize| {
            outcomes
                .iter()
                .find(|o| o.program == program && o.runner == runner && o.threads == threads)
                .and_then(|o| o.result.as_ref().ok())
                .map(|r| r.median_ns)
        };
        let rows = outcomes
            .iter()
            .map(|o| {
                let t = o.result.as_ref().ok().map(|r| r.median_ns);
                let tseq = time(o.program, Runner::Seq, 1);
                let parallel = o.runner.is_parallel();
                let overhead = match (t, tseq) {
                    (Some(t1), Some(tseq)) if parallel && o.threads == 1 => {
                        Some((t1 - tseq) / o.program.joins() as f64)
                    }
                    _ => None,
                };
                Row {
                    outcome: o.clone(),
                    t_over_tseq: ratio(t, tseq),
                    overhead_ns_per_join: overhead,
                    speedup: if parallel {
                        ratio(time(o.program, o.runner, 1), t)
                    } else {
                        None
                    },
                    vs_rayon: if parallel {
                        ratio(t, time(o.program, Runner::Rayon, o.threads))
                    } else {
                        None
                    },
                    vs_chili: if parallel {
                        ratio(t, time(o.program, Runner::Chili, o.threads))
                    } else {
                        None
                    },
                }
            })
            .collect();
        Table { rows }
    }

    fn find(&self, program: Program, runner: Runner, threads: usize) -> Option<&Row> {
        self.rows.iter().find(|r| {
            r.outcome.program == program
                && r.outcome.runner == runner
                && r.outcome.threads == threads
        })
    }

    fn time(&self, program: Program, runner: Runner, threads: usize) -> Option<f64> {
        self.find(program, runner, threads)
            .and_then(Row::ok)
            .map(|r| r.median_ns)
    }

    /// The main table: one line per configuration.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<8} {:<18} {:>3} {:>11} {:>7} {:>8} {:>7} {:>6} {:>6} {:>8} {:>8} {:>10} {:>10}",
            "program",
            "runner",
            "thr",
            "time",
            "T/Tseq",
            "ns/join",
            "speedup",
            "/rayon",
            "/chili",
            "RSS MiB",
            "CPU/wall",
            "susp/run",
            "steals/run"
        );
        let mut last_program = None;
        for row in &self.rows {
            let o = &row.outcome;
            if last_program.is_some() && last_program != Some(o.program) {
                out.push('\n');
            }
            last_program = Some(o.program);
            let threads = if o.runner.is_parallel() {
                o.threads.to_string()
            } else {
                "-".to_string()
            };
            match &o.result {
                Ok(r) => {
                    let _ = writeln!(
                        out,
                        "{:<8} {:<18} {:>3} {:>11} {:>7} {:>8} {:>7} {:>6} {:>6} {:>8.1} {:>8} {:>10} {:>10}",
                        o.program.name(),
                        o.runner.name(),
                        threads,
                        format_ns(r.median_ns),
                        opt(row.t_over_tseq, 2),
                        opt(row.overhead_ns_per_join, 2),
                        opt(row.speedup, 2),
                        opt(row.vs_rayon, 2),
                        opt(row.vs_chili, 2),
                        r.rss_kib as f64 / 1024.0,
                        opt(Some(r.cpu_per_wall), 2),
                        opt(row.per_run(|c| c.suspensions), 1),
                        opt(row.per_run(|c| c.steals), 1),
                    );
                }
                Err(e) => {
                    let _ = writeln!(
                        out,
                        "{:<8} {:<18} {:>3} FAILED: {e}",
                        o.program.name(),
                        o.runner.name(),
                        threads
                    );
                }
            }
        }
        out.push_str(
            "\ntime: median per run, measured inside the pool; T/Tseq: over the sequential \
             reference;\nns/join: (T1 - Tseq) / joins; speedup: own 1-thread time / time; \
             /rayon, /chili: time over theirs\nat the same thread count (< 1 is faster); \
             RSS: the child's peak;\nCPU/wall: process CPU time over wall time while timing \
             (below 1 at one thread: the machine was busy\nwith others); susp, steals: \
             Prescient's counters per run.\n",
        );
        out
    }

    /// The summary per program and parallel runner: `T1/Tseq`, overhead per
    /// join and the speedup at 2 threads (and at the largest count, if
    /// larger), each with its ratio to rayon's and chili's, and the
    /// suspensions per run.
    pub fn render_summary(&self, threads: &[usize]) -> String {
        let mut ps: Vec<usize> = Vec::new();
        if threads.contains(&2) {
            ps.push(2);
        }
        if let Some(&max) = threads.iter().max() {
            if max > 2 {
                ps.push(max);
            }
        }
        let mut programs: Vec<Program> = Vec::new();
        let mut runners: Vec<Runner> = Vec::new();
        for row in &self.rows {
            if !programs.contains(&row.outcome.program) {
                programs.push(row.outcome.program);
            }
            if row.outcome.runner.is_parallel() && !runners.contains(&row.outcome.runner) {
                runners.push(row.outcome.runner);
            }
        }

        let mut out = String::new();
        let _ = write!(
            out,
            "summary (/rayon, /chili: this runner's figure over theirs)\n{:<8} {:<18} {:>7} {:>6} {:>6} {:>8} {:>6} {:>6}",
            "program", "runner", "T1/Tseq", "/rayon", "/chili", "ns/join", "/rayon", "/chili"
        );
        for p in &ps {
            let _ = write!(
                out,
                " {:>7} {:>6} {:>6}",
                format!("T1/T{p}"),
                "/rayon",
                "/chili"
            );
        }
        let _ = write!(out, " {:>9}", "susp@1");
        for p in &ps {
            let _ = write!(out, " {:>9}", format!("susp@{p}"));
        }
        out.push('\n');

        for &program in &programs {
            let tseq = self.time(program, Runner::Seq, 1);
            let joins = program.joins() as f64;
            let t1 = |r: Runner| self.time(program, r, 1);
            let overhead = |r: Runner| t1(r).zip(tseq).map(|(t1, ts)| (t1 - ts) / joins);
            let speedup = |r: Runner, p: usize| ratio(t1(r), self.time(program, r, p));
            for &runner in &runners {
                let rel = |r| ratio(t1(runner), t1(r));
                let _ = write!(
                    out,
                    "{:<8} {:<18} {:>7} {:>6} {:>6} {:>8} {:>6} {:>6}",
                    program.name(),
                    runner.name(),
                    opt(ratio(t1(runner), tseq), 2),
                    opt(rel(Runner::Rayon), 2),
                    opt(rel(Runner::Chili), 2),
                    opt(overhead(runner), 2),
                    opt(ratio(overhead(runner), overhead(Runner::Rayon)), 2),
                    opt(ratio(overhead(runner), overhead(Runner::Chili)), 2),
                );
                for &p in &ps {
                    let s = speedup(runner, p);
                    let _ = write!(
                        out,
                        " {:>7} {:>6} {:>6}",
                        opt(s, 2),
                        opt(ratio(s, speedup(Runner::Rayon, p)), 2),
                        opt(ratio(s, speedup(Runner::Chili, p)), 2),
                    );
                }
                let susp = |p: usize| {
                    self.find(program, runner, p)
                        .and_then(|row| row.per_run(|c| c.suspensions))
                };
                let _ = write!(out, " {:>9}", opt(susp(1), 1));
                for &p in &ps {
                    let _ = write!(out, " {:>9}", opt(susp(p), 1));
                }
                out.push('\n');
            }
        }
        out
    }
}

/// The idle-CPU report.
pub fn render_idle(idle: &[IdleOutcome]) -> String {
    let mut out = String::from(
        "idle CPU: pool built, one tiny job run, then the process CPU time (user + system)\n\
         burned during one second of sleep\n",
    );
    let _ = writeln!(out, "{:<18} {:>7} {:>12}", "runner", "threads", "CPU ms/s");
    for o in idle {
        match &o.result {
            Ok(r) => {
                let _ = writeln!(
                    out,
                    "{:<18} {:>7} {:>12.2}",
                    o.runner.name(),
                    o.threads,
                    r.cpu_ns / 1e6 / (r.wall_ns / 1e9)
                );
            }
            Err(e) => {
                let _ = writeln!(out, "{:<18} {:>7} FAILED: {e}", o.runner.name(), o.threads);
            }
        }
    }
    out
}

/// The whole suite as JSON.
pub fn json(machine: &Machine, options: &Options, table: &Table, idle: &[IdleOutcome]) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"machine\": {},", machine.json());
    let _ = writeln!(out, "  \"quick\": {},", options.quick);
    let _ = writeln!(
        out,
        "  \"tree_layout\": {},",
        json_string(options.tree_layout.name())
    );
    let _ = writeln!(out, "  \"threads\": [{}],", join_list(&options.threads));
    out.push_str("  \"programs\": [");
    for (i, p) in options.programs.iter().enumerate() {
        let _ = write!(
            out,
            "{}{{\"name\": {}, \"description\": {}, \"joins\": {}}}",
            if i == 0 { "" } else { ", " },
            json_string(p.name()),
            json_string(p.description()),
            p.joins()
        );
    }
    out.push_str("],\n  \"results\": [\n");
    for (i, row) in table.rows.iter().enumerate() {
        let o = &row.outcome;
        let _ = write!(
            out,
            "    {{\"program\": {}, \"runner\": {}, \"threads\": {}, ",
            json_string(o.program.name()),
            json_string(o.runner.name()),
            o.threads
        );
        match &o.result {
            Ok(r) => {
                let _ = write!(
                    out,
                    "\"ok\": true, \"median_ns\": {}, \"min_ns\": {}, \"max_ns\": {}, \
                     \"batch\": {}, \"samples\": {}, \"peak_rss_kib\": {}, \"cpu_per_wall\": {}, \
                     \"t_over_tseq\": {}, \"overhead_ns_per_join\": {}, \"speedup\": {}, \
                     \"vs_rayon\": {}, \"vs_chili\": {}, \"counters\": ",
                    json_number(Some(r.median_ns)),
                    json_number(Some(r.min_ns)),
                    json_number(Some(r.max_ns)),
                    r.batch,
                    r.samples,
                    r.rss_kib,
                    json_number(Some(r.cpu_per_wall)),
                    json_number(row.t_over_tseq),
                    json_number(row.overhead_ns_per_join),
                    json_number(row.speedup),
                    json_number(row.vs_rayon),
                    json_number(row.vs_chili),
                );
                out.push_str(&counters_json(r.counters.as_ref(), Some(r.runs())));
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
    out.push_str("  ],\n  \"idle\": [\n");
    for (i, o) in idle.iter().enumerate() {
        let _ = write!(
            out,
            "    {{\"runner\": {}, \"threads\": {}, ",
            json_string(o.runner.name()),
            o.threads
        );
        match &o.result {
            Ok(r) => {
                let _ = write!(
                    out,
                    "\"ok\": true, \"cpu_ns\": {}, \"wall_ns\": {}, \"peak_rss_kib\": {}",
                    json_number(Some(r.cpu_ns)),
                    json_number(Some(r.wall_ns)),
                    r.rss_kib
                );
            }
            Err(e) => {
                let _ = write!(out, "\"ok\": false, \"error\": {}", json_string(e));
            }
        }
        out.push('}');
        out.push_str(if i + 1 < idle.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::child::IdleResult;
    use std::time::Duration;

    fn outcome(program: Program, runner: Runner, threads: usize, ns: f64) -> Outcome {
        Outcome {
            program,
            runner,
            threads,
            result: Ok(ChildResult {
                median_ns: ns,
                min_ns: ns,
                max_ns: ns,
                batch: 1,
                samples: 1,
                rss_kib: 2048,
                cpu_per_wall: 1.0,
                counters: runner.params().map(|_| {
                    let mut counters = prescient::Counters::default();
                    counters.suspensions = 3;
                    counters
                }),
            }),
        }
    }

    fn sample() -> Vec<Outcome> {
        let p = Program::Tree1k; // 1023 joins
        vec![
            outcome(p, Runner::Seq, 1, 1023.0),
            outcome(p, Runner::PrescientDefault, 1, 3069.0),
            outcome(p, Runner::Rayon, 1, 11253.0),
            outcome(p, Runner::Chili, 1, 2046.0),
            outcome(p, Runner::PrescientDefault, 2, 1534.5),
            outcome(p, Runner::Rayon, 2, 11253.0),
            Outcome {
                program: p,
                runner: Runner::Chili,
                threads: 2,
                result: Err("boom".into()),
            },
        ]
    }

    #[test]
    fn derived_figures() {
        let t = Table::new(&sample());
        let pd1 = &t.rows[1];
        assert_eq!(pd1.t_over_tseq, Some(3.0));
        assert_eq!(pd1.overhead_ns_per_join, Some(2.0));
        assert_eq!(pd1.speedup, Some(1.0));
        assert_eq!(pd1.vs_chili, Some(1.5));
        let pd2 = &t.rows[4];
        assert_eq!(pd2.speedup, Some(2.0));
        assert_eq!(pd2.overhead_ns_per_join, None);
        assert_eq!(pd2.vs_chili, None);
        assert_eq!(pd2.per_run(|c| c.suspensions), Some(3.0));
        assert_eq!(t.rows[0].speedup, None);

        let text = t.render();
        assert!(text.contains("prescient-default"));
        assert!(text.contains("FAILED: boom"));
        let summary = t.render_summary(&[1, 2]);
        assert!(summary.contains("T1/T2"));
        // overhead 2 ns vs rayon's 10 ns and chili's 1 ns
        let line = summary
            .lines()
            .find(|l| l.contains("prescient-default"))
            .unwrap();
        assert!(line.contains(" 0.20 ") && line.contains(" 2.00 "), "{line}");
    }

    #[test]
    fn json_is_well_formed_enough() {
        assert_eq!(json_string("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(json_number(Some(2.0)), "2");
        assert_eq!(json_number(Some(2.5)), "2.5");
        assert_eq!(json_number(Some(f64::NAN)), "null");
        assert_eq!(json_number(None), "null");

        let machine = Machine {
            threads: 2,
            arch: "x86_64".into(),
            os: "Linux".into(),
            cpu: "Some \"CPU\"".into(),
        };
        let options = Options {
            quick: true,
            threads: vec![1, 2],
            json: "x.json".into(),
            programs: vec![Program::Tree1k],
            runners: Runner::ALL.to_vec(),
            idle: true,
            timeout: Duration::from_secs(1),
            tree_layout: crate::programs::tree::Layout::DEFAULT,
        };
        let idle = vec![IdleOutcome {
            runner: Runner::Rayon,
            threads: 2,
            result: Ok(IdleResult {
                cpu_ns: 1e6,
                wall_ns: 1e9,
                rss_kib: 1,
            }),
        }];
        let text = json(&machine, &options, &Table::new(&sample()), &idle);
        // Balanced brackets and braces outside strings, no trailing commas.
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
        assert_eq!(depth, 0);
        assert!(!text.contains(",\n  ]") && !text.contains(", }"));
        assert!(text.contains("\"overhead_ns_per_join\": 2,"));
        assert!(text.contains("\"error\": \"boom\""));
        assert!(text.contains("\"suspensions\": 3"));
    }

    #[test]
    fn time_units() {
        assert_eq!(format_ns(12.34), "12.3 ns");
        assert_eq!(format_ns(1234.0), "1.23 µs");
        assert_eq!(format_ns(65_800_000.0), "65.80 ms");
        assert_eq!(format_ns(1.5e9), "1.500 s");
        assert_eq!(format_ns(f64::NAN), "-");
    }
}
