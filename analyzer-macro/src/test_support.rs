//! Helpers shared by the unit tests of several modules: a test module's
//! program model, and its sites by function. They use only the lowering's
//! entry point, so a module's tests that use them import no other module's
//! tests (and the lowering's own tests import no analysis's).

use crate::model::{Program, SiteKind};

/// Parses a module and builds its model.
pub(crate) fn program(src: &str) -> Program {
    let module: syn::ItemMod = syn::parse_str(src).expect("test module parses");
    crate::lower::build(&module).expect("model builds")
}

/// `function → [site kinds]`.
pub(crate) fn sites(p: &Program) -> Vec<(String, SiteKind)> {
    p.sites
        .iter()
        .map(|s| (p.functions[s.function].name.clone(), s.kind))
        .collect()
}
