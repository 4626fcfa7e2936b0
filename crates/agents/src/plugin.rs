//! The plugin devcoach writes for OpenCode and Kilo Code, which take JS plugins rather than hook
//! commands (`assets/packaging/opencode/devcoach.js`, with this binary and the agent filled in).

use std::path::Path;

use devcoach_core::limits;

use crate::launch::Launch;
use crate::table::Agent;

/// The first line every copy starts with: how uninstall and doctor know the file is ours.
const MARK: &str = "// devcoach for OpenCode and Kilo Code";

/// The plugin for `agent`, running `launch`'s program.
pub fn text(agent: Agent, launch: &Launch) -> String {
    let program = launch.program.to_string_lossy();
    // A JSON string is a JavaScript string: any path is quoted safely.
    let quoted = serde_json::to_string(&program).unwrap_or_else(|_| "\"devcoach\"".to_owned());
    // The plugin runs `<agent>-stop-hook`: the hook names' own prefix for the agent.
    devcoach_assets::OPENCODE_PLUGIN.replace("\"@DEVCOACH@\"", &quoted).replace("@AGENT@", agent.spec().slug)
}

/// Whether `path` is a plugin file devcoach wrote.
pub fn is_ours(path: &Path) -> bool {
    devcoach_files::read(path, limits::INSTALL_FILE_BYTES, devcoach_files::Links::Refuse)
        .is_ok_and(|bytes| bytes.starts_with(MARK.as_bytes()))
}

/// The program a plugin of ours runs (for doctor).
pub fn program_in(path: &Path) -> Option<String> {
    let bytes = devcoach_files::read(path, limits::INSTALL_FILE_BYTES, devcoach_files::Links::Refuse).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = text.lines().find(|l| l.starts_with("const DEVCOACH = "))?;
    serde_json::from_str(line.trim_start_matches("const DEVCOACH = ").trim_end_matches(';')).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_names_this_binary_and_its_agent() {
        let launch = Launch { program: "/opt/my \"tools\"/devcoach".into(), caution: None };
        let text = text(Agent::Kilo, &launch);
        assert!(text.starts_with(MARK));
        assert!(text.contains(r#"const DEVCOACH = "/opt/my \"tools\"/devcoach";"#), "{text}");
        assert!(text.contains(r#"const AGENT = "kilo";"#));
        assert!(!text.contains('@'.to_string().as_str()) || !text.contains("@DEVCOACH@"));
        let dir = tempfile::tempdir().expect("tmp");
        let file = dir.path().join("devcoach.js");
        std::fs::write(&file, &text).expect("write");
        assert!(is_ours(&file));
        assert_eq!(program_in(&file).as_deref(), Some("/opt/my \"tools\"/devcoach"));
        std::fs::write(&file, "export const Theirs = async () => ({});\n").expect("write");
        assert!(!is_ours(&file));
    }
}
