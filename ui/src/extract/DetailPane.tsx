import { useEffect, useId, useRef, useState } from "react";
import type { ExtractSource, Transcript as TranscriptData } from "./source";
import { describeError } from "../format";
import type { PageWord } from "../ipc";
import type { JsonValue } from "../schema/model";
import { columnOf, defaultKey, evidenceFor, isUnder, lineOf } from "./evidence";
import { EvidencePanel } from "./EvidencePanel";
import { PageOverlay } from "./PageOverlay";
import { DocumentPreview } from "./Preview";
import { cellText, isChanged, parseInput, valueAt, type Column, type DocRow } from "./table";

interface Props {
  source: Pick<ExtractSource, "documentPreview" | "callTranscript" | "pageWords">;
  row: DocRow;
  columns: Column[];
  /** The selected value (an evidence key), if any. */
  field: string | null;
  onSelectField: (key: string) => void;
  /** Saves a corrected value as a revision. */
  onRevise: (path: string[], value: JsonValue) => Promise<void>;
  /** Sets the value at `key` to a clicked word's text (parsed as its type); resolves to what went wrong, if anything. */
  onSetText: (key: string, text: string) => Promise<string | null>;
  onClose: () => void;
  /** Opens the call in the Transcripts screen, when the app has one. */
  onOpenTranscript?: (callId: string) => void;
}

/**
 * One document: its preview beside its values, which can be corrected. A
 * selected value shows where it was found: the page turns to its place,
 * its box is drawn over the picture, and a click on a word sets it.
 * Mounted once per document (keyed by the row), so its page starts at the
 * selected value's.
 */
export function DetailPane({ source, row, columns, field, onSelectField, onRevise, onSetText, onClose, onOpenTranscript }: Props) {
  const self = useRef<HTMLElement>(null);
  // Bring a newly opened document into view (below the table).
  useEffect(() => {
    self.current?.scrollIntoView?.({ block: "nearest" });
  }, [row.position]);

  const evidence = field === null ? null : evidenceFor(row, field);
  const places = evidence?.places ?? [];
  const [placeAt, setPlaceAt] = useState({ field, index: 0 });
  const placeIndex = placeAt.field === field ? Math.min(placeAt.index, Math.max(places.length - 1, 0)) : 0;
  const place = places[placeIndex] ?? null;
  const [page, setPage] = useState(place?.page ?? 1);
  // Another value or place selected: turn to its page (while rendering, so
  // the preview asks for that page only). A value without a place keeps the page.
  const target = `${field}|${placeIndex}`;
  const [turnedFor, setTurnedFor] = useState(target);
  if (turnedFor !== target) {
    setTurnedFor(target);
    if (place !== null) setPage(place.page);
  }
  const [wordError, setWordError] = useState<string | null>(null);
  const [errorFor, setErrorFor] = useState(field);
  if (errorFor !== field) {
    setErrorFor(field);
    setWordError(null);
  }

  async function setFromWord(word: PageWord, words: readonly PageWord[], line: boolean) {
    if (field === null) return;
    setWordError(await onSetText(field, line ? lineOf(words, word) : word.text));
  }

  const selectColumn = (column: Column) => {
    // A value inside the column (an array's item) stays selected.
    if (field === null || !isUnder(field, column.key)) onSelectField(defaultKey(row, column));
  };
  const selectedColumn = field === null ? null : columnOf(columns, field);
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
        <DocumentPreview
          source={source}
          path={row.path}
          name={row.name}
          page={page}
          onPage={setPage}
          overlay={
            // Only a completed document's values can be set.
            field === null || row.status !== "completed"
              ? undefined
              : (shown) => (
                  <PageOverlay
                    source={source}
                    path={row.path}
                    page={shown}
                    box={place !== null && place.page === shown ? place.box : null}
                    boxKey={target}
                    onWord={(word, words, line) => void setFromWord(word, words, line)}
                  />
                )
          }
        />
        <div className="detail-values">
          {row.error !== null && <p className="error" role="alert">{row.error}</p>}
          {field !== null && row.status === "completed" && (
            <EvidencePanel
              row={row}
              field={field}
              column={selectedColumn}
              evidence={evidence}
              placeIndex={placeIndex}
              onPlace={(index) => setPlaceAt({ field, index })}
              onSelectField={onSelectField}
              error={wordError}
            />
          )}
          {row.status === "completed" ? (
            <form className="values-form" aria-label={`Values of ${row.name}`} onSubmit={(e) => e.preventDefault()}>
              {columns.map((c) => (
                <ValueField
                  key={`${row.position}:${c.key}`}
                  row={row}
                  column={c}
                  selected={selectedColumn?.key === c.key}
                  onSelect={() => selectColumn(c)}
                  onRevise={onRevise}
                />
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

interface ValueFieldProps {
  row: DocRow;
  column: Column;
  /** The selected value is this field's (or inside it). */
  selected: boolean;
  onSelect: () => void;
  onRevise: Props["onRevise"];
}

function ValueField({ row, column, selected, onSelect, onRevise }: ValueFieldProps) {
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
    // Focus (a click on the label or the box, or a Tab into it) selects the field.
    <div
      className={`value-field${changed ? " changed" : ""}${selected ? " selected" : ""}`}
      data-changed={changed ? "true" : undefined}
      data-selected={selected ? "true" : undefined}
      onFocus={onSelect}
    >
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
