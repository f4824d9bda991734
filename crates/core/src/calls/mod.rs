//! Model calls: structured calls and revisions (here), host-owned turns
//! (`turns.rs`), one prompt and one answer ([`crate::ask`]), and a
//! session's history as a model reads it (`history.rs`, [`compaction`],
//! `convert.rs`). Chat and extraction run their calls through these.
//!
//! Structured calls as the API surface runs them: on the chosen models,
//! standalone or as a turn of a session, recorded in the store only once
//! they have finished (completed or finally failed), and revisable.

pub(crate) mod ask;
pub mod compaction;
pub(crate) mod convert;
pub(crate) mod history;
pub(crate) mod turns;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use sift_documents::{Documents, ReadOptions, attach, read_documents};
use sift_engine::{
    CallOutcome, CallStatus, ContextSettings, Engine, OutputSchema, StructuredCallSpec,
    initial_transcript, run_structured_call,
};
use sift_llm::{Message, Role};
use sift_store::{
    CallStatus as StoredStatus, NewMessage, NewStructuredCall, PendingGuard, Store, StructuredCall,
    TurnWrite,
};

use crate::calls::convert::{to_new_message, transcript_from_value, transcript_value};
use crate::calls::history::model_history;
use crate::error::CoreError;
use crate::models::ModelSelection;

/// The kind [`CallRequest::new`] gives a call.
pub const DEFAULT_KIND: &str = "call";
/// The turn limit [`CallRequest::new`] gives a call: how many model requests
/// it may send before it ends turn-limited.
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// A structured call to run: what to ask, on which models, and how its
/// answer must look.
#[derive(Debug, Clone)]
pub struct CallRequest {
    /// The provider and the models to try, in order, until one completes.
    pub selection: ModelSelection,
    /// What the call is for (e.g. `"call"`, `"compaction"`); recorded on its row.
    pub kind: String,
    /// The call's system prompt; `None` sends none of its own (in a session,
    /// the session's prompt still applies).
    pub system: Option<String>,
    /// The answer's JSON Schema; without one the answer is JSON text.
    pub schema: Option<Value>,
    /// The user's prompt, sent after the text of `files`.
    pub prompt: String,
    /// Files the model reads with the prompt, in order: their text goes
    /// ahead of it, their images with it (see `sift_documents`).
    pub files: Vec<PathBuf>,
    /// The most model requests the call may send before it ends turn-limited;
    /// 0 counts as 1.
    pub max_turns: u32,
    /// Run as a turn of this session.
    pub session: Option<String>,
    /// How many tool results and images go whole into each request.
    pub context: ContextSettings,
    /// How `files` are read: PDFium, OCR, and whether the model takes
    /// images (an extraction job sets these from the model's
    /// capabilities).
    pub read_options: ReadOptions,
}

impl CallRequest {
    /// A standalone request for `prompt` on `selection`, with no system prompt,
    /// schema or files, the default kind and turn limit, and default settings.
    pub fn new(selection: ModelSelection, prompt: impl Into<String>) -> Self {
        Self {
            selection,
            kind: DEFAULT_KIND.to_owned(),
            system: None,
            schema: None,
            prompt: prompt.into(),
            files: Vec::new(),
            max_turns: DEFAULT_MAX_TURNS,
            session: None,
            context: ContextSettings::default(),
            read_options: ReadOptions::default(),
        }
    }
}

fn spec_for(
    kind: &str,
    system: Option<&str>,
    schema: Option<&Value>,
    max_turns: u32,
) -> Result<StructuredCallSpec, CoreError> {
    let mut spec = StructuredCallSpec::new(kind, system.unwrap_or_default());
    spec.max_turns = max_turns.max(1);
    if let Some(schema) = schema {
        spec.response_schema = Some(Arc::new(OutputSchema::new(schema.clone())?));
    }
    Ok(spec)
}

/// The prompt with its files: each read once, in order, before any
/// request; a refused file fails the call before it starts.
async fn user_message(
    files: &[PathBuf],
    prompt: &str,
    options: &ReadOptions,
) -> Result<Message, CoreError> {
    Ok(user_message_read(files, prompt, options).await?.0)
}

/// [`user_message`], with the documents as read.
async fn user_message_read(
    files: &[PathBuf],
    prompt: &str,
    options: &ReadOptions,
) -> Result<(Message, Documents), CoreError> {
    let documents = read_files(files, options).await?;
    Ok((message_with(prompt, &documents)?, documents))
}

/// Reads `files` as a call's model would receive them, off the async
/// threads (reading PDFs, scaling images and OCR are CPU work); a refused
/// file is an error naming it.
pub(crate) async fn read_files(
    files: &[PathBuf],
    options: &ReadOptions,
) -> Result<Documents, CoreError> {
    if files.is_empty() {
        return Ok(Documents::default());
    }
    let (files, options) = (files.to_vec(), options.clone());
    Ok(
        tokio::task::spawn_blocking(move || read_documents(&files, &options))
            .await
            .map_err(|e| CoreError::Usage(format!("reading the files stopped: {e}")))??,
    )
}

/// The prompt as a user message with the documents attached.
fn message_with(prompt: &str, documents: &Documents) -> Result<Message, CoreError> {
    let mut messages = vec![Message::user(prompt)];
    if !documents.files.is_empty() {
        attach(&mut messages, documents)?;
    }
    Ok(messages.remove(0))
}

/// Adds where the call is served (the provider kind and the server's
/// host: nothing that can hold a key) to its recorded request, for the
/// Usage view and its prices.
fn with_served(recorded: &mut Value, selection: &ModelSelection) {
    let provider = selection
        .provider
        .clone()
        .with_env_defaults()
        .unwrap_or_else(|_| selection.provider.clone());
    recorded["provider"] = json!(provider.choice());
    recorded["host"] = json!(sift_llm::server_host(&provider.effective_base_url()));
}

/// Runs a structured call and records it.
pub async fn run_call(store: &Store, request: &CallRequest) -> Result<StructuredCall, CoreError> {
    Ok(run_call_read(store, request).await?.0)
}

/// [`run_call`], with the documents as the model read them: an
/// extraction looks for its values in them.
pub(crate) async fn run_call_read(
    store: &Store,
    request: &CallRequest,
) -> Result<(StructuredCall, Documents), CoreError> {
    // The spec first: a schema the engine refuses fails before any file
    // is read.
    spec_for(
        &request.kind,
        request.system.as_deref(),
        request.schema.as_ref(),
        request.max_turns,
    )?;
    let documents = read_files(&request.files, &request.read_options).await?;
    let call = run_call_on_documents(store, request, &documents).await?;
    Ok((call, documents))
}

/// [`run_call`] on documents already read with the request's options
/// (an extraction locates fields in them first); `request.files` is not
/// read again.
pub(crate) async fn run_call_on_documents(
    store: &Store,
    request: &CallRequest,
    documents: &Documents,
) -> Result<StructuredCall, CoreError> {
    let spec = spec_for(
        &request.kind,
        request.system.as_deref(),
        request.schema.as_ref(),
        request.max_turns,
    )?;
    let mut recorded = json!({
        "prompt": request.prompt,
        "schema": request.schema,
        "max_turns": spec.max_turns,
    });
    with_served(&mut recorded, &request.selection);
    let user = message_with(&request.prompt, documents)?;
    run_with_message(store, request, &spec, user, recorded).await
}

async fn run_with_message(
    store: &Store,
    request: &CallRequest,
    spec: &StructuredCallSpec,
    user: Message,
    recorded: Value,
) -> Result<StructuredCall, CoreError> {
    match &request.session {
        None => {
            let transcript = initial_transcript(spec, user).await;
            standalone(
                store,
                &request.selection,
                &request.context,
                spec,
                transcript,
                recorded,
                None,
            )
            .await
        }
        Some(session) => in_session(store, request, spec, session, user, recorded, None).await,
    }
}

/// Revises a call with a correction: a standalone call replays its
/// transcript plus the correction on the same engine type; a call in a
/// session adds another structured turn there. Either way the new call's
/// parent is `id`.
pub async fn revise_call(
    store: &Store,
    id: &str,
    correction: &str,
    selection: &ModelSelection,
    context: &ContextSettings,
) -> Result<StructuredCall, CoreError> {
    let parent = store
        .get_call(id)?
        .ok_or_else(|| CoreError::NotFound(format!("no call {id}")))?;
    let schema = parent
        .request
        .get("schema")
        .filter(|s| !s.is_null())
        .cloned();
    let max_turns = parent
        .request
        .get("max_turns")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_MAX_TURNS, |n| n as u32);
    let spec = spec_for(
        &parent.kind,
        parent.system_prompt.as_deref(),
        schema.as_ref(),
        max_turns,
    )?;
    let mut recorded = json!({"prompt": correction, "schema": schema, "max_turns": spec.max_turns, "revises": parent.id});
    with_served(&mut recorded, selection);
    if let Some(session) = &parent.session_id {
        let request = CallRequest {
            selection: selection.clone(),
            kind: parent.kind.clone(),
            system: parent.system_prompt.clone(),
            schema,
            prompt: correction.to_owned(),
            files: Vec::new(),
            max_turns: spec.max_turns,
            session: Some(session.clone()),
            context: context.clone(),
            read_options: ReadOptions::default(),
        };
        let user = Message::user(correction);
        return in_session(
            store,
            &request,
            &spec,
            session,
            user,
            recorded,
            Some(parent.id.clone()),
        )
        .await;
    }
    let mut transcript = match &parent.transcript {
        Some(value) => transcript_from_value(value)?,
        None => {
            return Err(CoreError::Usage(format!(
                "call {id} has no transcript to replay"
            )));
        }
    };
    transcript.push(Message::user(correction));
    standalone(
        store,
        selection,
        context,
        &spec,
        transcript,
        recorded,
        Some(parent),
    )
    .await
}

async fn standalone(
    store: &Store,
    selection: &ModelSelection,
    context: &ContextSettings,
    spec: &StructuredCallSpec,
    transcript: Vec<Message>,
    recorded: Value,
    parent: Option<StructuredCall>,
) -> Result<StructuredCall, CoreError> {
    let row = standalone_row(
        selection,
        context,
        spec,
        transcript,
        recorded,
        parent.as_ref(),
    )
    .await?;
    Ok(store.insert_standalone_call(row)?)
}

/// Runs a standalone call and returns its row without recording it: for
/// calls that a caller records its own way (compaction records its row in
/// the session it summarises).
pub async fn run_call_unrecorded(request: &CallRequest) -> Result<NewStructuredCall, CoreError> {
    let spec = spec_for(
        &request.kind,
        request.system.as_deref(),
        request.schema.as_ref(),
        request.max_turns,
    )?;
    let mut recorded =
        json!({"prompt": request.prompt, "schema": request.schema, "max_turns": spec.max_turns});
    with_served(&mut recorded, &request.selection);
    let transcript = initial_transcript(
        &spec,
        user_message(&request.files, &request.prompt, &request.read_options).await?,
    )
    .await;
    standalone_row(
        &request.selection,
        &request.context,
        &spec,
        transcript,
        recorded,
        None,
    )
    .await
}

async fn standalone_row(
    selection: &ModelSelection,
    context: &ContextSettings,
    spec: &StructuredCallSpec,
    transcript: Vec<Message>,
    recorded: Value,
    parent: Option<&StructuredCall>,
) -> Result<NewStructuredCall, CoreError> {
    let engines = selection.engines(context).await?;
    if let Some(parent) = parent {
        same_engine_type(parent, &engines.engines)?;
    }
    // The row's span is the model's work: its latency is finished − created.
    let started = sift_store::now_ms();
    let ran = run_on_engines(&engines.engines, spec, transcript).await;
    engines.release().await;
    let (engine, outcome) = ran?;
    let mut row = row_for(spec, &engine, &outcome, recorded);
    row.created_at = Some(started);
    row.parent_id = parent.map(|p| p.id.clone());
    row.transcript = Some(transcript_value(&outcome.transcript));
    Ok(row)
}

async fn in_session(
    store: &Store,
    request: &CallRequest,
    spec: &StructuredCallSpec,
    session_id: &str,
    user: Message,
    recorded: Value,
    parent_id: Option<String>,
) -> Result<StructuredCall, CoreError> {
    let session = store
        .get_session(session_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no session {session_id}")))?;
    if let Some(pending) = store.pending_turn(session_id)? {
        return Err(CoreError::ToolResultsRequired {
            ids: pending.pending_ids(),
        });
    }
    // The spec's system prompt joins the session's for this turn only.
    let system: Vec<&str> = [
        session.system_prompt.as_deref(),
        Some(spec.system_prompt.as_str()),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.trim().is_empty())
    .collect();
    let mut transcript = Vec::new();
    if !system.is_empty() {
        transcript.push(Message::system(system.join("\n\n")));
    }
    // The session's own system messages are replaced by the combined prompt.
    transcript.extend(
        model_history(store, session_id)?
            .into_iter()
            .filter(|m| m.role != Role::System),
    );
    let history_len = transcript.len();
    transcript.push(user);
    let engines = request.selection.engines(&request.context).await?;
    let started = sift_store::now_ms();
    let ran = run_on_engines(&engines.engines, spec, transcript).await;
    engines.release().await;
    let (engine, outcome) = ran?;

    let mut messages: Vec<NewMessage> = outcome.transcript[history_len..]
        .iter()
        .map(to_new_message)
        .collect();
    if let Some(output) = &outcome.output {
        // Chat views and history tools see the answer as text; the copy is
        // hidden from the model, so its history does not teach it to
        // answer in plain text.
        messages
            .push(NewMessage::text(sift_store::Role::Assistant, canonical_json(output)).hidden());
    }
    let mut row = row_for(spec, &engine, &outcome, recorded);
    row.created_at = Some(started);
    row.parent_id = parent_id;
    let mut write = TurnWrite::new(session_id);
    write.guard = PendingGuard::Absent;
    write.messages = messages;
    write.call = Some(row);
    let commit = store.commit_turn(write)?;
    commit
        .call
        .ok_or_else(|| CoreError::Usage("the call was not recorded".to_owned()))
}

fn same_engine_type(parent: &StructuredCall, engines: &[Engine]) -> Result<(), CoreError> {
    let Some(wanted) = parent.engine_type.as_deref() else {
        return Ok(());
    };
    match engines.first() {
        Some(engine) if engine.engine_type != wanted => Err(CoreError::Usage(format!(
            "call {} ran on an {wanted} engine; revise it with an {wanted} provider",
            parent.id
        ))),
        _ => Ok(()),
    }
}

/// Tries each model in turn until one completes; the last outcome stands.
async fn run_on_engines(
    engines: &[Engine],
    spec: &StructuredCallSpec,
    transcript: Vec<Message>,
) -> Result<(Engine, CallOutcome), CoreError> {
    let mut last = None;
    for engine in engines {
        let outcome = run_structured_call(engine, spec, transcript.clone()).await;
        let done = outcome.status == CallStatus::Completed;
        last = Some((engine.clone(), outcome));
        if done {
            break;
        }
    }
    last.ok_or_else(|| CoreError::Usage("no model to run the call on".to_owned()))
}

fn row_for(
    spec: &StructuredCallSpec,
    engine: &Engine,
    outcome: &CallOutcome,
    request: Value,
) -> NewStructuredCall {
    let status = match outcome.status {
        CallStatus::Completed => StoredStatus::Completed,
        CallStatus::Failed => StoredStatus::Failed,
        CallStatus::TurnLimited => StoredStatus::TurnLimited,
    };
    let mut request = request;
    request["model"] = json!(engine.model);
    let mut row = NewStructuredCall::new(spec.kind.clone(), status, request);
    row.response = outcome
        .transcript
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .and_then(|m| serde_json::to_value(m).ok());
    row.output = outcome.output.clone();
    row.input_tokens = outcome.usage.input_tokens;
    row.output_tokens = outcome.usage.output_tokens;
    row.error = outcome.error.clone();
    row.error_category = outcome.error_category.map(|c| c.as_str().to_owned());
    row.metadata = Value::Object(outcome.metadata.clone());
    row.system_prompt = (!spec.system_prompt.is_empty()).then(|| spec.system_prompt.clone());
    row.engine_type = Some(engine.engine_type.clone());
    row
}

pub use sift_llm::canonical_json;

/// The summary of a call that `sift call --json` and `sift calls list` print.
pub fn call_summary(call: &StructuredCall) -> Value {
    json!({
        "id": call.id,
        "kind": call.kind,
        "status": call.status,
        "output": call.output,
        "error": call.error,
        "error_category": call.error_category,
        "tokens": {"input": call.input_tokens, "output": call.output_tokens},
        "parent": call.parent_id,
        "session": call.session_id,
        "metadata": call.metadata,
    })
}
