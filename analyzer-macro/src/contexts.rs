//! Task contexts (CF'17 Alg. 1).
//!
//! Every spawn construct — `join`, `spawn`, a scope's or task group's `spawn`,
//! a dataflow task — is a task invocation. Its context is the innermost user
//! function containing it: closures (including the task closures themselves)
//! belong to the function they are written in. `Runtime::run` is the parallel
//! region, not a task, so a function that only enters the runtime is not a
//! context.

use crate::model::{FnId, Program, SiteId};

/// A task context: a module function with its spawn sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskContext {
    /// The function.
    pub function: FnId,
    /// Its spawn sites, in source order.
    pub sites: Vec<SiteId>,
}

/// The task contexts of a program, in source order of their functions.
pub fn task_contexts(program: &Program) -> Vec<TaskContext> {
    let mut contexts: Vec<TaskContext> = Vec::new();
    for function in 0..program.functions.len() {
        let sites: Vec<SiteId> = program
            .sites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.function == function)
            .map(|(id, _)| id)
            .collect();
        if !sites.is_empty() {
            contexts.push(TaskContext { function, sites });
        }
    }
    contexts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::program;

    #[test]
    fn contexts_are_innermost_functions_with_sites() {
        let p = program(
            "mod m {
                use prescient::{join, spawn, Runtime};
                fn main_entry() { Runtime::new().run(|| fib(30)); }
                fn fib(n: u64) -> u64 {
                    if n < 2 { return n; }
                    let (a, b) = join(|| fib(n - 1), || { spawn(|| 1); fib(n - 2) });
                    a + b
                }
                fn leaf() {}
                fn driver() { for i in 0..4 { spawn(move || leaf()); } }
            }",
        );
        let contexts = task_contexts(&p);
        assert_eq!(
            contexts,
            vec![
                TaskContext {
                    function: 1,
                    sites: vec![0, 1]
                },
                TaskContext {
                    function: 3,
                    sites: vec![2]
                },
            ]
        );
    }

    #[test]
    fn no_sites_no_contexts() {
        let p = program("mod m { fn f() { rayon::join(|| 1, || 2); } }");
        assert!(task_contexts(&p).is_empty());
    }
}
