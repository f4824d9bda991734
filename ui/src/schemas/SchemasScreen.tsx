import { Suspense, lazy, useCallback, useEffect, useMemo, useState } from "react";
import type { JsonValue, SchemaProblem, SchemaSummary } from "../ipc";
import { describeError } from "../format";
import { fieldPathOfPointer, modelProblems } from "../schema/edit";
import { copiedDoc, draftDoc, isDirty, loadedDoc, nameProblem, newDoc, savedDoc, withModel, withText, type SchemaDoc } from "./doc";
import { FieldEditor } from "./FieldEditor";
import { FormPreview } from "./FormPreview";
import { Library } from "./Library";
import type { SchemaSource } from "./source";
import { useEngineCheck } from "./useEngineCheck";

// CodeMirror is most of the bundle: loaded with the first visit to this screen.
const JsonEditor = lazy(() => import("./JsonEditor").then((m) => ({ default: m.JsonEditor })));

/** A schema to open unsaved, for review (the model's suggestion for a document). */
export interface SchemaDraft {
  /** Counts the requests: each new one opens its draft. */
  n: number;
  name: string;
  schema: JsonValue;
  /** The document it was suggested from. */
  file: string;
}

interface Props {
  source: SchemaSource;
  active: boolean;
  /** Changes when another screen asks for a new schema. */
  newSchemaRequest: number;
  draft: SchemaDraft | null;
  /** The library changed; `saved`: the name of a schema just saved or imported. */
  onLibraryChanged: (saved: string | null) => void;
}

export function SchemasScreen({ source, active, newSchemaRequest, draft, onLibraryChanged }: Props) {
  const [schemas, setSchemas] = useState<SchemaSummary[]>([]);
  const [doc, setDoc] = useState<SchemaDoc>(() => newDoc("new_schema"));
  const [tab, setTab] = useState<"fields" | "preview">("fields");
  const [status, setStatus] = useState("");
  // An action that would drop unsaved changes waits here for the user's word.
  const [pending, setPending] = useState<{ what: string; go: () => void } | null>(null);

  function guarded(what: string, go: () => void) {
    if (isDirty(doc)) setPending({ what, go });
    else go();
  }

  const refresh = useCallback(async () => {
    try {
      setSchemas(await source.listSchemas());
    } catch (error) {
      setStatus(`Could not list the library: ${describeError(error)}`);
    }
  }, [source]);

  useEffect(() => {
    if (active) void refresh();
  }, [active, refresh]);

  useEffect(() => {
    if (newSchemaRequest === 0) return;
    guarded("start a new schema", () => {
      setDoc(newDoc("new_schema"));
      requestAnimationFrame(() => document.getElementById("schema-name")?.focus());
    });
    // Only a new request starts a new schema.
  }, [newSchemaRequest]);

  useEffect(() => {
    if (draft === null) return;
    guarded("open the suggested schema", () => {
      setDoc(draftDoc(draft.name, `${JSON.stringify(draft.schema, null, 2)}\n`));
      setStatus(`Suggested from ${draft.file.split(/[\\/]/).pop() ?? draft.file}: review the fields and their descriptions, then “Save version”.`);
    });
    // Only a new draft opens.
  }, [draft?.n]);

  const engine = useEngineCheck(source, doc.text, doc.textProblem !== null);
  const fieldProblems = doc.textProblem === null ? modelProblems(doc.model) : [];
  const badName = nameProblem(doc.name);
  const engineByField = useMemo(() => {
    const map = new Map<string, SchemaProblem[]>();
    for (const p of engine.state === "done" ? engine.problems : []) {
      const field = fieldPathOfPointer(p.path);
      if (field !== null) map.set(field, [...(map.get(field) ?? []), p]);
    }
    return map;
  }, [engine]);
  const engineErrors = engine.state === "done" ? engine.problems.filter((p) => p.severity === "error") : [];
  const canSave = badName === null && doc.textProblem === null && fieldProblems.length === 0 && engine.state === "done" && engineErrors.length === 0;

  async function open(name: string, version: number | null) {
    try {
      const stored = await source.getSchema(name, version);
      setDoc(loadedDoc(stored.name, stored.version, stored.text));
      setStatus("");
    } catch (error) {
      setStatus(`Could not open ${name}: ${describeError(error)}`);
    }
  }

  async function save() {
    try {
      const saved = await source.saveSchema(doc.name, doc.text);
      setDoc((d) => savedDoc(d, saved.version));
      setStatus(saved.newVersion ? `Saved ${doc.name} as version ${saved.version}.` : `No change from version ${saved.version}: nothing saved.`);
      await refresh();
      onLibraryChanged(doc.name);
    } catch (error) {
      setStatus(`Could not save: ${describeError(error)}`);
    }
  }

  async function importFile() {
    try {
      const path = await source.pickSchemaFile();
      if (path === null) return;
      const stored = await source.importSchema(path);
      setDoc(loadedDoc(stored.name, stored.version, stored.text));
      setStatus(`Imported ${stored.name} (version ${stored.version}).`);
      await refresh();
      onLibraryChanged(stored.name);
    } catch (error) {
      setStatus(`Could not import: ${describeError(error)}`);
    }
  }

  async function exportFile() {
    if (doc.version === null) return;
    try {
      const path = await source.pickSaveFile(`${doc.name}.json`);
      if (path === null) return;
      await source.exportSchema(doc.name, doc.version, path);
      setStatus(`Exported ${doc.name} version ${doc.version} to ${path}.`);
    } catch (error) {
      setStatus(`Could not export: ${describeError(error)}`);
    }
  }

  return (
    <section className="screen" aria-labelledby="schemas-title">
      <header className="screen-head">
        <h1 id="schemas-title" tabIndex={-1}>Schemas</h1>
        <div className="row">
          <button type="button" onClick={() => guarded("start a new schema", () => setDoc(newDoc("new_schema")))}>New schema</button>
          <button type="button" onClick={() => guarded("import a schema", () => void importFile())}>Import…</button>
          <button type="button" onClick={() => setDoc((d) => copiedDoc(d, schemas.map((s) => s.name)))} disabled={doc.textProblem !== null} title="Edit a copy under a new name; the original stays as it is" data-testid="schema-duplicate">Duplicate</button>
          <button type="button" onClick={exportFile} disabled={doc.version === null || isDirty(doc)} title={isDirty(doc) ? "Save first" : undefined}>Export…</button>
          <button type="button" className="primary" onClick={save} disabled={!canSave || (!isDirty(doc) && doc.version !== null)} data-testid="schema-save">Save version</button>
        </div>
      </header>
      {pending !== null && (
        <div className="card row spread confirm" role="alertdialog" aria-labelledby="discard-text" data-testid="discard-confirm">
          <p id="discard-text">
            {doc.name} has unsaved changes. Discard them to {pending.what}?
          </p>
          <div className="row">
            <button type="button" className="danger" onClick={() => { const go = pending.go; setPending(null); go(); }}>Discard changes</button>
            <button type="button" autoFocus onClick={() => setPending(null)}>Keep editing</button>
          </div>
        </div>
      )}
      <div className="schemas-layout">
        <Library schemas={schemas} current={doc} onOpen={(name, version) => guarded(`open ${name}`, () => void open(name, version))} />
        <div className="schema-work">
          <div className="row">
            <label htmlFor="schema-name">Name</label>
            <input id="schema-name" value={doc.name} onChange={(e) => setDoc((d) => ({ ...d, name: e.target.value, version: null, savedText: null }))} aria-invalid={badName !== null} spellCheck={false} />
            <span className="muted small" data-testid="schema-version">{doc.version !== null ? `version ${doc.version}` : "not saved"}{isDirty(doc) && doc.version !== null ? " · changed" : ""}</span>
            {badName !== null && <span className="error small">{badName}</span>}
          </div>
          <div className="schema-panes">
            <div className="pane">
              <div role="tablist" aria-label="Schema view" className="tabs">
                <button type="button" role="tab" id="tab-fields" aria-selected={tab === "fields"} aria-controls="panel-fields" onClick={() => setTab("fields")}>Fields</button>
                <button type="button" role="tab" id="tab-preview" aria-selected={tab === "preview"} aria-controls="panel-preview" onClick={() => setTab("preview")}>Form preview</button>
              </div>
              <div role="tabpanel" id="panel-fields" aria-labelledby="tab-fields" hidden={tab !== "fields"}>
                {doc.textProblem !== null && <p className="note small">The fields show the last valid JSON. Fix the text to edit them here.</p>}
                <FieldEditor model={doc.model} problems={fieldProblems} engine={engineByField} disabled={doc.textProblem !== null} onChange={(m) => setDoc((d) => withModel(d, m))} />
              </div>
              <div role="tabpanel" id="panel-preview" aria-labelledby="tab-preview" hidden={tab !== "preview"}>
                <FormPreview model={doc.model} />
              </div>
            </div>
            <div className="pane">
              <h2 className="pane-title" id="json-title">JSON Schema</h2>
              <Suspense fallback={<p className="muted small">Loading the editor…</p>}>
                <JsonEditor value={doc.text} label="Schema JSON" onChange={(text) => setDoc((d) => withText(d, text))} />
              </Suspense>
              <Checks textProblem={doc.textProblem?.message ?? null} engine={engine} />
            </div>
          </div>
          <p role="status" className="muted" data-testid="schema-status">{status}</p>
        </div>
      </div>
    </section>
  );
}

function Checks({ textProblem, engine }: { textProblem: string | null; engine: ReturnType<typeof useEngineCheck> }) {
  if (textProblem !== null) {
    return <p className="error small" role="alert" data-testid="text-problem">{textProblem}</p>;
  }
  switch (engine.state) {
    case "idle":
      return null;
    case "checking":
      return <p className="muted small" data-testid="engine-problems">Checking…</p>;
    case "failed":
      return <p className="error small" role="alert" data-testid="engine-problems">Could not check: {engine.error}</p>;
    case "done":
      return engine.problems.length === 0 ? (
        <p className="ok small" data-testid="engine-problems">The engine accepts this schema.</p>
      ) : (
        <ul className="problems" role="alert" data-testid="engine-problems" aria-label="The engine's problems with this schema">
          {engine.problems.map((p) => (
            <li key={`${p.path}:${p.message}`} className={p.severity === "error" ? "error" : "warning"} data-severity={p.severity}>
              <code>{p.path === "" ? "/" : p.path}</code> {p.message}
            </li>
          ))}
        </ul>
      );
  }
}
