// A set's earlier runs, newest first: a run opens in the matrix.
import type { EvalRunSummary } from "../ipc";
import { formatDate } from "./model";

interface Props {
  runs: EvalRunSummary[];
  current: string | null;
  onOpen: (runId: string) => void;
  disabled: boolean;
}

export function History({ runs, current, onOpen, disabled }: Props) {
  return (
    <section className="card eval-history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {runs.length === 0 ? (
        <p className="muted small">No run of this set yet.</p>
      ) : (
        <ul className="eval-history-list">
          {runs.map((run) => (
            <li key={run.runId}>
              <button type="button" className="ghost" data-testid="history-run" aria-current={current === run.runId ? "true" : undefined} disabled={disabled} onClick={() => onOpen(run.runId)}>
                <span>{formatDate(run.createdAt)}</span>
                {run.status !== "completed" && <span className="badge badge-muted">{run.status}</span>}
                <span className="small">
                  {run.candidates.map((label, i) => `${label} ${run.overall[i]?.correct ?? 0}/${run.overall[i]?.scored ?? 0}`).join(" · ")}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
