// The Extract screen's source over the Tauri commands (ui/src/ipc.ts): the
// jobs' calls as the IPC has them, the dialogs with the screen's filters.
import * as ipc from "../ipc";
import type { ExtractSource } from "../extract/source";

const DOCUMENTS = { name: "Documents", extensions: ["pdf", "png", "jpg", "jpeg", "gif", "webp", "txt", "md", "csv", "xlsx", "docx"] };
const EXPORTS: Record<ipc.ExportFormat, ipc.FileFilter> = {
  csv: { name: "CSV", extensions: ["csv"] },
  jsonl: { name: "JSON Lines", extensions: ["jsonl"] },
};

export function tauriExtractSource(): ExtractSource {
  return {
    onFileDrop: (handler) => ipc.onFileDrop(handler),
    pickFiles: () => ipc.pickFiles({ title: "Add documents", multiple: true, filters: [DOCUMENTS] }),
    pickSaveFile: (defaultName, format) => ipc.pickSavePath({ defaultName, filters: [EXPORTS[format]] }),

    listSchemas: () => ipc.listSchemas(),
    getSchema: (name, version) => ipc.getSchema(name, version),
    getSettings: () => ipc.getSettings(),
    suggestSchema: (file, providerId, model) => ipc.suggestSchema({ file, providerId, model }),
    listModels: (provider) => ipc.listModels(provider),

    startExtraction: (request, onEvent) => ipc.startExtraction(request, onEvent),
    resumeExtraction: (jobId, providerId, model, onEvent) => ipc.resumeExtraction(jobId, onEvent, providerId, model),
    async cancelExtraction(jobId) {
      await ipc.cancelExtraction(jobId);
    },
    jobResults: (jobId) => ipc.jobResults(jobId),
    recentJobs: () => ipc.listJobs(20),
    reviseValue: (jobId, position, path, value) => ipc.reviseValue(jobId, position, path, value),
    checkValue: (jobId, position, key) => ipc.checkValue(jobId, position, key),
    async exportJob(jobId, format, path, bom) {
      return (await ipc.exportResults(jobId, format, path, format === "csv" && bom)).rows;
    },
    saveJobAsLabelledSet: (jobId, name) => ipc.saveJobAsLabelledSet(jobId, name),
    async documentPreview(path, page) {
      const p = await ipc.previewDocument(path, page - 1);
      return { dataUrl: p.dataUrl, text: p.text, page: p.page + 1, pages: p.pageCount };
    },
    async pageWords(path, page) {
      const p = await ipc.pageWords(path, page - 1);
      return { page: p.page + 1, pages: p.pageCount, words: p.words };
    },
    async callTranscript(callId) {
      const call = await ipc.callTranscript(callId);
      const body = call.transcript ?? call.output ?? call.error ?? null;
      return { status: call.status, body: typeof body === "string" ? body : JSON.stringify(body, null, 2), cli: call.cli };
    },
  };
}
