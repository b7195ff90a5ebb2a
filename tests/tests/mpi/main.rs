//! Runs the task-aware MPI checks (`src/bin/mpi-checks.rs`) under `mpirun`
//! with 2 and 4 ranks (oversubscribed on small hosts), and the shutdown
//! check, which must fail with its message. Needs `mpirun` on the PATH (Open
//! MPI; as root, the `OMPI_ALLOW_RUN_AS_ROOT` variables are set here).

use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::Duration;

fn mpirun(ranks: usize, args: &[&str]) -> Output {
    // One job at a time: the CPU check measures an idle runtime.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let output = prescient_tests::watchdog("mpirun", Duration::from_secs(600), || {
        Command::new("mpirun")
            .args(["--oversubscribe", "-np", &ranks.to_string()])
            .arg(env!("CARGO_BIN_EXE_mpi-checks"))
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .expect("mpirun (Open MPI) on the PATH")
    });
    println!("{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    output
}

#[test]
fn checks_pass_on_2_ranks() {
    let output = mpirun(2, &[]);
    assert!(output.status.success(), "mpirun -np 2 failed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("all checks passed").count(), 2);
}

#[test]
fn checks_pass_on_4_ranks() {
    let output = mpirun(4, &[]);
    assert!(output.status.success(), "mpirun -np 4 failed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("all checks passed").count(), 4);
}

#[test]
fn dropping_the_universe_with_a_pending_request_is_a_clear_error() {
    let output = mpirun(2, &["shutdown"]);
    assert!(!output.status.success(), "the shutdown check must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("request(s) are still waited for by suspended tasks"),
        "{stderr}"
    );
}
