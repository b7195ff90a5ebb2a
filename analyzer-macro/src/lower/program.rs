//! The whole module's model: its names collected, each function's body
//! lowered by its own builder, then the calls through values filled in with
//! what escaped into a value anywhere in the module.

use super::builder::FnBuilder;
use super::expr_types::return_type;
use super::values;
use crate::model::{Function, Program};
use crate::module_scope::Modules;

/// Builds the model of an inline module.
///
/// Fails only on what `emit` could not handle: a module without a body, or an
/// item the macro would emit (`PARAMS`, `ANALYSIS`) already
/// defined by the module.
#[cfg(test)]
pub(crate) fn build(module: &syn::ItemMod) -> syn::Result<Program> {
    build_with(module, None)
}

/// Builds the model of a module, with the path the attribute's `crate = …`
/// argument gave the `prescient` crate (a one-segment path is one more name of the crate).
pub(crate) fn build_with(module: &syn::ItemMod, krate: Option<&syn::Path>) -> syn::Result<Program> {
    let Some((_, items)) = &module.content else {
        return Err(syn::Error::new(
            module.ident.span(),
            "#[task_program] needs an inline module with a body: `mod name { ... }`",
        ));
    };
    let (mut modules, sources) = Modules::collect(&module.ident, items, krate)?;
    modules.returns = sources.iter().map(|s| return_type(s, &modules)).collect();
    let mut sites = Vec::new();
    let mut functions = Vec::new();
    let mut escaping = Vec::new();
    for (id, src) in sources.iter().enumerate() {
        let mut b = FnBuilder::new(&modules, id, src, &mut sites, &mut escaping);
        let body = b.function(src.sig, src.block);
        functions.push(Function {
            name: src.name.clone(),
            span: src.span,
            body,
        });
    }
    // Calls through values reach whatever escaped into a value anywhere in
    // the module, which is known only now.
    let escaping = values::escaping_set(&escaping, &modules.address_taken);
    for f in &mut functions {
        values::fill_indirect(&mut f.body, &escaping);
    }
    Ok(Program {
        module: module.ident.to_string(),
        functions,
        sites,
    })
}

#[cfg(test)]
mod tests {
    use super::build;

    #[test]
    fn rejects_clashing_items_and_outline_modules() {
        let module: syn::ItemMod = syn::parse_str("mod m { const PARAMS: u8 = 1; }").unwrap();
        let e = build(&module).unwrap_err();
        assert!(e.to_string().contains("emits `PARAMS`"));
        let module: syn::ItemMod = syn::parse_str("mod m;").unwrap();
        assert!(build(&module).is_err());
    }
}
