//! The machine description printed on top of the suite's output and stored
//! in its JSON.

use std::process::Command;

/// What the suite ran on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Machine {
    /// `std::thread::available_parallelism()`.
    pub threads: usize,
    /// `uname -m` (the compile-time architecture if `uname` is missing).
    pub arch: String,
    /// `uname -sr`, empty if unknown.
    pub os: String,
    /// The CPU model from `/proc/cpuinfo`, `unknown` if absent.
    pub cpu: String,
}

impl Machine {
    /// Reads the machine's description.
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Machine {
            threads: crate::cli::available_threads(),
            arch: command_output("uname", &["-m"])
                .unwrap_or_else(|| std::env::consts::ARCH.to_string()),
            os: command_output("uname", &["-sr"]).unwrap_or_default(),
            cpu: cpu_model(&cpuinfo).unwrap_or_else(|| "unknown".to_string()),
        }
    }

    /// One line for humans.
    pub fn describe(&self) -> String {
        format!(
            "machine: {} hardware threads (available parallelism), {}, {}{}",
            self.threads,
            self.arch,
            self.cpu,
            if self.os.is_empty() {
                String::new()
            } else {
                format!(", {}", self.os)
            }
        )
    }
}

/// The one-minute load average at the time of the call (the first field of
/// `/proc/loadavg`), `?` if it cannot be read: the benchmark tables print it
/// because the machine may be shared.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

fn command_output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The CPU model named in the text of `/proc/cpuinfo`: `model name` (x86),
/// else `Model`, `cpu model`, `Hardware` or `uarch` (other architectures).
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "Model", "cpu model", "Hardware", "uarch"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_model_from_cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Processor\n";
        assert_eq!(
            cpu_model(x86).as_deref(),
            Some("Intel(R) Xeon(R) Processor")
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nModel\t\t: Raspberry Pi 4\n";
        assert_eq!(cpu_model(arm).as_deref(), Some("Raspberry Pi 4"));
        assert_eq!(cpu_model("processor : 0\n"), None);
    }

    #[test]
    fn detects_something() {
        let m = Machine::detect();
        assert!(m.threads >= 1);
        assert!(!m.arch.is_empty());
        assert!(m.describe().contains(&m.arch));
    }

    #[test]
    fn json_round_trips() {
        let m = Machine {
            threads: 2,
            arch: "x86_64".into(),
            os: String::new(),
            cpu: "a \"quoted\" CPU".into(),
        };
        let back: Machine = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        assert!(serde_json::to_string(&m)
            .unwrap()
            .starts_with("{\"threads\":2,"));
    }
}
