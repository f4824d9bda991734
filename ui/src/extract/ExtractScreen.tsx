import { useEffect, useMemo, useRef, useState } from "react";
import { describeError } from "../format";
import type { DefaultAnswers, ExportFormat, ExtractRequest, ProviderConfig, SchemaSuggestion, SchemaSummary } from "../ipc";
import type { JsonValue } from "../schema/model";
import { FileList } from "./FileList";
import { FirstRunHint } from "./FirstRunHint";
import { JobTable } from "./JobTable";
import { RecentJobs } from "./RecentJobs";
import { SaveAsSet } from "./SaveAsSet";
import { DEFAULT_CONCURRENCY, SetupBar, type Setup } from "./SetupBar";
import type { ExtractSource } from "./source";
import { baseName, notCompleted, progressLine, schemaColumns } from "./table";
import { useFileDrop } from "./useFileDrop";
import { useJob } from "./useJob";

interface Props {
  source: ExtractSource;
  active: boolean;
  libraryRevision: number;
  /** A schema just saved in the library: picked for the next run. */
  savedSchema: string | null;
  onNewSchema: () => void;
  /** Opens a document's call in the Transcripts screen (when the app has it). */
  onOpenTranscript?: (callId: string) => void;
  /** A schema the model suggested for a document: the app opens it in the schema editor. */
  onSuggestedSchema?: (suggestion: SchemaSuggestion, file: string) => void;
  onOpenSettings?: () => void;
}

export function ExtractScreen({ source, active, libraryRevision, savedSchema, onNewSchema, onOpenTranscript, onSuggestedSchema, onOpenSettings }: Props) {
  const [files, setFiles] = useState<string[]>([]);
  const [schemas, setSchemas] = useState<SchemaSummary[]>([]);
  const [providers, setProviders] = useState<ProviderConfig[]>([]);
  const [defaultAnswers, setDefaultAnswers] = useState<DefaultAnswers | null>(null);
  const [models, setModels] = useState<string[]>([]);
  const [setup, setSetup] = useState<Setup>({ schemaName: "", providerId: "", model: "", prompt: "", concurrency: DEFAULT_CONCURRENCY, answers: null });
  // Until the user picks a provider or model here, the run follows the settings' defaults.
  const [ownChoice, setOwnChoice] = useState(false);
  const appliedRevision = useRef(0);
  const [schema, setSchema] = useState<{ name: string; version: number; value: JsonValue } | null>(null);
  // A new run or a reopened job shows its table afresh: nothing selected, no review under way.
  const [tableKey, setTableKey] = useState(0);
  const [status, setStatus] = useState("");
  const [bom, setBom] = useState(false);
  const [suggesting, setSuggesting] = useState(false);
  const [dbPath, setDbPath] = useState<string | null>(null);
  // The schema of the table shown (the run's, or a reopened job's): its columns head the table.
  const [shown, setShown] = useState<{ name: string; value: JsonValue } | null>(null);
  const { table, run, resume, open, cancel, revise, check } = useJob(source);
  const running = table.phase === "running";

  const addFiles = (paths: string[]) => setFiles((current) => [...current, ...paths.filter((p) => !current.includes(p))]);
  const dragging = useFileDrop(source, active && !running, addFiles);

  useEffect(() => {
    if (!active) return;
    source.listSchemas().then(
      (list) => {
        setSchemas(list);
        // A schema just saved is picked once, for the revision of the library that brought it.
        const fresh = appliedRevision.current !== libraryRevision;
        appliedRevision.current = libraryRevision;
        setSetup((s) => {
          if (fresh && savedSchema !== null && list.some((x) => x.name === savedSchema)) return { ...s, schemaName: savedSchema };
          return s.schemaName === "" && list[0] !== undefined ? { ...s, schemaName: list[0].name } : s;
        });
      },
      (error: unknown) => setStatus(`Could not list the schemas: ${describeError(error)}`),
    );
  }, [active, libraryRevision, savedSchema, source]);

  useEffect(() => {
    if (!active) return;
    source.getSettings().then(
      ({ settings, dbPath: db, defaultAnswers: defaults }) => {
        setProviders(settings.providers);
        setDefaultAnswers(defaults);
        setDbPath(db);
        if (!ownChoice) setSetup((s) => ({ ...s, providerId: settings.defaultProvider, model: settings.defaultModel ?? "" }));
      },
      () => undefined,
    );
  }, [active, source, ownChoice]);

  // After a crash, the job it cut short is opened at the first visit, with Resume.
  const lookedForInterrupted = useRef(false);
  useEffect(() => {
    if (!active || lookedForInterrupted.current) return;
    lookedForInterrupted.current = true;
    source.recentJobs().then(
      (jobs) => {
        const latest = jobs[0];
        if (latest?.status === "interrupted" && table.jobId === null) void reopen(latest.jobId);
      },
      () => undefined,
    );
    // Once, at the first visit: `table` and `reopen` are read as they are then.
  }, [active, source]);

  const provider = providers.find((p) => p.id === setup.providerId) ?? null;
  // Models are asked for again only when the provider itself changes (not on every visit).
  const providerKey = provider === null ? "" : JSON.stringify(provider);
  useEffect(() => {
    setModels([]);
    if (provider === null) return;
    let live = true;
    source.listModels(provider).then((m) => live && setModels(m), () => undefined);
    return () => {
      live = false;
    };
    // `provider` is read through its key.
  }, [providerKey, source]);

  // The chosen schema's latest version: its columns head the table.
  useEffect(() => {
    if (setup.schemaName === "") return;
    let live = true;
    source.getSchema(setup.schemaName, null).then(
      (stored) => live && setSchema({ name: stored.name, version: stored.version, value: stored.schema }),
      (error: unknown) => live && setStatus(`Could not open ${setup.schemaName}: ${describeError(error)}`),
    );
    return () => {
      live = false;
    };
  }, [setup.schemaName, libraryRevision, source]);

  const columns = useMemo(() => schemaColumns(shown?.value ?? schema?.value), [shown, schema]);
  const line = progressLine(table);

  async function pickFiles() {
    try {
      addFiles(await source.pickFiles());
    } catch (error) {
      setStatus(`Could not open the file dialog: ${describeError(error)}`);
    }
  }

  async function start() {
    if (schema === null || files.length === 0) return;
    setTableKey((k) => k + 1);
    setStatus("Running…");
    setShown({ name: schema.name, value: schema.value });
    const request: ExtractRequest = {
      files,
      schemaName: schema.name,
      schemaVersion: schema.version,
      providerId: setup.providerId === "" ? null : setup.providerId,
      model: setup.model.trim() === "" ? null : setup.model.trim(),
    };
    // Left out unless set: the backend's defaults apply.
    if (setup.prompt.trim() !== "") request.prompt = setup.prompt.trim();
    if (setup.concurrency !== DEFAULT_CONCURRENCY) request.concurrency = setup.concurrency;
    if (setup.answers !== null) request.answers = setup.answers;
    const error = await run(request);
    setStatus(error === null ? "" : `The run stopped: ${error}`);
  }

  async function suggest() {
    const file = files[0];
    if (file === undefined || onSuggestedSchema === undefined) return;
    setSuggesting(true);
    setStatus(`Asking the model for the fields of ${baseName(file)}…`);
    try {
      const suggestion = await source.suggestSchema(file, setup.providerId === "" ? null : setup.providerId, setup.model.trim() === "" ? null : setup.model.trim());
      setStatus(`The model suggested ${Object.keys(suggestionFields(suggestion)).length} fields for ${baseName(file)}: review them in the editor, then save.`);
      onSuggestedSchema(suggestion, file);
    } catch (error) {
      setStatus(`Could not suggest a schema: ${describeError(error)}`);
    } finally {
      setSuggesting(false);
    }
  }

  async function reopen(jobId: string) {
    try {
      setTableKey((k) => k + 1);
      const job = await open(jobId);
      setShown({ name: job.schemaName, value: job.schema });
      setStatus(`Opened the ${job.schemaName} job of ${job.rows.length} document${job.rows.length === 1 ? "" : "s"}.`);
    } catch (error) {
      setStatus(`Could not open the job: ${describeError(error)}`);
    }
  }

  async function retry() {
    setStatus("Running…");
    const error = await resume(setup.providerId === "" ? null : setup.providerId, setup.model.trim() === "" ? null : setup.model.trim());
    setStatus(error === null ? "" : `The run stopped: ${error}`);
  }

  async function exportAs(format: ExportFormat) {
    if (table.jobId === null) return;
    try {
      const path = await source.pickSaveFile(`${shown?.name ?? schema?.name ?? "extraction"}.${format}`, format);
      if (path === null) return;
      const rows = await source.exportJob(table.jobId, format, path, bom);
      setStatus(`Exported ${rows} documents to ${path}.`);
    } catch (error) {
      setStatus(`Could not export: ${describeError(error)}`);
    }
  }

  return (
    <section className="screen" aria-labelledby="extract-title">
      <header className="screen-head">
        <h1 id="extract-title" tabIndex={-1}>Extract</h1>
        <RecentJobs source={source} refreshKey={`${active}:${table.phase}:${table.jobId ?? ""}`} disabled={running} onOpen={reopen} />
        <div className="row">
          <label className="inline small" title="Starts the CSV with a byte order mark, so Excel reads it as UTF-8">
            <input type="checkbox" checked={bom} onChange={(e) => setBom(e.target.checked)} data-testid="export-bom" /> CSV for Excel
          </label>
          <button type="button" onClick={() => exportAs("csv")} disabled={table.jobId === null || running} data-testid="export-csv">Export CSV…</button>
          <button type="button" onClick={() => exportAs("jsonl")} disabled={table.jobId === null || running} data-testid="export-jsonl">Export JSONL…</button>
          {table.jobId !== null && !running && <SaveAsSet key={table.jobId} source={source} jobId={table.jobId} defaultName={shown?.name ?? schema?.name ?? ""} />}
        </div>
      </header>
      <FirstRunHint dbPath={dbPath} onOpenSettings={onOpenSettings} />
      <div className={`dropzone card${dragging ? " dragging" : ""}`} data-testid="dropzone">
        <p>{dragging ? "Drop to add the files" : "Drop documents anywhere on the window, or"}</p>
        <button type="button" onClick={pickFiles} disabled={running} data-testid="add-files">Add files…</button>
        {files.length > 0 && <button type="button" className="ghost" onClick={() => setFiles([])} disabled={running}>Clear</button>}
        <FileList files={files} onRemove={(f) => setFiles((fs) => fs.filter((x) => x !== f))} />
      </div>
      <div className="row spread">
        <SetupBar
          setup={setup}
          onChange={(next) => {
            if (next.providerId !== setup.providerId || next.model !== setup.model) setOwnChoice(true);
            setSetup(next);
          }} schemas={schemas} providers={providers} defaultAnswers={defaultAnswers} models={models} disabled={running} onNewSchema={onNewSchema}
          onSuggestSchema={files.length > 0 && onSuggestedSchema !== undefined ? () => void suggest() : null} suggesting={suggesting} />
        <div className="row">
          {running ? (
            <button type="button" className="danger" onClick={() => cancel().catch((e: unknown) => setStatus(describeError(e)))} data-testid="cancel">Cancel</button>
          ) : (
            <>
              {table.jobId !== null && notCompleted(table) > 0 && (
                <button type="button" onClick={retry} data-testid="resume" title="Call again the documents that failed or never ran, keeping the others">
                  {table.phase === "interrupted" ? "Resume" : "Retry"} {notCompleted(table)} not done
                </button>
              )}
              <button type="button" className="primary" onClick={start} disabled={schema === null || files.length === 0} data-testid="run">
              Run{files.length > 0 ? ` on ${files.length} file${files.length === 1 ? "" : "s"}` : ""}
              </button>
            </>
          )}
        </div>
      </div>
      {table.rows.length > 0 && (
        <div className="progress-line" data-testid="progress">
          <progress value={line.done + line.failed} max={line.total} aria-label="Documents finished" />
          <span className="small" aria-live="polite">
            {line.done + line.failed} of {line.total} finished · {line.done} done · {line.failed} failed · {line.inputTokens} tokens in, {line.outputTokens} out
            {table.phase === "cancelled" ? " · cancelled" : ""}
          </span>
        </div>
      )}
      {table.phase === "interrupted" && (
        <p className="warning small" role="alert" data-testid="interrupted">
          <strong>Interrupted</strong>: Sift closed before this job finished. Resume calls the {notCompleted(table)} document{notCompleted(table) === 1 ? "" : "s"} not done; the others are kept.
        </p>
      )}
      <p role="status" className="muted small" data-testid="extract-status">{table.message ?? status}</p>
      {table.rows.length > 0 && (
        <JobTable
          key={tableKey}
          source={source}
          table={table}
          columns={columns}
          schema={shown?.value ?? schema?.value}
          revise={revise}
          check={check}
          onOpenTranscript={onOpenTranscript}
        />
      )}
      {table.rows.length === 0 && files.length === 0 && (
        <p className="muted empty">Add invoices, receipts or spreadsheets, pick a schema, and run: each document becomes a row of typed values.</p>
      )}
    </section>
  );
}

function suggestionFields(suggestion: SchemaSuggestion): Record<string, unknown> {
  const properties = (suggestion.schema as { properties?: unknown }).properties;
  return properties !== null && typeof properties === "object" ? (properties as Record<string, unknown>) : {};
}
