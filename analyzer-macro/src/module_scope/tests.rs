//! Unit tests of the module scopes: name resolution through imports, globs,
//! nested modules and the crate root's face.
use super::*;

fn module(src: &str) -> syn::ItemMod {
    syn::parse_str(src).expect("test module parses")
}

fn items(module: &syn::ItemMod) -> &[syn::Item] {
    &module.content.as_ref().expect("an inline module").1
}

fn collect<'a>(
    m: &'a syn::ItemMod,
    krate: Option<&syn::Path>,
) -> syn::Result<(Modules, Vec<FnSource<'a>>)> {
    Modules::collect(&m.ident, items(m), krate)
}

fn path(s: &str) -> Vec<String> {
    s.split("::").map(str::to_owned).collect()
}

/// Resolves paths in the annotated module.
struct Resolving<'a>(&'a Modules);

impl Resolving<'_> {
    fn resolve(&self, segs: &[String]) -> Resolved {
        self.0.resolve(ROOT, segs)
    }
}

#[test]
fn collects_functions_methods_and_trait_defaults() {
    let m = module(
        "mod m {
            fn f() {}
            struct T;
            impl T { fn a(&self) {} #[cfg(test)] fn t(&self) {} }
            trait Walk { fn walk(&self) {} fn required(&self); }
            impl Walk for T {}
            #[cfg(windows)]
            fn w() {}
            const N: usize = 4;
            static S: u8 = 0;
        }",
    );
    let Ok((modules, sources)) = collect(&m, None) else {
        panic!("the module collects");
    };
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["f", "T::a", "Walk::walk"]);
    assert_eq!(modules.resolve(ROOT, &path("f")), Resolved::Module(0));
    assert_eq!(modules.resolve(ROOT, &path("T::a")), Resolved::Module(1));
    assert_eq!(
        modules.resolve(ROOT, &path("Walk::walk")),
        Resolved::Module(2)
    );
    assert_eq!(modules.method_names["walk"], [2]);
    let scope = &modules.scopes[ROOT];
    // Compiled out: not a function, but a name of the module.
    assert!(!scope.fns.contains_key("w") && scope.items.contains("w"));
    assert!(scope.consts.contains("N") && !scope.consts.contains("S"));
    assert_eq!(scope.value_types.len(), 2);
}

#[test]
fn resolves_imports_from_prescient() {
    let m = module(
        "mod m {
            use p::{join as j, Scope};
            use prescient as p;
            extern crate prescient as q;
            use ::prescient::spawn;
            use rayon::scope;
            use prescient::*;
            use std::thread;
            #[cfg(windows)]
            fn dataflow() {}
        }",
    );
    let Ok((modules, _)) = collect(&m, None) else {
        panic!("the module collects");
    };
    let scope = Resolving(&modules);
    let prescient = |s: &str| Resolved::Prescient(path(s));
    assert_eq!(scope.resolve(&path("j")), prescient("join"));
    assert_eq!(scope.resolve(&path("p::join")), prescient("join"));
    assert_eq!(scope.resolve(&path("q::spawn")), prescient("spawn"));
    assert_eq!(scope.resolve(&path("spawn")), prescient("spawn"));
    assert_eq!(
        scope.resolve(&path("Scope::spawn")),
        prescient("Scope::spawn")
    );
    // From the glob import.
    assert_eq!(
        scope.resolve(&path("TaskGroup::new")),
        prescient("TaskGroup::new")
    );
    // Imported from elsewhere, or defined by the module (even when
    // compiled out): not the glob's.
    assert_eq!(scope.resolve(&path("scope")), Resolved::Unknown);
    assert_eq!(scope.resolve(&path("dataflow")), Resolved::Unknown);
    assert_eq!(scope.resolve(&path("thread::spawn")), Resolved::Unknown);
}

#[test]
fn the_crate_argument_names_prescient_unless_an_item_does() {
    let krate: syn::Path = syn::parse_str("rt").expect("a path");
    let m = module("mod m { use rt::join; }");
    let Ok((modules, _)) = collect(&m, Some(&krate)) else {
        panic!("the module collects");
    };
    assert_eq!(modules.krate.as_deref(), Some("rt"));
    let scope = Resolving(&modules);
    assert_eq!(
        scope.resolve(&path("join")),
        Resolved::Prescient(path("join"))
    );
    let m = module("mod m { mod rt {} mod prescient {} }");
    let Ok((modules, _)) = collect(&m, Some(&krate)) else {
        panic!("the module collects");
    };
    let scope = Resolving(&modules);
    assert_eq!(scope.resolve(&path("rt::join")), Resolved::Unknown);
    assert_eq!(scope.resolve(&path("prescient::join")), Resolved::Unknown);
}

#[test]
fn rejects_every_item_the_macro_emits() {
    let m = module("mod m { const PARAMS: u8 = 1; fn ANALYSIS() {} use x::PARAMS as P; }");
    let Err(e) = collect(&m, None) else {
        panic!("the clashes are errors");
    };
    let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
    assert_eq!(
        messages,
        [
            "#[task_program] emits `PARAMS` in this module; rename this item",
            "#[task_program] emits `ANALYSIS` in this module; rename this item",
        ]
    );
}

#[test]
fn resolves_paths_through_nested_modules() {
    let m = module(
        "mod prog {
            use self::odd::odd as o;
            pub fn even() {}
            pub mod odd {
                use super::even;
                use prescient::join;
                pub fn odd() {}
                pub mod deep {
                    use super::*;
                    use crate::app::prog::even as by_name;
                    pub fn d() {}
                }
            }
            mod file;
            #[cfg(feature = \"x\")]
            mod gated { pub fn g() {} }
            #[prescient::task_program]
            mod own { pub fn h() {} }
        }",
    );
    let Ok((modules, sources)) = collect(&m, None) else {
        panic!("the module collects");
    };
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["even", "odd::odd", "odd::deep::d"]);
    assert_eq!(modules.scopes.len(), 3);
    assert_eq!(modules.scopes[2].parent, Some((1, 3)));
    let (root, odd, deep) = (0, 1, 2);
    let at = |scope, p: &str| modules.resolve(scope, &path(p));
    // From the annotated module: into the nested ones.
    assert_eq!(at(root, "odd::odd"), Resolved::Module(1));
    assert_eq!(at(root, "self::odd::deep::d"), Resolved::Module(2));
    assert_eq!(at(root, "o"), Resolved::Module(1));
    assert_eq!(at(root, "odd::join"), Resolved::Prescient(path("join")));
    // Not part of the program: a file module, a gated one, another
    // annotated one; above the annotated module.
    for outside in ["file::f", "gated::g", "own::h", "super::even"] {
        assert_eq!(at(root, outside), Resolved::Unknown, "{outside}");
    }
    // From a nested module: `super::`, its own `use`s.
    assert_eq!(at(odd, "even"), Resolved::Module(0));
    assert_eq!(at(odd, "super::even"), Resolved::Module(0));
    assert_eq!(at(odd, "odd"), Resolved::Module(1));
    assert_eq!(at(odd, "deep::d"), Resolved::Module(2));
    assert_eq!(at(odd, "join"), Resolved::Prescient(path("join")));
    assert_eq!(at(odd, "super::super::even"), Resolved::Unknown);
    // Names are not inherited: the annotated module's `o` is not `odd`'s.
    assert_eq!(at(odd, "o"), Resolved::Unknown);
    // A glob import of the enclosing module, and `crate::` paths that
    // name the annotated module: possibly its functions.
    assert_eq!(at(deep, "odd"), Resolved::Module(1));
    assert_eq!(at(deep, "super::super::even"), Resolved::Module(0));
    assert_eq!(at(deep, "by_name"), Resolved::ByName(0));
    assert_eq!(at(odd, "crate::app::prog::odd::odd"), Resolved::ByName(1));
    assert_eq!(at(odd, "crate::app::other::even"), Resolved::Unknown);
}
