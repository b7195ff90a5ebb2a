//! Export of a run to the Chrome trace-event format ("JSON Object Format"),
//! which Perfetto (ui.perfetto.dev) and `chrome://tracing` open.
//!
//! One track (`tid`) per worker holds its strands as complete events
//! (`"ph":"X"`); one more track, named "critical path", holds the path's
//! strands and the pieces of its delay gaps, each named by the kind of the
//! step's edge and whether all workers were busy then ("busy delay") or not
//! ("scheduler delay"). Times are microseconds printed exactly from integer
//! nanoseconds (three decimals). The JSON is written by hand; all strings go
//! through [`escape_json`].

use std::fmt::Write;

use super::analysis::Analysis;
use super::model::Dag;
use super::timeline::Timeline;

/// Renders the run and its critical path as Chrome trace-event JSON.
///
/// `analysis` must be [`analyze`](super::analyze)`(dag)`.
pub fn chrome_trace(dag: &Dag, analysis: &Analysis) -> String {
    let mut events: Vec<String> = Vec::new();
    let path_track = dag.workers();
    events.push(metadata("process_name", None, "prescient run"));
    for w in 0..dag.workers() {
        events.push(metadata("thread_name", Some(w), &format!("worker {w}")));
    }
    events.push(metadata("thread_name", Some(path_track), "critical path"));
    for (i, s) in dag.strands().iter().enumerate() {
        let name = format!("task {}", s.task);
        let args = format!("{{\"strand\":{i},\"task\":{}}}", s.task);
        events.push(complete(&name, "strand", s.worker, s.start, s.end, &args));
    }
    let timeline = Timeline::new(dag);
    for step in &analysis.critical_path.steps {
        let s = dag.strand(step.strand);
        let kind = step.via.map_or("start", |k| k.name());
        for (from, to, busy) in timeline.busy_runs(step.gap_start, s.start) {
            let what = if busy {
                "busy delay"
            } else {
                "scheduler delay"
            };
            let name = format!("{what} ({kind})");
            events.push(complete(&name, "delay", path_track, from, to, "{}"));
        }
        let name = format!("task {}", s.task);
        let args = format!(
            "{{\"strand\":{},\"task\":{},\"via\":\"{}\"}}",
            step.strand.0,
            s.task,
            escape_json(kind)
        );
        events.push(complete(
            &name, "critical", path_track, s.start, s.end, &args,
        ));
    }
    let mut json = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    json.push_str(&events.join(",\n"));
    json.push_str("\n]}\n");
    json
}

/// A metadata event naming the process (`tid: None`) or a thread.
fn metadata(what: &str, tid: Option<u32>, name: &str) -> String {
    let tid = tid.map_or(String::new(), |t| format!(",\"tid\":{t}"));
    format!(
        "{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":0{tid},\"args\":{{\"name\":\"{}\"}}}}",
        escape_json(what),
        escape_json(name)
    )
}

/// A complete event on track `tid` from `start` to `end` (ns).
fn complete(name: &str, category: &str, tid: u32, start: u64, end: u64, args: &str) -> String {
    format!(
        "{{\"ph\":\"X\",\"name\":\"{}\",\"cat\":\"{}\",\"pid\":0,\"tid\":{tid},\
         \"ts\":{},\"dur\":{},\"args\":{args}}}",
        escape_json(name),
        escape_json(category),
        micros(start),
        micros(end - start)
    )
}

/// Nanoseconds as microseconds with an exact three-digit fraction.
fn micros(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// Escapes a string for use between JSON double quotes (RFC 8259 §7).
pub fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}
