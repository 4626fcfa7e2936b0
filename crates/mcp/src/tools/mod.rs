//! The tool table: each tool's name, title, hints, schemas and handler. Handlers take typed
//! arguments and return typed results; this module turns them into MCP results.

// Handlers own their arguments: the table calls them with freshly parsed values.
#![allow(clippy::needless_pass_by_value)]

mod checks;
mod courses;
pub(crate) mod handson;
mod knowledge;
pub(crate) mod lessons;
mod onboarding;
mod practice;
mod reviews;
mod settings;
mod share;
mod ui;

use std::sync::Arc;

use devcoach_core::error_kind::ErrorKind;
use devcoach_core::limits;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::apps::{self, Client};
use crate::ctx::{Ctx, ToolError};

/// The annotations of a tool (all four are always set, so no client falls back to a default).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// Read-only, idempotent, closed world.
pub(crate) const READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
/// Writes without destroying, idempotent.
pub(crate) const WRITE: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: false };
/// Removes something, idempotent.
pub(crate) const REMOVE: Hints = Hints { read_only: false, destructive: true, idempotent: true, open_world: false };

/// A structured result, with an optional sentence shown before the JSON.
pub(crate) struct Out<T> {
    pub value: T,
    pub lead: Option<String>,
}

impl<T> From<T> for Out<T> {
    fn from(value: T) -> Self {
        Self { value, lead: None }
    }
}

type Handler = Box<dyn Fn(&Ctx, Value) -> CallToolResult + Send + Sync>;

pub(crate) struct ToolDef {
    pub tool: Tool,
    run: Handler,
}

pub(crate) struct Registry {
    defs: Vec<ToolDef>,
}

fn schema<T: JsonSchema>(for_output: bool) -> Arc<JsonObject> {
    let settings =
        if for_output { SchemaSettings::draft2020_12().for_serialize() } else { SchemaSettings::draft2020_12() };
    let root = settings.into_generator().into_root_schema_for::<T>();
    let mut object = match serde_json::to_value(root) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    object.remove("title");
    object.remove("description");
    for value in object.values_mut() {
        drop_private_formats(value);
    }
    object.entry("type").or_insert_with(|| Value::String("object".into()));
    if !for_output {
        object.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    }
    Arc::new(object)
}

/// The `format` values JSON Schema defines; clients validate with them.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes schemars' Rust-type formats (`uint`, `uint32`, `int64`, `double`…): Claude Code's
/// validator prints a warning for each unknown one on every `claude mcp list`. The bounds they
/// stand for stay as `minimum`.
fn drop_private_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str).is_some_and(|f| !STANDARD_FORMATS.contains(&f)) {
                map.remove("format");
            }
            map.values_mut().for_each(drop_private_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_private_formats),
        _ => {}
    }
}

fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// How a failure reads to the agent: named after the tool, with a way forward.
fn failure(name: &str, err: &ToolError) -> CallToolResult {
    error_result(match err {
        // The text is whole: it names the tool and says what to do.
        ToolError::Said { text, .. } => text.clone(),
        ToolError::Store(e) => store_failure(name, e),
        ToolError::Invalid(m) | ToolError::NotFound(m) => format!("{name} failed: {m}"),
    })
}

/// How a store error reads to the agent, by its kind: only damaged data or a machine that
/// refused sends the learner to `devcoach doctor`; anything the caller sent, or a database held
/// or owned by a newer devcoach, says so and nothing more.
pub fn store_failure(name: &str, e: &devcoach_store::StoreError) -> String {
    use devcoach_store::Kinded;
    if e.kind().needs_doctor() {
        format!(
            "{name} failed: {e}. The devcoach database could not be used; run `devcoach doctor` in a terminal to see why."
        )
    } else {
        format!("{name} failed: {e}")
    }
}

/// The result of a structured tool: its value as `structuredContent` (and as text), after the
/// lead sentence if there is one; or the failure, worded for the agent.
pub(crate) fn structured_result<O: Serialize>(name: &str, out: Result<Out<O>, ToolError>) -> CallToolResult {
    match out.and_then(|out| {
        let value = serde_json::to_value(&out.value)
            .map_err(|e| ToolError::said(ErrorKind::Io, format!("{name} failed: {e}")))?;
        Ok((value, out.lead))
    }) {
        Ok((value, lead)) => {
            let mut result = CallToolResult::structured(value);
            if let Some(lead) = lead {
                result.content.insert(0, ContentBlock::text(lead));
            }
            result
        }
        Err(e) => failure(name, &e),
    }
}

/// Reads a tool's arguments; the error is the message to return.
fn parse<P: DeserializeOwned>(name: &str, args: Value) -> Result<P, String> {
    let size = serde_json::to_vec(&args).map_or(usize::MAX, |v| v.len());
    if size > limits::MCP_ARGUMENT_BYTES {
        return Err(format!(
            "{name} failed: the arguments are {size} bytes; the limit is {limit}. Send shorter text.",
            limit = limits::MCP_ARGUMENT_BYTES
        ));
    }
    let args = if args.is_null() { Value::Object(JsonObject::new()) } else { args };
    serde_json::from_value(args).map_err(|e| {
        format!("{name} failed: invalid arguments ({e}). Check the tool's input schema and call it again.")
    })
}

impl Registry {
    pub fn new() -> Self {
        // The order of the original's table, so listings line up.
        let mut r = Self { defs: Vec::new() };
        lessons::register_log(&mut r);
        knowledge::register_update(&mut r);
        lessons::register_get(&mut r);
        lessons::register_star(&mut r);
        lessons::register_delete(&mut r);
        lessons::register_feedback(&mut r);
        lessons::register_skip(&mut r);
        knowledge::register_add_topic(&mut r);
        knowledge::register_remove_topic(&mut r);
        knowledge::register_add_group(&mut r);
        knowledge::register_remove_group(&mut r);
        settings::register(&mut r);
        ui::register_open(&mut r);
        ui::register_stop(&mut r);
        onboarding::register_complete(&mut r);
        onboarding::register_deep_scan(&mut r);
        onboarding::register_reads(&mut r);
        share::register(&mut r);
        courses::register(&mut r);
        reviews::register(&mut r);
        practice::register(&mut r);
        handson::register(&mut r);
        // Listed only to clients that render the cards: the lookup that shows one, and the
        // frame's own tools.
        lessons::register_show(&mut r);
        lessons::register_card(&mut r);
        lessons::register_card_answer(&mut r);
        reviews::register_answer(&mut r);
        reviews::register_card_grade(&mut r);
        r
    }

    fn tool(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        hints: Hints,
        input: Arc<JsonObject>,
    ) -> Tool {
        Tool::new(name, description, input).with_title(title).with_annotations(
            ToolAnnotations::with_title(title)
                .read_only(hints.read_only)
                .destructive(hints.destructive)
                .idempotent(hints.idempotent)
                .open_world(hints.open_world),
        )
    }

    /// A tool whose result is a JSON object with `structuredContent` and an `outputSchema`.
    pub fn structured<P, O>(
        &mut self,
        (name, title, hints): (&'static str, &'static str, Hints),
        description: &'static str,
        f: impl Fn(&Ctx, P) -> Result<Out<O>, ToolError> + Send + Sync + 'static,
    ) where
        P: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
    {
        let tool =
            Self::tool(name, title, description, hints, schema::<P>(false)).with_raw_output_schema(schema::<O>(true));
        let run: Handler = Box::new(move |ctx, args| {
            let params = match parse::<P>(name, args) {
                Ok(p) => p,
                Err(e) => return error_result(e),
            };
            structured_result(name, f(ctx, params))
        });
        self.defs.push(ToolDef { tool, run });
    }

    /// A tool whose result is one JSON object, sent once as text, with no `structuredContent`
    /// and no `outputSchema`. For answers that are mostly the learner's own long text (lessons):
    /// the structured form would send every byte twice, and every client reads the text when
    /// there is no structured content (Claude Code hands the model one or the other, Gemini
    /// reads the text). Gemini refuses a bare array or scalar there, so the value is an object.
    pub fn json_text<P, O>(
        &mut self,
        (name, title, hints): (&'static str, &'static str, Hints),
        description: &'static str,
        f: impl Fn(&Ctx, P) -> Result<O, ToolError> + Send + Sync + 'static,
    ) where
        P: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + 'static,
    {
        let tool = Self::tool(name, title, description, hints, schema::<P>(false));
        let run: Handler = Box::new(move |ctx, args| {
            let params = match parse::<P>(name, args) {
                Ok(p) => p,
                Err(e) => return error_result(e),
            };
            match f(ctx, params).and_then(|value| {
                serde_json::to_string(&value).map_err(|e| ToolError::said(ErrorKind::Io, format!("{name} failed: {e}")))
            }) {
                Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                Err(e) => failure(name, &e),
            }
        });
        self.defs.push(ToolDef { tool, run });
    }

    /// A tool whose result is one sentence of prose.
    pub fn prose<P>(
        &mut self,
        (name, title, hints): (&'static str, &'static str, Hints),
        description: &'static str,
        f: impl Fn(&Ctx, P) -> Result<String, ToolError> + Send + Sync + 'static,
    ) where
        P: DeserializeOwned + JsonSchema + 'static,
    {
        let tool = Self::tool(name, title, description, hints, schema::<P>(false));
        let run: Handler = Box::new(move |ctx, args| match parse::<P>(name, args).map(|p| f(ctx, p)) {
            Ok(Ok(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Ok(Err(e)) => failure(name, &e),
            Err(e) => error_result(e),
        });
        self.defs.push(ToolDef { tool, run });
    }

    /// The tools as this client sees them: with `_meta.ui` for a client that renders the cards;
    /// without the frame-only tools for any other.
    pub fn tools_for(&self, client: Client) -> Vec<Tool> {
        self.defs
            .iter()
            .filter(|d| client.apps || !apps::cards_only(&d.tool.name))
            .map(|d| if client.apps { apps::decorate(d.tool.clone()) } else { d.tool.clone() })
            .collect()
    }

    /// One tool as this client sees it (`None` for a frame-only tool to a client without apps).
    pub fn get_for(&self, name: &str, client: Client) -> Option<Tool> {
        let def = self.defs.iter().find(|d| d.tool.name == name)?;
        if !client.apps && apps::cards_only(name) {
            return None;
        }
        Some(if client.apps { apps::decorate(def.tool.clone()) } else { def.tool.clone() })
    }

    /// Runs a tool; `None` when there is no tool by that name.
    pub fn call(&self, ctx: &Ctx, name: &str, args: Value) -> Option<CallToolResult> {
        let def = self.defs.iter().find(|d| d.tool.name == name)?;
        // A handler must never take the server down; a panic becomes an error result.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (def.run)(ctx, args)));
        Some(outcome.unwrap_or_else(|_| {
            error_result(format!(
                "{name} failed: an internal error occurred. Please report it; the server is still running."
            ))
        }))
    }
}

/// Every tool a client sees, in registration order (for tests and packaging manifests): the
/// frame-only tools of the cards are not among them.
pub fn tool_names() -> Vec<String> {
    Registry::new().tools_for(Client::default()).iter().map(|t| t.name.to_string()).collect()
}

/// Every registered tool, the frame-only ones included.
#[cfg(test)]
pub(crate) fn all_tool_names() -> Vec<String> {
    Registry::new().defs.iter().map(|d| d.tool.name.to_string()).collect()
}

/// Every tool's name, title and description, in registration order (packaging manifests list
/// them; a test keeps those lists equal to this).
pub fn tool_summaries() -> Vec<(String, String, String)> {
    Registry::new()
        .tools_for(Client::default())
        .iter()
        .map(|t| {
            let title = t.title.clone().unwrap_or_default();
            let description = t.description.as_deref().unwrap_or_default().to_owned();
            (t.name.to_string(), title, description)
        })
        .collect()
}

/// Limits on text an agent sends, so a runaway argument cannot bloat the database.
pub(crate) fn check_len(field: &str, value: &str, max_chars: usize) -> Result<(), ToolError> {
    let n = value.chars().count();
    if n > max_chars {
        return Err(ToolError::Invalid(format!(
            "`{field}` is {n} characters; the limit is {max_chars}. Shorten it and call again."
        )));
    }
    Ok(())
}

/// An empty argument object, for tools without inputs.
#[derive(Debug, serde::Deserialize, JsonSchema)]
pub(crate) struct NoArgs {}

#[cfg(test)]
mod tests {
    use super::*;

    fn formats(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(f)) = map.get("format") {
                    found.push(f.clone());
                }
                map.values().for_each(|v| formats(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
            _ => {}
        }
    }

    #[test]
    fn schemas_use_only_formats_json_schema_defines() {
        let mut found = Vec::new();
        for tool in Registry::new().tools_for(Client { apps: true, form: true }) {
            formats(&Value::Object((*tool.input_schema).clone()), &mut found);
            if let Some(output) = &tool.output_schema {
                formats(&Value::Object((**output).clone()), &mut found);
            }
        }
        let private: Vec<&String> = found.iter().filter(|f| !STANDARD_FORMATS.contains(&f.as_str())).collect();
        assert!(private.is_empty(), "{private:?}");
    }

    /// Names every variant: a new one fails to build here until the test below holds it.
    fn variant(e: &ToolError) -> &'static str {
        match e {
            ToolError::Invalid(_) => "Invalid",
            ToolError::NotFound(_) => "NotFound",
            ToolError::Said { .. } => "Said",
            ToolError::Store(_) => "Store",
        }
    }

    fn text_of(result: &CallToolResult) -> String {
        serde_json::to_value(&result.content).expect("content")[0]["text"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn every_tool_error_has_a_kind_and_only_a_broken_machine_points_at_doctor() {
        use devcoach_core::error_kind::Kinded;
        use devcoach_store::StoreError;
        let pasted = devcoach_net::import::resolve("not a lesson", &devcoach_net::FetchPolicy::default())
            .expect_err("not a lesson");
        let all = [
            (ToolError::Invalid("the title is empty".into()), ErrorKind::InvalidInput),
            (ToolError::NotFound("lesson 'x' not found".into()), ErrorKind::NotFound),
            (ToolError::said(pasted.kind(), format!("import_lesson: {pasted}")), ErrorKind::InvalidInput),
            (ToolError::said(ErrorKind::Io, "the database could not be opened"), ErrorKind::Io),
            (ToolError::Store(StoreError::Changed), ErrorKind::Conflict),
            (ToolError::Store(StoreError::DiskFull), ErrorKind::Io),
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(|(e, _)| variant(e)).collect();
        assert_eq!(names.len(), 4, "every variant has a sample");
        for (e, kind) in all {
            assert_eq!(e.kind(), kind, "{e}");
            let result = failure("a_tool", &e);
            assert_eq!(result.is_error, Some(true));
            let text = text_of(&result);
            let doctor = text.contains("devcoach doctor");
            assert_eq!(doctor, matches!(e, ToolError::Store(_)) && kind.needs_doctor(), "{text}");
        }
    }

    #[test]
    fn dropping_a_private_format_keeps_the_bound_and_standard_formats() {
        let mut schema = serde_json::json!({
            "properties": {
                "n": { "type": "integer", "format": "uint32", "minimum": 0 },
                "at": { "type": "string", "format": "date-time" },
                "format": { "type": "string" }
            }
        });
        drop_private_formats(&mut schema);
        assert_eq!(schema["properties"]["n"], serde_json::json!({ "type": "integer", "minimum": 0 }));
        assert_eq!(schema["properties"]["at"]["format"], "date-time");
        assert_eq!(schema["properties"]["format"], serde_json::json!({ "type": "string" }));
    }
}

/// The answer to a lesson id no lesson has (every tool that takes one).
pub(crate) fn not_found(id: &str) -> ToolError {
    ToolError::NotFound(format!("lesson '{id}' not found — call get_lessons to pick one"))
}

/// A review card written by the agent, checked (every tool that takes one).
pub(crate) fn card_text(question: &str, answer: &str) -> Result<devcoach_core::review::CardText, ToolError> {
    devcoach_core::review::CardText::new(question, answer)
        .map_err(|e| ToolError::Invalid(format!("{e}. Rewrite the card and call again.")))
}

#[cfg(test)]
pub(crate) mod schema_lists {
    /// The string values a JSON schema lets through (`enum` lists and `const`s, anywhere in it).
    pub fn values<T: schemars::JsonSchema>() -> Vec<String> {
        fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(map) => {
                    for (k, child) in map {
                        match (k.as_str(), child) {
                            ("enum", serde_json::Value::Array(items)) => {
                                out.extend(items.iter().filter_map(|i| i.as_str().map(str::to_owned)));
                            }
                            ("const", serde_json::Value::String(s)) => out.push(s.clone()),
                            _ => walk(child, out),
                        }
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(schemars::schema_for!(T).as_value(), &mut out);
        out
    }
}
