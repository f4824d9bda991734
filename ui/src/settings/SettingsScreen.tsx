import { useEffect, useState } from "react";
import { AskPanel } from "../AskPanel";
import { defaultAnswersLine } from "../extract/answers";
import type { DefaultAnswers, ProviderKind } from "../ipc";
import { describeError } from "../format";
import { KIND_LABELS, addProvider, normaliseSettings, providerName, removeProvider, settingsProblems, updateProvider } from "./logic";
import { LocalModelsCard } from "./LocalModelsCard";
import { ModelOverridesCard } from "./ModelOverridesCard";
import type { ModelOverrideEntry } from "./modelOverrides";
import { ProviderEditor } from "./ProviderEditor";
import type { AppSettings, SettingsSource } from "./source";

type Load = { state: "loading" } | { state: "failed"; error: string } | { state: "ready" };

export function SettingsScreen({ source, active }: { source: SettingsSource; active: boolean }) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [settings, setSettings] = useState<AppSettings | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [newKind, setNewKind] = useState<ProviderKind>("openai");
  const [dirty, setDirty] = useState(false);
  const [status, setStatus] = useState("");
  const [loaded, setLoaded] = useState(false);
  const [paths, setPaths] = useState<{ configPath: string; dbPath: string } | null>(null);
  const [modelOverrides, setModelOverrides] = useState<ModelOverrideEntry[]>([]);
  const [defaultAnswers, setDefaultAnswers] = useState<DefaultAnswers | null>(null);

  useEffect(() => {
    if (!active || loaded) return;
    setLoaded(true);
    source.getSettings().then(
      (info) => {
        setSettings(info.settings);
        setPaths({ configPath: info.configPath, dbPath: info.dbPath });
        setModelOverrides(info.modelOverrides);
        setDefaultAnswers(info.defaultAnswers);
        setSelected(info.settings.defaultProvider);
        setLoad({ state: "ready" });
      },
      (error: unknown) => setLoad({ state: "failed", error: describeError(error) }),
    );
  }, [active, loaded, source]);

  function change(next: AppSettings) {
    setSettings(next);
    setDirty(true);
    setStatus("");
  }

  // The app takes a new data folder only from its folder dialog.
  async function chooseDataFolder() {
    if (settings === null || source.pickDataFolder === undefined) return;
    try {
      const folder = await source.pickDataFolder();
      if (folder !== null) change({ ...settings, dataDir: folder });
    } catch (error) {
      setStatus(`Could not choose a folder: ${describeError(error)}`);
    }
  }

  async function save(): Promise<boolean> {
    if (settings === null) return false;
    const normalised = normaliseSettings(settings);
    try {
      await source.saveSettings(normalised);
      setSettings(normalised);
      setDirty(false);
      setStatus("Settings saved.");
      return true;
    } catch (error) {
      setStatus(`Could not save: ${describeError(error)}`);
      return false;
    }
  }

  const problems = settings === null ? [] : settingsProblems(settings);
  const provider = settings?.providers.find((p) => p.id === selected) ?? null;

  return (
    <section className="screen" aria-labelledby="settings-title">
      <header className="screen-head">
        <h1 id="settings-title" tabIndex={-1}>Settings</h1>
        <div className="row">
          {dirty && <span className="muted small">Unsaved changes</span>}
          <button type="button" className="primary" onClick={save} disabled={!dirty || problems.length > 0} data-testid="settings-save">
            Save settings
          </button>
        </div>
      </header>
      {load.state === "loading" && <p className="muted">Loading…</p>}
      {load.state === "failed" && <p role="alert" className="error">Could not load the settings: {load.error}</p>}
      {settings !== null && (
        <>
          <div className="split">
            <div className="card provider-list">
              <h2 id="providers-title">Providers</h2>
              <ul aria-labelledby="providers-title" className="plain-list">
                {settings.providers.map((p) => (
                  <li key={p.id}>
                    <button type="button" className="list-item" aria-current={p.id === selected ? "true" : undefined} onClick={() => setSelected(p.id)}>
                      <span>{providerName(p)}</span>
                      <span className="muted small">{KIND_LABELS[p.kind]}{p.id === settings.defaultProvider ? " · default" : ""}</span>
                    </button>
                  </li>
                ))}
              </ul>
              <div className="row">
                <label htmlFor="new-provider-kind" className="visually-hidden">Kind of provider to add</label>
                <select id="new-provider-kind" value={newKind} onChange={(e) => setNewKind(e.target.value as ProviderKind)}>
                  {(Object.keys(KIND_LABELS) as ProviderKind[]).map((k) => <option key={k} value={k}>{KIND_LABELS[k]}</option>)}
                </select>
                <button type="button" onClick={() => { const r = addProvider(settings, newKind); change(r.settings); setSelected(r.provider.id); }}>
                  Add provider
                </button>
              </div>
              {defaultAnswers !== null && (
                <p className="muted small" data-testid="answers-default">{defaultAnswersLine(defaultAnswers)}</p>
              )}
            </div>
            {provider !== null && (
              <ProviderEditor
                source={source}
                provider={provider}
                isDefault={provider.id === settings.defaultProvider}
                defaultModel={settings.defaultModel}
                onChange={(patch) => change(updateProvider(settings, provider.id, patch))}
                onMakeDefault={(model) => change({ ...settings, defaultProvider: provider.id, defaultModel: model })}
                onRemove={() => { change(removeProvider(settings, provider.id)); setSelected(settings.defaultProvider); }}
                ensureSaved={async () => !dirty || (problems.length === 0 && (await save()))}
              />
            )}
          </div>
          <section className="card" aria-labelledby="general-title">
            <h2 id="general-title">General</h2>
            <div className="form-grid">
              <label htmlFor="default-provider">Default provider</label>
              <select id="default-provider" value={settings.defaultProvider} onChange={(e) => change({ ...settings, defaultProvider: e.target.value })}>
                {settings.providers.map((p) => <option key={p.id} value={p.id}>{providerName(p)}</option>)}
              </select>
              <label htmlFor="default-model">Default model</label>
              <input id="default-model" value={settings.defaultModel ?? ""} placeholder="the provider's default" spellCheck={false} onChange={(e) => change({ ...settings, defaultModel: e.target.value })} />
              <label htmlFor="data-dir">Data folder</label>
              <div className="row">
                <input id="data-dir" value={settings.dataDir ?? ""} placeholder="~/.local/share/sift" spellCheck={false} onChange={(e) => change({ ...settings, dataDir: e.target.value })} />
                {source.pickDataFolder !== undefined && (
                  <button type="button" className="ghost" data-testid="choose-data-dir" onClick={() => void chooseDataFolder()}>
                    Choose…
                  </button>
                )}
              </div>
            </div>
            {paths !== null && (
              <p className="muted small" data-testid="settings-paths">
                Database: <code>{paths.dbPath}</code> · settings file: <code>{paths.configPath}</code>
              </p>
            )}
          </section>
          {load.state === "ready" && <LocalModelsCard source={source} />}
          {load.state === "ready" && (
            <ModelOverridesCard source={source} providers={settings.providers} initial={modelOverrides} defaultProvider={settings.defaultProvider} />
          )}
          {problems.length > 0 && (
            <ul role="alert" className="problems" data-testid="settings-problems">
              {problems.map((p) => <li key={p}>{p}</li>)}
            </ul>
          )}
          <p role="status" className="muted" data-testid="settings-status">{status}</p>
        </>
      )}
      <AskPanel source={source} />
    </section>
  );
}
