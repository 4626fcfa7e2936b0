//! The coaching notebook (`learning-state.md`): free markdown the agent keeps next to the
//! database.

use crate::Result;
use crate::error::StoreError;
use crate::paths::DataDir;

/// What `complete_onboarding` writes when no notebook exists yet, so the briefing never reports
/// a profile without a notebook.
pub const NOTEBOOK_PLACEHOLDER: &str = "# devcoach — Coaching Notebook\n";

impl DataDir {
    /// The notebook text, empty when there is none.
    pub fn read_notebook(&self) -> Result<String> {
        let path = self.notebook_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(StoreError::io("cannot read the notebook", path, e)),
        }
    }

    /// Writes the placeholder when the notebook is missing or empty; true when it wrote.
    pub fn ensure_notebook(&self) -> Result<bool> {
        let path = self.notebook_path();
        let empty = std::fs::metadata(&path).map_or(true, |m| m.len() == 0);
        if empty {
            self.write_notebook(NOTEBOOK_PLACEHOLDER)?;
        }
        Ok(empty)
    }

    /// Replaces the notebook (written to a temporary file first, so a crash never leaves half
    /// of it).
    pub fn write_notebook(&self, text: &str) -> Result<()> {
        let path = self.notebook_path();
        std::fs::create_dir_all(self.root())
            .map_err(|e| StoreError::io("cannot create the data directory", self.root(), e))?;
        let tmp = path.with_extension("md.tmp");
        std::fs::write(&tmp, text).map_err(|e| StoreError::io("cannot write the notebook", &tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| StoreError::io("cannot write the notebook", &path, e))
    }
}
