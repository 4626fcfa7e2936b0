//! Why a sync failed, and what kind of failure that is.

use devcoach_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("sync is not set up on this machine; run `devcoach sync init <folder|git-url>`")]
    NotSetUp,
    #[error("another `devcoach sync` is running for this data folder; wait for it to finish")]
    Busy,
    #[error("{0}")]
    Folder(String),
    #[error("{0}")]
    Git(String),
    #[error("{0}")]
    Key(String),
    #[error("the passphrase does not open this sync folder's key; nothing was changed — try again")]
    WrongPassphrase,
    #[error("this sync folder is encrypted: give its passphrase (DEVCOACH_SYNC_PASSPHRASE, or type it when asked)")]
    NeedPassphrase,
    #[error("{0}")]
    Newer(String),
    #[error("{0}")]
    Setup(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl devcoach_store::Kinded for SyncError {
    fn kind(&self) -> devcoach_store::ErrorKind {
        use devcoach_store::ErrorKind;
        match self {
            Self::NotSetUp => ErrorKind::NotFound,
            Self::Busy => ErrorKind::Busy,
            // The folder, the git remote or the key file could not be used.
            Self::Folder(_) | Self::Git(_) | Self::Key(_) => ErrorKind::Io,
            Self::WrongPassphrase | Self::NeedPassphrase | Self::Setup(_) => ErrorKind::InvalidInput,
            // Written by a newer devcoach: as with a newer database, nothing is written.
            Self::Newer(_) => ErrorKind::ReadOnly,
            Self::Store(e) => e.kind(),
        }
    }
}
