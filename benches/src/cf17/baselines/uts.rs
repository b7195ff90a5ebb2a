//! uts under rayon: [`crate::annotated::uts`]'s tree search with
//! `prescient::scope` replaced by `rayon::scope`: a node computes its
//! children in a loop ([`child`], the program's SHA-1 kernel) and spawns one
//! task per child that counts the child's subtree.

use crate::annotated::uts::{child, Node, Tree};

/// The number of nodes of the subtree of `parent`, one `rayon::scope` spawn
/// per child (the task version's
/// [`par_tree_search`](crate::annotated::uts::par_tree_search)).
pub fn tree_search_rayon(tree: &Tree, parent: &Node) -> u64 {
    let n = parent.num_children as usize;
    if n == 0 {
        return 1;
    }
    let mut counts = vec![0u64; n];
    rayon::scope(|s| {
        for (i, count) in counts.iter_mut().enumerate() {
            let child = child(tree, parent, i as u32);
            s.spawn(move |_| {
                *count = tree_search_rayon(tree, &child);
            });
        }
    });
    1 + counts.iter().sum::<u64>()
}

/// The number of nodes of `tree`, under rayon.
pub fn uts_rayon(tree: &Tree) -> u64 {
    tree_search_rayon(tree, &tree.root())
}
