//! Asking for a lesson's feedback with a form, in a host that can show one (elicitation) and
//! does not show the lesson card. It happens only on the call the skill makes on the turn after
//! the card (`submit_feedback` with a lesson id and nothing else), never inside `log_lesson`, so
//! the learner has the lesson in front of them; and at most once per lesson. A decline, a cancel
//! or a host that never answers leaves the feedback line as the way to answer.

use std::time::Duration;

use devcoach_core::checked::Check;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, CancelledNotificationParam, ClientResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    Notification, Request, ServerNotification, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext};
use serde_json::{Value, json};

use crate::ctx::{Ctx, ToolError};
use crate::tools::lessons::{self, FeedbackArg, FeedbackArgs, FeedbackOut};
use crate::tools::{Out, structured_result};

/// How long the form may stay open before the call gives up on it (the agent's turn waits).
const WAIT: Duration = Duration::from_mins(3);
/// A lesson is asked about only while it is this fresh: the form is for the turn after the card,
/// and a restarted server (which forgets whom it asked) must not ask about old lessons.
const FRESH: chrono::TimeDelta = chrono::TimeDelta::hours(12);
/// The protocol revision from which a titled choice is written `oneOf` (before it, `enumNames`).
const TITLED_ONE_OF_FROM: &str = "2025-11-25";
const TOOL: &str = "submit_feedback";
const ANSWERS: [(&str, &str); 3] =
    [("know", "✅ I knew it"), ("understood", "💡 Understood"), ("dont_know", "❌ Couldn't follow")];

/// The lesson a call asks about, when it is the form's call: `submit_feedback` with a lesson id
/// and neither an answer nor an explain-back.
pub fn lesson_of(name: &str, args: &Value) -> Option<String> {
    if name != TOOL {
        return None;
    }
    let object = args.as_object()?;
    let given = |key: &str| object.get(key).is_some_and(|v| !v.is_null());
    if given("feedback") || given("explain_back") {
        return None;
    }
    object.get("lesson_id")?.as_str().map(str::to_owned)
}

/// The form: the three answers (required) and an optional explanation, the choice written the
/// way the client's protocol revision reads it.
fn form(title: &str, protocol: &str) -> Result<ElicitRequestParams, serde_json::Error> {
    let title: String = title.chars().filter(|c| !c.is_control()).take(120).collect();
    let mut answer = json!({"type": "string", "title": "Your answer"});
    if protocol >= TITLED_ONE_OF_FROM {
        answer["oneOf"] = ANSWERS.iter().map(|(value, label)| json!({"const": value, "title": label})).collect();
    } else {
        answer["enum"] = ANSWERS.iter().map(|(value, _)| json!(value)).collect();
        answer["enumNames"] = ANSWERS.iter().map(|(_, label)| json!(label)).collect();
    }
    serde_json::from_value(json!({
        "mode": "form",
        "message": format!("devcoach: how was the lesson \u{201c}{title}\u{201d}?"),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "answer": answer,
                "explanation": {
                    "type": "string",
                    "title": "🗣 Explain it back (optional)",
                    "description": "The lesson's key idea in a sentence or two, in your own words.",
                    "maxLength": devcoach_core::limits::CHECK_ANSWER_CHARS
                }
            },
            "required": ["answer"]
        }
    }))
}

/// The result for a form that recorded nothing.
fn unanswered(ctx: &Ctx, lesson_id: &str, how: &str, lead: &str) -> CallToolResult {
    let out = lessons::feedback_as_is(ctx, lesson_id).and_then(|found| {
        let mut out = found.ok_or_else(|| crate::tools::not_found(lesson_id))?;
        out.form = Some(how.into());
        Ok(Out { value: out, lead: Some(lead.into()) })
    });
    structured_result(TOOL, out)
}

/// What the host said, or that no answer came.
enum Reply {
    Answered(ElicitResult),
    /// An error from the host, a reply of another kind, or no reply within the wait.
    Failed,
    /// The agent gave up on the call (it was cancelled): the form is withdrawn.
    Withdrawn,
}

/// Sends the form and waits for the learner, for the call's cancellation or for the wait to end.
async fn send(context: &RequestContext<RoleServer>, params: ElicitRequestParams) -> Reply {
    let request = ServerRequest::ElicitRequest(Request::new(params));
    let Ok(handle) = context.peer.send_request_with_option(request, PeerRequestOptions::with_timeout(WAIT)).await
    else {
        return Reply::Failed;
    };
    let (id, peer) = (handle.id.clone(), handle.peer.clone());
    tokio::select! {
        reply = handle.await_response() => match reply {
            Ok(ClientResult::ElicitResult(result)) => Reply::Answered(result),
            Ok(_) | Err(_) => Reply::Failed,
        },
        () = context.ct.cancelled() => {
            // Close the form on the host's side too.
            let withdraw = CancelledNotificationParam::new(Some(id), Some("the tool call was cancelled".into()));
            let _ = peer.send_notification(ServerNotification::CancelledNotification(Notification::new(withdraw))).await;
            Reply::Withdrawn
        }
    }
}

/// Asks, when this call is the form's and the learner has not answered yet; `None` sends the call
/// on as it is (its usual error says what is missing).
pub async fn ask(ctx: &Ctx, context: &RequestContext<RoleServer>, lesson_id: &str) -> Option<CallToolResult> {
    if !ctx.client.form || ctx.client.apps {
        return None;
    }
    let lesson = ctx.with_store(|s| Ok(s.lesson(lesson_id)?)).ok().flatten()?;
    let logged = devcoach_core::time::parse_timestamp(&lesson.timestamp).ok()?;
    if lesson.feedback.is_some() || ctx.now() - logged > FRESH {
        return None;
    }
    let first = ctx.asked_with_form.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(lesson.id.clone());
    if !first {
        return Some(structured_result::<FeedbackOut>(
            TOOL,
            Err(ToolError::Invalid(
                "the learner was already asked about this lesson with a form; don't ask again (an answer they give \
                 in the chat is recorded as usual)"
                    .into(),
            )),
        ));
    }
    let protocol = context.peer.peer_info().map(|info| info.protocol_version.to_string()).unwrap_or_default();
    let params = form(&lesson.title, &protocol).ok()?;
    Some(match send(context, params).await {
        Reply::Answered(result) => match result.action {
            ElicitationAction::Accept => accepted(ctx, lesson_id, result.content.as_ref()),
            ElicitationAction::Decline => unanswered(
                ctx,
                lesson_id,
                "declined",
                "The learner declined the form; nothing was recorded. Don't ask again.",
            ),
            // Cancel, and any action a later protocol adds.
            _ => unanswered(
                ctx,
                lesson_id,
                "cancelled",
                "The learner closed the form; nothing was recorded. Don't ask again.",
            ),
        },
        Reply::Failed | Reply::Withdrawn => unanswered(
            ctx,
            lesson_id,
            "cancelled",
            "The form was not answered; nothing was recorded. Don't ask again: an answer they give later in \
             the chat is recorded as usual.",
        ),
    })
}

/// Records an accepted form through the tool's own path (the same checks as the model's call).
fn accepted(ctx: &Ctx, lesson_id: &str, content: Option<&Value>) -> CallToolResult {
    let answer = content.and_then(|c| c.get("answer")).and_then(Value::as_str);
    let feedback = match answer {
        Some("know") => FeedbackArg::Know,
        Some("understood") => FeedbackArg::Understood,
        Some("dont_know") => FeedbackArg::DontKnow,
        _ => {
            return unanswered(
                ctx,
                lesson_id,
                "cancelled",
                "The form came back without one of the three answers; nothing was recorded. Don't ask again.",
            );
        }
    };
    // The explanation is graded by the model, like any explain-back: it goes back to it, within
    // the explain-back's own limit.
    let explanation = content
        .and_then(|c| c.get("explanation"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .filter(|t| Check::new(t, None).is_ok())
        .map(str::to_owned);
    let args = FeedbackArgs { lesson_id: lesson_id.to_owned(), feedback: Some(feedback), explain_back: None };
    let out = lessons::submit_feedback(ctx, args).map(|mut out| {
        out.value.form = Some("answered".into());
        let lead = if explanation.is_some() {
            "The learner answered with the form and explained the idea back: grade `explanation_to_grade` with the \
             rubric and record it with submit_feedback (explain_back)."
        } else {
            "The learner answered with the form; acknowledge it in a few words at most."
        };
        out.value.explanation_to_grade = explanation;
        out.lead = Some(lead.into());
        out
    });
    structured_result(TOOL, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bare_submit_feedback_is_the_forms_call() {
        assert_eq!(lesson_of(TOOL, &json!({"lesson_id": "a"})), Some("a".into()));
        assert_eq!(lesson_of(TOOL, &json!({"lesson_id": "a", "feedback": null})), Some("a".into()));
        assert_eq!(lesson_of(TOOL, &json!({"lesson_id": "a", "feedback": "know"})), None);
        assert_eq!(lesson_of(TOOL, &json!({"lesson_id": "a", "explain_back": {}})), None);
        assert_eq!(lesson_of("grade_review", &json!({"lesson_id": "a"})), None);
        assert_eq!(lesson_of(TOOL, &json!({"lesson_id": 3})), None);
        assert_eq!(lesson_of(TOOL, &json!(null)), None);
    }

    #[test]
    fn the_form_is_a_valid_elicitation() {
        let params = form("Why \u{1b}[31mindexes\nhelp", "2025-11-25").expect("form");
        let wire = serde_json::to_value(&params).expect("json");
        assert_eq!(wire["mode"], "form");
        assert!(!wire["message"].as_str().unwrap_or_default().contains('\u{1b}'));
        assert_eq!(wire["requestedSchema"]["required"], json!(["answer"]));
        let values: Vec<&str> = wire["requestedSchema"]["properties"]["answer"]["oneOf"]
            .as_array()
            .expect("oneOf")
            .iter()
            .filter_map(|o| o["const"].as_str())
            .collect();
        assert_eq!(values, ["know", "understood", "dont_know"]);
        // An earlier revision reads a titled choice as `enum` with `enumNames`.
        let older = serde_json::to_value(form("t", "2025-06-18").expect("form")).expect("json");
        let answer = &older["requestedSchema"]["properties"]["answer"];
        assert_eq!(answer["enum"], json!(["know", "understood", "dont_know"]), "{older}");
        assert_eq!(answer["enumNames"].as_array().map(Vec::len), Some(3), "{older}");
        assert!(answer.get("oneOf").is_none());
    }
}
