//! The task-aware MPI checks (`prescient::mpi`), run under `mpirun` by
//! `tests/tests/mpi/main.rs` with 2 and 4 ranks (any even count works):
//! each rank pairs with `rank ^ 1` and runs every check, with a barrier
//! between checks; a failed check panics (a non-zero exit), a hang is cut by
//! a watchdog. `mpi-checks shutdown` instead drops the `Universe` while a
//! task still waits for a receive, which must fail with a clear message.

use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, Process, SimpleCommunicator};
use mpi::traits::*;
use prescient::{Runtime, TaskGroup};
use prescient_tests::{quiet_panics_containing, threads_named, watchdog};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(120);

/// A check, run by every rank.
type Check = fn(&SimpleCommunicator);

fn main() {
    let universe = prescient::mpi::initialize().expect("MPI with MPI_THREAD_MULTIPLE");
    let world = universe.world();
    assert!(world.size() % 2 == 0, "run with an even number of ranks");
    if std::env::args().nth(1).as_deref() == Some("shutdown") {
        shutdown_with_a_pending_request(&world);
        drop(universe);
        unreachable!("dropping the universe with a pending request must panic");
    }
    let checks: [(&str, Check); 9] = [
        (
            "a pending receive suspends only its task",
            suspends_only_the_task,
        ),
        ("thousands of tasks wait at once", thousands_of_tasks_wait),
        ("waiting tasks cost no CPU", waiting_costs_no_cpu),
        (
            "a request that never completes blocks nothing",
            a_stuck_request_blocks_nothing,
        ),
        (
            "wait_any returns the completed request",
            wait_any_returns_the_completed_one,
        ),
        ("panics in tasks that hold requests", panics_with_requests),
        (
            "a bound receive orders its successors",
            binding_orders_successors,
        ),
        (
            "a request finished already neither suspends nor defers",
            finished_requests_take_the_fast_path,
        ),
        (
            "a bound receive outlives its task's panic",
            a_bound_receive_outlives_a_panic,
        ),
    ];
    // `MPI_CHECKS=word,...` runs only the checks whose name contains one of
    // the words; a word after `-` leaves out the checks that contain it
    // (`MPI_CHECKS=-CPU`: every check but the CPU measurement, which a
    // sanitizer's slowdown would fail).
    let filter = std::env::var("MPI_CHECKS").unwrap_or_default();
    let (without, with): (Vec<&str>, Vec<&str>) = filter
        .split(',')
        .filter(|word| !word.is_empty())
        .partition(|word| word.starts_with('-'));
    for (name, check) in checks {
        let wanted = with.is_empty() || with.iter().any(|word| name.contains(word));
        if !wanted || without.iter().any(|word| name.contains(&word[1..])) {
            continue;
        }
        world.barrier();
        watchdog(name, LIMIT, || check(&world));
        if world.rank() == 0 {
            println!("ok: {name}");
        }
    }
    world.barrier();
    println!("rank {}: all checks passed", world.rank());
}

fn partner(world: &SimpleCommunicator) -> i32 {
    world.rank() ^ 1
}

/// rsmpi's communicators are not `Send`: a task takes the world
/// communicator afresh (`SimpleCommunicator::world()` costs nothing) and
/// talks to `rank` through it.
fn with_rank<R>(rank: i32, f: impl FnOnce(Process<'_>) -> R) -> R {
    let world = SimpleCommunicator::world();
    f(world.process_at_rank(rank))
}

/// One worker per rank. The scope body waits for its partner's message,
/// which the partner sends from a task spawned just before its own wait:
/// if a wait blocked the worker, that task could never run on either rank
/// and both would hang.
fn suspends_only_the_task(world: &SimpleCommunicator) {
    let rt = Runtime::builder().num_workers(1).build().unwrap();
    let (rank, peer) = (world.rank(), partner(world));
    for round in 0..20 {
        let got = rt.run(|| {
            let mut got = -1i32;
            prescient::scope(|s| {
                s.spawn(move |_| {
                    let value = rank * 1000 + round;
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            prescient::mpi::wait(other.immediate_send_with_tag(scope, &value, 1));
                        })
                    });
                });
                with_rank(peer, |other| {
                    mpi::request::scope(|scope| {
                        let receive = other.immediate_receive_into_with_tag(scope, &mut got, 1);
                        prescient::mpi::wait(receive);
                    })
                });
            });
            got
        });
        assert_eq!(got, partner(world) * 1000 + round);
    }
}

/// 2,000 tasks per rank, each sending one message and waiting for one.
fn thousands_of_tasks_wait(world: &SimpleCommunicator) {
    const TASKS: i32 = 2000;
    let rt = Runtime::builder().num_workers(4).build().unwrap();
    let peer = partner(world);
    let rank = world.rank() as u64;
    let sum = Arc::new(AtomicU64::new(0));
    rt.run(|| {
        let group = TaskGroup::new();
        for tag in 0..TASKS {
            let sum = sum.clone();
            group.spawn(move || {
                let value = rank * 1_000_000 + tag as u64;
                let mut got = 0u64;
                with_rank(peer, |other| {
                    mpi::request::scope(|scope| {
                        let receive =
                            other.immediate_receive_into_with_tag(scope, &mut got, 100 + tag);
                        let send = other.immediate_send_with_tag(scope, &value, 100 + tag);
                        prescient::mpi::wait(send);
                        prescient::mpi::wait(receive);
                    })
                });
                assert_eq!(got, peer as u64 * 1_000_000 + tag as u64);
                sum.fetch_add(got, Ordering::Relaxed);
            });
        }
        group.wait();
    });
    let n = TASKS as u64;
    assert_eq!(
        sum.load(Ordering::Relaxed),
        n * partner(world) as u64 * 1_000_000 + n * (n - 1) / 2
    );
}

/// CPU ticks (user + system) of this process's threads named `prefix`.
fn worker_ticks(prefix: &str) -> u64 {
    threads_named(prefix).iter().map(|t| t.cpu_ticks).sum()
}

fn ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).unwrap_or(100)
}

/// 1,000 tasks suspended on receives whose messages the partner sends a
/// second later (from a plain thread): the workers use under 5 % of a core
/// in that second.
fn waiting_costs_no_cpu(world: &SimpleCommunicator) {
    const TASKS: i32 = 1000;
    let rt = Runtime::builder()
        .num_workers(2)
        .thread_name(|i| format!("mpi-idle-{i}"))
        .build()
        .unwrap();
    let peer = partner(world);
    let received = Arc::new(AtomicU64::new(0));
    let used = std::thread::scope(|threads| {
        threads.spawn(move || {
            std::thread::sleep(Duration::from_millis(1100));
            with_rank(peer, |other| {
                for tag in 0..TASKS {
                    other.send_with_tag(&tag, 5000 + tag);
                }
            });
        });
        let measure = threads.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            let before = worker_ticks("mpi-idle-");
            let start = Instant::now();
            std::thread::sleep(Duration::from_millis(900));
            let used = worker_ticks("mpi-idle-") - before;
            (used, start.elapsed(), received.load(Ordering::Relaxed))
        });
        rt.run(|| {
            let group = TaskGroup::new();
            for tag in 0..TASKS {
                let received = received.clone();
                group.spawn(move || {
                    let mut got = 0i32;
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            prescient::mpi::wait(other.immediate_receive_into_with_tag(
                                scope,
                                &mut got,
                                5000 + tag,
                            ));
                        })
                    });
                    assert_eq!(got, tag);
                    received.fetch_add(1, Ordering::Relaxed);
                });
            }
            group.wait();
        });
        measure.join().unwrap()
    });
    let (used, elapsed, early) = used;
    assert_eq!(early, 0, "no message was sent while measuring");
    assert_eq!(received.load(Ordering::Relaxed), TASKS as u64);
    let budget = elapsed.as_secs_f64() * ticks_per_second() as f64 * 0.05;
    println!(
        "rank {}: {TASKS} waiting tasks, workers used {used} ticks in {elapsed:?} (5 % of a core: {budget:.1})",
        world.rank()
    );
    assert!(
        (used as f64) <= budget.max(1.0),
        "waiting workers used {used} ticks in {elapsed:?}, more than 5 % of a core"
    );
}

/// A task waits for a receive that only arrives at the end, while the
/// runtime's other work runs to completion on the same workers.
fn a_stuck_request_blocks_nothing(world: &SimpleCommunicator) {
    let rt = Runtime::builder().num_workers(2).build().unwrap();
    let (other, peer) = (world.process_at_rank(partner(world)), partner(world));
    let group = Arc::new(TaskGroup::new());
    let got = Arc::new(AtomicU64::new(0));
    rt.run(|| {
        let got = got.clone();
        group.spawn(move || {
            let mut value = 0u64;
            with_rank(peer, |other| {
                mpi::request::scope(|scope| {
                    let receive = other.immediate_receive_into_with_tag(scope, &mut value, 7777);
                    prescient::mpi::wait(receive);
                })
            });
            got.store(value, Ordering::Relaxed);
        });
    });
    for n in [20, 24, 26] {
        assert_eq!(
            rt.run(|| prescient_tests::fib_join(n)),
            prescient_tests::fib_seq(n)
        );
    }
    assert_eq!(got.load(Ordering::Relaxed), 0);
    // Both ranks checked before either sends.
    world.barrier();
    other.send_with_tag(&42u64, 7777);
    rt.run(|| group.wait());
    assert_eq!(got.load(Ordering::Relaxed), 42);
}

/// Receives posted for tags 0..4; the partner sends tag 2 first.
fn wait_any_returns_the_completed_one(world: &SimpleCommunicator) {
    let rt = Runtime::builder().num_workers(2).build().unwrap();
    let peer = partner(world);
    rt.run(|| {
        let mut buffers = [0i32; 4];
        prescient::scope(|s| {
            s.spawn(move |_| {
                let (first, rest) = (2i32, [0i32, 1, 3]);
                let mut go = 0i32;
                with_rank(peer, |other| {
                    mpi::request::scope(|scope| {
                        prescient::mpi::wait(other.immediate_send_with_tag(scope, &first, 302));
                        // The rest only after the partner's wait_any returned.
                        prescient::mpi::wait(
                            other.immediate_receive_into_with_tag(scope, &mut go, 399),
                        );
                        for tag in &rest {
                            prescient::mpi::wait(other.immediate_send_with_tag(
                                scope,
                                tag,
                                300 + tag,
                            ));
                        }
                    })
                });
            });
            with_rank(peer, |other| {
                mpi::request::scope(|scope| {
                    let mut requests: Vec<_> = buffers
                        .iter_mut()
                        .enumerate()
                        .map(|(tag, buffer)| {
                            other.immediate_receive_into_with_tag(scope, buffer, 300 + tag as i32)
                        })
                        .collect();
                    let (index, status) = prescient::mpi::wait_any(&mut requests).expect("active");
                    assert_eq!((index, status.tag()), (2, 302));
                    assert_eq!(requests.len(), 3);
                    prescient::mpi::wait(other.immediate_send_with_tag(scope, &1i32, 399));
                    let statuses = prescient::mpi::wait_all(requests);
                    let tags: Vec<i32> = statuses.iter().map(|s| s.tag()).collect();
                    assert_eq!(tags, [300, 301, 303]);
                })
            });
        });
        assert_eq!(buffers, [0, 1, 2, 3]);
    });
}

/// A task that panics after its wait, and one that panics while holding a
/// request (a `CancelGuard`, which cancels and completes it on unwind): the
/// panics reach the joiner and the runtime stays usable.
fn panics_with_requests(world: &SimpleCommunicator) {
    quiet_panics_containing(&["after the message", "holding a request"]);
    let rt = Runtime::builder().num_workers(2).build().unwrap();
    let peer = partner(world);
    let result = catch_unwind(AssertUnwindSafe(|| {
        rt.run(|| {
            let mut got = 0i32;
            with_rank(peer, |other| {
                mpi::request::scope(|scope| {
                    let receive = other.immediate_receive_into_with_tag(scope, &mut got, 600);
                    prescient::mpi::wait(other.immediate_send_with_tag(scope, &6i32, 600));
                    prescient::mpi::wait(receive);
                })
            });
            assert_eq!(got, 6);
            panic!("a task panicked after the message");
        })
    }));
    assert!(result.is_err());
    let result = catch_unwind(AssertUnwindSafe(|| {
        rt.run(|| {
            let mut got = 0i32;
            with_rank(peer, |other| {
                mpi::request::scope(|scope| {
                    let _guard = mpi::request::CancelGuard::from(
                        other.immediate_receive_into_with_tag(scope, &mut got, 601),
                    );
                    panic!("a task panicked holding a request");
                })
            })
        })
    }));
    assert!(result.is_err());
    // Still usable: one more exchange.
    let got = rt.run(|| {
        let mut got = 0i32;
        with_rank(peer, |other| {
            mpi::request::scope(|scope| {
                let receive = other.immediate_receive_into_with_tag(scope, &mut got, 602);
                prescient::mpi::wait(other.immediate_send_with_tag(scope, &7i32, 602));
                prescient::mpi::wait(receive);
            })
        });
        got
    });
    assert_eq!(got, 7);
}

/// One worker per rank, four dataflow tasks per round: `receive` binds a
/// receive into its `out` data and returns; `ask` (independent) tells the
/// partner to send; `answer` waits for the partner's ask, then sends;
/// `read` reads the received data. The message is sent only after `ask`
/// ran, so if binding blocked the worker, `ask` could not run on either
/// rank and both would hang; `read` must see the message, so it ran after
/// the receive completed although `receive`'s body returned long before.
fn binding_orders_successors(world: &SimpleCommunicator) {
    // Capacity 1 makes the submitter run ready tasks at once, unregistered
    // when nothing conflicts (the fast path), so a bound task is then
    // registered after its body ran.
    for capacity in [16, 1] {
        let rt = Runtime::builder()
            .num_workers(1)
            .params(prescient::Params::DEFAULT.with_queue_capacity(capacity))
            .build()
            .unwrap();
        binding_rounds(world, &rt);
    }
}

fn binding_rounds(world: &SimpleCommunicator, rt: &Runtime) {
    let (rank, peer) = (world.rank(), partner(world));
    for round in 0..10 {
        let log = std::sync::Mutex::new(Vec::new());
        let got = rt.run(|| {
            let mut got = -1;
            prescient::dataflow(|df| {
                let halo = df.data(-1i32);
                let log = &log;
                // Queued first: at capacity 1 the receive task below then
                // takes the fast path (run at once, unregistered).
                let other = df.data(0u8);
                df.task(other.out(), |value: &mut u8| *value = 1);
                df.task(halo.out(), move |halo: &mut i32| {
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            let receive = other.immediate_receive_into_with_tag(scope, halo, 800);
                            // SAFETY: the buffer is this task's `out` data,
                            // which only `read` (after the completion)
                            // touches next.
                            unsafe { prescient::mpi::bind(vec![receive]) };
                        })
                    });
                    log.lock().unwrap().push("receive");
                });
                df.task((), move |()| {
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            prescient::mpi::wait(other.immediate_send_with_tag(scope, &round, 801));
                        })
                    });
                    log.lock().unwrap().push("ask");
                });
                df.task((), move |()| {
                    let value = rank * 100 + round;
                    with_rank(peer, |other| {
                        let mut asked = -1;
                        mpi::request::scope(|scope| {
                            let ask = other.immediate_receive_into_with_tag(scope, &mut asked, 801);
                            prescient::mpi::wait(ask);
                            prescient::mpi::wait(other.immediate_send_with_tag(scope, &value, 800));
                        });
                        assert_eq!(asked, round);
                    });
                });
                let got = &mut got;
                df.task(halo.read(), move |halo: &i32| {
                    log.lock().unwrap().push("read");
                    *got = *halo;
                });
            });
            got
        });
        assert_eq!(got, peer * 100 + round, "round {round}");
        let log = log.into_inner().unwrap();
        let at = |what| log.iter().position(|&entry| entry == what).unwrap();
        assert!(
            at("receive") < at("read") && at("ask") < at("read"),
            "{log:?}"
        );
    }
}

/// Each rank sends its partner two small messages (under any transport's
/// eager limit) with blocking sends, then both pass a barrier: the
/// messages arrived before the barrier's own (MPI delivers in order per
/// pair), so a receive posted after it is matched at once. A task waiting
/// for such a receive must not suspend (the `suspensions` counter stays
/// put), and a dataflow task binding one completes as if it bound nothing:
/// its successor reads the message.
fn finished_requests_take_the_fast_path(world: &SimpleCommunicator) {
    let rt = Runtime::builder().num_workers(1).build().unwrap();
    let (rank, peer) = (world.rank(), partner(world));
    for round in 0..5 {
        let values = [rank * 10 + round, rank * 10 + round + 5];
        world.process_at_rank(peer).send_with_tag(&values[0], 900);
        world.process_at_rank(peer).send_with_tag(&values[1], 901);
        world.barrier();
        let before = rt.counters();
        let waited = rt.run(|| {
            let mut waited = -1;
            with_rank(peer, |other| {
                mpi::request::scope(|scope| {
                    let receive = other.immediate_receive_into_with_tag(scope, &mut waited, 900);
                    prescient::mpi::wait(receive);
                })
            });
            waited
        });
        let suspensions = rt.counters().since(&before).suspensions;
        assert_eq!(waited, peer * 10 + round);
        assert_eq!(
            suspensions, 0,
            "round {round}: a finished receive suspended its task"
        );
        let bound = rt.run(|| {
            let mut bound = -1;
            prescient::dataflow(|df| {
                let halo = df.data(-1i32);
                df.task(halo.out(), move |halo: &mut i32| {
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            let receive = other.immediate_receive_into_with_tag(scope, halo, 901);
                            // SAFETY: the buffer is this task's `out` data.
                            unsafe { prescient::mpi::bind(vec![receive]) };
                        })
                    });
                });
                let bound = &mut bound;
                df.task(halo.read(), move |halo: &i32| *bound = *halo);
            });
            bound
        });
        assert_eq!(bound, peer * 10 + round + 5);
    }
}

/// The size of the receive bound by a task that then panics: large enough
/// to take Open MPI's rendezvous path, so the data lands only when the
/// receiving rank's poll matches it.
const LATE_MESSAGE: usize = 1 << 20;

/// Issue 36: a dataflow task posts a 1 MiB receive into its own `out` data,
/// binds it, tells its partner, and panics; the partner sends only 300 ms
/// later. The task must complete only once the message has landed, so the
/// scope keeps the buffer alive until then: the panic reaches `df.wait()`,
/// and memory allocated after the scope (probes with a pattern, which
/// would take the freed buffer's place) is intact after the message
/// arrived. At queue capacity 1 the task takes the submission fast path
/// (run unregistered, its panic poisons its own data before it is
/// registered); at 16 it is registered and runs from the deque. Even ranks
/// receive, odd ranks send; the receiving runtime stays usable afterwards.
fn a_bound_receive_outlives_a_panic(world: &SimpleCommunicator) {
    quiet_panics_containing(&["panicked after binding"]);
    // glibc serves blocks this large with mmap until one such block is
    // freed, then from its heaps: freeing one first makes the buffer and the
    // probes below heap blocks, so that an early free shows as overwritten
    // probes rather than only as a crash.
    drop(std::hint::black_box(vec![1u8; 4 * LATE_MESSAGE]));
    let peer = partner(world);
    for (round, capacity) in [1usize, 16].into_iter().enumerate() {
        let tag = 1000 + 10 * round as i32;
        if world.rank() % 2 == 1 {
            let other = world.process_at_rank(peer);
            let (posted, _) = other.receive_with_tag::<i32>(tag + 1);
            assert_eq!(posted, 1);
            std::thread::sleep(Duration::from_millis(300));
            other.send_with_tag(&vec![0x3Cu8; LATE_MESSAGE][..], tag);
            other.send_with_tag(&1i32, tag + 2);
            other.send_with_tag(&(77 + round as i32), tag + 3);
            continue;
        }
        let rt = Runtime::builder()
            .num_workers(1)
            .params(prescient::Params::DEFAULT.with_queue_capacity(capacity))
            .build()
            .unwrap();
        let raised = rt.run(|| {
            prescient::dataflow(|df| {
                // Queued first: at capacity 1 the receiving task then runs
                // at once, unregistered (the fast path).
                let other = df.data(0u8);
                df.task(other.out(), |value: &mut u8| *value = 1);
                let buffer = df.data(vec![0u8; LATE_MESSAGE]);
                df.task(buffer.out(), move |buffer: &mut Vec<u8>| {
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            let receive =
                                other.immediate_receive_into_with_tag(scope, &mut buffer[..], tag);
                            // SAFETY: the buffer is this task's `out` data,
                            // which the runtime keeps for it until the
                            // receive completed, panic or not.
                            unsafe { prescient::mpi::bind(vec![receive]) };
                        });
                        other.send_with_tag(&1i32, tag + 1);
                    });
                    panic!("a task panicked after binding a receive");
                });
                let waited = catch_unwind(AssertUnwindSafe(|| df.wait()));
                let payload = waited.expect_err("the task's panic reaches the wait");
                prescient_tests::message_of(&*payload).map(str::to_owned)
            })
        });
        assert_eq!(
            raised.as_deref(),
            Some("a task panicked after binding a receive"),
            "capacity {capacity}"
        );
        // Freed memory is reused by the next allocations of its size on the
        // same thread (the one worker): with the buffer freed early, the
        // late message would land in these (or, had the allocator unmapped
        // it, the process would die).
        let probes: Vec<Vec<u8>> = rt.run(|| (0..8).map(|_| vec![0xA5u8; LATE_MESSAGE]).collect());
        let other = world.process_at_rank(peer);
        let (sent, _) = other.receive_with_tag::<i32>(tag + 2);
        assert_eq!(sent, 1);
        // Time for a late write (already landed: the sender's blocking send
        // returned before it sent `tag + 2`).
        std::thread::sleep(Duration::from_millis(50));
        for (k, probe) in probes.iter().enumerate() {
            let bad = probe.iter().filter(|&&byte| byte != 0xA5).count();
            assert_eq!(bad, 0, "capacity {capacity}: probe {k} was overwritten");
        }
        // Still usable: a bound receive with a body that returns.
        let got = rt.run(|| {
            let mut got = -1i32;
            prescient::dataflow(|df| {
                let value = df.data(-1i32);
                df.task(value.out(), move |value: &mut i32| {
                    with_rank(peer, |other| {
                        mpi::request::scope(|scope| {
                            let receive =
                                other.immediate_receive_into_with_tag(scope, value, tag + 3);
                            // SAFETY: the buffer is this task's `out` data.
                            unsafe { prescient::mpi::bind(vec![receive]) };
                        })
                    });
                });
                let got = &mut got;
                df.task(value.read(), move |value: &i32| *got = *value);
            });
            got
        });
        assert_eq!(got, 77 + round as i32, "capacity {capacity}");
    }
}

/// A task of the global runtime waits for a receive nobody sends; the
/// caller then drops the universe.
fn shutdown_with_a_pending_request(world: &SimpleCommunicator) {
    let peer = partner(world);
    let _detached = prescient::spawn(move || {
        let mut value = 0u64;
        with_rank(peer, |other| {
            mpi::request::scope(|scope| {
                prescient::mpi::wait(
                    other.immediate_receive_into_with_tag(scope, &mut value, 9999),
                );
            })
        });
    });
    // Time for the task to reach its wait (its request then is in the
    // runtime's table, which the universe's drop checks).
    std::thread::sleep(Duration::from_millis(500));
}
