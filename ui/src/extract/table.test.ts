import { describe, expect, it } from "vitest";
import type { JsonValue } from "../schema/model";
import {
  applyJobEvent,
  applyResults,
  applyRevision,
  applyRow,
  cellText,
  changedColumns,
  idleTable,
  isChanged,
  loadedTable,
  notCompleted,
  parseInput,
  schemaColumns,
  setValueAt,
  storedPhase,
  progressLine,
  type Column,
  type TableState,
} from "./table";

const schema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    total: { type: ["number", "null"] },
    vendor: { type: "object", properties: { name: { type: "string" }, address: { type: "object", properties: { city: { type: "string" } } } } },
    currency: { type: "string", enum: ["EUR", "USD"] },
    line_items: { type: "array", items: { type: "object", properties: { price: { type: "number" } } } },
    meta: { type: "object" },
    paid: { type: "boolean" },
  },
} satisfies JsonValue;

const paths = ["/docs/a.pdf", "/docs/sub/b.png", "C:\\scans\\c.pdf"];

function run(...events: Parameters<typeof applyJobEvent>[1][]): TableState {
  return events.reduce(applyJobEvent, idleTable);
}

const created = { kind: "created", jobId: "job-1", paths } as const;

describe("columns", () => {
  it("follow the schema's property order and flatten nested objects", () => {
    const columns = schemaColumns(schema);
    expect(columns.map((c) => c.key)).toEqual([
      "invoice_number",
      "total",
      "vendor.name",
      "vendor.address.city",
      "currency",
      "line_items",
      "meta",
      "paid",
    ]);
    expect(columns.map((c) => [c.type, c.json])).toEqual([
      ["string", false],
      ["number", false],
      ["string", false],
      ["string", false],
      ["string", false],
      ["array", true],
      ["object", true],
      ["boolean", false],
    ]);
    expect(columns[3]!.path).toEqual(["vendor", "address", "city"]);
    expect(columns[4]!.enumValues).toEqual(["EUR", "USD"]);
  });

  it("are empty for anything that is not an object schema", () => {
    expect(schemaColumns(null)).toEqual([]);
    expect(schemaColumns({ type: "object" })).toEqual([]);
    expect(schemaColumns("x")).toEqual([]);
  });
});

describe("rows from job events", () => {
  it("start queued, one per file, named by the file", () => {
    const state = run(created);
    expect(state.jobId).toBe("job-1");
    expect(state.phase).toBe("running");
    expect(state.rows.map((r) => [r.position, r.name, r.status])).toEqual([
      [0, "a.pdf", "queued"],
      [1, "b.png", "queued"],
      [2, "c.pdf", "queued"],
    ]);
  });

  it("fill in as progress arrives: running, then values and tokens or an error", () => {
    const values = { invoice_number: "INV-7", total: 12.5, vendor: { name: "ACME", address: { city: "Lyon" } }, line_items: [{ price: 12.5 }], paid: false };
    const state = run(
      created,
      { kind: "progress", position: 1, path: paths[1]!, status: "started", inputTokens: 0, outputTokens: 0, error: null },
      { kind: "progress", position: 0, path: paths[0]!, status: "started", inputTokens: 0, outputTokens: 0, error: null },
      { kind: "progress", position: 0, path: paths[0]!, status: "completed", inputTokens: 812, outputTokens: 40, error: null, values, callId: "call-a" },
      { kind: "progress", position: 1, path: paths[1]!, status: "failed", inputTokens: 300, outputTokens: 0, error: "the model refused", values: null },
    );
    expect(state.rows.map((r) => [r.status, r.inputTokens, r.outputTokens, r.error, r.callId])).toEqual([
      ["completed", 812, 40, null, "call-a"],
      ["failed", 300, 0, "the model refused", null],
      ["queued", 0, 0, null, null],
    ]);
    const columns = schemaColumns(schema);
    expect(columns.map((c) => cellText(state.rows[0]!, c))).toEqual(["INV-7", "12.5", "ACME", "Lyon", "", '[{"price":12.5}]', "", "false"]);
    expect(columns.map((c) => cellText(state.rows[1]!, c))).toEqual(["", "", "", "", "", "", "", ""]);
    // No totals from the backend while the job runs: the line counts the rows.
    expect(state.totals).toBeNull();
    expect(progressLine(state)).toEqual({ total: 3, done: 1, failed: 1, inputTokens: 1112, outputTokens: 40 });
  });

  it("marks what never ran as cancelled when the job is cancelled", () => {
    const state = run(
      created,
      { kind: "progress", position: 0, path: paths[0]!, status: "started", inputTokens: 0, outputTokens: 0, error: null },
      { kind: "progress", position: 2, path: paths[2]!, status: "completed", inputTokens: 5, outputTokens: 6, error: null, values: { total: 1 } },
      { kind: "finished", cancelled: true },
    );
    expect(state.phase).toBe("cancelled");
    expect(state.rows.map((r) => r.status)).toEqual(["cancelled", "cancelled", "completed"]);
    expect(run(created, { kind: "finished", cancelled: false }).phase).toBe("finished");
  });

  it("runs again only what is not completed when resumed", () => {
    let state = run(
      created,
      { kind: "progress", position: 0, path: paths[0]!, status: "completed", inputTokens: 5, outputTokens: 6, error: null, values: { total: 1 } },
      { kind: "progress", position: 1, path: paths[1]!, status: "failed", inputTokens: 3, outputTokens: 0, error: "refused" },
      { kind: "finished", cancelled: true },
    );
    expect(notCompleted(state)).toBe(2);
    state = applyJobEvent(state, { kind: "resumed", jobId: "job-1" });
    expect(state.phase).toBe("running");
    expect(state.rows.map((r) => [r.status, r.error])).toEqual([
      ["completed", null],
      ["queued", null],
      ["queued", null],
    ]);
    expect(notCompleted(state)).toBe(2);
  });

  it("adds a row for a position it did not know, in order", () => {
    const state = run({ kind: "created", jobId: "j", paths: ["x"] }, { kind: "progress", position: 3, path: "/d/z.txt", status: "started", inputTokens: 0, outputTokens: 0, error: null });
    expect(state.rows.map((r) => [r.position, r.name, r.status])).toEqual([
      [0, "x", "queued"],
      [3, "z.txt", "running"],
    ]);
  });
});

describe("stored results and revisions", () => {
  const results = [
    { position: 1, path: paths[1]!, status: "failed", values: null, revised: null, error: "bad", inputTokens: 3, outputTokens: 0, callId: "c1", evidence: [], checked: [] },
    { position: 0, path: paths[0]!, status: "completed", values: { invoice_number: "1", total: 10, vendor: { name: "A" } }, revised: { invoice_number: "1", total: 11, vendor: { name: "A" } }, error: null, inputTokens: 9, outputTokens: 4, callId: "c0", evidence: [], checked: [] },
    { position: 2, path: paths[2]!, status: "pending", values: null, revised: null, error: null, inputTokens: 0, outputTokens: 0, callId: null, evidence: [], checked: [] },
  ] as const;

  it("replace the rows, showing revised values and marking the changed cells", () => {
    const state = applyResults(run(created, { kind: "finished", cancelled: true }), "job-1", results.map((r) => ({ ...r })));
    const columns = schemaColumns(schema);
    expect(state.rows.map((r) => [r.position, r.status])).toEqual([
      [0, "completed"],
      [1, "failed"],
      [2, "cancelled"],
    ]);
    expect(cellText(state.rows[0]!, columns[1]!)).toBe("11");
    expect(changedColumns(state.rows[0]!, columns)).toEqual(["total"]);
    expect(changedColumns(state.rows[1]!, columns)).toEqual([]);
  });

  it("reopen a stored job with its revisions", () => {
    const state = loadedTable("job-9", "finished", results.map((r) => ({ ...r })));
    expect(state.jobId).toBe("job-9");
    expect(state.phase).toBe("finished");
    expect(state.rows.map((r) => [r.position, r.status])).toEqual([
      [0, "completed"],
      [1, "failed"],
      [2, "queued"],
    ]);
    expect(changedColumns(state.rows[0]!, schemaColumns(schema))).toEqual(["total"]);
    expect(loadedTable("job-9", "cancelled", results.map((r) => ({ ...r }))).rows[2]!.status).toBe("cancelled");
    // A job a crash cut short opens interrupted, its rows not done queued for the resume.
    const interrupted = loadedTable("job-9", storedPhase("interrupted"), results.map((r) => ({ ...r })));
    expect(interrupted.phase).toBe("interrupted");
    expect(interrupted.rows[2]!.status).toBe("queued");
    expect(storedPhase("running")).toBe("finished");
  });

  it("keep a document that is still running as running while its result is pending", () => {
    const running = run(created, { kind: "progress", position: 2, path: paths[2]!, status: "started", inputTokens: 0, outputTokens: 0, error: null });
    const state = applyResults(running, "job-1", results.map((r) => ({ ...r })));
    expect(state.rows.map((r) => r.status)).toEqual(["completed", "failed", "running"]);
    expect(state.phase).toBe("running");
  });

  it("mark a nested cell only where the revision differs, and unmark when it goes back", () => {
    let state = applyResults(run(created), "job-1", results.map((r) => ({ ...r })));
    const columns: Column[] = schemaColumns(schema);
    const vendorName = columns.find((c) => c.key === "vendor.name")!;
    state = applyRevision(state, 0, setValueAt(state.rows[0]!.revised, vendorName.path, "ACME Ltd"));
    expect(changedColumns(state.rows[0]!, columns)).toEqual(["total", "vendor.name"]);
    expect(cellText(state.rows[0]!, vendorName)).toBe("ACME Ltd");
    state = applyRevision(state, 0, { invoice_number: "1", total: 10, vendor: { name: "A" } });
    expect(changedColumns(state.rows[0]!, columns)).toEqual([]);
    expect(isChanged(state.rows[0]!, vendorName)).toBe(false);
  });

  it("replace one row with the stored result a revision returns", () => {
    let state = applyResults(run(created), "job-1", results.map((r) => ({ ...r })));
    state = applyRow(state, { ...results[0], status: "completed", values: { total: 4 }, revised: { total: 5 }, error: null, callId: "c9" });
    const columns = schemaColumns(schema);
    expect(state.rows[1]!.status).toBe("completed");
    expect(cellText(state.rows[1]!, columns[1]!)).toBe("5");
    expect(changedColumns(state.rows[1]!, columns)).toEqual(["total"]);
    expect(state.rows[1]!.callId).toBe("c9");
    expect(state.rows.map((r) => r.position)).toEqual([0, 1, 2]);
  });

  it("keep the run's status message until it finishes", () => {
    const state = run(created, { kind: "status", message: "Starting the local model…" });
    expect(state.message).toBe("Starting the local model…");
    expect(applyJobEvent(state, { kind: "finished", cancelled: false }).message).toBeNull();
  });

  it("show strings exactly as the model gave them, other values as JSON", () => {
    const state = applyResults(run(created), "job-1", [
      { position: 0, path: "/a", status: "completed", values: { invoice_number: " INV 7 ", total: 0, paid: true, line_items: [], meta: { k: null } }, revised: null, error: null, inputTokens: 1, outputTokens: 1, callId: null, evidence: [], checked: [] },
    ]);
    const columns = schemaColumns(schema);
    expect(columns.map((c) => cellText(state.rows[0]!, c))).toEqual([" INV 7 ", "0", "", "", "", "[]", '{"k":null}', "true"]);
  });

  it("sets nested values without touching the rest", () => {
    const before = { a: 1, v: { name: "x", city: "y" } };
    expect(setValueAt(before, ["v", "name"], "z")).toEqual({ a: 1, v: { name: "z", city: "y" } });
    expect(before).toEqual({ a: 1, v: { name: "x", city: "y" } });
    expect(setValueAt(null, ["v", "w", "k"], 2)).toEqual({ v: { w: { k: 2 } } });
  });
});

describe("typed input", () => {
  const col = (type: string, json = false): Column => ({ key: "k", path: ["k"], type, json, enumValues: [] });

  it("converts text to the column's type, empty to null", () => {
    expect(parseInput(col("number"), " 1,234.50 ")).toEqual({ ok: true, value: 1234.5 });
    expect(parseInput(col("number"), "12a")).toEqual({ ok: false, error: "Not a number." });
    expect(parseInput(col("integer"), "3.5")).toEqual({ ok: false, error: "Not a whole number." });
    expect(parseInput(col("integer"), "7")).toEqual({ ok: true, value: 7 });
    expect(parseInput(col("boolean"), "true")).toEqual({ ok: true, value: true });
    expect(parseInput(col("boolean"), "yes")).toEqual({ ok: false, error: "Use true or false." });
    expect(parseInput(col("string"), " keep spaces ")).toEqual({ ok: true, value: " keep spaces " });
    expect(parseInput(col("string"), "   ")).toEqual({ ok: true, value: null });
    expect(parseInput(col("array", true), '[{"price": 2}]')).toEqual({ ok: true, value: [{ price: 2 }] });
    expect(parseInput(col("array", true), "[{")).toEqual({ ok: false, error: "Not valid JSON." });
  });
});
