//! The one door to paths a user (or an agent, or an environment variable) names.
//!
//! Every read and write devcoach makes on someone's behalf goes through here, so three rules hold
//! everywhere:
//! - **Only regular files.** A FIFO, socket, device or directory is refused before anything
//!   blocks on it or replaces it: reads open without blocking and check the opened handle, writes
//!   refuse anything at the target but an absent path or a regular file (a symbolic link
//!   included: the link is never replaced, nor written through).
//! - **Reads are bounded while reading**, never by the size the file claims: a file that grows,
//!   or a device that never ends, stops at the limit with an error.
//! - **Writes are atomic and leave nothing behind**: bytes go to a hidden temporary file beside
//!   the target, which is renamed over it only once complete, and removed on every error (and if
//!   the writer is dropped without committing).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What a path turned out to be, when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Other,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Directory => "a directory",
            Self::Symlink => "a symbolic link",
            Self::Fifo => "a named pipe (FIFO)",
            Self::Socket => "a socket",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Other => "not a regular file",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{} is {kind}; devcoach only reads and writes regular files — name a file", path.display())]
    NotRegular { path: PathBuf, kind: Kind },
    #[error("{} is larger than devcoach accepts here ({limit} bytes at most)", path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{} already exists; nothing was written — pass --force to replace it, or pick another name", path.display())]
    Exists { path: PathBuf },
    #[error("{} does not exist", path.display())]
    NotFound { path: PathBuf },
    #[error("{} is not UTF-8 text", path.display())]
    NotText { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io { action: &'static str, path: PathBuf, source: io::Error },
}

impl FileError {
    fn io(action: &'static str, path: &Path, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::NotFound {
            return Self::NotFound { path: path.to_owned() };
        }
        Self::Io { action, path: path.to_owned(), source }
    }

    /// Whether the path simply was not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
}

pub type Result<T, E = FileError> = std::result::Result<T, E>;

fn kind_of(file_type: std::fs::FileType) -> Option<Kind> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some(Kind::Directory);
    }
    if file_type.is_symlink() {
        return Some(Kind::Symlink);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some(Kind::Fifo);
        }
        if file_type.is_socket() {
            return Some(Kind::Socket);
        }
        if file_type.is_char_device() {
            return Some(Kind::CharDevice);
        }
        if file_type.is_block_device() {
            return Some(Kind::BlockDevice);
        }
    }
    Some(Kind::Other)
}

/// Whether links are followed when opening for reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A link to a regular file is read (a file the user named through a link is theirs).
    Follow,
    /// A link is refused (files devcoach keeps itself, such as course documents).
    Refuse,
}

/// Opens a regular file for reading. A FIFO or device is refused without blocking on it: the
/// open never waits, and the opened handle itself is checked.
pub fn open(path: &Path, links: Links) -> Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never waits on a FIFO, never makes a terminal device the controlling terminal.
        let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
        if links == Links::Refuse {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    {
        let meta = std::fs::symlink_metadata(path).map_err(|e| FileError::io("read", path, e))?;
        if links == Links::Refuse && meta.file_type().is_symlink() {
            return Err(FileError::NotRegular { path: path.to_owned(), kind: Kind::Symlink });
        }
    }
    let file = match options.open(path) {
        Ok(file) => file,
        #[cfg(unix)]
        Err(e) if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(FileError::NotRegular { path: path.to_owned(), kind: Kind::Symlink });
        }
        // A directory opens on some systems and fails on others; say what it is either way.
        Err(e) => return Err(refused(path, std::fs::metadata(path), "read", e)),
    };
    regular(file, path, "read")
}

/// Why an open failed: what stands at `path` when it is not a regular file, else the error.
fn refused(path: &Path, meta: io::Result<std::fs::Metadata>, verb: &'static str, e: io::Error) -> FileError {
    match meta.ok().and_then(|m| kind_of(m.file_type())) {
        Some(kind) => FileError::NotRegular { path: path.to_owned(), kind },
        None => FileError::io(verb, path, e),
    }
}

/// The opened handle itself, checked: a regular file, whatever the path named when it was looked at.
fn regular(file: File, path: &Path, verb: &'static str) -> Result<File> {
    let meta = file.metadata().map_err(|e| FileError::io(verb, path, e))?;
    match kind_of(meta.file_type()) {
        Some(kind) => Err(FileError::NotRegular { path: path.to_owned(), kind }),
        None => Ok(file),
    }
}

/// Reads at most `limit` bytes from `reader`, failing (instead of truncating) when there is more.
pub fn read_limited(reader: impl Read, limit: u64, path: &Path) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut buf).map_err(|e| FileError::io("read", path, e))?;
    if buf.len() as u64 > limit {
        return Err(FileError::TooLarge { path: path.to_owned(), limit });
    }
    Ok(buf)
}

/// The whole of a regular file, up to `limit` bytes.
pub fn read(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>> {
    read_limited(open(path, links)?, limit, path)
}

/// The whole of a regular UTF-8 text file, up to `limit` bytes.
pub fn read_to_string(path: &Path, limit: u64, links: Links) -> Result<String> {
    String::from_utf8(read(path, limit, links)?).map_err(|_| FileError::NotText { path: path.to_owned() })
}

/// Like [`read`], with an absent file as `None`.
pub fn read_optional(path: &Path, limit: u64, links: Links) -> Result<Option<Vec<u8>>> {
    match read(path, limit, links) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The end of a file, as [`read_tail`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    pub bytes: Vec<u8>,
    /// The file held more before these bytes, so the first line may be the end of a longer one.
    pub cut: bool,
}

/// The last `limit` bytes of a regular file (all of it when shorter): a log read from its end.
/// Opened through the same door as [`open`], so a FIFO or device is refused without blocking on
/// it; and never more than `limit` bytes are read, whatever the size said when it was looked at
/// (a log that grows meanwhile is still read within the bound).
pub fn read_tail(path: &Path, limit: u64, links: Links) -> Result<Tail> {
    let mut file = open(path, links)?;
    let len = file.metadata().map_err(|e| FileError::io("read", path, e))?.len();
    let start = len.saturating_sub(limit);
    file.seek(SeekFrom::Start(start)).map_err(|e| FileError::io("read", path, e))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).map_err(|e| FileError::io("read", path, e))?;
    Ok(Tail { bytes, cut: start > 0 })
}

/// The first `limit` bytes of a regular file (all of it when shorter): enough to tell what a
/// file is (a script's `#!` line) without reading a whole program.
pub fn read_head(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path, links)?.take(limit).read_to_end(&mut bytes).map_err(|e| FileError::io("read", path, e))?;
    Ok(bytes)
}

/// What may stand at a write's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Only an absent path.
    Never,
    /// An absent path or a regular file (replaced whole).
    Replace,
}

/// What stands at a target now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Absent,
    /// A regular file, which a write would replace.
    File,
}

/// Checks what a write to `path` would replace: an absent path or a regular file; anything
/// else (a link, a directory, a device, a FIFO) is refused. Front ends use it to ask before
/// replacing a file; [`AtomicFile::create`] checks again.
pub fn check_target(path: &Path) -> Result<Target> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => match kind_of(meta.file_type()) {
            None => Ok(Target::File),
            Some(kind) => Err(FileError::NotRegular { path: path.to_owned(), kind }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::Absent),
        Err(e) => Err(FileError::io("check", path, e)),
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file being written: bytes go to a hidden temporary file beside the target, renamed over
/// it by [`AtomicFile::commit`]. Dropped without committing, or failing anywhere, it removes
/// the temporary file.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    tmp: PathBuf,
    target: PathBuf,
    overwrite: Overwrite,
}

impl AtomicFile {
    pub fn create(path: &Path, overwrite: Overwrite) -> Result<Self> {
        let existing = check_target(path)?;
        if existing == Target::File && overwrite == Overwrite::Never {
            return Err(FileError::Exists { path: path.to_owned() });
        }
        let name =
            path.file_name().ok_or_else(|| FileError::NotRegular { path: path.to_owned(), kind: Kind::Directory })?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{}.{}-{n}.devcoach-tmp", name.to_string_lossy(), std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .read(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| FileError::io("create a file in", &dir, e))?;
        // A replaced file keeps its permissions (a private backup stays private).
        if existing == Target::File
            && let Ok(meta) = std::fs::metadata(path)
        {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(Self { file: Some(file), tmp, target: path.to_owned(), overwrite })
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.target
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file.as_mut().ok_or_else(|| io::Error::other("the file was already committed"))
    }

    /// Flushes the bytes to disk and moves the file into place. The target is checked once more
    /// first: something other than a regular file appearing there meanwhile is not replaced.
    pub fn commit(self) -> Result<()> {
        self.finish(true)
    }

    /// As [`AtomicFile::commit`], without waiting for the disk: for a copy that is checked
    /// whenever it is read, whose loss in a power cut costs nothing but itself.
    pub fn commit_unflushed(self) -> Result<()> {
        self.finish(false)
    }

    fn finish(mut self, flush: bool) -> Result<()> {
        let file = self
            .file
            .take()
            .ok_or_else(|| FileError::io("write", &self.target, io::Error::other("committed twice")))?;
        if flush {
            file.sync_all().map_err(|e| FileError::io("write", &self.target, e))?;
        }
        drop(file);
        let existing = check_target(&self.target)?;
        if self.overwrite == Overwrite::Never {
            if existing == Target::File {
                return Err(FileError::Exists { path: self.target.clone() });
            }
            // A link fails when anything has appeared at the target since the check: a file
            // made meanwhile is never replaced. (Where links are not supported, the rename
            // below stands in, checked as above.)
            match std::fs::hard_link(&self.tmp, &self.target) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&self.tmp);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(FileError::Exists { path: self.target.clone() });
                }
                Err(_) => {}
            }
        }
        std::fs::rename(&self.tmp, &self.target).map_err(|e| FileError::io("write", &self.target, e))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file()?.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file()?.seek(pos)
    }
}

impl Read for AtomicFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file()?.read(buf)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Committed files were renamed away; anything else is a leftover.
        if self.file.take().is_some() || self.tmp.exists() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` atomically (see [`AtomicFile`]).
pub fn write(path: &Path, bytes: &[u8], overwrite: Overwrite) -> Result<()> {
    let mut file = AtomicFile::create(path, overwrite)?;
    file.write_all(bytes).map_err(|e| FileError::io("write", path, e))?;
    file.commit()
}

/// As [`write`], without waiting for the disk (see [`AtomicFile::commit_unflushed`]): whole or
/// absent to every reader while the machine runs, but a power cut may leave it cut short.
pub fn write_unflushed(path: &Path, bytes: &[u8], overwrite: Overwrite) -> Result<()> {
    let mut file = AtomicFile::create(path, overwrite)?;
    file.write_all(bytes).map_err(|e| FileError::io("write", path, e))?;
    file.commit_unflushed()
}

/// Writes `bytes` as `root/<dirs…>/<name>` without ever passing through a link below `root`
/// (the root itself is the user's choice and may be one). Each folder is made when absent and
/// opened relative to the one above it without following links, and the file is written under
/// a hidden temporary name in that opened folder and renamed there: a folder swapped for a link
/// at any moment cannot redirect the write. On other platforms, the folders are checked, then
/// written through by path.
pub fn write_below(root: &Path, dirs: &[&str], name: &str, bytes: &[u8], overwrite: Overwrite) -> Result<()> {
    let mut path = root.to_owned();
    for part in dirs.iter().chain(std::iter::once(&name)) {
        let plain = !part.is_empty() && *part != "." && *part != ".." && !part.contains(['/', '\\', '\0']);
        if !plain {
            return Err(FileError::NotRegular { path: path.join(part), kind: Kind::Other });
        }
        path.push(part);
    }
    below::write(root, dirs, name, bytes, overwrite, &path)
}

#[cfg(unix)]
mod below {
    use std::fs::File;
    use std::io::Write;
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, CWD, Mode, OFlags, linkat, mkdirat, openat, renameat, unlinkat};
    use rustix::io::Errno;

    use super::{FileError, Kind, Overwrite, Result, TEMP_COUNTER};

    fn io(action: &'static str, path: &Path, e: Errno) -> FileError {
        FileError::io(action, path, std::io::Error::from(e))
    }

    pub(super) fn write(
        root: &Path,
        dirs: &[&str],
        name: &str,
        bytes: &[u8],
        overwrite: Overwrite,
        target: &Path,
    ) -> Result<()> {
        let folder = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let mut dir: OwnedFd = openat(CWD, root, folder, Mode::empty()).map_err(|e| io("open", root, e))?;
        let mut at = root.to_owned();
        for part in dirs {
            at.push(part);
            match mkdirat(&dir, *part, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(io("create", &at, e)),
            }
            dir = match openat(&dir, *part, folder | OFlags::NOFOLLOW, Mode::empty()) {
                Ok(fd) => fd,
                // Linux says ENOTDIR for a link opened as a folder without following it.
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    let kind = std::fs::symlink_metadata(&at)
                        .ok()
                        .and_then(|m| super::kind_of(m.file_type()))
                        .unwrap_or(Kind::Other);
                    return Err(FileError::NotRegular { path: at, kind });
                }
                Err(e) => return Err(io("open", &at, e)),
            };
        }
        let n = TEMP_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = format!(".{name}.{}-{n}.devcoach-tmp", std::process::id());
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = openat(&dir, tmp.as_str(), flags, Mode::from_raw_mode(0o644))
            .map_err(|e| io("create a file in", &at, e))?;
        let mut file = File::from(fd);
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        drop(file);
        let placed = match written {
            Err(e) => Err(FileError::io("write", target, e)),
            Ok(()) => match overwrite {
                // A link at the name is replaced as a name, never written through.
                Overwrite::Replace => renameat(&dir, tmp.as_str(), &dir, name).map_err(|e| io("write", target, e)),
                Overwrite::Never => match linkat(&dir, tmp.as_str(), &dir, name, AtFlags::empty()) {
                    Ok(()) => Ok(()),
                    Err(Errno::EXIST) => Err(FileError::Exists { path: target.to_owned() }),
                    Err(e) => Err(io("write", target, e)),
                },
            },
        };
        if placed.is_err() || overwrite == Overwrite::Never {
            let _ = unlinkat(&dir, tmp.as_str(), AtFlags::empty());
        }
        placed
    }
}

#[cfg(not(unix))]
mod below {
    use std::path::Path;

    use super::{FileError, Kind, Overwrite, Result};

    pub(super) fn write(
        root: &Path,
        dirs: &[&str],
        _name: &str,
        bytes: &[u8],
        overwrite: Overwrite,
        target: &Path,
    ) -> Result<()> {
        let mut at = root.to_owned();
        for part in dirs {
            at.push(part);
            let _ = std::fs::create_dir(&at);
            if !std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) {
                return Err(FileError::NotRegular { path: at, kind: Kind::Other });
            }
        }
        super::write(target, bytes, overwrite)
    }
}

/// Opens a regular file for appending, creating it when absent; a link, FIFO or device is
/// refused without blocking on it.
pub fn open_append(path: &Path) -> Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    #[cfg(not(unix))]
    check_target(path)?;
    let file = options.open(path).map_err(|e| refused(path, std::fs::symlink_metadata(path), "append to", e))?;
    regular(file, path, "append to")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    }

    #[test]
    fn a_tail_is_the_whole_file_when_it_fits_and_its_last_bytes_when_not() {
        let tmp = tempfile::tempdir().expect("tmp");
        let small = file_with(tmp.path(), "small.log", b"one\ntwo\n");
        assert_eq!(
            read_tail(&small, 100, Links::Refuse).expect("tail"),
            Tail { bytes: b"one\ntwo\n".to_vec(), cut: false }
        );
        assert_eq!(
            read_tail(&small, 8, Links::Refuse).expect("tail"),
            Tail { bytes: b"one\ntwo\n".to_vec(), cut: false }
        );
        assert_eq!(read_tail(&small, 4, Links::Refuse).expect("tail"), Tail { bytes: b"two\n".to_vec(), cut: true });
        assert_eq!(read_tail(&small, 0, Links::Refuse).expect("tail"), Tail { bytes: Vec::new(), cut: true });
        let big: Vec<u8> = (0..100_000u32).map(|i| u8::try_from(i % 251).unwrap_or(0)).collect();
        let big_path = file_with(tmp.path(), "big.log", &big);
        let tail = read_tail(&big_path, 1000, Links::Follow).expect("tail");
        assert!(tail.cut);
        assert_eq!(tail.bytes, big[big.len() - 1000..]);
        let empty = file_with(tmp.path(), "empty.log", b"");
        assert_eq!(read_tail(&empty, 10, Links::Refuse).expect("tail"), Tail { bytes: Vec::new(), cut: false });
        assert!(read_tail(&tmp.path().join("absent.log"), 10, Links::Refuse).is_err_and(|e| e.is_not_found()));
    }

    #[test]
    fn a_head_is_the_first_bytes() {
        let tmp = tempfile::tempdir().expect("tmp");
        let script = file_with(tmp.path(), "tool", b"#!/usr/bin/env node\nconsole.log('hi')\n");
        assert_eq!(read_head(&script, 19, Links::Follow).expect("head"), b"#!/usr/bin/env node");
        assert_eq!(read_head(&script, 1000, Links::Follow).expect("head"), b"#!/usr/bin/env node\nconsole.log('hi')\n");
        assert!(read_head(tmp.path(), 10, Links::Follow).is_err(), "a directory");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let tmp = tempfile::tempdir().expect("tmp");
        let fifo = tmp.path().join("mcp-server-devcoach.log");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
        // On another thread, so that a read that blocked fails this test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let tail = read_tail(&path, 1024, Links::Follow).map(|_| ());
            let head = read_head(&path, 1024, Links::Refuse).map(|_| ());
            let _ = tx.send((tail, head));
        });
        let (tail, head) = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the reads returned");
        for result in [tail, head] {
            assert!(matches!(result, Err(FileError::NotRegular { kind: Kind::Fifo, .. })), "{result:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_when_asked() {
        let tmp = tempfile::tempdir().expect("tmp");
        let real = file_with(tmp.path(), "real.log", b"0123456789");
        let link = tmp.path().join("link.log");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        assert_eq!(read_tail(&link, 3, Links::Follow).expect("tail").bytes, b"789");
        assert_eq!(read_head(&link, 3, Links::Follow).expect("head"), b"012");
        assert!(matches!(read_tail(&link, 3, Links::Refuse), Err(FileError::NotRegular { kind: Kind::Symlink, .. })));
        assert!(matches!(read_head(&link, 3, Links::Refuse), Err(FileError::NotRegular { kind: Kind::Symlink, .. })));
    }
}
