//! `report.md`: the machine, the build, the headline, the plots and every
//! table's own text, in one self-contained file beside its SVGs and JSON.

use super::build_info::BuildInfo;
use super::headline::{self, HeadlineRow, PeerRatio};
use super::plan;
use crate::harness::child::Status;
use crate::harness::Machine;

/// One table's part of the report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TableRun {
    /// The subcommand.
    pub name: String,
    /// The size it ran at (`full`, `quick`, `test`), if it ran.
    pub size: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Its wall time in seconds (0 if skipped).
    pub seconds: f64,
    /// The report's estimate for it, in seconds.
    pub estimate_seconds: f64,
    /// The command line it ran with, after the executable.
    pub args: Vec<String>,
    /// Its JSON file in the report's folder, if it wrote one.
    pub json_file: Option<String>,
    /// Its stdout (the table's text).
    #[serde(skip)]
    pub text: String,
    /// Its stderr without progress lines (kept when it did not finish).
    #[serde(skip)]
    pub errors: String,
}

/// What the report's header says.
pub struct Header<'a> {
    /// The host's name in the folder's path.
    pub host: &'a str,
    /// The date.
    pub date: &'a str,
    /// The machine.
    pub machine: &'a Machine,
    /// The build.
    pub build: &'a BuildInfo,
    /// The load average when the report started.
    pub load_average: &'a str,
    /// The command that produced it.
    pub command: &'a str,
    /// The competing busy processes beside the tables that take them.
    pub competing: usize,
    /// The budget in seconds.
    pub budget_seconds: f64,
    /// The wall time so far, in seconds.
    pub elapsed_seconds: f64,
    /// The thread counts.
    pub threads: &'a [usize],
}

/// The whole of report.md.
pub fn render(
    header: &Header<'_>,
    runs: &[TableRun],
    (headline_rows, peer_ratios): (&[HeadlineRow], &[PeerRatio]),
    plots: &[(String, String)],
) -> String {
    let mut out = format!(
        "# Prescient benchmark report: {}, {}\n\n",
        header.host, header.date
    );
    out.push_str(&format!(
        "Every table of `prescient-bench` that fit a budget of {:.0} s, run in {:.0} s at {} thread(s) \
         ({}). Each table ran as its own process; its text is below as it printed it, and its JSON \
         (with the `samples` the headline and the plots are computed from) is beside this file.\n\n",
        header.budget_seconds,
        header.elapsed_seconds,
        header.threads.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        if header.threads.len() == 1 { "one count" } else { "each count in turn" },
    ));
    let loaded = loaded(header.load_average, header.machine.threads);
    if let Some(loaded) = &loaded {
        out.push_str(&format!("**{loaded}**\n\n"));
    }
    out.push_str("## Machine and build\n\n");
    out.push_str(&format!("- {}\n", header.machine.describe()));
    out.push_str(&format!(
        "- load average at the start: {}\n",
        header.load_average
    ));
    out.push_str(&format!(
        "- {}{}\n",
        crate::competing::describe(header.competing),
        if header.competing > 0 {
            " (one CPU spin loop each), while fork-join and dataflow measured; the other tables ran without"
        } else {
            ""
        }
    ));
    out.push_str(&format!("- build: {}\n", header.build.describe()));
    if !header.build.rustflags.is_empty() {
        out.push_str(&format!("- rustflags: `{}`\n", header.build.rustflags));
    }
    out.push_str(&format!("- command: `{}`\n\n", header.command));

    out.push_str("## Headline\n\n");
    if let Some(loaded) = &loaded {
        out.push_str(&format!("{loaded}\n\n"));
    }
    out.push_str(&headline::render(headline_rows));
    out.push('\n');
    if !peer_ratios.is_empty() {
        out.push_str(&headline::render_peer_means(peer_ratios));
        out.push('\n');
    }
    out.push_str(&format!(
        "## Prescient against the C/C++ peers\n\nOpenMP tasks under GCC's libgomp (`omp-gcc`) and \
         LLVM's libomp (`omp-llvm`), oneTBB (`tbb`) and StarPU (`starpu`, dataflow only): the same \
         programs, inputs and measurement as the Rust rows, each configuration in its own process \
         ({}). Per program and thread count, the fastest Prescient runner and each peer's time \
         over its (above 1: Prescient is faster).\n\n{}\n",
        crate::peers::BINDING,
        headline::render_peer_ratios(peer_ratios)
    ));

    if !plots.is_empty() {
        out.push_str("## Plots\n\n");
        for (file, caption) in plots {
            out.push_str(&format!("![{caption}]({file})\n\n"));
        }
    }

    out.push_str("## Tables\n\n| table | what it shows | size | status | time | estimate |\n|---|---|---|---|---:|---:|\n");
    for run in runs {
        let about = plan::table(&run.name).map_or("", |spec| spec.about);
        out.push_str(&format!(
            "| [{name}](#{name}) | {about} | {} | {} | {:.0} s | {:.0} s |\n",
            run.size.as_deref().unwrap_or("–"),
            run.status.describe(),
            run.seconds,
            run.estimate_seconds,
            name = run.name,
        ));
    }
    out.push('\n');
    for run in runs {
        out.push_str(&format!("## {}\n\n", run.name));
        if let Some(spec) = plan::table(&run.name) {
            out.push_str(&format!("{}.\n\n", capitalised(spec.about)));
        }
        if !run.args.is_empty() {
            out.push_str(&format!(
                "`prescient-bench {}` — {}\n\n",
                run.args.join(" "),
                run.status.describe()
            ));
        } else {
            out.push_str(&format!("{}\n\n", run.status.describe()));
        }
        if !run.text.trim().is_empty() {
            out.push_str(run.text.trim_end());
            out.push_str("\n\n");
        }
        if run.status != Status::Done && !run.errors.trim().is_empty() {
            let tail: Vec<&str> = run.errors.lines().rev().take(20).collect();
            out.push_str("Its last lines on stderr:\n\n```text\n");
            for line in tail.into_iter().rev() {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
    }
    out
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// What the report says of a machine whose load average at the start,
/// `load`, exceeds half its `threads` hardware threads; `None` for a quiet
/// one (or an unreadable load).
pub fn loaded(load: &str, threads: usize) -> Option<String> {
    let value: f64 = load.trim().parse().ok()?;
    (value > threads as f64 / 2.0).then(|| {
        format!(
            "Measured on a loaded machine: the load average at the start was {load}, above half \
             its {threads} hardware threads, so other work shared the CPUs and the times are \
             slower and less even than on a quiet machine."
        )
    })
}
