//! What Claude Code's own files say about the projects the learner works in, for onboarding.
//!
//! Read: the projects map and example files in `.claude.json`, the `project` and `timestamp` of
//! each line of `history.jsonl` (never the prompt text), the manifests inside the most recently
//! active projects, and the short auto-memory file Claude Code keeps per project. Any failure
//! gives an empty scan: onboarding then simply asks instead.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, TimeZone, Utc};
use devcoach_core::detect::{self, Stack};
use devcoach_core::limits;
use serde_json::Value;

/// Projects scanned for manifests, most recently active first.
pub const MAX_RECENT_PROJECTS: usize = 15;
/// How deep the manifest walk goes below a project root.
pub const MAX_DEPTH: usize = 2;
pub const MAX_DIRS_PER_PROJECT: usize = 40;
pub const MAX_TOTAL_DIRS: usize = 400;
/// Most projects reported.
pub const MAX_REPORTED_PROJECTS: usize = 20;
pub const MEMORY_EXCERPT_CHARS: usize = 1200;
/// A deep scan over more projects than this is flagged as large.
pub const DEEP_SCAN_SOFT_LIMIT: usize = 8;
/// Most candidates a deep-scan preview lists.
pub const MAX_WINDOW_CANDIDATES: usize = 50;

const SKIPPED_DIRS: [&str; 13] = [
    "node_modules",
    "dist",
    "build",
    "out",
    "coverage",
    "vendor",
    "venv",
    "__pycache__",
    "Pods",
    "DerivedData",
    "target",
    "tmp",
    ".git",
];

/// Where Claude Code keeps its files.
#[derive(Debug, Clone)]
pub struct ClaudeHome {
    /// `~/.claude`, or the override.
    pub dir: PathBuf,
    /// `~/.claude.json` (next to the dir), or `<override>/.claude.json`.
    pub config: PathBuf,
    /// The user's home, for the noise rule.
    pub home: Option<PathBuf>,
}

impl ClaudeHome {
    /// `DEVCOACH_CLAUDE_DIR`, then `CLAUDE_CONFIG_DIR`, then `~/.claude`.
    pub fn from_env() -> Option<Self> {
        let home = std::env::home_dir();
        let over = ["DEVCOACH_CLAUDE_DIR", "CLAUDE_CONFIG_DIR"]
            .iter()
            .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
            .map(PathBuf::from);
        if let Some(dir) = over {
            return Some(Self { config: dir.join(".claude.json"), dir, home });
        }
        let h = home.clone()?;
        Some(Self { dir: h.join(".claude"), config: h.join(".claude.json"), home })
    }

    fn history(&self) -> PathBuf {
        self.dir.join("history.jsonl")
    }

    fn projects(&self) -> PathBuf {
        self.dir.join("projects")
    }
}

/// One project, as onboarding shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectSignal {
    pub name: String,
    pub path: String,
    pub topics: Vec<String>,
    pub prompt_count: u64,
    pub last_activity: Option<String>,
    pub memory: Option<String>,
}

/// The whole scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryScan {
    pub detected_stack: Stack,
    pub projects: Vec<ProjectSignal>,
    pub scanned_projects: usize,
}

/// A project that would be read by a deep scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowCandidate {
    pub name: String,
    pub path: String,
    pub last_activity: Option<String>,
    pub prompt_count: u64,
}

/// What a deep scan over the last `months` would cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowScan {
    pub window_months: u32,
    pub cutoff: String,
    pub candidate_count: usize,
    pub over_soft_limit: bool,
    pub candidates: Vec<WindowCandidate>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Activity {
    count: u64,
    last_ms: Option<i64>,
}

struct Known {
    path: PathBuf,
    example_files: Vec<String>,
    activity: Activity,
}

fn read_capped(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    file.take(limits::HISTORY_FILE_BYTES).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// The projects map of `.claude.json`: path → example files.
fn config_projects(home: &ClaudeHome) -> Vec<(String, Vec<String>)> {
    let Some(bytes) = read_capped(&home.config) else {
        return Vec::new();
    };
    let Ok(Value::Object(config)) = serde_json::from_slice::<Value>(&bytes) else {
        return Vec::new();
    };
    let Some(Value::Object(projects)) = config.get("projects") else {
        return Vec::new();
    };
    projects
        .iter()
        .map(|(path, entry)| {
            let files = entry
                .get("exampleFiles")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            (path.clone(), files)
        })
        .collect()
}

/// Prompt counts and last activity per project, from `history.jsonl`. Only the two fields are
/// deserialised; the prompt text is skipped by the parser.
fn history_activity(home: &ClaudeHome) -> HashMap<String, Activity> {
    #[derive(serde::Deserialize)]
    struct Line {
        project: Option<String>,
        timestamp: Option<f64>,
    }
    let mut out: HashMap<String, Activity> = HashMap::new();
    let Ok(file) = std::fs::File::open(home.history()) else {
        return out;
    };
    for line in BufReader::new(file.take(limits::HISTORY_FILE_BYTES)).split(b'\n').map_while(Result::ok) {
        let Ok(parsed) = serde_json::from_slice::<Line>(&line) else {
            continue;
        };
        let Some(project) = parsed.project else {
            continue;
        };
        let entry = out.entry(project).or_default();
        entry.count += 1;
        #[allow(clippy::cast_possible_truncation)]
        if let Some(ms) = parsed.timestamp.filter(|t| t.is_finite()).map(|t| t as i64) {
            entry.last_ms = Some(entry.last_ms.map_or(ms, |l| l.max(ms)));
        }
    }
    out
}

fn iso_from_ms(ms: i64) -> Option<String> {
    Utc.timestamp_millis_opt(ms).single().map(devcoach_core::time::iso_ms)
}

/// Scratch checkouts (temp dirs, macOS `/private/…`) are noise unless they live under home.
fn is_noise(path: &Path, home: Option<&Path>) -> bool {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    if home.is_some_and(|h| real.starts_with(h.canonicalize().unwrap_or_else(|_| h.to_owned()))) {
        return false;
    }
    let tmp = std::env::temp_dir();
    let tmp = tmp.canonicalize().unwrap_or(tmp);
    real.starts_with(&tmp) || real.starts_with("/private/")
}

/// Existing, non-noise projects with their activity, most recently active first.
fn known_projects(home: &ClaudeHome) -> Vec<Known> {
    let activity = history_activity(home);
    let mut known: Vec<Known> = config_projects(home)
        .into_iter()
        .filter_map(|(path, example_files)| {
            let p = PathBuf::from(&path);
            if !p.is_dir() || is_noise(&p, home.home.as_deref()) {
                return None;
            }
            Some(Known { activity: activity.get(&path).copied().unwrap_or_default(), path: p, example_files })
        })
        .collect();
    known.sort_by(|a, b| b.activity.last_ms.cmp(&a.activity.last_ms).then_with(|| a.path.cmp(&b.path)));
    known
}

/// The manifests of a project, breadth first, a bounded number of folders deep.
fn project_stack(root: &Path, budget: &mut usize) -> Stack {
    let mut stack = Stack::new();
    let mut queue = VecDeque::from([(root.to_owned(), 0usize)]);
    let mut visited = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        if visited >= MAX_DIRS_PER_PROJECT || *budget == 0 {
            break;
        }
        visited += 1;
        *budget -= 1;
        detect::merge_stacks(&mut stack, &super::detect_stack(&dir));
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| e.file_name().to_str().is_some_and(|n| !n.starts_with('.') && !SKIPPED_DIRS.contains(&n)))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        queue.extend(subdirs.into_iter().map(|d| (d, depth + 1)));
    }
    stack
}

/// The auto-memory Claude Code keeps for a project, trimmed to an excerpt.
fn memory_excerpt(home: &ClaudeHome, project: &Path) -> Option<String> {
    let escaped: String =
        project.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let path = home.projects().join(escaped).join("memory").join("MEMORY.md");
    let bytes = read_capped(&path)?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.chars().count() <= MEMORY_EXCERPT_CHARS {
        return Some(text.to_owned());
    }
    let mut cut: String = text.chars().take(MEMORY_EXCERPT_CHARS).collect();
    cut.push('…');
    Some(cut)
}

fn base_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.to_string_lossy().into_owned(), |n| n.to_string_lossy().into_owned())
}

/// Scans the most recently active projects. Never fails: a missing or broken file gives an empty
/// (or smaller) scan.
pub fn scan(home: &ClaudeHome) -> HistoryScan {
    let known = known_projects(home);
    let mut budget = MAX_TOTAL_DIRS;
    let mut stacks = Vec::new();
    let mut projects = Vec::new();
    let scanned = known.iter().take(MAX_RECENT_PROJECTS).count();
    for k in known.iter().take(MAX_RECENT_PROJECTS) {
        let mut stack = project_stack(&k.path, &mut budget);
        for file in &k.example_files {
            if let Some(topic) = detect::topic_for_extension(file) {
                stack.entry(topic.to_owned()).or_insert(5);
            }
        }
        let memory = memory_excerpt(home, &k.path);
        if stack.is_empty() && memory.is_none() {
            continue;
        }
        projects.push(ProjectSignal {
            name: base_name(&k.path),
            path: k.path.to_string_lossy().into_owned(),
            topics: stack.keys().cloned().collect::<BTreeSet<_>>().into_iter().collect(),
            prompt_count: k.activity.count,
            last_activity: k.activity.last_ms.and_then(iso_from_ms),
            memory,
        });
        stacks.push(stack);
    }
    projects.sort_by(|a, b| b.prompt_count.cmp(&a.prompt_count).then_with(|| a.name.cmp(&b.name)));
    projects.truncate(MAX_REPORTED_PROJECTS);
    HistoryScan { detected_stack: detect::combine_project_stacks(&stacks), projects, scanned_projects: scanned }
}

/// The projects active in the last `months` (invalid values mean 3), for the deep-scan preview.
pub fn window(home: &ClaudeHome, months: u32, now: DateTime<Utc>) -> WindowScan {
    let months = if (1..=24).contains(&months) { months } else { 3 };
    let cutoff = now - Duration::days(i64::from(months) * 30);
    let cutoff_ms = cutoff.timestamp_millis();
    let active: Vec<Known> =
        known_projects(home).into_iter().filter(|k| k.activity.last_ms.is_some_and(|ms| ms >= cutoff_ms)).collect();
    let candidate_count = active.len();
    WindowScan {
        window_months: months,
        cutoff: devcoach_core::time::iso_ms(cutoff),
        candidate_count,
        over_soft_limit: candidate_count > DEEP_SCAN_SOFT_LIMIT,
        candidates: active
            .into_iter()
            .take(MAX_WINDOW_CANDIDATES)
            .map(|k| WindowCandidate {
                name: base_name(&k.path),
                path: k.path.to_string_lossy().into_owned(),
                last_activity: k.activity.last_ms.and_then(iso_from_ms),
                prompt_count: k.activity.count,
            })
            .collect(),
    }
}

/// The stack the onboarding payload reports: the working folder (and its git root) merged with
/// the history scan.
pub fn merged_stack(scan: &HistoryScan, folders: &[&Path]) -> BTreeMap<String, i64> {
    let mut stack = scan.detected_stack.clone();
    for folder in folders {
        detect::merge_stacks(&mut stack, &super::detect_stack(folder));
    }
    stack
}
