//! What the analysis of each task context could not see, for the report:
//! calls into other modules and crates, method calls the module does not
//! define or matched by name only, calls through function pointers and
//! closures held in values, macros it did not expand, locals whose size is
//! not written, loops whose trip count it could not read.
//!
//! These are what the documented estimates stand in for (an invisible call:
//! [`INVISIBLE_CALL`](crate::effort::INVISIBLE_CALL) operations; an unknown
//! trip count: [`DEFAULT_TRIP_COUNT`](crate::effort::DEFAULT_TRIP_COUNT);
//! …), so the report says how much of a context's effort and stack is
//! estimate. A context's list covers its function and every module function
//! reachable from it through calls (as its effort and stack do), counted
//! per kind, with the first one in source order as an example.

use crate::model::{FnId, LoopKind, Node, Program, Size, Trip, UnseenKind, WalkCtx};
use crate::structure::CallGraph;
use proc_macro2::Span;
use std::collections::BTreeMap;

/// The things of one kind a context's analysis could not see.
#[derive(Clone, Debug)]
pub struct UnseenSummary {
    /// What kind.
    pub kind: UnseenKind,
    /// How many.
    pub count: u32,
    /// The first one as written (`other::f`, `.len()`, `println!`), or
    /// empty where it has no name (a local, a loop).
    pub first: String,
    /// Where the first one is.
    pub span: Span,
}

/// The unseen parts of one function, in source (pre-)order.
pub fn function_unseen(program: &Program, f: FnId) -> Vec<(UnseenKind, String, Span)> {
    let mut out = Vec::new();
    program.functions[f]
        .body
        .walk(WalkCtx::default(), &mut |n, _| match n {
            Node::Unseen { kind, what, span } => out.push((*kind, what.clone(), *span)),
            Node::Macro { name, span, .. } => out.push((UnseenKind::Macro, name.clone(), *span)),
            Node::Decl {
                size: Size::Unknown(_),
                span,
            } => out.push((UnseenKind::UnknownSize, String::new(), *span)),
            Node::Loop {
                kind,
                trip: Trip::Unknown,
                span,
                ..
            } => {
                let what = match kind {
                    LoopKind::For => "for",
                    LoopKind::While => "while",
                    LoopKind::Loop => "loop",
                    LoopKind::IterClosure => "iterator closure",
                    LoopKind::Repeat => "[x; n]",
                    LoopKind::RangeLoop => "range loop",
                };
                out.push((UnseenKind::UnknownTrip, what.to_string(), *span));
            }
            _ => {}
        });
    out
}

/// What a context's analysis could not see: over its function and every
/// module function it reaches, per kind (in [`UnseenKind`]'s order).
pub fn context_unseen(program: &Program, graph: &CallGraph, context: FnId) -> Vec<UnseenSummary> {
    let mut reached = vec![false; program.functions.len()];
    let mut work = vec![context];
    while let Some(f) = work.pop() {
        if std::mem::replace(&mut reached[f], true) {
            continue;
        }
        work.extend(graph.edges[f].iter().map(|e| e.callee));
    }
    let mut by_kind: BTreeMap<UnseenKind, UnseenSummary> = BTreeMap::new();
    for f in (0..program.functions.len()).filter(|&f| reached[f]) {
        for (kind, what, span) in function_unseen(program, f) {
            by_kind
                .entry(kind)
                .and_modify(|s| s.count = s.count.saturating_add(1))
                .or_insert(UnseenSummary {
                    kind,
                    count: 1,
                    first: what,
                    span,
                });
        }
    }
    by_kind.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::tests::analysed;

    fn unseen(src: &str, function: &str) -> Vec<(UnseenKind, u32, String)> {
        let (p, g, f) = analysed(src, function);
        context_unseen(&p, &g, f)
            .into_iter()
            .map(|s| (s.kind, s.count, s.first))
            .collect()
    }

    #[test]
    fn every_kind_is_reported_with_its_first_example() {
        let src = "mod m {
            use prescient::join;
            pub struct V { pub visit: fn(u64) -> u64 }
            pub struct T;
            impl T { pub fn sum(&self) -> u64 { 0 } }
            fn helper<X: Default>(v: &V, n: usize, t: &T) -> u64 {
                let x: X = X::default();
                for i in 0..n { std::hint::black_box(i); }
                println!(\"{}\", n);
                let w = vec![1u64].len();
                t.sum() + (v.visit)(3)
            }
            pub fn f(v: &V, t: &T) -> u64 {
                let (a, b) = join(|| helper::<u8>(v, 3, t), || other::g(1));
                a + b
            }
        }";
        let got = unseen(src, "f");
        let kinds: Vec<UnseenKind> = got.iter().map(|(k, _, _)| *k).collect();
        assert_eq!(
            kinds,
            [
                UnseenKind::Call,
                UnseenKind::MethodCall,
                UnseenKind::MethodByName,
                UnseenKind::IndirectCall,
                UnseenKind::Macro,
                UnseenKind::UnknownSize,
                UnseenKind::UnknownTrip,
            ]
        );
        let first = |k: UnseenKind| {
            got.iter()
                .find(|(g, _, _)| *g == k)
                .expect("present")
                .clone()
        };
        // `X::default()` and `std::hint::black_box` in `helper`, `other::g`
        // in `f`: helper comes first in source order.
        assert_eq!(
            first(UnseenKind::Call),
            (UnseenKind::Call, 3, "X::default".to_string())
        );
        assert_eq!(first(UnseenKind::MethodCall).2, ".len()");
        assert_eq!(first(UnseenKind::MethodByName).2, ".sum()");
        assert_eq!(first(UnseenKind::IndirectCall).2, "(v.visit)");
        assert_eq!(first(UnseenKind::Macro).2, "println!");
        assert_eq!(first(UnseenKind::UnknownTrip).2, "for");
        // Only what the context reaches.
        let got = unseen(src, "T::sum");
        assert!(got.is_empty(), "{got:?}");
    }
}
