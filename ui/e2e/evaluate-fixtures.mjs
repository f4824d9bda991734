// Evaluation runs for the Evaluate tests and screenshots (EvalRunView, as
// the Rust side sends it).
const candidate = (position, label, model, ocr, extra) => ({
  position,
  candidate: { label, providerId: extra.providerId ?? "local", provider: extra.provider ?? "local", host: extra.host ?? "127.0.0.1:39281", model, prompt: "", schemaVersion: 1, ocr },
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
const cell = (field, correct, scored) => ({ field, correct, scored });
const value = (label, v, correct, evidence, callId) => ({ label, value: v, correct, evidence, callId, error: null });

/** Two candidates over 3 documents, fields invoice_number and total. */
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

/** The README's run: SmolLM2-135M with and without OCR over 16 invoices. */
export function readmeRun() {
  const fields = ["invoice_number", "date", "total", "currency"];
  const a = [15, 13, 12, 16];
  const b = [9, 8, 6, 14];
  const sum = (xs) => xs.reduce((x, y) => x + y, 0);
  const names = Array.from({ length: 16 }, (_, i) => `invoice-${String(i + 1).padStart(3, "0")}.pdf`);
  const disagreements = [
    ["invoice-003.pdf", "total", "1,250.00", 1250, true, "normalised", 125, false, "not_found"],
    ["invoice-005.pdf", "total", "99.00", 9900, false, "not_found", null, false, null],
    ["invoice-007.pdf", "total", "412.30", 412.3, true, "exact", 41.23, false, "not_found"],
    ["invoice-009.pdf", "total", "18.00", 18, true, "exact", null, false, null],
    ["invoice-011.pdf", "total", "2,030.75", 2030.57, false, "not_found", 2030.57, false, "not_found"],
    ["invoice-014.pdf", "total", "560.00", 560, true, "normalised", 5600, false, "not_found"],
  ].map(([file, field, truth, va, ca, ea, vb, cb, eb], i) => ({
    path: `/home/user/invoices/${file}`, fileName: file, field, truth,
    values: [value("SmolLM2-135M", va, ca, ea, `call-readme-a-${i}`), value("SmolLM2-135M (OCR off)", vb, cb, eb, `call-readme-b-${i}`)],
  }));
  void names;
  return {
    runId: "run-7", setName: "invoices-16", status: "completed", createdAt: 1764000000000, finishedAt: 1764000900000, fields, documents: 16,
    candidates: [
      candidate(0, "SmolLM2-135M", "SmolLM2-135M-Instruct-Q4_K_M.gguf", true, {
        done: 16, cells: fields.map((f, i) => cell(f, a[i], 16)), overall: cell("overall", sum(a), 64), values: 62, withEvidence: 55,
        latency: [2140, 3980], tokens: [38400, 1850], priceSource: "local", cost: 0,
      }),
      candidate(1, "SmolLM2-135M (OCR off)", "SmolLM2-135M-Instruct-Q4_K_M.gguf", false, {
        done: 16, failed: 2, cells: fields.map((f, i) => cell(f, b[i], 16)), overall: cell("overall", sum(b), 64), values: 51, withEvidence: 30,
        latency: [1310, 2460], tokens: [21800, 1620], priceSource: "local", cost: 0, failures: { document: 2 },
      }),
    ],
    pairs: [{ a: "SmolLM2-135M", b: "SmolLM2-135M (OCR off)", onlyA: 21, onlyB: 2, pValue: 0.00003, withinNoise: false, statement: "SmolLM2-135M is right on 21 values where SmolLM2-135M (OCR off) is wrong, and wrong on 2 where it is right (p = 0.00003, beyond noise)." }],
    disagreements,
  };
}
