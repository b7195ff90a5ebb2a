//! Which name the user's crate gives the `prescient` dependency, read from
//! its `Cargo.toml`, so that a renamed dependency
//! (`rt = { package = "prescient", … }`) works without `crate = rt`.
//!
//! Proc-macro crates commonly do this (the `proc-macro-crate` crate does it
//! with a full TOML parser); a dependency on a TOML parser would raise the
//! macro's build cost and minimum Rust version, and the question is narrow,
//! so [`Toml`] reads just enough TOML: tables and array tables, dotted and
//! quoted keys, basic and literal strings (multi-line too), inline tables and
//! arrays (across lines too), comments. What it cannot read it skips; a
//! manifest it cannot make sense of gives no answer, and the emitted code
//! then names `::prescient`, as without this module.
//!
//! [`renamed_crate`] looks in `[dependencies]`, `[dev-dependencies]` and
//! their `[target.'…'.…]` variants for entries whose package is `prescient`
//! (`package = "prescient"`, or the entry's own name), following
//! `workspace = true` to the workspace root's `[workspace.dependencies]`.
//! A dependency named `prescient` wins (nothing to rename); otherwise the
//! first renamed one, normal dependencies before dev-dependencies. Inside
//! the `prescient` package itself (its doc tests) there is nothing to find.

use std::path::{Path, PathBuf};

/// The package whose crate the emitted code names.
const PACKAGE: &str = "prescient";

/// A value of the manifest, as far as the question needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Str(String),
    Bool(bool),
    /// Numbers, dates, arrays: present, not needed.
    Other,
}

/// A manifest, flattened: every key/value with its full key path (the
/// table's path, then the dotted key, then the keys of inline tables).
#[derive(Debug, Default)]
struct Toml {
    entries: Vec<(Vec<String>, Value)>,
}

/// A token of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    OpenBrace,
    CloseBrace,
    Equals,
    Comma,
    Dot,
    Newline,
    /// A quoted string's value.
    Str(String),
    /// A bare key, number, boolean or date.
    Bare(String),
}

/// Splits a manifest into tokens, dropping comments and whitespace; `None`
/// on an unterminated string.
fn tokens(text: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => out.push(Token::Newline),
            ' ' | '\t' | '\r' => {}
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '[' => out.push(Token::Open),
            ']' => out.push(Token::Close),
            '{' => out.push(Token::OpenBrace),
            '}' => out.push(Token::CloseBrace),
            '=' => out.push(Token::Equals),
            ',' => out.push(Token::Comma),
            '.' => out.push(Token::Dot),
            '"' | '\'' => {
                let multi = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                let (value, next) = if multi {
                    string(&chars, i + 3, c, true)?
                } else {
                    string(&chars, i + 1, c, false)?
                };
                out.push(Token::Str(value));
                i = next;
                continue;
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !matches!(
                        chars[i],
                        ' ' | '\t' | '\r' | '\n' | '#' | '[' | ']' | '{' | '}' | '=' | ',' | '"'
                            | '\''
                    )
                    // A dot separates bare keys; inside a number it is part of it.
                    && (chars[i] != '.' || chars[start].is_ascii_digit())
                {
                    i += 1;
                }
                out.push(Token::Bare(chars[start..i].iter().collect()));
                continue;
            }
        }
        i += 1;
    }
    Some(out)
}

/// A string's value from just after its opening quote(s): `"…"` with
/// escapes, `'…'` literal; multi-line with three quotes. Returns the value
/// and the index after the closing quote(s).
fn string(chars: &[char], mut i: usize, quote: char, multi: bool) -> Option<(String, usize)> {
    let mut value = String::new();
    if multi && chars.get(i) == Some(&'\n') {
        i += 1; // A newline right after the opening quotes is trimmed.
    }
    loop {
        let c = *chars.get(i)?;
        if c == quote {
            if !multi {
                return Some((value, i + 1));
            }
            if chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote) {
                // Up to two quotes may end the content: `""""` is `"` + `"""`.
                let mut end = i + 3;
                while chars.get(end) == Some(&quote) && end < i + 5 {
                    value.push(quote);
                    end += 1;
                }
                return Some((value, end));
            }
        }
        if c == '\n' && !multi {
            return None;
        }
        if c == '\\' && quote == '"' {
            let e = *chars.get(i + 1)?;
            i += 2;
            match e {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'r' => value.push('\r'),
                'b' => value.push('\u{8}'),
                'f' => value.push('\u{c}'),
                '"' => value.push('"'),
                '\\' => value.push('\\'),
                'u' | 'U' => {
                    let n = if e == 'u' { 4 } else { 8 };
                    let hex: String = chars.get(i..i + n)?.iter().collect();
                    value.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                    i += n;
                }
                // A line-ending backslash in a multi-line string: the
                // newline and the whitespace after it are dropped.
                w if multi && w.is_whitespace() => {
                    i -= 1;
                    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
                        i += 1;
                    }
                }
                _ => return None,
            }
            continue;
        }
        value.push(c);
        i += 1;
    }
}

/// A cursor over the tokens.
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Token::Newline) {
            self.at += 1;
        }
    }

    /// A dotted key up to (not including) the token that ends it.
    fn key(&mut self) -> Option<Vec<String>> {
        let mut parts = Vec::new();
        loop {
            match self.next()? {
                Token::Str(s) | Token::Bare(s) => parts.push(s),
                _ => return None,
            }
            if self.peek() == Some(&Token::Dot) {
                self.at += 1;
            } else {
                return Some(parts);
            }
        }
    }

    /// A value; inline tables are flattened into `out` under `path`.
    fn value(&mut self, path: &[String], out: &mut Vec<(Vec<String>, Value)>) -> Option<()> {
        match self.next()? {
            Token::Str(s) => out.push((path.to_vec(), Value::Str(s))),
            Token::Bare(b) => out.push((
                path.to_vec(),
                match b.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => Value::Other,
                },
            )),
            Token::OpenBrace => loop {
                self.skip_newlines();
                match self.peek()? {
                    Token::CloseBrace => {
                        self.at += 1;
                        break;
                    }
                    Token::Comma => self.at += 1,
                    _ => {
                        let key = self.key()?;
                        if self.next()? != Token::Equals {
                            return None;
                        }
                        let mut full = path.to_vec();
                        full.extend(key);
                        self.value(&full, out)?;
                    }
                }
            },
            Token::Open => {
                // An array: its elements are not needed, but inline tables
                // in it must be read to find its end.
                let mut ignored = Vec::new();
                loop {
                    self.skip_newlines();
                    match self.peek()? {
                        Token::Close => {
                            self.at += 1;
                            break;
                        }
                        Token::Comma => self.at += 1,
                        _ => self.value(path, &mut ignored)?,
                    }
                }
                out.push((path.to_vec(), Value::Other));
            }
            _ => return None,
        }
        Some(())
    }
}

impl Toml {
    /// Reads a manifest; `None` where it is not TOML this reader follows.
    fn parse(text: &str) -> Option<Toml> {
        let mut p = Parser {
            tokens: tokens(text)?,
            at: 0,
        };
        let mut table: Vec<String> = Vec::new();
        let mut entries = Vec::new();
        loop {
            p.skip_newlines();
            let Some(t) = p.peek() else {
                return Some(Toml { entries });
            };
            if *t == Token::Open {
                p.at += 1;
                let array = p.peek() == Some(&Token::Open);
                if array {
                    p.at += 1;
                }
                table = p.key()?;
                // The header itself: a table may have no keys.
                entries.push((table.clone(), Value::Other));
                for _ in 0..=usize::from(array) {
                    if p.next()? != Token::Close {
                        return None;
                    }
                }
            } else {
                let key = p.key()?;
                if p.next()? != Token::Equals {
                    return None;
                }
                let mut full = table.clone();
                full.extend(key);
                p.value(&full, &mut entries)?;
            }
            match p.next() {
                None | Some(Token::Newline) => {}
                Some(_) => return None,
            }
        }
    }

    /// The value at a full key path.
    fn get(&self, path: &[&str]) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.iter().map(String::as_str).eq(path.iter().copied()))
            .map(|(_, v)| v)
    }

    /// Whether a table or key starts with `prefix`.
    fn has_table(&self, prefix: &[&str]) -> bool {
        self.entries
            .iter()
            .any(|(k, _)| k.len() >= prefix.len() && k.iter().zip(prefix).all(|(a, b)| a == b))
    }
}

/// One dependency entry: its name (the crate's name in code, before `-`
/// becomes `_`), whether it is a dev-dependency, its `package`, and whether
/// it inherits from the workspace.
#[derive(Debug)]
struct Dependency {
    name: String,
    dev: bool,
    package: Option<String>,
    workspace: bool,
}

/// The dependency entries of a manifest, normal ones first, each once.
fn dependencies(toml: &Toml) -> Vec<Dependency> {
    let mut out: Vec<Dependency> = Vec::new();
    for (key, _) in &toml.entries {
        let k: Vec<&str> = key.iter().map(String::as_str).collect();
        // `[dependencies] name = …` / `[dependencies.name] …`, and the same
        // under `[target.'cfg(…)'.…]`.
        let (table, rest) = match k.as_slice() {
            ["target", _, table, rest @ ..] => (*table, rest),
            [table, rest @ ..] => (*table, rest),
            _ => continue,
        };
        let dev = match table {
            "dependencies" => false,
            "dev-dependencies" | "dev_dependencies" => true,
            _ => continue,
        };
        let Some(&name) = rest.first() else {
            continue;
        };
        if out.iter().any(|d| d.name == name && d.dev == dev) {
            continue;
        }
        let base: Vec<&str> = k[..k.len() - rest.len() + 1].to_vec();
        let field = |f: &str| {
            let mut path = base.clone();
            path.push(f);
            toml.get(&path).cloned()
        };
        out.push(Dependency {
            name: name.to_string(),
            dev,
            package: match field("package") {
                Some(Value::Str(s)) => Some(s),
                _ => None,
            },
            workspace: field("workspace") == Some(Value::Bool(true)),
        });
    }
    out.sort_by_key(|d| d.dev);
    out
}

/// The name under which a manifest's crate depends on `prescient`, when it
/// is not `prescient` (with `-` as `_`, as in code); `workspace` reads the
/// workspace root's manifest, for entries with `workspace = true`.
pub fn renamed_crate(manifest: &str, workspace: impl FnOnce() -> Option<String>) -> Option<String> {
    let toml = Toml::parse(manifest)?;
    if toml.get(&["package", "name"]) == Some(&Value::Str(PACKAGE.to_string())) {
        return None;
    }
    let mut root: Option<Option<Toml>> = None;
    let mut workspace = Some(workspace);
    let mut renamed = None;
    for dep in dependencies(&toml) {
        let package = match (&dep.package, dep.workspace) {
            (Some(p), _) => p.clone(),
            (None, false) => dep.name.clone(),
            (None, true) => {
                let root = root.get_or_insert_with(|| {
                    workspace
                        .take()
                        .and_then(|read| read())
                        .and_then(|t| Toml::parse(&t))
                });
                match root
                    .as_ref()
                    .and_then(|r| r.get(&["workspace", "dependencies", &dep.name, "package"]))
                {
                    Some(Value::Str(p)) => p.clone(),
                    _ => dep.name.clone(),
                }
            }
        };
        if package != PACKAGE {
            continue;
        }
        if dep.name == PACKAGE {
            return None;
        }
        if renamed.is_none() {
            renamed = Some(dep.name.replace('-', "_"));
        }
    }
    renamed
}

/// The crate's name for `prescient` in the manifest of the crate being
/// compiled (`CARGO_MANIFEST_DIR/Cargo.toml`), when it is renamed; `None`
/// when it is not, or the manifest cannot be read.
pub fn renamed_crate_here() -> Option<String> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    renamed_crate(&manifest, || workspace_manifest(&dir))
}

/// The manifest of the workspace root above `dir`: the nearest
/// `Cargo.toml` in `dir` or a parent that has a `[workspace]` table.
fn workspace_manifest(dir: &Path) -> Option<String> {
    dir.ancestors().find_map(|d| {
        let text = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
        let toml = Toml::parse(&text)?;
        toml.has_table(&["workspace"]).then_some(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamed(manifest: &str) -> Option<String> {
        renamed_crate(manifest, || None)
    }

    #[test]
    fn an_unrenamed_or_absent_dependency_keeps_the_default() {
        assert_eq!(renamed("[dependencies]\nprescient = \"0.1\"\n"), None);
        assert_eq!(
            renamed("[dependencies]\nprescient = { path = \"../runtime\" }\nserde = \"1\""),
            None
        );
        assert_eq!(
            renamed("[package]\nname = \"app\"\n[dependencies]\nrayon = \"1\""),
            None
        );
        assert_eq!(renamed(""), None);
        // The prescient package itself (its doc tests).
        assert_eq!(
            renamed("[package]\nname = \"prescient\"\n[dev-dependencies]\nrt = { package = \"prescient\", path = \".\" }"),
            None
        );
        // Named `prescient` somewhere: that name works.
        assert_eq!(
            renamed("[dependencies]\nprescient = \"0.1\"\n[dev-dependencies]\nrt = { package = \"prescient\" }"),
            None
        );
    }

    #[test]
    fn finds_renamed_dependencies_in_every_table_form() {
        let cases = [
            "[dependencies]\nrt = { package = \"prescient\", path = \"../runtime\" }",
            "[dependencies.rt]\npackage = \"prescient\"\nversion = \"0.1\"",
            "[dependencies]\nrt.package = \"prescient\"\nrt.path = \"x\"",
            "[dev-dependencies]\nrt = { version = \"0.1\", package = 'prescient' }",
            "[target.'cfg(unix)'.dependencies]\nrt = { package = \"prescient\" }",
            "[target.\"cfg(all(unix, not(miri)))\".dependencies.rt]\npackage = \"prescient\"",
            "[target.x86_64-unknown-linux-gnu.dev-dependencies]\n\"rt\" = { package = \"prescient\" }",
        ];
        for m in cases {
            assert_eq!(renamed(m).as_deref(), Some("rt"), "{m}");
        }
        // A hyphenated name is an underscored crate.
        assert_eq!(
            renamed("[dependencies]\nmy-rt = { package = \"prescient\" }").as_deref(),
            Some("my_rt")
        );
        // Normal dependencies before dev-dependencies.
        assert_eq!(
            renamed("[dev-dependencies]\nb = { package = \"prescient\" }\n[dependencies]\na = { package = \"prescient\" }").as_deref(),
            Some("a")
        );
    }

    #[test]
    fn reads_around_what_it_does_not_need() {
        let m = r#"
# A comment with "quotes" and [brackets]
[package]
name = "app" # trailing comment
description = """
A multi-line
description with [dependencies] and = signs.
"""
keywords = [
    "a", # inside an array
    "b",
]
metadata = { docs = { rs = ['x', "y"] } }

[[bin]]
name = "tool"
path = "src/tool.rs"

[features]
default = ["std"]
std = []

[dependencies]
serde = { version = "1.0.200", features = ["derive"], default-features = false }
num = 1.5
rt = { package = "prescient", path = "../prescient/runtime", features = ["hwloc"] }
'x.y' = "2"
"#;
        assert_eq!(renamed(m).as_deref(), Some("rt"));
        // Escapes in basic strings.
        assert_eq!(
            renamed("[dependencies]\nrt = { package = \"pre\\u0073cient\" }").as_deref(),
            Some("rt")
        );
        // A `package` key outside a dependency table is not a dependency.
        assert_eq!(renamed("[package]\npackage = \"prescient\""), None);
    }

    #[test]
    fn workspace_dependencies_are_followed() {
        let member = "[dependencies]\nrt = { workspace = true }\nprescient-graph.workspace = true";
        let root = "[workspace]\nmembers = [\"a\"]\n[workspace.dependencies]\nrt = { package = \"prescient\", path = \"runtime\" }";
        assert_eq!(
            renamed_crate(member, || Some(root.to_string())).as_deref(),
            Some("rt")
        );
        // Not renamed at the root: its name is its package.
        let root = "[workspace.dependencies]\nrt = { path = \"runtime\" }";
        assert_eq!(renamed_crate(member, || Some(root.to_string())), None);
        let member = "[dependencies]\nprescient = { workspace = true }";
        assert_eq!(renamed_crate(member, || Some(String::new())), None);
        // No root found: the entry's own name.
        assert_eq!(
            renamed_crate("[dependencies]\nrt.workspace = true", || None),
            None
        );
    }

    #[test]
    fn unreadable_manifests_give_no_answer() {
        for m in [
            "[dependencies\nrt = { package = \"prescient\" }",
            "[dependencies]\nrt = { package = \"prescient\"",
            "[dependencies]\nrt = \"unterminated\nx = 1",
            "[dependencies]\nrt = = 1",
        ] {
            assert_eq!(renamed(m), None, "{m}");
        }
    }

    #[test]
    fn reads_this_workspaces_manifests() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for dir in [
            ".",
            "runtime",
            "analyzer-macro",
            "dep-graph",
            "benches",
            "examples",
            "tests",
        ] {
            let text =
                std::fs::read_to_string(root.join(dir).join("Cargo.toml")).expect("a manifest");
            let toml = Toml::parse(&text);
            assert!(toml.is_some(), "{dir}/Cargo.toml");
            assert_eq!(renamed_crate(&text, || None), None, "{dir}");
        }
        let text = std::fs::read_to_string(root.join("Cargo.toml")).expect("the root manifest");
        let toml = Toml::parse(&text).expect("parses");
        assert!(toml.has_table(&["workspace"]));
        assert_eq!(
            toml.get(&["workspace", "dependencies", "prescient", "path"]),
            Some(&Value::Str("runtime".to_string()))
        );
    }

    #[test]
    fn this_crates_manifest_names_prescient_as_itself() {
        // analyzer-macro's own dev-dependency is `prescient`, not renamed.
        assert_eq!(renamed_crate_here(), None);
    }
}
