//! `share_lesson` and `import_lesson`.

use devcoach_core::Lesson;
use devcoach_core::error_kind::{ErrorKind, Kinded};
use devcoach_core::share::payload::{SharedBy, SharedLesson};
use devcoach_core::share::{file, text};
use devcoach_core::time::lesson_stamp;
use devcoach_net::FetchPolicy;
use devcoach_probe as probe;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Hints, Out, READ, Registry};
use crate::ctx::{Ctx, ToolError};

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Transport {
    #[default]
    Text,
    Link,
    File,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ShareArgs {
    pub lesson_id: String,
    /// text: the card plus a code to paste (default) · link: a web link · file: a `.devcoach.md` file.
    #[serde(default)]
    pub transport: Transport,
    /// Also share the task, project, branch and commit (and the repository when it is on GitHub,
    /// GitLab or Bitbucket). Never local paths.
    #[serde(default)]
    pub include_context: bool,
    /// The sender's name. Leave out to use the saved name or git's user.name; "" shares anonymously.
    #[serde(default)]
    pub shared_by: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShareOut {
    #[schemars(extend("enum" = ["text", "link", "file"]))]
    pub transport: String,
    /// The lesson code (`devcoach:lesson:1:…`).
    pub code: String,
    pub text: Option<String>,
    pub link: Option<String>,
    pub markdown: Option<String>,
    pub filename: Option<String>,
    pub shared_by: Option<String>,
    pub include_context: bool,
    /// How to hand this to the user: follow it exactly.
    pub reply_check: String,
}

const TEXT_CHECK: &str = "Reply with `text` exactly as given, as the final message. Put its last line (the \
devcoach:lesson:1:… code) inside a fenced code block, and never change, shorten or rewrap the code.";
const LINK_CHECK: &str =
    "Reply with `link` alone on its own line (one short line before it at most). Do not change it.";
const FILE_CHECK: &str = "Write `markdown` to `filename` with your file tool (in the workspace unless the user named a \
path), then confirm the path in one line. Do not print the markdown.";

fn share(ctx: &Ctx, a: ShareArgs) -> Result<Out<ShareOut>, ToolError> {
    let (lesson, setting, link_base) =
        ctx.with_store(|s| Ok((s.lesson(&a.lesson_id)?, s.settings()?.share_name, s.share_link_base()?)))?;
    let lesson = lesson.ok_or_else(|| {
        ToolError::said(
            ErrorKind::NotFound,
            format!("share_lesson: lesson '{}' not found — call get_lessons to pick one", a.lesson_id),
        )
    })?;
    let by = match a.shared_by {
        None => SharedBy::Default,
        Some(name) => SharedBy::Named(name),
    };
    let git_user =
        if by == SharedBy::Default && setting.is_none() { probe::git_user_name(&ctx.opts.cwd) } else { None };
    let shared_by = by.resolve(setting.as_deref(), git_user.as_deref());
    let payload = SharedLesson::from_lesson(
        &lesson,
        a.include_context,
        shared_by.clone(),
        lesson_stamp(ctx.now()),
        &ctx.opts.version,
    );
    let (card_text, code) = text::share_text(&payload);
    let mut out = ShareOut {
        transport: String::new(),
        code: code.clone(),
        text: None,
        link: None,
        markdown: None,
        filename: None,
        shared_by,
        include_context: a.include_context,
        reply_check: String::new(),
    };
    match a.transport {
        Transport::Text => {
            out.transport = "text".into();
            out.text = Some(card_text);
            out.reply_check = TEXT_CHECK.into();
        }
        Transport::Link => {
            out.transport = "link".into();
            out.link = Some(text::link_at(&link_base, &code));
            out.reply_check = LINK_CHECK.into();
        }
        Transport::File => {
            out.transport = "file".into();
            out.markdown = Some(file::render_file(&payload));
            out.filename = Some(file::file_name(&payload));
            out.reply_check = FILE_CHECK.into();
        }
    }
    Ok(out.into())
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ImportArgs {
    /// Exactly what the user pasted: a code, a whole shared card, a share link, a URL, a
    /// `.devcoach.md` file's text, or lessons JSON.
    #[schemars(length(min = 1))]
    pub payload: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ImportOut {
    /// `shared` for one shared lesson, `lessons` for a lessons export.
    #[schemars(extend("enum" = ["shared", "lessons"]))]
    pub kind: String,
    pub inserted: usize,
    pub duplicated: usize,
    pub invalid: usize,
    pub lesson: Option<Lesson>,
    /// Whether the lesson's topic is on the learner's map (null for an export).
    pub topic_tracked: Option<bool>,
    /// The share is of the learner's own lesson: nothing was imported.
    pub own_lesson: bool,
    pub reply_check: String,
}

const IMPORT_CHECK: &str = "Confirm in one line: the title, who shared it, and that it joined the learner's lessons \
(feedback works on it; it does not count against the daily limit). If topic_tracked is false, offer to add the topic \
with add_topic, and add it only if the learner agrees. If own_lesson is true, say instead that this is their own lesson, \
already in their lessons, and that nothing was imported.";
const EXPORT_CHECK: &str =
    "Confirm in one line how many lessons were added, and how many were already there or invalid.";

fn import(ctx: &Ctx, a: ImportArgs) -> Result<Out<ImportOut>, ToolError> {
    let input = devcoach_net::import::resolve(&a.payload, &FetchPolicy::default())
        .map_err(|e| ToolError::said(e.kind(), format!("import_lesson: {e}")))?;
    let now = ctx.now();
    let outcome = ctx.with_store(|s| Ok(s.import_input(input, now)?))?;
    Ok(ImportOut {
        kind: if outcome.shared { "shared" } else { "lessons" }.into(),
        inserted: outcome.counts.inserted,
        duplicated: outcome.counts.duplicated,
        invalid: outcome.counts.invalid,
        lesson: outcome.lesson.clone(),
        topic_tracked: outcome.topic_tracked,
        own_lesson: outcome.own,
        reply_check: if outcome.shared { IMPORT_CHECK } else { EXPORT_CHECK }.into(),
    }
    .into())
}

pub(super) fn register(r: &mut Registry) {
    r.structured(
        ("share_lesson", "Share Lesson", READ),
        "Prepare a lesson for someone else, only when the learner asks: as text with a code (default), a link, or a \
         .devcoach.md file. Only the lesson itself leaves unless include_context is true; local paths never do.",
        share,
    );
    r.structured(
        ("import_lesson", "Import Lesson", Hints { read_only: false, destructive: false, idempotent: true, open_world: true }),
        "Store a lesson someone shared: pass whatever the learner pasted, verbatim (code, card, link, URL, .devcoach.md \
         text, or a lessons JSON export). Importing the same share twice is harmless.",
        import,
    );
}
