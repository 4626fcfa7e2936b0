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
}
