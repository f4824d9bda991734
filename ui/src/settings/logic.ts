// Pure helpers of the Settings screen.
import type { ProviderKind } from "../ipc";
import type { AppSettings, ProviderEntry } from "./source";

export const KIND_LABELS: Record<ProviderKind, string> = {
  local: "Local model server",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

export function defaultBaseUrl(kind: ProviderKind): string {
  switch (kind) {
    case "openai":
      return "https://api.openai.com/v1";
    case "anthropic":
      return "https://api.anthropic.com";
    case "local":
      // Sift's own server picks a free port, with a fresh key, at each
      // start: leave the URL empty to use it (a URL given here is another server).
      return "Sift's local server (a free port at each start)";
  }
}

/** An id not yet taken: the kind's name, then `name-2`, ... */
export function freshProviderId(settings: AppSettings, kind: ProviderKind): string {
  const used = new Set(settings.providers.map((p) => p.id));
  if (!used.has(kind)) return kind;
  let n = 2;
  while (used.has(`${kind}-${n}`)) n += 1;
  return `${kind}-${n}`;
}

export function addProvider(settings: AppSettings, kind: ProviderKind): { settings: AppSettings; provider: ProviderEntry } {
  const id = freshProviderId(settings, kind);
  const provider: ProviderEntry = { id, kind, label: "", baseUrl: null, apiKeyEnv: null };
  return { settings: { ...settings, providers: [...settings.providers, provider] }, provider };
}

export function updateProvider(settings: AppSettings, id: string, patch: Partial<ProviderEntry>): AppSettings {
  const providers = settings.providers.map((p) => (p.id === id ? { ...p, ...patch } : p));
  const defaultProvider = patch.id !== undefined && settings.defaultProvider === id ? patch.id : settings.defaultProvider;
  return { ...settings, providers, defaultProvider };
}

/** Removes a provider; the default one cannot be removed. */
export function removeProvider(settings: AppSettings, id: string): AppSettings {
  if (settings.defaultProvider === id) return settings;
  return { ...settings, providers: settings.providers.filter((p) => p.id !== id) };
}

export function providerName(p: Pick<ProviderEntry, "id" | "label">): string {
  return p.label.trim() !== "" ? p.label : p.id;
}

/** Problems that stop a save, one line each. */
export function settingsProblems(settings: AppSettings): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const p of settings.providers) {
    if (!/^[A-Za-z0-9._-]+$/.test(p.id)) problems.push(`Provider id "${p.id}" may hold only letters, digits, ".", "_" and "-".`);
    if (seen.has(p.id)) problems.push(`Provider id "${p.id}" is used twice.`);
    seen.add(p.id);
    if (p.baseUrl !== null && p.baseUrl.trim() !== "" && !/^https?:\/\/[^\s/]+/.test(p.baseUrl.trim())) {
      problems.push(`${providerName(p)}: the base URL must start with http:// or https://.`);
    }
    if (p.apiKeyEnv !== null && p.apiKeyEnv !== "" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.apiKeyEnv)) {
      problems.push(`${providerName(p)}: "${p.apiKeyEnv}" is not an environment variable name.`);
    }
  }
  if (!settings.providers.some((p) => p.id === settings.defaultProvider)) {
    problems.push("Pick a default provider.");
  }
  return problems;
}

/** Blank strings become null, the way the settings file stores "unset". */
export function normaliseSettings(settings: AppSettings): AppSettings {
  const blank = (s: string | null) => (s === null || s.trim() === "" ? null : s.trim());
  return {
    ...settings,
    providers: settings.providers.map((p) => ({ ...p, label: p.label.trim(), baseUrl: blank(p.baseUrl), apiKeyEnv: blank(p.apiKeyEnv) })),
    defaultModel: blank(settings.defaultModel),
    dataDir: blank(settings.dataDir),
  };
}
