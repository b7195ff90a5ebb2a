//! sort (cilksort) under rayon and chili: [`crate::annotated::sort`]'s
//! four-way merge sort with BOTS' cut-offs and the program's sequential
//! kernels ([`seqquick`], [`seqmerge`], [`binsplit`]).
//!
//! Under rayon the four quarter sorts are the four spawns of a `rayon::scope`
//! and the merges' joins `rayon::join`s, as in the task version. chili has a
//! two-way join only, so there the four quarter sorts are two nested levels
//! of joins, `(A ‖ B) ‖ (C ‖ D)`, and the merges' joins are `Scope::join`s.

use super::chili_join;

use crate::annotated::sort::{binsplit, seqmerge, seqquick, Elm, BOTS_MERGESIZE, BOTS_QUICKSIZE};

/// Sorts `array` with the rayon cilksort and a scratch array of its length.
pub fn sort_rayon(array: &mut [Elm]) {
    let mut tmp: Vec<Elm> = vec![0; array.len()];
    cilksort_rayon(array, &mut tmp);
}

/// The task version's `cilksort` with a `rayon::scope` of four quarter
/// sorts and a `rayon::join` of the two merges.
fn cilksort_rayon(low: &mut [Elm], tmp: &mut [Elm]) {
    let size = low.len();
    if size < BOTS_QUICKSIZE {
        seqquick(low);
        return;
    }
    let quarter = size / 4;
    {
        let (a, rest) = low.split_at_mut(quarter);
        let (b, rest) = rest.split_at_mut(quarter);
        let (c, d) = rest.split_at_mut(quarter);
        let (ta, trest) = tmp.split_at_mut(quarter);
        let (tb, trest) = trest.split_at_mut(quarter);
        let (tc, td) = trest.split_at_mut(quarter);
        rayon::scope(|s| {
            s.spawn(move |_| cilksort_rayon(a, ta));
            s.spawn(move |_| cilksort_rayon(b, tb));
            s.spawn(move |_| cilksort_rayon(c, tc));
            s.spawn(move |_| cilksort_rayon(d, td));
        });
    }
    {
        let (ab, cd) = low.split_at(2 * quarter);
        let (tab, tcd) = tmp.split_at_mut(2 * quarter);
        rayon::join(
            || cilkmerge_rayon(&ab[..quarter], &ab[quarter..], tab),
            || cilkmerge_rayon(&cd[..quarter], &cd[quarter..], tcd),
        );
    }
    let (tab, tcd) = tmp.split_at(2 * quarter);
    cilkmerge_rayon(tab, tcd, low);
}

/// The task version's `cilkmerge` with `rayon::join`.
fn cilkmerge_rayon(a: &[Elm], b: &[Elm], dest: &mut [Elm]) {
    let (a, b) = if b.len() > a.len() { (b, a) } else { (a, b) };
    if b.is_empty() {
        dest.copy_from_slice(a);
        return;
    }
    if b.len() <= BOTS_MERGESIZE {
        seqmerge(a, b, dest);
        return;
    }
    let split1 = a.len() / 2;
    let split2 = binsplit(a[split1], b);
    let (dest_low, dest_high) = dest.split_at_mut(split1 + split2);
    let (dest_mid, dest_high) = dest_high.split_at_mut(1);
    dest_mid[0] = a[split1];
    rayon::join(
        || cilkmerge_rayon(&a[..split1], &b[..split2], dest_low),
        || cilkmerge_rayon(&a[split1 + 1..], &b[split2..], dest_high),
    );
}

/// Sorts `array` with the chili cilksort and a scratch array of its length.
pub fn sort_chili(scope: &mut chili::Scope<'_>, array: &mut [Elm]) {
    let mut tmp: Vec<Elm> = vec![0; array.len()];
    cilksort_chili(scope, array, &mut tmp);
}

/// The task version's `cilksort` with the four quarter sorts as two levels of
/// chili joins and a chili join of the two merges.
fn cilksort_chili(scope: &mut chili::Scope<'_>, low: &mut [Elm], tmp: &mut [Elm]) {
    let size = low.len();
    if size < BOTS_QUICKSIZE {
        seqquick(low);
        return;
    }
    let quarter = size / 4;
    {
        let (a, rest) = low.split_at_mut(quarter);
        let (b, rest) = rest.split_at_mut(quarter);
        let (c, d) = rest.split_at_mut(quarter);
        let (ta, trest) = tmp.split_at_mut(quarter);
        let (tb, trest) = trest.split_at_mut(quarter);
        let (tc, td) = trest.split_at_mut(quarter);
        chili_join(
            scope,
            |s| {
                chili_join(
                    s,
                    |s| cilksort_chili(s, a, ta),
                    |s| cilksort_chili(s, b, tb),
                )
            },
            |s| {
                chili_join(
                    s,
                    |s| cilksort_chili(s, c, tc),
                    |s| cilksort_chili(s, d, td),
                )
            },
        );
    }
    {
        let (ab, cd) = low.split_at(2 * quarter);
        let (tab, tcd) = tmp.split_at_mut(2 * quarter);
        chili_join(
            scope,
            |s| cilkmerge_chili(s, &ab[..quarter], &ab[quarter..], tab),
            |s| cilkmerge_chili(s, &cd[..quarter], &cd[quarter..], tcd),
        );
    }
    let (tab, tcd) = tmp.split_at(2 * quarter);
    cilkmerge_chili(scope, tab, tcd, low);
}

/// The task version's `cilkmerge` with chili's join.
fn cilkmerge_chili(scope: &mut chili::Scope<'_>, a: &[Elm], b: &[Elm], dest: &mut [Elm]) {
    let (a, b) = if b.len() > a.len() { (b, a) } else { (a, b) };
    if b.is_empty() {
        dest.copy_from_slice(a);
        return;
    }
    if b.len() <= BOTS_MERGESIZE {
        seqmerge(a, b, dest);
        return;
    }
    let split1 = a.len() / 2;
    let split2 = binsplit(a[split1], b);
    let (dest_low, dest_high) = dest.split_at_mut(split1 + split2);
    let (dest_mid, dest_high) = dest_high.split_at_mut(1);
    dest_mid[0] = a[split1];
    chili_join(
        scope,
        |s| cilkmerge_chili(s, &a[..split1], &b[..split2], dest_low),
        |s| cilkmerge_chili(s, &a[split1 + 1..], &b[split2..], dest_high),
    );
}
