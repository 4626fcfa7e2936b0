//! `profile`, `knowledge-add`/`-remove`, `group-add`/`-remove`/`-assign`.

use std::borrow::Cow;

use devcoach_core::knowledge::{self, GroupTarget, KnowledgeEntry, OTHER_GROUP};

use crate::context::Ctx;
use crate::failure::{invalid, usage};
use crate::output::Style;
use crate::output::style::confidence_style;
use crate::output::table::{Column, Table};

const NO_PROFILE: &str = "No knowledge profile yet. Your agent builds one the first time devcoach runs \
(it asks how to set it up), or add topics with `devcoach knowledge-add <topic> --confidence <0-10>`. \
To look around first, try `devcoach demo`.";

/// `█` per point of confidence, `░` for the rest of the 10.
pub fn bar(confidence: i64) -> String {
    let filled = usize::try_from(knowledge::clamp_confidence(confidence)).unwrap_or(0);
    format!("{}{}", "█".repeat(filled), "░".repeat(10 - filled))
}

/// A probability to three places: what a reader can use, and stable across platforms' maths.
fn round3(p: f64) -> f64 {
    (p * 1000.0).round() / 1000.0
}

pub fn profile(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_for_report()?;
    let profile = match &store {
        Some(s) => s.profile()?,
        None => knowledge::Profile::default(),
    };
    if json {
        // A database only the TypeScript build has written may lack the model's table.
        let estimates = store.as_ref().and_then(|s| s.topic_estimates(ctx.now).ok()).unwrap_or_default();
        crate::output::json(&serde_json::json!({
            "knowledge": profile.knowledge,
            "groups": profile.groups,
            // The knowledge model's reading, beside (never instead of) the learner's confidence.
            "estimates": estimates.iter().map(|e| serde_json::json!({
                "topic": e.topic, "estimate": e.confidence_now, "recall_now": round3(e.known_now),
                "mastery": round3(e.mastery), "evidence": e.evidence, "checked_answers": e.checked,
                "self_reports": e.self_reported, "other_evidence": e.other, "last_evidence": e.last_evidence,
            })).collect::<Vec<_>>(),
        }))?;
    } else if profile.knowledge.is_empty() {
        crate::output::print(NO_PROFILE)?;
    } else {
        let mut entries = profile.knowledge.clone();
        entries.sort_by(|a, b| b.confidence.cmp(&a.confidence).then_with(|| a.topic.cmp(&b.topic)));
        // The model's reading beside the learner's own number, where it has one: what the agent
        // is told, so the learner can see why a lesson is pitched where it is.
        let estimates: std::collections::HashMap<String, i64> = store
            .as_ref()
            .and_then(|s| s.topic_estimates(ctx.now).ok())
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.topic, e.confidence_now))
            .collect();
        let mut columns = vec![
            Column::new("Topic", |e: &KnowledgeEntry| Cow::Borrowed(e.topic.as_str())).fixed(Style::Cyan).shrink(2, 10),
            Column::new("Group", |e: &KnowledgeEntry| Cow::Owned(profile.group_of(&e.topic).to_owned()))
                .style(|e| if profile.group_of(&e.topic) == OTHER_GROUP { Style::Dim } else { Style::Plain })
                .shrink(1, 8),
            Column::new("Confidence", |e: &KnowledgeEntry| Cow::Owned(format!("{}/10", e.confidence)))
                .style(|e| confidence_style(e.confidence)),
        ];
        let differs = |e: &KnowledgeEntry| estimates.get(&e.topic).filter(|c| **c != e.confidence).copied();
        let any_differs = entries.iter().any(|e| differs(e).is_some());
        if any_differs {
            columns.push(
                Column::new("Model", move |e: &KnowledgeEntry| {
                    Cow::Owned(differs(e).map(|c| format!("{c}/10")).unwrap_or_default())
                })
                .style(|_| Style::Dim),
            );
        }
        columns.push(
            Column::new("", |e: &KnowledgeEntry| Cow::Owned(bar(e.confidence)))
                .style(|e| confidence_style(e.confidence))
                .optional(0),
        );
        let table = Table::new(columns).title("Knowledge profile");
        let n = entries.len();
        let groups = profile.groups.len();
        let model = if any_differs {
            " · Model: what devcoach reckons you recall now from your answers, where it differs (your agent is told both)"
        } else {
            ""
        };
        let footer = format!(
            "{n} topic{} · {groups} group{}{model}",
            if n == 1 { "" } else { "s" },
            if groups == 1 { "" } else { "s" }
        );
        crate::output::print(&format!("{}{}", table.for_term(&entries, ctx.term), ctx.term.out(Style::Dim, &footer)))?;
        let calibration = store.as_ref().and_then(|s| s.calibration().ok()).unwrap_or_default();
        crate::output::print(&calibration_text(ctx, &calibration))?;
    }
    if let Some(s) = &store {
        ctx.read_only_notice(s);
    }
    Ok(())
}

/// The profile's closing lines: per topic with a checked answer, how the learner's own word
/// held up against it.
fn calibration_text(ctx: &Ctx, topics: &[devcoach_core::checked::TopicCalibration]) -> String {
    let t = &ctx.term;
    if topics.is_empty() {
        let text = "No checked answers yet. Explain a lesson back to your agent in your own words, or review \
                    through your agent, and this shows how your own word holds up against them.";
        return format!("\n{}", t.out(Style::Dim, &crate::output::wrap(text, t.width)));
    }
    let mut out = vec![String::new(), t.out(Style::Bold, "Your word and your checked answers")];
    for c in topics {
        let style = match c.verdict {
            devcoach_core::checked::Verdict::Overrates => Style::Yellow,
            devcoach_core::checked::Verdict::NotEnough { .. } => Style::Dim,
            _ => Style::Plain,
        };
        out.push(t.out(style, &crate::output::wrap_indented(&c.line(), t.width, "  ", "    ")));
    }
    out.join("\n")
}

/// Says so when the topic rule changed what was typed (`Python` is stored as `python`).
fn renamed_note(ctx: &Ctx, typed: &str, id: &str) {
    if typed.trim() != id {
        ctx.term
            .warn(&format!("saved as '{id}' (topics are lower case, words joined by _); you typed '{}'", typed.trim()));
    }
}

pub fn add(ctx: &Ctx, raw: &str, confidence: i64, group: Option<&str>) -> anyhow::Result<()> {
    let topic = knowledge::topic_id(raw).map_err(|e| usage(e.to_string()))?;
    let target = group.map(GroupTarget::parse).transpose().map_err(|e| usage(format!("--group: {e}")))?;
    let value = ctx.open()?.set_topic(&topic, confidence, target.as_ref(), ctx.now)?;
    renamed_note(ctx, raw, &topic);
    let placed = match &target {
        Some(GroupTarget::Group(g)) => format!(" in {g}"),
        Some(GroupTarget::Ungrouped) => format!(" in {OTHER_GROUP}"),
        None => String::new(),
    };
    Ok(crate::output::print(&format!(
        "Set {}{placed}: {}",
        ctx.term.out(Style::Cyan, &topic),
        ctx.term.out(confidence_style(value), &format!("{value}/10"))
    ))?)
}

pub fn remove(ctx: &Ctx, topic: &str) -> anyhow::Result<()> {
    if ctx.open()?.remove_topic(topic)? {
        crate::output::print(&format!("Removed {topic}"))?;
    } else {
        return Err(invalid(format!(
            "'{topic}' is not on the knowledge map; nothing removed — `devcoach profile` lists the topics"
        )));
    }
    Ok(())
}

pub fn group_add(ctx: &Ctx, name: &str) -> anyhow::Result<()> {
    let name = knowledge::new_group_name(name).map_err(|e| usage(e.to_string()))?;
    if ctx.open()?.add_group(&name)? {
        crate::output::print(&format!("Created group {name}"))?;
    } else {
        crate::output::print(&format!("Group {name} already exists"))?;
    }
    Ok(())
}

pub fn group_remove(ctx: &Ctx, name: &str) -> anyhow::Result<()> {
    if ctx.open()?.remove_group(name)? {
        crate::output::print(&format!("Removed group {} (its topics are now in {OTHER_GROUP})", name.trim()))?;
    } else {
        return Err(invalid(format!("there is no group named '{}'; nothing removed", name.trim())));
    }
    Ok(())
}

pub fn group_assign(ctx: &Ctx, topic: &str, group: &str) -> anyhow::Result<()> {
    let target = GroupTarget::parse(group).map_err(|e| usage(e.to_string()))?;
    let mut store = ctx.open()?;
    let existed = match &target {
        GroupTarget::Group(g) => store.profile()?.groups.iter().any(|x| x.name == *g),
        GroupTarget::Ungrouped => true,
    };
    if !store.assign_group(topic, &target)? {
        return Err(invalid(format!(
            "'{}' is not on the knowledge map — add it first with `devcoach knowledge-add {}`",
            topic.trim(),
            topic.trim()
        )));
    }
    let msg = match target {
        GroupTarget::Group(g) if !existed => format!("Created the group {g} and moved {} to it", topic.trim()),
        GroupTarget::Group(g) => format!("Moved {} to {g}", topic.trim()),
        GroupTarget::Ungrouped => format!("Moved {} to {OTHER_GROUP} (no group)", topic.trim()),
    };
    Ok(crate::output::print(&msg)?)
}
