//! `--competing N` end to end: the fork-join and dataflow tables run beside
//! N busy processes (`prescient-bench burn`) at the test size, say so in
//! their header and JSON, and leave no competitor behind, whether they end
//! on their own or are killed with `SIGKILL`.
//!
//! Competitors are found through `/proc`: a process whose command line is
//! `.../prescient-bench burn`, and which either carries this test's marker
//! in its environment (every table runs with a marker of its own, which
//! its competitors inherit, so that tests running side by side tell their
//! competitors apart) or whose parent is this test process.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_prescient-bench");
/// The environment variable that marks a test's table and its competitors.
const MARK: &str = "PRESCIENT_COMPETING_TEST_MARK";

/// A competing process seen in `/proc`.
#[derive(Debug)]
struct Burner {
    pid: u32,
    parent: u32,
}

/// The marker of the test `name` in this test process.
fn marker(name: &str) -> String {
    format!("{name}-{}", std::process::id())
}

/// The competitors of the test with `marker`, and any whose parent is this
/// test process.
fn burners(marker: &str) -> Vec<Burner> {
    let mark = format!("{MARK}={marker}");
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let dir = entry.path();
        // A process may end between the listing and the read: skip it.
        let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        let is_burner = args.len() >= 2
            && args[0].ends_with(b"prescient-bench")
            && args[1] == b"burn".as_slice();
        if !is_burner {
            continue;
        }
        let parent = parent_of(pid).unwrap_or(0);
        let marked = std::fs::read(dir.join("environ"))
            .map(|env| env.split(|&b| b == 0).any(|var| var == mark.as_bytes()))
            .unwrap_or(false);
        if marked || parent == me {
            found.push(Burner { pid, parent });
        }
    }
    found
}

/// The parent of `pid` (the fourth field of `/proc/PID/stat`, after the
/// command name in parentheses, which may itself hold spaces).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` still runs: it exists and is not a zombie (one that ends
/// with no parent to reap it is reaped by init, or by a subreaper that may
/// take its time; a zombie burns nothing).
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|close| stat[close + 1..].split_whitespace().next());
    state.is_some_and(|state| state != "Z")
}

/// The CPU time `pid` has used, in clock ticks (user + system).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(close) = stat.rfind(')') else {
        return 0;
    };
    // After the name: state, ppid, ..., utime is field 14 and stime 15 of
    // the whole line, so the 12th and 13th after the name.
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// Waits up to `limit` for `done` to hold, checking every 20 ms.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// `prescient-bench TABLE args...` with the test's marker, stdout and
/// stderr piped.
fn spawn_table(marker: &str, table: &str, args: &[&str]) -> Child {
    Command::new(EXE)
        .arg(table)
        .args(args)
        .env(MARK, marker)
        .env_remove("PRESCIENT_BENCH_THREADS")
        .env_remove("PRESCIENT_BENCH_DAST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prescient-bench starts")
}

/// Runs a table to its end while watching its competitors; returns its
/// stdout and the most competitors seen at once with the table as their
/// parent.
fn run_watched(marker: &str, table: &str, args: &[&str]) -> (String, usize) {
    let mut child = spawn_table(marker, table, args);
    let pid = child.id();
    // Read the pipes on their own threads, so that a full pipe cannot stall
    // the table while this thread watches /proc.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut most = 0;
    let status = loop {
        let seen = burners(marker).iter().filter(|b| b.parent == pid).count();
        most = most.max(seen);
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "{table}: {status}\n{stdout}\n{stderr}");
    (stdout, most)
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("prescient-competing-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn competing_of(json: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(json).expect("the JSON is written");
    let value: serde_json::Value = serde_json::from_str(&text).expect("the JSON parses");
    value["competing"]
        .as_u64()
        .expect("the JSON has `competing`")
}

#[test]
fn fork_join_measures_beside_its_competitors_and_leaves_none() {
    let mark = marker("fork-join");
    let dir = scratch("fork-join");
    let json = dir.join("fork-join.json");
    let (stdout, most) = run_watched(
        &mark,
        "fork-join",
        &[
            "--test-size",
            "--competing",
            "2",
            "--threads",
            "1,2",
            "--only",
            "fib,tree1k",
            "--runners",
            "seq,prescient-default,rayon",
            "--no-idle",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    // Started by the table itself, the parent of every measuring child.
    assert_eq!(most, 2, "competitors seen at once");
    assert!(stdout.contains("competing busy processes: 2\n"), "{stdout}");
    assert!(!stdout.contains("FAILED"), "{stdout}");
    assert_eq!(competing_of(&json), 2);
    // Killed and reaped before the table exits: none left, not even a
    // zombie.
    let left = burners(&mark);
    assert!(left.is_empty(), "stray competitors: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dataflow_measures_beside_its_competitors_and_leaves_none() {
    let mark = marker("dataflow");
    let dir = scratch("dataflow");
    let json = dir.join("dataflow.json");
    let (stdout, most) = run_watched(
        &mark,
        "dataflow",
        &[
            "--test-size",
            "--competing",
            "2",
            "--threads",
            "1,2",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert_eq!(most, 2, "competitors seen at once");
    assert!(stdout.contains("competing busy processes: 2\n"), "{stdout}");
    assert_eq!(competing_of(&json), 2);
    let left = burners(&mark);
    assert!(left.is_empty(), "stray competitors: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_quiet_table_starts_no_competitor() {
    let mark = marker("quiet");
    let dir = scratch("quiet");
    let json = dir.join("dataflow.json");
    let (stdout, most) = run_watched(
        &mark,
        "dataflow",
        &[
            "--test-size",
            "--threads",
            "1",
            "--only",
            "matmul",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert_eq!(most, 0);
    assert!(stdout.contains("competing busy processes: 0\n"), "{stdout}");
    assert_eq!(competing_of(&json), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_table_takes_its_competitors_with_it() {
    let mark = marker("killed");
    // The quick size runs for a minute or more: long enough to be killed
    // in the middle.
    let mut table = spawn_table(
        &mark,
        "dataflow",
        &["--quick", "--competing", "2", "--threads", "1,2"],
    );
    let pid = table.id();
    assert!(
        wait_for(Duration::from_secs(30), || {
            burners(&mark).iter().filter(|b| b.parent == pid).count() == 2
        }),
        "the table started no competitors: {:?}",
        burners(&mark)
    );
    let started: Vec<u32> = burners(&mark).iter().map(|b| b.pid).collect();
    // SIGKILL: no destructor runs; the kernel closes the table's end of
    // every competitor's stdin, and each reads end of file.
    table.kill().unwrap();
    table.wait().unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || burners(&mark).is_empty()
            && started.iter().all(|&pid| !alive(pid))),
        "competitors outlived their table: {:?}",
        burners(&mark)
    );
}

#[test]
fn burn_is_hidden_spins_and_ends_at_the_end_of_its_stdin() {
    let help = Command::new(EXE).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.status.success() && text.contains("fork-join"),
        "{text}"
    );
    assert!(!text.contains("burn"), "{text}");

    let mark = marker("burn");
    let mut burner = Command::new(EXE)
        .arg("burn")
        .env(MARK, &mark)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = burner.id();
    // It burns CPU time (a tick is 10 ms at the usual 100 Hz).
    assert!(
        wait_for(Duration::from_secs(10), || cpu_ticks(pid) >= 5),
        "the competitor used {} ticks",
        cpu_ticks(pid)
    );
    assert_eq!(burners(&mark).len(), 1);
    // Input is ignored; only the end of it ends the process.
    let mut stdin = burner.stdin.take().unwrap();
    stdin.write_all(b"ignored\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(burner.try_wait().unwrap().is_none(), "it ended on input");
    drop(stdin);
    assert!(
        wait_for(Duration::from_secs(10), || burner
            .try_wait()
            .unwrap()
            .is_some()),
        "it did not end at the end of its stdin"
    );
    assert!(burner.wait().unwrap().success());
    assert!(burners(&mark).is_empty());
}
