//! `share` and `import`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use devcoach_core::limits;
use devcoach_core::query::LessonQuery;
use devcoach_core::settings::{SettingKey, SettingUpdate};
use devcoach_core::share::payload::{SharedBy, SharedLesson};
use devcoach_core::share::{file, text};
use devcoach_core::time::lesson_stamp;
use devcoach_net::FetchPolicy;
use devcoach_probe as probe;

use crate::cli::ShareArgs;
use crate::context::Ctx;
use crate::failure::{UserError, invalid, usage};
use crate::output::{self, Style};

pub fn share(ctx: &Ctx, a: &ShareArgs) -> anyhow::Result<()> {
    if a.by.is_some() && a.anonymous {
        return Err(usage("--by and --anonymous contradict each other: choose one"));
    }
    let mut store = ctx.open_existing()?.ok_or_else(|| invalid("there are no lessons to share yet"))?;
    let lesson = if a.last {
        let q = LessonQuery { imported: Some(false), limit: Some(1), ..LessonQuery::default() };
        store
            .lessons(&q, ctx.now)?
            .into_iter()
            .next()
            .ok_or_else(|| invalid("you have no lessons of your own to share yet"))?
    } else {
        let id = a.id.as_deref().ok_or_else(|| UserError::Usage("name a lesson id, or use --last".into()))?;
        let id = super::lessons::resolve_id(&store, id)?;
        store
            .lesson(&id)?
            .ok_or_else(|| invalid(format!("no lesson with id '{id}' — run `devcoach lessons` to see the ids")))?
    };
    let settings = store.settings()?;
    let by = if a.anonymous { SharedBy::Anonymous } else { a.by.clone().map_or(SharedBy::Default, SharedBy::Named) };
    if let Some(name) = a.by.as_deref().map(str::trim).filter(|n| !n.is_empty())
        && settings.share_name.is_none()
    {
        let update = SettingUpdate::new(SettingKey::ShareName, name)
            .map_err(|_| usage(format!("--by takes a name of at most {} characters", limits::SHARE_NAME_CHARS)))?;
        store.apply_setting(&update)?;
        output::note(&ctx.term.err(
            Style::Dim,
            &format!("Saved \"{}\" as your sender name (change it with `devcoach set share_name`).", update.stored),
        ));
    }
    let git_user = if by == SharedBy::Default && settings.share_name.is_none() {
        std::env::current_dir().ok().and_then(|d| probe::git_user_name(&d))
    } else {
        None
    };
    let shared_by = by.resolve(settings.share_name.as_deref(), git_user.as_deref());
    if shared_by.is_none() && !a.anonymous {
        output::note(&ctx.term.err(Style::Dim, "Sharing without a name (use --by NAME to sign it)."));
    }
    let payload = SharedLesson::from_lesson(
        &lesson,
        a.with_context,
        shared_by,
        lesson_stamp(ctx.now),
        devcoach_core::APP_VERSION,
    );
    let (share_text, code) = text::share_text(&payload);
    if let Some(path) = &a.file {
        let path = path.clone().unwrap_or_else(|| PathBuf::from(file::file_name(&payload)));
        // A regular file (an earlier share of it is replaced); never a link, pipe or device.
        devcoach_files::write(&path, file::render_file(&payload).as_bytes(), devcoach_files::Overwrite::Replace)?;
        return Ok(output::print(&format!("Saved: {}", path.display()))?);
    }
    if code.len() > text::LONG_CODE_CHARS {
        output::note(&ctx.term.err(Style::Yellow, "This lesson's code is long; `--file` shares it as a file instead."));
    }
    if a.link {
        output::print_verbatim(&text::link_at(&store.share_link_base()?, &code))?;
        output::note(&ctx.term.err(Style::Dim, "The lesson travels inside the link itself; no server ever sees it."));
    } else {
        // The card is copied whole: laid out as it will be pasted.
        output::print_verbatim(&share_text)?;
    }
    Ok(())
}

/// Runs a clipboard reader for at most 3 seconds.
fn run_clipboard(program: &str, args: &[&str]) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    let limits = probe::child::Limits { output_cap: limits::IMPORT_BYTES, ..probe::child::Limits::default() };
    let done = probe::child::run(cmd, limits).ok().filter(|d| d.status.success())?;
    (!done.stdout.trim().is_empty()).then_some(done.stdout)
}

fn clipboard() -> Option<String> {
    if cfg!(target_os = "macos") {
        return run_clipboard("pbpaste", &[]);
    }
    if cfg!(windows) {
        return run_clipboard("powershell", &["-NoProfile", "-Command", "Get-Clipboard"]);
    }
    run_clipboard("wl-paste", &["--no-newline"])
        .or_else(|| run_clipboard("xclip", &["-selection", "clipboard", "-o"]))
        .or_else(|| run_clipboard("xsel", &["--clipboard", "--output"]))
}

fn read_capped(reader: impl Read, what: &str) -> anyhow::Result<String> {
    let mut buf = Vec::new();
    reader.take(limits::IMPORT_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limits::IMPORT_BYTES {
        return Err(invalid(format!("{what} is larger than 16 MiB; that is not a lesson")));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Whether standard input is text piped or redirected in (`… | devcoach import`), rather than
/// a terminal or nothing (`/dev/null`, a closed input): only then is it read unasked.
fn stdin_is_piped() -> bool {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata("/dev/stdin").is_ok_and(|m| m.file_type().is_fifo() || m.is_file())
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// What to import, from wherever the argument says: with none, piped input, else the clipboard.
fn source_text(source: Option<&str>) -> anyhow::Result<String> {
    match source {
        None if stdin_is_piped() => {
            // A pipe another program holds open without writing (an agent's shell) must not hang
            // the command: what has not come within two seconds is not an import.
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(read_capped(std::io::stdin().lock(), "the input").map_err(|e| e.to_string()));
            });
            match rx.recv_timeout(std::time::Duration::from_secs(2)) {
                Ok(Ok(text)) if !text.trim().is_empty() => return Ok(text),
                Ok(Err(e)) => return Err(invalid(e)),
                _ => {}
            }
            clipboard().ok_or_else(|| {
                invalid("nothing came on standard input and the clipboard is empty — pass a code, link, URL or file")
            })
        }
        None => clipboard().ok_or_else(|| {
            invalid(
                "the clipboard is empty or cannot be read here — pass a code, link, URL, file, or `-` to read stdin",
            )
        }),
        Some("-") => {
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                output::note("Paste the lesson (a code, a link or the whole card), then press Ctrl-D.");
            }
            read_capped(std::io::stdin().lock(), "the input")
        }
        // Anything at that path is read as a file: a pipe or folder there is an error, not text.
        Some(s) if std::fs::symlink_metadata(s).is_ok() => {
            let bytes = devcoach_files::read(Path::new(s), limits::IMPORT_BYTES, devcoach_files::Links::Follow)?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        // A mistyped path would otherwise be read as pasted text ("not a devcoach lesson").
        Some(s) if names_a_file(s) => {
            Err(invalid(format!("there is no file at {s} — check the path, or pass the lesson's code or link itself")))
        }
        Some(s) => Ok(s.to_owned()),
    }
}

/// Whether an argument reads as a file's path rather than a pasted code, link or export: one
/// word, no URL scheme, and a path's start or a lesson file's ending.
fn names_a_file(arg: &str) -> bool {
    let t = arg.trim();
    let one_word = !t.is_empty() && !t.contains(char::is_whitespace);
    let pasted = t.contains("://") || t.starts_with("devcoach:") || t.starts_with(['{', '[']);
    let path_like = t.starts_with(['/', '.', '~', '\\'])
        || [".md", ".json", ".txt"].iter().any(|end| t.to_ascii_lowercase().ends_with(end));
    one_word && !pasted && path_like
}

pub fn import(ctx: &Ctx, source: Option<&str>) -> anyhow::Result<()> {
    let text = source_text(source)?;
    let input = devcoach_net::import::resolve(&text, &FetchPolicy::default()).map_err(|e| invalid(e.to_string()))?;
    let outcome = ctx.open()?.import_input(input, ctx.now)?;
    let t = &ctx.term;
    if !outcome.shared {
        let c = outcome.counts;
        return Ok(output::print(&format!(
            "Imported {}; {} already there, {} invalid.",
            output::plural(c.inserted, "lesson"),
            c.duplicated,
            c.invalid
        ))?);
    }
    match &outcome.lesson {
        Some(l) if outcome.own => Ok(output::print(&format!(
            "{} \"{}\" is your own lesson ({}); nothing was imported.",
            t.out(Style::Green, "✓"),
            l.title,
            t.out(Style::Cyan, &l.id)
        ))?),
        Some(l) => {
            let from = l.shared_by.as_deref().map_or_else(|| "someone anonymous".to_owned(), str::to_owned);
            let verb = if outcome.counts.duplicated > 0 { "Already imported" } else { "Imported" };
            output::print(&format!(
                "{} {verb} \"{}\" from {from} as {}",
                t.out(Style::Green, "✓"),
                l.title,
                t.out(Style::Cyan, &l.id)
            ))?;
            if outcome.topic_tracked == Some(false) {
                output::note(&t.err(
                    Style::Dim,
                    &format!(
                        "'{}' is not on your knowledge map; add it with `devcoach knowledge-add {}`.",
                        l.topic_id, l.topic_id
                    ),
                ));
            }
            Ok(())
        }
        None => Err(invalid("every id this lesson could take is used by other lessons; nothing was imported")),
    }
}
