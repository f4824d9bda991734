// The Evaluate and Usage screens' sources over the Tauri commands
// (ui/src/ipc.ts): the labelled sets with the dialogs' TSV filter, runs
// streamed over their channel (started or resumed), the price table, the
// usage report.
import * as ipc from "../ipc";
import type { EvaluateSource } from "../evaluate/source";
import type { UsageSource } from "../usage/source";

const TSV = { name: "Tab-separated values", extensions: ["tsv"] };

export function tauriEvaluateSource(): EvaluateSource {
  return {
    listSets: () => ipc.listLabelledSets(),
    getSet: (name) => ipc.labelledSet(name),
    async pickTsv() {
      const [path] = await ipc.pickFiles({ title: "Import a labelled set", multiple: false, filters: [TSV] });
      return path ?? null;
    },
    importSet: (name, path, schemaName, schemaVersion) => ipc.importLabelledSet(name, path, schemaName, schemaVersion),
    pickSaveTsv: (defaultName) => ipc.pickSavePath({ defaultName, filters: [TSV] }),
    exportSet: (name, path) => ipc.exportLabelledSet(name, path),
    deleteSet: (name) => ipc.deleteLabelledSet(name),

    listSchemas: () => ipc.listSchemas(),
    async providers() {
      const view = await ipc.getSettings();
      return { providers: view.settings.providers, defaultProvider: view.settings.defaultProvider, defaultModel: view.settings.defaultModel ?? null };
    },

    startEvaluation: (request, onEvent) => ipc.startEvaluation(request, onEvent),
    resumeEvaluation: (runId, onEvent) => ipc.resumeEvaluation(runId, onEvent),
    async cancelEvaluation(runId) {
      await ipc.cancelEvaluation(runId);
    },
    run: (runId) => ipc.evaluationRun(runId),
    history: (setName) => ipc.evaluationHistory(setName),
    prices: () => ipc.priceTable(),
    setPrice: (providerId, model, inputPerMtok, outputPerMtok) => ipc.setPrice(providerId, model, inputPerMtok, outputPerMtok),
    deletePrice: (providerId, model) => ipc.deletePrice(providerId, model),
  };
}

export function tauriUsageSource(): UsageSource {
  return { usage: (request) => ipc.usageReport(request) };
}
