// The candidates of a run, one row each: provider, model, prompt, schema
// version, OCR; with each one's progress while it runs.
import type { ProviderConfig } from "../ipc";
import { emptyCandidate, progressText, type CandidateRow, type Progress } from "./model";

interface Props {
  rows: CandidateRow[];
  onChange: (rows: CandidateRow[]) => void;
  providers: ProviderConfig[];
  defaultProvider: string;
  disabled: boolean;
  progress: Record<number, Progress>;
  showProgress: boolean;
}

export function CandidatesEditor({ rows, onChange, providers, defaultProvider, disabled, progress, showProgress }: Props) {
  const set = (i: number, patch: Partial<CandidateRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="card eval-candidates" data-testid="candidates">
      <legend>Candidates</legend>
      <table className="eval-candidate-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Provider</th>
            <th scope="col">Model</th>
            <th scope="col">Prompt (optional)</th>
            <th scope="col">Schema version</th>
            <th scope="col">OCR</th>
            <th scope="col"><span className="visually-hidden">Progress</span></th>
            <th scope="col"><span className="visually-hidden">Remove</span></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const p = progress[i];
            return (
              <tr key={i} data-testid="candidate-row">
                <td>{i + 1}</td>
                <td>
                  <select aria-label={`Provider of candidate ${i + 1}`} value={row.providerId} disabled={disabled} onChange={(e) => set(i, { providerId: e.target.value })}>
                    {providers.map((p) => (
                      <option key={p.id} value={p.id}>{p.label}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <input aria-label={`Model of candidate ${i + 1}`} value={row.model} disabled={disabled} onChange={(e) => set(i, { model: e.target.value })} placeholder="the provider's default" />
                </td>
                <td>
                  <input aria-label={`Prompt of candidate ${i + 1}`} value={row.prompt} disabled={disabled} onChange={(e) => set(i, { prompt: e.target.value })} />
                </td>
                <td>
                  <input aria-label={`Schema version of candidate ${i + 1}`} className="eval-version" inputMode="numeric" value={row.schemaVersion} disabled={disabled} onChange={(e) => set(i, { schemaVersion: e.target.value })} placeholder="the set's" />
                </td>
                <td>
                  <input type="checkbox" aria-label={`OCR for candidate ${i + 1}`} checked={row.ocr} disabled={disabled} onChange={(e) => set(i, { ocr: e.target.checked })} />
                </td>
                <td className="small" data-testid="candidate-progress">
                  {showProgress && p !== undefined && (
                    <>
                      {progressText(p)}
                      {p.reused && " "}
                      {p.reused && <span className="badge badge-muted" title="Its results are an earlier run's: no request was made">reused</span>}
                    </>
                  )}
                </td>
                <td>
                  <button type="button" className="ghost" aria-label={`Remove candidate ${i + 1}`} disabled={disabled || rows.length === 1} onClick={() => onChange(rows.filter((_, j) => j !== i))}>✕</button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="button" onClick={() => onChange([...rows, emptyCandidate(defaultProvider)])} disabled={disabled}>Add a candidate</button>
    </fieldset>
  );
}
