// Evaluate and Usage: a finished Extract job saved as a labelled set; a run
// of two candidates over a set, its progress from the channel, the matrix,
// the disagreements behind a cell and their transcripts, the chart; the
// usage of a period. IPC mocked (mock-ipc-evaluate.js).
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";
import { smallRun } from "./evaluate-fixtures.mjs";

const app = useApp({ before, after, afterEach });

const matrixRows = (page) =>
  page.getByTestId("matrix").locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)));

async function finishedExtraction(page) {
  await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "invoice");
  await page.getByRole("button", { name: "Add files…" }).click();
  await page.getByLabel("Model", { exact: true }).fill("smollm2");
  await page.getByRole("button", { name: "Run on 2 files" }).click();
  await eventually(() => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => r.dataset.status)), ["completed", "completed"]);
}

async function runTwoCandidates(page) {
  await page.getByTestId("nav-evaluate").click();
  await eventually(() => page.getByTestId("set-select").inputValue(), "invoices");
  assert.equal(await page.getByTestId("set-info").textContent(), "3 documents · fields invoice_number, total · schema invoice v1 · from file invoices.tsv");
  await page.getByLabel("Model of candidate 1").fill("smollm2");
  await page.getByRole("button", { name: "Add a candidate" }).click();
  await page.getByLabel("Provider of candidate 2").selectOption("openai");
  await page.getByLabel("Model of candidate 2").fill("gpt-4o-mini");
  await page.getByLabel("OCR for candidate 2").uncheck();
  await page.getByRole("button", { name: "Run 2 candidates" }).click();
  await page.waitForFunction(() => window.__siftEvaluateMock.running);
  await page.getByRole("button", { name: "Cancel" }).waitFor();
}

describe("Evaluate", () => {
  it("saves a finished Extract job as a labelled set, and shows why one cannot be saved", async () => {
    const page = await app.open();
    await finishedExtraction(page);
    await page.getByRole("button", { name: "Save as a labelled set…" }).click();
    await page.getByLabel("Set name").fill("march invoices");
    await page.getByRole("button", { name: "Save the set" }).click();
    await eventually(
      () => page.getByTestId("save-as-set-note").textContent(),
      "Saved the labelled set march invoices: 2 documents, fields invoice_number, date, total, currency.",
    );
    assert.deepEqual((await ipcCalls(page, "save_job_as_labelled_set")).map((c) => c.args), [{ jobId: "job-1", name: "march invoices" }]);

    const refused = await app.open({ saveSetError: { code: "usage", message: "no value of job job-1 is checked or corrected: check or correct the values to keep first" } });
    await finishedExtraction(refused);
    await refused.getByRole("button", { name: "Save as a labelled set…" }).click();
    await refused.getByLabel("Set name").fill("nothing checked");
    await refused.getByRole("button", { name: "Save the set" }).click();
    await eventually(
      () => refused.getByTestId("save-as-set-note").textContent(),
      "Could not save the set: no value of job job-1 is checked or corrected: check or correct the values to keep first",
    );
    assert.equal(await refused.getByTestId("save-as-set-note").getAttribute("role"), "alert");
  });

  it("runs two candidates: the exact request, progress from the channel, then the matrix and figures", async () => {
    const page = await app.open({ evalView: smallRun });
    await runTwoCandidates(page);
    const [start] = await ipcCalls(page, "start_evaluation");
    assert.deepEqual(start.args.request, {
      setName: "invoices",
      candidates: [
        { providerId: "local", model: "smollm2", ocr: true },
        { providerId: "openai", model: "gpt-4o-mini", ocr: false },
      ],
    });
    assert.match(start.args.events, /^__CHANNEL__:\d+$/);

    const progress = () => page.getByTestId("candidate-progress").allTextContents();
    await eventually(progress, ["0/3", "0/3"]);
    await page.evaluate(() => {
      const m = window.__siftEvaluateMock;
      m.send({ kind: "candidate", position: 0, jobId: "eval-job-0", reused: false });
      m.send({ kind: "candidate", position: 1, jobId: "eval-job-1", reused: true });
      m.send({ kind: "document", position: 0, done: 1, total: 3 });
      m.send({ kind: "document", position: 1, done: 3, total: 3 });
    });
    await eventually(progress, ["1/3", "3/3 reused"]);
    await page.evaluate(() => window.__siftEvaluateMock.send({ kind: "document", position: 0, done: 3, total: 3 }));
    await eventually(progress, ["3/3", "3/3 reused"]);
    await page.evaluate(() => window.__siftEvaluateMock.finish());

    await page.getByTestId("matrix").waitFor();
    assert.deepEqual(await page.getByTestId("matrix").locator("thead th").allTextContents(), ["Field", "SmolLM2-135M", "gpt-4o-mini"]);
    assert.deepEqual(await matrixRows(page), [
      ["invoice_number", "3/3 100%", "2/3 67%"],
      ["total", "2/3 67%", "3/3 100%"],
      ["overall", "5/6 83%", "5/6 83%"],
    ]);
    assert.deepEqual(await page.locator(".eval-cell").evaluateAll((tds) => tds.map((td) => td.className)), [
      "eval-cell band-4", "eval-cell band-1", "eval-cell band-1", "eval-cell band-4", "eval-cell band-2", "eval-cell band-2",
    ]);
    assert.deepEqual(await page.getByTestId("legend").locator("li").allTextContents(), ["95% or more", "85–94%", "70–84%", "50–69%", "under 50%"]);
    assert.deepEqual(
      await page.getByTestId("figures").locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent))),
      [
        ["Latency median / p95", "850 ms / 1400 ms", "620 ms / 900 ms"],
        ["Tokens in / out", "2400 / 120", "2550 / 130"],
        ["Cost", "free", "$0.0012"],
        ["With evidence", "5/6 83%", "4/6 67%"],
        ["Failures", "none", "none"],
      ],
    );
    assert.deepEqual(await page.getByTestId("pair").allTextContents(), [
      "within noise SmolLM2-135M and gpt-4o-mini are level: each is right where the other is wrong on 1 value (p = 1.00, within noise).",
    ]);
    await eventually(() => page.getByTestId("evaluate-status").textContent(), "Run completed.");
    // The run joined the set's history.
    await eventually(() => page.getByTestId("history-run").locator(".small").allTextContents(), ["SmolLM2-135M 5/6 · gpt-4o-mini 5/6"]);
  });

  it("opens a cell's disagreements and a value's transcript", async () => {
    const page = await app.open({ evalView: smallRun });
    await runTwoCandidates(page);
    await page.evaluate(() => window.__siftEvaluateMock.finish());
    await page.locator('[data-testid="matrix-cell"][data-field="total"][data-candidate="SmolLM2-135M"]').click();
    const panel = page.getByTestId("disagreements");
    await panel.getByRole("heading", { name: "Disagreements on total" }).waitFor();
    const rows = panel.getByTestId("disagreement");
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.locator("th").textContent(), "invoice-002.pdf");
    assert.equal(await rows.getByTestId("truth").textContent(), "99.00");
    assert.deepEqual(await rows.getByTestId("value").allTextContents(), ["9900", "99"]);
    assert.deepEqual(await rows.getByTestId("candidate-value").evaluateAll((tds) => tds.map((td) => td.dataset.correct)), ["false", "true"]);
    assert.deepEqual(await rows.locator(".eval-mark").allTextContents(), ["✗", "✓"]);
    assert.deepEqual(await rows.getByTestId("evidence").allTextContents(), [" · not found", " · normalised"]);

    // Another field's cell shows that field's.
    await page.locator('[data-testid="matrix-cell"][data-field="invoice_number"][data-candidate="gpt-4o-mini"]').click();
    await eventually(() => panel.getByTestId("value").allTextContents(), ['"INV-003"', '"INV-0O3"']);
    await page.locator('[data-testid="matrix-cell"][data-field="total"][data-candidate="gpt-4o-mini"]').click();
    await eventually(() => panel.getByTestId("value").allTextContents(), ["9900", "99"]);

    await panel.getByRole("button", { name: "Open the transcript of SmolLM2-135M on invoice-002.pdf" }).click();
    await page.locator("#transcripts-title").waitFor();
    assert.equal(await page.getByTestId("nav-transcripts").getAttribute("aria-current"), "page");
    await eventually(() => page.getByTestId("transcript-title").textContent(), "extract: invoice-002.pdf");
    assert.ok((await ipcCalls(page, "call_transcript")).some((c) => c.args.callId === "call-eval-a-1"));
  });

  it("charts accuracy against cost and latency, a point per candidate", async () => {
    const page = await app.open({ evalView: smallRun });
    await runTwoCandidates(page);
    await page.evaluate(() => window.__siftEvaluateMock.finish());
    const chart = page.getByTestId("accuracy-chart");
    await chart.locator("svg").first().waitFor();
    await eventually(() => chart.locator(".recharts-scatter-symbol").count(), 2);
    assert.deepEqual(await chart.locator(".recharts-label-list text").allTextContents(), ["SmolLM2-135M", "gpt-4o-mini"]);
    await page.getByRole("radio", { name: "Latency" }).check();
    await page.getByRole("heading", { name: "Accuracy against latency" }).waitFor();
    await eventually(() => chart.locator(".recharts-scatter-symbol").count(), 2);
    assert.equal(await chart.getAttribute("aria-label"), "Overall accuracy against latency, one point per candidate");
  });

  it("opens an earlier run from the history", async () => {
    const page = await app.open({
      evalView: smallRun,
      evalHistory: [{ runId: "run-0", status: "completed", createdAt: 1763900000000, candidates: ["SmolLM2-135M", "gpt-4o-mini"], overall: [{ field: "overall", correct: 5, scored: 6 }, { field: "overall", correct: 5, scored: 6 }] }],
    });
    await page.getByTestId("nav-evaluate").click();
    await page.getByTestId("history-run").click();
    await page.getByTestId("matrix").waitFor();
    assert.deepEqual((await ipcCalls(page, "evaluation_run")).map((c) => c.args), [{ runId: "run-0" }]);
    assert.deepEqual((await matrixRows(page))[2], ["overall", "5/6 83%", "5/6 83%"]);
  });
});

describe("Usage", () => {
  it("shows a period's rows and totals", async () => {
    const usage = {
      rows: [
        { day: "2025-11-20", provider: "local", model: "smollm2", kind: "extraction", count: 16, inputTokens: 12800, outputTokens: 640, cost: 0 },
        { day: "2025-11-21", provider: "openai", model: "gpt-4o-mini", kind: "evaluation", count: 3, inputTokens: 2550, outputTokens: 130, cost: 0.0012 },
        { day: "2025-11-21", provider: "unknown", model: "mystery", kind: "chat", count: 2, inputTokens: 400, outputTokens: 90, cost: null },
      ],
      count: 21,
      inputTokens: 15750,
      outputTokens: 860,
      cost: 0.0012,
      unpricedRows: 1,
    };
    const page = await app.open({ usage });
    await page.clock.setFixedTime(new Date("2025-11-24T15:30:00"));
    await page.getByTestId("nav-usage").click();
    await page.getByTestId("usage-table").waitFor();
    assert.deepEqual(
      await page.getByTestId("usage-row").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((c) => c.textContent))),
      [
        ["2025-11-20", "local", "smollm2", "extraction", "16", "12800", "640", "$0"],
        ["2025-11-21", "openai", "gpt-4o-mini", "evaluation", "3", "2550", "130", "$0.0012"],
        ["2025-11-21", "unknown", "mystery", "chat", "2", "400", "90", "no price"],
      ],
    );
    assert.equal(await page.getByTestId("usage-totals").textContent(), "21 calls · 15750 tokens in · 860 out · $0.0012 · 1 row without a price");
    const expected = await page.evaluate(() => ({
      last7: { fromMs: new Date(2025, 10, 18).getTime(), toMs: new Date(2025, 10, 24, 15, 30).getTime(), utcOffsetMinutes: 0 - new Date().getTimezoneOffset() },
      custom: { fromMs: new Date(2025, 10, 1).getTime(), toMs: new Date(2025, 10, 22).getTime(), utcOffsetMinutes: 0 - new Date(2025, 10, 1).getTimezoneOffset() },
    }));
    assert.deepEqual((await ipcCalls(page, "usage_report")).map((c) => c.args), [{ request: expected.last7 }]);

    await page.getByTestId("usage-period").selectOption("custom");
    await page.getByLabel("From", { exact: true }).fill("2025-11-01");
    await page.getByLabel("To", { exact: true }).fill("2025-11-21");
    await eventually(async () => (await ipcCalls(page, "usage_report")).at(-1).args, { request: expected.custom });
  });
});
