//! `#[task_program]` on the slice loops, reductions and sorts: a module calling
//! each of them (imported by name, through a renamed import and through a
//! path; the sorts from `prescient::slice` by name, by path, through the
//! imported module and through a glob import) compiles with its imports
//! still used (`deny(unused_imports)`: the analyzer rewrites the calls to
//! their `__private` twins), every call is a range-loop site in a loop (λ),
//! and the program runs under its analysed `PARAMS` with the sequential
//! results.

use prescient::analysis::SiteKind;
use prescient::Runtime;

#[prescient::task_program]
#[deny(unused_imports)]
mod slice_loops {
    use prescient::slice::{par_sort, par_sort_unstable_by_key};
    use prescient::{for_chunks, for_chunks_mut, for_each_mut, for_range_reduce as reduce};

    /// `v[i] = i * i`, by chunks of 8.
    pub fn squares(v: &mut [u64]) {
        for_chunks_mut(v, 8, |index, chunk| {
            for (k, x) in chunk.iter_mut().enumerate() {
                let i = (index * 8 + k) as u64;
                *x = i * i;
            }
        });
    }

    /// `v[i] += 1` element by element.
    pub fn increment(v: &mut [u64]) {
        for_each_mut(v, 16, |_, x| *x += 1);
    }

    /// The number of chunks of 5 that `v` has, counted by visiting them.
    pub fn chunks_of_five(v: &[u64]) -> usize {
        let count = std::sync::atomic::AtomicUsize::new(0);
        for_chunks(v, 5, |_, _| {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        count.into_inner()
    }

    /// The sum of `0..n` (a renamed import).
    pub fn triangle(n: usize) -> usize {
        reduce(0..n, 64, || 0, |acc, i| acc + i, |a, b| a + b)
    }

    /// The sum of `v`, by chunks (a path).
    pub fn sum(v: &[u64]) -> u64 {
        prescient::for_chunks_reduce(
            v,
            32,
            || 0,
            |acc, _, c| acc + c.iter().sum::<u64>(),
            |a, b| a + b,
        )
    }

    /// `v` sorted, stably, then by descending value.
    pub fn sorted_both_ways(v: &mut [u64]) -> Vec<u64> {
        par_sort(v);
        let ascending = v.to_vec();
        par_sort_unstable_by_key(v, |x| u64::MAX - x);
        prescient::slice::par_sort_by(v, |a, b| b.cmp(a));
        ascending
    }

    /// The indices of `0..n` in order, by chunks of 10 (a non-commutative
    /// combination).
    pub fn indices(n: usize) -> Vec<usize> {
        prescient::for_range_chunked_reduce(
            0..n,
            10,
            Vec::new,
            |mut acc, chunk| {
                acc.extend(chunk);
                acc
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        )
    }
}

#[prescient::task_program]
#[deny(unused_imports)]
mod sorts_by_glob {
    use prescient as p;
    use prescient::slice;
    use prescient::slice::*;

    /// `v` sorted by descending value, then ascending again (twice).
    pub fn sort_down_then_up(v: &mut [u64]) {
        par_sort_by_key(v, |x| u64::MAX - x);
        slice::par_sort_unstable(v);
        p::slice::par_sort_by_key(v, |x| u64::MAX - x);
        p::slice::par_sort(v);
    }
}

#[test]
fn every_slice_loop_and_reduction_is_a_range_loop_site() {
    let globbed = sorts_by_glob::ANALYSIS;
    assert_eq!(globbed.sites.len(), 4, "{globbed}");
    assert!(
        globbed.sites.iter().all(|s| s.kind == SiteKind::RangeLoop),
        "{globbed}"
    );
    let a = slice_loops::ANALYSIS;
    let report = a.to_string();
    assert_eq!(a.sites.len(), 9, "{report}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::RangeLoop, "{report}");
        assert!(site.in_loop, "{report}");
    }
}

#[test]
fn the_annotated_slice_loops_run_under_their_params() {
    for workers in [1, 2, 8] {
        let runtime = Runtime::builder()
            .params(slice_loops::PARAMS)
            .num_workers(workers)
            .build()
            .unwrap();
        runtime.run(|| {
            let mut v = vec![0u64; 1000];
            slice_loops::squares(&mut v);
            slice_loops::increment(&mut v);
            assert!(v.iter().enumerate().all(|(i, &x)| x == (i * i) as u64 + 1));
            assert_eq!(slice_loops::chunks_of_five(&v), 200);
            assert_eq!(slice_loops::triangle(1000), 499_500);
            assert_eq!(slice_loops::sum(&v), v.iter().sum::<u64>());
            assert_eq!(slice_loops::indices(537), (0..537).collect::<Vec<_>>());
            let mut w: Vec<u64> = (0..50_000u64).map(|i| i * 7919 % 50_000).collect();
            let ascending = slice_loops::sorted_both_ways(&mut w);
            assert_eq!(ascending, (0..50_000).collect::<Vec<_>>());
            assert!(w.iter().rev().eq(ascending.iter()));
            sorts_by_glob::sort_down_then_up(&mut w);
            assert_eq!(w, ascending);
        });
    }
}
