import { useEffect, useId, useRef, useState } from "react";
import type { ExtractSource, Transcript as TranscriptData } from "./source";
import { describeError } from "../format";
import type { JsonValue } from "../schema/model";
import { DocumentPreview } from "./Preview";
import { cellText, isChanged, parseInput, valueAt, type Column, type DocRow } from "./table";

interface Props {
  source: Pick<ExtractSource, "documentPreview" | "callTranscript">;
  row: DocRow;
  columns: Column[];
  /** Saves a corrected value as a revision. */
  onRevise: (path: string[], value: JsonValue) => Promise<void>;
  onClose: () => void;
  /** Opens the call in the Transcripts screen, when the app has one. */
  onOpenTranscript?: (callId: string) => void;
}

/** One document: its preview beside its values, which can be corrected. */
export function DetailPane({ source, row, columns, onRevise, onClose, onOpenTranscript }: Props) {
  const self = useRef<HTMLElement>(null);
  // Bring a newly opened document into view (below the table).
  useEffect(() => {
    self.current?.scrollIntoView?.({ block: "nearest" });
  }, [row.position]);
  return (
    <section
      ref={self}
      className="detail card"
      aria-labelledby="detail-title"
      data-testid="detail-pane"
      onKeyDown={(e) => {
        if (e.key === "Escape" && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement)) onClose();
      }}
    >
      <header className="row spread">
        <h2 id="detail-title" title={row.path}>{row.name}</h2>
        <button type="button" className="icon" aria-label="Close the document" onClick={onClose}>✕</button>
      </header>
      <div className="detail-body">
        <DocumentPreview source={source} path={row.path} name={row.name} />
        <div className="detail-values">
          {row.error !== null && <p className="error" role="alert">{row.error}</p>}
          {row.status === "completed" ? (
            <form className="values-form" aria-label={`Values of ${row.name}`} onSubmit={(e) => e.preventDefault()}>
              {columns.map((c) => (
                <ValueField key={`${row.position}:${c.key}`} row={row} column={c} onRevise={onRevise} />
              ))}
            </form>
          ) : (
            <p className="muted">{row.status === "failed" ? "No values: the extraction failed." : "No values yet."}</p>
          )}
          {row.callId !== null && onOpenTranscript !== undefined && (
            <button type="button" className="ghost" onClick={() => row.callId !== null && onOpenTranscript(row.callId)} data-testid="open-transcript">
              Open the transcript
            </button>
          )}
          {row.callId !== null && <Transcript source={source} callId={row.callId} />}
        </div>
      </div>
    </section>
  );
}

function ValueField({ row, column, onRevise }: { row: DocRow; column: Column; onRevise: Props["onRevise"] }) {
  const id = useId();
  const shown = cellText(row, column);
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const changed = isChanged(row, column);
  // The text being saved: Enter then the blur that follows (the box is disabled while saving) save once.
  const inFlight = useRef<string | null>(null);
  useEffect(() => setText(shown), [shown]);

  async function commit(next: string) {
    if (next === shown || next === inFlight.current) return;
    const parsed = parseInput(column, next);
    if (!parsed.ok) {
      setError(parsed.error);
      return;
    }
    setError(null);
    setSaving(true);
    inFlight.current = next;
    try {
      await onRevise(column.path, parsed.value);
    } catch (e) {
      setError(`Not saved: ${describeError(e)}`);
    } finally {
      inFlight.current = null;
      setSaving(false);
    }
  }

  const model = valueAt(row.modelValues, column.path);
  const common = {
    id,
    "aria-invalid": error !== null,
    "aria-describedby": error !== null || changed ? `${id}-note` : undefined,
    "data-testid": `value-${column.key}`,
    disabled: saving,
  };
  return (
    <div className={`value-field${changed ? " changed" : ""}`} data-changed={changed ? "true" : undefined}>
      <label htmlFor={id}>{column.key}</label>
      {column.enumValues.length > 0 ? (
        <select {...common} value={text} onChange={(e) => { setText(e.target.value); void commit(e.target.value); }}>
          <option value="">—</option>
          {column.enumValues.map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
        </select>
      ) : column.json ? (
        <textarea {...common} rows={3} value={text} spellCheck={false} onChange={(e) => setText(e.target.value)} onBlur={() => void commit(text)} />
      ) : (
        <input {...common} value={text} spellCheck={false} onChange={(e) => setText(e.target.value)} onBlur={() => void commit(text)} onKeyDown={(e) => { if (e.key === "Enter") void commit(text); if (e.key === "Escape") setText(shown); }} />
      )}
      {(error !== null || changed) && (
        <span id={`${id}-note`} className={error !== null ? "error small" : "muted small"}>
          {error ?? `Edited · the model said ${model === undefined || model === null ? "nothing" : JSON.stringify(model)}`}
        </span>
      )}
    </div>
  );
}

function Transcript({ source, callId }: { source: Pick<ExtractSource, "callTranscript">; callId: string }) {
  const [data, setData] = useState<TranscriptData | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <details
      className="transcript"
      data-testid="transcript"
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open && data === null) {
          source.callTranscript(callId).then(setData, (err: unknown) => setError(describeError(err)));
        }
      }}
    >
      <summary>Transcript of the call</summary>
      {error !== null && <p className="error small">{error}</p>}
      {data !== null && (
        <>
          <p className="muted small">
            Call {callId} · {data.status} · <code>{data.cli}</code>
          </p>
          <pre>{data.body}</pre>
        </>
      )}
    </details>
  );
}
