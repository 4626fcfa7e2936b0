//! The command an agent runs to start devcoach: the absolute path of this binary, preferring
//! the path the shell finds (a package manager's stable link rather than a versioned target).

use std::path::{Path, PathBuf};

/// How an agent will start devcoach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub program: PathBuf,
    /// Something the user should know about this location.
    pub caution: Option<String>,
}

impl Launch {
    /// This binary, as the agents should run it.
    pub fn current() -> Result<Self, crate::AgentsError> {
        let exe = std::env::current_exe().map_err(crate::AgentsError::NoExe)?;
        let path_var = std::env::var_os("PATH").unwrap_or_default();
        Ok(Self::choose(&exe, &path_var))
    }

    pub fn choose(exe: &Path, path_var: &std::ffi::OsStr) -> Self {
        let real = |p: &Path| std::fs::canonicalize(p).ok();
        let program = match find_on_path("devcoach", path_var) {
            Some(hit) if real(&hit).is_some() && real(&hit) == real(exe) => hit,
            _ => exe.to_owned(),
        };
        let caution = ephemeral(&program).map(|why| {
            format!(
                "{} is {why}; agents will stop finding devcoach when it goes. Install it for good \
                 (e.g. `cargo install devcoach` or a release archive) and run `devcoach install` from there.",
                program.display()
            )
        });
        Self { program, caution }
    }

    /// The program as one shell word (hook commands are run by a shell).
    pub fn shell_word(&self) -> String {
        shell_quote(&self.program.to_string_lossy())
    }

    /// The hook command for a subcommand.
    pub fn hook_command(&self, subcommand: &str) -> String {
        format!("{} {subcommand}", self.shell_word())
    }
}

/// Why a location will not last, if it will not.
fn ephemeral(path: &Path) -> Option<&'static str> {
    let text = path.to_string_lossy();
    if text.contains("/_npx/") || text.contains("\\_npx\\") {
        return Some("in npx's temporary cache");
    }
    if text.contains("/fnm_multishells/") {
        return Some("in a per-shell fnm directory");
    }
    let tmp = std::env::temp_dir();
    if path.starts_with(&tmp) || std::fs::canonicalize(&tmp).is_ok_and(|t| path.starts_with(t)) {
        return Some("in a temporary directory");
    }
    None
}

/// The first executable named `name` on `PATH`, as found (not resolved through links).
pub fn find_on_path(name: &str, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    let exts: Vec<String> = if cfg!(windows) {
        std::env::var("PATHEXT")
            .unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into())
            .split(';')
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(path_var).filter(|dir| dir.is_absolute()).find_map(|dir| {
        exts.iter().map(|ext| dir.join(format!("{name}{ext}"))).find(|candidate| is_executable(candidate))
    })
}

pub fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// One quoting rule for every command devcoach prints or writes (the MCP server's undo too).
pub use devcoach_core::shell::quote as shell_quote;

/// The program a hook command runs: its first shell word, unquoted.
pub fn program_of(command: &str) -> Option<String> {
    let command = command.trim_start();
    let mut chars = command.chars();
    match chars.next()? {
        quote @ ('"' | '\'') => {
            let mut out = String::new();
            let mut escaped = false;
            for c in chars {
                match c {
                    '\\' if quote == '"' && !escaped => escaped = true,
                    c if c == quote && !escaped => return Some(out),
                    c => {
                        out.push(c);
                        escaped = false;
                    }
                }
            }
            None
        }
        _ => command.split_whitespace().next().map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_through_program_of() {
        for path in [
            "/usr/local/bin/devcoach",
            "/Users/a b/bin/devcoach",
            "/tmp/we\"ird/$x/devcoach",
            "C:\\Program Files\\devcoach.exe",
        ] {
            let command = format!("{} stop-hook", shell_quote(path));
            assert_eq!(program_of(&command).as_deref(), Some(path), "{command}");
        }
        assert_eq!(shell_quote("/usr/bin/devcoach"), "/usr/bin/devcoach");
        assert_eq!(shell_quote("/a b/devcoach"), "\"/a b/devcoach\"");
        assert_eq!(program_of("npx -y devcoach stop-hook").as_deref(), Some("npx"));
        assert_eq!(program_of("'/x y/devcoach' stop-hook").as_deref(), Some("/x y/devcoach"));
    }

    #[cfg(unix)]
    #[test]
    fn prefers_the_path_hit_that_is_this_binary() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let tmp = tempfile::tempdir().expect("tmp");
        let cellar = tmp.path().join("Cellar/devcoach/1.0/bin");
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&cellar).expect("dir");
        std::fs::create_dir_all(&bin).expect("dir");
        let exe = cellar.join("devcoach");
        std::fs::write(&exe, "").expect("exe");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        symlink(&exe, bin.join("devcoach")).expect("link");
        let path_var = std::env::join_paths([Path::new("relative"), &bin]).expect("PATH");
        assert_eq!(Launch::choose(&exe, &path_var).program, bin.join("devcoach"));
        // Another devcoach on PATH (say, the TypeScript one) is not this binary.
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&other).expect("dir");
        std::fs::write(other.join("devcoach"), "#!/bin/sh").expect("other");
        std::fs::set_permissions(other.join("devcoach"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let path_var = std::env::join_paths([&other]).expect("PATH");
        assert_eq!(Launch::choose(&exe, &path_var).program, exe);
        assert!(Launch::choose(&exe, &path_var).caution.is_some(), "a temp dir is not a lasting place");
    }
}
