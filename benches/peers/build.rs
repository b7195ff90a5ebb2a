//! The part of `benches/build.rs` that builds the C/C++ peers (this folder)
//! with the `cc` crate's compiler detection: `prescient-peer-omp-gcc` (GCC,
//! libgomp linked statically), `prescient-peer-omp-llvm` (Clang, LLVM's
//! libomp), `prescient-peer-tbb` (oneTBB) and `prescient-peer-starpu`
//! (StarPU 1.3, dataflow only), into `OUT_DIR/peers/`.
//!
//! Each peer is first probed (a tiny program with its runtime's header and
//! library); a peer whose compiler or library is missing is not built, and
//! its status says why and what to install — `benches/src/peers` reports it
//! as skipped with that line, as mpi-heat does without MPI. Every peer gets
//! the same flags: `-O3` (the benchmark profile's level), `-ffp-contract=off`
//! (no fused multiply-adds: Rust never contracts, and the checks compare bit
//! for bit), `-falign-functions=64` (what `cargo bench-run` and the bundle
//! give the Rust functions: a time that does not move with unrelated code),
//! line tables, no `-march`. A run path `$ORIGIN/lib` lets the
//! bundle carry the shared libraries beside the executables.
//!
//! A peer is compiled only when its sources, the compiler or the flags change:
//! built peers are kept in `<target>/prescient-peers/` under that
//! fingerprint, for every profile and feature set, so neither a change of the
//! Rust sources nor another profile recompiles the C++.
//! `PRESCIENT_BENCH_NO_PEERS=1` builds none.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// One peer executable to build.
struct PeerBuild {
    /// The runner name (`omp-gcc`), and the env suffix of its status.
    name: &'static str,
    env: &'static str,
    /// The C++ compiler to ask `cc` for.
    compiler: &'static str,
    /// The source file in this folder.
    source: &'static str,
    /// Compile flags beyond the shared ones.
    compile: Vec<String>,
    /// Link arguments after the object.
    link: Vec<String>,
    /// A program that must build for the peer to be built.
    probe: &'static str,
    /// What to install when it does not.
    install: &'static str,
}

/// The flags every peer is compiled with.
const SHARED_FLAGS: [&str; 7] = [
    "-std=c++17",
    "-O3",
    "-ffp-contract=off",
    "-falign-functions=64",
    "-g1",
    "-Wall",
    "-Wextra",
];

fn peers() -> Vec<PeerBuild> {
    let gomp_static = Command::new("g++")
        .arg("-print-file-name=libgomp.a")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|p| Path::new(p).is_absolute())
        .unwrap_or_else(|| "-lgomp".to_string());
    let starpu = pkg_config("starpu-1.3");
    vec![
        PeerBuild {
            name: "omp-gcc",
            env: "OMP_GCC",
            compiler: "g++",
            source: "omp.cpp",
            compile: vec!["-fopenmp".into()],
            // libgomp.a by path: the executable needs no libgomp.so on the
            // host (nor libstdc++.so: both C++ runtimes static too).
            link: vec![
                "-static-libstdc++".into(),
                "-static-libgcc".into(),
                gomp_static,
                "-lpthread".into(),
            ],
            probe: "#include <omp.h>\nint main() { int n = 0;\n#pragma omp parallel\n#pragma omp atomic\nn++;\nreturn n > 0 ? 0 : 1; }\n",
            install: "apt-get install g++",
        },
        PeerBuild {
            name: "omp-llvm",
            env: "OMP_LLVM",
            compiler: "clang++",
            source: "omp.cpp",
            compile: vec!["-fopenmp".into()],
            // libomp has no static archive in Debian: the bundle copies
            // libomp.so.5 beside the executable ($ORIGIN/lib).
            link: vec!["-fopenmp".into(), "-static-libstdc++".into(), "-static-libgcc".into()],
            probe: "#include <omp.h>\nint main() { int n = 0;\n#pragma omp parallel\n#pragma omp atomic\nn++;\nreturn n > 0 ? 0 : 1; }\n",
            install: "apt-get install clang libomp-dev",
        },
        PeerBuild {
            name: "tbb",
            env: "TBB",
            compiler: "g++",
            source: "tbb.cpp",
            compile: vec![],
            // libtbb.so needs the shared libstdc++, which the executable then
            // shares (the bundle copies libtbb.so.12, libstdc++.so.6 and
            // libgcc_s.so.1).
            link: vec!["-ltbb".into(), "-lpthread".into()],
            probe: "#include <tbb/task_group.h>\nint main() { tbb::task_group g; int n = 0; g.run([&] { n = 1; }); g.wait(); return n == 1 ? 0 : 1; }\n",
            install: "apt-get install g++ libtbb-dev",
        },
        PeerBuild {
            name: "starpu",
            env: "STARPU",
            compiler: "g++",
            source: "starpu.cpp",
            compile: starpu.as_ref().map_or_else(Vec::new, |(cflags, _)| cflags.clone()),
            link: starpu.map_or_else(|| vec!["-lstarpu-1.3".into()], |(_, libs)| libs),
            probe: "#include <starpu.h>\nint main() { struct starpu_conf c; return starpu_conf_init(&c); }\n",
            install: "apt-get install g++ pkg-config libstarpu-dev",
        },
    ]
}

/// `pkg-config --cflags` and `--libs` of `package`, if it knows it.
fn pkg_config(package: &str) -> Option<(Vec<String>, Vec<String>)> {
    let words = |flag: &str| -> Option<Vec<String>> {
        let out = Command::new("pkg-config")
            .args([flag, package])
            .output()
            .ok()?;
        out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
    };
    Some((words("--cflags")?, words("--libs")?))
}

/// The `cc` crate's command for `compiler` (its target flags), without the
/// optimisation and debug flags, which [`SHARED_FLAGS`] sets.
fn base_command(compiler: &str) -> Result<Command, String> {
    let tool = cc::Build::new()
        .cpp(true)
        .compiler(compiler)
        .opt_level(3)
        .debug(false)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_get_compiler()
        .map_err(|e| format!("{compiler}: {e}"))?;
    let mut command = Command::new(tool.path());
    // Keep cc's target flags (-m64, -fPIC, ...), drop its -O and -g ones.
    for arg in tool.args() {
        let a = arg.to_string_lossy();
        if !(a.starts_with("-O") || a.starts_with("-g")) {
            command.arg(arg);
        }
    }
    Ok(command)
}

/// Runs `command` to the end; its stderr's first lines on failure.
fn finish(mut child: Child, what: &str) -> Result<(), String> {
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        use std::io::Read;
        let _ = err.read_to_string(&mut stderr);
    }
    let status = child.wait().map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        return Ok(());
    }
    let head: Vec<&str> = stderr.lines().take(4).collect();
    Err(format!("{what} failed ({status}): {}", head.join(" / ")))
}

fn spawn(mut command: Command, what: &str) -> Result<Child, String> {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: cannot run the compiler: {e}"))
}

/// Whether `peer`'s compiler and library build its probe program.
fn probe(peer: &PeerBuild, dir: &Path) -> Result<(), String> {
    let source = dir.join(format!("probe-{}.cpp", peer.name));
    std::fs::write(&source, peer.probe).map_err(|e| e.to_string())?;
    let mut command = base_command(peer.compiler)?;
    command
        .args(&peer.compile)
        .arg(&source)
        .arg("-o")
        .arg(dir.join(format!("probe-{}", peer.name)))
        .args(&peer.link);
    finish(
        spawn(command, peer.compiler)?,
        &format!("{} probe", peer.compiler),
    )
}

/// A hash of everything the peer's executable depends on: the sources of
/// this folder, the compiler's version and the flags.
fn fingerprint(peer: &PeerBuild, peers_dir: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![peers_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    for file in files {
        file.hash(&mut hasher);
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    let version = Command::new(peer.compiler)
        .arg("--version")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    version.hash(&mut hasher);
    (SHARED_FLAGS, &peer.compile, &peer.link).hash(&mut hasher);
    hasher.finish()
}

/// Builds every peer whose compiler and library are present into
/// `OUT_DIR/peers/` and tells the crate where they are and which were not
/// built (`PRESCIENT_PEER_DIR`, `PRESCIENT_PEER_<NAME>`: `built`, or
/// `skipped: reason (install: …)`).
pub fn build(manifest_dir: &Path, out_dir: &Path) {
    let peers_dir = manifest_dir.join("peers");
    let dir = out_dir.join("peers");
    println!("cargo:rerun-if-changed={}", peers_dir.display());
    println!("cargo:rerun-if-env-changed=PRESCIENT_BENCH_NO_PEERS");
    println!("cargo:rustc-env=PRESCIENT_PEER_DIR={}", dir.display());
    let disabled =
        std::env::var_os("PRESCIENT_BENCH_NO_PEERS").is_some_and(|v| !v.is_empty() && v != "0");
    let peers = peers();
    if disabled {
        for peer in &peers {
            println!(
                "cargo:rustc-env=PRESCIENT_PEER_{}=skipped: not built (PRESCIENT_BENCH_NO_PEERS was set when prescient-benches was built)",
                peer.env
            );
        }
        return;
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        println!("cargo:warning=cannot create {}: {e}", dir.display());
        return;
    }
    // Probe, then compile and link the peers that need it, each on a thread
    // of its own (the compilers run side by side).
    let cache = &cache_dir(out_dir);
    let (peers_dir, dir) = (&peers_dir, &dir);
    let statuses: Vec<(&PeerBuild, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = peers
            .iter()
            .map(|peer| {
                (
                    peer,
                    scope.spawn(move || build_one(peer, peers_dir, dir, cache)),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(peer, handle)| {
                let status = handle
                    .join()
                    .unwrap_or_else(|_| Err("its build thread panicked".to_string()));
                (
                    peer,
                    status.unwrap_or_else(|e| format!("skipped: {}", e.replace('\n', " "))),
                )
            })
            .collect()
    });
    for (peer, status) in statuses {
        if status.starts_with("skipped: its build failed") {
            // A peer that probes fine but does not compile is a bug in the
            // peer: say so loudly.
            println!("cargo:warning=the {} peer: {status}", peer.name);
        }
        println!("cargo:rustc-env=PRESCIENT_PEER_{}={status}", peer.env);
    }
}

/// The folder where built peers are kept by fingerprint, shared by every
/// profile and feature set of the target folder: `prescient-peers` in the
/// nearest folder above `OUT_DIR` that cargo marked as a target folder (its
/// `CACHEDIR.TAG`), so the tests, clippy and the bundle's builds compile
/// each peer once; `OUT_DIR` itself if there is none.
fn cache_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map_or_else(
            || out_dir.join("peers-cache"),
            |target| target.join("prescient-peers"),
        )
}

/// Builds one peer into `dir`, or copies it from the cache when its
/// fingerprint is there: `Ok("built")`, or why it is skipped.
fn build_one(
    peer: &PeerBuild,
    peers_dir: &Path,
    dir: &Path,
    cache: &Path,
) -> Result<String, String> {
    let exe = dir.join(format!("prescient-peer-{}", peer.name));
    let prefix = format!("prescient-peer-{}-", peer.name);
    let cached = cache.join(format!("{prefix}{:016x}", fingerprint(peer, peers_dir)));
    let _ = std::fs::remove_file(&exe);
    if cached.is_file() {
        std::fs::copy(&cached, &exe).map_err(|e| format!("copying {}: {e}", cached.display()))?;
        return Ok("built".to_string());
    }
    probe(peer, dir).map_err(|e| {
        format!(
            "{} cannot build a {} program here (install: {}): {e}",
            peer.compiler, peer.name, peer.install
        )
    })?;
    let failed = |e: String| format!("its build failed ({e})");
    // Compile, then link without the compile flags (GCC's driver would add
    // the shared libgomp to a link with -fopenmp).
    let object = dir.join(format!("prescient-peer-{}.o", peer.name));
    let mut compile = base_command(peer.compiler).map_err(failed)?;
    compile
        .args(SHARED_FLAGS)
        .args(&peer.compile)
        .arg("-c")
        .arg(peers_dir.join(peer.source))
        .arg("-o")
        .arg(&object);
    let what = format!("{} {}", peer.compiler, peer.source);
    spawn(compile, &what)
        .and_then(|child| finish(child, &what))
        .map_err(failed)?;
    let mut link = base_command(peer.compiler).map_err(failed)?;
    link.arg(&object)
        .arg("-o")
        .arg(&exe)
        // DT_RPATH, not RUNPATH: it also applies to the libraries' own
        // dependencies (libstarpu's libhwloc), which the bundle copies too.
        .arg("-Wl,--disable-new-dtags,-rpath,$ORIGIN/lib")
        .args(&peer.link);
    let what = format!("linking {}", peer.name);
    spawn(link, &what)
        .and_then(|child| finish(child, &what))
        .map_err(failed)?;
    let _ = std::fs::remove_file(&object);
    // Into the cache under a temporary name, then renamed: another build
    // script may be reading or writing the same entry. Older entries of this
    // peer go.
    if std::fs::create_dir_all(cache).is_ok() {
        for entry in std::fs::read_dir(cache).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && entry.path() != cached {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let temporary = cache.join(format!("{prefix}{}.tmp", std::process::id()));
        if std::fs::copy(&exe, &temporary).is_ok() {
            let _ = std::fs::rename(&temporary, &cached);
        }
    }
    Ok("built".to_string())
}
