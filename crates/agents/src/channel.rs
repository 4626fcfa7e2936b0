//! Where this binary came from, shown by `--version`: it tells a user (and a bug report) which
//! channel to upgrade through.

use std::path::Path;

/// The install channel a binary at `exe` belongs to, from where it sits.
pub fn of(exe: &Path) -> &'static str {
    let path = exe.to_string_lossy().replace('\\', "/");
    if path.contains("/node_modules/") {
        "npm"
    } else if path.contains("/.cargo/bin/") {
        "cargo install"
    } else if path.contains("/Cellar/") || path.contains("/homebrew/") || path.contains("/linuxbrew/") {
        "Homebrew"
    } else if ["/target/debug/", "/target/release/", "/target/dist/"].iter().any(|t| path.contains(t)) {
        "source build"
    } else {
        "release archive"
    }
}

/// `devcoach <version> (<channel>)`, without the program name clap adds.
pub fn version_line() -> String {
    let channel = std::env::current_exe().map_or("unknown channel", |exe| of(&exe));
    format!("{} ({channel})", devcoach_core::APP_VERSION)
}

/// The version in what `devcoach --version` printed: `devcoach 0.1.0 (npm)` (ours),
/// `devcoach 0.1.0` or a bare `0.9.5` (older builds and the TypeScript devcoach).
pub fn version_in(printed: &str) -> Option<&str> {
    let rest = printed.trim();
    let rest = rest.strip_prefix("devcoach ").unwrap_or(rest);
    rest.split_whitespace().next().filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

/// How to bring the devcoach installed through `channel` up to date.
pub fn upgrade_hint(channel: &str) -> &'static str {
    match channel {
        "npm" => "`npm install -g @devcoach-rs/devcoach@latest` (or the same with your project's npm)",
        "cargo install" => "`cargo install devcoach`",
        "Homebrew" => "`brew upgrade devcoach`",
        "source build" => "`git pull`, then build again",
        _ => "run install.sh again (https://github.com/devcoach-rs/devcoach#install)",
    }
}

/// [`upgrade_hint`] for this running binary.
pub fn upgrade_hint_here() -> &'static str {
    upgrade_hint(std::env::current_exe().map_or("", |exe| of(&exe)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_by_location() {
        for (path, channel) in [
            ("/home/a/proj/node_modules/@devcoach-rs/devcoach-linux-x64/bin/devcoach", "npm"),
            ("C:\\Users\\a\\AppData\\npm\\node_modules\\@devcoach-rs\\devcoach-win32-x64\\bin\\devcoach.exe", "npm"),
            ("/home/a/.cargo/bin/devcoach", "cargo install"),
            ("/opt/homebrew/Cellar/devcoach/0.1.0/bin/devcoach", "Homebrew"),
            ("/home/linuxbrew/.linuxbrew/bin/devcoach", "Homebrew"),
            ("/work/devcoach/target/dist/devcoach", "source build"),
            ("/home/a/.local/bin/devcoach", "release archive"),
        ] {
            assert_eq!(of(Path::new(path)), channel, "{path}");
        }
    }

    #[test]
    fn versions_from_version_lines() {
        assert_eq!(version_in("devcoach 0.1.0 (npm)\n"), Some("0.1.0"));
        assert_eq!(version_in("devcoach 0.2.0"), Some("0.2.0"));
        assert_eq!(version_in("0.9.5\n"), Some("0.9.5"));
        assert_eq!(version_in("error: unknown flag"), None);
        assert_eq!(version_in(""), None);
    }
}
