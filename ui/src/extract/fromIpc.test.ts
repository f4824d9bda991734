import { describe, expect, it } from "vitest";
import type { ExtractEvent, FieldEvidence, JobRow, JobView } from "../ipc";
import { createdEvent, mapExtractEvent, resultFromRow } from "./fromIpc";
import { applyJobEvent, applyResults, applyRow, cellText, changedColumns, progressLine, schemaColumns, type TableState } from "./table";

const schema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    total: { type: "number" },
    vendor: { type: "object", properties: { name: { type: "string" } } },
  },
};

function row(position: number, path: string, patch: Partial<JobRow> = {}): JobRow {
  return {
    position,
    path,
    fileName: path.split("/").pop() ?? path,
    status: "pending",
    values: null,
    modelValues: null,
    changed: [],
    error: null,
    errorCode: null,
    inputTokens: 0,
    outputTokens: 0,
    callId: null,
    evidence: [],
    checked: [],
    ...patch,
  };
}

const job: JobView = {
  jobId: "j1",
  schemaName: "invoice",
  schemaVersion: 2,
  schema,
  models: ["smollm2"],
  status: "running",
  columns: [],
  rows: [row(0, "/d/a.pdf"), row(1, "/d/b.pdf")],
  totals: { done: 0, failed: 0, pending: 2, inputTokens: 0, outputTokens: 0 },
  createdAt: 1,
  finishedAt: null,
  needsReview: 0,
};

const aValues = { invoice_number: "A-1", total: 10, vendor: { name: "ACME" } };
const aDone = row(0, "/d/a.pdf", { status: "completed", values: aValues, modelValues: aValues, inputTokens: 900, outputTokens: 30, callId: "c0" });
const bFailed = row(1, "/d/b.pdf", { status: "failed", error: "the PDF is damaged", errorCode: "document", inputTokens: 5, callId: "c1" });

function play(events: ExtractEvent[]): { state: TableState; errors: string[] } {
  let state = applyJobEvent({ jobId: null, phase: "idle", rows: [], message: null, totals: null, needsReview: 0 }, createdEvent(job));
  const errors: string[] = [];
  for (const e of events) {
    const mapped = mapExtractEvent(e);
    if (mapped.kind === "event") state = applyJobEvent(state, mapped.event);
    if (mapped.kind === "error") errors.push(`${mapped.code}: ${mapped.message}`);
  }
  return { state, errors };
}

describe("the IPC's extraction events, as the table", () => {
  it("fills the rows from status, started, row and finished events", () => {
    const columns = schemaColumns(schema);
    const { state: mid } = play([
      { kind: "status", jobId: "j1", message: "Starting the local model…" },
      { kind: "started", jobId: "j1", position: 0 },
    ]);
    expect(mid.message).toBe("Starting the local model…");
    expect(mid.rows.map((r) => [r.name, r.status])).toEqual([
      ["a.pdf", "running"],
      ["b.pdf", "queued"],
    ]);

    const { state, errors } = play([
      { kind: "started", jobId: "j1", position: 0 },
      { kind: "started", jobId: "j1", position: 1 },
      { kind: "row", jobId: "j1", row: aDone },
      { kind: "row", jobId: "j1", row: bFailed },
      { kind: "finished", jobId: "j1", status: "failed", totals: { done: 1, failed: 1, pending: 0, inputTokens: 905, outputTokens: 30 } },
    ]);
    expect(errors).toEqual([]);
    expect(state.phase).toBe("finished");
    expect(state.rows.map((r) => [r.status, r.error, r.callId, r.inputTokens, r.outputTokens])).toEqual([
      ["completed", null, "c0", 900, 30],
      ["failed", "the PDF is damaged", "c1", 5, 0],
    ]);
    expect(columns.map((c) => cellText(state.rows[0]!, c))).toEqual(["A-1", "10", "ACME"]);
    expect(state.totals).toEqual({ done: 1, failed: 1, pending: 0, inputTokens: 905, outputTokens: 30 });
    expect(progressLine(state)).toEqual({ total: 2, done: 1, failed: 1, inputTokens: 905, outputTokens: 30 });
  });

  it("shows the backend's totals once the job ended, not the rows added up", () => {
    // Tokens the backend counts beyond the rows' (e.g. a retried call): its figures win.
    const backend = { done: 1, failed: 1, pending: 0, inputTokens: 1000, outputTokens: 99 };
    const { state: running } = play([
      { kind: "row", jobId: "j1", row: aDone },
      { kind: "row", jobId: "j1", row: bFailed },
    ]);
    expect(progressLine(running)).toEqual({ total: 2, done: 1, failed: 1, inputTokens: 905, outputTokens: 30 });
    const { state } = play([
      { kind: "row", jobId: "j1", row: aDone },
      { kind: "row", jobId: "j1", row: bFailed },
      { kind: "finished", jobId: "j1", status: "failed", totals: backend },
    ]);
    expect(progressLine(state)).toEqual({ total: 2, done: 1, failed: 1, inputTokens: 1000, outputTokens: 99 });
    // A stored job's view brings its totals too.
    const reopened = applyResults(state, "j1", [resultFromRow(aDone), resultFromRow(bFailed)], { ...backend, inputTokens: 1200 });
    expect(progressLine(reopened).inputTokens).toBe(1200);
  });

  it("marks a cancelled run and reports a run-level error", () => {
    const { state, errors } = play([
      { kind: "started", jobId: "j1", position: 0 },
      { kind: "row", jobId: "j1", row: aDone },
      { kind: "finished", jobId: "j1", status: "cancelled", totals: { done: 1, failed: 0, pending: 1, inputTokens: 900, outputTokens: 30 } },
      { kind: "error", jobId: "j1", error: { code: "store", message: "disk full" } },
    ]);
    expect(state.phase).toBe("cancelled");
    expect(state.rows.map((r) => r.status)).toEqual(["completed", "cancelled"]);
    expect(errors).toEqual(["store: disk full"]);
  });

  it("ignores a row event that is still pending", () => {
    expect(mapExtractEvent({ kind: "row", jobId: "j1", row: row(0, "/d/a.pdf") })).toEqual({ kind: "none" });
  });

  it("reads a revised row: the model's values kept, the revision shown and its fields marked", () => {
    const revised = { ...aValues, vendor: { name: "ACME Ltd" } };
    const result = resultFromRow({ ...aDone, values: revised, changed: ["vendor"] });
    expect(result).toEqual({
      position: 0,
      path: "/d/a.pdf",
      status: "completed",
      values: aValues,
      revised,
      error: null,
      inputTokens: 900,
      outputTokens: 30,
      callId: "c0",
      evidence: [],
      checked: [],
    });
    const columns = schemaColumns(schema);
    let state = applyResults(play([]).state, "j1", [resultFromRow(aDone), resultFromRow(bFailed)]);
    expect(changedColumns(state.rows[0]!, columns)).toEqual([]);
    state = applyRow(state, result);
    expect(changedColumns(state.rows[0]!, columns)).toEqual(["vendor.name"]);
    expect(cellText(state.rows[0]!, columns[2]!)).toBe("ACME Ltd");
    // Without a change the row has no revision to show.
    expect(resultFromRow(aDone).revised).toBeNull();
  });

  it("carries each row's evidence and checked fields, and the job's count of values to look at", () => {
    const evidence: FieldEvidence[] = [
      { key: "invoice_number", status: "exact", confidence: "high", places: [{ page: 1, quote: "Invoice A-1", box: { x: 0.1, y: 0.1, width: 0.2, height: 0.02 }, labelled: true }] },
      { key: "total", status: "not_found", confidence: "low", places: [] },
    ];
    const found = { ...aDone, evidence, checked: ["total"] };
    const { state } = play([{ kind: "row", jobId: "j1", row: found }]);
    expect([state.rows[0]!.evidence, state.rows[0]!.checked]).toEqual([evidence, ["total"]]);
    expect(state.needsReview).toBe(0);
    // The stored view's rows and count replace the live ones.
    const stored = applyResults(state, "j1", [resultFromRow({ ...found, checked: [] }), resultFromRow(bFailed)], job.totals, 1);
    expect(stored.rows.map((r) => [r.evidence.map((e) => e.status), r.checked])).toEqual([
      [["exact", "not_found"], []],
      [[], []],
    ]);
    expect(stored.needsReview).toBe(1);
    // A row a check or a correction returns keeps the count until the next view.
    expect(applyRow(stored, resultFromRow(found)).rows[0]!.checked).toEqual(["total"]);
    expect(applyRow(stored, resultFromRow(found)).needsReview).toBe(1);
  });
});
