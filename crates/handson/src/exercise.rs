//! An exercise: a git worktree of the learner's repository, under devcoach's data folder, at
//! the change's state, with the chosen body replaced by a stub. The learner's working tree,
//! index, branches, stash and hooks are never touched; the worktree and its record in the
//! repository are removed at the end, and an exercise a crash left is removed at the next start.

use std::fs::File;
use std::path::{Path, PathBuf};

use devcoach_core::limits;
use devcoach_files::{Links, Overwrite};

use crate::HandsOnError;
use crate::change::Change;
use crate::git::{git, git_ok};
use crate::pick::{Candidate, Offer};

/// The state of an open exercise, kept beside its worktree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exercise {
    pub id: String,
    /// The learner's repository (its top folder).
    pub repo: PathBuf,
    /// The worktree the learner writes in.
    pub tree: PathBuf,
    pub base: String,
    pub change: Change,
    pub candidate: Candidate,
    /// The body the stub replaced: what `/reveal` shows, and what no hint may leak.
    pub hidden: String,
    pub started_ms: i64,
    /// The learner's own copy of the file, as it was at the start (a digest): a learner who
    /// writes there instead of in the exercise is told so.
    #[serde(default)]
    pub own_file: String,
    /// The learner asked to see the agent's version: from then on nothing is guarded.
    #[serde(default)]
    pub revealed: bool,
}

impl Exercise {
    /// The file the learner rebuilds, in the worktree.
    pub fn file(&self) -> PathBuf {
        self.tree.join(&self.candidate.piece.path)
    }

    /// The agent's version as it reads in the file: the signature, then the hidden body at its
    /// own indentation (Python's docstring stays in the learner's file and is not repeated).
    pub fn agent_version(&self) -> String {
        let piece = &self.candidate.piece;
        let body = self.hidden.trim_end();
        match piece.lang {
            crate::Lang::Python => format!("{}\n{}{body}", piece.signature, piece.indent),
            _ => format!("{} {body}", piece.signature),
        }
    }

    /// The same file in the learner's own working tree.
    pub fn own_file_path(&self) -> PathBuf {
        self.repo.join(&self.candidate.piece.path)
    }

    /// Whether the learner's own copy of the file changed since the exercise began: they are
    /// most likely writing there instead of in the exercise.
    pub fn own_file_changed(&self) -> bool {
        digest(&self.own_file_path()) != self.own_file
    }
}

fn digest(path: &Path) -> String {
    use sha2::Digest as _;
    devcoach_files::read(path, limits::HANDSON_SOURCE_BYTES, Links::Refuse)
        .map(|bytes| devcoach_core::encoding::hex(&sha2::Sha256::digest(&bytes)))
        .unwrap_or_default()
}

/// Holds the hands-on lock while it lives: one exercise at a time for a data folder.
#[derive(Debug)]
pub struct Lock(#[allow(dead_code)] File);

const STATE: &str = "exercise.json";

fn io(path: &Path, source: std::io::Error) -> HandsOnError {
    HandsOnError::Io { path: path.to_owned(), source }
}

/// Takes the lock of `root` (`<data>/handson`), then removes what earlier exercises left: with
/// the lock free, none of them is open.
pub fn lock(root: &Path) -> Result<(Lock, Vec<Exercise>), HandsOnError> {
    std::fs::create_dir_all(root).map_err(|e| io(root, e))?;
    let path = root.join("lock");
    let file =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| io(&path, e))?;
    // A stop hook looks at the lock for an instant (`open_exercises`): a few tries ride that out.
    let mut tries = 0;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if tries < 10 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(HandsOnError::Busy),
            Err(std::fs::TryLockError::Error(e)) => return Err(io(&path, e)),
        }
    }
    let cleaned = clean_stale(root)?;
    Ok((Lock(file), cleaned))
}

/// Removes every exercise folder under `root` (call it holding the lock) and its worktree's
/// record in the learner's repository; what was removed.
fn clean_stale(root: &Path) -> Result<Vec<Exercise>, HandsOnError> {
    let mut cleaned = Vec::new();
    let entries = std::fs::read_dir(root).map_err(|e| io(root, e))?;
    for entry in entries.flatten() {
        let dir = entry.path();
        let is_ours = entry.file_name().to_str().is_some_and(|n| n.starts_with("ex-"));
        if !is_ours || !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let state = devcoach_files::read(&dir.join(STATE), limits::HANDSON_STATE_BYTES, Links::Refuse)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Exercise>(&bytes).ok());
        if let Some(ex) = &state {
            remove_worktree(ex);
            let _ = std::fs::remove_dir_all(&ex.tree);
        }
        // A folder that will not go (made read-only by a test) must not stop every later start.
        if std::fs::remove_dir_all(&dir).is_ok() {
            cleaned.extend(state);
        }
    }
    Ok(cleaned)
}

/// The exercises open under `root` right now (a session holds the lock): at most a few, read
/// without waiting and without writing. Used by the stop hook, on every stop.
pub fn open_exercises(root: &Path) -> Vec<Exercise> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let Ok(file) = std::fs::File::open(root.join("lock")) else { return Vec::new() };
    // Free: no session is open (what lies here is a crash's, cleaned at the next start).
    if file.try_lock_shared().is_ok() {
        let _ = file.unlock();
        return Vec::new();
    }
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("ex-")))
        .take(4)
        .filter_map(|e| devcoach_files::read(&e.path().join(STATE), limits::HANDSON_STATE_BYTES, Links::Refuse).ok())
        .filter_map(|bytes| serde_json::from_slice::<Exercise>(&bytes).ok())
        .filter(|ex| !ex.hidden.is_empty() && !ex.revealed)
        .collect()
}

/// The exercise of `open` whose hidden body `reply` carries, by its function's name: what the
/// stop hook sends back. The learner's file as it stands now (their own code included) is what
/// they can see, so nothing of it counts.
pub fn leaked_in(open: &[Exercise], reply: &str, cwd: Option<&Path>) -> Option<String> {
    // Only the agent working in that project (or in the exercise): another session in another
    // project is not coaching it.
    let here = |ex: &Exercise| cwd.is_none_or(|cwd| cwd.starts_with(&ex.repo) || cwd.starts_with(&ex.tree));
    open.iter().filter(|ex| here(ex)).find_map(|ex| {
        let visible =
            devcoach_files::read_to_string(&ex.file(), limits::HANDSON_SOURCE_BYTES, Links::Refuse).unwrap_or_default();
        crate::leak::LeakGuard::new(&ex.hidden, &visible).check(reply).map(|_| ex.candidate.piece.qualified.clone())
    })
}

/// Takes the worktree out of the learner's repository, whatever state it is in.
fn remove_worktree(ex: &Exercise) {
    let tree = ex.tree.to_string_lossy().into_owned();
    let _ = git(&ex.repo, &["worktree", "remove", "--force", "--force", &tree], limits::GIT_OUTPUT_BYTES);
    // The folder may be gone already (deleted by hand), and then git keeps its record. Only
    // ours goes: `git worktree prune` would drop the learner's own records of worktrees that
    // are missing for now (an unmounted drive).
    let Some(name) = ex.tree.file_name() else { return };
    let Ok(out) = git(&ex.repo, &["rev-parse", "--git-common-dir"], limits::GIT_OUTPUT_BYTES) else { return };
    let common = ex.repo.join(out.stdout.trim());
    let record = common.join("worktrees").join(name);
    let points_to_ours =
        devcoach_files::read_to_string(&record.join("gitdir"), limits::GIT_OUTPUT_BYTES, Links::Refuse)
            .is_ok_and(|gitdir| std::path::Path::new(gitdir.trim()).starts_with(&ex.tree));
    if points_to_ours && std::fs::symlink_metadata(&record).is_ok_and(|m| m.is_dir()) {
        let _ = std::fs::remove_dir_all(&record);
        // git removes the folder of records once it is empty; so does this.
        let _ = std::fs::remove_dir(common.join("worktrees"));
    }
}

fn new_id(now_ms: i64) -> String {
    format!("{now_ms:x}-{:x}", std::process::id())
}

/// Sets up the exercise for `pick` of `offer` under `root`, holding `lock`.
pub fn start(
    _lock: &Lock,
    root: &Path,
    offer: &Offer,
    pick: &Candidate,
    now_ms: i64,
) -> Result<Exercise, HandsOnError> {
    let changed = &offer.changed;
    let id = new_id(now_ms);
    let dir = root.join(format!("ex-{id}"));
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    // The worktree's name in the repository's records is the folder's name: ours, unique.
    // Beside the state folder, not in it: the path the learner opens holds the id once.
    let tree = root.join(format!("devcoach-{id}"));
    // Never inside the learner's working tree (a data folder set inside the project).
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    if real(&dir).starts_with(real(&changed.top)) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(HandsOnError::InsideRepository { data: root.to_owned() });
    }
    let ex = Exercise {
        id,
        repo: changed.top.clone(),
        tree: tree.clone(),
        base: changed.base.clone(),
        change: changed.change.clone(),
        candidate: pick.clone(),
        hidden: String::new(),
        started_ms: now_ms,
        own_file: digest(&changed.top.join(&pick.piece.path)),
        revealed: false,
    };
    // Recorded before the worktree exists: a crash from here on is cleaned at the next start.
    save(&dir, &ex)?;
    let set_up = (|| {
        let tree_arg = tree.to_string_lossy().into_owned();
        git_ok(
            &changed.top,
            &["worktree", "add", "--detach", "--quiet", &tree_arg, &changed.base],
            limits::GIT_OUTPUT_BYTES,
        )?;
        if changed.change == Change::Uncommitted {
            lay_uncommitted(offer, &tree);
        }
        stub(&ex)
    })();
    match set_up {
        Ok(hidden) => {
            let ex = Exercise { hidden, ..ex };
            save(&dir, &ex)?;
            Ok(ex)
        }
        Err(e) => {
            remove_worktree(&ex);
            let _ = std::fs::remove_dir_all(&tree);
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

fn save(dir: &Path, ex: &Exercise) -> Result<(), HandsOnError> {
    let bytes = serde_json::to_vec_pretty(ex).unwrap_or_default();
    devcoach_files::write(&dir.join(STATE), &bytes, Overwrite::Replace).map_err(HandsOnError::File)
}

/// Copies the uncommitted work from the learner's working tree into the worktree (which git
/// laid at the last commit): every changed or new file, and the deletions.
fn lay_uncommitted(offer: &Offer, tree: &Path) {
    let changed = &offer.changed;
    // Deletions first, and never through a link: a folder the change turned from a link into a
    // real one is still a link in the worktree, and nothing is written or removed through it.
    for path in &changed.deleted {
        if no_link_above(tree, path) {
            let _ = std::fs::remove_file(tree.join(path));
        }
    }
    for path in &changed.copy {
        let from = changed.top.join(path);
        // What cannot be copied (a link, a pipe, a file over the cap) is left as the last commit
        // has it: the exercise's own file is checked when it is stubbed.
        let Ok(bytes) = devcoach_files::read(&from, limits::HANDSON_SOURCE_BYTES, Links::Refuse) else { continue };
        let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
        let Some((name, dirs)) = parts.split_last() else { continue };
        if devcoach_files::write_below(tree, dirs, name, &bytes, Overwrite::Replace).is_err() {
            continue;
        }
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(&from) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(
                tree.join(path),
                std::fs::Permissions::from_mode(meta.permissions().mode() & 0o755),
            );
        }
    }
}

/// Whether every folder between `root` and `path` is a real folder (or absent), not a link.
fn no_link_above(root: &Path, path: &Path) -> bool {
    let mut at = root.to_owned();
    let parents: Vec<_> = path.parent().map(|p| p.components().collect()).unwrap_or_default();
    parents.into_iter().all(|c| {
        at.push(c);
        std::fs::symlink_metadata(&at).map_or(true, |m| m.is_dir())
    })
}

/// Replaces the chosen body with the stub; the body it replaced.
fn stub(ex: &Exercise) -> Result<String, HandsOnError> {
    let piece = &ex.candidate.piece;
    let path = ex.file();
    let text = devcoach_files::read_to_string(&path, limits::HANDSON_SOURCE_BYTES, Links::Refuse)
        .map_err(HandsOnError::File)?;
    // The piece was found in the change's text; the worktree must hold the same.
    let found = crate::pieces::pieces(piece.lang, &piece.path, &text)
        .into_iter()
        .find(|p| p.qualified == piece.qualified && p.lines == piece.lines)
        .ok_or_else(|| HandsOnError::Moved { name: piece.qualified.clone() })?;
    let hidden = text[found.body.0..found.body.1].to_owned();
    // The body and the import edits, from the end of the file back: each edit's bytes stay
    // where the parse found them.
    let mut edits = found.import_edits.clone();
    edits.push((found.body.0, found.body.1, piece.lang.stub(&found.indent)));
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut replaced = text.clone();
    for (from, to, with) in edits {
        if from <= to && to <= replaced.len() && replaced.is_char_boundary(from) && replaced.is_char_boundary(to) {
            replaced.replace_range(from..to, &with);
        }
    }
    devcoach_files::write(&path, replaced.as_bytes(), Overwrite::Replace).map_err(HandsOnError::File)?;
    Ok(hidden)
}

/// Keeps the learner's own version of the file (`<root>/kept/<id>-<name>`) before the
/// exercise goes: what they wrote is theirs, finished or not. Its path, when it was kept.
pub fn keep_learners_copy(root: &Path, ex: &Exercise) -> Option<PathBuf> {
    let text = devcoach_files::read(&ex.file(), limits::HANDSON_SOURCE_BYTES, Links::Refuse).ok()?;
    let name = ex.candidate.piece.path.file_name()?.to_str()?;
    let kept = root.join("kept");
    std::fs::create_dir_all(&kept).ok()?;
    let path = kept.join(format!("{}-{name}", ex.id));
    devcoach_files::write(&path, &text, Overwrite::Replace).ok()?;
    Some(path)
}

/// Records that the learner asked for the agent's version (the stop hook then guards nothing).
pub fn mark_revealed(root: &Path, ex: &mut Exercise) -> Result<(), HandsOnError> {
    ex.revealed = true;
    save(&root.join(format!("ex-{}", ex.id)), ex)
}

/// Ends the exercise: the worktree and its record in the learner's repository go, and so does
/// its folder under `root`.
pub fn finish(root: &Path, ex: &Exercise) -> Result<(), HandsOnError> {
    remove_worktree(ex);
    let dir = root.join(format!("ex-{}", ex.id));
    let _ = std::fs::remove_dir_all(&ex.tree);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&dir, e)),
        _ => Ok(()),
    }
}
