//! The measuring half of the `annotated` table: each program's workload at
//! a size (its sequential reference computed and checked), the runtime
//! configurations it runs under, and the round-robin measurement of one
//! program under all of them.

use prescient::tuning::{Counters, QueuePolicy};
use prescient::{Params, Runtime};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::annotated::{alignment, fib, nqueens};
use crate::cli::{self, Size};
use crate::dataflow::runtime;

/// The programs, in table order.
pub const PROGRAMS: [&str; 3] = ["fib", "nqueens", "alignment"];

/// The fixed queue capacities measured under `DEF` and `PF`.
pub const CAPACITIES: [usize; 3] = [4, 16, 128];

/// Sequences of `prot.20.aa` aligned at `--quick` (all 20 at full size).
pub const QUICK_SEQUENCES: usize = 10;

/// Sequences of `prot.20.aa` aligned at `--test-size` (the CF'17 test size).
pub const TEST_SEQUENCES: usize = crate::cf17::workloads::TEST_ALIGNMENT_SEQUENCES;

/// The time of one run and whether its result was right.
pub type Outcome = (Duration, Result<(), String>);

/// One program at one input size, ready to run.
pub struct Workload {
    /// The program (`fib`, `nqueens`, `alignment`).
    pub name: &'static str,
    /// The input, in words (`n=35`, `prot.20[..10]`).
    pub size: String,
    /// The program's analysed parameters.
    pub params: Params,
    /// One sequential run, checked.
    pub seq: Box<dyn Fn() -> Outcome>,
    /// One run on a runtime (`runtime.run(|| program)`), checked.
    pub par: Box<dyn Fn(&Runtime) -> Outcome>,
}

impl Workload {
    /// The program and its size as samples name it: `fib(35)`,
    /// `nqueens(11)`, `alignment prot.20`.
    pub fn sample_name(&self) -> String {
        sample_name(self.name, &self.size)
    }
}

/// `program` and its input as samples name them: `fib(35)` for the input
/// `n=35`, else `program input` (`alignment prot.20[..10]`).
pub fn sample_name(program: &str, input: &str) -> String {
    match input.strip_prefix("n=") {
        Some(n) => format!("{program}({n})"),
        None => format!("{program} {input}"),
    }
}

/// `f`'s result and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

/// `Ok` if `got` is `expected`, else the message of a wrong result.
pub fn check<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &T,
    expected: &T,
) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!(
            "{what}: wrong result {got:?}, expected {expected:?}"
        ))
    }
}

/// The workload of the program `name` at `size`, its reference computed
/// (and itself checked against the known answer where there is one).
///
/// # Errors
/// An unknown program, an unreadable input, a reference that disagrees with
/// the known answer.
pub fn workload(name: &'static str, size: Size) -> Result<Workload, String> {
    match name {
        "fib" => {
            let n: u64 = match size {
                Size::Full => 35,
                Size::Quick => 30,
                Size::Test => 20,
            };
            let reference = fib::fib_seq(n);
            check("fib_seq", &reference, &fib::expected(n))?;
            Ok(Workload {
                name,
                size: format!("n={n}"),
                params: fib::PARAMS,
                seq: Box::new(move || {
                    let (time, got) = timed(|| fib::fib_seq(black_box(n)));
                    (time, check("fib seq", &got, &reference))
                }),
                par: Box::new(move |rt| {
                    let (time, got) = timed(|| rt.run(|| fib::fib(black_box(n))));
                    (time, check("fib", &got, &reference))
                }),
            })
        }
        "nqueens" => {
            let n: usize = match size {
                Size::Full => 11,
                Size::Quick => 10,
                Size::Test => 8,
            };
            let reference = nqueens::nqueens_seq(n);
            check("nqueens_seq", &Some(reference), &nqueens::expected(n))?;
            Ok(Workload {
                name,
                size: format!("n={n}"),
                params: nqueens::PARAMS,
                seq: Box::new(move || {
                    let (time, got) = timed(|| nqueens::nqueens_seq(black_box(n)));
                    (time, check("nqueens seq", &got, &reference))
                }),
                par: Box::new(move |rt| {
                    let (time, got) = timed(|| rt.run(|| nqueens::find_queens(black_box(n))));
                    (time, check("nqueens", &got, &reference))
                }),
            })
        }
        "alignment" => alignment_workload(size),
        other => Err(format!("unknown program `{other}`")),
    }
}

/// The alignment workload: `prot.20.aa`, cut to its first sequences below
/// full size.
fn alignment_workload(size: Size) -> Result<Workload, String> {
    let path = alignment::prot_20();
    let mut seqs =
        alignment::read_sequences(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let all = seqs.len();
    match size {
        Size::Full => {}
        Size::Quick => seqs.truncate(QUICK_SEQUENCES),
        Size::Test => seqs.truncate(TEST_SEQUENCES),
    }
    let scoring = alignment::Scoring::protein();
    let reference = alignment::pairalign_seq(&seqs, &scoring);
    if seqs.len() == all {
        check(
            "pairalign_seq",
            &reference.fingerprint(),
            &alignment::BOTS_PROT_20_FINGERPRINT,
        )?;
    }
    let n = seqs.len();
    let size = if n == all {
        "prot.20".to_string()
    } else {
        format!("prot.20[..{n}]")
    };
    let (seqs, scoring) = (Arc::new(seqs), Arc::new(scoring));
    let (s2, c2, r2) = (seqs.clone(), scoring.clone(), reference.clone());
    Ok(Workload {
        name: "alignment",
        size,
        params: alignment::PARAMS,
        seq: Box::new(move || {
            let (time, got) = timed(|| alignment::pairalign_seq(&seqs, &scoring));
            (
                time,
                check(
                    "pairalign_seq",
                    &got.fingerprint(),
                    &reference.fingerprint(),
                ),
            )
        }),
        par: Box::new(move |rt| {
            let (time, got) = timed(|| rt.run(|| alignment::pairalign(&s2, &c2)));
            let result = check("pairalign", &got.fingerprint(), &r2.fingerprint()).and_then(|()| {
                (got == r2)
                    .then_some(())
                    .ok_or_else(|| "pairalign: wrong score matrix (same fingerprint)".to_string())
            });
            (time, result)
        }),
    })
}

/// The configurations a program is measured under: its own analysed
/// parameters (`own`), the default (`default`), and the fixed policies ×
/// capacities (`DEF/4` ... `PF/128`).
pub fn configs(own: Params) -> Vec<(String, Params)> {
    let mut configs = vec![
        ("own".to_string(), own),
        ("default".to_string(), Params::DEFAULT),
    ];
    for policy in [
        QueuePolicy::InsertBackStealBack,
        QueuePolicy::InsertFrontStealBack,
    ] {
        for capacity in CAPACITIES {
            configs.push((
                format!("{policy}/{capacity}"),
                Params::DEFAULT
                    .with_queue_policy(policy)
                    .with_queue_capacity(capacity),
            ));
        }
    }
    configs
}

/// The runner name of a configuration in the shared samples
/// ([`crate::samples`]): `seq` is `sequential`, `own` (the parameters
/// `#[task_program]` chose) is `prescient`, `default` is
/// `prescient-default`, and `POLICY/CAP` is `prescient-policy-cap`
/// (`prescient-def-4`, `prescient-pf-128`).
pub fn runner_name(config: &str) -> String {
    match config {
        "seq" => crate::samples::SEQUENTIAL.to_string(),
        "own" => crate::samples::PRESCIENT.to_string(),
        other => format!("prescient-{}", other.to_lowercase().replace('/', "-")),
    }
}

/// One measured line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The program.
    pub program: &'static str,
    /// Its input, in words.
    pub size: String,
    /// `seq` or a configuration's name.
    pub config: String,
    /// `None` for `seq`.
    pub params: Option<Params>,
    /// 0 for `seq`.
    pub threads: usize,
    /// The best time of the timed runs.
    pub best: Duration,
    /// The counters over the timed runs (`None` for `seq`).
    pub counters: Option<Counters>,
    /// Whether this is the fastest configuration of its program and thread
    /// count.
    pub fastest: bool,
}

/// One runner of a program's group.
struct Runner {
    config: String,
    params: Option<Params>,
    threads: usize,
    runtime: Option<Runtime>,
}

/// Measures `w` under every configuration and thread count, round robin:
/// one warm-up round, then `reps` timed rounds (each round says so on
/// stderr, [`cli::progress`]). Returns the rows in table order (`seq`, then
/// by thread count, configurations in order).
///
/// # Errors
/// A wrong result, naming the program, configuration and thread count.
pub fn measure(w: &Workload, threads: &[usize], reps: usize) -> Result<Vec<Row>, String> {
    let mut runners = vec![Runner {
        config: "seq".to_string(),
        params: None,
        threads: 0,
        runtime: None,
    }];
    for &t in threads {
        for (config, params) in configs(w.params) {
            runners.push(Runner {
                config,
                params: Some(params),
                threads: t,
                runtime: Some(runtime(t, params)),
            });
        }
    }
    let mut best = vec![Duration::MAX; runners.len()];
    let mut before: Vec<Option<Counters>> = vec![None; runners.len()];
    for round in 0..=reps {
        cli::progress(format_args!(
            "annotated: {}, {} configurations at threads {threads:?}, {}",
            w.sample_name(),
            runners.len(),
            if round == 0 {
                "warm-up round".to_string()
            } else {
                format!("round {round} of {reps}")
            }
        ));
        for (k, r) in runners.iter().enumerate() {
            if round == 1 {
                // Counters cover the timed runs only.
                before[k] = r.runtime.as_ref().map(Runtime::counters);
            }
            let (time, result) = match &r.runtime {
                None => (w.seq)(),
                Some(rt) => (w.par)(rt),
            };
            result.map_err(|e| {
                format!(
                    "{} {} under {} on {} thread(s): {e}",
                    w.name, w.size, r.config, r.threads
                )
            })?;
            if round > 0 {
                best[k] = best[k].min(time);
            }
        }
    }
    let mut rows: Vec<Row> = runners
        .iter()
        .zip(&best)
        .zip(&before)
        .map(|((r, &best), before)| Row {
            program: w.name,
            size: w.size.clone(),
            config: r.config.clone(),
            params: r.params,
            threads: r.threads,
            best,
            counters: r
                .runtime
                .as_ref()
                .zip(before.as_ref())
                .map(|(rt, before)| rt.counters().since(before)),
            fastest: false,
        })
        .collect();
    for &t in threads {
        let fastest = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.threads == t)
            .min_by_key(|(_, r)| r.best)
            .map(|(k, _)| k);
        if let Some(k) = fastest {
            rows[k].fastest = true;
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations() {
        let c = configs(fib::PARAMS);
        let names: Vec<&str> = c.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["own", "default", "DEF/4", "DEF/16", "DEF/128", "PF/4", "PF/16", "PF/128"]
        );
        for (name, params) in &c {
            assert_eq!(params.validate(), Ok(()), "{name}");
        }
        assert_eq!(c[7].1.queue_policy, QueuePolicy::InsertFrontStealBack);
        assert_eq!(c[7].1.queue_capacity, 128);
        let runners: Vec<String> = ["seq", "own", "default", "DEF/4", "PF/128"]
            .into_iter()
            .map(runner_name)
            .collect();
        assert_eq!(
            runners,
            [
                "sequential",
                "prescient",
                "prescient-default",
                "prescient-def-4",
                "prescient-pf-128"
            ]
        );
    }

    #[test]
    fn test_size_workloads_check_their_results() {
        let rt = runtime(2, Params::DEFAULT);
        for name in PROGRAMS {
            let w = workload(name, Size::Test).unwrap();
            assert!((w.seq)().1.is_ok(), "{name} seq");
            assert!((w.par)(&rt).1.is_ok(), "{name} par");
        }
        assert_eq!(
            workload("fib", Size::Test).unwrap().sample_name(),
            "fib(20)"
        );
        assert_eq!(
            workload("alignment", Size::Test).unwrap().sample_name(),
            format!("alignment prot.20[..{TEST_SEQUENCES}]")
        );
        assert!(workload("tree", Size::Test).is_err());
        assert_eq!(check("x", &1, &1), Ok(()));
        assert!(check("x", &1, &2).unwrap_err().contains("wrong result"));
    }
}
