// The driver every C/C++ peer shares: its command line, the measurement loop,
// the verification, and the one JSON line it prints. Each peer executable
// (omp.cpp built by GCC and by Clang, tbb.cpp, starpu.cpp) is this driver plus
// its runtime's versions of the programs; the Rust side is
// `benches/src/peers/` (it runs an executable per configuration, in a child
// process like every runner's, and reads the line as the harness's `Record`), and `benches/build.rs` builds them.
//
// Command line (one configuration per process, like every Rust child):
//
//   prescient-peer-RUNTIME PROGRAM [ARG...] [--threads N] [--reps R]
//       [--warmup-ms W] [--batch-ms B] [--sequential] [--expect CHECKSUM]
//   prescient-peer-RUNTIME --list
//
// Measurement, the Rust children's two ways:
// * `--warmup-ms 0 --batch-ms 0` (the default): one untimed warm-up run, then
//   R timed runs, one run each: the cf17 child (median and min of the runs),
//   the dataflow and par-loops tables (best of the runs). A program's
//   `setup` (copying its input) runs before the clock starts and its check
//   after it stops, as in the Rust closures.
// * `--warmup-ms W --batch-ms B`: the fork-join table's plan
//   (`benches/src/tables/fork_join/pool.rs`): warm up for at least W ms doubling a batch of
//   runs until one batch lasts B ms, then R batches timed as a whole, each
//   result checked inside the batch (a scalar compare, as `time_runs` does).
//   Only programs without a setup step take batches.
//
// The line: {"peer":…,"program":…,"args":[…],"threads":N,"sequential":b,
// "batch":B,"times_ns":[per-run ns of each timed run or batch],
// "cpu_per_wall":x,"rss_kib":K,"verified":b,"checksum":"fnv1a64 hex",
// "error":null|"…","runtime":"…"}. `verified` is false when a parallel result
// differs from the program's reference (computed in this process, or its known
// closed form, as the Rust workloads do) or, with --expect, when the result's
// checksum differs from the one given (the Rust reference's). A failed check
// exits with status 1, a bad command line with status 2, both after printing
// the line.

#pragma once

#include <sys/resource.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace peer {

// A bad command line or input: the peer prints it in the JSON line's "error"
// and exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// std::hint::black_box for the integers and pointers the Rust programs hide
// from the optimiser (fib's and the tree's recursive arguments): the compiler
// must assume the value changed, so it cannot fold the recursion into a loop.
template <class T>
inline T black_box(T value) {
    static_assert(std::is_integral<T>::value || std::is_pointer<T>::value,
                  "black_box takes integers and pointers");
    asm volatile("" : "+r"(value));
    return value;
}

// FNV-1a over 64 bits: the checksum both sides compute over a result's bytes
// (little-endian values in order). `benches/src/peers/checksum.rs` is its Rust
// twin.
struct Fnv1a {
    uint64_t state = 0xcbf29ce484222325ull;
    void bytes(const void* data, size_t len) {
        const unsigned char* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < len; i++) {
            state ^= p[i];
            state *= 0x100000001b3ull;
        }
    }
    template <class T>
    void value(T v) {
        static_assert(std::is_trivially_copyable<T>::value, "plain values only");
        bytes(&v, sizeof v);
    }
    template <class T>
    void values(const T* v, size_t n) {
        static_assert(std::is_trivially_copyable<T>::value, "plain values only");
        bytes(v, n * sizeof(T));
    }
    std::string hex() const {
        char text[17];
        std::snprintf(text, sizeof text, "%016" PRIx64, state);
        return text;
    }
};

template <class T>
std::string checksum_of(const std::vector<T>& v) {
    Fnv1a h;
    h.values(v.data(), v.size());
    return h.hex();
}

inline std::string checksum_of_u64(uint64_t v) {
    Fnv1a h;
    h.value(v);
    return h.hex();
}

// "" when equal, else a message naming `what`.
template <class T>
std::string expect_eq(const char* what, T got, T expected) {
    if (got == expected) return "";
    return std::string(what) + ": got " + std::to_string(got) + ", expected " +
           std::to_string(expected);
}

// "" when the vectors are equal element for element (bitwise for the
// floating-point ones: the parallel versions do the reference's operations in
// the same order), else the first difference.
template <class T>
std::string expect_same(const char* what, const std::vector<T>& got, const std::vector<T>& expected) {
    if (got.size() != expected.size())
        return std::string(what) + ": " + std::to_string(got.size()) + " values, expected " +
               std::to_string(expected.size());
    for (size_t i = 0; i < got.size(); i++) {
        if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
            return std::string(what) + ": value " + std::to_string(i) + " differs from the reference";
    }
    return "";
}

inline double now_ns() {
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The process's CPU time (user + system, all threads) in ns, and its peak RSS
// in KiB (`getrusage(RUSAGE_SELF)`, as `harness::record` reads them).
inline double cpu_time_ns() {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9 +
           (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
}

inline long peak_rss_kib() {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return u.ru_maxrss;
}

// What a configuration asked for, and what its measurement found.
struct Context {
    std::string peer;
    std::string program;
    std::vector<std::string> args;
    int threads = 1;
    int reps = 1;
    double warmup_ms = 0;
    double batch_ms = 0;
    bool sequential = false;
    std::string expect;

    uint64_t batch = 1;
    std::vector<double> times_ns;
    double cpu_per_wall = 0;
    std::string checksum;
    std::string error;

    // Positional argument `i` as an unsigned integer (`what` names it in the
    // error).
    uint64_t u64(size_t i, const char* what) const {
        const std::string& s = text(i, what);
        char* end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-')
            throw UsageError(program + ": " + what + " `" + s + "` is not a non-negative integer");
        return v;
    }
    // Positional argument `i` as text.
    const std::string& text(size_t i, const char* what) const {
        if (i >= args.size()) throw UsageError(program + ": missing argument " + what);
        return args[i];
    }
    // Positional argument `i`, which must be one of `choices`.
    const std::string& choice(size_t i, const char* what, std::initializer_list<const char*> choices) const {
        const std::string& s = text(i, what);
        for (const char* c : choices)
            if (s == c) return s;
        std::string all;
        for (const char* c : choices) all += std::string(all.empty() ? "" : ", ") + c;
        throw UsageError(program + ": " + what + " `" + s + "` is not one of " + all);
    }
    void expect_args(size_t n) const {
        if (args.size() != n)
            throw UsageError(program + ": takes " + std::to_string(n) + " argument(s), got " +
                             std::to_string(args.size()));
    }
};

// The measurement loop (see the top of the file). `setup` runs untimed before
// each run, `run` is timed, `check` returns "" or what is wrong. Stops at the
// first wrong result (recorded in cx.error).
inline void measure(Context& cx, bool has_setup, const std::function<void()>& setup,
                    const std::function<void()>& run, const std::function<std::string()>& check) {
    auto one_untimed = [&]() -> bool {
        setup();
        run();
        std::string e = check();
        if (!e.empty()) cx.error = e;
        return e.empty();
    };
    bool batched = cx.warmup_ms > 0 || cx.batch_ms > 0;
    if (batched && has_setup)
        throw UsageError(cx.program + " has a setup step per run and takes no batches (--warmup-ms/--batch-ms)");
    // A batch of `n` runs timed as a whole, each result checked inside.
    auto time_batch = [&](uint64_t n, double& ns) -> bool {
        double start = now_ns();
        for (uint64_t i = 0; i < n; i++) {
            run();
            std::string e = check();
            if (!e.empty()) {
                cx.error = e;
                return false;
            }
        }
        ns = now_ns() - start;
        return true;
    };
    if (batched) {
        double start = now_ns();
        uint64_t batch = 1;
        for (;;) {
            double ns = 0;
            if (!time_batch(batch, ns)) return;
            if (ns < cx.batch_ms * 1e6)
                batch *= 2;
            else if (now_ns() - start >= cx.warmup_ms * 1e6)
                break;
        }
        cx.batch = batch;
    } else if (!one_untimed()) {
        return;
    }
    double cpu0 = cpu_time_ns(), wall0 = now_ns();
    for (int r = 0; r < std::max(cx.reps, 1); r++) {
        if (batched) {
            double ns = 0;
            if (!time_batch(cx.batch, ns)) return;
            cx.times_ns.push_back(ns / double(cx.batch));
        } else {
            setup();
            double start = now_ns();
            run();
            double ns = now_ns() - start;
            std::string e = check();
            if (!e.empty()) {
                cx.error = e;
                return;
            }
            cx.times_ns.push_back(ns);
        }
    }
    double wall = now_ns() - wall0;
    cx.cpu_per_wall = wall > 0 ? (cpu_time_ns() - cpu0) / wall : 0;
}

// A runtime's hooks: its name and version for the line, how it sets its
// thread count, and how it encloses the measurement of a program whose runs
// all happen in one entry into the runtime (OpenMP: one parallel region whose
// `single` thread runs every rep, as the Rust children enter a pool once).
struct Runtime {
    const char* peer;
    std::string (*version)();
    void (*set_threads)(int);
    void (*enclose)(const std::function<void()>&);
};

// How a program's parallel runs enter the runtime: `Once` for all of them
// (the fork-join and cf17 children run every rep inside one `Runtime::run`),
// `PerRun` when each run enters it itself (the dataflow and par-loops tables
// call `rt.run` per run; an OpenMP run is then its own parallel region).
enum class Entry { Once, PerRun };

// A program as a peer offers it. `run` builds the input and reference from
// cx.args, measures and sets cx.checksum.
struct Program {
    const char* name;
    const char* usage;
    void (*run)(Context&, const Runtime&);
};

// Drives a workload type W: constructed from the context (input and reference
// built untimed), `seq()` (the sequential kernel, with --sequential) or `par()`
// timed, `setup()` before each run if W::kSetup, `check()` after each, and
// `checksum()` of the last result.
template <class W, Entry entry>
void drive(Context& cx, const Runtime& rt) {
    W w(cx);
    auto body = [&] {
        measure(
            cx, W::kSetup, [&] { w.setup(); },
            [&] {
                if (cx.sequential)
                    w.seq();
                else
                    w.par();
            },
            [&] { return w.check(); });
    };
    if (entry == Entry::Once && !cx.sequential)
        rt.enclose(body);
    else
        body();
    if (cx.error.empty()) cx.checksum = w.checksum();
}

// The base of every workload: no setup step.
struct Workload {
    static constexpr bool kSetup = false;
    void setup() {}
};

inline void json_string(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += char(c);
                }
        }
    }
    out += '"';
}

inline std::string json_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

inline void print_line(const Context& cx, const Runtime& rt) {
    std::string out = "{\"peer\":";
    json_string(out, cx.peer);
    out += ",\"program\":";
    json_string(out, cx.program);
    out += ",\"args\":[";
    for (size_t i = 0; i < cx.args.size(); i++) {
        if (i) out += ',';
        json_string(out, cx.args[i]);
    }
    out += "],\"threads\":" + std::to_string(cx.threads);
    out += ",\"sequential\":" + std::string(cx.sequential ? "true" : "false");
    out += ",\"batch\":" + std::to_string(cx.batch);
    out += ",\"times_ns\":[";
    for (size_t i = 0; i < cx.times_ns.size(); i++) {
        if (i) out += ',';
        out += json_number(cx.times_ns[i]);
    }
    out += "],\"cpu_per_wall\":" + json_number(cx.cpu_per_wall);
    out += ",\"rss_kib\":" + std::to_string(peak_rss_kib());
    out += ",\"verified\":" + std::string(cx.error.empty() && !cx.checksum.empty() ? "true" : "false");
    out += ",\"checksum\":";
    json_string(out, cx.checksum);
    out += ",\"error\":";
    if (cx.error.empty())
        out += "null";
    else
        json_string(out, cx.error);
    out += ",\"runtime\":";
    json_string(out, rt.version());
    out += "}\n";
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
}

// glibc's allocator thresholds of every measuring child
// (`harness::record::steady_allocator`: blocks up to 64 MiB from the heap, 256
// MiB of free heap kept), so that a peer allocates as the Rust children do.
inline void steady_allocator() {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

// `idle MS`: the fork-join table's idle child (`run_idle_child` in
// `benches/src/tables/fork_join/child.rs`) for a peer: one tiny parallel job
// (fib(15) through `tiny`), then a sleep of MS ms; the line's one time is the
// sleep's wall time and its cpu_per_wall the CPU time the process burned
// meanwhile over it, as the Rust idle child prints them.
inline void run_idle(Context& cx, const std::function<uint64_t()>& tiny) {
    cx.expect_args(1);
    uint64_t ms = cx.u64(0, "MS");
    uint64_t got = tiny();
    if (got != 610) {
        cx.error = "idle: fib(15) gave " + std::to_string(got);
        return;
    }
    double cpu0 = cpu_time_ns(), wall0 = now_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    double cpu = cpu_time_ns() - cpu0, wall = now_ns() - wall0;
    cx.times_ns.push_back(wall);
    cx.cpu_per_wall = wall > 0 ? cpu / wall : 0;
    cx.checksum = checksum_of_u64(got);
}

inline int usage(const char* exe, const std::vector<Program>& programs) {
    std::fprintf(stderr,
                 "usage: %s PROGRAM [ARG...] [--threads N] [--reps R] [--warmup-ms W] [--batch-ms B]\n"
                 "          [--sequential] [--expect CHECKSUM]\n"
                 "       %s --list\nprograms:\n",
                 exe, exe);
    for (const auto& p : programs) std::fprintf(stderr, "  %s %s\n", p.name, p.usage);
    return 2;
}

// The peer's main: parses the command line, sets the thread count, runs the
// program and prints its line. Returns the exit status.
inline int main(int argc, char** argv, const Runtime& rt, const std::vector<Program>& programs) {
    steady_allocator();
    Context cx;
    cx.peer = rt.peer;
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto& p : programs) std::printf("%s %s\n", p.name, p.usage);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') return usage(argv[0], programs);
    cx.program = argv[1];
    int status = 0;
    try {
        auto number = [&](int& i, const char* flag) -> double {
            if (i + 1 >= argc) throw UsageError(std::string(flag) + " needs a value");
            char* end = nullptr;
            double v = std::strtod(argv[++i], &end);
            if (*end != '\0' || !(v >= 0)) throw UsageError(std::string(flag) + ": bad value `" + argv[i] + "`");
            return v;
        };
        for (int i = 2; i < argc; i++) {
            std::string a = argv[i];
            if (a == "--threads") {
                double t = number(i, "--threads");
                if (t < 1 || t > 4096 || t != int(t)) throw UsageError("--threads must be 1 to 4096");
                cx.threads = int(t);
            } else if (a == "--reps") {
                double r = number(i, "--reps");
                if (r < 1 || r > 1e6 || r != int(r)) throw UsageError("--reps must be 1 to 1000000");
                cx.reps = int(r);
            } else if (a == "--warmup-ms") {
                cx.warmup_ms = number(i, "--warmup-ms");
            } else if (a == "--batch-ms") {
                cx.batch_ms = number(i, "--batch-ms");
            } else if (a == "--sequential") {
                cx.sequential = true;
            } else if (a == "--expect") {
                if (i + 1 >= argc) throw UsageError("--expect needs a value");
                cx.expect = argv[++i];
            } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
                throw UsageError("unknown flag " + a);
            } else {
                cx.args.push_back(a);
            }
        }
        const Program* program = nullptr;
        for (const auto& p : programs)
            if (cx.program == p.name) program = &p;
        if (!program) throw UsageError("unknown program `" + cx.program + "` (--list shows them)");
        rt.set_threads(cx.sequential ? 1 : cx.threads);
        program->run(cx, rt);
        if (cx.error.empty() && !cx.expect.empty() && cx.checksum != cx.expect)
            cx.error = "checksum " + cx.checksum + " differs from the expected " + cx.expect;
        if (!cx.error.empty()) status = 1;
    } catch (const UsageError& e) {
        cx.error = e.what();
        status = 2;
    } catch (const std::exception& e) {
        cx.error = std::string("failed: ") + e.what();
        status = 1;
    }
    print_line(cx, rt);
    return status;
}

}  // namespace peer
