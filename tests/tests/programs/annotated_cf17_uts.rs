//! End-to-end checks of `#[task_program]` on BOTS' `uts` (Unbalanced Tree
//! Search, `prescient_benches::annotated::uts`): count the nodes of an
//! implicit binomial tree whose shape comes from a SHA-1 based splittable
//! generator, a scope spawn per child in a loop at every node.
//!
//! * SHA-1 gives the standard's digests (FIPS 180 test vectors), and the
//!   sequential count of BOTS' `test.input` is the 4 112 897 nodes the file
//!   states (in the debug profile only with `--ignored`: it takes about 20 s
//!   there).
//! * The analysis classifies it as nqueens: one context, ρ = 1 (a call back
//!   into `par_tree_search` from the spawned task), λ = 1 (the spawn sits in
//!   the loop over the children), small effort → recursive, not loop-like:
//!   CF'17's trees give `DEF`, capacity 4, 256019 buckets; the calibrated
//!   trees (`PARAMS`) `BF`, capacity 32 (effort 4 < 7667: fine or opaque
//!   tasks, BF/32 — the SHA-1 work is an opaque call), 256019 buckets; the recursion down the tree gets the
//!   conservative 8 MiB stack.
//! * It runs correctly under its own `PARAMS` on 1, 2 and 8 workers, on the
//!   stack size the analysis aggregated: `test.input`'s tree cut to its first
//!   100 root children (6797 nodes) in both profiles, the whole of it in
//!   release.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::uts;
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(300);

/// A digest as lower-case hex.
fn hex(digest: uts::State) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn sha1_gives_the_standard_digests() {
    assert_eq!(
        hex(uts::sha1(b"")),
        "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    );
    assert_eq!(
        hex(uts::sha1(b"abc")),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(
        hex(uts::sha1(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    );
    let million = vec![b'a'; 1_000_000];
    assert_eq!(
        hex(uts::sha1(&million)),
        "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
    );
    // Padding across a block boundary: the 56-byte message above needs two
    // padding blocks, 64 bytes fill one exactly.
    assert_eq!(
        hex(uts::sha1(&[b'a'; 64])),
        "0098ba824b5c16427bd7a1122a5a442a25ec644d"
    );
}

#[test]
fn the_generator_and_the_input_format() {
    let tree = uts::read_tree(uts::test()).expect("BOTS input");
    assert_eq!(tree.root_branching, 2000.0);
    assert_eq!(tree.non_leaf_prob, 0.124875);
    assert_eq!((tree.non_leaf_children, tree.root_seed), (8, 42));
    assert_eq!(tree.compute_granularity, 1);
    assert_eq!(
        (
            tree.expected_size,
            tree.expected_depth,
            tree.expected_leaves
        ),
        (4_112_897, 1572, 3_599_034)
    );
    let root = tree.root();
    assert_eq!((root.height, root.num_children), (0, 2000));
    assert_eq!(
        root.state,
        uts::sha1(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 42])
    );
    let c = uts::child(&tree, &root, 7);
    assert_eq!(c.height, 1);
    let mut message = root.state.to_vec();
    message.extend_from_slice(&[0, 0, 0, 7]);
    assert_eq!(c.state, uts::sha1(&message));
    assert!(uts::rng_rand(&c.state) < 1 << 31);
    assert!(c.num_children == 0 || c.num_children == 8);
    assert!(uts::parse_tree("2000 0.1 8 42 1 10 2").is_err());
    let zero_granularity = uts::parse_tree("3 0.1 8 42 0 10 2 1").expect("parses");
    assert_eq!(zero_granularity.compute_granularity, 1, "raised to 1");
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "4.1 million SHA-1 nodes, twice, take about 20 s in the debug profile; run with --ignored"
)]
fn the_test_input_has_the_stated_size() {
    let tree = uts::read_tree(uts::test()).expect("BOTS input");
    assert_eq!(
        uts::tree_search_seq(&tree, &tree.root()),
        tree.expected_size
    );
    let rt = analysed_runtime(uts::PARAMS, &uts::ANALYSIS, 2);
    let got = watchdog("uts test.input on 2", LIMIT, || {
        rt.run(|| uts::parallel_uts(&tree))
    });
    assert_eq!(got, 4_112_897);
}

#[test]
fn uts_is_recursive_not_loop_like() {
    let a = uts::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "par_tree_search", "{a}");
    assert_eq!(a.sites.len(), 1, "{a}");
    assert_eq!(a.sites[0].kind, SiteKind::ScopeSpawn, "{a}");
    assert!(a.sites[0].in_loop, "spawn per child in a loop\n{a}");
    assert_eq!(a.sites[0].function, "par_tree_search", "{a}");
    assert_eq!((a.rho, a.lambda), (1, 1), "{a}");
    assert!(a.effort < analysis::cf17::COARSE_EFFORT_MIN, "{a}");
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 1 <= 5, effort <= 1M"
    );
    assert_eq!(
        cf17.queue_capacity, 4,
        "ρ > 0: the loop rule does not apply"
    );
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 4 < 7667: fine or opaque tasks, BF/32 (the
    // node hashing is a helper the analysis cannot see; the sweep: 1.49× uts'
    // best under BF/4, 1.03× under BF/32); buckets as CF'17.
    const P: Params = uts::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // `par_tree_search(tree, &child)`: an unbounded depth, the conservative size.
    assert!(a.stack_estimate >= 64 * JOIN_FRAME_BYTES as u64, "{a}");
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("uts", P, &a);
    assert!(a.module.ends_with("annotated::uts::tasks"), "{}", a.module);
}

#[test]
fn uts_runs_under_its_params() {
    let full = uts::read_tree(uts::test()).expect("BOTS input");
    let tree = full.with_root_branching(uts::TEST_ROOT_CHILDREN);
    let expected = uts::tree_search_seq(&tree, &tree.root());
    assert_eq!(expected, uts::TEST_ROOT_100_NODES);
    // A smaller cut and a tree whose root is a leaf's worth of work.
    let small = full.with_root_branching(8.0);
    let small_expected = uts::tree_search_seq(&small, &small.root());
    for workers in WORKERS {
        let rt = analysed_runtime(uts::PARAMS, &uts::ANALYSIS, workers);
        let got = watchdog(&format!("uts cut to 100 on {workers}"), LIMIT, || {
            rt.run(|| uts::parallel_uts(&tree))
        });
        assert_eq!(got, expected, "on {workers} worker(s)");
        let got = rt.run(|| uts::parallel_uts(&small));
        assert_eq!(got, small_expected, "on {workers} worker(s)");
        let leaf = full.with_root_branching(0.0);
        assert_eq!(rt.run(|| uts::parallel_uts(&leaf)), 1);
    }
}
