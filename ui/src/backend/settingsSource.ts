// The Settings screen's source over the Tauri commands (ui/src/ipc.ts): the
// IPC's optional provider fields always present (null) for the editor.
import * as ipc from "../ipc";
import { fromOverrideEntries, toOverrideEntry } from "../settings/modelOverrides";
import type { AppSettings, ProviderEntry, SettingsSource } from "../settings/source";

function toProvider(p: ipc.ProviderConfig): ProviderEntry {
  return { id: p.id, kind: p.kind, label: p.label, baseUrl: p.baseUrl ?? null, apiKeyEnv: p.apiKeyEnv ?? null };
}

function fromSettings(s: AppSettings): ipc.Settings {
  return { providers: s.providers, defaultProvider: s.defaultProvider, defaultModel: s.defaultModel, dataDir: s.dataDir };
}

export function tauriSettingsSource(): SettingsSource {
  return {
    async getSettings() {
      const view = await ipc.getSettings();
      const s = view.settings;
      return {
        settings: { providers: s.providers.map(toProvider), defaultProvider: s.defaultProvider, defaultModel: s.defaultModel ?? null, dataDir: s.dataDir ?? null },
        configPath: view.configPath,
        dbPath: view.dbPath,
        modelOverrides: view.modelOverrides.map(toOverrideEntry),
        defaultAnswers: view.defaultAnswers,
      };
    },
    async saveModelOverrides(overrides) {
      const view = await ipc.saveModelOverrides(fromOverrideEntries(overrides));
      return view.modelOverrides.map(toOverrideEntry);
    },
    modelCapabilities: (provider, model) => ipc.modelCapabilities(provider, model),
    async saveSettings(settings) {
      await ipc.saveSettings(fromSettings(settings));
    },
    listModels: (provider) => ipc.listModels(provider),
    async testConnection(provider) {
      const report = await ipc.testConnection(provider);
      const message = report.ok ? `${report.url} answered in ${report.elapsedMs} ms (${report.message})` : `${report.message}${report.code !== null ? ` (${report.code})` : ""}`;
      return { ok: report.ok, message, models: report.models };
    },
    setApiKey: (providerId, key) => ipc.setApiKey(providerId, key),
    deleteApiKey: (providerId) => ipc.deleteApiKey(providerId),
    keyStatus: (providerId) => ipc.apiKeyStatus(providerId),
    localModels: () => ipc.localModels(),
    addLocalModel: (mode) => ipc.addLocalModel(mode),
    chooseLocalModel: (model, projector) => ipc.chooseLocalModel(model, projector),
    modelCatalogue: () => ipc.modelCatalogue(),
    getCatalogueModel: (name, onEvent) => ipc.getCatalogueModel(name, onEvent),
    cancelCatalogueModel: (name) => ipc.cancelCatalogueModel(name),
    localServer: () => ipc.localServerStatus(),
    pickDataFolder: () => ipc.pickFolder("Choose the data folder"),
    canAsk: () => ipc.isDesktopApp(),
    ask: (args, onEvent) => ipc.ask(args, onEvent),
  };
}
