//! `prescient-bench publish DIR`: puts a report into the repository's
//! documents — its headline between the `<!-- headline:start -->` and
//! `<!-- headline:end -->` markers of `README.md`, and the whole report
//! between `<!-- report:start -->` and `<!-- report:end -->` of
//! `docs/RESULTS.md`, its links rewritten to point into the report's
//! folder — so that both documents come from one report and say which.

use std::path::{Path, PathBuf};

use super::headline;
use super::ReportJson;

/// Puts the report in a folder into the repository's README and
/// `docs/RESULTS.md`.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The report's folder (with report.md and report.json).
    #[arg(value_name = "DIR")]
    pub report: PathBuf,
    /// The repository's root (default: the checkout this was built in).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Publish a report measured on a loaded machine (load average above
    /// half the hardware threads at its start) too; its headline says so.
    #[arg(long)]
    pub allow_loaded: bool,
}

/// Replaces what lies between the lines `<!-- {name}:start -->` and
/// `<!-- {name}:end -->` of `document` with `content`.
///
/// # Errors
/// If either marker is missing or they are out of order.
pub fn replace_between(document: &str, name: &str, content: &str) -> Result<String, String> {
    let start = format!("<!-- {name}:start -->");
    let end = format!("<!-- {name}:end -->");
    let (Some(i), Some(j)) = (document.find(&start), document.find(&end)) else {
        return Err(format!("the markers `{start}` and `{end}` are missing"));
    };
    if j < i {
        return Err(format!("`{end}` comes before `{start}`"));
    }
    let before = &document[..i + start.len()];
    let after = &document[j..];
    Ok(format!("{before}\n{}\n{after}", content.trim_end()))
}

/// Rewrites the relative links `](file)` of a report's Markdown so that
/// they resolve from `docs/` (`prefix` is the folder's path relative to
/// `docs/`), and demotes its headings one level.
pub fn relocate(report_md: &str, prefix: &str) -> String {
    let mut out = String::new();
    for line in report_md.lines() {
        let line = if line.starts_with('#') {
            format!("#{line}")
        } else {
            line.to_string()
        };
        let mut rest = line.as_str();
        let mut rewritten = String::new();
        while let Some(k) = rest.find("](") {
            rewritten.push_str(&rest[..k + 2]);
            rest = &rest[k + 2..];
            let relative =
                !rest.starts_with('#') && !rest.starts_with("http") && !rest.starts_with('/');
            if relative {
                rewritten.push_str(prefix);
                rewritten.push('/');
            }
        }
        rewritten.push_str(rest);
        out.push_str(&rewritten);
        out.push('\n');
    }
    out
}

/// The README's headline section of `report` (in folder `folder`, relative
/// to the repository's root).
pub fn headline_section(report: &ReportJson, folder: &str) -> String {
    format!(
        "On **{host}** ({machine}), {date}{competing}, build {commit}; the whole report is in \
         [`{folder}`]({folder}/report.md).\n\n{loaded}{table}",
        host = report.host,
        machine = report.machine.describe().trim_start_matches("machine: "),
        date = report.date,
        // A loaded run says so wherever its numbers are quoted.
        loaded = loaded_note(report).map_or_else(String::new, |note| format!("{note}\n\n")),
        competing = if report.competing > 0 {
            format!(
                ", beside {} competing busy process(es) during fork-join and dataflow",
                report.competing
            )
        } else {
            String::new()
        },
        commit = report.build.commit,
        table = headline::render(&report.headline)
            + &match headline::render_peer_means(&report.peer_ratios) {
                means if means.is_empty() => String::new(),
                means => format!("\n{means}"),
            },
    )
}

/// What the report says of its machine's load, if it was loaded.
fn loaded_note(report: &ReportJson) -> Option<String> {
    super::markdown::loaded(report.load_average.as_deref()?, report.machine.threads)
}

/// Runs `publish`.
///
/// # Errors
/// A report or document that cannot be read or written, or missing markers.
pub fn run(options: &Options) -> Result<(), String> {
    let repo = options
        .repo
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let repo = repo
        .canonicalize()
        .map_err(|e| format!("{}: {e}", repo.display()))?;
    let folder = options
        .report
        .canonicalize()
        .map_err(|e| format!("{}: {e}", options.report.display()))?;
    let relative = folder
        .strip_prefix(&repo)
        .map_err(|_| {
            format!(
                "{} is not inside the repository {}",
                folder.display(),
                repo.display()
            )
        })?
        .to_string_lossy()
        .into_owned();
    let read =
        |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    let report: ReportJson = serde_json::from_str(&read(&folder.join("report.json"))?)
        .map_err(|e| format!("report.json: {e}"))?;
    let report_md = read(&folder.join("report.md"))?;
    if let (Some(note), false) = (loaded_note(&report), options.allow_loaded) {
        return Err(format!(
            "not published: {note} Measure again on a quiet machine, or publish it anyway \
             with --allow-loaded (the headline then says so)"
        ));
    }

    let readme_path = repo.join("README.md");
    let readme = replace_between(
        &read(&readme_path)?,
        "headline",
        &headline_section(&report, &relative),
    )?;
    std::fs::write(&readme_path, readme).map_err(|e| format!("{}: {e}", readme_path.display()))?;

    let results_path = repo.join("docs/RESULTS.md");
    let results = replace_between(
        &read(&results_path)?,
        "report",
        &relocate(&report_md, &format!("../{relative}")),
    )?;
    std::fs::write(&results_path, results)
        .map_err(|e| format!("{}: {e}", results_path.display()))?;
    println!("published {relative} into README.md and docs/RESULTS.md");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_goes_between_the_markers() {
        let doc = "a\n<!-- x:start -->\nold\n<!-- x:end -->\nb\n";
        assert_eq!(
            replace_between(doc, "x", "new\n").unwrap(),
            "a\n<!-- x:start -->\nnew\n<!-- x:end -->\nb\n"
        );
        assert!(replace_between("a", "x", "new").is_err());
        assert!(replace_between("<!-- x:end --><!-- x:start -->", "x", "new").is_err());
    }

    #[test]
    fn links_and_headings_move() {
        let md = "# Title\n![plot](a.svg) and [t](#t) and [w](https://x)\n";
        assert_eq!(
            relocate(md, "../benches/results/h/d"),
            "## Title\n![plot](../benches/results/h/d/a.svg) and [t](#t) and [w](https://x)\n"
        );
    }

    #[test]
    fn a_loaded_report_says_so_in_the_headline() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("results/vm-2t/2026-11-26/report.json");
        let text = std::fs::read_to_string(path).unwrap();
        let mut report: ReportJson = serde_json::from_str(&text).unwrap();
        assert!(!headline_section(&report, "f").contains("competing"));
        report.load_average = Some(format!("{}", report.machine.threads));
        assert!(headline_section(&report, "f").contains("loaded machine"));
        report.load_average = None;
        report.competing = 1;
        let loaded = headline_section(&report, "f");
        assert!(
            loaded.contains(", beside 1 competing busy process(es) during fork-join and dataflow,"),
            "{loaded}"
        );
    }
}
