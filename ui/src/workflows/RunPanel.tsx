import { useMemo } from "react";
import { Timeline } from "../transcripts/Timeline";
import { timelineRows } from "../transcripts/timeline";
import { usageText } from "../transcripts/RowView";
import type { StepNode } from "./graph";
import type { StepRun } from "./runState";

interface Props {
  node: StepNode;
  run: StepRun | undefined;
  runId: string | null;
}

function outputText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** One step's part of the current run: status, logs, outputs and the conversation. */
export function RunPanel({ node, run, runId }: Props) {
  const record = run?.record ?? null;
  const rows = useMemo(
    () =>
      record !== null && record.messages.length > 0
        ? timelineRows({ id: `${runId}/${node.name}`, title: node.name, kind: "step", status: record.status, systemPrompt: null, messages: record.messages.map((message) => ({ message })), usage: record.usage, error: null })
        : [],
    [record, runId, node.name],
  );
  if (run === undefined) return <p className="muted" data-testid="step-run">Not run yet: Run shows each step's logs, outputs and messages here.</p>;
  const outputs = Object.entries(record?.outputs ?? {});
  return (
    <section className="wf-run stack" aria-label={`Run of ${node.name}`} data-testid="step-run">
      <p className="row">
        <span className={`badge wf-status status-${run.status}`} data-testid="step-status">
          {run.status}
        </span>
        {record !== null ? <span className="muted small">{(record.elapsed_ms / 1000).toFixed(2)} s</span> : null}
        {record?.reused ? <span className="badge badge-muted">reused from the earlier run</span> : null}
        {record !== null && (record.usage.input_tokens > 0 || record.usage.output_tokens > 0) ? <span className="muted small">{usageText(record.usage)} tokens</span> : null}
      </p>
      {record?.error ? (
        <p className="error" role="alert" data-testid="step-error">
          {record.error}
        </p>
      ) : null}
      {outputs.length > 0 ? (
        <table className="wf-outputs" data-testid="step-outputs" aria-label="Outputs">
          <tbody>
            {outputs.map(([k, v]) => (
              <tr key={k}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td>{outputText(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {record !== null && record.absent_outputs.length > 0 ? <p className="warning small">Not in the answer (read as empty): {record.absent_outputs.join(", ")}</p> : null}
      <h3 className="small">stdout</h3>
      <pre className="wf-log" data-testid="step-stdout" tabIndex={0} aria-label={`stdout of ${node.name}`}>
        {run.stdout === "" ? <span className="muted">(empty)</span> : run.stdout}
      </pre>
      {run.stderr !== "" ? (
        <>
          <h3 className="small">stderr</h3>
          <pre className="wf-log wf-stderr" data-testid="step-stderr" tabIndex={0} aria-label={`stderr of ${node.name}`}>
            {run.stderr}
          </pre>
        </>
      ) : null}
      {rows.length > 0 ? (
        <>
          <h3 className="small">Messages</h3>
          <Timeline rows={rows} label={`Messages of ${node.name}`} className="tl-short" />
        </>
      ) : null}
    </section>
  );
}
