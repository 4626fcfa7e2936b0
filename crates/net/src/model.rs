//! Model backends' HTTP: one JSON POST to a chat endpoint the user chose (Ollama on this machine
//! by default, or an OpenAI-compatible server such as llama.cpp, LM Studio or vLLM). Unlike
//! `fetch`, loopback is the expected target here: the address comes from the user's settings,
//! never from a message.

use std::time::Duration;

use devcoach_core::limits;
use serde_json::Value;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ModelHttpError {
    #[error("nothing answers at {0}: is the model server running?")]
    Unreachable(String),
    #[error("the model server did not answer within {0} s")]
    Timeout(u64),
    #[error("the model server answered HTTP {0}: {1}")]
    Status(u16, String),
    #[error("the model server's reply is not the JSON expected: {0}")]
    BadReply(String),
}

/// POSTs `body` as JSON to `url` and returns the JSON reply.
pub fn post_json(url: &str, body: &Value, timeout: Duration, bearer: Option<&str>) -> Result<Value, ModelHttpError> {
    let mut request = crate::plain_agent(timeout).post(url).header("content-type", "application/json");
    if let Some(key) = bearer {
        request = request.header("authorization", &format!("Bearer {key}"));
    }
    let text = serde_json::to_string(body).map_err(|e| ModelHttpError::BadReply(e.to_string()))?;
    let response = request.send(text.as_bytes()).map_err(|e| match e {
        ureq::Error::Timeout(_) => ModelHttpError::Timeout(timeout.as_secs()),
        other => ModelHttpError::Unreachable(format!("{url} ({other})")),
    })?;
    read_json(response)
}

/// GETs `url` and returns the JSON reply (a model server's list of models, before a session).
pub fn get_json(url: &str, timeout: Duration, bearer: Option<&str>) -> Result<Value, ModelHttpError> {
    let mut request = crate::plain_agent(timeout).get(url);
    if let Some(key) = bearer {
        request = request.header("authorization", &format!("Bearer {key}"));
    }
    let response = request.call().map_err(|e| match e {
        ureq::Error::Timeout(_) => ModelHttpError::Timeout(timeout.as_secs()),
        other => ModelHttpError::Unreachable(format!("{url} ({other})")),
    })?;
    read_json(response)
}

fn read_json(mut response: ureq::http::Response<ureq::Body>) -> Result<Value, ModelHttpError> {
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(limits::MODEL_REPLY_BYTES)
        .read_to_vec()
        .map_err(|e| ModelHttpError::BadReply(e.to_string()))?;
    if !(200..300).contains(&status) {
        let snippet: String = String::from_utf8_lossy(&bytes).chars().take(300).collect();
        return Err(ModelHttpError::Status(status, snippet));
    }
    serde_json::from_slice(&bytes).map_err(|e| ModelHttpError::BadReply(e.to_string()))
}
