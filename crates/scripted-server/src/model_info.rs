//! The routes where real servers describe their models, answered as one
//! of them does: llama.cpp's `GET /props`, Ollama's `POST /api/show`, LM
//! Studio's `GET /api/v0/models`. A server answers only its own route;
//! the others get 404, as they would from the real one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Which real server the scripted one describes its models as. By default
/// none: every one of those routes answers 404, like llama-cpp-python's
/// server or a cloud API.
///
/// As JSON (in a [`crate::Script`]): `{"server": {"kind": "ollama",
/// "capabilities": {"llava": ["completion", "vision"]}}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ServerIdentity {
    #[default]
    Plain,
    /// llama.cpp's `llama-server`, which serves one model.
    LlamaCpp {
        vision: bool,
        /// `chat_template_caps.supports_tools`; absent, as in older builds,
        /// when `None`.
        #[serde(default)]
        supports_tools: Option<bool>,
        #[serde(default = "default_n_ctx")]
        n_ctx: u64,
        #[serde(default = "one")]
        total_slots: u64,
    },
    /// Ollama: each model's `capabilities`; another model is not found.
    Ollama {
        capabilities: BTreeMap<String, Vec<String>>,
    },
    /// LM Studio: its model list.
    LmStudio { models: Vec<LmStudioModel> },
}

fn default_n_ctx() -> u64 {
    4096
}

fn one() -> u64 {
    1
}

/// One entry of LM Studio's `/api/v0/models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LmStudioModel {
    pub id: String,
    /// `llm`, `vlm` or `embeddings`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Listed by newer versions (`["tool_use"]`); left out when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
}

/// Whether `method path` is one of the routes this module answers.
pub(crate) fn is_model_info_route(method: &str, path: &str) -> bool {
    matches!(
        (method, path),
        ("GET", "/props") | ("POST", "/api/show") | ("GET", "/api/v0/models")
    )
}

/// The status and JSON body for one of those routes.
pub(crate) fn answer(
    identity: &ServerIdentity,
    method: &str,
    path: &str,
    body: &Value,
) -> (u16, Value) {
    match (identity, method, path) {
        (
            ServerIdentity::LlamaCpp {
                vision,
                supports_tools,
                n_ctx,
                total_slots,
            },
            "GET",
            "/props",
        ) => {
            let mut props = json!({
                "default_generation_settings": {"id": 0, "n_ctx": n_ctx, "is_processing": false, "params": {}},
                "total_slots": total_slots,
                "model_path": "scripted.gguf",
                "chat_template": "",
                "modalities": {"vision": vision, "audio": false},
                "build_info": "scripted",
            });
            if let Some(tools) = supports_tools {
                props["chat_template_caps"] =
                    json!({"supports_tools": tools, "supports_tool_calls": tools});
            }
            (200, props)
        }
        (ServerIdentity::Ollama { capabilities }, "POST", "/api/show") => {
            let name = body
                .get("model")
                .or_else(|| body.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            match capabilities.get(name) {
                Some(caps) => (
                    200,
                    json!({
                        "modelfile": "",
                        "parameters": "",
                        "template": "",
                        "details": {"format": "gguf", "family": "scripted"},
                        "model_info": {},
                        "capabilities": caps,
                    }),
                ),
                None => (404, json!({"error": format!("model '{name}' not found")})),
            }
        }
        (ServerIdentity::LmStudio { models }, "GET", "/api/v0/models") => {
            let data: Vec<Value> = models
                .iter()
                .map(|m| {
                    let mut entry = json!({
                        "id": m.id,
                        "object": "model",
                        "type": m.kind,
                        "publisher": "scripted",
                        "arch": "scripted",
                        "compatibility_type": "gguf",
                        "quantization": "Q4_K_M",
                        "state": "loaded",
                        "max_context_length": 4096,
                    });
                    if let Some(caps) = &m.capabilities {
                        entry["capabilities"] = json!(caps);
                    }
                    entry
                })
                .collect();
            (200, json!({"object": "list", "data": data}))
        }
        _ => (
            404,
            json!({"error": {"message": format!("no route for {method} {path}")}}),
        ),
    }
}
