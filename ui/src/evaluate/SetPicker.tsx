// The labelled set to evaluate on: picked from the sets, imported from a
// TSV for a schema of the library, exported, deleted.
import { useEffect, useState } from "react";
import { describeError } from "../format";
import type { LabelledSetSummary, SchemaSummary } from "../ipc";
import type { EvaluateSource } from "./source";

interface Props {
  source: EvaluateSource;
  sets: LabelledSetSummary[];
  selected: string;
  onSelect: (name: string) => void;
  /** The sets changed (imported, deleted): `select` is the one to pick. */
  onChanged: (select: string) => void;
  disabled: boolean;
}

export function SetPicker({ source, sets, selected, onSelect, onChanged, disabled }: Props) {
  const [importing, setImporting] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [status, setStatus] = useState("");
  const set = sets.find((s) => s.name === selected) ?? null;

  async function exportSet() {
    if (set === null) return;
    try {
      const path = await source.pickSaveTsv(`${set.name}.tsv`);
      if (path === null) return;
      const rows = await source.exportSet(set.name, path);
      setStatus(`Exported ${rows} documents to ${path}.`);
    } catch (error) {
      setStatus(`Could not export: ${describeError(error)}`);
    }
  }

  async function deleteSet() {
    if (set === null) return;
    setConfirmDelete(false);
    try {
      await source.deleteSet(set.name);
      setStatus(`Deleted the set ${set.name}.`);
      onChanged("");
    } catch (error) {
      setStatus(`Could not delete: ${describeError(error)}`);
    }
  }

  return (
    <div className="card eval-sets" data-testid="set-picker">
      <div className="row">
        <label className="inline">
          Labelled set
          <select value={selected} onChange={(e) => onSelect(e.target.value)} disabled={disabled} data-testid="set-select">
            <option value="">{sets.length === 0 ? "No sets yet" : "Choose a set…"}</option>
            {sets.map((s) => (
              <option key={s.name} value={s.name}>{s.name}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setImporting((v) => !v)} disabled={disabled} aria-expanded={importing}>Import TSV…</button>
        <button type="button" onClick={exportSet} disabled={disabled || set === null}>Export…</button>
        {confirmDelete ? (
          <span className="row">
            <span className="small">Delete {set?.name}?</span>
            <button type="button" className="danger" onClick={deleteSet}>Delete the set</button>
            <button type="button" className="ghost" onClick={() => setConfirmDelete(false)}>Keep</button>
          </span>
        ) : (
          <button type="button" className="ghost" onClick={() => setConfirmDelete(true)} disabled={disabled || set === null}>Delete</button>
        )}
      </div>
      {set !== null && (
        <p className="muted small" data-testid="set-info">
          {set.documents} documents · fields {set.fields.join(", ")} · schema {set.schemaName} v{set.schemaVersion} · from {set.source}
        </p>
      )}
      {importing && (
        <ImportForm
          source={source}
          onImported={(s) => {
            setImporting(false);
            setStatus(`Imported ${s.name}: ${s.documents} documents.`);
            onChanged(s.name);
          }}
        />
      )}
      <p role="status" className="muted small" data-testid="set-status">{status}</p>
    </div>
  );
}

function ImportForm({ source, onImported }: { source: EvaluateSource; onImported: (set: LabelledSetSummary) => void }) {
  const [schemas, setSchemas] = useState<SchemaSummary[]>([]);
  const [name, setName] = useState("");
  const [schemaName, setSchemaName] = useState("");
  const [error, setError] = useState("");

  useEffect(() => {
    source.listSchemas().then(
      (list) => {
        setSchemas(list);
        setSchemaName((s) => (s === "" ? (list[0]?.name ?? "") : s));
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [source]);

  async function pickAndImport() {
    setError("");
    try {
      const path = await source.pickTsv();
      if (path === null) return;
      onImported(await source.importSet(name.trim(), path, schemaName, null));
    } catch (e) {
      setError(describeError(e));
    }
  }

  return (
    <form className="row eval-import" aria-label="Import a labelled set" onSubmit={(e) => { e.preventDefault(); void pickAndImport(); }}>
      <label className="inline">
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label className="inline">
        Schema
        <select value={schemaName} onChange={(e) => setSchemaName(e.target.value)}>
          {schemas.map((s) => (
            <option key={s.name} value={s.name}>{s.name} (v{s.latestVersion})</option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={name.trim() === "" || schemaName === ""}>Choose the TSV and import</button>
      {error !== "" && <p className="error small" role="alert">{error}</p>}
    </form>
  );
}
