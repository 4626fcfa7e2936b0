//! The languages a piece can be rebuilt in: how a file is recognised, which grammar parses it,
//! which nodes are functions, and the stub that stands in for a hidden body.

use std::path::Path;

/// A language hands-on practice reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
}

/// One row per language: its name, file endings, grammar and function nodes.
struct Row {
    /// The knowledge-map topic an exercise in it counts for by default.
    topic: &'static str,
    lang: Lang,
    name: &'static str,
    endings: &'static [&'static str],
    /// Node kinds that are a function with a `name` and a `body` field.
    functions: &'static [&'static str],
    /// Node kinds whose `name` field qualifies a function inside them (a class, an impl).
    owners: &'static [&'static str],
}

const ROWS: [Row; 6] = [
    Row {
        lang: Lang::Rust,
        name: "Rust",
        topic: "rust",
        endings: &["rs"],
        functions: &["function_item"],
        owners: &["impl_item", "trait_item", "mod_item"],
    },
    Row {
        lang: Lang::Python,
        name: "Python",
        topic: "python",
        endings: &["py"],
        functions: &["function_definition"],
        owners: &["class_definition"],
    },
    Row {
        lang: Lang::TypeScript,
        name: "TypeScript",
        topic: "typescript",
        endings: &["ts", "mts", "cts"],
        functions: &["function_declaration", "generator_function_declaration", "method_definition"],
        owners: &["class_declaration", "abstract_class_declaration"],
    },
    Row {
        lang: Lang::Tsx,
        name: "TypeScript (TSX)",
        topic: "typescript",
        endings: &["tsx"],
        functions: &["function_declaration", "generator_function_declaration", "method_definition"],
        owners: &["class_declaration", "abstract_class_declaration"],
    },
    Row {
        lang: Lang::JavaScript,
        name: "JavaScript",
        topic: "javascript",
        endings: &["js", "mjs", "cjs", "jsx"],
        functions: &["function_declaration", "generator_function_declaration", "method_definition"],
        owners: &["class_declaration"],
    },
    Row {
        lang: Lang::Go,
        name: "Go",
        topic: "go",
        endings: &["go"],
        functions: &["function_declaration", "method_declaration"],
        owners: &[],
    },
];

/// What every stub says when it runs, so a failing test names the exercise.
pub const STUB_MESSAGE: &str = "devcoach hands-on: rebuild this function";

impl Lang {
    fn row(self) -> &'static Row {
        ROWS.iter().find(|r| r.lang == self).unwrap_or(&ROWS[0])
    }

    /// The language of a file, by its ending; `None` for any other file.
    pub fn of_path(path: &Path) -> Option<Self> {
        let ending = path.extension()?.to_str()?.to_ascii_lowercase();
        ROWS.iter().find(|r| r.endings.contains(&ending.as_str())).map(|r| r.lang)
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The knowledge-map topic of the language (`typescript` for TSX too).
    pub fn topic(self) -> &'static str {
        self.row().topic
    }

    /// The languages read, for a message that refuses another.
    pub fn names() -> String {
        let names: Vec<&str> = ROWS.iter().filter(|r| r.lang != Lang::Tsx).map(|r| r.name).collect();
        names.join(", ")
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            // `.ts` keeps its own grammar: TSX reads an old-style `<T>x` assertion as JSX and
            // loses the functions after it. JavaScript, which has no such assertion, is read
            // by TSX (JSX included): one grammar less in the binary (docs/PERFORMANCE.md).
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx | Self::JavaScript => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }

    pub(crate) fn is_function(self, kind: &str) -> bool {
        self.row().functions.contains(&kind)
    }

    pub(crate) fn is_owner(self, kind: &str) -> bool {
        self.row().owners.contains(&kind)
    }

    /// The text that replaces a body: it compiles in place of any body of the language and fails
    /// when called. `indent` is the body's own indentation (Python's block needs it).
    pub(crate) fn stub(self, indent: &str) -> String {
        match self {
            Self::Rust => format!("{{\n{indent}    todo!(\"{STUB_MESSAGE}\")\n{indent}}}"),
            Self::Python => format!("raise NotImplementedError(\"{STUB_MESSAGE}\")"),
            Self::TypeScript | Self::Tsx | Self::JavaScript => {
                format!("{{\n{indent}    throw new Error(\"{STUB_MESSAGE}\");\n{indent}}}")
            }
            Self::Go => format!("{{\n{indent}\tpanic(\"{STUB_MESSAGE}\")\n{indent}}}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_known_by_its_ending_and_every_row_has_a_grammar() {
        assert_eq!(Lang::of_path(Path::new("src/lib.rs")), Some(Lang::Rust));
        assert_eq!(Lang::of_path(Path::new("a/b.TSX")), Some(Lang::Tsx));
        assert_eq!(Lang::of_path(Path::new("x.mjs")), Some(Lang::JavaScript));
        assert_eq!(Lang::of_path(Path::new("main.go")), Some(Lang::Go));
        assert_eq!(Lang::of_path(Path::new("Main.java")), None);
        assert_eq!(Lang::of_path(Path::new("Makefile")), None);
        for row in &ROWS {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&row.lang.grammar()).expect("the grammar loads");
            assert_eq!(row.lang.row().name, row.name);
        }
        assert_eq!(Lang::names(), "Rust, Python, TypeScript, JavaScript, Go");
    }
}
