import type { FieldEvidence } from "../ipc";
import { confidenceText, evidenceUnder, morePlacesText, originText, problemsOf, statusText } from "./evidence";
import type { Column, DocRow } from "./table";

interface Props {
  row: DocRow;
  /** The selected value's key, and the column it is in. */
  field: string;
  column: Column | null;
  evidence: FieldEvidence | null;
  /** The place shown, of `evidence.places`. */
  placeIndex: number;
  onPlace: (index: number) => void;
  onSelectField: (key: string) => void;
  /** What went wrong putting a clicked word into the value. */
  error: string | null;
}

/** Where the selected value was found: its status, the quote around it, and its other places. */
export function EvidencePanel({ row, field, column, evidence, placeIndex, onPlace, onSelectField, error }: Props) {
  const places = evidence?.places ?? [];
  const place = places[placeIndex] ?? null;
  const more = morePlacesText(places);
  // An array column holds several values: each can be picked.
  const inColumn = column === null ? [] : evidenceUnder(row, column);
  const checked = row.checked.includes(field);
  const origin = originText(evidence?.origin);
  return (
    <section className="evidence" aria-label={`Where ${field} was found`} data-testid="evidence" data-key={field}>
      <header className="row">
        <strong className="evidence-key">{field}</strong>
        {evidence === null ? (
          <span className="muted small" data-testid="evidence-status">No evidence for this value</span>
        ) : (
          <>
            <span className={`evidence-status evidence-${evidence.status}`} data-testid="evidence-status">{statusText(evidence.status)}</span>
            {evidence.confidence !== null && <span className="muted small" data-testid="evidence-confidence">{confidenceText(evidence.confidence)}</span>}
          </>
        )}
        {checked && <span className="evidence-checked small" data-testid="evidence-checked">✓ checked</span>}
      </header>
      {origin !== null && <p className="small evidence-origin" data-testid="evidence-origin">{origin}</p>}
      {evidence !== null && problemsOf(evidence).length > 0 && (
        <ul className="small evidence-problems" data-testid="evidence-problems">
          {problemsOf(evidence).map((problem) => <li key={problem}>{problem}</li>)}
        </ul>
      )}
      {inColumn.length > 1 && column !== null && (
        <label className="inline small">
          Value in {column.key}
          <select value={field} onChange={(e) => onSelectField(e.target.value)} data-testid="evidence-key">
            {inColumn.map((e) => <option key={e.key} value={e.key}>{e.key}</option>)}
          </select>
        </label>
      )}
      {place !== null && (
        <figure className="evidence-place">
          <blockquote data-testid="evidence-quote">{place.quote}</blockquote>
          <figcaption className="muted small">
            Page {place.page}
            {place.labelled ? " · beside its label" : ""}
            {place.box === null ? " · no position on the page" : ""}
          </figcaption>
        </figure>
      )}
      {more !== null && (
        <div className="row evidence-places">
          <button type="button" className="icon" aria-label="Previous place" disabled={placeIndex === 0} onClick={() => onPlace(placeIndex - 1)}>‹</button>
          <span className="small" data-testid="evidence-places">{placeIndex === 0 ? more : `Place ${placeIndex + 1} of ${places.length}`}</span>
          <button type="button" className="icon" aria-label="Next place" disabled={placeIndex >= places.length - 1} onClick={() => onPlace(placeIndex + 1)}>›</button>
        </div>
      )}
      <p className="muted small">Click a word on the page to set {field} to it; shift-click for its whole line.</p>
      {error !== null && <p className="error small" role="alert" data-testid="evidence-error">{error}</p>}
    </section>
  );
}
