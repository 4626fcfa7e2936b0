//! The functions of a source file, as a parser sees them: where each starts and ends, where its
//! body is, its name and what owns it (a class, an impl), and the tests a test file holds.

use std::collections::BTreeSet;
use std::path::PathBuf;

use tree_sitter::{Node, Parser, Tree};

use crate::lang::Lang;

/// One function or method of a file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    /// The file, relative to the repository's top.
    pub path: PathBuf,
    pub lang: Lang,
    pub name: String,
    /// The name with its owner (`Parser::parse_header`, `Cart.total`).
    pub qualified: String,
    /// The whole function, first and last line (1-based).
    pub lines: (usize, usize),
    /// The part a stub replaces, first and last line (1-based).
    pub body_lines: (usize, usize),
    /// The same part as bytes of the file.
    pub body: (usize, usize),
    /// Everything before the body: what the learner is given.
    pub signature: String,
    /// The indentation of the body's first line (a stub keeps it).
    pub indent: String,
    /// Edits to the rest of the file once the body is gone (Go: an import only the body used
    /// becomes a blank one), as bytes of the file and their replacement.
    pub import_edits: Vec<(usize, usize, String)>,
    /// Inside another function.
    pub nested: bool,
}

/// A test of a test file: its name and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSite {
    pub name: String,
    pub text: String,
}

fn parse(lang: Lang, source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(source, None)
}

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    source.get(node.byte_range()).unwrap_or_default()
}

/// Every function of `source` with a body to rebuild.
pub fn pieces(lang: Lang, path: &std::path::Path, source: &str) -> Vec<Piece> {
    let Some(tree) = parse(lang, source) else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if let Some(piece) = piece_of(lang, path, node, source) {
            out.push(piece);
        }
    }
    out.sort_by_key(|p| p.body.0);
    out
}

/// The function `node` is, if it is one: a declaration of the language, or (JavaScript,
/// TypeScript) a variable bound to an arrow function or function expression.
fn piece_of(lang: Lang, path: &std::path::Path, node: Node<'_>, source: &str) -> Option<Piece> {
    let (name_node, function) = if lang.is_function(node.kind()) {
        (node.child_by_field_name("name")?, node)
    } else if node.kind() == "variable_declarator" && matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx) {
        let value = node.child_by_field_name("value")?;
        if !matches!(value.kind(), "arrow_function" | "function_expression" | "function") {
            return None;
        }
        (node.child_by_field_name("name")?, value)
    } else {
        return None;
    };
    let body = function.child_by_field_name("body")?;
    let (start, end) = body_span(lang, body, source)?;
    let name = text(name_node, source).to_owned();
    let owner = owner_of(lang, node, source);
    let separator = if lang == Lang::Rust { "::" } else { "." };
    let qualified = owner.map_or_else(|| name.clone(), |o| format!("{o}{separator}{name}"));
    // Counted on bytes: `byte` may fall inside a character (the end of a body, less one).
    let line_of = |byte: usize| memchr::memchr_iter(b'\n', &source.as_bytes()[..byte.min(source.len())]).count() + 1;
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let head_line = &source[source[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1)..];
    let indent: String = match lang {
        // Python's stub stands where the first statement stood.
        Lang::Python => source[line_start..start].chars().take_while(|c| c.is_whitespace()).collect(),
        // A brace body's stub lines up with the function's own line.
        _ => head_line.chars().take_while(|c| *c == ' ' || *c == '\t').collect(),
    };
    Some(Piece {
        path: path.to_owned(),
        lang,
        name,
        qualified,
        lines: (line_of(node.start_byte()), line_of(node.end_byte().saturating_sub(1))),
        body_lines: (line_of(start), line_of(end.saturating_sub(1))),
        body: (start, end),
        signature: source[node.start_byte()..body.start_byte()].trim_end().to_owned(),
        indent,
        import_edits: if lang == Lang::Go { go_import_edits(body, source) } else { Vec::new() },
        nested: inside_function(lang, node),
    })
}

/// The bytes a stub replaces: a brace body whole; for Python, the block after its docstring
/// (the docstring says what the function is for, and stays). `None` when nothing is left to
/// rebuild (a body that is only a docstring, or an arrow's bare expression in a file the stub
/// could not stand in).
fn body_span(lang: Lang, body: Node<'_>, source: &str) -> Option<(usize, usize)> {
    match lang {
        Lang::Python => {
            let mut cursor = body.walk();
            let statements: Vec<Node<'_>> = body.named_children(&mut cursor).collect();
            let first = statements.first()?;
            let docstring =
                first.kind() == "expression_statement" && first.named_child(0).is_some_and(|c| c.kind() == "string");
            let from = if docstring { statements.get(1)? } else { first };
            Some((from.start_byte(), body.end_byte()))
        }
        _ if body.kind() == "statement_block" || body.kind() == "block" => Some((body.start_byte(), body.end_byte())),
        // An arrow's expression body: the stub's block replaces the expression.
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            let _ = source;
            Some((body.start_byte(), body.end_byte()))
        }
        _ => None,
    }
}

/// The name of the class, impl or trait a function sits in.
fn owner_of(lang: Lang, node: Node<'_>, source: &str) -> Option<String> {
    if lang == Lang::Go {
        // A method's receiver type: `func (c *Cart) Total()` is `Cart.Total`.
        let receiver = node.child_by_field_name("receiver")?;
        let ty = text(receiver, source);
        let inner = ty.trim_matches(|c| c == '(' || c == ')').split_whitespace().last()?;
        return Some(inner.trim_start_matches('*').to_owned());
    }
    let mut at = node.parent();
    while let Some(parent) = at {
        if lang.is_owner(parent.kind()) {
            let name = parent.child_by_field_name("name").or_else(|| parent.child_by_field_name("type"))?;
            return Some(text(name, source).to_owned());
        }
        at = parent.parent();
    }
    None
}

fn inside_function(lang: Lang, node: Node<'_>) -> bool {
    let mut at = node.parent();
    while let Some(parent) = at {
        if lang.is_function(parent.kind()) || matches!(parent.kind(), "arrow_function" | "function_expression") {
            return true;
        }
        at = parent.parent();
    }
    false
}

/// The package a node names, when it is a package's member: `fmt.Sprintf` (a call or a value)
/// or `strings.Builder` (a type).
fn go_package_of<'a>(node: Node<'_>, source: &'a str) -> Option<&'a str> {
    let operand = match node.kind() {
        "selector_expression" => node.child_by_field_name("operand")?,
        "qualified_type" => node.child_by_field_name("package")?,
        _ => return None,
    };
    (matches!(operand.kind(), "identifier" | "package_identifier")).then(|| text(operand, source))
}

/// The imports only a Go body uses, as edits that make each a blank import (`_ "fmt"`): Go
/// refuses to build a file with an unused import, and a blank one names nothing of the body.
/// An import the rest of the file uses needs nothing.
fn go_import_edits(body: Node<'_>, source: &str) -> Vec<(usize, usize, String)> {
    let root = {
        let mut top = body;
        while let Some(parent) = top.parent() {
            top = parent;
        }
        top
    };
    let inside = body.byte_range();
    let (mut in_body, mut elsewhere) = (BTreeSet::new(), BTreeSet::new());
    let mut stack = vec![(root, false)];
    while let Some((node, within)) = stack.pop() {
        let within = within || node.byte_range() == inside;
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor).map(|c| (c, within)));
        if let Some(package) = go_package_of(node, source) {
            if within {
                in_body.insert(package)
            } else {
                elsewhere.insert(package)
            };
        }
    }
    let mut edits = Vec::new();
    for (spec, name, path) in go_import_specs(root, source) {
        if in_body.contains(name.as_str()) && !elsewhere.contains(name.as_str()) {
            edits.push((spec.0, spec.1, format!("_ {path}")));
        }
    }
    edits.sort();
    edits
}

/// Each import of a Go file: its bytes, the name it is used by, and its quoted path.
fn go_import_specs(root: Node<'_>, source: &str) -> Vec<((usize, usize), String, String)> {
    let mut specs = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() != "import_spec" {
            continue;
        }
        let Some(path) = node.child_by_field_name("path").map(|p| text(p, source)) else { continue };
        let name = match node.child_by_field_name("name").map(|n| text(n, source)) {
            Some("_" | ".") => continue,
            Some(alias) => alias.to_owned(),
            None => path.trim_matches('"').rsplit('/').next().unwrap_or_default().to_owned(),
        };
        specs.push(((node.start_byte(), node.end_byte()), name, path.to_owned()));
    }
    specs
}

/// Whether a file is a test file of its language by its name.
pub fn is_test_file(lang: Lang, path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let in_tests = path.components().any(|c| {
        let c = c.as_os_str().to_str().unwrap_or_default();
        matches!(c, "tests" | "test" | "__tests__" | "spec")
    });
    match lang {
        Lang::Rust => in_tests,
        Lang::Python => name.starts_with("test_") || name.ends_with("_test.py") || in_tests,
        Lang::Go => name.ends_with("_test.go"),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            name.contains(".test.") || name.contains(".spec.") || in_tests
        }
    }
}

/// The tests a file holds: Rust functions marked `#[test]` (any file), Python `test*`
/// functions, Go `Test*` functions, and JavaScript/TypeScript `test(…)`/`it(…)` calls.
pub fn tests_in(lang: Lang, path: &std::path::Path, source: &str) -> Vec<TestSite> {
    let Some(tree) = parse(lang, source) else { return Vec::new() };
    let test_file = is_test_file(lang, path);
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        let name = match (lang, node.kind()) {
            (Lang::Rust, "function_item") if rust_test_attribute(node, source) => {
                node.child_by_field_name("name").map(|n| text(n, source).to_owned())
            }
            (Lang::Python, "function_definition") if test_file => {
                node.child_by_field_name("name").map(|n| text(n, source).to_owned()).filter(|n| n.starts_with("test"))
            }
            (Lang::Go, "function_declaration") if test_file => {
                node.child_by_field_name("name").map(|n| text(n, source).to_owned()).filter(|n| n.starts_with("Test"))
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "call_expression") if test_file => {
                js_test_name(node, source)
            }
            _ => None,
        };
        if let Some(name) = name {
            out.push(TestSite { name, text: text(node, source).to_owned() });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Whether the attributes just above a Rust function mark it as a test (`#[test]`,
/// `#[tokio::test]`, `#[rstest]`…).
fn rust_test_attribute(node: Node<'_>, source: &str) -> bool {
    let mut at = node.prev_named_sibling();
    while let Some(sibling) = at {
        if sibling.kind() != "attribute_item" {
            break;
        }
        let attr = text(sibling, source);
        if attr.contains("test") {
            return true;
        }
        at = sibling.prev_named_sibling();
    }
    false
}

fn js_test_name(node: Node<'_>, source: &str) -> Option<String> {
    let callee = text(node.child_by_field_name("function")?, source);
    if !matches!(callee, "test" | "it" | "test.only" | "it.only" | "Deno.test") {
        return None;
    }
    let args = node.child_by_field_name("arguments")?;
    let first = args.named_child(0)?;
    let name = text(first, source).trim_matches(|c| c == '"' || c == '\'' || c == '`');
    Some(name.to_owned())
}

/// Whether `name` stands in `text` as a whole word.
pub fn mentions(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn one(lang: Lang, source: &str, name: &str) -> Piece {
        pieces(lang, Path::new("f"), source)
            .into_iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name} in {source}"))
    }

    #[test]
    fn rust_functions_and_methods_with_their_owner_and_body() {
        let src = "struct P;\nimpl P {\n    pub fn parse(&self, s: &str) -> usize {\n        s.len()\n    }\n}\nfn free() {}\n";
        let p = one(Lang::Rust, src, "parse");
        assert_eq!(p.qualified, "P::parse");
        assert_eq!(p.lines, (3, 5));
        assert_eq!(&src[p.body.0..p.body.1], "{\n        s.len()\n    }");
        assert_eq!(p.signature, "pub fn parse(&self, s: &str) -> usize");
        assert_eq!(p.indent, "    ");
        assert!(!p.nested);
        assert_eq!(one(Lang::Rust, src, "free").qualified, "free");
    }

    #[test]
    fn a_python_docstring_stays_and_the_rest_is_the_body() {
        let src = "class Cart:\n    def total(self):\n        \"\"\"Sum of the prices.\"\"\"\n        return sum(self.prices)\n\n    def only_doc(self):\n        \"\"\"Nothing else.\"\"\"\n";
        let p = one(Lang::Python, src, "total");
        assert_eq!(p.qualified, "Cart.total");
        assert_eq!(&src[p.body.0..p.body.1], "return sum(self.prices)");
        assert_eq!(p.indent, "        ");
        assert!(pieces(Lang::Python, Path::new("f"), src).iter().all(|p| p.name != "only_doc"));
    }

    #[test]
    fn javascript_declarations_methods_and_arrows() {
        let src = "export function add(a, b) {\n  return a + b;\n}\nclass C { m() { return 1; } }\nconst twice = (x) => x * 2;\n";
        assert_eq!(one(Lang::JavaScript, src, "add").lines, (1, 3));
        assert_eq!(one(Lang::JavaScript, src, "m").qualified, "C.m");
        let arrow = one(Lang::JavaScript, src, "twice");
        assert_eq!(&src[arrow.body.0..arrow.body.1], "x * 2");
        // An old-style `<T>x` assertion does not hide a function in a `.ts` file; JSX reads in
        // JavaScript.
        let cast =
            "function f(x: unknown): number {\n  return (<number>x) + 1;\n}\nfunction g(): number {\n  return 2;\n}\n";
        assert_eq!(one(Lang::TypeScript, cast, "g").lines, (4, 6));
        let jsx = "export function Badge({ name }) {\n  return <b>{name}</b>;\n}\n";
        assert_eq!(one(Lang::JavaScript, jsx, "Badge").lines, (1, 3));
        let ts = "export function area(r: number): number {\n  return Math.PI * r * r;\n}\n";
        assert_eq!(one(Lang::TypeScript, ts, "area").signature, "function area(r: number): number");
    }

    #[test]
    fn go_methods_name_their_receiver_and_blank_the_imports_only_they_used() {
        let src = "package cart\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n\t\"time\"\n)\n\nfunc (c *Cart) Label() string {\n\tvar b str.Builder\n\t_ = time.Duration(3)\n\treturn fmt.Sprintf(\"%s\", b.String())\n}\n";
        let p = one(Lang::Go, src, "Label");
        assert_eq!(p.qualified, "Cart.Label");
        let blanked: Vec<(&str, &str)> = p.import_edits.iter().map(|(a, b, to)| (&src[*a..*b], to.as_str())).collect();
        assert_eq!(
            blanked,
            [("\"fmt\"", "_ \"fmt\""), ("str \"strings\"", "_ \"strings\""), ("\"time\"", "_ \"time\"")],
            "a type (str.Builder) and a conversion (time.Duration) count as uses"
        );
        let shared = format!("{src}\nfunc Shout(s string) string {{ return fmt.Sprint(s) }}\n");
        assert_eq!(one(Lang::Go, &shared, "Label").import_edits.len(), 2, "fmt is used elsewhere");
    }

    #[test]
    fn tests_are_found_in_each_language() {
        let rust = "#[test]\nfn parses() { assert_eq!(parse(\"a\"), 1); }\nfn helper() {}\n";
        let names = |sites: Vec<TestSite>| sites.into_iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(names(tests_in(Lang::Rust, Path::new("src/lib.rs"), rust)), ["parses"]);
        let py = "def test_total():\n    assert total([1]) == 1\n\ndef helper():\n    pass\n";
        assert_eq!(names(tests_in(Lang::Python, Path::new("tests/test_cart.py"), py)), ["test_total"]);
        assert!(tests_in(Lang::Python, Path::new("cart.py"), py).is_empty(), "not a test file");
        let go = "package cart\nfunc TestLabel(t *testing.T) { _ = Label() }\n";
        assert_eq!(names(tests_in(Lang::Go, Path::new("cart_test.go"), go)), ["TestLabel"]);
        let js = "import test from 'node:test';\ntest('adds two numbers', () => { add(1, 2); });\n";
        assert_eq!(names(tests_in(Lang::JavaScript, Path::new("add.test.js"), js)), ["adds two numbers"]);
    }

    #[test]
    fn a_body_ending_in_a_wide_character_is_read() {
        let py = "def area(r):\n    return r * r * π\n";
        assert_eq!(one(Lang::Python, py, "area").lines, (1, 2));
        let js = "const twice = (r) => r * π\n";
        assert_eq!(one(Lang::JavaScript, js, "twice").lines, (1, 1));
    }

    #[test]
    fn a_name_is_mentioned_only_as_a_whole_word() {
        assert!(mentions("assert parse(x)", "parse"));
        assert!(!mentions("assert parse_all(x)", "parse"));
        assert!(!mentions("reparse()", "parse"));
        assert!(!mentions("anything", ""));
    }
}
