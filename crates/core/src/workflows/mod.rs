//! Workflows: here, a workflow file validated and run; [`files`] the
//! Workflows screen's folder (its files, atomic saves, the watch);
//! [`runs`] runs started from the window, with live events and stored views;
//! `consent.rs` a folder's shell commands, shown and allowed before the
//! window first runs them.
//!
//! Workflow files: validate, run (each step stored as it ends), re-run
//! from a step reusing the stored outputs of the steps before it, and the
//! JSON form `sift run --json` prints.

pub mod consent;
pub mod files;
pub mod runs;

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_documents::ReadOptions;
use sift_llm::Client;
use sift_store::{NewWorkflowRun, Store, StoredStep};
use sift_workflow::{
    EventSink, FileGate, ModelConnector, ModelEndpoint, RunError, RunEvent, RunOptions, RunRecord,
    Runtime, StepRecord, StepStatus, Workflow,
};
use tokio_util::sync::CancellationToken;

use crate::config::{ProviderEntry, key_addresses};
use crate::error::CoreError;
use crate::models::capabilities;
use crate::models::local::{LocalServerHandle, ensure_local_server};
use crate::models::provider::{ProviderKind, ProviderSettings};

/// Reads and validates a workflow file: the workflow, or its problems
/// ([`CoreError::InvalidWorkflow`]).
pub fn load_file(path: &Path) -> Result<(String, Workflow), CoreError> {
    let text = std::fs::read_to_string(path).map_err(|e| CoreError::io("read", path, e))?;
    let workflow = sift_workflow::load(&text).map_err(CoreError::InvalidWorkflow)?;
    Ok((text, workflow))
}

/// A run the workflow refused to start. A step that is not there is the
/// caller's mistake (`--from`, or the window's re-run); a cycle or a
/// missing DAG in a file that validated is Sift's.
fn run_refused(error: RunError) -> CoreError {
    match error {
        // The file's own DAGs nest too deep: the author's to change.
        RunError::NoSuchStep(_) | RunError::TooDeep { .. } => CoreError::Usage(error.to_string()),
        RunError::Cycle(_) | RunError::NoSuchDag(_) => CoreError::Internal(error.to_string()),
    }
}

/// Connects steps to their models the way the rest of Sift does: the
/// keychain for keys, and Sift's local server, started on demand, for
/// `provider: local` without a `base_url`.
#[derive(Debug, Default)]
pub struct SiftConnector {
    local: tokio::sync::Mutex<Option<LocalServerHandle>>,
    /// The saved providers: a step's stored key goes only to its
    /// provider's saved address ([`crate::models::provider::KeyScope`]).
    providers: Vec<ProviderEntry>,
}

impl SiftConnector {
    /// A connector whose steps' stored keys are bound to `providers`'
    /// addresses.
    pub fn new(providers: Vec<ProviderEntry>) -> Self {
        Self {
            local: Default::default(),
            providers,
        }
    }

    /// Stops the local server if this connector started it.
    pub async fn release(&self) {
        if let Some(local) = self.local.lock().await.take() {
            local.release().await;
        }
    }

    /// A step names a kind, not a saved provider: its unnamed key is the
    /// kind's account's, bound to that provider's saved address, since the
    /// step's `base_url` is the workflow author's, not the user's.
    fn settings(
        &self,
        endpoint: &ModelEndpoint,
    ) -> Result<(ProviderKind, ProviderSettings), CoreError> {
        let provider: ProviderKind = endpoint.provider.parse()?;
        let settings = ProviderSettings {
            provider: Some(provider),
            base_url: endpoint.base_url.clone(),
            extra_base_urls: Vec::new(),
            api_key_env: endpoint.api_key_name.clone(),
            api_key_account: None,
            key_scope: key_addresses(&self.providers, provider.as_str(), provider),
        };
        Ok((provider, settings))
    }

    async fn client(&self, endpoint: &ModelEndpoint) -> Result<Client, CoreError> {
        let (provider, settings) = self.settings(endpoint)?;
        if provider == ProviderKind::Local && endpoint.base_url.is_none() {
            let mut local = self.local.lock().await;
            if local.is_none() {
                *local = Some(ensure_local_server().await?);
            }
        }
        let key = settings.checked_api_key("name one with api_key_name")?;
        if let Some(var) = &endpoint.api_key_name
            && key.is_none()
        {
            return Err(CoreError::Usage(format!(
                "the environment variable {var} holds no API key"
            )));
        }
        let mut config = settings.client_config();
        if provider == ProviderKind::Local && endpoint.base_url.is_some() {
            // Some OpenAI-compatible server, not Sift's own llama.cpp:
            // assume only what they all do.
            config.flavor = sift_llm::ServerFlavor::Generic;
        }
        Ok(Client::new(config)?)
    }
}

impl ModelConnector for SiftConnector {
    fn connect<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
    ) -> Pin<Box<dyn Future<Output = Result<Client, sift_workflow::ConnectError>> + Send + 'a>>
    {
        Box::pin(async move {
            self.client(endpoint).await.map_err(|e| match e {
                CoreError::Llm(e) => sift_workflow::ConnectError::Client(e),
                // A key the keychain could not give is a credentials failure.
                CoreError::Keychain(message) => sift_workflow::ConnectError::Connector {
                    category: sift_llm::ErrorCategory::Auth,
                    message,
                },
                other => sift_workflow::ConnectError::Connector {
                    category: sift_llm::ErrorCategory::Other,
                    message: other.to_string(),
                },
            })
        })
    }

    /// What the server says the model takes, else the known families'
    /// table (see [`crate::models::capabilities`]). An endpoint whose
    /// provider is not known cannot connect anyway: the table decides.
    fn features<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
        model: &'a str,
    ) -> Pin<Box<dyn Future<Output = sift_llm::ModelFeatures> + Send + 'a>> {
        Box::pin(async move {
            let Ok((_, settings)) = self.settings(endpoint) else {
                return sift_workflow::known_features(endpoint, model);
            };
            let capabilities =
                capabilities::resolve(&[], &endpoint.provider, &settings, model).await;
            sift_llm::ModelFeatures {
                images: capabilities.images,
                tools: capabilities.tools,
            }
        })
    }
}

/// A run to start.
#[derive(Debug, Clone, Default)]
pub struct WorkflowRunRequest {
    /// The workflow file; its folder is where the steps' relative paths start.
    pub file: PathBuf,
    /// The workflow as already read: for the window's runs, the one whose
    /// commands the user allowed ([`consent::require_consent`]), so that a
    /// file rewritten since does not run; `None` reads `file` as the run
    /// starts (the CLI's, whose user typed the command).
    pub workflow: Option<Workflow>,
    /// Parameter values by name, over the workflow's defaults (`--param NAME=VALUE`); values
    /// named like secrets are masked in the stored run.
    pub params: Vec<(String, String)>,
    /// Re-run from this step of an earlier run (`--from STEP --run RUN_ID`).
    pub from: Option<RerunFrom>,
    /// Cancelled to stop the run.
    pub cancel: CancellationToken,
    /// How the steps' `files` are read: the workspace's (its OCR cache and
    /// languages; [`crate::Workspace::read_options`]).
    pub read_options: ReadOptions,
    /// The saved providers ([`crate::Workspace::settings`]): a step's stored
    /// key goes only to its provider's address among them.
    pub providers: Vec<ProviderEntry>,
    /// What each file a step reads passes first: every file for the CLI
    /// (its user typed the command), the window's grants for the app
    /// ([`runs::start_workflow_run`]).
    pub file_gate: FileGate,
}

/// Where a re-run starts: a step of an earlier run. The steps that neither are it nor depend
/// on it are reused from that run where they succeeded there; the rest run again.
#[derive(Debug, Clone)]
pub struct RerunFrom {
    /// The id of the earlier run.
    pub run_id: String,
    /// The id or name of the step to run from.
    pub step: String,
}

/// A run that went to its end, whether it succeeded, failed or was cancelled.
#[derive(Debug, Clone)]
pub struct WorkflowRunOutcome {
    /// The id the run is stored under.
    pub run_id: String,
    /// The run's status and each step's record, in the file's order.
    pub record: RunRecord,
}

/// Runs a workflow file, storing the run and each step as it ends;
/// `on_event` sees the run's events as they happen.
pub async fn run_workflow(
    store: &Store,
    request: WorkflowRunRequest,
    on_event: EventSink,
) -> Result<WorkflowRunOutcome, CoreError> {
    run_workflow_announced(store, request, &|_| {}, on_event).await
}

/// [`run_workflow`], telling `on_created` the run's id once it is stored
/// and before any step starts (a window shows it while the run goes).
pub async fn run_workflow_announced(
    store: &Store,
    mut request: WorkflowRunRequest,
    on_created: &(dyn Fn(&str) + Send + Sync),
    on_event: EventSink,
) -> Result<WorkflowRunOutcome, CoreError> {
    let workflow = match request.workflow.take() {
        Some(workflow) => workflow,
        None => load_file(&request.file)?.1,
    };
    let reuse = match &request.from {
        None => Default::default(),
        Some(from) => reused_steps(store, &workflow, from)?,
    };
    let run = store
        .create_workflow_run(&NewWorkflowRun {
            file: request.file.display().to_string(),
            params: masked(&request.params),
            from_run: request.from.as_ref().map(|f| f.run_id.clone()),
            from_step: request.from.as_ref().map(|f| f.step.clone()),
        })
        .map_err(CoreError::from)?;
    on_created(&run.id);
    let positions: Vec<String> = workflow
        .main()
        .steps
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let connector = Arc::new(SiftConnector::new(request.providers.clone()));
    // Absolute, so that messages about files name them in full.
    let base_dir = std::path::absolute(&request.file)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let runtime = Arc::new(Runtime {
        workflow,
        base_dir,
        connector: connector.clone(),
        read_options: request.read_options.clone(),
        file_gate: request.file_gate.clone(),
    });
    let store_error: Arc<Mutex<Option<CoreError>>> = Arc::default();
    let sink: EventSink = {
        let store = store.clone();
        let run_id = run.id.clone();
        let store_error = store_error.clone();
        Arc::new(move |event: RunEvent| {
            let written = match &event {
                RunEvent::StepStarted { name } => {
                    let position = positions.iter().position(|n| n == name).unwrap_or(0);
                    store.save_workflow_step(&running_step(&run_id, position, name))
                }
                RunEvent::StepFinished(record) => {
                    let position = positions
                        .iter()
                        .position(|n| *n == record.name)
                        .unwrap_or(0);
                    store.save_workflow_step(&stored_step(&run_id, position, record))
                }
                RunEvent::Stdout { .. } | RunEvent::Stderr { .. } => Ok(()),
            };
            if let Err(e) = written
                && let Ok(mut slot) = store_error.lock()
            {
                slot.get_or_insert(CoreError::from(e));
            }
            on_event(event);
        })
    };
    let options = RunOptions {
        params: request.params.clone(),
        reuse,
        cancel: request.cancel.clone(),
    };
    let result = sift_workflow::run(runtime, options, sink).await;
    connector.release().await;
    let status = match &result {
        Ok(record) => record.status.as_str(),
        Err(_) => "failed",
    };
    store
        .finish_workflow_run(&run.id, status)
        .map_err(CoreError::from)?;
    if let Some(e) = store_error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    Ok(WorkflowRunOutcome {
        run_id: run.id,
        record: result.map_err(run_refused)?,
    })
}

/// Params as stored: the value of one named like a secret (`API_KEY`,
/// `token`, `password`...) is masked.
fn masked(params: &[(String, String)]) -> Vec<(String, String)> {
    params
        .iter()
        .map(|(k, v)| {
            let name = k.to_ascii_lowercase();
            let secret = ["key", "token", "secret", "password", "passwd", "credential"]
                .iter()
                .any(|w| name.contains(w));
            (
                k.clone(),
                if secret {
                    "*******".to_owned()
                } else {
                    v.clone()
                },
            )
        })
        .collect()
}

/// The earlier run's records of the steps before `from.step`, for the
/// steps that succeeded there; the others run again.
fn reused_steps(
    store: &Store,
    workflow: &Workflow,
    from: &RerunFrom,
) -> Result<std::collections::HashMap<String, StepRecord>, CoreError> {
    if store
        .workflow_run(&from.run_id)
        .map_err(CoreError::from)?
        .is_none()
    {
        return Err(CoreError::NotFound(format!(
            "no workflow run {}",
            from.run_id
        )));
    }
    let before = sift_workflow::steps_before(workflow.main(), &from.step).map_err(run_refused)?;
    let stored = store
        .workflow_steps(&from.run_id)
        .map_err(CoreError::from)?;
    let mut reuse = std::collections::HashMap::new();
    for step in stored {
        if step.status == "succeeded" && before.contains(&step.name) {
            reuse.insert(step.name.clone(), record_of(&step));
        }
    }
    Ok(reuse)
}

fn record_of(step: &StoredStep) -> StepRecord {
    StepRecord {
        id: step.step_id.clone(),
        name: step.name.clone(),
        status: StepStatus::Succeeded,
        stdout: step.stdout.clone(),
        stderr: step.stderr.clone(),
        outputs: step.outputs.as_object().cloned().unwrap_or_default(),
        error: step.error.clone(),
        error_category: None,
        messages: serde_json::from_value(step.messages.clone()).unwrap_or_default(),
        usage: sift_llm::Usage {
            input_tokens: step.input_tokens,
            output_tokens: step.output_tokens,
        },
        elapsed_ms: step.elapsed_ms,
        reused: true,
        absent_outputs: Vec::new(),
        served: step.model.clone().map(|model| sift_workflow::ServedModel {
            provider: step.provider.clone().unwrap_or_default(),
            host: step.host.clone(),
            model,
        }),
    }
}

fn running_step(run_id: &str, position: usize, name: &str) -> StoredStep {
    StoredStep {
        run_id: run_id.to_owned(),
        position: i64::try_from(position).unwrap_or(i64::MAX),
        name: name.to_owned(),
        step_id: None,
        status: "running".to_owned(),
        stdout: String::new(),
        stderr: String::new(),
        outputs: json!({}),
        messages: json!([]),
        error: None,
        input_tokens: 0,
        output_tokens: 0,
        elapsed_ms: 0,
        reused: false,
        provider: None,
        host: None,
        model: None,
    }
}

fn stored_step(run_id: &str, position: usize, record: &StepRecord) -> StoredStep {
    StoredStep {
        run_id: run_id.to_owned(),
        position: i64::try_from(position).unwrap_or(i64::MAX),
        name: record.name.clone(),
        step_id: record.id.clone(),
        status: record.status.as_str().to_owned(),
        stdout: record.stdout.clone(),
        stderr: record.stderr.clone(),
        outputs: Value::Object(record.outputs.clone()),
        messages: serde_json::to_value(&record.messages).unwrap_or_else(|_| json!([])),
        error: record.error.clone(),
        input_tokens: record.usage.input_tokens,
        output_tokens: record.usage.output_tokens,
        elapsed_ms: record.elapsed_ms,
        reused: record.reused,
        provider: record.served.as_ref().map(|s| s.provider.clone()),
        host: record.served.as_ref().and_then(|s| s.host.clone()),
        model: record.served.as_ref().map(|s| s.model.clone()),
    }
}

/// The run as `sift run --json` prints it.
pub fn run_json(outcome: &WorkflowRunOutcome) -> Value {
    json!({
        "run_id": outcome.run_id,
        "status": outcome.record.status.as_str(),
        "steps": outcome.record.steps.iter().map(|s| json!({
            "id": s.id,
            "name": s.name,
            "status": s.status.as_str(),
            "stdout": s.stdout,
            "stderr": s.stderr,
            "outputs": s.outputs,
            "error": s.error,
        })).collect::<Vec<_>>(),
    })
}
