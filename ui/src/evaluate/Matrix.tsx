// The matrix: a row per field and "overall", a column per candidate; each
// cell `correct/scored` and its percent on its accuracy band's colour. A
// cell opens the field's disagreements.
import type { EvalRunView, ScoreCell } from "../ipc";
import { accuracyBand, BANDS, cellText } from "./model";

export const OVERALL = "overall";

interface Props {
  view: EvalRunView;
  selected: string | null;
  onSelect: (field: string) => void;
}

export function Matrix({ view, selected, onSelect }: Props) {
  const rows: { field: string; cells: ScoreCell[] }[] = [
    ...view.fields.map((field, i) => ({ field, cells: view.candidates.map((c) => c.cells[i] ?? { field, correct: 0, scored: 0 }) })),
    { field: OVERALL, cells: view.candidates.map((c) => c.overall) },
  ];
  return (
    <div className="eval-matrix-wrap">
      <table className="eval-matrix" data-testid="matrix" aria-label="Accuracy by field and candidate">
        <thead>
          <tr>
            <th scope="col">Field</th>
            {view.candidates.map((c) => (
              <th scope="col" key={c.position}>{c.candidate.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.field} className={row.field === OVERALL ? "eval-overall" : undefined} aria-selected={selected === row.field}>
              <th scope="row">{row.field}</th>
              {row.cells.map((cell, i) => {
                const band = accuracyBand(cell.correct, cell.scored);
                const label = view.candidates[i]?.candidate.label ?? "";
                return (
                  <td key={i} className={`eval-cell band-${band ?? "none"}`}>
                    <button type="button" data-testid="matrix-cell" data-field={row.field} data-candidate={label} onClick={() => onSelect(row.field)} title={`Disagreements on ${row.field}`}>
                      {cellText(cell)}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="eval-legend small" aria-label="Accuracy colours" data-testid="legend">
        {BANDS.map((b) => (
          <li key={b.band}>
            <span className={`eval-swatch band-${b.band}`} aria-hidden="true" />
            {b.label}
          </li>
        ))}
      </ul>
    </div>
  );
}
