import { useState } from "react";
import { parseParams } from "./fields";
import type { StepKind } from "./graph";
import type { RunState } from "./runState";
import type { WorkflowRunSummary } from "./source";

interface Props {
  canEdit: boolean;
  hasDags: boolean;
  canRun: boolean;
  /** The selected step's name (re-run starts there). */
  selected: string | null;
  run: RunState;
  history: WorkflowRunSummary[];
  onAdd: (kind: StepKind) => void;
  onRun: (params: [string, string][]) => void;
  onRerun: (step: string) => void;
  onCancel: () => void;
  onShow: (runId: string) => void;
}

/** Adding steps, run params, run, re-run from the selected step, cancel, earlier runs. */
export function Toolbar({ canEdit, hasDags, canRun, selected, run, history, onAdd, onRun, onRerun, onCancel, onShow }: Props) {
  const [paramsText, setParamsText] = useState("");
  const params = parseParams(paramsText);
  const running = run.status === "running";
  return (
    <div className="row wf-toolbar" role="toolbar" aria-label="Steps and runs">
      <button type="button" onClick={() => onAdd("run")} disabled={!canEdit}>
        Add shell step
      </button>
      <button type="button" onClick={() => onAdd("chat")} disabled={!canEdit}>
        Add chat step
      </button>
      <button type="button" onClick={() => onAdd("dag")} disabled={!canEdit || !hasDags} title={hasDags ? undefined : "The file has no named DAGs"}>
        Add dag.run step
      </button>
      <span className="grow" />
      <label htmlFor="wf-params" className="small">
        Params
      </label>
      <input
        id="wf-params"
        type="text"
        className="wf-params"
        placeholder="KEY=value …"
        value={paramsText}
        onChange={(e) => setParamsText(e.target.value)}
        aria-invalid={params.error !== null}
        title={params.error ?? "Over the defaults of the file's params:"}
      />
      <button type="button" className="primary" data-testid="workflow-run" disabled={!canRun || running || params.error !== null} onClick={() => onRun(params.params)}>
        Run
      </button>
      <button
        type="button"
        data-testid="workflow-rerun"
        disabled={selected === null || running || run.runId === null}
        onClick={() => selected !== null && onRerun(selected)}
        title="Runs the selected step and those after it again, reusing the stored outputs of the steps before it"
      >
        Re-run from {selected ?? "step"}
      </button>
      {running ? (
        <button type="button" className="danger" data-testid="workflow-cancel" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
      {history.length > 0 ? (
        <select aria-label="Earlier runs" data-testid="run-history" value={run.runId ?? ""} onChange={(e) => onShow(e.target.value)}>
          {run.runId === null ? <option value="">Earlier runs…</option> : null}
          {history.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id} · {r.status}
              {r.from_step ? ` · from ${r.from_step}` : ""}
            </option>
          ))}
        </select>
      ) : null}
      <span className="small muted" role="status" data-testid="run-status">
        {run.status === "idle" ? "" : `Run ${run.status}${run.error ? `: ${run.error}` : ""}`}
      </span>
    </div>
  );
}
