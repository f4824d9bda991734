// What the Extract screen needs from the app. Where the IPC's shapes are the
// screen's, it speaks them (ui/src/bindings); `ui/src/backend/extractSource.ts`
// implements it over ui/src/ipc.ts.
import type { ExportFormat, ExtractEvent, ExtractRequest, FileDropEvent, JobRow, JobSummary, JobView, JsonValue, LabelledSetSummary, PageWord, ProviderConfig, SchemaDoc, SchemaSuggestion, SchemaSummary, SettingsView } from "../ipc";

export interface Preview {
  /** A picture of the page (PDF) or the image; null for text documents. */
  dataUrl: string | null;
  /** The text, for documents without a picture. */
  text: string | null;
  /** 1-based, as the screen shows it. */
  page: number;
  pages: number;
}

/** The words of one page, to click one into a field. */
export interface Words {
  /** 1-based, as `Preview.page`. */
  page: number;
  pages: number;
  words: PageWord[];
}

/** The call behind a document's values, as the detail pane shows it. */
export interface Transcript {
  status: string;
  /** The call's transcript, as pretty JSON. */
  body: string;
  /** The CLI command that shows the same call. */
  cli: string;
}

export interface ExtractSource {
  onFileDrop(handler: (event: FileDropEvent) => void): Promise<() => void>;
  pickFiles(): Promise<string[]>;
  pickSaveFile(defaultName: string, format: ExportFormat): Promise<string | null>;

  listSchemas(): Promise<SchemaSummary[]>;
  /** `version` null: the latest. */
  getSchema(name: string, version: number | null): Promise<SchemaDoc>;
  getSettings(): Promise<SettingsView>;
  /** A schema for one document's fields, from the model; not saved. */
  suggestSchema(file: string, providerId: string | null, model: string | null): Promise<SchemaSuggestion>;
  listModels(provider: ProviderConfig): Promise<string[]>;

  /**
   * Creates a job and starts it: resolves with its table (every row
   * pending); `onEvent` sees `status`, `started` and `row`, then one
   * `finished` (with the job's totals) or `error`.
   */
  startExtraction(request: ExtractRequest, onEvent: (event: ExtractEvent) => void): Promise<JobView>;
  /** Runs a job's documents not yet completed again; events as for a start. */
  resumeExtraction(jobId: string, providerId: string | null, model: string | null, onEvent: (event: ExtractEvent) => void): Promise<JobView>;
  cancelExtraction(jobId: string): Promise<void>;
  /** A job's table (and its totals) as stored now. */
  jobResults(jobId: string): Promise<JobView>;
  /** The most recent jobs, newest first. */
  recentJobs(): Promise<JobSummary[]>;
  /** Corrects one field (`path` from the top); resolves to the row as it now is. */
  reviseValue(jobId: string, position: number, path: string[], value: JsonValue): Promise<JobRow>;
  /** Marks one field (a `FieldEvidence.key`) as checked by the user; resolves to the row as it now is. */
  checkValue(jobId: string, position: number, key: string): Promise<JobRow>;
  /** Resolves to the number of rows written. `bom`: a UTF-8 byte order mark, for Excel (CSV only). */
  exportJob(jobId: string, format: ExportFormat, path: string, bom: boolean): Promise<number>;
  /** `page` is 1-based. */
  documentPreview(path: string, page: number): Promise<Preview>;
  /** The words on a page of a job's document with their boxes; `page` is 1-based. */
  pageWords(path: string, page: number): Promise<Words>;
  /** A labelled set (for Evaluate) from the job's checked and corrected values; rejects when none is. */
  saveJobAsLabelledSet(jobId: string, name: string): Promise<LabelledSetSummary>;
  /** The structured call behind a document's values, message by message. */
  callTranscript(callId: string): Promise<Transcript>;
}
