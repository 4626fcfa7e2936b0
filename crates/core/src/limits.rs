//! Every size limit on outside input, in one table. The front ends (CLI, MCP, dashboard, hooks,
//! restore, practice) reach them through the functions that enforce them (`knowledge::topic_id`,
//! `knowledge::new_group_name`, `SessionId::from_payload`, `settings::normalize_share_name`, the
//! MCP argument checks), never as literals of their own. Counts are characters unless the name
//! says bytes.

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
