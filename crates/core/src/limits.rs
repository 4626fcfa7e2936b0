//! Every cap on outside input, in one table: what an agent, a hook payload, a share code, a
//! backup, a synced folder, a model, a form or a pasted file may bring, and how much of a file
//! on this machine devcoach reads. Each is defined here once and used from here (the rules that
//! enforce them: `knowledge::topic_id`, `SessionId::from_payload`, `records::check`, restore,
//! the segment reader, the MCP argument check…); `tests/it/limits_table.rs` fails on a cap
//! defined anywhere else and on one here that nothing uses. Counts are characters unless the
//! name says bytes.

/// A knowledge-map topic id.
pub const TOPIC_CHARS: usize = 100;
/// A group name.
pub const GROUP_CHARS: usize = 100;
/// The sender name put on shared lessons.
pub const SHARE_NAME_CHARS: usize = 80;
/// An agent session id as a hook payload carries it (longer ids are cut there).
pub const SESSION_ID_BYTES: usize = 256;
/// The page share links point at (`share_link_base`).
pub const LINK_BASE_CHARS: usize = 300;
/// A lesson id.
pub const LESSON_ID_CHARS: usize = 200;
/// A lesson title.
pub const TITLE_CHARS: usize = 300;
/// A lesson summary.
pub const SUMMARY_CHARS: usize = 2_000;
/// A lesson body.
pub const BODY_CHARS: usize = 100_000;
/// Each context field of a lesson (task, project, repository, branch, commit, folder).
pub const CONTEXT_CHARS: usize = 1_000;
/// How many categories a lesson may have, and how long each may be.
pub const CATEGORIES: usize = 20;
pub const CATEGORY_CHARS: usize = 100;
/// A review card's question and answer.
pub const QUESTION_CHARS: usize = 500;
pub const ANSWER_CHARS: usize = 2_000;
/// A checked answer: the learner's words, and the missing piece the grader names.
pub const CHECK_ANSWER_CHARS: usize = 2_000;
pub const CHECK_MISSING_CHARS: usize = 500;
/// A hook payload read from stdin.
pub const HOOK_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;
/// Stops kept waiting, each a small file, while another process holds the database (a hook
/// never waits for it): past this many, a stop is not counted.
pub const WAITING_STOPS: usize = 256;
/// One waiting stop's file.
pub const WAITING_STOP_BYTES: usize = 1024;
/// A sync file once unpacked, and one change within it (a lesson at its largest fits).
pub const SYNC_SEGMENT_BYTES: usize = 32 * 1024 * 1024;
pub const SYNC_OP_BYTES: usize = 4 * 1024 * 1024;
/// The most changes one sync file may hold: a device with more to send writes several files
/// (each at most half of [`SYNC_SEGMENT_BYTES`] unpacked), and a file holding more is refused.
pub const SYNC_FILE_CHANGES: usize = 1_000;
/// The most changes one round of a sync reads and applies (a file at least): the rest wait for
/// the next round of the same sync, each round its own transaction, so what a sync holds in
/// memory is bounded whatever the folder holds.
pub const SYNC_ROUND_CHANGES: usize = 2_000;

/// How many of its own files in the folder (beside its latest snapshot's parts) make a device
/// write a new snapshot, at the least (or twice the parts of its latest, if more): the folder,
/// and what a device that joins reads, grow with the record, not with its history.
pub const SYNC_SNAPSHOT_AFTER_FILES: usize = 256;
/// The most files of one device a sync lists: a device writes a snapshot long before this
/// many (a record of a million lessons has a few thousand parts), so a folder holding more was
/// filled by someone else; the rest are not looked at, and the sync says so.
pub const SYNC_DEVICE_FILES: usize = 20_000;

/// How many changes waiting to be sent `sync status` counts before it says "more than": a
/// store never synced holds its whole record waiting, and counting it would hold it all.
pub const SYNC_PENDING_COUNTED: usize = 10_000;
/// How far ahead of this machine's clock a change from another device may be stamped: further
/// is a clock off or a forged file, and its file waits (unread, unapplied) until this machine's
/// clock reaches it, so a forged stamp cannot outrank the changes made meanwhile.
pub const SYNC_CLOCK_AHEAD_MS: i64 = 5 * 60 * 1000;
/// How much of the end of Claude Desktop's log of devcoach's server `doctor` reads: many starts'
/// worth, of which only the last counts.
pub const DESKTOP_LOG_TAIL_BYTES: usize = 256 * 1024;

// Read from the agents' side and from stdin.

/// The note a stop leaves before any database exists: fifty asks of a bounded session id each.
pub const ONBOARDING_NOTE_BYTES: u64 = 32 * 1024;
/// What `practice check` reads from stdin.
pub const PRACTICE_CHECK_BYTES: u64 = 4 * 1024 * 1024;
/// A transcript the stop hook reads for work insights; a longer one is left alone (the hook must
/// stay quick).
pub const TRANSCRIPT_BYTES: u64 = 32 * 1024 * 1024;
/// How much of a program's start `doctor` looks at for a `#!` line: what Linux reads
/// (BINPRM_BUF_SIZE), so a longer line would not run there either.
pub const SHEBANG_BYTES: usize = 256;
/// An agent's config or shell history file read by the look at the machine.
pub const HISTORY_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The entries read from one folder when detecting a project's stack.
pub const STACK_DIR_ENTRIES: usize = 4096;

// Shared lessons.

/// What `import` reads from stdin, a file or the clipboard.
pub const IMPORT_BYTES: u64 = 16 * 1024 * 1024;
/// The payload part of a share code.
pub const SHARE_CODE_CHARS: usize = 64_000;
/// The JSON a share code may inflate to.
pub const SHARE_DECODED_BYTES: usize = 256 * 1024;

// Sync: what another device (or whoever can write the folder) writes.

/// A file of the folder, before decryption and unpacking.
pub const SYNC_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// A file's header line (a devcoach writes a few hundred bytes).
pub const SYNC_HEADER_BYTES: usize = 1024;
/// A sync folder's small files: its marker, a device's description, the sealed folder key.
pub const SYNC_SMALL_FILE_BYTES: u64 = 64 * 1024;
/// The columns one change may carry (a record has a few dozen at most).
pub const SYNC_COLUMNS: usize = 128;
/// How far one change may move a counter (further than any record holds).
pub const SYNC_DELTA: u64 = 1_000_000;
/// The parts one snapshot may have (a record of a million lessons needs a few thousand).
pub const SYNC_SNAPSHOT_PARTS: u32 = 100_000;
/// A device id.
pub const DEVICE_ID_CHARS: usize = 32;

// Backups restored or merged (`restore`, the dashboard's upload).

/// The backup file.
pub const BACKUP_BYTES: u64 = 128 * 1024 * 1024;
/// What the whole backup may inflate to.
pub const BACKUP_INFLATED_BYTES: u64 = 512 * 1024 * 1024;
/// What the lessons entry may inflate to (read one lesson at a time, so this bounds time, not
/// memory).
pub const BACKUP_LESSONS_BYTES: u64 = 256 * 1024 * 1024;
/// The entries a backup may list.
pub const BACKUP_ENTRIES: u64 = 20_000;
/// One element of an array (a lesson, a log row).
pub const BACKUP_ELEMENT_BYTES: u64 = 4 * 1024 * 1024;
/// A whole-object entry (settings, knowledge, courses): parsed whole, so it is kept small.
pub const BACKUP_OBJECT_BYTES: u64 = 2 * 1024 * 1024;
/// One practice session log carried in a backup.
pub const BACKUP_PRACTICE_FILE_BYTES: u64 = 16 * 1024 * 1024;

// Other files and replies.

/// The coaching notebook (the agent keeps it short; a runaway file is an error).
pub const NOTEBOOK_BYTES: u64 = 8 * 1024 * 1024;
/// A model's reply (the practice coach's backends).
pub const MODEL_REPLY_BYTES: u64 = 8 * 1024 * 1024;
/// What a model's command-line program (the `claude` coach) may print around its reply.
pub const MODEL_CLI_OUTPUT_BYTES: u64 = 16 * 1024 * 1024;
/// A reply from LeetCode's API (a problem and its metadata).
pub const LEETCODE_REPLY_BYTES: u64 = 2 * 1024 * 1024;
/// A shared lesson fetched from a link.
pub const FETCH_BYTES: u64 = 256 * 1024;
/// The dashboard's answer to `/ping` (another program may be listening on the port).
pub const DASHBOARD_PING_BYTES: u64 = 64 * 1024;
/// An upload to the dashboard (a backup ZIP, a lessons export).
pub const UPLOAD_BYTES: usize = 64 * 1024 * 1024;

// The other doors: MCP, the dashboard's forms, the practice coach, the files a project holds.

/// An MCP request line (a 10 MB argument still fits, and is refused by the tool).
pub const MCP_LINE_BYTES: usize = 16 * 1024 * 1024;
/// A tool's arguments, serialised. Real calls are a few KiB; a lesson body or a pasted share
/// code stays far below this.
pub const MCP_ARGUMENT_BYTES: usize = 1024 * 1024;
/// The lessons one undo on the dashboard names (a page of the table holds fewer).
pub const UNDO_IDS: usize = 200;
/// A course document (from the agent, a backup or sync).
pub const COURSE_DOCUMENT_BYTES: u64 = 2 * 1024 * 1024;
/// A practice problem's statement file.
pub const PROBLEM_BYTES: usize = 256 * 1024;
/// What a reader takes of a practice session log (a session is far smaller; a larger file is
/// cut there), and of one line of it (longer lines are skipped, not loaded).
pub const PRACTICE_LOG_BYTES: u64 = 64 * 1024 * 1024;
pub const PRACTICE_LOG_LINE_BYTES: usize = 1 << 20;
/// An agent's configuration file, read to edit it or to look at it (its settings, its MCP
/// list, its hooks, Copilot CLI's plugin list).
pub const AGENT_CONFIG_BYTES: u64 = 16 * 1024 * 1024;
/// What an agent's own program (`claude mcp add`, `codex --version`) may print.
pub const AGENT_CLI_OUTPUT_BYTES: u64 = 4 * 1024 * 1024;
/// A file install wrote and reads back (its ledger, the OpenCode/Kilo plugin), which anyone
/// with the account could have replaced.
pub const INSTALL_FILE_BYTES: u64 = 1024 * 1024;
/// What another program devcoach runs may print, unless its caller names a cap of its own.
pub const CHILD_OUTPUT_BYTES: u64 = 1024 * 1024;
/// What `git` may print when asked about a repository (a branch, a commit, a remote).
pub const GIT_OUTPUT_BYTES: u64 = 64 * 1024;
/// What is read of any one project manifest when detecting a stack.
pub const MANIFEST_BYTES: usize = 256 * 1024;
/// How deep quotes and lists of a lesson's markdown are laid out in a terminal; deeper ones at
/// this depth, so a body of ten thousand `>` costs what a short one does per line.
pub const MARKDOWN_DEPTH: usize = 6;

// Hands-on practice on the learner's repository: what is read of a change, at most.

/// The diff of a change that is read; past it, the change's beginning is used and it says so.
pub const HANDSON_DIFF_BYTES: u64 = 4 * 1024 * 1024;
/// The files of a change that are looked at.
pub const HANDSON_CHANGED_FILES: usize = 500;
/// One source file, parsed or copied into an exercise; a larger one is not source to rebuild.
pub const HANDSON_SOURCE_BYTES: u64 = 1024 * 1024;
/// The files searched for tests that name a candidate.
pub const HANDSON_SCAN_FILES: usize = 300;
/// The candidates offered.
pub const HANDSON_CANDIDATES: usize = 5;
/// An exercise's state file.
pub const HANDSON_STATE_BYTES: u64 = 4 * 1024 * 1024;
/// The output of one test run that is kept (each of stdout and stderr).
pub const HANDSON_TEST_OUTPUT_BYTES: u64 = 1024 * 1024;
/// The lines of a test run's end shown after a check.
pub const HANDSON_TAIL_LINES: usize = 80;
/// The failed tests named after a check.
pub const HANDSON_FAILED_NAMES: usize = 50;
/// One question a hands-on judge says a requirement list leaves open; a longer one is dropped.
pub const HANDSON_GAP_CHARS: usize = 240;
/// The learner's file as a hands-on coach is shown it with a question.
pub const HANDSON_ATTEMPT_BYTES: u64 = 64 * 1024;
