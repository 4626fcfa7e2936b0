//! The MCP server: protocol plumbing over the tool table, the resources and the prompt.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::apps::{self, Client};
use crate::ctx::{Ctx, ServerOptions, Shared};
use crate::tools::Registry;
use crate::{elicit, prompt, resources, transport};

const INSTRUCTIONS: &str = "devcoach turns finished technical work into short lessons sized to what the learner knows. \
Follow the devcoach_instructions prompt (or the installed devcoach skill) for the coaching flow. Read state through the \
get_briefing, get_onboarding and get_profile tools; the devcoach:// resources expose the same data. share_lesson hands a \
lesson to someone else (text, link or file); import_lesson stores one the learner received.";

/// Called once the client has introduced itself: (name, version).
pub type ClientHook = Arc<dyn Fn(&str, &str) + Send + Sync>;

#[derive(Clone)]
pub struct DevcoachServer {
    shared: Arc<Shared>,
    tools: Arc<Registry>,
    on_client: Option<ClientHook>,
}

impl DevcoachServer {
    pub fn new(opts: ServerOptions, on_client: Option<ClientHook>) -> Self {
        Self { shared: Arc::new(Shared::new(opts)), tools: Arc::new(Registry::new()), on_client }
    }

    /// Runs one tool outside the protocol, as a `tools/call` would (fuzzing, benchmarks): the
    /// result as JSON, or `None` when no tool has that name.
    pub fn run_tool(&self, name: &str, arguments: serde_json::Value) -> Option<serde_json::Value> {
        let result = self.tools.call(&Ctx::new(&self.shared, Client::default()), name, arguments)?;
        Some(serde_json::to_value(result).unwrap_or_default())
    }
}

/// Serves MCP on stdin/stdout until the client goes away.
pub async fn serve_stdio(
    opts: ServerOptions,
    on_client: Option<ClientHook>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (server_side, proxy_side) = tokio::io::duplex(256 * 1024);
    let (server_read, server_write) = tokio::io::split(server_side);
    let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
    // On Linux, pipes are driven by the reactor (no blocking-thread hand-off per message).
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    let out = Arc::new(tokio::sync::Mutex::new(stdout));
    let input = tokio::spawn(transport::pump_input(stdin, proxy_write, Arc::clone(&out)));
    let output = tokio::spawn(transport::pump_output(proxy_read, out));
    let service = DevcoachServer::new(opts, on_client).serve((server_read, server_write)).await?;
    service.waiting().await?;
    input.abort();
    let _ = output.await;
    Ok(())
}

impl DevcoachServer {
    /// What one request sees: the shared state and what its client declared at `initialize`.
    fn ctx(&self, context: &RequestContext<RoleServer>) -> Ctx {
        Ctx::new(&self.shared, Client::of(context.peer.peer_info().as_deref()))
    }
}

impl ServerHandler for DevcoachServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build();
        // The cards: offered to every client; used only with one that declares the extension too.
        let mut ui = rmcp::model::JsonObject::new();
        ui.insert("mimeTypes".into(), serde_json::json!([apps::MIME]));
        capabilities.extensions = Some([(apps::EXTENSION.to_owned(), ui)].into_iter().collect());
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("devcoach", self.shared.opts.version.clone()))
            .with_instructions(INSTRUCTIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(hook) = &self.on_client {
            match context.peer.peer_info() {
                Some(info) => hook(&info.client_info.name, &info.client_info.version),
                None => hook("unknown", ""),
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.tools_for(self.ctx(&context).client)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        // Asked without the request (rmcp checks a result against the tool's output schema): the
        // tool as every client may call it; `_meta` plays no part there.
        self.tools.get_for(name, Client { apps: true, form: false })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let ctx = self.ctx(&context);
        let args = request.arguments.map_or(serde_json::Value::Null, serde_json::Value::Object);
        if let Some(lesson_id) = elicit::lesson_of(&request.name, &args)
            && let Some(result) = elicit::ask(&ctx, &context, &lesson_id).await
        {
            return Ok(result.into());
        }
        // A cards-only tool does not exist for a client that shows no cards.
        let known = ctx.client.apps || !apps::cards_only(&request.name);
        match known.then(|| self.tools.call(&ctx, &request.name, args)).flatten() {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Unknown tool '{}' — call tools/list to see devcoach's tools", request.name),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut list = resources::list();
        if self.ctx(&context).client.apps {
            list.extend(apps::resources());
        }
        Ok(ListResourcesResult::with_all_items(list))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let ctx = self.ctx(&context);
        match apps::read(&request.uri).or_else(|| resources::read(&ctx, &request.uri)) {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => Err(ErrorData::resource_not_found(format!("No devcoach resource at '{}'", request.uri), None)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                prompt::NAME,
                Some("The full devcoach coaching instructions: the skill and its references."),
                None,
            )
            .with_title(prompt::TITLE),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != prompt::NAME {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt '{}' — the only prompt is {}", request.name, prompt::NAME),
                None,
            ));
        }
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, prompt::text())])
            .with_description(prompt::TITLE)
            .into())
    }
}
