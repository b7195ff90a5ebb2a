//! Unit tests of the SVG report: scales and columns, the critical-path
//! pieces against the timeline, and the drawn image of small runs.

use plotters::style::RGBColor;

use super::super::analysis::analyze;
use super::super::model::{Dag, EdgeKind};
use super::super::parallelism::parallelism_profile;
use super::super::test_support::{edge, fork_join_edges, strand};
use super::super::timeline::Timeline;
use super::path::{gather, scheduler_category, Piece, BUSY, WORK};
use super::report::{svg_report, Report};
use super::scale::{axis_format, format_duration, unit_for, Columns};
use super::style::{CRITICAL, LEFT, PATH_ROW_H, PLOT_W, TASK_PALETTE};

/// A small fork-join on 3 workers with delays: s0 w0 [0,10) forks s1
/// (child, stolen late by w1 at [15,30)); s2 w0 [10,20) continues and
/// forks s3 (w2 [22,26)); s4 w0 [20,21); after the joins s5 w0 [33,40).
fn small_dag() -> Dag {
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 15, 30),
        strand(0, 0, 10, 20),
        strand(2, 2, 22, 26),
        strand(0, 0, 20, 21),
        strand(0, 0, 33, 40),
    ];
    let edges = vec![
        edge(0, 1, EdgeKind::Create),
        edge(0, 2, EdgeKind::CreateContinue),
        edge(2, 3, EdgeKind::Create),
        edge(2, 4, EdgeKind::CreateContinue),
        edge(1, 5, EdgeKind::End),
        edge(3, 5, EdgeKind::End),
        edge(4, 5, EdgeKind::WaitContinue),
    ];
    Dag::new(3, strands, edges).unwrap()
}

/// The `<rect …/>` elements of an SVG as (x, y, width, height, fill).
fn rects(svg: &str) -> Vec<(i32, i32, i32, i32, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!(" {name}=\"");
        let from = tag.find(&key).unwrap() + key.len();
        tag[from..from + tag[from..].find('"').unwrap()].to_string()
    };
    svg.split("<rect")
        .skip(1)
        .map(|tag| {
            let tag = &tag[..tag.find("/>").unwrap()];
            let num = |name: &str| attr(tag, name).parse::<i32>().unwrap();
            (
                num("x"),
                num("y"),
                num("width"),
                num("height"),
                attr(tag, "fill"),
            )
        })
        .collect()
}

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

#[test]
fn units_and_durations() {
    assert_eq!(unit_for(0).name, "ns");
    assert_eq!(unit_for(9_999).name, "ns");
    assert_eq!(unit_for(10_000).name, "µs");
    assert_eq!(unit_for(12_000_000).name, "ms");
    assert_eq!(unit_for(30_000_000_000).name, "s");
    assert_eq!(format_duration(35), "35 ns");
    assert_eq!(format_duration(12_345_678), "12.346 ms");
}

#[test]
fn axis_labels_drop_needless_decimals() {
    let f = axis_format(4.48);
    assert_eq!(
        (f(&0.0), f(&4.0), f(&2.5)),
        ("0".into(), "4".into(), "2.5".into())
    );
    let f = axis_format(6720.0);
    assert_eq!((f(&6000.0), f(&0.0)), ("6000".into(), "0".into()));
    let f = axis_format(0.05);
    assert_eq!((f(&0.0125), f(&0.04)), ("0.0125".into(), "0.04".into()));
    assert_eq!(axis_format(0.3)(&0.30000000004), "0.3");
}

#[test]
fn columns_cover_the_run_exactly() {
    for (end, wanted) in [(10u64, 3usize), (35, 4), (1_000_003, 1070), (5, 1070)] {
        let c = Columns::new(end, wanted);
        assert_eq!(c.count, wanted.min(end as usize));
        assert_eq!((c.start(0), c.start(c.count)), (0, end));
        assert_eq!((c.pixel(0), c.pixel(c.count)), (LEFT, LEFT + PLOT_W));
        for t in (0..end).step_by((end / 97).max(1) as usize) {
            let k = c.of(t);
            assert!(c.start(k) <= t && t < c.start(k + 1), "{end} {wanted} {t}");
        }
    }
}

/// 2 workers: s0 w0 [0,10) forks s1, which w1 runs only at [25,30)
/// after a root s4 w1 [0,15); the continuation s2 w0 [10,20); the join
/// s3 w0 [30,32). The path s0 → s1 (create) → s3 (end) has one gap,
/// [10,25): busy on [10,15) (s2 and s4 run), then scheduler delay after
/// create on [15,25) (one piece, though running drops again at 20).
fn partly_busy_gap() -> Dag {
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 25, 30),
        strand(0, 0, 10, 20),
        strand(0, 0, 30, 32),
        strand(2, 1, 0, 15),
    ];
    Dag::new(2, strands, fork_join_edges()).unwrap()
}

#[test]
fn path_pieces_of_a_partly_busy_gap() {
    let dag = partly_busy_gap();
    let g = gather(&dag, &analyze(&dag), 4);
    let create = scheduler_category(Some(EdgeKind::Create));
    let piece = |from, to, category| Piece { from, to, category };
    assert_eq!(
        g.pieces,
        vec![
            piece(10, 15, BUSY),
            piece(15, 25, create),
            piece(0, 10, WORK),
            piece(25, 30, WORK),
            piece(30, 32, WORK),
        ]
    );
}

#[test]
fn path_pieces_match_the_timeline() {
    for dag in [small_dag(), partly_busy_gap()] {
        let a = analyze(&dag);
        let g = gather(&dag, &a, 8);
        let timeline = Timeline::new(&dag);
        let mut expected = Vec::new();
        for step in &a.critical_path.steps {
            let s = dag.strand(step.strand);
            for (from, to, busy) in timeline.busy_runs(step.gap_start, s.start) {
                let category = if busy {
                    BUSY
                } else {
                    scheduler_category(step.via)
                };
                expected.push(Piece { from, to, category });
            }
        }
        let gaps: Vec<Piece> = g
            .pieces
            .iter()
            .copied()
            .filter(|p| p.category != WORK)
            .collect();
        assert_eq!(gaps, expected);
        let p = &a.critical_path;
        let total = |cat: usize| -> u64 {
            g.pieces
                .iter()
                .filter(|x| x.category == cat)
                .map(|x| x.to - x.from)
                .sum()
        };
        assert_eq!(total(WORK), p.work);
        assert_eq!(total(BUSY), p.busy_delay);
        assert_eq!(total(2), p.initial_scheduler_delay);
        for k in EdgeKind::ALL {
            assert_eq!(total(scheduler_category(Some(k))), p.scheduler_delay_of(k));
        }
        assert_eq!(g.buckets, parallelism_profile(&dag).downsample(8));
    }
}

#[test]
fn small_report_has_one_bar_per_strand_and_every_legend() {
    let dag = small_dag();
    let a = analyze(&dag);
    let svg = svg_report(&dag, &a);
    assert!(svg.starts_with("<svg"), "{}", &svg[..60]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let report = Report::new(&dag, &a);
    let l = report.layout;
    let strand_fills: Vec<String> = TASK_PALETTE
        .iter()
        .chain([&CRITICAL])
        .map(|&c| hex(c))
        .collect();
    let all = rects(&svg);
    let in_rows = |y: i32, top: i32, bottom: i32| top <= y && y < bottom;
    let worker_bars = all
        .iter()
        .filter(|r| {
            in_rows(r.1, l.timeline_top, l.timeline_top + l.worker_rows_h)
                && strand_fills.contains(&r.4)
        })
        .count();
    assert_eq!(worker_bars, dag.strands().len());
    let path_bars = all
        .iter()
        .filter(|r| {
            in_rows(r.1, l.path_row_top, l.path_row_top + PATH_ROW_H) && r.4 == hex(CRITICAL)
        })
        .count();
    assert_eq!(path_bars, a.critical_path.steps.len());
    // Every strand on its worker's row.
    for s in dag.strands() {
        let (top, bottom) = l.worker_row(s.worker);
        let (x0, x1) = report.strand_span(s.start, s.end);
        assert!(
            all.iter()
                .any(|r| (r.0, r.1, r.0 + r.2, r.1 + r.3) == (x0, top, x1, bottom)),
            "{s:?}"
        );
    }
    for label in [
        "Run profile: 3 workers, 40 ns elapsed, 6 strands",
        "Timeline",
        "w0",
        "w2",
        "critical path",
        "critical-path strand",
        "busy delay",
        "scheduler delay after:",
        "create-continue",
        "wait-continue",
        "Parallelism profile",
        "running",
        "ready, not started",
        "workers (3)",
        "Breakdown",
        "scheduler delay after end",
        "delay (idle, strands ready)",
        "nowork (idle, nothing ready)",
        "time (ns)",
    ] {
        assert!(svg.contains(label), "missing {label:?}");
    }
    // The text is drawn as text, in the sans-serif family.
    assert!(svg.contains("font-family=\"sans-serif\""));
}

#[test]
fn a_run_of_length_zero_renders() {
    let dag = Dag::new(2, vec![strand(0, 0, 0, 0), strand(1, 1, 0, 0)], vec![]).unwrap();
    let svg = svg_report(&dag, &analyze(&dag));
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
}
