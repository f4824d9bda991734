// The Extract screen's table as pure state: the columns a schema gives (the
// same as the CSV export's), one row per document, and a reducer over the job's
// events and results. Components only render this.
import type { FieldEvidence, JobState, JobTotals } from "../ipc";
import { isObject, type JsonObject, type JsonValue } from "../schema/model";

export type RowStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

export interface Column {
  /** Dotted path: `vendor.name`. */
  key: string;
  path: string[];
  /** The leaf property's schema type (`"string"`, `"array"`, ...), or `""` when unknown. */
  type: string;
  /** Objects without properties and arrays are shown (and edited) as JSON. */
  json: boolean;
  /** Allowed values, when the property has an enum. */
  enumValues: JsonValue[];
}

export interface DocRow {
  position: number;
  path: string;
  /** The file's name without its folder. */
  name: string;
  status: RowStatus;
  /** The model's values. */
  modelValues: JsonObject | null;
  /** The user's latest revision, if any. */
  revised: JsonObject | null;
  inputTokens: number;
  outputTokens: number;
  error: string | null;
  callId: string | null;
  /** Where each value shown was found (see evidence.ts); empty until completed. */
  evidence: readonly FieldEvidence[];
  /** Field keys the user checked. */
  checked: readonly string[];
}

/** `interrupted`: a stored job that Sift closed (a crash, a kill) before it finished; Resume goes on. */
export type Phase = "idle" | "running" | "finished" | "cancelled" | "interrupted";

export interface TableState {
  jobId: string | null;
  phase: Phase;
  rows: DocRow[];
  /** The latest status message of the run (e.g. starting the local model). */
  message: string | null;
  /** The job's totals as the backend sent them last; null while none apply (a run just started). */
  totals: JobTotals | null;
  /** The backend's count of values not found and not checked, as of the job's last view. */
  needsReview: number;
}

/** What the job reports, as the screen's adapter hands it over. */
export type JobEvent =
  | { kind: "created"; jobId: string; paths: string[] }
  | {
      kind: "progress";
      position: number;
      path: string;
      status: "started" | "completed" | "failed";
      inputTokens: number;
      outputTokens: number;
      error: string | null;
      values?: JsonValue | null;
      callId?: string | null;
      evidence?: readonly FieldEvidence[];
      checked?: readonly string[];
    }
  /** `totals`: the backend's (absent when the run broke off without them). */
  | { kind: "finished"; cancelled: boolean; totals?: JobTotals }
  | { kind: "status"; message: string }
  /** The job runs again for its documents not yet completed. */
  | { kind: "resumed"; jobId: string };

/** One document's stored result (after a run, or for an older job). */
export interface ResultRow {
  position: number;
  path: string;
  status: "pending" | "completed" | "failed";
  values: JsonValue | null;
  revised: JsonValue | null;
  error: string | null;
  inputTokens: number;
  outputTokens: number;
  callId: string | null;
  evidence: readonly FieldEvidence[];
  checked: readonly string[];
}

export const idleTable: TableState = { jobId: null, phase: "idle", rows: [], message: null, totals: null, needsReview: 0 };

function typeName(schema: JsonObject): string {
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return String(t.find((x) => x !== "null") ?? "");
  return "";
}

/** The columns of a schema, in its property order; nested objects flattened as `a.b` (like the CSV). */
export function schemaColumns(schema: JsonValue | null | undefined): Column[] {
  const out: Column[] = [];
  const walk = (properties: JsonObject, prefix: string[]) => {
    for (const [name, property] of Object.entries(properties)) {
      const path = [...prefix, name];
      const p = isObject(property) ? property : {};
      const type = typeName(p);
      const nested = isObject(p.properties) && Object.keys(p.properties).length > 0 && (type === "object" || type === "");
      if (nested && isObject(p.properties)) {
        walk(p.properties, path);
        continue;
      }
      out.push({
        key: path.join("."),
        path,
        type,
        json: type === "array" || type === "object" || (type === "" && !Array.isArray(p.enum)),
        enumValues: Array.isArray(p.enum) ? p.enum : [],
      });
    }
  };
  if (isObject(schema) && isObject(schema.properties)) walk(schema.properties, []);
  return out;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

function queuedRow(position: number, path: string): DocRow {
  return {
    position,
    path,
    name: baseName(path),
    status: "queued",
    modelValues: null,
    revised: null,
    inputTokens: 0,
    outputTokens: 0,
    error: null,
    callId: null,
    evidence: [],
    checked: [],
  };
}

function asObject(value: JsonValue | null | undefined): JsonObject | null {
  return isObject(value) ? value : null;
}

function patchRow(state: TableState, position: number, patch: (row: DocRow) => DocRow): TableState {
  return { ...state, rows: state.rows.map((r) => (r.position === position ? patch(r) : r)) };
}

export function applyJobEvent(state: TableState, event: JobEvent): TableState {
  switch (event.kind) {
    case "created":
      return { jobId: event.jobId, phase: "running", rows: event.paths.map((p, i) => queuedRow(i, p)), message: null, totals: null, needsReview: 0 };
    case "status":
      return { ...state, message: event.message };
    case "resumed":
      return {
        ...state,
        jobId: event.jobId,
        phase: "running",
        message: null,
        totals: null,
        rows: state.rows.map((r) => (r.status === "completed" ? r : { ...r, status: "queued", error: null })),
      };
    case "progress": {
      const known = state.rows.some((r) => r.position === event.position);
      const base = known ? state : { ...state, rows: [...state.rows, queuedRow(event.position, event.path)].sort((a, b) => a.position - b.position) };
      return patchRow(base, event.position, (row) => {
        if (event.status === "started") return { ...row, status: "running", error: null };
        return {
          ...row,
          status: event.status,
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          error: event.error,
          modelValues: event.values !== undefined ? asObject(event.values) : row.modelValues,
          callId: event.callId !== undefined ? event.callId : row.callId,
          evidence: event.evidence ?? row.evidence,
          checked: event.checked ?? row.checked,
        };
      });
    }
    case "finished":
      return {
        ...state,
        message: null,
        phase: event.cancelled ? "cancelled" : "finished",
        totals: event.totals ?? state.totals,
        rows: state.rows.map((r) =>
          event.cancelled && (r.status === "queued" || r.status === "running") ? { ...r, status: "cancelled" } : r,
        ),
      };
  }
}

/**
 * Replaces the rows with the stored results (values, revisions, call ids,
 * evidence), keeping cancelled marks; `totals` and `needsReview`: the
 * backend's with them.
 */
export function applyResults(
  state: TableState,
  jobId: string,
  results: readonly ResultRow[],
  totals: JobTotals | null = state.totals,
  needsReview: number = state.needsReview,
): TableState {
  const previous = new Map(state.rows.map((r) => [r.position, r]));
  const rows = [...results]
    .sort((a, b) => a.position - b.position)
    .map((r): DocRow => {
      const before = previous.get(r.position);
      const status: RowStatus =
        r.status !== "pending"
          ? r.status
          : before?.status === "cancelled" || state.phase === "cancelled"
            ? "cancelled"
            : before?.status === "running"
              ? "running"
              : "queued";
      return {
        position: r.position,
        path: r.path,
        name: baseName(r.path),
        status,
        modelValues: asObject(r.values),
        revised: asObject(r.revised),
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        error: r.error,
        callId: r.callId,
        evidence: r.evidence,
        checked: r.checked,
      };
    });
  return { ...state, jobId, rows, totals, needsReview };
}

/** The phase a stored job's table opens in, from its stored state. */
export function storedPhase(status: JobState): Phase {
  if (status === "cancelled" || status === "interrupted") return status;
  // A job stored as running runs in this window (a crashed one is interrupted).
  return "finished";
}

/** A stored job's table, reopened (e.g. after a restart). */
export function loadedTable(jobId: string, phase: Phase, results: readonly ResultRow[], totals: JobTotals | null = null, needsReview = 0): TableState {
  return applyResults({ jobId, phase, rows: [], message: null, totals, needsReview }, jobId, results);
}

/** Records the user's revision of a row (the values saved). */
export function applyRevision(state: TableState, position: number, values: JsonObject): TableState {
  return patchRow(state, position, (row) => ({ ...row, revised: values }));
}

/** Replaces one row with its stored result (after a revision). */
export function applyRow(state: TableState, result: ResultRow): TableState {
  return patchRow(state, result.position, (row) => ({
    ...row,
    status: result.status === "pending" ? row.status : result.status,
    modelValues: asObject(result.values),
    revised: asObject(result.revised),
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
    error: result.error,
    callId: result.callId,
    evidence: result.evidence,
    checked: result.checked,
  }));
}

/** The values shown: the revision's when there is one. */
export function rowValues(row: DocRow): JsonObject | null {
  return row.revised ?? row.modelValues;
}

export function valueAt(values: JsonValue | null | undefined, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = values ?? undefined;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Whether the user's revision changed this cell from the model's value. */
export function isChanged(row: DocRow, column: Column): boolean {
  if (row.revised === null) return false;
  return !jsonEqual(valueAt(row.modelValues, column.path), valueAt(row.revised, column.path));
}

/** The column keys a row's revision changed, in column order. */
export function changedColumns(row: DocRow, columns: readonly Column[]): string[] {
  return columns.filter((c) => isChanged(row, c)).map((c) => c.key);
}

/** A value as a table cell shows it: strings as they are, null/missing empty, the rest as JSON. */
export function formatCell(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export function cellText(row: DocRow, column: Column): string {
  return formatCell(valueAt(rowValues(row), column.path));
}

export type ParsedInput = { ok: true; value: JsonValue } | { ok: false; error: string };

/** What the user typed into a value box, as a value of the column's type. Empty means null. */
export function parseInput(column: Column, text: string): ParsedInput {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: null };
  if (column.json) {
    try {
      return { ok: true, value: JSON.parse(trimmed) as JsonValue };
    } catch {
      return { ok: false, error: "Not valid JSON." };
    }
  }
  switch (column.type) {
    case "number":
    case "integer": {
      const n = Number(trimmed.replace(/,/g, ""));
      if (!Number.isFinite(n)) return { ok: false, error: "Not a number." };
      if (column.type === "integer" && !Number.isInteger(n)) return { ok: false, error: "Not a whole number." };
      return { ok: true, value: n };
    }
    case "boolean":
      if (trimmed === "true" || trimmed === "false") return { ok: true, value: trimmed === "true" };
      return { ok: false, error: "Use true or false." };
    default:
      return { ok: true, value: text };
  }
}

/** `values` with the value at `path` replaced (objects on the way created as needed). */
export function setValueAt(values: JsonObject | null, path: readonly string[], value: JsonValue): JsonObject {
  const [head, ...rest] = path;
  const base: JsonObject = { ...(values ?? {}) };
  if (head === undefined) return base;
  if (rest.length === 0) {
    base[head] = value;
    return base;
  }
  const inner = base[head];
  base[head] = setValueAt(isObject(inner) ? inner : null, rest, value);
  return base;
}

/** Documents a resumed run would call: those not completed. */
export function notCompleted(state: TableState): number {
  return state.rows.filter((r) => r.status !== "completed").length;
}

/** What the progress line shows: documents finished of all, and the tokens. */
export interface ProgressLine {
  total: number;
  done: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * The job's totals as the backend computed them (`JobView.totals`, the
 * `finished` event's) once it sent them for the table as it stands. While
 * a job runs the backend sends rows, not totals: the line then counts the
 * rows' statuses and adds up their tokens, a display of progress only,
 * replaced by the backend's totals when the job ends.
 */
export function progressLine(state: TableState): ProgressLine {
  if (state.totals !== null && state.phase !== "running") {
    const t = state.totals;
    return { total: t.done + t.failed + t.pending, done: t.done, failed: t.failed, inputTokens: t.inputTokens, outputTokens: t.outputTokens };
  }
  const live = { total: state.rows.length, done: 0, failed: 0, inputTokens: 0, outputTokens: 0 };
  for (const r of state.rows) {
    if (r.status === "completed") live.done += 1;
    if (r.status === "failed") live.failed += 1;
    live.inputTokens += r.inputTokens;
    live.outputTokens += r.outputTokens;
  }
  return live;
}
