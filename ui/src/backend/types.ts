// What the screens need from the Rust side, in the UI's own terms. The one
// implementation (./tauri.ts) maps these onto ui/src/ipc.ts; screens get it
// from React context, so they never name a command.
import type { JobEvent, ResultRow } from "../extract/table";
import type { JsonValue } from "../schema/model";

export type ProviderKind = "openai" | "anthropic" | "local";

export interface ProviderEntry {
  id: string;
  kind: ProviderKind;
  label: string;
  /** null: the kind's default address. */
  baseUrl: string | null;
  /** The environment variable holding the key, instead of the keychain. */
  apiKeyEnv: string | null;
}

export interface AppSettings {
  providers: ProviderEntry[];
  defaultProvider: string;
  defaultModel: string | null;
  dataDir: string | null;
}

export interface ConnectionResult {
  ok: boolean;
  message: string;
  models: string[];
}

export interface SchemaSummary {
  name: string;
  latestVersion: number;
  /** Oldest first. */
  versions: number[];
  /** Milliseconds since the epoch, of the latest version. */
  updatedAt: number;
}

/** A problem the engine finds in a schema, at a JSON Pointer (`""`: the whole schema). */
export interface SchemaProblem {
  path: string;
  message: string;
  severity: "error" | "warning";
}

export interface SavedVersion {
  version: number;
  /** False when the schema equalled the latest version. */
  newVersion: boolean;
}

export interface SettingsInfo {
  settings: AppSettings;
  /** The file the settings are saved in, and the database in use. */
  configPath: string;
  dbPath: string;
}

export interface KeyInfo {
  /** Where the key would come from; `none`: no key found; `notNeeded`: the local server. */
  source: "keychain" | "env" | "none" | "notNeeded";
  envVar: string | null;
}

export interface StoredSchema {
  name: string;
  version: number;
  text: string;
}

export interface Preview {
  /** A picture of the page (PDF) or the image; null for text documents. */
  dataUrl: string | null;
  /** The text, for documents without a picture. */
  text: string | null;
  page: number;
  pages: number;
}

export interface DropEvent {
  kind: "enter" | "over" | "drop" | "leave";
  paths: string[];
}

export interface RunRequest {
  schemaName: string;
  /** null: the latest. */
  schemaVersion: number | null;
  files: string[];
  providerId: string | null;
  model: string | null;
  /** Instructions for the model; null: the default prompt. */
  prompt: string | null;
  /** Documents called at once; null: the default (4). */
  concurrency: number | null;
}

export interface Transcript {
  status: string;
  /** The call's transcript, as pretty JSON. */
  body: string;
  /** The CLI command that shows the same call. */
  cli: string;
}

export interface JobBrief {
  jobId: string;
  schemaName: string;
  documents: number;
  done: number;
  failed: number;
  status: "running" | "completed" | "cancelled" | "failed";
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface StoredJob {
  jobId: string;
  schemaName: string;
  schemaVersion: number;
  /** The schema the job ran with: its columns head the table. */
  schema: JsonValue;
  cancelled: boolean;
  rows: ResultRow[];
}

export type ExportFormat = "csv" | "jsonl";

export type LocalServer = { state: "stopped" | "starting" | "running" } | { state: "failed"; message: string };

export interface Backend {
  /** "Sift 0.1.0", or null outside the app. */
  appVersion(): Promise<string | null>;
  /** The local model server as the app runs it. */
  localServer(): Promise<LocalServer>;
  onFileDrop(handler: (event: DropEvent) => void): Promise<() => void>;
  pickFiles(): Promise<string[]>;
  pickSaveFile(defaultName: string, format: ExportFormat | "json"): Promise<string | null>;
  pickSchemaFile(): Promise<string | null>;

  runExtraction(request: RunRequest, onEvent: (event: JobEvent) => void): Promise<void>;
  /** Runs a job's documents not yet completed again; events as for a run (it starts with `resumed`). */
  resumeExtraction(jobId: string, providerId: string | null, model: string | null, onEvent: (event: JobEvent) => void): Promise<void>;
  cancelExtraction(jobId: string): Promise<void>;
  jobResults(jobId: string): Promise<ResultRow[]>;
  /** The most recent jobs, newest first. */
  recentJobs(): Promise<JobBrief[]>;
  openJob(jobId: string): Promise<StoredJob>;
  /** Corrects one field (`path` from the top); resolves to the row as it now is. */
  reviseValue(jobId: string, position: number, path: string[], value: JsonValue): Promise<ResultRow>;
  /** Resolves to the number of rows written. `bom`: a UTF-8 byte order mark, for Excel (CSV only). */
  exportJob(jobId: string, format: ExportFormat, path: string, bom: boolean): Promise<number>;
  documentPreview(path: string, page: number): Promise<Preview>;
  /** The structured call behind a document's values, message by message. */
  callTranscript(callId: string): Promise<Transcript>;

  listSchemas(): Promise<SchemaSummary[]>;
  getSchema(name: string, version: number | null): Promise<StoredSchema>;
  saveSchema(name: string, text: string): Promise<SavedVersion>;
  /** The engine's answer-schema rules: empty when the schema passes. */
  checkSchema(text: string): Promise<SchemaProblem[]>;
  importSchema(path: string): Promise<StoredSchema>;
  exportSchema(name: string, version: number | null, path: string): Promise<void>;

  getSettings(): Promise<SettingsInfo>;
  saveSettings(settings: AppSettings): Promise<void>;
  listModels(provider: ProviderEntry): Promise<string[]>;
  testConnection(provider: ProviderEntry, model: string | null): Promise<ConnectionResult>;
  setApiKey(providerId: string, key: string): Promise<KeyInfo>;
  deleteApiKey(providerId: string): Promise<KeyInfo>;
  keyStatus(providerId: string): Promise<KeyInfo>;
}
