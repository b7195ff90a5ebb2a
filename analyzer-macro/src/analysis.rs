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
    /// Per function, its stack estimate (`Sym::FnStack` refers to it).
    pub function_stacks: Vec<Sym>,
}

/// Runs all analyses.
pub fn analyse(program: &Program) -> ProgramResult {
    let graph = call_graph(program);
    let function_efforts = effort::function_efforts(program, &graph);
    let site_efforts = effort::site_efforts(program, &graph, &function_efforts);
    let function_stacks = stack::function_stacks(program, &graph);
    let contexts = task_contexts(program)
        .into_iter()
        .map(|c| ContextResult {
            function: c.function,
            rho: rho(&graph, c.function),
            lambda: lambda(program, &graph, c.function),
            effort: effort::context_effort(&c.sites, &site_efforts),
            stack: match &function_stacks[c.function] {
                Sym::Lit(v) => Sym::Lit(*v),
                _ => Sym::FnStack(c.function),
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
        function_stacks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::tests::program;

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
}
