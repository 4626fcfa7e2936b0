//! Why a sync failed, and what kind of failure that is.
//!
//! Every variant carries the facts (which path, which key, what git said), never a finished
//! sentence built elsewhere: the wording is in one place, here, and the kind beside it.

use std::path::PathBuf;

use devcoach_files::FileError;
use devcoach_store::{ErrorKind, Kinded, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("sync is not set up on this machine; run `devcoach sync init <folder|git-url>`")]
    NotSetUp,
    #[error("another `devcoach sync` is running for this data folder; wait for it to finish")]
    Busy,
    #[error("the passphrase does not open this sync folder's key; nothing was changed — try again")]
    WrongPassphrase,
    #[error("this sync folder is encrypted: give its passphrase (DEVCOACH_SYNC_PASSPHRASE, or type it when asked)")]
    NeedPassphrase,
    /// A file or folder of the sync folder, the clone or this data folder's sync state.
    #[error("{}: {problem}", path.display())]
    Path { path: PathBuf, problem: PathProblem },
    /// A file read or written through the file door (its error names the path).
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{} holds no {marker} (is the folder there, mounted, synced?); nothing was changed", root.display())]
    NoMarker { root: PathBuf, marker: &'static str },
    /// The folder's layout is newer than this build reads: as with a newer database, nothing
    /// is written.
    #[error(
        "the sync folder was set up by a newer devcoach (layout {found}; this one reads {reads}): update devcoach on this machine"
    )]
    NewerLayout { found: u64, reads: u32 },
    #[error(transparent)]
    Key(#[from] KeyProblem),
    #[error(transparent)]
    Git(#[from] GitProblem),
    #[error(transparent)]
    Setup(#[from] SetupProblem),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What is wrong with one path.
#[derive(Debug, thiserror::Error)]
pub enum PathProblem {
    #[error("cannot be used ({0})")]
    Io(#[source] std::io::Error),
    #[error("cannot create it ({0})")]
    CannotCreate(#[source] std::io::Error),
    #[error("cannot be read ({0})")]
    CannotRead(#[source] std::io::Error),
    #[error("is a link or not a folder; devcoach reads and writes nothing through it")]
    LinkOrNotFolder,
    #[error("is not a devcoach sync marker (damaged, or another program's file)")]
    NotJson,
    #[error("is not a devcoach sync marker")]
    NotAMarker,
    #[error("is damaged ({0})")]
    Damaged(#[source] serde_json::Error),
}

/// The sync key: this data folder's copy, the folder's sealed `key.age`, and the marker naming it.
#[derive(Debug, thiserror::Error)]
pub enum KeyProblem {
    #[error(
        "the sync key is missing from {} — run `devcoach sync off`, then `devcoach sync init` again with the passphrase",
        path.display()
    )]
    Missing { path: PathBuf },
    #[error("the sync key kept in this data folder is damaged")]
    Damaged,
    #[error("the folder is encrypted but its key file is unreadable: {0}")]
    SealedUnreadable(#[source] FileError),
    #[error(
        "the sync folder's key.age does not read (it is damaged, or was not written by devcoach); nothing was changed — put back a copy of the folder from before, or set sync up afresh"
    )]
    SealedDamaged,
    #[error(
        "the folder's key.age asks for far more work than devcoach ever sets (2^{required}): it was not written by devcoach; nothing was changed"
    )]
    TooCostly { required: u8 },
    #[error("encrypting failed: {0}")]
    Encrypting(#[source] age::EncryptError),
    /// Found at a sync: the marker and this device's key no longer agree.
    #[error(
        "the sync folder's marker no longer matches this device's key (the folder was replaced or changed by someone else); nothing was changed — run `devcoach sync off` and `sync init` again if it was you"
    )]
    MarkerChanged,
    /// Found when joining: the passphrase opens a key the marker does not name.
    #[error(
        "the folder's marker names another key than the one its passphrase opens: the folder was changed by someone else; nothing was set up"
    )]
    MarkerNamesAnother,
    #[error(
        "{marker} says the folder is not encrypted, but the folder holds encrypted files: the marker was changed by someone else; nothing was set up and nothing was sent"
    )]
    PlainMarkerOverSealed { marker: &'static str },
    #[error(
        "a passphrase was given, but this sync folder is not encrypted: if it was, someone removed its key and sealed files. Nothing was set up and nothing was sent; to join a plain folder, give no passphrase"
    )]
    PassphraseForPlain,
}

/// Git, or the repository devcoach syncs through.
#[derive(Debug, thiserror::Error)]
pub enum GitProblem {
    #[error("git is not installed (or not on PATH); install git, or sync through a folder")]
    Missing,
    #[error(transparent)]
    Run(#[from] devcoach_probe::child::ChildError),
    /// git ran and refused; `said` is what it wrote, without its advice.
    #[error("{step} failed: {said}")]
    Failed { step: String, said: String },
    #[error(
        "the repository at {url} sets `{key}` in {}, which could make git run a command on this machine when devcoach pushes to it; devcoach does not sync through it (remove the setting, or sync through a folder)",
        config.display()
    )]
    RunsCommands { url: String, key: String, config: PathBuf },
    #[error(
        "{} is a clone of {origin}, not of {url}; run `devcoach sync off` first to change where devcoach syncs",
        dir.display()
    )]
    OtherClone { dir: PathBuf, origin: String, url: String },
    #[error("pushing kept losing to other devices' pushes ({tries} tries); run `devcoach sync` again")]
    PushLost { tries: usize },
}

/// `sync init` refused what it was given; nothing was set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupProblem {
    #[error("sync is already set up here ({now}); run `devcoach sync off` first to change it")]
    AlreadySetUp { now: String },
    #[error(
        "{target}: devcoach does not use git's remote helpers (`ext::`, `fd::`, …); give a folder, or an https, ssh, git or file URL"
    )]
    RemoteHelper { target: String },
    #[error("{target}: devcoach syncs through a folder or a git URL (https, ssh, git, file); `{scheme}://` is neither")]
    UnknownScheme { target: String, scheme: String },
    #[error(
        "{target} could be a folder or an SSH git remote: write `user@host:path` or `ssh://host/path` for a repository, `./{target}` for a folder"
    )]
    FolderOrRemote { target: String },
    #[error("{target}: {source}")]
    BadPath { target: String, source: std::io::Error },
    #[error("the sync folder cannot be inside devcoach's own data folder")]
    InsideDataFolder,
    #[error("{} holds files that are not devcoach's; give an empty folder (or one another devcoach set up)", path.display())]
    ForeignFolder { path: PathBuf },
    #[error("{url} holds files that are not devcoach's; give devcoach a repository of its own (an empty private one)")]
    ForeignRepository { url: String },
    #[error("{} is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("cannot create {}: {source}", path.display())]
    CannotCreate { path: PathBuf, source: std::io::Error },
    #[error(
        "this sync folder is not encrypted and other devices use it as it is; pick a new folder for an encrypted sync"
    )]
    PlainFolderForEncrypted,
    #[error(
        "a passphrase was given without --encrypt: add --encrypt to set up an encrypted sync, or give no passphrase for a plain one; nothing was set up"
    )]
    PassphraseWithoutEncrypt,
    #[error("no random numbers for a device id: {0}")]
    NoRandom(getrandom::Error),
    #[error("this data folder's sync settings are damaged: {0:?} is not a device id")]
    BadDeviceId(String),
}

impl Kinded for SyncError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::NotSetUp => ErrorKind::NotFound,
            Self::Busy => ErrorKind::Busy,
            Self::WrongPassphrase | Self::NeedPassphrase => ErrorKind::InvalidInput,
            // The folder, the clone or a file of ours could not be used.
            Self::Path { .. } | Self::File(_) | Self::NoMarker { .. } => ErrorKind::Io,
            // Written by a newer devcoach: as with a newer database, nothing is written.
            Self::NewerLayout { .. } => ErrorKind::ReadOnly,
            Self::Key(problem) => problem.kind(),
            Self::Git(problem) => problem.kind(),
            Self::Setup(problem) => problem.kind(),
            Self::Store(e) => e.kind(),
        }
    }
}

impl Kinded for KeyProblem {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Missing { .. } | Self::SealedUnreadable(_) | Self::Encrypting(_) => ErrorKind::Io,
            Self::Damaged | Self::SealedDamaged | Self::TooCostly { .. } => ErrorKind::Damaged,
            // Someone else changed the folder: it no longer agrees with what this device holds.
            Self::MarkerChanged | Self::MarkerNamesAnother | Self::PlainMarkerOverSealed { .. } => ErrorKind::Conflict,
            Self::PassphraseForPlain => ErrorKind::InvalidInput,
        }
    }
}

impl Kinded for GitProblem {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Missing | Self::Run(_) | Self::Failed { .. } => ErrorKind::Io,
            Self::RunsCommands { .. } => ErrorKind::InvalidInput,
            Self::OtherClone { .. } | Self::PushLost { .. } => ErrorKind::Conflict,
        }
    }
}

impl Kinded for SetupProblem {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::AlreadySetUp { .. } => ErrorKind::Conflict,
            Self::CannotCreate { .. } | Self::NoRandom(_) => ErrorKind::Io,
            Self::BadDeviceId(_) => ErrorKind::Damaged,
            Self::RemoteHelper { .. }
            | Self::UnknownScheme { .. }
            | Self::FolderOrRemote { .. }
            | Self::BadPath { .. }
            | Self::InsideDataFolder
            | Self::ForeignFolder { .. }
            | Self::ForeignRepository { .. }
            | Self::NotAFolder { .. }
            | Self::PlainFolderForEncrypted
            | Self::PassphraseWithoutEncrypt => ErrorKind::InvalidInput,
        }
    }
}
