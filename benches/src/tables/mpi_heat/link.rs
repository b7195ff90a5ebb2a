//! The links the `mpi-heat` table runs the ranks over (`--link`): Open MPI's
//! own choice on one host (shared memory), and TCP over the loopback of a
//! private network namespace, unshaped or shaped to a rate.
//!
//! # The namespace
//! A shaped row launches `sh` in a network namespace of its own: the child
//! calls `unshare(CLONE_NEWNET)` between `fork` and `exec`, so the
//! namespace is anonymous and exists exactly as long as a process in it
//! does — `sh`, `mpirun` and the ranks. It needs no name (parallel runs
//! cannot collide), nothing outside it changes (the host's interfaces and
//! queueing disciplines are not touched), and it disappears when the run
//! ends however it ends: success, failure, Ctrl-C or `kill -9`, with no
//! cleanup step that could be skipped (a named `ip netns add` namespace
//! would outlive a killed table). Inside it the script brings the loopback
//! up with a 1,500-byte MTU, as on an Ethernet NIC (with the loopback's
//! default 64 KiB MTU a packet can exceed the bucket below, and tbf never
//! sends it: Open MPI then fails with `readv failed: Connection timed
//! out`), adds the shaper, runs `mpirun` with Open MPI forced onto TCP
//! over that loopback (`--mca pml ob1 --mca btl tcp,self --mca
//! btl_tcp_if_include lo`; shared memory would bypass the link), then
//! prints the loopback's byte counters, so the table can show that the
//! traffic did cross the link.
//!
//! # The link model
//! `tc qdisc add dev lo root tbf rate RATE burst B latency 100ms`: a token
//! bucket filter, which sends at most RATE on average and queues what
//! comes faster. Its bucket holds B = 25 µs of the rate, at least 3 KiB
//! (two full frames; a packet larger than the bucket would never be sent):
//! small against a halo message, so the rate, not the bucket, sets how long
//! a message takes, and a link that idled during a compute phase does not
//! let the next exchange through at memory speed. (A bucket of 100 µs let
//! most of a 16 KiB exchange through at once at 1 Gbit/s.)
//! This machine's kernel has `tbf` but not `netem`, so the model is a
//! rate with its queueing, not a fixed delay: a message costs its size
//! over the rate (plus TCP's own round trips on the loopback), and the
//! messages of every rank pair and both directions share the one
//! loopback and its rate — a shared bus, not one full-duplex link per
//! node as between real hosts.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bucket's depth in time at the link's rate.
const BURST_SECONDS: f64 = 25e-6;
/// The smallest bucket: two frames of the 1,500-byte MTU.
const MIN_BURST_BYTES: u64 = 3072;
/// The MTU set on the namespace's loopback.
const MTU: u32 = 1500;
/// How long a packet may wait in the shaper's queue (tbf's `latency`,
/// which sizes the queue): long enough that the table's messages are
/// never dropped.
const QUEUE_LATENCY: &str = "100ms";
/// The slowest rate accepted: below it a full-size row would run for
/// hours.
const MIN_BITS_PER_SECOND: u64 = 1_000_000;
/// Open MPI's settings for a link row: TCP over the loopback only.
pub const OPEN_MPI_TCP: [&str; 9] = [
    "--mca",
    "pml",
    "ob1",
    "--mca",
    "btl",
    "tcp,self",
    "--mca",
    "btl_tcp_if_include",
    "lo",
];

/// The marker before the loopback's counters in a link run's output.
const STATS_MARKER: &str = "prescient-link-stats:";

/// A link the ranks exchange over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Link {
    /// Whatever transport Open MPI picks (shared memory on one host, the
    /// network between hosts), no namespace: the rows the table always
    /// had.
    Native,
    /// TCP over a private namespace's loopback, not shaped.
    Tcp,
    /// TCP over a private namespace's loopback shaped to a rate.
    Shaped(Rate),
}

/// A link rate, as `tc` reads it (`100mbit`), and in bits per second.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    /// The rate as given, lower-cased: what `tc` is passed.
    pub text: String,
    /// The same in bits per second.
    pub bits_per_second: u64,
}

impl Rate {
    /// The token bucket's depth for this rate (see the module docs).
    pub fn burst_bytes(&self) -> u64 {
        let bytes = (self.bits_per_second as f64 / 8.0 * BURST_SECONDS).ceil() as u64;
        bytes.max(MIN_BURST_BYTES)
    }
}

impl Link {
    /// Parses `native`, `tcp` or a rate in bits per second with `tc`'s units
    /// (`kbit`, `mbit`, `gbit`, `tbit`, `bit`; `100mbit`, `2.5gbit`).
    pub fn parse(text: &str) -> Result<Link, String> {
        let text = text.trim().to_ascii_lowercase();
        match text.as_str() {
            "native" => return Ok(Link::Native),
            "tcp" => return Ok(Link::Tcp),
            _ => {}
        }
        let digits = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(digits);
        let scale: f64 = match unit {
            "bit" => 1.0,
            "kbit" => 1e3,
            "mbit" => 1e6,
            "gbit" => 1e9,
            "tbit" => 1e12,
            "bps" | "kbps" | "mbps" | "gbps" | "tbps" => {
                return Err(format!(
                    "`{text}`: tc reads `{unit}` as bytes per second; give the rate in bits \
                     (`kbit`, `mbit`, `gbit`: 100mbit, 1gbit)"
                ))
            }
            _ => {
                return Err(format!(
                    "`{text}` is not a link: `native`, `tcp` or a rate such as 100mbit or 1gbit"
                ))
            }
        };
        let value: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("`{text}`: the rate needs a positive number before `{unit}`"))?;
        let bits_per_second = (value * scale).round();
        if bits_per_second < MIN_BITS_PER_SECOND as f64 {
            return Err(format!(
                "`{text}`: rates below 1mbit would make a row run for hours"
            ));
        }
        if bits_per_second > u64::MAX as f64 / 2.0 {
            return Err(format!("`{text}`: rate too large"));
        }
        Ok(Link::Shaped(Rate {
            text,
            bits_per_second: bits_per_second as u64,
        }))
    }

    /// Whether the link needs a network namespace (every link but `native`).
    pub fn needs_namespace(&self) -> bool {
        !matches!(self, Link::Native)
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Native => write!(f, "native"),
            Link::Tcp => write!(f, "tcp"),
            Link::Shaped(rate) => write!(f, "{}", rate.text),
        }
    }
}

/// The programs a namespaced run needs: `sh`, `ip` and `tc`.
#[derive(Clone, Debug)]
pub struct Tools {
    sh: PathBuf,
    ip: PathBuf,
    tc: PathBuf,
}

/// Finds `name` on the `PATH` or in the system folders where `ip` and `tc`
/// live (`/usr/sbin`, `/sbin`), which a user's `PATH` often lacks.
fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Quotes `text` for `sh` (single quotes; a quote inside becomes `'\''`).
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Tools {
    /// The tools, or why link rows cannot run here: not root (a new
    /// network namespace needs `CAP_SYS_ADMIN`), or `ip`, `tc` or `sh`
    /// missing. Then checks that a namespace can be made and shaped, by
    /// making one (the kernel may lack `tbf`, or a container may forbid
    /// namespaces); the error is the tools' own message.
    pub fn find() -> Result<Tools, String> {
        // SAFETY: `geteuid` reads the process's effective user id; it has
        // no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err(
                "needs root: a private network namespace and its queueing discipline \
                        are made with CAP_SYS_ADMIN and CAP_NET_ADMIN"
                    .into(),
            );
        }
        let missing = |tool: &str| {
            format!("needs `{tool}` (iproute2: `apt-get install iproute2`) to shape a link")
        };
        let tools = Tools {
            sh: find_tool("sh").ok_or("needs `sh`")?,
            ip: find_tool("ip").ok_or_else(|| missing("ip"))?,
            tc: find_tool("tc").ok_or_else(|| missing("tc"))?,
        };
        let probe = Link::Shaped(Rate {
            text: "10mbit".into(),
            bits_per_second: 10_000_000,
        });
        let output = tools
            .in_namespace(&probe, &tools.ip, &["-V".to_string()])
            .output()
            .map_err(|e| format!("cannot make a network namespace: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "cannot make and shape a network namespace: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(tools)
    }

    /// The script that sets up the namespace's loopback for `link`, runs
    /// its arguments and then prints the loopback's counters.
    fn script(&self, link: &Link) -> String {
        let (ip, tc) = (
            quote(&self.ip.display().to_string()),
            quote(&self.tc.display().to_string()),
        );
        let mut setup = vec![
            format!("{ip} link set dev lo mtu {MTU}"),
            format!("{ip} link set dev lo up"),
        ];
        if let Link::Shaped(rate) = link {
            setup.push(format!(
                "{tc} qdisc add dev lo root tbf rate {} burst {} latency {QUEUE_LATENCY}",
                quote(&rate.text),
                rate.burst_bytes()
            ));
        }
        format!(
            "set -e; {}; set +e; \"$@\"; status=$?; \
             printf '%s ip ' {marker}; {ip} -j -s link show dev lo; \
             printf '%s tc ' {marker}; {tc} -j -s qdisc show dev lo; \
             exit $status",
            setup.join("; "),
            marker = quote(STATS_MARKER),
        )
    }

    /// A command that runs `program` with `args` in a new network
    /// namespace whose loopback is `link` (not `Link::Native`).
    pub fn in_namespace(&self, link: &Link, program: &Path, args: &[String]) -> Command {
        debug_assert!(link.needs_namespace());
        let mut command = Command::new(&self.sh);
        command.arg("-c").arg(self.script(link)).arg("sh");
        command.arg(program).args(args);
        // SAFETY: runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: `unshare` is one system call,
        // and the closure allocates nothing (`last_os_error` reads errno).
        unsafe {
            command.pre_exec(|| {
                if libc::unshare(libc::CLONE_NEWNET) == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            });
        }
        command
    }
}

/// What crossed the namespace's loopback during a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkStats {
    /// Bytes the loopback carried (every message, and TCP's own packets).
    pub bytes: u64,
    /// Packets the shaper dropped (0 for an unshaped link).
    pub dropped: u64,
}

/// The loopback's counters printed after a namespaced run, if its output
/// has them.
pub fn parse_stats(stdout: &str) -> Option<LinkStats> {
    let after = |kind: &str| {
        let prefix = format!("{STATS_MARKER} {kind} ");
        stdout.lines().find_map(|line| {
            line.strip_prefix(&prefix)
                .and_then(|json| serde_json::from_str::<serde_json::Value>(json).ok())
        })
    };
    let ip = after("ip")?;
    let bytes = ip.get(0)?.pointer("/stats64/tx/bytes")?.as_u64()?;
    let dropped = after("tc")
        .and_then(|tc| {
            tc.as_array()?
                .iter()
                .find(|qdisc| qdisc.get("kind").and_then(|k| k.as_str()) == Some("tbf"))?
                .get("drops")?
                .as_u64()
        })
        .unwrap_or(0);
    Some(LinkStats { bytes, dropped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_parse_with_tc_units() {
        assert_eq!(Link::parse("native"), Ok(Link::Native));
        assert_eq!(Link::parse("TCP"), Ok(Link::Tcp));
        let rate = |text: &str| match Link::parse(text) {
            Ok(Link::Shaped(rate)) => rate,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(rate("100mbit").bits_per_second, 100_000_000);
        assert_eq!(rate("1Gbit").bits_per_second, 1_000_000_000);
        assert_eq!(rate("2.5gbit").bits_per_second, 2_500_000_000);
        assert_eq!(rate("1Gbit").text, "1gbit");
        for bad in [
            "", "fast", "100", "mbit", "-5mbit", "100mbps", "500kbit", "1e3mbit",
        ] {
            assert!(Link::parse(bad).is_err(), "{bad}");
        }
        assert!(Link::parse("100mbps")
            .unwrap_err()
            .contains("bytes per second"));
    }

    #[test]
    fn the_bucket_holds_25_us_and_two_frames() {
        let burst = |text: &str| match Link::parse(text).unwrap() {
            Link::Shaped(rate) => rate.burst_bytes(),
            other => panic!("{other:?}"),
        };
        assert_eq!(burst("100mbit"), 3072);
        assert_eq!(burst("1gbit"), 3125);
        assert_eq!(burst("10gbit"), 31_250);
    }

    #[test]
    fn the_script_shapes_only_rates_and_quotes_paths() {
        let tools = Tools {
            sh: "/bin/sh".into(),
            ip: "/usr/sbin/ip".into(),
            tc: "/opt/it's/tc".into(),
        };
        let tcp = tools.script(&Link::Tcp);
        assert!(
            tcp.contains("link set dev lo mtu 1500") && !tcp.contains("tbf"),
            "{tcp}"
        );
        let shaped = tools.script(&Link::parse("100mbit").unwrap());
        assert!(
            shaped
                .contains("'/opt/it'\\''s/tc' qdisc add dev lo root tbf rate '100mbit' burst 3072"),
            "{shaped}"
        );
    }

    /// As root with `ip` and `tc`: a command run for a shaped link sees its
    /// loopback up, at MTU 1,500, under the token bucket, while the host's
    /// own loopback keeps its queueing discipline, before and after.
    /// Elsewhere it says why it checks nothing.
    #[test]
    fn a_namespaced_run_sees_the_shaped_loopback_and_the_host_keeps_its_own() {
        let tools = match Tools::find() {
            Ok(tools) => tools,
            Err(why) => {
                println!("not checked here: {why}");
                return;
            }
        };
        let host_qdisc = || {
            let output = Command::new(&tools.tc)
                .args(["qdisc", "show", "dev", "lo"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        let before = host_qdisc();
        let link = Link::parse("100mbit").unwrap();
        let show = ["-d", "link", "show", "dev", "lo"].map(String::from);
        let output = tools
            .in_namespace(&link, &tools.ip, &show)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("mtu 1500") && stdout.contains("qdisc tbf"),
            "{stdout}"
        );
        assert!(parse_stats(&stdout).is_some(), "{stdout}");
        assert_eq!(host_qdisc(), before);
        assert!(!before.contains("tbf"), "{before}");
    }

    #[test]
    fn stats_are_read_from_the_run_output() {
        let out = format!(
            "text\n{STATS_MARKER} ip [{{\"ifname\":\"lo\",\"stats64\":{{\"rx\":{{\"bytes\":10}},\
             \"tx\":{{\"bytes\":12345}}}}}}]\n{STATS_MARKER} tc [{{\"kind\":\"tbf\",\"drops\":2}}]\n"
        );
        assert_eq!(
            parse_stats(&out),
            Some(LinkStats {
                bytes: 12345,
                dropped: 2
            })
        );
        assert_eq!(parse_stats("nothing"), None);
    }
}
