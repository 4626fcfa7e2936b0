//! The Claude Code history scan used by onboarding.

use std::path::Path;

use chrono::Duration;
use devcoach_probe::history::{self, ClaudeHome};
use serde_json::json;

use crate::now;

const SECRET: &str = "my-very-private-prompt-text";

struct Fixture {
    tmp: tempfile::TempDir,
}

impl Fixture {
    fn home(&self) -> ClaudeHome {
        ClaudeHome {
            dir: self.tmp.path().join(".claude"),
            config: self.tmp.path().join(".claude.json"),
            home: Some(self.tmp.path().to_owned()),
        }
    }

    fn project(&self, name: &str, files: &[(&str, &str)]) -> String {
        let dir = self.tmp.path().join("code").join(name);
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(path, text).expect("write");
        }
        std::fs::create_dir_all(&dir).expect("dir");
        dir.to_str().expect("utf-8").to_owned()
    }
}

fn write_history(f: &Fixture, lines: &[(String, i64)]) {
    std::fs::create_dir_all(f.tmp.path().join(".claude")).expect("dir");
    let mut text = String::new();
    for (p, ms) in lines {
        text.push_str(&json!({"display": SECRET, "project": p, "timestamp": ms}).to_string());
        text.push('\n');
    }
    std::fs::write(f.tmp.path().join(".claude/history.jsonl"), format!("{text}not json\n")).expect("history");
}

fn setup() -> (Fixture, Vec<String>) {
    let f = Fixture { tmp: tempfile::TempDir::new().expect("tmp") };
    let web =
        f.project("web", &[("package.json", r#"{"dependencies":{"react":"1"}}"#), ("apps/api/go.mod", "module x")]);
    let svc = f.project("svc", &[("Cargo.toml", "[package]"), ("Dockerfile", "FROM x")]);
    let ops = f.project("ops", &[("main.tf", ""), ("node_modules/x/package.json", "{}")]);
    let notes = f.project("notes", &[]);
    let quiet = f.project("quiet", &[("Gemfile", "")]);
    let config = json!({"projects": {
        &web: {"exampleFiles": ["src/App.tsx"]},
        &svc: {"exampleFiles": []},
        &ops: {},
        &notes: {},
        &quiet: {},
        "/does/not/exist": {},
    }});
    std::fs::write(f.tmp.path().join(".claude.json"), config.to_string()).expect("config");
    let ms = |days: i64| (now() - Duration::days(days)).timestamp_millis();
    let mut lines = vec![];
    for _ in 0..5 {
        lines.push((web.clone(), ms(1)));
    }
    lines.push((svc.clone(), ms(40)));
    lines.push((svc.clone(), ms(100)));
    lines.push((ops.clone(), ms(200)));
    write_history(&f, &lines);
    let escaped: String = notes.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let mem = f.tmp.path().join(".claude/projects").join(escaped).join("memory");
    std::fs::create_dir_all(&mem).expect("memory dir");
    std::fs::write(mem.join("MEMORY.md"), format!("  Prefers small PRs. {}", "x".repeat(2000))).expect("memory");
    (f, vec![web, svc, ops, notes, quiet])
}

#[test]
fn scan_reads_manifests_activity_and_memory_but_never_prompts() {
    let (f, paths) = setup();
    let scan = history::scan(&f.home());
    assert_eq!(scan.scanned_projects, 5);
    let names: Vec<&str> = scan.projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names[0], "web", "most prompts first");
    let web = &scan.projects[0];
    assert_eq!(web.prompt_count, 5);
    assert_eq!(web.topics, ["go", "javascript", "react", "typescript"]);
    assert!(web.last_activity.is_some());
    let ops = scan.projects.iter().find(|p| p.name == "ops").expect("ops");
    assert_eq!(ops.topics, ["terraform"], "node_modules is never walked");
    let notes = scan.projects.iter().find(|p| p.name == "notes").expect("memory keeps a project without manifests");
    let memory = notes.memory.as_deref().expect("memory");
    assert!(memory.starts_with("Prefers small PRs.") && memory.ends_with('…'));
    assert_eq!(memory.chars().count(), history::MEMORY_EXCERPT_CHARS + 1);
    assert_eq!(scan.detected_stack.get("rust"), Some(&6));
    assert_eq!(scan.detected_stack.get("docker"), Some(&7));
    assert!(!format!("{scan:?}").contains(SECRET), "prompt text leaked");
    assert!(paths.iter().all(|p| Path::new(p).is_dir()));
}

#[test]
fn scratch_dirs_outside_home_are_noise() {
    let (f, _) = setup();
    let mut home = f.home();
    home.home = Some("/nonexistent-home".into());
    // Every project lives in the temp dir, which is not under this home.
    assert_eq!(history::scan(&home), history::HistoryScan::default());
}

#[test]
fn missing_or_broken_files_give_an_empty_scan() {
    let f = Fixture { tmp: tempfile::TempDir::new().expect("tmp") };
    assert_eq!(history::scan(&f.home()), history::HistoryScan::default());
    std::fs::write(f.tmp.path().join(".claude.json"), "{ broken").expect("write");
    assert_eq!(history::scan(&f.home()), history::HistoryScan::default());
    std::fs::write(f.tmp.path().join(".claude.json"), r#"{"projects": [1, 2]}"#).expect("write");
    assert_eq!(history::scan(&f.home()), history::HistoryScan::default());
}

#[test]
fn the_deep_scan_window_counts_active_projects_only() {
    let (f, _) = setup();
    let w3 = history::window(&f.home(), 3, now());
    let names: Vec<&str> = w3.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["web", "svc"]);
    assert_eq!((w3.window_months, w3.candidate_count, w3.over_soft_limit), (3, 2, false));
    assert_eq!(w3.cutoff, "2026-09-01T12:00:00.000Z");
    let w1 = history::window(&f.home(), 1, now());
    assert!(w1.candidates.iter().all(|c| w3.candidates.contains(c)));
    assert_eq!(w1.candidate_count, 1);
    let w12 = history::window(&f.home(), 12, now());
    assert_eq!(w12.candidate_count, 3, "a project with no activity is never a candidate");
    assert_eq!(history::window(&f.home(), 0, now()).window_months, 3);
    assert_eq!(history::window(&f.home(), 99, now()).window_months, 3);
}
