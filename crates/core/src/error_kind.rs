//! What sort of failure an error is, said once by the error itself so that every front end
//! (the CLI's exit codes, MCP's `isError` answers, the dashboard's statuses) treats it alike.
//! Each front end maps a kind in one place; the words stay the error's own.

/// The sort of failure, from the point of view of what the person (or agent) can do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The command or call itself is used wrongly.
    Usage,
    /// Something named does not exist (a lesson, a course, a file).
    NotFound,
    /// A value sent is refused by a rule; the sender changes it and tries again.
    InvalidInput,
    /// It clashes with what is there (a file that exists, a step already taken, a record
    /// rewritten meanwhile); try again or choose otherwise.
    Conflict,
    /// The database belongs to a newer devcoach, or was opened for reading only: reads work,
    /// writes are refused.
    ReadOnly,
    /// Another process holds the database; try again shortly.
    Busy,
    /// The data is damaged (the database, or data built into devcoach).
    Damaged,
    /// The machine refused (disk full, permissions, an I/O failure).
    Io,
}

impl ErrorKind {
    /// Every kind, for tests that check each front end's mapping.
    pub const ALL: [Self; 8] = [
        Self::Usage,
        Self::NotFound,
        Self::InvalidInput,
        Self::Conflict,
        Self::ReadOnly,
        Self::Busy,
        Self::Damaged,
        Self::Io,
    ];

    /// Whether the failure lies with the data or the machine rather than with what was asked:
    /// then `devcoach doctor` is the way to find out more.
    pub fn needs_doctor(self) -> bool {
        matches!(self, Self::Damaged | Self::Io)
    }
}

/// An error that knows its kind.
pub trait Kinded {
    fn kind(&self) -> ErrorKind;
}

impl Kinded for crate::settings::SettingError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

impl Kinded for crate::knowledge::KnowledgeError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

impl Kinded for crate::query::QueryError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

impl Kinded for crate::lesson::LessonError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

impl Kinded for crate::course::CourseError {
    fn kind(&self) -> ErrorKind {
        use crate::course::CourseError as E;
        match self {
            E::NotFound(_)
            | E::StepNotFound(..)
            | E::LessonNotFound(_)
            | E::NoDocument { .. }
            | E::AnchorMissing(_) => ErrorKind::NotFound,
            E::AnchorTaken(_) => ErrorKind::Conflict,
            E::InvalidId(_)
            | E::AfterOutOfRange(_)
            | E::BadDocument(_)
            | E::BadAnchor(_)
            | E::BadValue { .. }
            | E::Empty(_) => ErrorKind::InvalidInput,
        }
    }
}
