//! Runs the analyses over a program model: task contexts (Alg. 1), parallel
//! structure ρ/λ (Alg. 2), effort (Alg. 3) and stack size (Alg. 4), per
//! context, and what each context's analysis could not see (`unseen`). Aggregation and the decision trees are `const fn`s of
//! `prescient::analysis`, evaluated by rustc on what `emit` writes.

use crate::contexts::task_contexts;
use crate::model::{FnId, Program, SiteId};
use crate::structure::{call_graph, lambda, rho, sites_in_loops};
use crate::sym::Sym;
use crate::unseen::{context_unseen, UnseenSummary};
use crate::{effort, stack};

/// The analysis of one task context.
#[derive(Clone, Debug)]
pub struct ContextResult {
    /// The context's function.
    pub function: FnId,
    /// Its spawn sites.
    pub sites: Vec<SiteId>,
    /// Recursive parallel paths reachable from it.
    pub rho: u32,
    /// Spawn sites reachable from it that run in a loop.
    pub lambda: u32,
    /// Mean effort of its sites.
    pub effort: Sym,
    /// Stack estimate of its function.
    pub stack: Sym,
    /// What the analysis could not see in it and what it reaches, per kind.
    pub unseen: Vec<UnseenSummary>,
}

/// The analysis of one spawn site.
#[derive(Clone, Debug)]
pub struct SiteResult {
    /// Effort of the tasks it spawns.
    pub effort: Sym,
    /// Whether it is written in a loop.
    pub in_loop: bool,
}

/// Everything the analyses found.
#[derive(Clone, Debug)]
pub struct ProgramResult {
    /// Per context, in source order.
    pub contexts: Vec<ContextResult>,
    /// Per site.
    pub sites: Vec<SiteResult>,
    /// Per function, the effort of one invocation (`Sym::FnEffort` refers to it).
    pub function_efforts: Vec<Sym>,
    /// Per function, its stack estimate but for its bounded recursions'
    /// levels (`Sym::FnStack` refers to it): [`stack::Stack::rest`].
    pub function_stacks: Vec<Sym>,
}

/// Runs all analyses.
pub fn analyse(program: &Program) -> ProgramResult {
    let graph = call_graph(program);
    let function_efforts = effort::function_efforts(program, &graph);
    let site_efforts = effort::site_efforts(program, &graph, &function_efforts);
    let stacks = stack::function_stacks(program, &graph);
    let contexts = task_contexts(program)
        .into_iter()
        .map(|c| ContextResult {
            function: c.function,
            rho: rho(&graph, c.function),
            lambda: lambda(program, &graph, c.function),
            effort: effort::context_effort(&c.sites, &site_efforts),
            stack: {
                let s = &stacks[c.function];
                let rest = match &s.rest {
                    Sym::Lit(v) => Sym::Lit(*v),
                    _ => Sym::FnStack(c.function),
                };
                crate::sym::sum([rest, s.halving.clone()])
            },
            unseen: context_unseen(program, &graph, c.function),
            sites: c.sites,
        })
        .collect();
    let sites = site_efforts
        .into_iter()
        .zip(sites_in_loops(program))
        .map(|(effort, in_loop)| SiteResult { effort, in_loop })
        .collect();
    ProgramResult {
        contexts,
        sites,
        function_efforts,
        function_stacks: stacks.into_iter().map(|s| s.rest).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::program;

    #[test]
    fn fib_program() {
        let p = program(
            "mod fib {
                use prescient::join;
                pub fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
                    a + b
                }
                pub fn run(n: u64) -> u64 { prescient::Runtime::new().run(|| fib(n)) }
            }",
        );
        let r = analyse(&p);
        assert_eq!(r.contexts.len(), 1);
        let c = &r.contexts[0];
        assert_eq!((c.function, c.rho, c.lambda), (0, 2, 0));
        assert_eq!(c.effort, Sym::Lit(6));
        // `fib(n - 1)`: a recursion depth the analysis cannot bound.
        assert_eq!(c.stack, Sym::Lit(crate::stack::CONSERVATIVE_STACK_BYTES));
        assert!(!r.sites[0].in_loop);
    }

    #[test]
    fn loop_program() {
        let p = program(
            "mod lp {
                use prescient::scope;
                const N: usize = 1 << 10;
                fn work(i: usize) -> usize { let mut a = 0; for k in 0..1000 { a += k * i; } a }
                pub fn run() { scope(|s| { for i in 0..N { s.spawn(move |_| work(i)); } }); }
            }",
        );
        let r = analyse(&p);
        let c = &r.contexts[0];
        assert_eq!((c.function, c.rho, c.lambda), (1, 0, 1));
        assert_eq!(c.effort, Sym::Lit(3000 + 2));
        assert!(r.sites[0].in_loop);
    }

    #[test]
    fn contexts_average_their_sites() {
        let p = program(
            "mod m {
                use prescient::spawn;
                fn f() { spawn(|| 1 + 1); spawn(|| { for _ in 0..10 { x += 1; } }); }
            }",
        );
        let r = analyse(&p);
        // The floor of the mean of 1 and 20.
        assert_eq!(r.contexts[0].effort, Sym::Lit(10));
    }

    /// `(rho, lambda, in_loop of site 0)` of the program's first context.
    fn loop_structure(src: &str) -> (u32, u32, bool) {
        let r = analyse(&program(src));
        let c = &r.contexts[0];
        (c.rho, c.lambda, r.sites[0].in_loop)
    }

    #[test]
    fn a_range_loop_is_loop_parallelism() {
        // The only parallelism is one `for_range`, written outside any loop:
        // its site runs in a loop (λ = 1), no recursion (ρ = 0).
        let src = "mod m {
                use prescient::for_range;
                fn work(i: usize) -> usize { i * 2 + 1 }
                pub fn run(out: &[AtomicUsize]) {
                    for_range(0..1000, 16, |i| { out[i].store(work(i), Relaxed); });
                }
            }";
        assert_eq!(loop_structure(src), (0, 1, true));
        let r = analyse(&program(src));
        let c = &r.contexts[0];
        // The site's effort is one run of the body: the index, the store (an
        // invisible method call) and `work` (a call, two operations).
        use crate::effort::{CALL_OVERHEAD, INVISIBLE_CALL, LOOP_ITERATION, SPAWN_OVERHEAD};
        let body = 1 + (CALL_OVERHEAD + INVISIBLE_CALL) + (CALL_OVERHEAD + 2);
        assert_eq!(r.sites[0].effort, Sym::Lit(body));
        assert_eq!(c.effort, r.sites[0].effort);
        // CF'17's decision trees: ρ = 0 and λ > 0 give the loop capacity.
        let effort = c.effort.literal().unwrap();
        assert_eq!(
            prescient::analysis::cf17::queue_capacity(c.rho, c.lambda, effort),
            prescient::analysis::cf17::LOOP_QUEUE_CAPACITY
        );
        assert_eq!(prescient::analysis::cf17::LOOP_QUEUE_CAPACITY, 128);
        // The function's effort: 1000 iterations of spawn + body + 1.
        assert_eq!(
            r.function_efforts[1],
            Sym::Lit(1000 * (SPAWN_OVERHEAD + body + LOOP_ITERATION))
        );

        // The chunked form, with a module `const` bound and a chunk loop.
        let chunked = "mod m {
                use prescient as p;
                const N: usize = 1 << 20;
                fn run() { p::for_range_chunked(0..N, 1024, |r| { for i in r { x += i; } }); }
            }";
        assert_eq!(loop_structure(chunked), (0, 1, true));
    }

    #[test]
    fn slice_loops_reductions_and_sorts_are_loop_parallelism() {
        // Each library loop alone: its site runs in a loop (λ = 1), ρ = 0.
        for call in [
            "p::for_range_reduce(0..1000, 16, || 0, |a, i| a + i, |a, b| a + b)",
            "p::for_range_chunked_reduce(0..n, 16, || 0, |a, r| a + r.len(), |a, b| a + b)",
            "p::for_chunks_mut(&mut v, 64, |i, c| c[0] = i)",
            "p::for_chunks(&v, 64, |i, c| drop(c))",
            "p::for_each_mut(&mut v, 64, |i, x| *x = i)",
            "p::for_chunks_reduce(&v, 64, || 0, |a, i, c| a + c.len(), |a, b| a + b)",
            "p::slice::par_sort(&mut v)",
            "p::slice::par_sort_by(&mut v, |a, b| b.cmp(a))",
            "p::slice::par_sort_unstable_by_key(&mut v, |x| *x)",
        ] {
            let src = format!(
                "mod m {{ use prescient as p; fn run(v: Vec<usize>, n: usize) {{ {call}; }} }}"
            );
            assert_eq!(loop_structure(&src), (0, 1, true), "{call}");
        }
        // The sorts live in `prescient::slice`: every way of naming them
        // there is a library loop.
        for (import, call) in [
            ("use prescient::slice::par_sort;", "par_sort(&mut v)"),
            ("use prescient::slice::*;", "par_sort_unstable(&mut v)"),
            (
                "use prescient::slice;",
                "slice::par_sort_by_key(&mut v, |x| *x)",
            ),
            ("use prescient::*;", "slice::par_sort(&mut v)"),
            (
                "use ::prescient::slice as s;",
                "s::par_sort_unstable_by(&mut v, |a, b| b.cmp(a))",
            ),
        ] {
            let src = format!("mod m {{ {import} fn run(mut v: Vec<usize>) {{ {call}; }} }}");
            assert_eq!(loop_structure(&src), (0, 1, true), "{import} {call}");
        }
        // A glob of the crate root does not bring the sorts: a `par_sort`
        // from elsewhere (here, a sibling module) is not `prescient`'s.
        let src = "mod m {
                use prescient::*;
                use super::sorts::*;
                fn run(mut v: Vec<usize>) { par_sort(&mut v); }
            }";
        assert!(analyse(&program(src)).sites.is_empty());
        // A fold that recurses into the module is recursion through a task.
        let src = "mod m {
                use prescient::*;
                fn walk(d: usize) -> usize {
                    if d == 0 { return 1; }
                    for_range_reduce(0..4, 1, || 0, |a, _| a + walk(d - 1), |a, b| a + b)
                }
            }";
        assert_eq!(loop_structure(src), (1, 1, true));
    }

    #[test]
    fn range_loop_bodies_are_tasks_for_rho() {
        // A call back into the function from the body is recursion through a
        // task (ρ = 1), and the site is still in a loop.
        let src = "mod m {
                use prescient::for_range;
                fn walk(depth: u32) {
                    if depth > 0 { for_range(0..4, 1, move |_| walk(depth - 1)); }
                }
            }";
        assert_eq!(loop_structure(src), (1, 1, true));
        let r = analyse(&program(src));
        // ρ > 0: no loop capacity (CF'17's trees).
        let c = &r.contexts[0];
        assert_eq!(
            prescient::analysis::cf17::queue_capacity(c.rho, c.lambda, 0),
            prescient::analysis::cf17::SMALL_QUEUE_CAPACITY
        );
        // A spawn inside a range loop body is reached in a loop too.
        let nested = "mod m {
                use prescient::{for_range, spawn};
                fn f() { for_range(0..4, 1, |i| { spawn(move || i); }); }
            }";
        let r = analyse(&program(nested));
        assert_eq!(r.contexts[0].lambda, 2);
        assert!(r.sites[1].in_loop);
    }

    /// `(function, rho)` per context, and the unseen kinds of each.
    fn contexts(src: &str) -> Vec<(String, u32, Vec<crate::model::UnseenKind>)> {
        let p = program(src);
        analyse(&p)
            .contexts
            .iter()
            .map(|c| {
                (
                    p.functions[c.function].name.clone(),
                    c.rho,
                    c.unseen.iter().map(|u| u.kind).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn recursion_through_a_nested_module_is_recursion() {
        use crate::model::UnseenKind;
        // The issue's program: `even` calls `odd::odd`, which calls
        // `super::even`, each in a task.
        let issue = "mod prog {
                pub fn even(n: u64) -> u64 {
                    if n == 0 { 1 } else { let (a, b) = prescient::join(|| odd::odd(n - 1), || 1); a + b }
                }
                pub mod odd {
                    pub fn odd(n: u64) -> u64 {
                        if n == 0 { 0 } else { let (a, b) = prescient::join(|| super::even(n - 1), || 0); a + b }
                    }
                }
            }";
        let found = contexts(issue);
        assert_eq!(
            found,
            [
                ("even".to_string(), 1, vec![]),
                ("odd::odd".to_string(), 1, vec![]),
            ]
        );
        // The same through `use`s: the nested module's own, one bringing a
        // nested function into scope, and a glob import of the parent.
        for (top, inner, call_even, call_odd) in [
            ("", "use super::even;", "even", "odd::odd"),
            ("use self::odd::odd;", "use super::*;", "even", "odd"),
            ("use odd::odd as o;", "use super::even as e;", "e", "o"),
        ] {
            let src = format!(
                "mod prog {{
                    use prescient::join;
                    {top}
                    pub fn even(n: u64) -> u64 {{
                        if n == 0 {{ 1 }} else {{ let (a, b) = join(|| {call_odd}(n - 1), || 1); a + b }}
                    }}
                    pub mod odd {{
                        use prescient::join;
                        {inner}
                        pub fn odd(n: u64) -> u64 {{
                            if n == 0 {{ 0 }} else {{ let (a, b) = join(|| {call_even}(n - 1), || 0); a + b }}
                        }}
                    }}
                }}"
            );
            let found = contexts(&src);
            assert_eq!(found.len(), 2, "{src}");
            assert!(
                found
                    .iter()
                    .all(|(_, rho, unseen)| *rho == 1 && unseen.is_empty()),
                "{found:?}\n{src}"
            );
        }
        // A `crate::` path through the annotated module's name: possibly
        // the recursion, counted, and said so in the report.
        let by_name = issue.replace("super::even", "crate::app::prog::even");
        let found = contexts(&by_name);
        assert!(found.iter().all(|(_, rho, _)| *rho == 1), "{found:?}");
        assert_eq!(found[1].2, [UnseenKind::CratePath]);
        // Above the annotated module, a file module, a module of its own:
        // outside the program, and said so.
        for outside in ["super::super::even", "file::even", "own::even"] {
            let src = issue.replace("super::even", outside).replace(
                "pub mod odd {",
                "mod file; #[prescient::task_program] mod own {} pub mod odd {",
            );
            let found = contexts(&src);
            assert_eq!(found[1].1, 0, "{outside}: {found:?}");
            // The call, and its result of unknown size.
            assert_eq!(
                found[1].2,
                [UnseenKind::Call, UnseenKind::UnknownSize],
                "{outside}"
            );
        }
    }

    #[test]
    fn a_nested_module_recursion_gets_the_conservative_stack() {
        let p = program(
            "mod prog {
                pub fn even(n: u64) -> u64 {
                    if n == 0 { 1 } else { let (a, b) = prescient::join(|| odd::odd(n - 1), || 1); a + b }
                }
                pub mod odd {
                    pub fn odd(n: u64) -> u64 {
                        if n == 0 { 0 } else { let (a, b) = prescient::join(|| super::even(n - 1), || 0); a + b }
                    }
                }
            }",
        );
        let r = analyse(&p);
        for c in &r.contexts {
            assert_eq!(c.stack, Sym::Lit(crate::stack::CONSERVATIVE_STACK_BYTES));
        }
    }
}
