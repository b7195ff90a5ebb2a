//! [`Work`]: a program's input, prepared once per child, and the one run
//! of it each runner makes.

use std::hint::black_box;

use crate::programs::tree::Layout;
use crate::programs::{fib, tree};

/// A program's prepared input and its expected result.
#[derive(Debug)]
pub struct Work {
    input: Input,
    expected: u64,
}

#[derive(Debug)]
enum Input {
    Fib(u64),
    Tree(Box<tree::Node>),
}

impl Work {
    /// `fib(n)`.
    pub fn fib(n: u64) -> Work {
        Work {
            input: Input::Fib(n),
            expected: fib::expected(n),
        }
    }

    /// The sum of a balanced tree of `nodes` nodes, built here in `layout`.
    pub fn tree(nodes: u64, layout: Layout) -> Work {
        Work {
            input: Input::Tree(tree::Node::balanced_in(nodes, layout)),
            expected: tree::expected(nodes),
        }
    }

    /// The result every run must return.
    pub fn expected(&self) -> u64 {
        self.expected
    }

    /// One run of the sequential reference.
    pub fn run_seq(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_seq(black_box(*n)),
            Input::Tree(root) => tree::sum_seq(black_box(root)),
        }
    }

    /// One run with Prescient (inside a Prescient runtime, or on its global one).
    pub fn run_prescient(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_prescient(black_box(*n)),
            Input::Tree(root) => tree::sum_prescient(black_box(root)),
        }
    }

    /// One run with rayon (inside a rayon pool, or on its global one).
    pub fn run_rayon(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_rayon(black_box(*n)),
            Input::Tree(root) => tree::sum_rayon(black_box(root)),
        }
    }

    /// One run with chili on `scope`.
    pub fn run_chili(&self, scope: &mut chili::Scope<'_>) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_chili(scope, black_box(*n)),
            Input::Tree(root) => tree::sum_chili(scope, black_box(root)),
        }
    }
}
