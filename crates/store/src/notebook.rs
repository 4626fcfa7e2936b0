//! The coaching notebook (`learning-state.md`): free markdown the agent keeps next to the
//! database.

use crate::Result;
use crate::error::StoreError;
use crate::paths::DataDir;
use devcoach_core::limits;

/// What `complete_onboarding` writes when no notebook exists yet, so the briefing never reports
/// a profile without a notebook.
pub const NOTEBOOK_PLACEHOLDER: &str = "# devcoach — Coaching Notebook\n";

impl DataDir {
    /// The notebook text, empty when there is none.
    pub fn read_notebook(&self) -> Result<String> {
        let path = self.notebook_path();
        let bytes = devcoach_files::read_optional(&path, limits::NOTEBOOK_BYTES, devcoach_files::Links::Follow)?;
        Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default())
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
        Ok(devcoach_files::write(&path, text.as_bytes(), devcoach_files::Overwrite::Replace)?)
    }
}
