//! Runners measured inside one process, round robin — what the loop
//! tables (`loops`, `par-loops`) time — and the rows they give, with the
//! C/C++ peers' rows of the same programs beside them (par-loops).
//!
//! The runners of one workload run round robin, one warm-up round and then
//! `reps` timed rounds, and each keeps its best time: the machine may be
//! shared, and a change in its load then hits every runner alike (other
//! processes only add time).

use std::time::{Duration, Instant};

use prescient::tuning::Counters;
use prescient::Runtime;
use serde::{Deserialize, Serialize};

use super::record::Record;
use super::write::{ms, opt, Md};
use super::Runner;
use crate::cli::Size;
use crate::peers::{self, Job};
use crate::samples::{Sample, TableHead, SEQUENTIAL};

/// A runner of one workload, measured in process.
pub struct Contender<'a, O> {
    /// Its name in the table and the JSON (`seq` for the sequential loop).
    pub name: &'a str,
    /// Its name in the samples.
    pub sample: &'a str,
    /// Its threads (0 for the sequential loop).
    pub threads: usize,
    /// Prescient's runtime, whose counters the row shows.
    pub runtime: Option<&'a Runtime>,
    /// One run, which writes its result into the output.
    pub run: Box<dyn Fn(&mut O) + 'a>,
}

/// What [`round_robin`] measured of one contender.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// The best timed round.
    pub best: Duration,
    /// For Prescient, the counters over every round (the warm-up too).
    pub counters: Option<Counters>,
}

/// Times `contenders` round robin into `out`: one warm-up round and `reps`
/// timed rounds, `check` after every run (outside the timing); each keeps
/// its best time.
pub fn round_robin<O>(
    contenders: &[Contender<'_, O>],
    out: &mut O,
    reps: usize,
    check: impl Fn(&O, &str),
) -> Vec<Timing> {
    let before: Vec<Option<Counters>> = contenders
        .iter()
        .map(|c| c.runtime.map(Runtime::counters))
        .collect();
    let mut best = vec![Duration::MAX; contenders.len()];
    for round in 0..=reps {
        for (k, c) in contenders.iter().enumerate() {
            let start = Instant::now();
            (c.run)(out);
            let time = start.elapsed();
            check(out, c.name);
            if round > 0 {
                best[k] = best[k].min(time);
            }
        }
    }
    contenders
        .iter()
        .zip(before)
        .zip(best)
        .map(|((c, before), best)| Timing {
            best,
            counters: c.runtime.zip(before).map(|(rt, b)| rt.counters().since(&b)),
        })
        .collect()
}

/// One row of a loop table: one runner at one thread count on one
/// workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopRow {
    /// The workload (`fine`, `sum`, `mandelbrot`, ...).
    pub workload: String,
    /// Its program name in the samples.
    pub program: String,
    /// Items (`loops` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<usize>,
    /// The grain (`loops` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grain: Option<usize>,
    /// The runner as the table names it (`seq`, `prescient`, a peer, ...).
    pub runner: String,
    /// Threads (1 for `seq`).
    pub threads: usize,
    /// The best time, in seconds.
    pub seconds: f64,
    /// Over the sequential time.
    pub vs_sequential: f64,
    /// Over rayon's at the same thread count (Prescient's runners only).
    #[serde(default)]
    pub vs_rayon: Option<f64>,
    /// Steals per run (Prescient's runners, `loops` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steals_per_run: Option<f64>,
    /// Suspensions per run (Prescient's runners, `loops` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspensions_per_run: Option<f64>,
    /// A peer's peak RSS in KiB (its own process; the other runners share
    /// the table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
}

/// A loop table's rows as they are measured: the Markdown, the JSON rows
/// and the samples.
pub struct LoopTable {
    /// The table's name (its subcommand).
    pub table: &'static str,
    /// The size it runs at.
    pub size: Size,
    /// The thread counts.
    pub threads: Vec<usize>,
    /// Whether the rows show Prescient's counters (`loops`).
    pub counters: bool,
    /// The timed rounds (and a peer's timed runs).
    pub reps: usize,
    /// The peers' runners ([`crate::peers`]; `loops` has no peer programs).
    pub peers: Vec<Runner>,
    /// The peers' records so far, by runner (for their notes).
    pub peer_records: Vec<(String, Record)>,
    /// The peers' rows that failed so far.
    pub peer_failures: usize,
    /// The Markdown so far.
    pub md: Md,
    /// The JSON head with the samples so far.
    pub head: TableHead,
    /// The JSON rows so far.
    pub rows: Vec<LoopRow>,
}

impl LoopTable {
    /// An empty table of `reps` timed rounds, with Prescient's counters
    /// where `counters`.
    pub fn new(
        table: &'static str,
        size: Size,
        threads: &[usize],
        reps: usize,
        counters: bool,
    ) -> LoopTable {
        LoopTable {
            table,
            size,
            threads: threads.to_vec(),
            counters,
            reps,
            peers: peers::runners(table),
            peer_records: Vec::new(),
            peer_failures: 0,
            md: LoopTable::header(counters),
            head: TableHead::new(table, size, threads),
            rows: Vec::new(),
        }
    }

    /// A Markdown table's header, with or without the counter columns.
    pub fn header(counters: bool) -> Md {
        let mut columns = vec![
            "workload", "program", "runner", "thr", "time", "T/Tseq", "/rayon",
        ];
        if counters {
            columns.extend(["steals/run", "susp/run"]);
        }
        Md::new(&columns, 3)
    }

    /// Adds one workload's rows — the contenders' (the sequential one
    /// first), then each peer's at each thread count where a peer has the
    /// program (its result checked against `expect`, the checksum of the
    /// sequential result) — ordered by thread count.
    pub fn add<O>(
        &mut self,
        (workload, program): (&str, &str),
        contenders: &[Contender<'_, O>],
        timings: &[Timing],
        runs: u64,
        expect: Option<String>,
    ) {
        let seq = timings[0].best.as_secs_f64();
        let rayon = |threads| {
            let k = contenders
                .iter()
                .position(|c| c.name == "rayon" && c.threads == threads)?;
            Some(timings[k].best.as_secs_f64())
        };
        let mut rows: Vec<(LoopRow, &str)> = contenders
            .iter()
            .zip(timings)
            .map(|(c, t)| {
                let seconds = t.best.as_secs_f64();
                let per_run = |f: fn(&Counters) -> u64| {
                    let c = t.counters.filter(|_| self.counters)?;
                    Some(f(&c) as f64 / runs as f64)
                };
                let prescient = c.name != "rayon" && c.threads > 0;
                let row = LoopRow {
                    workload: workload.to_string(),
                    program: program.to_string(),
                    n: None,
                    grain: None,
                    runner: c.name.to_string(),
                    threads: c.threads.max(1),
                    seconds,
                    vs_sequential: seconds / seq,
                    vs_rayon: rayon(c.threads).filter(|_| prescient).map(|r| seconds / r),
                    steals_per_run: per_run(|c| c.steals),
                    suspensions_per_run: per_run(|c| c.suspensions),
                    peak_rss_kib: None,
                };
                (row, c.sample)
            })
            .collect();
        let job = Job::of_row(self.table, program, self.size, self.reps);
        let measured = match (job, expect) {
            (Some(job), Some(expect)) if !self.peers.is_empty() => {
                let t = &self.threads;
                peers::measure(self.table, self.size, &self.peers, t, &job, &expect)
            }
            _ => Vec::new(),
        };
        for (runner, threads, record) in measured {
            match record {
                Ok(r) => {
                    self.peer_records.push((runner.clone(), r.clone()));
                    let seconds = r.min_ns() / 1e9;
                    rows.push((
                        LoopRow {
                            runner: runner.clone(),
                            threads,
                            seconds,
                            vs_sequential: seconds / seq,
                            vs_rayon: None,
                            steals_per_run: None,
                            suspensions_per_run: None,
                            peak_rss_kib: r.peak_rss_kib,
                            ..rows[0].0.clone()
                        },
                        "",
                    ));
                }
                Err(e) => {
                    self.peer_failures += 1;
                    self.md.failed(
                        vec![workload.into(), program.into(), runner, threads.to_string()],
                        &e,
                    );
                }
            }
        }
        rows[1..].sort_by_key(|(row, _)| row.threads);
        for (row, sample) in rows {
            let threads = if row.runner == "seq" {
                "-".to_string()
            } else {
                row.threads.to_string()
            };
            let mut cells = vec![
                row.workload.clone(),
                row.program.clone(),
                row.runner.clone(),
                threads,
                ms(row.seconds),
                format!("{:.2}", row.vs_sequential),
                opt(row.vs_rayon, 2),
            ];
            if self.counters {
                cells.extend([opt(row.steals_per_run, 1), opt(row.suspensions_per_run, 1)]);
            }
            self.md.row(&cells);
            let sample = match sample {
                "" => row.runner.as_str(),
                "seq" => SEQUENTIAL,
                name => name,
            };
            self.head
                .samples
                .push(Sample::new(&row.program, sample, row.threads, row.seconds));
            self.rows.push(row);
        }
    }
}

/// A Prescient form of a workload: its name, its name in the samples, one
/// run inside a runtime.
pub type Form<'a, O> = (&'a str, &'a str, &'a (dyn Fn(&mut O) + Sync));

/// The contenders of one workload: the sequential loop (`seq`), then each
/// Prescient form (its name, sample name and run) at each thread count in
/// the runtimes of `runtimes` (configuration, threads, runtime) named like
/// it, or in all of them where they are unnamed (`""`), then rayon's at
/// each thread count in its pool.
pub fn contenders<'a, O: Send + 'a>(
    sequential: impl Fn(&mut O) + 'a,
    prescient: &[Form<'a, O>],
    runtimes: &'a [(&'a str, usize, Runtime)],
    pools: &'a [(usize, rayon::ThreadPool)],
    rayon: &'a (dyn Fn(&mut O) + Sync),
) -> Vec<Contender<'a, O>> {
    let mut out = vec![Contender {
        name: "seq",
        sample: "seq",
        threads: 0,
        runtime: None,
        run: Box::new(sequential),
    }];
    for &(name, sample, run) in prescient {
        // A form runs in its own configuration's runtimes, or in every
        // runtime of an unnamed one.
        let own = |config: &&str| config.is_empty() || *config == name;
        for (_, t, rt) in runtimes.iter().filter(|(config, _, _)| own(config)) {
            out.push(Contender {
                name,
                sample,
                threads: *t,
                runtime: Some(rt),
                run: Box::new(move |o: &mut O| rt.run(|| run(o))),
            });
        }
    }
    for (t, pool) in pools {
        out.push(Contender {
            name: "rayon",
            sample: crate::samples::RAYON,
            threads: *t,
            runtime: None,
            run: Box::new(move |o: &mut O| pool.install(|| rayon(o))),
        });
    }
    out
}

/// Rayon pools of each of `threads`.
///
/// # Errors
/// A pool that cannot be built.
pub fn rayon_pools(threads: &[usize]) -> Result<Vec<(usize, rayon::ThreadPool)>, String> {
    threads
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build();
            Ok((
                t,
                pool.map_err(|e| format!("a rayon pool of {t} threads: {e}"))?,
            ))
        })
        .collect()
}
