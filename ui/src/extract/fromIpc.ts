// The IPC's extraction types (generated from Rust) as the table's events and
// rows: pure, so the mapping is unit-tested against the exact IPC shapes.
import type { ExtractEvent, JobRow, JobView } from "../ipc";
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
  };
}

/** The table's first event for a job the backend just created. */
export function createdEvent(job: JobView): JobEvent {
  return { kind: "created", jobId: job.jobId, paths: job.rows.map((r) => r.path) };
}

export type Mapped =
  | { kind: "event"; event: JobEvent }
  | { kind: "error"; code: string; message: string }
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
        },
      };
    }
    case "finished":
      return { kind: "event", event: { kind: "finished", cancelled: event.status === "cancelled" } };
    case "error":
      return { kind: "error", code: event.error.code, message: event.error.message };
  }
}
