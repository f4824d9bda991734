import { describe, expect, it } from "vitest";
import type { EvalRunView } from "../ipc";
import { accuracyBand, canResume, cellText, chartPoints, evaluateRequest, formatCost, formatFailures, formatPerMtok, formatValue, idleRun, parsePerMtok, priceSourceText, progressText, rowsProblem, runReducer } from "./model";

function view(status = "completed"): EvalRunView {
  const candidate = (position: number, label: string, done: number, pending: number) => ({
    position,
    candidate: { label, providerId: "local", provider: "local" as const, host: "127.0.0.1:39281", model: "smollm2", prompt: "", schemaVersion: 1, ocr: true, answers: "free" as const },
    jobId: `job-${position}`,
    reused: false,
    done,
    failed: 0,
    pending,
    cells: [{ field: "total", correct: 2, scored: 3 }],
    overall: { field: "overall", correct: 2, scored: 3 },
    values: 3,
    withEvidence: 2,
    latencyMedianMs: 120,
    latencyP95Ms: 300,
    inputTokens: 100,
    outputTokens: 10,
    cost: null,
    priceSource: "local" as const,
    failures: {},
  });
  return { runId: "run-1", setName: "s", status, createdAt: 0, finishedAt: null, fields: ["total"], documents: 3, candidates: [candidate(0, "a", 0, 3), candidate(1, "b", 0, 3)], pairs: [], disagreements: [] };
}

describe("the accuracy scale", () => {
  it("bands by share, none when nothing was scored", () => {
    expect([accuracyBand(3, 3), accuracyBand(19, 20), accuracyBand(9, 10), accuracyBand(17, 20), accuracyBand(3, 4), accuracyBand(1, 2), accuracyBand(1, 3), accuracyBand(0, 0)]).toEqual([4, 4, 3, 3, 2, 1, 0, null]);
  });
  it("writes a cell as correct/scored and a rounded percent", () => {
    expect(cellText({ field: "f", correct: 3, scored: 3 })).toBe("3/3 100%");
    expect(cellText({ field: "f", correct: 2, scored: 3 })).toBe("2/3 67%");
    expect(cellText({ field: "f", correct: 0, scored: 0 })).toBe("—");
  });
});

describe("figures", () => {
  it("formats a cost", () => {
    expect(formatCost(0.0012)).toBe("$0.0012");
    expect(formatCost(12.3456)).toBe("$12.35");
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(null)).toBe("no price");
    expect(formatCost(null, "local")).toBe("free");
    expect(formatCost(0, "local")).toBe("free");
    expect(formatCost(0.5, "user")).toBe("$0.5000");
  });
  it("formats values and failures", () => {
    expect(formatValue(null)).toBe("—");
    expect(formatValue("INV-1")).toBe('"INV-1"');
    expect(formatValue(12.5)).toBe("12.5");
    expect(formatFailures({})).toBe("none");
    expect(formatFailures({ timeout: 2, document: 1 })).toBe("timeout 2, document 1");
  });
  it("puts a local model at cost 0 and keeps no price as null", () => {
    const v = view();
    v.candidates[1]!.priceSource = null;
    expect(chartPoints(v.candidates)).toEqual([
      { label: "a", accuracy: 66.7, cost: 0, latency: 120 },
      { label: "b", accuracy: 66.7, cost: null, latency: 120 },
    ]);
  });
});

describe("the candidates as a request", () => {
  it("leaves out what is empty", () => {
    expect(
      evaluateRequest("invoices", [
        { providerId: "local", model: " smollm2 ", prompt: "", schemaVersion: "", ocr: true },
        { providerId: "openai", model: "", prompt: "Be brief", schemaVersion: "2", ocr: false },
      ]),
    ).toEqual({
      setName: "invoices",
      candidates: [
        { providerId: "local", model: "smollm2", ocr: true },
        { providerId: "openai", model: null, ocr: false, prompt: "Be brief", schemaVersion: 2 },
      ],
    });
  });
  it("says what stops a run", () => {
    expect(rowsProblem([])).toBe("Add a candidate.");
    expect(rowsProblem([{ providerId: "local", model: "", prompt: "", schemaVersion: "x", ocr: true }])).toBe("Candidate 1: the schema version is a whole number.");
    expect(rowsProblem([{ providerId: "local", model: "", prompt: "", schemaVersion: "3", ocr: true }])).toBeNull();
  });
});

describe("the run's events", () => {
  it("follows progress per candidate, the reused badge, and the finished view", () => {
    let s = runReducer(idleRun, { kind: "starting" });
    s = runReducer(s, { kind: "started", view: view("running") });
    expect(s.progress).toEqual({ 0: { done: 0, total: 3, reused: false }, 1: { done: 0, total: 3, reused: false } });
    s = runReducer(s, { kind: "event", event: { kind: "candidate", runId: "run-1", position: 1, jobId: "j", reused: true } });
    s = runReducer(s, { kind: "event", event: { kind: "document", runId: "run-1", position: 0, done: 2, total: 3 } });
    expect(progressText(s.progress[0])).toBe("2/3");
    expect(s.progress[1]).toEqual({ done: 0, total: 3, reused: true });
    // Another run's event is not this one's.
    expect(runReducer(s, { kind: "event", event: { kind: "document", runId: "run-9", position: 0, done: 3, total: 3 } })).toBe(s);
    const done = view();
    done.candidates.forEach((c) => Object.assign(c, { done: 3, pending: 0 }));
    s = runReducer(s, { kind: "event", event: { kind: "finished", runId: "run-1", view: done } });
    expect(s.phase).toBe("finished");
    expect(s.view).toBe(done);
    expect(progressText(s.progress[0])).toBe("3/3");
  });
  it("keeps events that came before the command's answer", () => {
    let s = runReducer(idleRun, { kind: "starting" });
    s = runReducer(s, { kind: "event", event: { kind: "document", runId: "run-1", position: 0, done: 1, total: 3 } });
    s = runReducer(s, { kind: "started", view: view("running") });
    expect(s.progress[0]).toEqual({ done: 1, total: 3, reused: false });
    expect(s.runId).toBe("run-1");
  });
  it("shows an error event's message", () => {
    let s = runReducer(idleRun, { kind: "starting" });
    s = runReducer(s, { kind: "event", event: { kind: "error", runId: "run-1", error: { code: "network", message: "the server refused" } } });
    expect([s.phase, s.error]).toEqual(["failed", "the server refused"]);
  });
  it("marks the shown run failed on an error event, so that it can be resumed", () => {
    let s = runReducer(idleRun, { kind: "starting" });
    s = runReducer(s, { kind: "started", view: view("running") });
    expect(canResume(s)).toBe(false);
    s = runReducer(s, { kind: "event", event: { kind: "error", runId: "run-1", error: { code: "network", message: "the server refused" } } });
    expect(s.view?.status).toBe("failed");
    expect(canResume(s)).toBe(true);
  });
});

describe("resuming a run", () => {
  const cancelled = () => {
    const v = view("cancelled");
    Object.assign(v.candidates[0]!, { done: 3, pending: 0 });
    Object.assign(v.candidates[1]!, { done: 1, pending: 2 });
    return v;
  };
  it("offers a cancelled or failed run, or one stopped with documents left", () => {
    const loaded = (v: ReturnType<typeof view>) => runReducer(idleRun, { kind: "loaded", view: v });
    expect(canResume(loaded(cancelled()))).toBe(true);
    expect(canResume(loaded(view("failed")))).toBe(true);
    // "completed" with documents still pending (cut short by a crash).
    expect(canResume(loaded(view("completed")))).toBe(true);
    const done = view("completed");
    done.candidates.forEach((c) => Object.assign(c, { done: 3, pending: 0 }));
    expect(canResume(loaded(done))).toBe(false);
    // A run going on, or nothing shown.
    expect(canResume(loaded(view("running")))).toBe(false);
    expect(canResume(idleRun)).toBe(false);
  });
  it("follows the resumed run's events, from its runId on", () => {
    let s = runReducer(runReducer(idleRun, { kind: "loaded", view: cancelled() }), { kind: "resuming", runId: "run-1" });
    expect([s.phase, s.runId, s.view, canResume(s)]).toEqual(["running", "run-1", null, false]);
    const restarted = cancelled();
    restarted.status = "running";
    s = runReducer(s, { kind: "started", view: restarted });
    expect(s.progress[1]).toEqual({ done: 1, total: 3, reused: false });
    s = runReducer(s, { kind: "event", event: { kind: "document", runId: "run-1", position: 1, done: 2, total: 3 } });
    expect(progressText(s.progress[1])).toBe("2/3");
    expect(runReducer(s, { kind: "event", event: { kind: "document", runId: "run-2", position: 1, done: 3, total: 3 } })).toBe(s);
  });
  it("shows the run again when the resume is refused", () => {
    const before = cancelled();
    let s = runReducer(runReducer(idleRun, { kind: "loaded", view: before }), { kind: "resuming", runId: "run-1" });
    s = runReducer(s, { kind: "failed", error: "run-1 is running", view: before });
    expect([s.phase, s.error, s.view]).toEqual(["failed", "run-1 is running", before]);
    expect(canResume(s)).toBe(true);
  });
});

describe("prices", () => {
  it("writes a price per million tokens and its source", () => {
    expect([formatPerMtok(0.15), formatPerMtok(2.5), formatPerMtok(10), formatPerMtok(0), formatPerMtok(0.0001234)]).toEqual(["$0.15", "$2.50", "$10.00", "$0.00", "$0.000123"]);
    expect([priceSourceText("user"), priceSourceText("default"), priceSourceText("local")]).toEqual(["yours", "default", "free"]);
  });
  it("reads a typed price: any number (the store refuses one under 0), null otherwise", () => {
    expect([parsePerMtok(" 1.5 "), parsePerMtok("0"), parsePerMtok("-1"), parsePerMtok(""), parsePerMtok("abc"), parsePerMtok("1e400")]).toEqual([1.5, 0, -1, null, null, null]);
  });
});
