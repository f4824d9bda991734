import { useEffect, useId, useState } from "react";
import type { KeyStatus, ProviderKind } from "../ipc";
import { describeError } from "../format";
import { KIND_LABELS, defaultBaseUrl } from "./logic";
import type { ConnectionResult, ProviderEntry, SettingsSource } from "./source";

interface Props {
  source: SettingsSource;
  provider: ProviderEntry;
  isDefault: boolean;
  defaultModel: string | null;
  onChange: (patch: Partial<ProviderEntry>) => void;
  onMakeDefault: (model: string | null) => void;
  onRemove: () => void;
  /** Saves the settings if they changed (a key goes with a saved provider); false when that failed. */
  ensureSaved: () => Promise<boolean>;
}

function keyText(info: KeyStatus | null): string {
  if (info === null) return "";
  switch (info.source) {
    case "keychain":
      return "Key stored in the keychain";
    case "env":
      return `Key read from $${info.envVar ?? "?"}`;
    case "none":
      return "No key found";
    case "notNeeded":
      return "No key needed";
  }
}

/** One provider: address, key (keychain or variable), its models and a connection test. */
export function ProviderEditor({ source, provider, isDefault, defaultModel, onChange, onMakeDefault, onRemove, ensureSaved }: Props) {
  const id = useId();
  const [models, setModels] = useState<string[]>([]);
  const [model, setModel] = useState<string>(isDefault ? (defaultModel ?? "") : "");
  const [busy, setBusy] = useState<"" | "models" | "test" | "key">("");
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const [message, setMessage] = useState("");
  const [keyDraft, setKeyDraft] = useState("");
  const [keyInfo, setKeyInfo] = useState<KeyStatus | null>(null);
  const needsKey = provider.kind !== "local";
  const keySource = provider.apiKeyEnv !== null ? "env" : "keychain";

  useEffect(() => {
    setModels([]);
    setResult(null);
    setMessage("");
    setKeyDraft("");
    setModel(isDefault ? (defaultModel ?? "") : "");
    if (!needsKey) return;
    let live = true;
    setKeyInfo(null);
    source.keyStatus(provider.id).then(
      (info) => live && setKeyInfo(info),
      () => live && setKeyInfo(null),
    );
    return () => {
      live = false;
    };
    // Reset only when another provider is shown.
  }, [provider.id]);

  async function listModels() {
    setBusy("models");
    setMessage("");
    try {
      const names = await source.listModels(provider);
      setModels(names);
      setMessage(names.length === 0 ? "The server lists no models; type a model name." : `${names.length} models listed.`);
    } catch (error) {
      setMessage(`Could not list models: ${describeError(error)}`);
    } finally {
      setBusy("");
    }
  }

  async function test() {
    setBusy("test");
    setResult(null);
    try {
      const r = await source.testConnection(provider);
      setResult(r);
      if (r.models.length > 0) setModels(r.models);
    } catch (error) {
      setResult({ ok: false, message: describeError(error), models: [] });
    } finally {
      setBusy("");
    }
  }

  async function saveKey() {
    if (keyDraft === "") return;
    setBusy("key");
    try {
      if (!(await ensureSaved())) return;
      setKeyInfo(await source.setApiKey(provider.id, keyDraft));
      setKeyDraft("");
      setMessage("The key is stored in the system keychain.");
    } catch (error) {
      setMessage(`Could not store the key: ${describeError(error)}`);
    } finally {
      setBusy("");
    }
  }

  async function deleteKey() {
    setBusy("key");
    try {
      setKeyInfo(await source.deleteApiKey(provider.id));
      setMessage("The key is removed from the keychain.");
    } catch (error) {
      setMessage(`Could not remove the key: ${describeError(error)}`);
    } finally {
      setBusy("");
    }
  }

  return (
    <section className="card provider-editor" aria-labelledby={`${id}-title`} data-testid="provider-editor">
      <div className="row spread">
        <h3 id={`${id}-title`}>{provider.label || provider.id}</h3>
        {isDefault ? <span className="badge">Default</span> : <button type="button" className="ghost danger" onClick={onRemove}>Remove provider</button>}
      </div>
      <div className="form-grid">
        <label htmlFor={`${id}-label`}>Name</label>
        <input id={`${id}-label`} value={provider.label} placeholder={provider.id} onChange={(e) => onChange({ label: e.target.value })} />
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select id={`${id}-kind`} value={provider.kind} onChange={(e) => onChange({ kind: e.target.value as ProviderKind })}>
          {(Object.keys(KIND_LABELS) as ProviderKind[]).map((k) => (
            <option key={k} value={k}>{KIND_LABELS[k]}</option>
          ))}
        </select>
        <label htmlFor={`${id}-url`}>Base URL</label>
        <input id={`${id}-url`} type="url" value={provider.baseUrl ?? ""} placeholder={defaultBaseUrl(provider.kind)} onChange={(e) => onChange({ baseUrl: e.target.value })} spellCheck={false} />
      </div>

      {needsKey && (
        <fieldset className="key-box">
          <legend>API key</legend>
          <div className="row">
            <label className="inline"><input type="radio" name={`${id}-keysrc`} checked={keySource === "keychain"} onChange={() => onChange({ apiKeyEnv: null })} /> System keychain</label>
            <label className="inline"><input type="radio" name={`${id}-keysrc`} checked={keySource === "env"} onChange={() => onChange({ apiKeyEnv: "" })} /> Environment variable</label>
          </div>
          {keySource === "keychain" ? (
            <div className="row">
              <label htmlFor={`${id}-key`} className="visually-hidden">API key for {provider.label || provider.id}</label>
              <input id={`${id}-key`} type="password" autoComplete="off" value={keyDraft} placeholder={keyInfo?.source === "keychain" ? "A key is stored (type to replace it)" : "Paste the key"} onChange={(e) => setKeyDraft(e.target.value)} />
              <button type="button" onClick={saveKey} disabled={keyDraft === "" || busy !== ""}>Save key</button>
              {keyInfo?.source === "keychain" && <button type="button" className="ghost danger" onClick={deleteKey} disabled={busy !== ""}>Remove key</button>}
              </div>
          ) : (
            <div className="row">
              <label htmlFor={`${id}-env`}>Variable name</label>
              <input id={`${id}-env`} value={provider.apiKeyEnv ?? ""} placeholder="MY_API_KEY" spellCheck={false} onChange={(e) => onChange({ apiKeyEnv: e.target.value })} />
            </div>
          )}
          <p className="muted small" data-testid="key-status">{keyText(keyInfo)}</p>
        </fieldset>
      )}

      <div className="row">
        <button type="button" onClick={listModels} disabled={busy !== ""}>{busy === "models" ? "Listing…" : "List models"}</button>
        <label htmlFor={`${id}-model`}>Model</label>
        <input id={`${id}-model`} list={`${id}-models`} value={model} onChange={(e) => setModel(e.target.value)} placeholder={provider.kind === "local" ? "local (the model in use)" : "model name"} spellCheck={false} />
        <datalist id={`${id}-models`}>
          {models.map((m) => <option key={m} value={m} />)}
        </datalist>
        <button type="button" onClick={test} disabled={busy !== ""}>{busy === "test" ? "Testing…" : "Test connection"}</button>
        <button type="button" onClick={() => onMakeDefault(model.trim() === "" ? null : model.trim())}>
          {isDefault ? "Set default model" : "Use as default"}
        </button>
      </div>
      {models.length > 0 && (
        <ul className="chips" aria-label="Models on this server" data-testid="model-list">
          {models.map((m) => (
            <li key={m}><button type="button" className="chip" aria-pressed={m === model} onClick={() => setModel(m)}>{m}</button></li>
          ))}
        </ul>
      )}
      <p role="status" className="muted small" data-testid="provider-message">{message}</p>
      {result !== null && (
        <p role="status" className={result.ok ? "ok" : "error"} data-testid="connection-result">
          {result.ok ? "Connected: " : "Failed: "}
          {result.message}
        </p>
      )}
    </section>
  );
}
