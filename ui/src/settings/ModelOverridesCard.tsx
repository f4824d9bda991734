// What models can take: per model, images and tools as detected (the server,
// else the known families) or forced by the user. Saved apart from the rest
// of the settings, into the configuration file's `[[models]]`.
import { useState } from "react";
import { describeError } from "../format";
import { providerName } from "./logic";
import { type CapabilityChoice, type ModelOverrideEntry, describeCapabilities, newOverride, overrideProblems } from "./modelOverrides";
import type { ProviderEntry, SettingsSource } from "./source";

const CHOICES: { value: CapabilityChoice; label: string }[] = [
  { value: "detected", label: "As detected" },
  { value: "yes", label: "Yes" },
  { value: "no", label: "No" },
];

export function ModelOverridesCard({ source, providers, initial, defaultProvider }: { source: SettingsSource; providers: ProviderEntry[]; initial: ModelOverrideEntry[]; defaultProvider: string }) {
  const [rows, setRows] = useState<ModelOverrideEntry[]>(initial);
  const [dirty, setDirty] = useState(false);
  const [status, setStatus] = useState("");
  const [checks, setChecks] = useState<Record<number, string>>({});

  const problems = overrideProblems(rows, providers.map((p) => p.id));

  function edit(index: number, patch: Partial<ModelOverrideEntry>) {
    setRows(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
    setDirty(true);
    setStatus("");
    setChecks({ ...checks, [index]: "" });
  }

  async function save() {
    try {
      const saved = await source.saveModelOverrides(rows);
      setRows(saved);
      setChecks({});
      setDirty(false);
      setStatus("Model overrides saved.");
    } catch (error) {
      setStatus(`Could not save: ${describeError(error)}`);
    }
  }

  async function check(index: number) {
    const row = rows[index];
    const provider = row === undefined ? undefined : providers.find((p) => p.id === row.provider);
    if (row === undefined || provider === undefined || row.model.trim() === "") return;
    setChecks({ ...checks, [index]: "Asking…" });
    try {
      const found = await source.modelCapabilities(provider, row.model);
      setChecks((now) => ({ ...now, [index]: `${describeCapabilities(found)}${dirty ? " (unsaved edits not applied)" : ""}` }));
    } catch (error) {
      setChecks((now) => ({ ...now, [index]: `Could not ask: ${describeError(error)}` }));
    }
  }

  return (
    <section className="card" aria-labelledby="model-overrides-title" data-testid="model-overrides">
      <h2 id="model-overrides-title">What models can take</h2>
      <p className="muted small">
        Sift asks the model's server whether it takes images and tools (llama.cpp, Ollama, LM Studio), else goes by known model families. A model that takes no images gets a document's text instead. Override it here.
      </p>
      <table className="overrides">
        <thead>
          <tr><th>Provider</th><th>Model</th><th>Images</th><th>Tools</th><th /></tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            // Rows have no identity of their own before they are saved.
            <tr key={index} data-testid="model-override-row">
              <td>
                <select aria-label="Provider of the model" value={row.provider} onChange={(e) => edit(index, { provider: e.target.value })}>
                  {providers.map((p) => <option key={p.id} value={p.id}>{providerName(p)}</option>)}
                </select>
              </td>
              <td><input aria-label="Model name" value={row.model} spellCheck={false} placeholder="qwen2.5-coder" onChange={(e) => edit(index, { model: e.target.value })} /></td>
              <td>
                <select aria-label="Takes images" value={row.images} onChange={(e) => edit(index, { images: e.target.value as CapabilityChoice })}>
                  {CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
                </select>
              </td>
              <td>
                <select aria-label="Takes tools" value={row.tools} onChange={(e) => edit(index, { tools: e.target.value as CapabilityChoice })}>
                  {CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
                </select>
              </td>
              <td className="row">
                <button type="button" onClick={() => void check(index)} disabled={row.model.trim() === ""}>Ask what it takes</button>
                <button type="button" onClick={() => { setRows(rows.filter((_, i) => i !== index)); setChecks({}); setDirty(true); }}>Remove override</button>
              </td>
              {checks[index] ? <td className="muted small" data-testid="model-capabilities">{checks[index]}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => { setRows([...rows, newOverride(defaultProvider, "")]); setDirty(true); }}>Add model</button>
        <button type="button" className="primary" onClick={() => void save()} disabled={!dirty || problems.length > 0} data-testid="model-overrides-save">Save overrides</button>
      </div>
      {problems.length > 0 && (
        <ul role="alert" className="problems">
          {problems.map((p) => <li key={p}>{p}</li>)}
        </ul>
      )}
      <p role="status" className="muted">{status}</p>
    </section>
  );
}
