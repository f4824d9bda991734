// The IPC's extraction types (generated from Rust) as the table's events and
// rows: pure, so the mapping is unit-tested against the exact IPC shapes.
import type { ExtractEvent, IpcError, JobRow, JobView } from "../ipc";
import type { JobEvent, ResultRow } from "./table";

/** A stored row: `values` are the revision's when there is one, else the model's. */
export function resultFromRow(row: JobRow): ResultRow {
  return {
    position: row.position,
    path: row.path,
    status: row.status,
    values: row.modelValues,
    revised: row.changed.length > 0 ? row.values : null,
    error: row.error,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    callId: row.callId,
    evidence: row.evidence,
    checked: row.checked,
  };
}

/** The table's first event for a job the backend just created. */
export function createdEvent(job: JobView): JobEvent {
  return { kind: "created", jobId: job.jobId, paths: job.rows.map((r) => r.path) };
}

export type Mapped =
  | { kind: "event"; event: JobEvent }
  | { kind: "error"; code: IpcError["code"]; message: string }
  | { kind: "none" };

/** One channel event as what the table does with it (`error` ends the run with a failure). */
export function mapExtractEvent(event: ExtractEvent): Mapped {
  switch (event.kind) {
    case "status":
      return { kind: "event", event: { kind: "status", message: event.message } };
    case "started":
      return {
        kind: "event",
        event: { kind: "progress", position: event.position, path: "", status: "started", inputTokens: 0, outputTokens: 0, error: null },
      };
    case "row": {
      const row = event.row;
      if (row.status === "pending") return { kind: "none" };
      return {
        kind: "event",
        event: {
          kind: "progress",
          position: row.position,
          path: row.path,
          status: row.status,
          inputTokens: row.inputTokens,
          outputTokens: row.outputTokens,
          error: row.error,
          values: row.modelValues,
          callId: row.callId,
          evidence: row.evidence,
          checked: row.checked,
        },
      };
    }
    case "finished":
      return { kind: "event", event: { kind: "finished", cancelled: event.status === "cancelled", totals: event.totals } };
    case "error":
      return { kind: "error", code: event.error.code, message: event.error.message };
  }
}

/**
 * Starts a run (`start` is the source's start or resume) and follows its
 * events until `finished` (resolves) or `error` (rejects with its
 * `IpcError`). `first` makes the table's first event of the job the start
 * resolved with; events that arrive before it wait, so the table exists
 * before its rows change.
 */
export function followJob(
  start: (onEvent: (event: ExtractEvent) => void) => Promise<JobView>,
  first: (job: JobView) => JobEvent,
  onEvent: (event: JobEvent) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let ready = false;
    const early: ExtractEvent[] = [];
    const deliver = (event: ExtractEvent) => {
      const mapped = mapExtractEvent(event);
      if (mapped.kind === "event") {
        onEvent(mapped.event);
        if (mapped.event.kind === "finished") resolve();
      } else if (mapped.kind === "error") {
        reject({ code: mapped.code, message: mapped.message });
      }
    };
    start((event) => (ready ? deliver(event) : early.push(event))).then((job) => {
      onEvent(first(job));
      ready = true;
      early.splice(0).forEach(deliver);
    }, reject);
  });
}
