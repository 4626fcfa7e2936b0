//! The command line as typed: clap structs holding raw arguments. `commands` turns them into
//! validated values before doing anything.

use clap::{ArgAction, Args, Parser, Subcommand};
use devcoach_agents::Agent;

#[derive(Debug, Parser)]
#[command(
    name = "devcoach",
    version,
    disable_version_flag = true,
    about = "A local, private coach that turns your agent's finished tasks into short lessons.",
    after_help = "Run `devcoach` with no command for a short tour. Data lives in ~/.devcoach (or $DEVCOACH_DIR)."
)]
pub struct Cli {
    /// Print the version.
    #[arg(short = 'v', short_alias = 'V', long = "version", action = ArgAction::Version)]
    version: Option<bool>,

    /// Print tables as wide as their cells instead of fitting them to the width (`COLUMNS`, else
    /// the terminal's, else 80 columns).
    #[arg(long, global = true)]
    pub wide: bool,

    /// Show times in UTC instead of the local time zone.
    #[arg(long, global = true)]
    pub utc: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

// Parsed once per run; boxing the big variant would only add noise.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
// Each command's own arguments and subcommands are added only when it is the one typed: building
// all of them took 0.6 M instructions (a seventh of `stats`' work) and about fifty page faults
// (docs/PERFORMANCE.md, item 7).
// Two consequences: an argument struct's own doc comment would now override its command's, so
// those structs carry none (`//`); and `reference::full_command` rebuilds `help`'s tree for the
// shell completions.
#[command(defer = true)]
pub enum Command {
    /// Run the MCP server on stdin/stdout (what agents start).
    Mcp,
    /// Show the knowledge map: every topic and its confidence.
    Profile(JsonFlag),
    /// List lessons, newest first, with filters.
    Lessons(LessonsArgs),
    /// Show one lesson in full.
    Lesson {
        /// The lesson's id (see `devcoach lessons`).
        id: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Star a lesson.
    Star { id: String },
    /// Remove a lesson's star.
    Unstar { id: String },
    /// Delete a lesson (a backup is taken first, so it can be restored).
    Delete {
        id: String,
        /// Do not ask first.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Record feedback on a lesson: know, understood, dont_know, or clear.
    Feedback {
        id: String,
        /// know = already knew it · understood = new and now clear · dont_know = couldn't follow · clear
        #[arg(value_parser = ["know", "understood", "dont_know", "clear"])]
        value: String,
    },
    /// Show the settings.
    Settings(JsonFlag),
    /// Change a setting: max_per_day, min_gap_minutes, nudge_every, nudge_scope, share_name, ui_theme, ui_home,
    /// share_link_base or work_insights (on/off: read agent transcripts for how you work; off by default).
    Set {
        /// The setting's name.
        key: String,
        /// Its new value (use "" to clear share_name).
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
    /// Show lesson counts, pacing, and the weakest and strongest topics.
    Stats(JsonFlag),
    /// Add a topic to the knowledge map, or change its confidence.
    #[command(name = "knowledge-add")]
    KnowledgeAdd {
        topic: String,
        /// 0 (new to me) … 10 (could teach it); the same as --confidence.
        #[arg(value_name = "CONFIDENCE", allow_negative_numbers = true, conflicts_with = "confidence")]
        level: Option<i64>,
        /// 0 (new to me) … 10 (could teach it); 5 when left out.
        #[arg(long, allow_negative_numbers = true)]
        confidence: Option<i64>,
        /// Put the topic in this group (created when missing).
        #[arg(long)]
        group: Option<String>,
    },
    /// Remove a topic from the knowledge map.
    #[command(name = "knowledge-remove")]
    KnowledgeRemove { topic: String },
    /// Create a group of topics.
    #[command(name = "group-add")]
    GroupAdd { name: String },
    /// Delete a group (its topics become ungrouped).
    #[command(name = "group-remove")]
    GroupRemove { name: String },
    /// Move a topic into a group; `Other` removes it from its group.
    #[command(name = "group-assign")]
    GroupAssign { topic: String, group: String },
    /// Share a lesson: as text with a code (default), a link, or a .devcoach.md file.
    Share(ShareArgs),
    /// Import a shared lesson: a code, link, URL, file or `-` for stdin (default: piped input,
    /// else the clipboard).
    Import {
        /// What to import; leave out to read piped input, or the clipboard.
        source: Option<String>,
    },
    /// Write your learning record for other tools: the FSRS optimizer's review log, xAPI
    /// statements for a learning-record store, or your review cards for Anki.
    Export {
        /// fsrs-log: the review log as CSV, in the columns the FSRS optimizer reads; xapi: a JSON
        /// array of xAPI statements (lessons, answers, checked answers, reviews); anki: every
        /// review card, tab-separated, for Anki's File > Import.
        #[arg(long)]
        format: ExportFormat,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<std::path::PathBuf>,
        /// Replace the file if it exists (without asking).
        #[arg(long)]
        force: bool,
    },
    /// Sync your record across machines through a folder another tool syncs (Syncthing,
    /// Dropbox, iCloud Drive, a network share) or a git repository of yours, end-to-end
    /// encrypted if you like. With no subcommand: sync now.
    Sync(SyncArgs),
    /// Write a backup ZIP of lessons, knowledge, settings, notebook and courses.
    Backup {
        /// Where to write it.
        #[arg(default_value = "devcoach-backup.zip")]
        file: std::path::PathBuf,
        /// Replace the file if it exists (without asking).
        #[arg(long)]
        force: bool,
    },
    /// Merge a backup into your data (existing lessons and courses are kept).
    Restore {
        file: std::path::PathBuf,
        /// Take only this lesson (with its review card and history) from the backup: the undo
        /// that `delete` prints.
        #[arg(long, value_name = "ID")]
        lesson: Option<String>,
        /// Take only the knowledge map and pacing from the backup, put back as they were: the
        /// undo that `setup` prints after replacing a profile.
        #[arg(long, conflicts_with = "lesson")]
        profile: bool,
    },
    /// List courses and their progress.
    Courses(JsonFlag),
    /// Show one course: its steps, prerequisites and document.
    Course {
        id: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Fill a sandbox data directory with a realistic demo learner and show around.
    Demo(DemoArgs),
    /// Wire devcoach into your agents: MCP server, hooks and skill (default: Claude Code and Claude Desktop).
    Install(InstallArgs),
    /// Remove what `install` added (default: Claude Code and Claude Desktop).
    Uninstall(UninstallArgs),
    /// Check the wiring, the database and the pacing, and say why the next stop would or would not cue.
    Doctor(JsonFlag),
    /// Build your knowledge profile in the terminal, without an agent.
    Setup,
    /// Open the local dashboard (lessons, knowledge map, courses, progress, settings) on 127.0.0.1.
    Ui(UiArgs),
    /// Review what you learned, one card at a time, just before you would forget it.
    Review(ReviewArgs),
    /// Practise algorithm problems with a coach that wants requirements before code and never gives the answer away.
    Practice(PracticeArgs),
    /// Rebuild a function your agent just wrote, in a worktree of your own project, judged by its tests.
    Handson(HandsonArgs),
    /// Print a shell completion script: `devcoach completions bash > ~/.local/share/bash-completion/completions/devcoach`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), for `man -l -` or a release archive.
    #[command(hide = true)]
    Man,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SyncArgs {
    #[command(subcommand)]
    pub command: Option<SyncCommand>,
    /// Print what the sync did as JSON.
    #[arg(long)]
    pub json: bool,
    /// A sync started in the background by another command: quiet, and nothing if one runs.
    #[arg(long, hide = true)]
    pub background: bool,
}

#[derive(Debug, Subcommand)]
pub enum SyncCommand {
    /// Set sync up on this machine: a folder (made if missing) or a git remote (cloned with your
    /// own git credentials). A folder or repository another device set up is joined.
    Init {
        /// A folder path, or a git URL (git@host:you/record.git, https://…, file://…).
        target: String,
        /// Encrypt every file with a passphrase (recommended for git hosts). Asked for on the
        /// terminal, or read from DEVCOACH_SYNC_PASSPHRASE. Joining an encrypted folder asks too.
        #[arg(long)]
        encrypt: bool,
        /// The name other devices see for this one (default: the host name).
        #[arg(long)]
        name: Option<String>,
        /// Sync in the background of the commands you run at most every this many minutes
        /// (0: only when you run `devcoach sync` or open the dashboard).
        #[arg(long, value_name = "MINUTES", default_value_t = devcoach_sync::DEFAULT_EVERY_MINUTES)]
        every: u32,
    },
    /// Where sync stands: the devices seen, the last sync, changes waiting to be sent.
    Status(JsonFlag),
    /// Stop syncing on this machine (the shared folder and the other devices are left as they are).
    Off,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct PracticeArgs {
    #[command(subcommand)]
    pub command: Option<PracticeCommand>,
    /// A shipped problem's slug (see `devcoach practice problems`).
    pub problem: Option<String>,
    /// Read the problem from a markdown file (front matter optional).
    #[arg(long = "problem", value_name = "FILE")]
    pub problem_file: Option<std::path::PathBuf>,
    /// Coach inside Claude Code's own interface instead of this terminal loop (best effort: the
    /// interface shows a reply before the guard can send it back; needs `devcoach install --practice`).
    #[arg(long, conflicts_with = "local")]
    pub tui: bool,
    /// Carry on with the last unfinished session of this problem, from its log.
    #[arg(long, conflicts_with = "tui")]
    pub resume: bool,
    #[command(flatten)]
    pub models: ModelArgs,
}

#[derive(Debug, Args)]
pub struct HandsonArgs {
    /// The change to practise on: a commit, or `from..to` (default: the uncommitted changes).
    pub change: Option<String>,
    /// Which function: its number in the list, or its name (default: asked).
    #[arg(long)]
    pub pick: Option<String>,
    /// Only list what could be rebuilt (with --json, as JSON).
    #[arg(long)]
    pub list: bool,
    /// The command that runs the project's tests (default: found from its files).
    #[arg(long = "test-command", value_name = "COMMAND")]
    pub test_command: Option<String>,
    /// The knowledge-map topic the exercise counts for (default: the language).
    #[arg(long)]
    pub topic: Option<String>,
    /// How long one test run may take, in seconds.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub timeout: u64,
    /// Coach with a model: it judges your requirement list against what the hidden body needs and
    /// answers questions, never with your agent's code (the claude CLI; with --local, a local model).
    #[arg(long)]
    pub coach: bool,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub json: JsonFlag,
}

// Which models coach and judge. (Not a doc comment: clap would make it the `about` of
// `practice` and `handson`, whose own arguments are deferred.)
#[derive(Debug, Args, Clone)]
pub struct ModelArgs {
    /// Coach on the local model (Ollama) from the start.
    #[arg(long)]
    pub local: bool,
    /// The cloud coach's model (claude CLI).
    #[arg(long, default_value = "sonnet")]
    pub model: String,
    /// The local model (Ollama, or the OpenAI-compatible server with --openai-url).
    #[arg(long = "local-model", default_value = "qwen3:30b-a3b-instruct-2507")]
    pub local_model: String,
    /// Ollama's address (default: $OLLAMA_HOST, else http://127.0.0.1:11434).
    #[arg(long = "ollama-url")]
    pub ollama_url: Option<String>,
    /// Use an OpenAI-compatible server (llama.cpp, LM Studio, vLLM) at this address instead of Ollama.
    #[arg(long = "openai-url")]
    pub openai_url: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum PracticeCommand {
    /// Run one detector on stdin, for scripts and debugging (rules only, no model).
    #[command(subcommand)]
    Check(CheckCommand),
    /// Sum up practice sessions: requirements before code, highest hint rung, reveals, every
    /// requirement check; then totals across sessions and per topic.
    Report {
        /// Session logs (default: every log under <data dir>/practice/sessions).
        files: Vec<std::path::PathBuf>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// List the problems devcoach ships.
    Problems(JsonFlag),
    /// Replay the shipped learner transcripts against a coach model and score it: leak rate,
    /// gate compliance, judge vocabulary violations, rung distribution.
    Eval {
        /// claude (the CLI, falling back to local), or ollama / openai (local only).
        #[arg(long, default_value = "claude", value_parser = ["claude", "ollama", "openai"])]
        backend: String,
        #[command(flatten)]
        models: ModelArgs,
        /// Reject above this share of leaky drafts (0–1).
        #[arg(long, default_value_t = 0.15)]
        max_leak_rate: f64,
        /// Reject below this share of code blocks the gate handled by its rule (0–1).
        #[arg(long, default_value_t = 1.0)]
        min_gate_compliance: f64,
        /// Reject above this many judge names outside the vocabulary per judged list.
        #[arg(long, default_value_t = 0.2)]
        max_vocabulary_rate: f64,
        /// Reject below this share of replies with a hint-rung marker (0–1).
        #[arg(long, default_value_t = 0.8)]
        min_marked_rate: f64,
        /// Reject above this share of replies withheld after three leaky drafts (0–1).
        #[arg(long, default_value_t = 0.1)]
        max_withheld_rate: f64,
        #[command(flatten)]
        json: JsonFlag,
    },
}

#[derive(Debug, Subcommand)]
pub enum CheckCommand {
    /// Is the text on stdin source code? code, not_code or undecided.
    Code {
        /// Also show how each line read (code, weak code, prose, neutral) and its score.
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Does the reply on stdin name a technique or property the learner has not, or hold a
    /// pasteable line of solution?
    Leak {
        /// Something the learner wrote (repeat for several messages); names in it are theirs.
        #[arg(long = "learner-text")]
        learner_text: Vec<String>,
        /// The problem statement (it never counts as the learner's words; hits it also names are marked).
        #[arg(long)]
        statement: Option<std::path::PathBuf>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// The hint rung marked in the reply on stdin, and the reply without its marker.
    Rung(JsonFlag),
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub command: Option<ReviewCommand>,
}

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// List the cards due now (without their answers).
    Due {
        /// At most this many.
        #[arg(long, default_value_t = 20, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Grade one card without the interactive review: again, hard, good or easy (or 1-4).
    Grade {
        /// The lesson's id.
        id: String,
        grade: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Show how FSRS schedules a card reviewed with these grades (default parameters, no fuzz).
    #[command(after_help = "Example: devcoach review schedule --ratings 3,3,1,4 --elapsed-days 0,1,3,10 --json")]
    Schedule {
        /// Grades, comma-separated: 1 again, 2 hard, 3 good, 4 easy.
        #[arg(long, value_delimiter = ',', required = true)]
        ratings: Vec<String>,
        /// Whole days since the review before, one per grade (the first is ignored).
        #[arg(long = "elapsed-days", value_delimiter = ',', required = true)]
        elapsed_days: Vec<u32>,
        /// The recall probability to schedule for.
        #[arg(long, default_value_t = 0.9)]
        retention: f64,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Show or change the review settings.
    Settings {
        /// The recall probability reviews aim for (0.7-0.99; higher means more reviews).
        #[arg(long)]
        retention: Option<f64>,
        /// When the agent offers a review instead of a new lesson: off, alternate or reviews_first.
        #[arg(long)]
        mix: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Fit the scheduler's parameters to your own review log (needs 200 repeat reviews).
    Optimize {
        /// Go back to FSRS's default parameters.
        #[arg(long)]
        reset: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Write every card to a file Anki imports (the same as `devcoach export --format anki`).
    #[command(hide = true)]
    Export {
        /// The file to write.
        #[arg(long)]
        anki: std::path::PathBuf,
    },
}

/// The formats `devcoach export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    FsrsLog,
    Xapi,
    Anki,
}

#[derive(Debug, Args)]
pub struct UiArgs {
    /// The port on 127.0.0.1.
    #[arg(long, default_value_t = devcoach_net::dashboard::DEFAULT_PORT)]
    pub port: u16,
    /// Also open it in your browser.
    #[arg(short, long)]
    pub open: bool,
    /// Stop the dashboard running on this port.
    #[arg(long, conflicts_with_all = ["open", "demo"])]
    pub stop: bool,
    /// Show the demo learner (a sandbox; your data is not touched).
    #[arg(long)]
    pub demo: bool,
}

/// `--<agent>` for every row of the agent table, in its order.
#[derive(Debug, Clone, Default)]
pub struct AgentFlags {
    pub named: Vec<Agent>,
}

/// The group every agent flag belongs to (what `--all-detected` conflicts with).
pub const AGENT_FLAGS: &str = "agents";

impl clap::FromArgMatches for AgentFlags {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let named = Agent::ALL.iter().copied().filter(|a| matches.get_flag(a.spec().flag)).collect();
        Ok(Self { named })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for AgentFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let flags = Agent::ALL.iter().map(|a| {
            clap::Arg::new(a.spec().flag)
                .long(a.spec().flag)
                .action(clap::ArgAction::SetTrue)
                .help(a.wires())
                .display_order(0)
        });
        cmd.args(flags).group(
            clap::ArgGroup::new(AGENT_FLAGS)
                .args(Agent::ALL.iter().map(|a| a.spec().flag))
                .multiple(true)
                .required(false),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub agents: AgentFlags,
    /// Replace an existing devcoach MCP entry and rewrite the skill even when current.
    #[arg(long)]
    pub force: bool,
    /// Leave the hooks out (no lesson cues; the MCP tools still work).
    #[arg(long)]
    pub skip_hook: bool,
    /// Also install the practice guard in Claude Code: a Stop hook that sends back coach replies
    /// naming the answer while a `devcoach practice` session runs in Claude Code's own interface.
    #[arg(long)]
    pub practice: bool,
    /// Every agent found on this machine (its folder or its program), instead of naming them.
    #[arg(long, conflicts_with = AGENT_FLAGS)]
    pub all_detected: bool,
    /// Trust the devcoach server in Gemini CLI: headless runs (`gemini -p`) offer its tools only
    /// then, and Gemini stops asking before each devcoach tool (delete_lesson included). Asked at
    /// a terminal when neither flag is given.
    #[arg(long, conflicts_with = "no_trust")]
    pub trust: bool,
    /// Keep Gemini CLI asking before each devcoach tool (headless runs then offer none).
    #[arg(long)]
    pub no_trust: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub agents: AgentFlags,
    /// Every agent.
    #[arg(long)]
    pub all: bool,
    /// Also delete your devcoach data (lessons, profile, settings): asks first.
    #[arg(long)]
    pub data: bool,
    /// Do not ask (with --data: needed when not at a terminal; alone it changes nothing).
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ShareArgs {
    /// The lesson's id (see `devcoach lessons`).
    #[arg(required_unless_present = "last", conflicts_with = "last")]
    pub id: Option<String>,
    /// Share your newest lesson.
    #[arg(long)]
    pub last: bool,
    /// Print a link instead of the text.
    #[arg(long, conflicts_with = "file")]
    pub link: bool,
    /// Write a .devcoach.md file (to PATH, or <lesson>.devcoach.md here).
    #[arg(long, value_name = "PATH")]
    #[allow(clippy::option_option)]
    pub file: Option<Option<std::path::PathBuf>>,
    /// Also share the task, project, branch and commit (never local paths).
    #[arg(long)]
    pub with_context: bool,
    /// The sender name to show (saved as your default when none is set).
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Share without a name.
    #[arg(long)]
    pub anonymous: bool,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print machine-readable JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LessonsArgs {
    /// Only lessons from this period.
    #[arg(long, value_parser = ["today", "week", "month", "year", "all"], default_value = "all")]
    pub period: String,
    /// Only lessons with this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this level.
    #[arg(long, value_parser = ["junior", "mid", "senior"])]
    pub level: Option<String>,
    /// Project name contains this text.
    #[arg(long)]
    pub project: Option<String>,
    /// Repository contains this text.
    #[arg(long)]
    pub repository: Option<String>,
    /// Branch contains this text.
    #[arg(long)]
    pub branch: Option<String>,
    /// Commit hash contains this text.
    #[arg(long)]
    pub commit: Option<String>,
    /// Only starred lessons.
    #[arg(long)]
    pub starred: bool,
    /// Only lessons shared with you.
    #[arg(long, conflicts_with = "own")]
    pub imported: bool,
    /// Only your own lessons (not shared ones).
    #[arg(long)]
    pub own: bool,
    /// Only lessons shared by this sender.
    #[arg(long = "from", value_name = "NAME", conflicts_with = "own")]
    pub shared_by: Option<String>,
    /// Only lessons with this feedback (`none` = no feedback yet).
    #[arg(long, value_parser = ["know", "understood", "dont_know", "none"])]
    pub feedback: Option<String>,
    /// Every word must appear in the title, topic, summary, body or sender.
    #[arg(long)]
    pub search: Option<String>,
    /// From this date (2026-05-01) or time; overrides --period.
    #[arg(long, value_name = "DATE")]
    pub date_from: Option<String>,
    /// Up to this date (inclusive) or time; overrides --period.
    #[arg(long, value_name = "DATE")]
    pub date_to: Option<String>,
    /// Sort by this column.
    #[arg(long, value_parser = ["timestamp", "level", "topic_id", "title", "feedback"], default_value = "timestamp")]
    pub sort: String,
    /// Sort order.
    #[arg(long, value_parser = ["asc", "desc"], default_value = "desc")]
    pub order: String,
    /// Show at most this many lessons.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to put the demo data (default: a `devcoach-demo` folder in the system temp dir).
    #[arg(long)]
    pub dir: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory as _;
        super::Cli::command().debug_assert();
    }
}
