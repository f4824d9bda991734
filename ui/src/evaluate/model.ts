// The Evaluate screen's pure logic: the accuracy scale, figures as the
// screen prints them, the candidate rows as a request, and the run's state
// as its events change it. No IPC, no DOM: unit-tested directly.
import type { Candidate, CandidateView, EvalRunView, EvaluateEvent, EvaluateRequest, PriceSource, ScoreCell } from "../ipc";

// ---------------------------------------------------------------- the scale

/** The accuracy bands, best first: a cell's background is its band's colour (evaluate.css). */
export const BANDS = [
  { band: 4, min: 0.95, label: "95% or more" },
  { band: 3, min: 0.85, label: "85–94%" },
  { band: 2, min: 0.7, label: "70–84%" },
  { band: 1, min: 0.5, label: "50–69%" },
  { band: 0, min: 0, label: "under 50%" },
] as const;

/** The band of `correct` of `scored` (4 best … 0 worst); null when nothing was scored. */
export function accuracyBand(correct: number, scored: number): number | null {
  if (scored <= 0) return null;
  const share = correct / scored;
  return (BANDS.find((b) => share >= b.min) ?? BANDS[BANDS.length - 1]!).band;
}

/** "2/3 67%"; "—" when nothing was scored. */
export function cellText(cell: ScoreCell): string {
  if (cell.scored === 0) return "—";
  return `${cell.correct}/${cell.scored} ${percent(cell.correct, cell.scored)}`;
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? "—" : `${Math.round((100 * part) / whole)}%`;
}

// ---------------------------------------------------------------- figures

/** "$0.0012" (under a dollar, four decimals), "$12.35"; "free" for a local model; "no price" without one. */
export function formatCost(cost: number | null, source: PriceSource | null = null): string {
  if (source === "local") return "free";
  if (cost === null) return "no price";
  if (cost === 0) return "$0";
  return cost >= 1 ? `$${cost.toFixed(2)}` : `$${cost.toFixed(4)}`;
}

export function formatMs(ms: number | null): string {
  return ms === null ? "—" : `${ms} ms`;
}

/** A value as the disagreements show it: JSON, "—" for none. */
export function formatValue(value: unknown): string {
  return value === null || value === undefined ? "—" : JSON.stringify(value);
}

/** Failed documents by category: "timeout 2, document 1"; "none". */
export function formatFailures(failures: { [key in string]: number }): string {
  const entries = Object.entries(failures).filter(([, n]) => n > 0);
  return entries.length === 0 ? "none" : entries.map(([k, n]) => `${k} ${n}`).join(", ");
}

/** A local date and time: "2025-11-24 14:03". */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// ---------------------------------------------------------------- candidates

/** A row of the candidates editor, as typed. */
export interface CandidateRow {
  providerId: string;
  model: string;
  prompt: string;
  /** "" for the set's own. */
  schemaVersion: string;
  ocr: boolean;
}

export function emptyCandidate(providerId: string, model = ""): CandidateRow {
  return { providerId, model, prompt: "", schemaVersion: "", ocr: true };
}

/** A row as the request asks for it: what is left empty is left out. */
export function toCandidate(row: CandidateRow): Candidate {
  const out: Candidate = { providerId: row.providerId === "" ? null : row.providerId, model: row.model.trim() === "" ? null : row.model.trim(), ocr: row.ocr };
  if (row.prompt.trim() !== "") out.prompt = row.prompt.trim();
  const version = Number(row.schemaVersion);
  if (row.schemaVersion.trim() !== "" && Number.isInteger(version) && version > 0) out.schemaVersion = version;
  return out;
}

export function evaluateRequest(setName: string, rows: readonly CandidateRow[]): EvaluateRequest {
  return { setName, candidates: rows.map(toCandidate) };
}

/** Why the rows cannot run yet, or null. */
export function rowsProblem(rows: readonly CandidateRow[]): string | null {
  if (rows.length === 0) return "Add a candidate.";
  const bad = rows.findIndex((r) => r.schemaVersion.trim() !== "" && !(Number.isInteger(Number(r.schemaVersion)) && Number(r.schemaVersion) > 0));
  if (bad >= 0) return `Candidate ${bad + 1}: the schema version is a whole number.`;
  return null;
}

// ---------------------------------------------------------------- the run

export interface Progress {
  done: number;
  total: number;
  reused: boolean;
}

export interface RunState {
  runId: string | null;
  phase: "idle" | "running" | "finished" | "failed";
  view: EvalRunView | null;
  /** By candidate position. */
  progress: Record<number, Progress>;
  error: string | null;
}

export const idleRun: RunState = { runId: null, phase: "idle", view: null, progress: {}, error: null };

export type RunAction =
  | { kind: "starting" }
  /** Resume of `runId`: its events from now on. */
  | { kind: "resuming"; runId: string }
  | { kind: "started"; view: EvalRunView }
  | { kind: "event"; event: EvaluateEvent }
  /** `view`: the run to show again (a resume refused shows the run it was asked of). */
  | { kind: "failed"; error: string; view?: EvalRunView | null }
  | { kind: "loaded"; view: EvalRunView };

function progressOf(view: EvalRunView): Record<number, Progress> {
  const out: Record<number, Progress> = {};
  for (const c of view.candidates) out[c.position] = { done: c.done, total: c.done + c.pending || view.documents, reused: c.reused };
  return out;
}

export function runReducer(state: RunState, action: RunAction): RunState {
  switch (action.kind) {
    case "starting":
      return { ...idleRun, phase: "running" };
    case "resuming":
      return { ...idleRun, runId: action.runId, phase: "running" };
    case "started":
      // Events may have come before the command's answer: they win.
      if (state.phase !== "running") return state;
      return { ...state, runId: action.view.runId, view: state.view ?? action.view, progress: { ...progressOf(action.view), ...state.progress } };
    case "loaded":
      return { runId: action.view.runId, phase: action.view.status === "running" ? "running" : "finished", view: action.view, progress: progressOf(action.view), error: null };
    case "failed":
      return { ...state, phase: "failed", error: action.error, view: action.view === undefined ? state.view : action.view };
    case "event": {
      const e = action.event;
      if (state.runId !== null && e.runId !== state.runId) return state;
      const runId = e.runId;
      switch (e.kind) {
        case "candidate": {
          const before = state.progress[e.position] ?? { done: 0, total: state.view?.documents ?? 0, reused: false };
          return { ...state, runId, progress: { ...state.progress, [e.position]: { ...before, reused: e.reused } } };
        }
        case "document": {
          const before = state.progress[e.position] ?? { done: 0, total: e.total, reused: false };
          return { ...state, runId, progress: { ...state.progress, [e.position]: { ...before, done: e.done, total: e.total } } };
        }
        case "finished":
          return { ...state, runId, phase: "finished", view: e.view, progress: { ...state.progress, ...progressOf(e.view) } };
        case "error":
          // The store marks the run failed: it can be resumed.
          return { ...state, runId, phase: "failed", error: e.error.message, view: state.view === null ? null : { ...state.view, status: "failed" } };
      }
    }
  }
  return state;
}

/**
 * Whether the shown run can be resumed: it was cancelled or failed, or it
 * stopped (not running) with documents left to call.
 */
export function canResume(state: RunState): boolean {
  const v = state.view;
  if (state.phase === "running" || v === null || v.candidates.length === 0) return false;
  return v.status === "cancelled" || v.status === "failed" || (v.status !== "running" && v.candidates.some((c) => c.pending > 0));
}

// ---------------------------------------------------------------- prices

/** A price's source as the table shows it. */
export function priceSourceText(source: PriceSource): string {
  return source === "user" ? "yours" : source === "default" ? "default" : "free";
}

/** "$0.15"; at least two decimals, as many as the price has (up to six). */
export function formatPerMtok(price: number): string {
  const text = String(Number(price.toFixed(6)));
  const [whole, fraction = ""] = text.split(".");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

/**
 * A price typed in the form: a number (the store refuses one under 0 with
 * its own message), or null when the text is not one.
 */
export function parsePerMtok(text: string): number | null {
  const t = text.trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** "3/16"; with the candidate's "reused" state. */
export function progressText(p: Progress | undefined): string {
  return p === undefined ? "" : `${p.done}/${p.total}`;
}

/** A candidate's point on the chart: overall accuracy (%) against cost or latency; null x when it has none. */
export interface ChartPoint {
  label: string;
  accuracy: number;
  cost: number | null;
  latency: number | null;
}

export function chartPoints(candidates: readonly CandidateView[]): ChartPoint[] {
  return candidates.map((c) => ({
    label: c.candidate.label,
    accuracy: c.overall.scored === 0 ? 0 : Math.round((1000 * c.overall.correct) / c.overall.scored) / 10,
    cost: c.priceSource === "local" ? 0 : c.cost,
    latency: c.latencyMedianMs,
  }));
}
