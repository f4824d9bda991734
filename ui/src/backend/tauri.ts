// The Backend the app runs with: each method is one function of ../ipc.ts
// (the only module that calls Tauri), with the IPC's types mapped to the
// screens' own.
import * as ipc from "../ipc";
import { createdEvent, mapExtractEvent, resultFromRow } from "../extract/fromIpc";
import type { JobEvent } from "../extract/table";
import type { JsonValue } from "../schema/model";
import type { AppSettings, Backend, ExportFormat, ProviderEntry, SchemaProblem } from "./types";

const FILTERS: Record<ExportFormat | "json", { name: string; extensions: string[] }> = {
  csv: { name: "CSV", extensions: ["csv"] },
  jsonl: { name: "JSON Lines", extensions: ["jsonl"] },
  json: { name: "JSON Schema", extensions: ["json"] },
};

const DOCUMENTS = { name: "Documents", extensions: ["pdf", "png", "jpg", "jpeg", "gif", "webp", "txt", "md", "csv", "xlsx", "docx"] };

export function schemaText(schema: JsonValue): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function toProvider(p: ipc.ProviderConfig): ProviderEntry {
  return { id: p.id, kind: p.kind, label: p.label, baseUrl: p.baseUrl ?? null, apiKeyEnv: p.apiKeyEnv ?? null };
}

function fromProvider(p: ProviderEntry): ipc.ProviderConfig {
  return { id: p.id, kind: p.kind, label: p.label, baseUrl: p.baseUrl, apiKeyEnv: p.apiKeyEnv };
}

function fromSettings(s: AppSettings): ipc.Settings {
  return { providers: s.providers.map(fromProvider), defaultProvider: s.defaultProvider, defaultModel: s.defaultModel, dataDir: s.dataDir };
}

function parseText(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

/**
 * Starts a run and follows its channel until `finished` (resolves) or
 * `error` (rejects). Events that arrive before the start resolves wait, so the
 * table exists before its rows change.
 */
function follow(
  start: (events: (event: ipc.ExtractEvent) => void) => Promise<ipc.JobView>,
  first: (job: ipc.JobView) => JobEvent,
  onEvent: (event: JobEvent) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let ready = false;
    const early: ipc.ExtractEvent[] = [];
    const deliver = (event: ipc.ExtractEvent) => {
      const mapped = mapExtractEvent(event);
      if (mapped.kind === "event") {
        onEvent(mapped.event);
        if (mapped.event.kind === "finished") resolve();
      } else if (mapped.kind === "error") {
        reject({ code: mapped.code, message: mapped.message });
      }
    };
    start((event) => (ready ? deliver(event) : early.push(event))).then((job) => {
      onEvent(first(job));
      ready = true;
      early.splice(0).forEach(deliver);
    }, reject);
  });
}

export const tauriBackend: Backend = {
  async appVersion() {
    if (!ipc.isDesktopApp()) return null;
    const info = await ipc.appInfo();
    return `${info.name} ${info.version}`;
  },

  localServer: () => ipc.localServerStatus(),

  async onFileDrop(handler) {
    return ipc.onFileDrop((e) => handler({ kind: e.kind, paths: "paths" in e ? e.paths : [] }));
  },
  pickFiles: () => ipc.pickFiles({ title: "Add documents", multiple: true, filters: [DOCUMENTS] }),
  pickSaveFile: (defaultName, format) => ipc.pickSavePath({ defaultName, filters: [FILTERS[format]] }),
  async pickSchemaFile() {
    const [path] = await ipc.pickFiles({ title: "Import a JSON Schema", multiple: false, filters: [FILTERS.json] });
    return path ?? null;
  },

  runExtraction(request, onEvent) {
    return follow(
      (events) =>
        ipc.startExtraction(
          {
            files: request.files,
            schemaName: request.schemaName,
            schemaVersion: request.schemaVersion ?? undefined,
            providerId: request.providerId,
            model: request.model,
            ...(request.prompt !== null ? { prompt: request.prompt } : {}),
            ...(request.concurrency !== null ? { concurrency: request.concurrency } : {}),
          },
          events,
        ),
      createdEvent,
      onEvent,
    );
  },
  resumeExtraction(jobId, providerId, model, onEvent) {
    return follow(
      (events) => ipc.resumeExtraction(jobId, events, providerId, model),
      (job) => ({ kind: "resumed", jobId: job.jobId }),
      onEvent,
    );
  },
  async cancelExtraction(jobId) {
    await ipc.cancelExtraction(jobId);
  },
  async jobResults(jobId) {
    return (await ipc.jobResults(jobId)).rows.map(resultFromRow);
  },
  async recentJobs() {
    return (await ipc.listJobs(20)).map((j) => ({
      jobId: j.jobId,
      schemaName: j.schemaName,
      documents: j.documents,
      done: j.totals.done,
      failed: j.totals.failed,
      status: j.status,
      createdAt: j.createdAt,
    }));
  },
  async openJob(jobId) {
    const job = await ipc.jobResults(jobId);
    return {
      jobId: job.jobId,
      schemaName: job.schemaName,
      schemaVersion: job.schemaVersion,
      schema: job.schema,
      cancelled: job.status === "cancelled",
      rows: job.rows.map(resultFromRow),
    };
  },
  async reviseValue(jobId, position, path, value) {
    return resultFromRow(await ipc.reviseValue(jobId, position, path, value));
  },
  async exportJob(jobId, format, path, bom) {
    return (await ipc.exportResults(jobId, format, path, format === "csv" && bom)).rows;
  },
  async documentPreview(path, page) {
    const p = await ipc.previewDocument(path, page - 1);
    return { dataUrl: p.dataUrl, text: p.text, page: p.page + 1, pages: p.pageCount };
  },
  async callTranscript(callId) {
    const call = await ipc.callTranscript(callId);
    const body = call.transcript ?? call.output ?? call.error ?? null;
    return { status: call.status, body: typeof body === "string" ? body : JSON.stringify(body, null, 2), cli: call.cli };
  },

  listSchemas: () => ipc.listSchemas(),
  async getSchema(name, version) {
    const doc = await ipc.getSchema(name, version);
    return { name: doc.name, version: doc.version, text: schemaText(doc.schema) };
  },
  async saveSchema(name, text) {
    const saved = await ipc.saveSchema(name, parseText(text));
    return { version: saved.schema.version, newVersion: saved.newVersion };
  },
  async checkSchema(text): Promise<SchemaProblem[]> {
    return ipc.checkSchema(parseText(text));
  },
  async importSchema(path) {
    const doc = await ipc.importSchema(path);
    return { name: doc.name, version: doc.version, text: schemaText(doc.schema) };
  },
  exportSchema: (name, version, path) => ipc.exportSchema(name, version, path),

  async getSettings() {
    const view = await ipc.getSettings();
    const s = view.settings;
    return {
      settings: { providers: s.providers.map(toProvider), defaultProvider: s.defaultProvider, defaultModel: s.defaultModel ?? null, dataDir: s.dataDir ?? null },
      configPath: view.configPath,
      dbPath: view.dbPath,
    };
  },
  async saveSettings(settings) {
    await ipc.saveSettings(fromSettings(settings));
  },
  listModels: (provider) => ipc.listModels(fromProvider(provider)),
  async testConnection(provider) {
    const report = await ipc.testConnection(fromProvider(provider));
    const message = report.ok ? `${report.url} answered in ${report.elapsedMs} ms (${report.message})` : `${report.message}${report.code !== null ? ` (${report.code})` : ""}`;
    return { ok: report.ok, message, models: report.models };
  },
  setApiKey: (providerId, key) => ipc.setApiKey(providerId, key),
  deleteApiKey: (providerId) => ipc.deleteApiKey(providerId),
  keyStatus: (providerId) => ipc.apiKeyStatus(providerId),
};
