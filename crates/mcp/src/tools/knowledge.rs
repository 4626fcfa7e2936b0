//! Knowledge-map tools: confidence changes, topics and groups.

use devcoach_core::knowledge::{GroupTarget, OTHER_GROUP};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{REMOVE, Registry, WRITE, check_len};
use crate::ctx::{Ctx, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UpdateKnowledgeArgs {
    /// The topic, e.g. `python`.
    pub topic: String,
    /// The change to apply, e.g. 1 or -1. A topic not yet on the map starts from 5.
    pub delta: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TopicOut {
    pub topic: String,
    /// The confidence now, 0–10.
    pub confidence: i64,
}

fn default_confidence() -> i64 {
    5
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AddTopicArgs {
    /// The topic: one word if possible, three at most.
    pub topic: String,
    /// 0 (new to it) … 10 (could teach it).
    #[serde(default = "default_confidence")]
    #[schemars(range(min = 0, max = 10))]
    pub confidence: i64,
    /// A group to put it in (created when missing); omit for `Other`.
    #[serde(default)]
    pub group: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AddedTopicOut {
    /// The topic's id on the map (lower case, words joined by `_`).
    pub topic: String,
    /// The name as given, when the topic rule changed it: tell the learner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    pub confidence: i64,
    /// Its group (`Other` when ungrouped).
    pub group: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TopicArgs {
    pub topic: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TopicRemovedOut {
    pub topic: String,
    /// False when the topic was not on the map.
    pub removed: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GroupArgs {
    /// The group's name, e.g. `Machine Learning`.
    pub name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GroupAddedOut {
    pub name: String,
    /// False when the group already existed.
    pub created: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GroupRemovedOut {
    pub name: String,
    /// False when there was no such group.
    pub removed: bool,
}

/// A topic argument under the one topic rule (`Python` → `python`), or the rule's own error.
fn topic_arg(raw: &str) -> Result<String, ToolError> {
    devcoach_core::knowledge::topic_id(raw).map_err(|e| ToolError::Invalid(format!("`topic`: {e}")))
}

pub(super) fn register_update(r: &mut Registry) {
    r.structured(
        ("update_knowledge", "Update Knowledge", WRITE),
        "Move a topic's confidence by `delta` (clamped to 0–10; an untracked topic starts at 5). Use when the learner shows \
         they know a topic better or worse than the map says.",
        |ctx: &Ctx, a: UpdateKnowledgeArgs| {
            let topic = topic_arg(&a.topic)?;
            let now = ctx.now();
            let confidence = ctx.with_store(|s| Ok(s.update_knowledge(&topic, a.delta, now)?))?;
            Ok(TopicOut { topic, confidence }.into())
        },
    );
}

pub(super) fn register_add_topic(r: &mut Registry) {
    r.structured(
        ("add_topic", "Add Topic", WRITE),
        "Add a topic to the knowledge map (or set its confidence), optionally in a group. Ask the learner first.",
        |ctx: &Ctx, a: AddTopicArgs| {
            let topic = topic_arg(&a.topic)?;
            if !(0..=10).contains(&a.confidence) {
                return Err(ToolError::Invalid(format!("`confidence` must be between 0 and 10, got {}", a.confidence)));
            }
            let target = a
                .group
                .as_deref()
                .map(GroupTarget::parse)
                .transpose()
                .map_err(|e| ToolError::Invalid(format!("`group`: {e}")))?
                .filter(|t| *t != GroupTarget::Ungrouped);
            let now = ctx.now();
            let confidence = ctx.with_store(|s| Ok(s.set_topic(&topic, a.confidence, target.as_ref(), now)?))?;
            let profile = ctx.with_store(|s| Ok(s.profile()?))?;
            let renamed_from = (a.topic.trim() != topic).then(|| a.topic.trim().to_owned());
            Ok(AddedTopicOut { group: profile.group_of(&topic).to_owned(), topic, renamed_from, confidence }.into())
        },
    );
}

pub(super) fn register_remove_topic(r: &mut Registry) {
    r.structured(
        ("remove_topic", "Remove Topic", REMOVE),
        "Remove a topic (and its group membership) from the knowledge map.",
        |ctx: &Ctx, a: TopicArgs| {
            let removed = ctx.with_store(|s| Ok(s.remove_topic(&a.topic)?))?;
            Ok(TopicRemovedOut { topic: a.topic.trim().to_owned(), removed }.into())
        },
    );
}

pub(super) fn register_add_group(r: &mut Registry) {
    r.structured(
        ("add_group", "Add Group", WRITE),
        "Create a group for topics on the knowledge map. `Other` is reserved for ungrouped topics.",
        |ctx: &Ctx, a: GroupArgs| {
            check_len("name", &a.name, devcoach_core::limits::GROUP_CHARS)?;
            let created = ctx.with_store(|s| Ok(s.add_group(&a.name)?))?;
            Ok(GroupAddedOut { name: a.name.trim().to_owned(), created }.into())
        },
    );
}

pub(super) fn register_remove_group(r: &mut Registry) {
    r.structured(
        ("remove_group", "Remove Group", REMOVE),
        "Delete a group; its topics stay on the map, ungrouped.",
        |ctx: &Ctx, a: GroupArgs| {
            if a.name.trim() == OTHER_GROUP {
                return Err(ToolError::Invalid("`Other` is not a real group: it holds every ungrouped topic".into()));
            }
            let removed = ctx.with_store(|s| Ok(s.remove_group(&a.name)?))?;
            Ok(GroupRemovedOut { name: a.name.trim().to_owned(), removed }.into())
        },
    );
}
