//! The `mpi-heat` table: the distributed heat equation of the `heat_mpi`
//! example (`examples/mpi/heat.rs`) under `mpirun` at 1, 2 and 4 ranks,
//! in its four versions — bulk-synchronous with Prescient's fork-join,
//! blocking-mode tasks (`prescient::mpi::wait`), dataflow tasks with bound
//! requests (`prescient::mpi::bind`) and bulk-synchronous with rayon — with
//! the time per iteration and the fraction of the exchange each version
//! hides behind computation. [`Options`] documents what it prints; [`run`]
//! prints it.
//!
//! The example does the measuring (every rank has to take part); this table
//! launches it once per rank count with `--json`, reads the JSON object on
//! the last line of its output ([`HeatRun`]), and prints and records the
//! rows. The program is a separate executable because it needs an MPI
//! library at build time, which the other tables do not: the bundle
//! (`benches/bundle`) builds it beside `prescient-bench` where MPI is
//! installed, and the report skips this table, saying why, where the
//! program or `mpirun` is missing ([`unavailable`]).
//!
//! With `--link`, the table also runs the ranks over TCP on a loopback of
//! their own, unshaped or shaped to a rate, in a private network namespace
//! ([`link`]: what it sets up and why, and what the link model is): the
//! exchange then costs what it would between hosts, and what each version
//! hides becomes visible on one machine.
//!
//! The JSON (`--json FILE`) is a [`MpiHeatJson`]. Its `samples` hold, per
//! rank count and link (program `heat 1024x1024 x40, 2 ranks`, with `,
//! 100mbit` after it on a link row), the median time of a whole solve of
//! each version: runners `prescient-bsp`, `prescient-tasks`,
//! `prescient-dataflow` and `rayon`, at `threads` = ranks × workers.

pub mod link;

use crate::cli::{self, progress, CommonArgs, Size};
use crate::harness::load_average;
use crate::samples::{Sample, TableHead, RAYON};
use link::{Link, LinkStats, Tools};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "mpi-heat";

/// The example's executable name.
pub const PROGRAM: &str = "heat_mpi";

/// The distributed heat equation (`heat_mpi`) at 1, 2 and 4 ranks.
///
/// Launches `mpirun -np R heat_mpi --json ...` for each rank count R (on
/// this host unless `--mpirun-arg` says otherwise), with
/// W = max(1, T / R) workers per rank where T is the largest thread count
/// (the host's cores shared out among the ranks, as MPI+tasks programs run
/// one rank per node or socket). Where R × W exceeds the hardware threads
/// the ranks share cores (marked "oversubscribed"); times then include the
/// operating system's scheduling, and the exchange in particular.
///
/// Per version and rank count: the time per iteration (the slowest rank's,
/// the median of the rounds); the same without the exchange (the same
/// tasks and computation, no MPI call); their difference, the exchange the
/// version leaves *exposed*; the time the bulk-synchronous versions' main
/// thread waited in MPI; and the fraction of bulk-synchronous exchange a
/// version *hides*, `1 - exposed / exposed of bsp` (from 2 ranks). The
/// example checks every version against a sequential solve first.
///
/// Full size: a 2048×2048 grid, 100 iterations, 5 rounds; --quick:
/// 1024×1024, 40 iterations, 3 rounds; --test-size: 128×128, 8 iterations,
/// 1 round.
///
/// Links (`--link`, default `native,tcp,1gbit,100mbit`; at test size
/// `native,100mbit`): `native` is Open MPI's own choice of transport
/// (shared memory on one host; between hosts, the network: see
/// `--mpirun-arg`), at every rank count; `tcp` and a rate (`100mbit`, `1gbit`:
/// `tc`'s units, bits per second) run `mpirun` and the ranks in a private
/// network namespace, over TCP on its loopback, unshaped or shaped to that
/// rate by a token bucket (`tc ... tbf`), at the rank counts above 1. They
/// need root, `ip` and `tc`; without them those rows are skipped, saying
/// why. A link row's grid is 4096×2048 (full: 40 iterations; quick: 20;
/// test size: 128×128, 8): at 2 ranks the two 16 KiB halo rows of an
/// iteration then take 2.6 ms at 100 Mbit/s and 0.26 ms at 1 Gbit/s, against
/// some 3 ms of computation per rank of one worker on the 2-core machine
/// the table was sized on. The link is a rate with its
/// queue, shared by every rank pair and both directions, not a fixed delay
/// (the kernel here has tbf, not netem).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Rank counts (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "1,2,4",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub ranks: Vec<u32>,
    /// The `heat_mpi` executable (default: beside this one, as the bundle
    /// puts it, else in `examples/` beside it, as cargo does).
    #[arg(long, value_name = "PATH")]
    pub program: Option<PathBuf>,
    /// One more argument for `mpirun`, before its `-np` (repeat the flag
    /// for several): `--mpirun-arg=--hostfile --mpirun-arg=hosts` spreads
    /// the ranks over the hosts of a file.
    #[arg(long = "mpirun-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub mpirun_args: Vec<String>,
    /// Timed rounds per version, median of (default 5; quick 3; test size
    /// 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: Option<u64>,
    /// Links to run over (comma-separated): `native`, `tcp`, or a rate such
    /// as `100mbit` or `1gbit` (default `native,tcp,1gbit,100mbit`; test
    /// size `native,100mbit`).
    #[arg(long = "link", value_name = "LINK,...", value_delimiter = ',',
          value_parser = Link::parse)]
    pub links: Vec<Link>,
}

impl Options {
    /// Timed rounds: `--reps`, else the size's default.
    pub fn reps(&self) -> usize {
        match self.reps {
            Some(reps) => reps as usize,
            None => Sizes::of(self.common.size()).reps,
        }
    }

    /// The links: `--link`, else the size's default.
    pub fn links(&self) -> Vec<Link> {
        if !self.links.is_empty() {
            return self.links.clone();
        }
        let defaults: &[&str] = match self.common.size() {
            Size::Test => &["native", "100mbit"],
            _ => &["native", "tcp", "1gbit", "100mbit"],
        };
        defaults
            .iter()
            .map(|text| Link::parse(text).expect("the default links parse"))
            .collect()
    }
}

/// A grid and its iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Rows of the grid.
    pub rows: usize,
    /// Columns of the grid (a halo row is `cols` doubles).
    pub cols: usize,
    /// Jacobi iterations per solve.
    pub iterations: usize,
}

/// The grid of the link rows at full and quick size (see [`Options`]).
const LINK_GRID: Grid = Grid {
    rows: 4096,
    cols: 2048,
    iterations: 40,
};

/// The grids and rounds of one [`Size`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizes {
    /// Rows and columns of the square grid of the native rows.
    pub grid: usize,
    /// Jacobi iterations per solve on that grid.
    pub iterations: usize,
    /// The grid of the link rows (`tcp` and rates).
    pub link_grid: Grid,
    /// Timed rounds unless `--reps` says otherwise.
    pub reps: usize,
}

impl Sizes {
    /// The problem of `size`.
    pub fn of(size: Size) -> Sizes {
        match size {
            Size::Full => Sizes {
                grid: 2048,
                iterations: 100,
                link_grid: LINK_GRID,
                reps: 5,
            },
            Size::Quick => Sizes {
                grid: 1024,
                iterations: 40,
                link_grid: Grid {
                    iterations: 20,
                    ..LINK_GRID
                },
                reps: 3,
            },
            Size::Test => Sizes {
                grid: 128,
                iterations: 8,
                link_grid: Grid {
                    rows: 128,
                    cols: 128,
                    iterations: 8,
                },
                reps: 1,
            },
        }
    }
}

/// What the example prints with `--json`: one run at one rank count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatRun {
    /// Rows of the grid.
    pub rows: usize,
    /// Columns of the grid.
    pub cols: usize,
    /// Iterations per solve.
    pub iterations: usize,
    /// MPI ranks.
    pub ranks: usize,
    /// Workers (and rayon threads) per rank.
    pub workers: usize,
    /// Timed rounds.
    pub reps: usize,
    /// Every version, `bsp` first.
    pub versions: Vec<VersionTimes>,
    /// The host each rank ran on (`MPI_Get_processor_name`), in rank
    /// order; empty in results written before it was recorded.
    #[serde(default)]
    pub hosts: Vec<String>,
}

impl HeatRun {
    /// The distinct hosts, in rank order, each with its rank count
    /// (`node-a: 2, node-b: 2`).
    pub fn hosts_summary(&self) -> String {
        let mut hosts: Vec<(&str, usize)> = Vec::new();
        for host in &self.hosts {
            match hosts.iter_mut().find(|(name, _)| name == host) {
                Some((_, ranks)) => *ranks += 1,
                None => hosts.push((host, 1)),
            }
        }
        hosts
            .iter()
            .map(|(name, ranks)| format!("{name}: {ranks}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One version's times in a [`HeatRun`], in seconds per iteration: the
/// slowest rank's, the median over the rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionTimes {
    /// `bsp`, `tasks`, `dataflow` or `rayon`.
    pub version: String,
    /// With the halo exchange.
    pub seconds_per_iteration: f64,
    /// The same tasks and computation without the exchange.
    pub seconds_per_iteration_without_exchange: f64,
    /// Time the main thread waited in MPI (the bulk-synchronous versions;
    /// 0 for the others, whose tasks wait without a thread).
    pub mpi_wait_seconds_per_iteration: f64,
}

impl VersionTimes {
    /// The exchange time this version leaves exposed, per iteration.
    pub fn exposed(&self) -> f64 {
        self.seconds_per_iteration - self.seconds_per_iteration_without_exchange
    }
}

/// One row of the table: one version at one rank count over one link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MpiHeatRow {
    /// The link (`native`, `tcp` or a rate: see [`link`]).
    #[serde(default = "native")]
    pub link: String,
    /// What crossed the link's loopback in the whole run (link rows).
    #[serde(default)]
    pub link_stats: Option<LinkStats>,
    /// The grid's rows.
    #[serde(default)]
    pub rows: usize,
    /// The grid's columns.
    #[serde(default)]
    pub cols: usize,
    /// MPI ranks.
    pub ranks: usize,
    /// Workers per rank.
    pub workers: usize,
    /// Whether ranks × workers exceeds the hardware threads.
    pub oversubscribed: bool,
    /// The version's times.
    #[serde(flatten)]
    pub times: VersionTimes,
    /// Exposed exchange per iteration, in seconds (with − without).
    pub exposed_seconds_per_iteration: f64,
    /// `1 - exposed / exposed of bsp`, at 2 ranks or more where bsp's
    /// exposed exchange is positive.
    pub hidden: Option<f64>,
    /// Time per iteration over bsp's.
    pub vs_bsp: f64,
}

/// How many different hosts `hosts` names.
fn distinct_hosts(hosts: &[String]) -> usize {
    let mut seen: Vec<&String> = Vec::new();
    for host in hosts {
        if !seen.contains(&host) {
            seen.push(host);
        }
    }
    seen.len()
}

/// The link of rows recorded before links existed.
fn native() -> String {
    "native".into()
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MpiHeatJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// The grid's rows and columns.
    pub grid: usize,
    /// Iterations per solve.
    pub iterations: usize,
    /// Timed rounds per version (each time is the median).
    pub reps: usize,
    /// The one-minute load average at the start.
    pub load_average: String,
    /// Every row of the table.
    pub rows: Vec<MpiHeatRow>,
    /// The hosts of each run across several (`host: ranks, ...`), with its
    /// link and rank count; empty when every run stayed on one host.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Why the link rows (`tcp`, rates) were skipped, if they were.
    #[serde(default)]
    pub links_skipped: Option<String>,
}

/// The sample runner of a version of the example.
fn runner(version: &str) -> String {
    match version {
        "rayon" => RAYON.to_string(),
        other => format!("prescient-{other}"),
    }
}

/// The rows of one run: each version with its exposed exchange, the part
/// of bsp's it hides and its time over bsp's.
pub fn rows_of(run: &HeatRun, hardware_threads: usize) -> Vec<MpiHeatRow> {
    let bsp = run.versions.iter().find(|v| v.version == "bsp");
    let bsp_exposed = bsp.map_or(0.0, VersionTimes::exposed);
    let bsp_time = bsp.map_or(f64::NAN, |v| v.seconds_per_iteration);
    run.versions
        .iter()
        .map(|times| MpiHeatRow {
            link: native(),
            link_stats: None,
            rows: run.rows,
            cols: run.cols,
            ranks: run.ranks,
            workers: run.workers,
            oversubscribed: run.ranks * run.workers > hardware_threads,
            times: times.clone(),
            exposed_seconds_per_iteration: times.exposed(),
            hidden: (run.ranks > 1 && bsp_exposed > 0.0)
                .then(|| 1.0 - times.exposed() / bsp_exposed),
            vs_bsp: times.seconds_per_iteration / bsp_time,
        })
        .collect()
}

/// Why the table cannot run without `mpirun`.
const NO_MPIRUN: &str = "needs `mpirun` on the PATH (an MPI implementation, e.g. Open MPI)";

/// The `heat_mpi` executable for a `prescient-bench` at `exe`: beside it
/// (the bundle), else in `examples/` beside it (cargo's target folder).
pub fn find_program(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    [dir.join(PROGRAM), dir.join("examples").join(PROGRAM)]
        .into_iter()
        .find(|path| path.is_file())
}

/// `mpirun` on the `PATH`, if there is one.
pub fn find_mpirun() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("mpirun"))
        .find(|candidate| candidate.is_file())
}

/// Why the table cannot run for a `prescient-bench` at `exe`, if it
/// cannot: no `heat_mpi` beside it, or no `mpirun` on the `PATH`.
pub fn unavailable(exe: &Path) -> Option<String> {
    if find_program(exe).is_none() {
        return Some(format!(
            "needs the `{PROGRAM}` example beside this binary, built with MPI installed \
             (`benches/bundle` builds it where `mpicc` is found; or `cargo build --release \
             -p prescient-examples --features mpi --example {PROGRAM}` and pass --program)"
        ));
    }
    if find_mpirun().is_none() {
        return Some(NO_MPIRUN.into());
    }
    None
}

/// What every run of the table shares.
struct Launcher<'a> {
    mpirun: &'a Path,
    /// `--mpirun-arg`s.
    mpirun_args: &'a [String],
    program: &'a Path,
    /// The namespace tools, where link rows can run.
    tools: Option<&'a Tools>,
    reps: usize,
}

impl Launcher<'_> {
    /// Runs the example at `ranks` ranks × `workers` workers on `grid`
    /// over `link`, and reads its JSON line (and, over a namespaced link,
    /// the loopback's counters).
    fn launch(
        &self,
        link: &Link,
        grid: Grid,
        ranks: usize,
        workers: usize,
    ) -> Result<(HeatRun, Option<LinkStats>), String> {
        // Ranks may outnumber cores on a small host, and every rank runs
        // several threads: binding a rank to one core (Open MPI's default
        // for two ranks or fewer) would put all its workers on that core.
        // An `--mpirun-arg=--bind-to` of the user's (several ranks per host
        // across hosts: one per socket) replaces ours.
        let mut args = vec!["--oversubscribe".to_string()];
        if !self
            .mpirun_args
            .iter()
            .any(|arg| arg.starts_with("--bind-to"))
        {
            args.extend(["--bind-to".to_string(), "none".to_string()]);
        }
        if link.needs_namespace() {
            args.extend(link::OPEN_MPI_TCP.map(String::from));
        }
        args.extend(self.mpirun_args.iter().cloned());
        args.extend(["-np".into(), ranks.to_string()]);
        args.push(self.program.display().to_string());
        for (flag, value) in [
            ("--rows", grid.rows),
            ("--cols", grid.cols),
            ("--iterations", grid.iterations),
            ("--workers", workers),
            ("--reps", self.reps),
        ] {
            args.extend([flag.to_string(), value.to_string()]);
        }
        args.push("--json".into());
        let mut command = match (link.needs_namespace(), self.tools) {
            (false, _) => {
                let mut command = Command::new(self.mpirun);
                command.args(&args);
                command
            }
            (true, Some(tools)) => tools.in_namespace(link, self.mpirun, &args),
            (true, None) => return Err(format!("the link {link} needs a network namespace")),
        };
        // SAFETY: `geteuid` reads the process's effective user id; it has no
        // preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            // Open MPI refuses to start as root unless told it may: a
            // benchmark host borrowed as root (a container) is the common
            // case.
            for variable in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] {
                if std::env::var_os(variable).is_none() {
                    command.env(variable, "1");
                }
            }
        }
        let what = format!(
            "`mpirun -np {ranks} {}` over {link}",
            self.program.display()
        );
        let output = command
            .output()
            .map_err(|e| format!("could not start {what}: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "{what} failed ({}):\n{}",
                output.status,
                tail.join("\n")
            ));
        }
        let run = parse_run(&stdout)
            .ok_or_else(|| format!("{what} printed no JSON result; its output:\n{stdout}"))?;
        let stats = link
            .needs_namespace()
            .then(|| link::parse_stats(&stdout))
            .flatten();
        Ok((run, stats))
    }
}

/// The [`HeatRun`] on the last line of the example's output that is one.
pub fn parse_run(stdout: &str) -> Option<HeatRun> {
    stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line.trim()).ok())
}

/// Formats seconds as milliseconds.
fn ms(seconds: f64) -> String {
    format!("{:.3}", seconds * 1e3)
}

/// Prints one row.
fn print_row(row: &MpiHeatRow) {
    let times = &row.times;
    let waits = matches!(times.version.as_str(), "bsp" | "rayon");
    println!(
        "| {:<7} | {:>5} | {:>7}{} | {:<8} | {:>8} | {:>10} | {:>8} | {:>8} | {:>6} | {:>5.2} |",
        row.link,
        row.ranks,
        row.workers,
        if row.oversubscribed { "*" } else { " " },
        times.version,
        ms(times.seconds_per_iteration),
        ms(times.seconds_per_iteration_without_exchange),
        ms(row.exposed_seconds_per_iteration),
        if waits {
            ms(times.mpi_wait_seconds_per_iteration)
        } else {
            "-".to_string()
        },
        row.hidden
            .map_or("-".to_string(), |h| format!("{:.0} %", 100.0 * h)),
        row.vs_bsp,
    );
}

/// The runs of the table: each link with the rank counts it runs at (a
/// namespaced link only above one rank: one rank exchanges nothing) and
/// its grid.
fn plan(links: &[Link], ranks: &[u32], sizes: Sizes) -> Vec<(Link, usize, Grid)> {
    let mut runs = Vec::new();
    for link in links {
        let grid = if link.needs_namespace() {
            sizes.link_grid
        } else {
            Grid {
                rows: sizes.grid,
                cols: sizes.grid,
                iterations: sizes.iterations,
            }
        };
        for &ranks in ranks {
            if ranks > 1 || !link.needs_namespace() {
                runs.push((link.clone(), ranks as usize, grid));
            }
        }
    }
    runs
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list, no `heat_mpi` or `mpirun`, a run of the example that
/// fails (a version that differs from the sequential solve fails it), or a
/// JSON file that cannot be written.
pub fn run(options: &Options) -> Result<(), String> {
    let size = options.common.size();
    let sizes = Sizes::of(size);
    let threads = options.common.threads()?;
    let reps = options.reps();
    let exe = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
    let program = match &options.program {
        Some(program) => program.clone(),
        None => find_program(&exe).ok_or_else(|| unavailable(&exe).unwrap_or_default())?,
    };
    let mpirun = find_mpirun().ok_or(NO_MPIRUN)?;
    let hardware_threads = cli::available_threads();
    let total = threads.iter().copied().max().unwrap_or(1);
    let load = load_average();
    let mut links = options.links();
    // The namespace tools, looked for only if a link needs them; without
    // them those links are dropped, saying why.
    let mut links_skipped = None;
    let tools = if links.iter().any(Link::needs_namespace) {
        match Tools::find() {
            Ok(tools) => Some(tools),
            Err(why) => {
                let names: Vec<String> = links
                    .iter()
                    .filter(|l| l.needs_namespace())
                    .map(ToString::to_string)
                    .collect();
                let why = format!("links {} skipped: {why}", names.join(", "));
                progress(&why);
                links.retain(|link| !link.needs_namespace());
                links_skipped = Some(why);
                None
            }
        }
    } else {
        None
    };
    let lg = sizes.link_grid;
    println!(
        "### Distributed heat equation under MPI: Jacobi on a {g}x{g} grid, {it} iterations \
         (link rows: {lr}x{lc}, {lit} iterations) ({} size; median of {reps} rounds, slowest \
         rank; {hardware_threads} hardware threads shared by the ranks: {total} threads; load \
         average {load} at start)\n",
        size.name(),
        g = sizes.grid,
        it = sizes.iterations,
        lr = lg.rows,
        lc = lg.cols,
        lit = lg.iterations,
    );
    println!(
        "versions: bsp = exchange (MPI waits on the main thread), then a fork-join compute phase \
         (scope tasks); tasks = the scope body posts the exchange, spawns the interior rows' \
         tasks and waits with prescient::mpi::wait_all (suspending) while they compute; \
         dataflow = every iteration submitted at once, receives bound to their tasks \
         (prescient::mpi::bind), each edge block's task sending the row it computed; rayon = bsp \
         with rayon. \
         link: native = Open MPI's own transport (shared memory on one host); tcp = TCP over the loopback \
         of a private network namespace; a rate = that loopback shaped by a token bucket (tc \
         tbf: a rate and its queue, shared by all ranks and both directions; no fixed delay). \
         ms/it: per iteration; no exch: the same without the exchange; exposed: their \
         difference; MPI wait: the bulk-synchronous main thread's; hidden: 1 - exposed / bsp's \
         exposed; /bsp: time over bsp's. * = ranks x workers exceed the hardware threads \
         (oversubscribed).\n"
    );
    if let Some(why) = &links_skipped {
        println!("{why}\n");
    }
    println!(
        "| {:<7} | {:>5} | {:>8} | {:<8} | {:>8} | {:>10} | {:>8} | {:>8} | {:>6} | {:>5} |",
        "link",
        "ranks",
        "workers",
        "version",
        "ms/it",
        "no exch",
        "exposed",
        "MPI wait",
        "hidden",
        "/bsp"
    );
    println!(
        "|{:-<9}|{:->6}:|{:->9}:|{:-<10}|{:->9}:|{:->11}:|{:->9}:|{:->9}:|{:->7}:|{:->6}:|",
        "", "", "", "", "", "", "", "", "", ""
    );
    let launcher = Launcher {
        mpirun: &mpirun,
        mpirun_args: &options.mpirun_args,
        program: &program,
        tools: tools.as_ref(),
        reps,
    };
    let mut head = TableHead::new(TABLE, size, &threads);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut hosts = Vec::new();
    for (link, ranks, grid) in plan(&links, &options.ranks, sizes) {
        let workers = (total / ranks).max(1);
        progress(format!(
            "{TABLE}: {ranks} ranks x {workers} workers, {}x{}, over {link}",
            grid.rows, grid.cols
        ));
        let (run, stats) = launcher.launch(&link, grid, ranks, workers)?;
        let mut program_name = format!(
            "heat {}x{} x{}, {} ranks",
            run.rows, run.cols, run.iterations, run.ranks
        );
        if link.needs_namespace() {
            program_name.push_str(&format!(", {link}"));
        }
        if let Some(stats) = &stats {
            notes.push(format!(
                "{link}, {ranks} ranks: {:.1} MiB crossed the loopback, {} packets dropped",
                stats.bytes as f64 / (1 << 20) as f64,
                stats.dropped
            ));
        }
        // Across hosts, each brings its threads (assumed as many as this
        // one's) to the oversubscription mark.
        let host_count = distinct_hosts(&run.hosts).max(1);
        if host_count > 1 {
            hosts.push(format!("{link}, {ranks} ranks: {}", run.hosts_summary()));
        }
        for mut row in rows_of(&run, hardware_threads * host_count) {
            row.link = link.to_string();
            row.link_stats = stats.clone();
            print_row(&row);
            head.samples.push(Sample::new(
                program_name.clone(),
                runner(&row.times.version),
                ranks * workers,
                row.times.seconds_per_iteration * run.iterations as f64,
            ));
            rows.push(row);
        }
    }
    println!();
    for note in &notes {
        println!("{note}");
    }
    for line in &hosts {
        println!("hosts ({line})");
    }
    if !notes.is_empty() || !hosts.is_empty() {
        println!();
    }
    if options.common.json.is_some() {
        options.common.write_json(&MpiHeatJson {
            head,
            grid: sizes.grid,
            iterations: sizes.iterations,
            reps,
            load_average: load,
            rows,
            hosts,
            links_skipped,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Options, clap::Error> {
        crate::cli::parse_words(TABLE, s.split_whitespace())
    }

    #[test]
    fn flags() {
        let o = parse("").unwrap();
        assert_eq!((o.common.size(), o.reps()), (Size::Full, 5));
        assert_eq!(o.ranks, vec![1, 2, 4]);
        let o = parse("--quick --ranks 2,8 --program /x/heat").unwrap();
        assert_eq!(
            (o.common.size(), o.reps(), o.ranks),
            (Size::Quick, 3, vec![2, 8])
        );
        assert_eq!(o.program, Some(PathBuf::from("/x/heat")));
        let o = parse("--mpirun-arg=--hostfile --mpirun-arg hosts").unwrap();
        assert_eq!(o.mpirun_args, ["--hostfile", "hosts"]);
        for bad in [
            "--ranks 0",
            "--reps 0",
            "--bogus",
            "--link 100mbps",
            "--link x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let names = |o: &Options| {
            o.links()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&parse("").unwrap()),
            ["native", "tcp", "1gbit", "100mbit"]
        );
        assert_eq!(names(&parse("--test-size").unwrap()), ["native", "100mbit"]);
        assert_eq!(
            names(&parse("--link tcp,10Mbit").unwrap()),
            ["tcp", "10mbit"]
        );
    }

    #[test]
    fn link_rows_run_above_one_rank_on_their_own_grid() {
        let links: Vec<Link> = ["native", "100mbit"]
            .map(|l| Link::parse(l).unwrap())
            .to_vec();
        let sizes = Sizes::of(Size::Quick);
        let runs = plan(&links, &[1, 2, 4], sizes);
        let shape: Vec<(String, usize, usize)> = runs
            .iter()
            .map(|(link, ranks, grid)| (link.to_string(), *ranks, grid.rows))
            .collect();
        assert_eq!(
            shape,
            [
                ("native".to_string(), 1, 1024),
                ("native".to_string(), 2, 1024),
                ("native".to_string(), 4, 1024),
                ("100mbit".to_string(), 2, sizes.link_grid.rows),
                ("100mbit".to_string(), 4, sizes.link_grid.rows),
            ]
        );
    }

    #[test]
    fn hosts_are_summarised_in_rank_order() {
        let run = run_of(3, Vec::new());
        assert_eq!(run.hosts_summary(), "a: 2, b: 1");
        // Results written before hosts were recorded still load.
        let old =
            r#"{"rows":1,"cols":1,"iterations":1,"ranks":1,"workers":1,"reps":1,"versions":[]}"#;
        assert!(serde_json::from_str::<HeatRun>(old)
            .unwrap()
            .hosts
            .is_empty());
    }

    fn times(version: &str, with: f64, without: f64) -> VersionTimes {
        VersionTimes {
            version: version.into(),
            seconds_per_iteration: with,
            seconds_per_iteration_without_exchange: without,
            mpi_wait_seconds_per_iteration: 0.0,
        }
    }

    fn run_of(ranks: usize, versions: Vec<VersionTimes>) -> HeatRun {
        HeatRun {
            rows: 64,
            cols: 64,
            iterations: 4,
            ranks,
            workers: 2,
            reps: 1,
            versions,
            hosts: vec!["a".into(), "b".into(), "a".into()],
        }
    }

    #[test]
    fn hidden_is_the_part_of_bsp_exposed_exchange_a_version_saves() {
        let run = run_of(
            2,
            vec![
                times("bsp", 1.0, 0.8),
                times("dataflow", 0.95, 0.9),
                times("tasks", 1.1, 0.8),
            ],
        );
        let rows = rows_of(&run, 4);
        let hidden: Vec<f64> = rows.iter().map(|r| r.hidden.unwrap()).collect();
        // bsp exposes 0.2; dataflow 0.05 (hides 75 %); tasks 0.3 (-50 %).
        for (got, want) in hidden.iter().zip([0.0, 0.75, -0.5]) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!((rows[1].vs_bsp - 0.95).abs() < 1e-9);
        assert!(!rows[0].oversubscribed);
        assert!(rows_of(&run, 3)[0].oversubscribed);
        // One rank exchanges nothing: nothing to hide.
        let one = rows_of(&run_of(1, vec![times("bsp", 1.0, 0.99)]), 4);
        assert_eq!(one[0].hidden, None);
    }

    #[test]
    fn the_json_line_is_found_after_the_text() {
        let run = run_of(2, vec![times("bsp", 1e-3, 9e-4)]);
        let text = format!(
            "heat 64x64, 4 iterations\nversion ms/iteration\nbsp 1.000\n{}\n",
            serde_json::to_string(&run).unwrap()
        );
        assert_eq!(parse_run(&text), Some(run));
        assert_eq!(parse_run("no json here\n"), None);
    }

    #[test]
    fn a_missing_program_is_reported_not_run() {
        let why = unavailable(Path::new("/nonexistent/prescient-bench")).unwrap();
        assert!(why.contains(PROGRAM), "{why}");
        assert_eq!(
            find_program(Path::new("/nonexistent/prescient-bench")),
            None
        );
    }

    #[test]
    fn json_round_trips() {
        let run = run_of(2, vec![times("bsp", 1e-3, 9e-4)]);
        let json = MpiHeatJson {
            head: TableHead::new(TABLE, Size::Test, &[1, 2]),
            grid: 64,
            iterations: 4,
            reps: 1,
            load_average: "0.5".into(),
            rows: rows_of(&run, 2),
            hosts: Vec::new(),
            links_skipped: None,
        };
        let text = serde_json::to_string(&json).unwrap();
        assert!(text.contains("\"table\":\"mpi-heat\"") && text.contains("\"samples\""));
        let back: MpiHeatJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back.rows, json.rows);
    }
}
