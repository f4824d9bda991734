// What the Settings screen needs from the app; `ui/src/backend/settingsSource.ts`
// implements it over ui/src/ipc.ts.
import type { AskArgs, AskEvent, CatalogueEntry, CatalogueGetEvent, DefaultAnswers, ImportMode, KeyStatus, LocalModel, LocalServerStatus, ModelCapabilities, ProviderKind } from "../ipc";
import type { ModelOverrideEntry } from "./modelOverrides";

/**
 * A provider as the screen edits it: the IPC's `ProviderConfig` with its
 * optional fields always present (`null`: unset), so an edit compares and
 * normalises without telling "absent" from "null".
 */
export interface ProviderEntry {
  id: string;
  kind: ProviderKind;
  label: string;
  /** null: the kind's default address. */
  baseUrl: string | null;
  /** The environment variable holding the key, instead of the keychain. */
  apiKeyEnv: string | null;
}

/** The IPC's `Settings`, its optional fields always present (see `ProviderEntry`). */
export interface AppSettings {
  providers: ProviderEntry[];
  defaultProvider: string;
  defaultModel: string | null;
  dataDir: string | null;
}

export interface SettingsInfo {
  settings: AppSettings;
  /** The file the settings are saved in, and the database in use. */
  configPath: string;
  dbPath: string;
  /** What the user says models can take, saved apart from the settings. */
  modelOverrides: ModelOverrideEntry[];
  /** How a run answers when it names no mode, by kind of provider. */
  defaultAnswers: DefaultAnswers;
}

export interface ConnectionResult {
  ok: boolean;
  message: string;
  models: string[];
}

export interface SettingsSource {
  getSettings(): Promise<SettingsInfo>;
  saveSettings(settings: AppSettings): Promise<void>;
  listModels(provider: ProviderEntry): Promise<string[]>;
  testConnection(provider: ProviderEntry): Promise<ConnectionResult>;
  /** Saves the overrides (rows that say nothing are dropped); resolves with them as saved. */
  saveModelOverrides(overrides: ModelOverrideEntry[]): Promise<ModelOverrideEntry[]>;
  modelCapabilities(provider: ProviderEntry, model: string): Promise<ModelCapabilities>;
  setApiKey(providerId: string, key: string): Promise<KeyStatus>;
  deleteApiKey(providerId: string): Promise<KeyStatus>;
  keyStatus(providerId: string): Promise<KeyStatus>;
  /** The local server's GGUF models (the data directory's `models/`), each from its header. */
  localModels(): Promise<LocalModel[]>;
  /** "Add a model…": the open dialog, then the file copied or linked into `models/`; null when cancelled. */
  addLocalModel(mode: ImportMode): Promise<LocalModel | null>;
  /** Makes the model (with its projector) the local default and restarts the server: its state once started or failed. */
  chooseLocalModel(model: string, projector: string | null): Promise<LocalServerStatus>;
  /** The models Sift can fetch, each with whether it is installed. */
  modelCatalogue(): Promise<CatalogueEntry[]>;
  /** Starts fetching a catalogue model; `onEvent` sees its progress, then `finished`, `cancelled` or `error`. */
  getCatalogueModel(name: string, onEvent: (event: CatalogueGetEvent) => void): Promise<void>;
  /** Cancels a catalogue model's fetch; false when none is under way. */
  cancelCatalogueModel(name: string): Promise<boolean>;
  /** The local server's state now. */
  localServer(): Promise<LocalServerStatus>;
  /**
   * The native folder dialog for the data folder; null when cancelled. The
   * app takes a new data folder only from it (a typed one is refused).
   * Absent where there is no dialog.
   */
  pickDataFolder?(): Promise<string | null>;
  /** False outside the desktop app (the "Try a model" panel cannot send). */
  canAsk(): boolean;
  /** Sends one prompt; `onEvent` sees the reply as it streams in. */
  ask(args: AskArgs, onEvent: (event: AskEvent) => void): Promise<void>;
}
