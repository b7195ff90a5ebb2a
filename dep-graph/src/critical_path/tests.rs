//! Hand-computed examples, one per formula of the analysis. Each test derives
//! its expected numbers in comments; `s0, s1, …` are strand ids, `w0, w1` workers
//! and `[a, b)` the instants from `a` to `b`.

use super::test_support::{edge, fork_join_edges, strand};
use super::*;

fn path_of(a: &Analysis) -> Vec<(u32, Option<EdgeKind>)> {
    a.critical_path
        .steps
        .iter()
        .map(|s| (s.strand.0, s.via))
        .collect()
}

/// The identities every analysis satisfies.
fn assert_identities(a: &Analysis) {
    let p = &a.critical_path;
    assert_eq!(p.work + p.busy_delay + p.total_scheduler_delay(), a.elapsed);
    assert_eq!(p.length, a.elapsed);
    assert_eq!(a.run.total(), a.elapsed * u64::from(a.workers));
    let delay: f64 = a.per_worker.iter().map(|w| w.delay).sum();
    let nowork: f64 = a.per_worker.iter().map(|w| w.nowork).sum();
    assert!((delay - a.run.delay as f64).abs() < 1e-6);
    assert!((nowork - a.run.nowork as f64).abs() < 1e-6);
}

fn assert_worker(a: &Analysis, w: usize, work: u64, delay: f64, nowork: f64) {
    let share = a.per_worker[w];
    assert_eq!(share.work, work, "worker {w} work");
    assert!(
        (share.delay - delay).abs() < 1e-9,
        "worker {w} delay {}",
        share.delay
    );
    assert!(
        (share.nowork - nowork).abs() < 1e-9,
        "worker {w} nowork {}",
        share.nowork
    );
}

#[test]
fn single_strand_started_late() {
    // s0 on w0 at [5, 15), 2 workers, T = 15.
    // Path: s0 alone; gap [0, 5) has 0 of 2 workers busy → initial scheduler
    // delay 5; work 10; 10 + 5 = 15.
    // Run: [0,5): running 0, idle 2, ready 1 → delay 1, nowork 1 (×5);
    //      [5,15): running 1, idle 1, ready 0 → nowork 1 (×10).
    //      work 10, delay 5, nowork 15; total 30 = 15 × 2.
    // Per worker: on [0,5) each idle worker gets 1/2 delay and 1/2 nowork per
    // ns → 2.5 + 2.5 each; w1 also gets nowork 10 on [5,15).
    // Nowork in the path's scheduler delay: nowork on [0,5) = 5.
    let dag = Dag::new(2, vec![strand(0, 0, 5, 15)], vec![]).unwrap();
    let a = analyze(&dag);
    assert_identities(&a);
    assert_eq!(a.elapsed, 15);
    assert_eq!(path_of(&a), vec![(0, None)]);
    let p = &a.critical_path;
    assert_eq!(
        (p.work, p.busy_delay, p.initial_scheduler_delay),
        (10, 0, 5)
    );
    assert_eq!(p.scheduler_delay, [0; 4]);
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 10,
            delay: 5,
            nowork: 15
        }
    );
    assert_worker(&a, 0, 10, 2.5, 2.5);
    assert_worker(&a, 1, 0, 2.5, 12.5);
    assert_eq!(a.nowork_from_critical_scheduler_delay, 5);
}

#[test]
fn fork_join_child_stolen_at_once() {
    // 2 workers. s0 w0 [0,10) forks; child s1 w1 [10,30); continuation
    // s2 w0 [10,20); after the join s3 w1 [30,35). T = 35.
    // Path: s3's predecessors end at 30 (s1) and 20 (s2) → s1 via End; s1's
    // only predecessor s0 via Create. Gaps [0,0], [10,10], [30,30] are empty:
    // work 10 + 20 + 5 = 35, no delay.
    // Run: [0,10) running 1 → nowork 10; [10,20) running 2; [20,30) running
    // 1, nothing ready (s3 ready at 30) → nowork 10; [30,35) → nowork 5.
    // work 45, delay 0, nowork 25; 70 = 35 × 2.
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 10, 30),
        strand(0, 0, 10, 20),
        strand(0, 1, 30, 35),
    ];
    let a = analyze(&Dag::new(2, strands, fork_join_edges()).unwrap());
    assert_identities(&a);
    assert_eq!(
        path_of(&a),
        vec![
            (0, None),
            (1, Some(EdgeKind::Create)),
            (3, Some(EdgeKind::End))
        ]
    );
    let p = &a.critical_path;
    assert_eq!(
        (p.work, p.busy_delay, p.total_scheduler_delay()),
        (35, 0, 0)
    );
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 45,
            delay: 0,
            nowork: 25
        }
    );
    // w0 idle [20,35): nowork 15; w1 idle [0,10): nowork 10.
    assert_worker(&a, 0, 20, 0.0, 15.0);
    assert_worker(&a, 1, 25, 0.0, 10.0);
    assert_eq!(a.nowork_from_critical_scheduler_delay, 0);
}

#[test]
fn fork_join_on_one_worker_is_busy_delay_on_the_continuation() {
    // 1 worker, work-first: s0 [0,10) forks; the worker runs child s1
    // [10,30), then the continuation s2 [30,40), then s3 [40,45). T = 45.
    // Path: s3's predecessors end at 30 (s1) and 40 (s2) → s2 via
    // WaitContinue; s2's predecessor s0 via CreateContinue. The gap
    // [10,30) before s2 has the only worker busy (running s1) → busy delay
    // 20, on the create-continue step. work 10 + 10 + 5 = 25; 25 + 20 = 45.
    // Run: the worker is never idle → work 45, delay 0, nowork 0.
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 0, 10, 30),
        strand(0, 0, 30, 40),
        strand(0, 0, 40, 45),
    ];
    let a = analyze(&Dag::new(1, strands, fork_join_edges()).unwrap());
    assert_identities(&a);
    assert_eq!(
        path_of(&a),
        vec![
            (0, None),
            (2, Some(EdgeKind::CreateContinue)),
            (3, Some(EdgeKind::WaitContinue))
        ]
    );
    let p = &a.critical_path;
    assert_eq!(
        (p.work, p.busy_delay, p.total_scheduler_delay()),
        (25, 20, 0)
    );
    assert_eq!(p.steps[1].busy_delay, 20);
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 45,
            delay: 0,
            nowork: 0
        }
    );
    assert_worker(&a, 0, 45, 0.0, 0.0);
    assert_eq!(a.nowork_from_critical_scheduler_delay, 0);
}

/// 2 workers: s0 w0 [0,10) forks; child s1 is stolen late by w1 at
/// [15,25); continuation s2 w0 [10,12); s3 w1 [25,30).
fn late_steal() -> Dag {
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 15, 25),
        strand(0, 0, 10, 12),
        strand(0, 1, 25, 30),
    ];
    Dag::new(2, strands, fork_join_edges()).unwrap()
}

#[test]
fn scheduler_delay_of_a_created_child() {
    // Path: s3's predecessors end at 25 (s1) and 12 (s2) → s1 via End (gap
    // [25,25] empty); s1 via Create from s0, gap [10,15): 1 worker busy on
    // [10,12), none on [12,15) → never all busy → create scheduler delay 5.
    // work 10 + 10 + 5 = 25; 25 + 5 = 30 = T.
    // Run: [0,10): running 1, idle 1, nothing ready → nowork 10;
    //      [10,12): running 1, idle 1, ready 1 (s1) → delay 2;
    //      [12,15): running 0, idle 2, ready 1 → delay 3, nowork 3;
    //      [15,25): running 1, idle 1, nothing ready → nowork 10;
    //      [25,30): running 1 → nowork 5.
    //      work 27, delay 5, nowork 28; 60 = 30 × 2.
    // Per worker: w0 idle from 12: [12,15) half each → delay 1.5, nowork 1.5,
    //   then nowork 10 + 5 → (12, 1.5, 16.5).
    //   w1 idle until 15: nowork 10, delay 2, then 1.5 + 1.5 → (15, 3.5, 11.5).
    // Nowork in the path's scheduler delay [10,15): 0 + 3 = 3.
    let a = analyze(&late_steal());
    assert_identities(&a);
    assert_eq!(
        path_of(&a),
        vec![
            (0, None),
            (1, Some(EdgeKind::Create)),
            (3, Some(EdgeKind::End))
        ]
    );
    let p = &a.critical_path;
    assert_eq!((p.work, p.busy_delay), (25, 0));
    assert_eq!(p.scheduler_delay_of(EdgeKind::Create), 5);
    assert_eq!(p.total_scheduler_delay(), 5);
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 27,
            delay: 5,
            nowork: 28
        }
    );
    assert_worker(&a, 0, 12, 1.5, 16.5);
    assert_worker(&a, 1, 15, 3.5, 11.5);
    assert_eq!(a.nowork_from_critical_scheduler_delay, 3);
}

#[test]
fn scheduler_delay_of_a_continuation() {
    // 2 workers, work-first: s0 w0 [0,10) forks; w0 runs child s1 [10,30);
    // the continuation s2 is stolen late by w1 at [20,40); s3 w1 [40,45).
    // Path: s3's predecessors end at 30 (s1) and 40 (s2) → s2 via
    // WaitContinue (empty gap); s2 via CreateContinue from s0, gap [10,20):
    // only w0 busy → create-continue scheduler delay 10.
    // work 10 + 20 + 5 = 35; 35 + 10 = 45 = T.
    // Run: [0,10) nowork 10; [10,20) idle 1, ready 1 (s2) → delay 10;
    //      [20,30) running 2; [30,40) idle 1, nothing ready → nowork 10;
    //      [40,45) nowork 5. work 55, delay 10, nowork 25; 90 = 45 × 2.
    // Per worker: w0 (30, 0, 15); w1 idle [0,20): (25, 10, 10).
    // Nowork in the path's scheduler delay [10,20): 0 (the idle worker's
    // time is delay, as s2 was ready).
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 0, 10, 30),
        strand(0, 1, 20, 40),
        strand(0, 1, 40, 45),
    ];
    let a = analyze(&Dag::new(2, strands, fork_join_edges()).unwrap());
    assert_identities(&a);
    assert_eq!(
        path_of(&a),
        vec![
            (0, None),
            (2, Some(EdgeKind::CreateContinue)),
            (3, Some(EdgeKind::WaitContinue))
        ]
    );
    let p = &a.critical_path;
    assert_eq!((p.work, p.busy_delay), (35, 0));
    assert_eq!(p.scheduler_delay, [0, 10, 0, 0]);
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 55,
            delay: 10,
            nowork: 25
        }
    );
    assert_worker(&a, 0, 30, 0.0, 15.0);
    assert_worker(&a, 1, 25, 10.0, 10.0);
    assert_eq!(a.nowork_from_critical_scheduler_delay, 0);
}

#[test]
fn timeline_interval_queries() {
    // 2 workers. s0 w0 [0,10) forks child s1 w1 [14,16); the continuation
    // s2 w0 [10,20); the join s3 w0 [20,22); an unrelated root s4 w1 [0,14).
    // Both workers busy on [0,16) (w0: s0, s2; w1: s4, s1); only w0 on
    // [16,22). Nowork: [16,22) has w1 idle and nothing ready (s3 is ready
    // at 20 and starts at 20) → 1 per ns.
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 14, 16),
        strand(0, 0, 10, 20),
        strand(0, 0, 20, 22),
        strand(2, 1, 0, 14),
    ];
    let dag = Dag::new(2, strands, fork_join_edges()).unwrap();
    let timeline = Timeline::new(&dag);
    assert_eq!(timeline.end(), 22);
    assert_eq!(timeline.all_busy_within(10, 16), 6);
    assert_eq!(timeline.all_busy_within(0, 22), 16);
    assert_eq!(timeline.all_busy_within(3, 5), 2);
    assert_eq!(timeline.all_busy_within(15, 30), 1);
    assert_eq!(timeline.nowork_within(0, 22), 6);
    assert_eq!(timeline.nowork_within(17, 19), 2);
    assert_eq!(timeline.nowork_within(21, 40), 1);
    assert_eq!(
        timeline.busy_runs(5, 22),
        vec![(5, 16, true), (16, 22, false)]
    );
    // Path: s3's predecessors end at 16 (s1) and 20 (s2) → s2 via
    // WaitContinue; s2 via CreateContinue from s0; no gaps: work 22.
    let a = analyze(&dag);
    assert_identities(&a);
    assert_eq!(a.critical_path.work, 22);
}

#[test]
fn busy_and_scheduler_parts_of_one_gap() {
    // 2 workers. Root s0 w0 [0,10) forks child s1; w0 goes on with an
    // unrelated root s2 [10,30) and w1 with another root s3 [0,15); s1 runs
    // on w1 at [20,25). The join s4 w1 [30,31) follows s1 (End) and s2
    // (WaitContinue, standing in for the parent's wait).
    // Path: s4's predecessors end at 25 (s1) and 30 (s2) → s2 (a root).
    // To put s1 on the path instead, s2 is no predecessor here: s4 follows
    // s1 only. Path: s0, s1 (Create, gap [10,20)), s4 (End, gap [25,30)).
    // Gap [10,20): both busy on [10,15) → busy 5; [15,20) w1 idle →
    // create scheduler delay 5. Gap [25,30): w1 idle → end scheduler
    // delay 5 (s4 was ready at 25). work 10 + 5 + 1 = 16;
    // 16 + 5 + 5 + 5 = 31 = T.
    // Run: [0,15) running 2; [15,20) idle 1, ready 1 (s1) → delay 5;
    //      [20,25) running 2; [25,30) idle 1, ready 1 (s4) → delay 5;
    //      [30,31) idle 1, nothing ready → nowork 1.
    //      work 10+20+15+5+1 = 51, delay 10, nowork 1; 62 = 31 × 2.
    // Nowork in the path's scheduler delay ([15,20) and [25,30)): 0.
    let strands = vec![
        strand(0, 0, 0, 10),
        strand(1, 1, 20, 25),
        strand(2, 0, 10, 30),
        strand(3, 1, 0, 15),
        strand(0, 1, 30, 31),
    ];
    let edges = vec![edge(0, 1, EdgeKind::Create), edge(1, 4, EdgeKind::End)];
    let a = analyze(&Dag::new(2, strands, edges).unwrap());
    assert_identities(&a);
    assert_eq!(
        path_of(&a),
        vec![
            (0, None),
            (1, Some(EdgeKind::Create)),
            (4, Some(EdgeKind::End))
        ]
    );
    let p = &a.critical_path;
    assert_eq!((p.work, p.busy_delay), (16, 5));
    assert_eq!(p.scheduler_delay, [5, 0, 5, 0]);
    assert_eq!((p.steps[1].busy_delay, p.steps[1].scheduler_delay), (5, 5));
    assert_eq!(
        a.run,
        RunBreakdown {
            work: 51,
            delay: 10,
            nowork: 1
        }
    );
    assert_eq!(a.nowork_from_critical_scheduler_delay, 0);
}

#[test]
fn ties_go_to_the_smallest_strand_id() {
    // s0 and s1 both end at 5; s2 follows both (edge from s1 listed first),
    // s3 also ends at 10 like s2. Last strand: s2 (smaller than s3); its
    // predecessor: s0 (smaller than s1).
    let strands = vec![
        strand(0, 0, 0, 5),
        strand(1, 1, 0, 5),
        strand(0, 0, 5, 10),
        strand(2, 1, 5, 10),
    ];
    let edges = vec![
        edge(1, 2, EdgeKind::End),
        edge(0, 2, EdgeKind::WaitContinue),
    ];
    let a = analyze(&Dag::new(2, strands, edges).unwrap());
    assert_eq!(
        path_of(&a),
        vec![(0, None), (2, Some(EdgeKind::WaitContinue))]
    );
}

#[test]
fn zero_length_strands_are_allowed() {
    // Zero-length strands at one instant on one worker do not overlap, and a
    // chain through them is fine (no cycle).
    let strands = vec![strand(0, 0, 0, 0), strand(0, 0, 0, 0), strand(0, 0, 0, 3)];
    let edges = vec![
        edge(0, 1, EdgeKind::CreateContinue),
        edge(1, 2, EdgeKind::CreateContinue),
    ];
    let a = analyze(&Dag::new(1, strands, edges).unwrap());
    assert_identities(&a);
    assert_eq!(a.critical_path.steps.len(), 3);
    assert_eq!(a.run.work, 3);
}

#[test]
fn every_validation_error() {
    use TraceError as E;
    let ok = strand(0, 0, 0, 10);
    let cases: Vec<(u32, Vec<Strand>, Vec<Edge>, TraceError)> = vec![
        (1, vec![], vec![], E::NoStrands),
        (
            1,
            vec![ok, strand(0, 1, 0, 1)],
            vec![],
            E::UnknownWorker {
                strand: StrandId(1),
                worker: 1,
                workers: 1,
            },
        ),
        (
            1,
            vec![strand(0, 0, 5, 4)],
            vec![],
            E::EndsBeforeStart {
                strand: StrandId(0),
                start: 5,
                end: 4,
            },
        ),
        (
            1,
            vec![ok],
            vec![edge(0, 7, EdgeKind::Create)],
            E::UnknownStrand {
                edge: 0,
                strand: StrandId(7),
            },
        ),
        (
            2,
            vec![ok, strand(1, 1, 9, 12)],
            vec![edge(0, 1, EdgeKind::Create)],
            E::SuccessorStartsEarly {
                edge: 0,
                from_end: 10,
                to_start: 9,
            },
        ),
        (
            1,
            vec![strand(1, 0, 9, 12), ok],
            vec![],
            E::Overlap {
                worker: 0,
                first: StrandId(1),
                second: StrandId(0),
            },
        ),
        (
            1,
            vec![strand(0, 0, 3, 3), strand(0, 0, 3, 3)],
            vec![edge(0, 1, EdgeKind::End), edge(1, 0, EdgeKind::End)],
            E::Cycle {
                strand: StrandId(0),
            },
        ),
        (
            1,
            vec![strand(0, 0, 3, 3)],
            vec![edge(0, 0, EdgeKind::End)],
            E::Cycle {
                strand: StrandId(0),
            },
        ),
    ];
    for (workers, strands, edges, expected) in cases {
        let got = Dag::new(workers, strands, edges).unwrap_err();
        assert_eq!(got, expected);
        assert!(!got.to_string().is_empty());
    }
}

#[test]
fn report_mentions_every_part() {
    let report = analyze(&late_steal()).to_string();
    for needle in [
        "2 workers",
        "30 ns elapsed",
        "critical path: 3 strands",
        "after create",
        "after create-continue",
        "busy delay",
        "run breakdown",
        "nowork during critical-path scheduler delay: 3 worker-ns",
    ] {
        assert!(report.contains(needle), "{needle:?} missing from\n{report}");
    }
}

#[test]
fn chrome_trace_has_one_event_per_strand_and_path_piece() {
    let dag = late_steal();
    let a = analyze(&dag);
    let json = chrome_trace(&dag, &a);
    // 1 process name + 2 worker names + 1 path name, 4 strands, 3 path
    // strands, 1 delay piece ([10,15) create scheduler delay).
    assert_eq!(json.matches("\"ph\":\"M\"").count(), 4);
    assert_eq!(json.matches("\"ph\":\"X\"").count(), 4 + 3 + 1);
    assert!(json.contains("\"name\":\"scheduler delay (create)\""));
    assert!(json.contains("\"ts\":0.010,\"dur\":0.005"));
    assert!(json.contains("\"name\":\"critical path\""));
}

#[test]
fn json_escaping() {
    assert_eq!(escape_json("a\"b\\c\nd\u{1}é"), "a\\\"b\\\\c\\nd\\u0001é");
}

#[test]
fn findings_name_a_delayed_continuation_and_the_idle_machine() {
    // s0 (task 0, w0) [0, 10) forks s1 (task 1, w1) [10, 20); the parent's
    // continuation s2 (task 0, w0) starts only at 30 and runs to 100.
    // Path: s0, then s2 via create-continue; its gap [10, 30) is never all
    // busy → create-continue scheduler delay 20. Work 10 + 70 = 80.
    // Run (T = 100, 2 workers, total 200): work 10 + 10 + 70 = 90;
    // [0, 10): w1 idle, nothing ready → nowork 10; [10, 20): w0 idle, s2
    // ready → delay 10; [20, 30): both idle, s2 ready → delay 10, nowork
    // 10; [30, 100): w1 idle, nothing ready → nowork 70. Delay 20 (10 %),
    // nowork 90 (45 %), of which 10 (11.1 %) in the path's gap [10, 30).
    let dag = Dag::new(
        2,
        vec![
            strand(0, 0, 0, 10),
            strand(1, 1, 10, 20),
            strand(0, 0, 30, 100),
        ],
        vec![
            edge(0, 1, EdgeKind::Create),
            edge(0, 2, EdgeKind::CreateContinue),
        ],
    )
    .unwrap();
    let a = analyze(&dag);
    assert_identities(&a);
    assert_eq!(
        a.critical_path.scheduler_delay_of(EdgeKind::CreateContinue),
        20
    );
    assert_eq!((a.run.work, a.run.delay, a.run.nowork), (90, 20, 90));
    assert_eq!(a.nowork_from_critical_scheduler_delay, 10);
    assert_eq!(
        a.path_tasks,
        vec![PathTask {
            task: 0,
            work: 80,
            strands: 2
        }]
    );
    let findings = a.findings();
    assert_eq!(findings.len(), 4, "{findings:#?}");
    assert!(findings[0].starts_with("work is 80.0% of the critical path"));
    assert!(findings[0].contains("task 0 holds 100.0% of it in 2 strands"));
    assert!(findings[1].starts_with("nowork is 45.0%"));
    assert!(findings[1].contains("11.1% of it while the critical path waited"));
    assert!(findings[2].starts_with("create-continue scheduler delay is 20.0%"));
    assert!(findings[3].starts_with("delay is 10.0%"));
    let report = a.to_string();
    assert!(report.contains("findings:") && report.contains("critical path work by task:"));
}
