//! The devcoach skill as the agents load it: `SKILL.md`, `references/*.md` and a
//! `.devcoach-version` stamp saying which build wrote them.

use std::fs;
use std::path::{Path, PathBuf};

use devcoach_assets::{SKILL, SKILL_REFERENCES as REFERENCES};

const STAMP: &str = ".devcoach-version";

/// What a skill directory holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillStatus {
    Missing,
    Current,
    /// Written by another version (or by hand): the stamp found, if any.
    Outdated(Option<String>),
}

pub fn status(dir: &Path) -> SkillStatus {
    if !dir.join("SKILL.md").is_file() {
        return SkillStatus::Missing;
    }
    let stamp = Some(crate::config::read_config_text(&dir.join(STAMP)).trim().to_owned()).filter(|s| !s.is_empty());
    if stamp.as_deref() == Some(devcoach_core::APP_VERSION) && files_match(dir) {
        SkillStatus::Current
    } else {
        SkillStatus::Outdated(stamp)
    }
}

/// The same version can still have been edited by hand: current means the same bytes too.
fn files_match(dir: &Path) -> bool {
    let same = |path: PathBuf, text: &str| crate::config::read_config(&path).is_some_and(|b| b == text.as_bytes());
    same(dir.join("SKILL.md"), SKILL)
        && REFERENCES.iter().all(|(name, text)| same(dir.join("references").join(name), text))
}

/// Writes the skill (creating the directory). Files of ours are replaced; anything else the
/// directory holds is left.
pub fn write(dir: &Path) -> std::io::Result<()> {
    super::ledger::before_create(&dir.join("references"));
    fs::create_dir_all(dir.join("references"))?;
    fs::write(dir.join("SKILL.md"), SKILL)?;
    for (name, text) in REFERENCES {
        fs::write(dir.join("references").join(name), text)?;
    }
    fs::write(dir.join(STAMP), format!("{}\n", devcoach_core::APP_VERSION))
}

/// Removes a skill directory, but only one that holds a `SKILL.md` (never a stray folder).
pub fn remove(dir: &Path) -> std::io::Result<bool> {
    if !dir.join("SKILL.md").is_file() {
        return Ok(false);
    }
    fs::remove_dir_all(dir)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_write_and_remove() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("skills/devcoach");
        assert_eq!(status(&dir), SkillStatus::Missing);
        write(&dir).expect("write");
        assert_eq!(status(&dir), SkillStatus::Current);
        fs::write(dir.join(STAMP), "0.0.1\n").expect("stamp");
        assert_eq!(status(&dir), SkillStatus::Outdated(Some("0.0.1".into())));
        write(&dir).expect("write");
        fs::write(dir.join("references/course.md"), "edited").expect("edit");
        assert_eq!(status(&dir), SkillStatus::Outdated(Some(devcoach_core::APP_VERSION.into())));
        assert!(remove(&dir).expect("remove"));
        assert!(!dir.exists());
        fs::create_dir_all(&dir).expect("stray");
        assert!(!remove(&dir).expect("stray dir"), "a folder without SKILL.md is not ours");
        assert!(dir.exists());
    }
}
