//! The one place that maps failures to exit codes and words.
//!
//! One rule (ARCHITECTURE.md, "Exit codes"): 0 ok · 1 a valid command that failed or found
//! nothing (no such lesson, a damaged share code, a doctor that found a problem) · 2 the command
//! line itself is wrong (an unknown flag or setting, a value a flag does not take, named in the
//! flag's own words) · 3 a write refused because a newer devcoach owns the database.
//!
//! With `--json` on the command line, an error is one JSON object on stderr
//! (`{"error": {"message": …, "exit": …}}`) so stdout only ever holds the result's shape.

use std::process::ExitCode;

use devcoach_store::{ErrorKind, Kinded, StoreError};

use crate::output::{Style, Term};

/// A failure the user can fix; its message says how.
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    /// Exit 1: something named does not exist, or a value is not accepted.
    #[error("{0}")]
    Invalid(String),
    /// Exit 2: the command was used wrongly.
    #[error("{0}")]
    Usage(String),
}

impl Kinded for UserError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid(_) => ErrorKind::InvalidInput,
            Self::Usage(_) => ErrorKind::Usage,
        }
    }
}

pub fn invalid(message: impl Into<String>) -> anyhow::Error {
    UserError::Invalid(message.into()).into()
}

pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UserError::Usage(message.into()).into()
}

/// Exit 1 without another message: the output already said why (a rejected `practice eval`).
#[derive(Debug, thiserror::Error)]
#[error("rejected")]
pub struct Said;

pub fn rejected() -> anyhow::Error {
    Said.into()
}

pub fn exit_code(err: &anyhow::Error) -> u8 {
    if let Some(e) = err.downcast_ref::<UserError>() {
        return exit_of(e.kind());
    }
    if let Some(e) = err.downcast_ref::<devcoach_sync::SyncError>() {
        return exit_of(e.kind());
    }
    err.downcast_ref::<StoreError>().map_or(1, |e| exit_of(e.kind()))
}

/// The exit code a failure of each kind ends with.
pub fn exit_of(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::Usage => 2,
        ErrorKind::ReadOnly => 3,
        ErrorKind::NotFound
        | ErrorKind::InvalidInput
        | ErrorKind::Conflict
        | ErrorKind::Busy
        | ErrorKind::Damaged
        | ErrorKind::Io => 1,
    }
}

/// Whether `--json` was asked for (before any `--`): errors are then JSON too.
pub fn json_requested() -> bool {
    std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json")
}

/// The one shape of an error under `--json`, as a single line for stderr.
pub fn json_error(message: &str, exit: u8) -> String {
    serde_json::json!({ "error": { "message": message, "exit": exit } }).to_string()
}

/// Prints the error chain and returns the exit code. A closed pipe (`devcoach lessons | head`)
/// is not an error.
pub fn report(term: Term, err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
    {
        return ExitCode::SUCCESS;
    }
    if err.downcast_ref::<Said>().is_some() {
        return ExitCode::from(1);
    }
    let code = exit_code(err);
    let message = chain_text(err);
    if json_requested() {
        crate::output::note_verbatim(&json_error(&message, code));
    } else {
        crate::output::note(&format!("{} {message}", term.err(Style::Red, "error:")));
    }
    ExitCode::from(code)
}

/// The error and its causes, joined by ": ". A cause its error already quotes (a file error
/// naming the I/O error it wraps) is said once.
fn chain_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let said = cause.to_string();
        if said.is_empty() || text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use devcoach_core::course::CourseError;
    use devcoach_files::FileError;
    use devcoach_store::SchemaTooNew;

    use super::*;

    /// One error of every store variant (and of each kind a wrapped error can take).
    fn every_store_error() -> Vec<StoreError> {
        let path = || PathBuf::from("/x/coaching.db");
        let io = || std::io::Error::other("refused");
        vec![
            StoreError::SchemaTooNew(SchemaTooNew { db_schema: 7, app_schema: 6, upgraded_by: None, min_app: None }),
            StoreError::Corrupt { path: path(), reason: "not a database".into() },
            StoreError::NoHome,
            StoreError::ReadOnly,
            StoreError::Io { action: "cannot open", path: path(), source: io() },
            StoreError::DiskFull,
            StoreError::WriteFailed,
            StoreError::NotWritable,
            StoreError::Busy,
            StoreError::Changed,
            StoreError::Sqlite(rusqlite::Error::InvalidQuery),
            StoreError::Setting(devcoach_core::settings::SettingError::BadScope),
            StoreError::Knowledge(devcoach_core::knowledge::KnowledgeError::ReservedGroup),
            StoreError::Query(devcoach_core::query::QueryError::BadDate { field: "date_from", got: "x".into() }),
            StoreError::Lesson(devcoach_core::lesson::LessonError::NotAnObject),
            StoreError::Course(CourseError::NotFound("c".into())),
            StoreError::Course(CourseError::AnchorTaken("a".into())),
            StoreError::Course(CourseError::Empty("title")),
            StoreError::Backup(devcoach_store::BackupError::Empty),
            StoreError::File(FileError::NotFound { path: path() }),
            StoreError::File(FileError::Exists { path: path() }),
            StoreError::File(FileError::TooLarge { path: path(), limit: 1 }),
            StoreError::File(FileError::Io { action: "read", path: path(), source: io() }),
            StoreError::SyncLog("the folder is gone".into()),
            StoreError::DemoData("bad".into()),
        ]
    }

    /// Names every variant: a new one fails to build here until the list above holds it.
    fn variant(e: &StoreError) -> &'static str {
        match e {
            StoreError::SchemaTooNew(_) => "SchemaTooNew",
            StoreError::Corrupt { .. } => "Corrupt",
            StoreError::NoHome => "NoHome",
            StoreError::ReadOnly => "ReadOnly",
            StoreError::Io { .. } => "Io",
            StoreError::DiskFull => "DiskFull",
            StoreError::WriteFailed => "WriteFailed",
            StoreError::NotWritable => "NotWritable",
            StoreError::Busy => "Busy",
            StoreError::Changed => "Changed",
            StoreError::Sqlite(_) => "Sqlite",
            StoreError::Setting(_) => "Setting",
            StoreError::Knowledge(_) => "Knowledge",
            StoreError::Query(_) => "Query",
            StoreError::Lesson(_) => "Lesson",
            StoreError::Course(_) => "Course",
            StoreError::Backup(_) => "Backup",
            StoreError::File(_) => "File",
            StoreError::SyncLog(_) => "SyncLog",
            StoreError::DemoData(_) => "DemoData",
        }
    }

    /// What each kind means at each door: (exit code, MCP points at doctor, dashboard status).
    fn expected(kind: ErrorKind) -> (u8, bool, u16) {
        match kind {
            ErrorKind::Usage => (2, false, 400),
            ErrorKind::NotFound => (1, false, 404),
            ErrorKind::InvalidInput => (1, false, 400),
            ErrorKind::Conflict => (1, false, 409),
            ErrorKind::ReadOnly => (3, false, 503),
            ErrorKind::Busy => (1, false, 503),
            ErrorKind::Damaged | ErrorKind::Io => (1, true, 500),
        }
    }

    #[test]
    fn the_three_front_ends_classify_every_store_error_alike() {
        let all = every_store_error();
        let names: std::collections::BTreeSet<_> = all.iter().map(variant).collect();
        assert_eq!(names.len(), 20, "every variant has a sample");
        for e in all {
            let kind = e.kind();
            let (exit, doctor, status) = expected(kind);
            let text = e.to_string();
            let mcp = devcoach_mcp::store_failure("a_tool", &e);
            assert!(mcp.starts_with("a_tool failed: ") && mcp.contains(&text), "{mcp}");
            assert_eq!(mcp.contains("devcoach doctor"), doctor, "{kind:?}: {mcp}");
            let cli = exit_code(&anyhow::Error::from(e));
            assert_eq!(cli, exit, "{kind:?}: {text}");
            assert_eq!(devcoach_web::status_of(kind).as_u16(), status, "{kind:?}");
        }
        for e in every_store_error() {
            let (_, _, status) = expected(e.kind());
            assert_eq!(devcoach_web::store_error_status(e).as_u16(), status);
        }
        // An invalid input is the caller's to change: never "the database could not be used".
        let reserved = StoreError::Knowledge(devcoach_core::knowledge::KnowledgeError::ReservedGroup);
        assert!(!devcoach_mcp::store_failure("add_group", &reserved).contains("could not be used"));
        for kind in ErrorKind::ALL {
            assert_eq!(exit_of(kind), expected(kind).0);
        }
    }

    #[test]
    fn a_sync_error_exits_by_its_kind_and_a_store_error_inside_it_by_its_own() {
        use devcoach_sync::SyncError;
        let exit = |e: SyncError| exit_code(&anyhow::Error::from(e));
        assert_eq!(exit(SyncError::NewerLayout { found: 9, reads: 1 }), 3);
        assert_eq!(exit(SyncError::NotSetUp), 1);
        assert_eq!(exit(SyncError::Busy), 1);
        for e in every_store_error() {
            let code = exit_of(e.kind());
            assert_eq!(exit(SyncError::Store(e)), code);
        }
    }

    /// One error of every sync variant and of every problem inside one.
    fn every_sync_error() -> Vec<devcoach_sync::SyncError> {
        use devcoach_sync::{GitProblem, KeyProblem, PathProblem, SetupProblem, SyncError};
        let path = || PathBuf::from("/shared/devcoach");
        let io = || std::io::Error::other("refused");
        let json = || serde_json::from_str::<serde_json::Value>("{").expect_err("not JSON");
        let child = || devcoach_probe::child::ChildError::Timeout {
            program: "git".into(),
            limit: std::time::Duration::from_secs(1),
        };
        let mut all = vec![
            SyncError::NotSetUp,
            SyncError::Busy,
            SyncError::WrongPassphrase,
            SyncError::NeedPassphrase,
            SyncError::File(FileError::NotFound { path: path() }),
            SyncError::NoMarker { root: path(), marker: "devcoach-sync.json" },
            SyncError::NewerLayout { found: 9, reads: 1 },
            SyncError::Store(StoreError::Busy),
        ];
        all.extend(
            [
                PathProblem::Io(io()),
                PathProblem::CannotCreate(io()),
                PathProblem::CannotRead(io()),
                PathProblem::LinkOrNotFolder,
                PathProblem::NotJson,
                PathProblem::NotAMarker,
                PathProblem::Damaged(json()),
            ]
            .into_iter()
            .map(|problem| SyncError::Path { path: path(), problem }),
        );
        all.extend(
            [
                KeyProblem::Missing { path: path() },
                KeyProblem::Damaged,
                KeyProblem::SealedUnreadable(FileError::NotFound { path: path() }),
                KeyProblem::SealedDamaged,
                KeyProblem::TooCostly { required: 40 },
                KeyProblem::MarkerChanged,
                KeyProblem::MarkerNamesAnother,
                KeyProblem::PlainMarkerOverSealed { marker: "devcoach-sync.json" },
                KeyProblem::PassphraseForPlain,
            ]
            .map(SyncError::Key),
        );
        all.extend(
            [
                GitProblem::Missing,
                GitProblem::Run(child()),
                GitProblem::Failed { step: "pushing".into(), said: "denied".into() },
                GitProblem::RunsCommands { url: "/r".into(), key: "core.fsmonitor".into(), config: path() },
                GitProblem::OtherClone { dir: path(), origin: "/a".into(), url: "/b".into() },
                GitProblem::PushLost { tries: 5 },
            ]
            .map(SyncError::Git),
        );
        all.extend(
            [
                SetupProblem::AlreadySetUp { now: "folder /x".into() },
                SetupProblem::RemoteHelper { target: "ext::sh".into() },
                SetupProblem::UnknownScheme { target: "ftp://x".into(), scheme: "ftp".into() },
                SetupProblem::FolderOrRemote { target: "host:path".into() },
                SetupProblem::BadPath { target: "x".into(), source: io() },
                SetupProblem::InsideDataFolder,
                SetupProblem::ForeignFolder { path: path() },
                SetupProblem::ForeignRepository { url: "/r".into() },
                SetupProblem::NotAFolder { path: path() },
                SetupProblem::CannotCreate { path: path(), source: io() },
                SetupProblem::PlainFolderForEncrypted,
                SetupProblem::PassphraseWithoutEncrypt,
                SetupProblem::BadDeviceId("Not An Id".into()),
            ]
            .map(SyncError::Setup),
        );
        all
    }

    /// Names every sync variant: a new one fails to build here until the list above holds it.
    fn sync_variant(e: &devcoach_sync::SyncError) -> &'static str {
        use devcoach_sync::SyncError;
        match e {
            SyncError::NotSetUp => "NotSetUp",
            SyncError::Busy => "Busy",
            SyncError::WrongPassphrase => "WrongPassphrase",
            SyncError::NeedPassphrase => "NeedPassphrase",
            SyncError::Path { .. } => "Path",
            SyncError::File(_) => "File",
            SyncError::NoMarker { .. } => "NoMarker",
            SyncError::NewerLayout { .. } => "NewerLayout",
            SyncError::Key(_) => "Key",
            SyncError::Git(_) => "Git",
            SyncError::Setup(_) => "Setup",
            SyncError::Store(_) => "Store",
        }
    }

    #[test]
    fn every_sync_error_has_a_kind_an_exit_and_whole_words() {
        let all = every_sync_error();
        let names: std::collections::BTreeSet<_> = all.iter().map(sync_variant).collect();
        assert_eq!(names.len(), 12, "every variant has a sample");
        for e in all {
            let kind = e.kind();
            let said = e.to_string();
            assert!(!said.trim().is_empty() && !said.contains('{') && !said.contains('}'), "{said}");
            assert_eq!(exit_code(&anyhow::Error::from(e)), expected(kind).0, "{kind:?}: {said}");
        }
    }

    #[test]
    fn the_front_ends_own_errors_exit_by_their_kind() {
        assert_eq!(exit_code(&usage("no such flag")), 2);
        assert_eq!(exit_code(&invalid("no such lesson")), 1);
        for e in [UserError::Usage("u".into()), UserError::Invalid("i".into())] {
            let kind = e.kind();
            assert_eq!(exit_code(&anyhow::Error::from(e)), expected(kind).0);
        }
    }

    #[test]
    fn a_cause_the_error_already_quotes_is_said_once() {
        let io = std::io::Error::other("permission refused");
        let file = FileError::Io { action: "read", path: PathBuf::from("/x/notes.md"), source: io };
        let text = chain_text(&anyhow::Error::from(file).context("importing failed"));
        assert_eq!(text, "importing failed: cannot read /x/notes.md: permission refused");
        let sync = devcoach_sync::SyncError::Path {
            path: PathBuf::from("/shared/devices"),
            problem: devcoach_sync::PathProblem::CannotRead(std::io::Error::other("gone")),
        };
        assert_eq!(chain_text(&anyhow::Error::from(sync)), "/shared/devices: cannot be read (gone)");
    }
}
