// The documents where some candidate's value of a field is not the truth:
// the truth, each candidate's value with ✓/✗ and its evidence, and the call
// behind it.
import type { Disagreement, EvalRunView } from "../ipc";
import { OVERALL } from "./Matrix";
import { formatValue } from "./model";

interface Props {
  view: EvalRunView;
  field: string;
  onClose: () => void;
  onOpenTranscript?: (callId: string) => void;
}

export function Disagreements({ view, field, onClose, onOpenTranscript }: Props) {
  const rows: Disagreement[] = view.disagreements.filter((d) => field === OVERALL || d.field === field);
  return (
    <section className="card eval-disagreements" aria-labelledby="disagreements-title" data-testid="disagreements">
      <div className="row spread">
        <h2 id="disagreements-title">{field === OVERALL ? "Every disagreement" : `Disagreements on ${field}`}</h2>
        <button type="button" className="ghost" onClick={onClose}>Close</button>
      </div>
      {rows.length === 0 ? (
        <p className="muted small">Every candidate got {field === OVERALL ? "every field" : field} right on every document.</p>
      ) : (
        <table className="eval-disagreement-table">
          <thead>
            <tr>
              <th scope="col">File</th>
              {field === OVERALL && <th scope="col">Field</th>}
              <th scope="col">Truth</th>
              {view.candidates.map((c) => (
                <th scope="col" key={c.position}>{c.candidate.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={`${d.path}|${d.field}`} data-testid="disagreement">
                <th scope="row" title={d.path}>{d.fileName}</th>
                {field === OVERALL && <td>{d.field}</td>}
                <td data-testid="truth">{d.truth}</td>
                {d.values.map((v, i) => (
                  <td key={i} data-testid="candidate-value" data-correct={v.correct} className={v.correct ? "eval-right" : "eval-wrong"}>
                    <span className="eval-mark" aria-label={v.correct ? "right" : "wrong"}>{v.correct ? "✓" : "✗"}</span>{" "}
                    <code data-testid="value">{formatValue(v.value)}</code>
                    {v.error !== null && <span className="muted small"> · {v.error}</span>}
                    {v.evidence !== null && <span className="muted small" data-testid="evidence"> · {v.evidence.replaceAll("_", " ")}</span>}
                    {v.callId !== null && onOpenTranscript !== undefined && (
                      <button type="button" className="ghost small" onClick={() => onOpenTranscript(v.callId!)} data-testid="open-transcript" aria-label={`Open the transcript of ${v.label} on ${d.fileName}`}>
                        Open transcript
                      </button>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
