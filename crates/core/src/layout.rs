//! Where the practice coach keeps its files under the data directory: one place for the folder
//! names every crate that reads or writes them uses (the store's backup, the practice crate, the
//! binary). Path arithmetic only; nothing here touches the disk.

use std::path::{Path, PathBuf};

/// `<data>/practice`.
pub fn practice(data: &Path) -> PathBuf {
    data.join("practice")
}

/// `<data>/handson`: the lock of hands-on practice and the open exercise's worktree.
pub fn handson(data: &Path) -> PathBuf {
    data.join("handson")
}

/// `<data>/practice/sessions`: one JSONL log per session.
pub fn practice_sessions(data: &Path) -> PathBuf {
    practice(data).join("sessions")
}

/// `<data>/practice/problems`: problems fetched once and kept.
pub fn practice_problems(data: &Path) -> PathBuf {
    practice(data).join("problems")
}

/// `<data>/practice/eval`: the logs of `practice eval`.
pub fn practice_eval(data: &Path) -> PathBuf {
    practice(data).join("eval")
}

/// `<data>/practice/history.txt`: the practice prompt's line history.
pub fn practice_history(data: &Path) -> PathBuf {
    practice(data).join("history.txt")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_practice_folders_sit_under_the_data_directory() {
        let data = std::path::Path::new("/d");
        assert_eq!(super::practice_sessions(data), std::path::Path::new("/d/practice/sessions"));
        assert_eq!(super::practice_problems(data), std::path::Path::new("/d/practice/problems"));
        assert_eq!(super::practice_eval(data), std::path::Path::new("/d/practice/eval"));
        assert_eq!(super::practice_history(data), std::path::Path::new("/d/practice/history.txt"));
    }
}
