//! A task that overflows its stack reserve aborts the process with a message
//! that names the reserve and `Params::stack_size`, instead of a bare
//! "Segmentation fault"; an analysed stack commitment is never the limit. The overflow is provoked in a child process (this
//! test binary, re-executed with an environment variable that selects the
//! child role), and the parent checks the signal and the message.

use prescient::analysis::{ContextAnalysis, ProgramAnalysis};
use prescient::{Params, Runtime};
use prescient_tests::test_path;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

const CHILD_ENV: &str = "PRESCIENT_TESTS_OVERFLOW_CHILD";
const STACK: usize = 64 << 10;

#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let local = std::hint::black_box([depth as u8; 512]);
    if std::hint::black_box(depth) == u64::MAX {
        return 0;
    }
    recurse(depth + 1) + u64::from(std::hint::black_box(local)[7])
}

#[inline(never)]
fn deep_joins(depth: u64) -> u64 {
    if std::hint::black_box(depth) == u64::MAX {
        return 0;
    }
    let (a, b) = prescient::join(|| deep_joins(depth + 1), || 1u64);
    a + b
}

/// An analysis whose only context estimates 16 KiB: its `params()` commit
/// the smallest stack, 16 KiB, far less than the recursion below uses.
const ANALYSED: ProgramAnalysis = ProgramAnalysis::new(
    "analysed",
    &[ContextAnalysis::new("f", 0, 0, 1, 16 << 10, &[])],
    &[],
);

/// Runs in the child: overflows a task stack of `STACK` bytes in the way the
/// child's role names.
fn child(role: &str) {
    if role == "ignored" {
        // The process ignored SIGSEGV before the runtime installed its
        // handler, and later receives a *sent* SIGSEGV (`raise`): the handler
        // must treat it as the previous disposition would (ignore it) and stay
        // installed for the overflow below.
        // SAFETY: setting a signal's disposition to SIG_IGN has no
        // preconditions; no other thread runs yet in this child.
        unsafe { libc::signal(libc::SIGSEGV, libc::SIG_IGN) };
    }
    let params = match role {
        "analysed" => ANALYSED
            .params(prescient::analysis::Trees::DEFAULT)
            .with_stack_size(STACK),
        _ => Params::DEFAULT.with_stack_size(STACK),
    };
    assert_eq!(params.stack_size, STACK);
    if role == "analysed" {
        assert_eq!(params.committed_stack_size, 16 << 10);
    }
    let rt = Runtime::builder()
        .params(params)
        .num_workers(2)
        .build()
        .unwrap();
    let r = match role {
        "recursion" | "analysed" => rt.run(|| recurse(0)),
        "joins" => rt.run(|| deep_joins(0)),
        // Overflow in a stolen/queued task, not the `run` closure itself.
        "spawned" => rt.run(|| prescient::spawn(|| recurse(0)).join()),
        "ignored" => {
            for _ in 0..2 {
                // SAFETY: `raise` has no preconditions.
                assert_eq!(unsafe { libc::raise(libc::SIGSEGV) }, 0);
            }
            rt.run(|| recurse(0))
        }
        other => panic!("unknown role {other}"),
    };
    println!("unreachable: {r}");
}

fn run_child(test: &str, role: &str) -> (Option<i32>, String) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--exact", &test_path(module_path!(), test)])
        .args(["--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, role)
        .output()
        .expect("re-execute the test binary");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.signal(), stderr)
}

fn check(test: &str, role: &str) -> String {
    if let Ok(role) = std::env::var(CHILD_ENV) {
        child(&role);
        return String::new();
    }
    let (signal, stderr) = run_child(test, role);
    assert_eq!(
        signal,
        Some(libc::SIGABRT),
        "{role}: the child did not abort; stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("task stack overflow"),
        "{role}: stderr:\n{stderr}"
    );
    assert!(
        stderr.contains(&STACK.to_string()),
        "{role}: stderr does not name {STACK}:\n{stderr}"
    );
    assert!(stderr.contains("stack_size"), "{role}: stderr:\n{stderr}");
    assert!(!stderr.contains("unreachable"), "{role}: stderr:\n{stderr}");
    stderr
}

#[test]
fn overflow_in_recursion_aborts_with_the_stack_size() {
    check(
        "overflow_in_recursion_aborts_with_the_stack_size",
        "recursion",
    );
}

/// An analysed commitment (16 KiB here) is not where a task stops: the
/// recursion runs through it and overflows only at the reserve, and the
/// message names the reserve and how to raise it.
#[test]
fn an_analysed_stack_overflows_at_its_reserve_not_its_estimate() {
    let stderr = check(
        "an_analysed_stack_overflows_at_its_reserve_not_its_estimate",
        "analysed",
    );
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    assert!(
        stderr.contains(&format!("its {STACK}-byte stack reserve")),
        "stderr:\n{stderr}"
    );
    assert!(!stderr.contains("16384"), "stderr:\n{stderr}");
    assert!(!stderr.contains("estimate"), "stderr:\n{stderr}");
}

/// The message says how to raise the reserve, both ways.
#[test]
fn overflow_message_says_how_to_raise_the_reserve() {
    let stderr = check(
        "overflow_message_says_how_to_raise_the_reserve",
        "recursion",
    );
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    assert!(
        stderr.contains("#[task_program(stack_size = ...)]"),
        "stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("Params::with_stack_size"),
        "stderr:\n{stderr}"
    );
    assert!(stderr.contains("up to 1 GiB"), "stderr:\n{stderr}");
}

#[test]
fn overflow_in_nested_joins_aborts_with_the_stack_size() {
    check(
        "overflow_in_nested_joins_aborts_with_the_stack_size",
        "joins",
    );
}

#[test]
fn overflow_in_a_spawned_task_aborts_with_the_stack_size() {
    check(
        "overflow_in_a_spawned_task_aborts_with_the_stack_size",
        "spawned",
    );
}

/// A sent `SIGSEGV` while the previous disposition is `SIG_IGN` is ignored,
/// and does not uninstall the handler: a later overflow is still reported.
#[test]
fn a_sent_sigsegv_under_sig_ign_keeps_the_overflow_handler() {
    check(
        "a_sent_sigsegv_under_sig_ign_keeps_the_overflow_handler",
        "ignored",
    );
}

/// A main-thread (not task) overflow is still std's business: the runtime's
/// handler chains to it, and the message is std's, not ours.
#[test]
fn overflow_on_a_plain_thread_is_not_reported_as_a_task_overflow() {
    const TEST: &str = "overflow_on_a_plain_thread_is_not_reported_as_a_task_overflow";
    if std::env::var(CHILD_ENV).is_ok() {
        // Install the runtime's handler first, then overflow a plain thread.
        let rt = Runtime::builder().num_workers(1).build().unwrap();
        rt.run(|| ());
        let t = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| recurse(0))
            .unwrap();
        println!("unreachable: {}", t.join().unwrap());
        return;
    }
    let (signal, stderr) = run_child(TEST, "plain");
    assert!(
        signal.is_some(),
        "the child did not die of a signal; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("task stack overflow"), "stderr:\n{stderr}");
    assert!(
        stderr.contains("has overflowed its stack"),
        "std's message is missing:\n{stderr}"
    );
}
