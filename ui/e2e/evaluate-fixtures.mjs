// @ts-check
// Evaluation runs for the Evaluate tests and screenshots (EvalRunView, as
// the Rust side sends it; checked against the binding by e2e/tsconfig.json).
/** @typedef {import("../src/ipc").EvalRunView} EvalRunView */
/** @typedef {import("../src/ipc").CandidateView} CandidateView */

/**
 * @param {number} position
 * @param {string} label
 * @param {string} model
 * @param {boolean} ocr
 * @param {any} extra the candidate's figures, in the shorthand below (latency and tokens as pairs)
 * @returns {CandidateView}
 */
const candidate = (position, label, model, ocr, extra) => ({
  position,
  candidate: { label, providerId: extra.providerId ?? "local", provider: extra.provider ?? "local", host: extra.host ?? "127.0.0.1:39281", model, prompt: "", schemaVersion: 1, ocr, answers: extra.answers ?? "free" },
  jobId: `eval-job-${position}`,
  reused: false,
  done: extra.done,
  failed: extra.failed ?? 0,
  pending: 0,
  cells: extra.cells,
  overall: extra.overall,
  values: extra.values,
  withEvidence: extra.withEvidence,
  latencyMedianMs: extra.latency[0],
  latencyP95Ms: extra.latency[1],
  inputTokens: extra.tokens[0],
  outputTokens: extra.tokens[1],
  cost: extra.cost ?? null,
  priceSource: extra.priceSource ?? null,
  failures: extra.failures ?? {},
});
/** @returns {import("../src/ipc").ScoreCell} */
const cell = (field, correct, scored) => ({ field, correct, scored });
/**
 * @param {import("../src/ipc").EvidenceStatus | null} evidence
 * @param {string | null} callId
 * @returns {import("../src/ipc").CandidateValue}
 */
const value = (label, v, correct, evidence, callId) => ({ label, value: v, correct, evidence, callId, error: null });

/** Two candidates over 3 documents, fields invoice_number and total. */
/** @type {EvalRunView} */
export const smallRun = {
  runId: "run-1",
  setName: "invoices",
  status: "completed",
  createdAt: 1764000000000,
  finishedAt: 1764000060000,
  fields: ["invoice_number", "total"],
  documents: 3,
  candidates: [
    candidate(0, "SmolLM2-135M", "smollm2", true, {
      done: 3, cells: [cell("invoice_number", 3, 3), cell("total", 2, 3)], overall: cell("overall", 5, 6), values: 6, withEvidence: 5,
      latency: [850, 1400], tokens: [2400, 120], priceSource: "local", cost: 0,
    }),
    candidate(1, "gpt-4o-mini", "gpt-4o-mini", false, {
      providerId: "openai", provider: "openai", host: "api.openai.com",
      done: 3, cells: [cell("invoice_number", 2, 3), cell("total", 3, 3)], overall: cell("overall", 5, 6), values: 6, withEvidence: 4,
      latency: [620, 900], tokens: [2550, 130], cost: 0.0012, priceSource: "default", failures: {},
    }),
  ],
  pairs: [{ a: "SmolLM2-135M", b: "gpt-4o-mini", onlyA: 1, onlyB: 1, pValue: 1, withinNoise: true, statement: "SmolLM2-135M and gpt-4o-mini are level: each is right where the other is wrong on 1 value (p = 1.00, within noise)." }],
  disagreements: [
    { path: "/home/user/set/invoice-002.pdf", fileName: "invoice-002.pdf", field: "total", truth: "99.00", values: [value("SmolLM2-135M", 9900, false, "not_found", "call-eval-a-1"), value("gpt-4o-mini", 99, true, "normalised", "call-eval-b-1")] },
    { path: "/home/user/set/invoice-003.pdf", fileName: "invoice-003.pdf", field: "invoice_number", truth: "INV-003", values: [value("SmolLM2-135M", "INV-003", true, "exact", "call-eval-a-2"), value("gpt-4o-mini", "INV-0O3", false, "not_found", "call-eval-b-2")] },
  ],
};
