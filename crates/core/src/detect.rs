//! Stack detection: which topics a project folder suggests, from the manifests in it.
//!
//! The rules are pure: the caller lists the folder (and the few subfolders and files the rules
//! look into) into a [`DirSnapshot`]; [`detect_stack`] maps it to topics with a confidence.

use std::collections::BTreeMap;

use serde_json::Value;

/// A detected stack: topic → suggested confidence.
pub type Stack = BTreeMap<String, i64>;

/// Subfolders whose entries the rules match.
pub const SNAPSHOT_SUBDIRS: [&str; 3] = [".github/workflows", "kubernetes", "k8s"];
/// Files whose text the rules read (only when present).
pub const SNAPSHOT_TEXT_FILES: [&str; 5] =
    ["package.json", "requirements.txt", "requirements-dev.txt", "requirements/base.txt", "pyproject.toml"];

/// What a folder holds, as far as detection cares.
#[derive(Debug, Clone, Default)]
pub struct DirSnapshot {
    /// Names of the folder's entries (files and folders).
    pub names: Vec<String>,
    /// Entry names of each of [`SNAPSHOT_SUBDIRS`] that exists.
    pub subdirs: BTreeMap<String, Vec<String>>,
    /// Text of each of [`SNAPSHOT_TEXT_FILES`] that exists.
    pub texts: BTreeMap<String, String>,
}

/// (subfolder, name pattern, topic, confidence)
const FILE_RULES: &[(Option<&str>, &str, &str, i64)] = &[
    (None, "package.json", "javascript", 6),
    (None, "tsconfig*.json", "typescript", 6),
    (None, "requirements*.txt", "python", 6),
    (None, "pyproject.toml", "python", 6),
    (None, "setup.py", "python", 6),
    (None, "go.mod", "go", 6),
    (None, "Cargo.toml", "rust", 6),
    (None, "pom.xml", "java", 6),
    (None, "build.gradle", "java", 6),
    (None, "build.gradle.kts", "java", 6),
    (None, "*.csproj", "csharp", 6),
    (None, "Gemfile", "ruby", 6),
    (None, "composer.json", "php", 6),
    (None, "Dockerfile", "docker", 7),
    (None, "Dockerfile.*", "docker", 7),
    (None, "docker-compose.yml", "docker_compose", 7),
    (None, "docker-compose.yaml", "docker_compose", 7),
    (None, "docker-compose.*.yml", "docker_compose", 7),
    (Some(".github/workflows"), "*.yml", "github_actions", 6),
    (Some(".github/workflows"), "*.yaml", "github_actions", 6),
    (None, ".gitlab-ci.yml", "gitlab_ci", 6),
    (None, "Jenkinsfile", "ci_cd", 6),
    (None, "*.tf", "terraform", 6),
    (None, "*.sql", "sql", 5),
    (None, ".git", "git", 7),
    (Some("kubernetes"), "*.yaml", "kubernetes", 6),
    (Some("kubernetes"), "*.yml", "kubernetes", 6),
    (Some("k8s"), "*.yaml", "kubernetes", 6),
    (None, "*.bicep", "azure", 6),
    (None, "serverless.yml", "aws", 6),
    (None, "serverless.yaml", "aws", 6),
    (None, "template.yaml", "aws", 5),
    (None, "angular.json", "angular", 6),
    (None, "svelte.config.*", "svelte", 6),
    (None, "nuxt.config.*", "vue", 6),
    (None, "vite.config.*", "javascript", 6),
    (None, "*.xcodeproj", "swift", 6),
    (None, "*.xcworkspace", "swift", 6),
    (None, "Package.swift", "swift", 6),
];

const PACKAGE_RULES: &[(&str, &str)] = &[
    ("react", "react"),
    ("react-dom", "react"),
    ("vue", "vue"),
    ("@angular/core", "angular"),
    ("svelte", "svelte"),
    ("next", "nextjs"),
    ("nuxt", "vue"),
    ("fastify", "fastify"),
    ("express", "express"),
    ("koa", "express"),
    ("@nestjs/core", "node_js"),
];

const PYTHON_RULES: &[(&str, &str)] = &[
    ("django", "django"),
    ("flask", "flask"),
    ("fastapi", "fastapi"),
    ("starlette", "fastapi"),
    ("tornado", "python"),
    ("aiohttp", "python"),
    ("celery", "python"),
    ("sqlalchemy", "postgresql"),
];

const PYTHON_FILES: [&str; 4] = ["requirements.txt", "requirements-dev.txt", "requirements/base.txt", "pyproject.toml"];
const FRAMEWORK_CONFIDENCE: i64 = 6;

/// Maps a folder to topics; when rules disagree the highest confidence wins.
pub fn detect_stack(dir: &DirSnapshot) -> Stack {
    let mut stack = Stack::new();
    for (sub, pattern, topic, conf) in FILE_RULES {
        let names = match sub {
            None => Some(&dir.names),
            Some(s) => dir.subdirs.get(*s),
        };
        if names.is_some_and(|ns| ns.iter().any(|n| glob_match(pattern, n))) {
            raise(&mut stack, topic, *conf);
        }
    }
    if let Some(text) = dir.texts.get("package.json") {
        for dep in package_dependencies(text) {
            if let Some((_, topic)) = PACKAGE_RULES.iter().find(|(name, _)| *name == dep) {
                raise(&mut stack, topic, FRAMEWORK_CONFIDENCE);
            }
        }
    }
    for file in PYTHON_FILES {
        if let Some(text) = dir.texts.get(file) {
            let lower = text.to_ascii_lowercase();
            for (needle, topic) in PYTHON_RULES {
                if lower.contains(needle) {
                    raise(&mut stack, topic, FRAMEWORK_CONFIDENCE);
                }
            }
        }
    }
    stack
}

/// The names under `dependencies` and `devDependencies` of a package.json (none if it does not
/// parse).
fn package_dependencies(text: &str) -> Vec<String> {
    let Ok(Value::Object(pkg)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|k| pkg.get(*k).and_then(Value::as_object))
        .flat_map(|deps| deps.keys().cloned())
        .collect()
}

fn raise(stack: &mut Stack, topic: &str, confidence: i64) {
    let slot = stack.entry(topic.to_owned()).or_insert(confidence);
    *slot = (*slot).max(confidence);
}

/// Merges stacks keeping the highest confidence per topic.
pub fn merge_stacks(into: &mut Stack, other: &Stack) {
    for (topic, conf) in other {
        raise(into, topic, *conf);
    }
}

/// A topic found in at least this many projects is a habit, not an accident.
pub const SHARED_TOPIC_PROJECTS: usize = 3;
/// The boost for a shared topic never lifts it past this confidence.
pub const SHARED_TOPIC_CEILING: i64 = 8;

/// Combines the stacks of several projects: the highest confidence per topic, plus one point for
/// a topic seen in [`SHARED_TOPIC_PROJECTS`] or more projects while still below
/// [`SHARED_TOPIC_CEILING`].
pub fn combine_project_stacks<'a>(stacks: impl IntoIterator<Item = &'a Stack>) -> Stack {
    let mut merged = Stack::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for stack in stacks {
        merge_stacks(&mut merged, stack);
        for topic in stack.keys() {
            *seen.entry(topic.clone()).or_default() += 1;
        }
    }
    for (topic, conf) in &mut merged {
        if seen.get(topic).copied().unwrap_or(0) >= SHARED_TOPIC_PROJECTS && *conf < SHARED_TOPIC_CEILING {
            *conf += 1;
        }
    }
    merged
}

/// The topic a source file's extension suggests (used for the example files Claude Code lists
/// per project).
pub fn topic_for_extension(file_name: &str) -> Option<&'static str> {
    let ext = file_name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "ts" | "tsx" => "typescript",
        "js" | "jsx" | "mjs" => "javascript",
        "py" => "python",
        "swift" => "swift",
        "java" | "kt" => "java",
        "go" => "go",
        "rs" => "rust",
        "rb" => "ruby",
        "php" => "php",
        "cs" => "csharp",
        "sql" => "sql",
        "tf" => "terraform",
        _ => return None,
    })
}

/// Matches one file name against a pattern where `*` is any run of characters and `?` one.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) && p[pi] != '*' {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            backtrack = Some((pi, ni));
            pi += 1;
        } else if let Some((bp, bn)) = backtrack {
            pi = bp + 1;
            ni = bn + 1;
            backtrack = Some((bp, bn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(names: &[&str]) -> DirSnapshot {
        DirSnapshot { names: names.iter().map(|s| (*s).to_owned()).collect(), ..DirSnapshot::default() }
    }

    #[test]
    fn globs() {
        assert!(glob_match("tsconfig*.json", "tsconfig.json"));
        assert!(glob_match("tsconfig*.json", "tsconfig.build.json"));
        assert!(!glob_match("tsconfig*.json", "tsconfig.yaml"));
        assert!(glob_match("Dockerfile.*", "Dockerfile.dev"));
        assert!(!glob_match("Dockerfile.*", "Dockerfile"));
        assert!(glob_match("?.sql", "a.sql"));
        assert!(!glob_match("?.sql", "ab.sql"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn javascript_project() {
        let mut dir = snapshot(&["package.json", "tsconfig.json", ".git", "vite.config.ts"]);
        dir.texts.insert(
            "package.json".into(),
            r#"{"dependencies":{"react":"19","express":"5"},"devDependencies":{"@nestjs/core":"1"}}"#.into(),
        );
        let stack = detect_stack(&dir);
        let want: Stack =
            [("express", 6), ("git", 7), ("javascript", 6), ("node_js", 6), ("react", 6), ("typescript", 6)]
                .into_iter()
                .map(|(t, c)| (t.to_owned(), c))
                .collect();
        assert_eq!(stack, want);
    }

    #[test]
    fn docker_and_ci() {
        let mut dir = snapshot(&["Dockerfile.prod", "docker-compose.dev.yml", "main.tf", "schema.sql", "Jenkinsfile"]);
        dir.subdirs.insert(".github/workflows".into(), vec!["ci.yaml".into()]);
        dir.subdirs.insert("k8s".into(), vec!["deploy.yml".into()]);
        let stack = detect_stack(&dir);
        assert_eq!(stack.get("docker"), Some(&7));
        assert_eq!(stack.get("docker_compose"), Some(&7));
        assert_eq!(stack.get("github_actions"), Some(&6));
        assert_eq!(stack.get("terraform"), Some(&6));
        assert_eq!(stack.get("sql"), Some(&5));
        assert_eq!(stack.get("ci_cd"), Some(&6));
        // k8s/ only counts .yaml files.
        assert_eq!(stack.get("kubernetes"), None);
    }

    #[test]
    fn python_frameworks_from_manifest_text() {
        let mut dir = snapshot(&["pyproject.toml"]);
        dir.texts
            .insert("pyproject.toml".into(), "dependencies = [\"Django>=5\", \"SQLAlchemy\", \"starlette\"]".into());
        let stack = detect_stack(&dir);
        for topic in ["python", "django", "postgresql", "fastapi"] {
            assert_eq!(stack.get(topic), Some(&6), "{topic}");
        }
    }

    #[test]
    fn broken_package_json_still_means_javascript() {
        let mut dir = snapshot(&["package.json"]);
        dir.texts.insert("package.json".into(), "{ not json".into());
        assert_eq!(detect_stack(&dir).into_iter().collect::<Vec<_>>(), [("javascript".to_owned(), 6)]);
    }

    #[test]
    fn merging_keeps_the_maximum() {
        let mut a: Stack = [("git".to_owned(), 7), ("sql".to_owned(), 5)].into();
        let b: Stack = [("git".to_owned(), 5), ("sql".to_owned(), 8), ("go".to_owned(), 6)].into();
        merge_stacks(&mut a, &b);
        assert_eq!(a, [("git".to_owned(), 7), ("go".to_owned(), 6), ("sql".to_owned(), 8)].into());
    }

    #[test]
    fn topics_shared_by_three_projects_get_a_point_up_to_eight() {
        let p = |pairs: &[(&str, i64)]| -> Stack { pairs.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect() };
        let stacks = [
            p(&[("git", 7), ("rust", 6), ("docker", 8)]),
            p(&[("git", 7), ("rust", 5), ("docker", 8)]),
            p(&[("git", 7), ("docker", 8), ("go", 6)]),
        ];
        let combined = combine_project_stacks(&stacks);
        assert_eq!(combined.get("git"), Some(&8), "boosted to the ceiling");
        assert_eq!(combined.get("docker"), Some(&8), "already at the ceiling");
        assert_eq!(combined.get("rust"), Some(&6), "only two projects");
        assert_eq!(combined.get("go"), Some(&6));
        assert!(combine_project_stacks(&[]).is_empty());
    }

    #[test]
    fn extensions() {
        assert_eq!(topic_for_extension("src/main.RS"), Some("rust"));
        assert_eq!(topic_for_extension("index.mjs"), Some("javascript"));
        assert_eq!(topic_for_extension("README"), None);
        assert_eq!(topic_for_extension("notes.txt"), None);
    }
}
