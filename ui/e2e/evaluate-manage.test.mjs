// Evaluate, the rest of the screen: a labelled set imported from a TSV,
// exported and deleted; a run cancelled, then resumed over a new channel;
// the price table edited, the shown run's cost following it. IPC mocked
// (mock-ipc-evaluate.js).
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";
import { smallRun } from "./evaluate-fixtures.mjs";

const app = useApp({ before, after, afterEach });

const TSV = { name: "Tab-separated values", extensions: ["tsv"] };
const argsOf = async (page, cmd) => (await ipcCalls(page, cmd)).map((c) => c.args);
const setOptions = (page) => page.getByTestId("set-select").locator("option").allTextContents();
const progress = (page) => page.getByTestId("candidate-progress").allTextContents();
const matrixRows = (page) =>
  page.getByTestId("matrix").locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)));
const costRow = (page) =>
  page.getByTestId("figures").locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)).find((r) => r[0] === "Cost"));
// A price row's provider, model, in, out and source.
const priceRows = (page) =>
  page.getByTestId("price-row").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].slice(0, 5).map((c) => c.textContent)));

async function openEvaluate(page) {
  await page.getByTestId("nav-evaluate").click();
  await eventually(() => page.getByTestId("set-select").inputValue(), "invoices");
}

async function startTwoCandidates(page) {
  await openEvaluate(page);
  await page.getByLabel("Model of candidate 1").fill("smollm2");
  await page.getByRole("button", { name: "Add a candidate" }).click();
  await page.getByLabel("Provider of candidate 2").selectOption("openai");
  await page.getByLabel("Model of candidate 2").fill("gpt-4o-mini");
  await page.getByRole("button", { name: "Run 2 candidates" }).click();
  await page.waitForFunction(() => window.__siftEvaluateMock.running);
  await page.getByRole("button", { name: "Cancel", exact: true }).waitFor();
}

/** smallRun as cancelled after gpt-4o-mini read its first document. */
const cancelledRun = {
  status: "cancelled",
  candidates: smallRun.candidates.map((c) =>
    c.position === 1
      ? { ...c, done: 1, pending: 2, cells: [{ field: "invoice_number", correct: 1, scored: 1 }, { field: "total", correct: 1, scored: 1 }], overall: { field: "overall", correct: 2, scored: 2 } }
      : c,
  ),
};

describe("Evaluate: the labelled sets", () => {
  it("imports a TSV for a schema: the picked path, the exact request, the new set listed and chosen", async () => {
    const page = await app.open({ pickFiles: ["/home/user/truth/march.tsv"] });
    await openEvaluate(page);
    await page.getByRole("button", { name: "Import TSV…" }).click();
    const form = page.getByRole("form", { name: "Import a labelled set" });
    await eventually(() => form.getByLabel("Schema").locator("option").allTextContents(), ["invoice (v1)", "receipt (v1)"]);
    await form.getByLabel("Name").fill("march receipts");
    await form.getByLabel("Schema").selectOption("receipt");
    await form.getByRole("button", { name: "Choose the TSV and import" }).click();

    await eventually(() => page.getByTestId("set-status").textContent(), "Imported march receipts: 5 documents.");
    assert.deepEqual(await argsOf(page, "pick_files"), [{ options: { title: "Import a labelled set", multiple: false, filters: [TSV] } }]);
    assert.deepEqual(await argsOf(page, "import_labelled_set"), [{ name: "march receipts", path: "/home/user/truth/march.tsv", schemaName: "receipt", schemaVersion: null }]);
    await eventually(() => setOptions(page), ["Choose a set…", "invoices", "march receipts"]);
    assert.equal(await page.getByTestId("set-select").inputValue(), "march receipts");
    assert.equal(await page.getByTestId("set-info").textContent(), "5 documents · fields invoice_number, total · schema receipt v1 · from file march.tsv");
    assert.equal(await form.count(), 0);
  });

  it("exports the chosen set to the path the save dialog gave", async () => {
    const page = await app.open();
    await openEvaluate(page);
    await page.getByRole("button", { name: "Export…" }).click();
    await eventually(() => page.getByTestId("set-status").textContent(), "Exported 3 documents to /home/user/out/invoices.tsv.");
    assert.deepEqual(await argsOf(page, "pick_save_path"), [{ options: { defaultName: "invoices.tsv", filters: [TSV] } }]);
    assert.deepEqual(await argsOf(page, "export_labelled_set"), [{ name: "invoices", path: "/home/user/out/invoices.tsv" }]);
  });

  it("deletes a set after a confirmation (Keep deletes nothing); the next set is chosen", async () => {
    const receipts = { name: "receipts", schemaName: "receipt", schemaVersion: 1, fields: ["total"], source: "job job-9", documents: 4, createdAt: 1764000000000 };
    const invoices = { name: "invoices", schemaName: "invoice", schemaVersion: 1, fields: ["invoice_number", "total"], source: "file invoices.tsv", documents: 3, createdAt: 1764000000000 };
    const page = await app.open({ labelledSets: [invoices, receipts] });
    await openEvaluate(page);
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    assert.equal(await page.getByTestId("set-picker").getByText("Delete invoices?").textContent(), "Delete invoices?");
    await page.getByRole("button", { name: "Keep" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("button", { name: "Delete the set" }).click();

    await eventually(() => page.getByTestId("set-status").textContent(), "Deleted the set invoices.");
    assert.deepEqual(await argsOf(page, "delete_labelled_set"), [{ name: "invoices" }]);
    await eventually(() => setOptions(page), ["Choose a set…", "receipts"]);
    assert.equal(await page.getByTestId("set-select").inputValue(), "receipts");
    assert.equal(await page.getByTestId("set-info").textContent(), "4 documents · fields total · schema receipt v1 · from job job-9");
  });
});

describe("Evaluate: cancel and resume", () => {
  it("cancels a run, shows it cancelled with Resume, and resumes it over a new channel until it completes", async () => {
    const page = await app.open({ evalView: smallRun });
    await startTwoCandidates(page);
    await page.evaluate(() => {
      const m = window.__siftEvaluateMock;
      m.send({ kind: "candidate", position: 0, jobId: "eval-job-0", reused: false });
      m.send({ kind: "document", position: 0, done: 3, total: 3 });
      m.send({ kind: "candidate", position: 1, jobId: "eval-job-1", reused: false });
      m.send({ kind: "document", position: 1, done: 1, total: 3 });
    });
    await eventually(() => progress(page), ["3/3", "1/3"]);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.waitForFunction(() => window.__siftEvaluateMock.cancelled === "run-1");
    assert.deepEqual(await argsOf(page, "cancel_evaluation"), [{ runId: "run-1" }]);

    // The run's task ends: `finished` with the cancelled run.
    await page.evaluate((patch) => window.__siftEvaluateMock.finish(patch), cancelledRun);
    await eventually(() => page.getByTestId("evaluate-status").textContent(), "Run cancelled.");
    await page.getByRole("button", { name: "Resume" }).waitFor();
    assert.deepEqual(await matrixRows(page), [
      ["invoice_number", "3/3 100%", "1/1 100%"],
      ["total", "2/3 67%", "1/1 100%"],
      ["overall", "5/6 83%", "2/2 100%"],
    ]);
    await eventually(() => page.getByTestId("history-run").locator(".badge").allTextContents(), ["cancelled"]);
    assert.deepEqual(await argsOf(page, "resume_evaluation"), []);

    await page.getByRole("button", { name: "Resume" }).click();
    await page.waitForFunction(() => window.__siftEvaluateMock.running);
    await page.getByRole("button", { name: "Cancel", exact: true }).waitFor();
    const [start] = await ipcCalls(page, "start_evaluation");
    const resumes = await argsOf(page, "resume_evaluation");
    assert.equal(resumes.length, 1);
    assert.match(resumes[0].events, /^__CHANNEL__:\d+$/);
    assert.notEqual(resumes[0].events, start.args.events);
    assert.deepEqual(resumes, [{ runId: "run-1", events: resumes[0].events }]);
    assert.equal(await page.getByRole("button", { name: "Resume" }).count(), 0);
    assert.equal(await page.getByTestId("matrix").count(), 0);
    // The progress as the resumed run starts, then from its channel.
    await eventually(() => progress(page), ["3/3", "1/3"]);
    await page.evaluate(() => window.__siftEvaluateMock.send({ kind: "document", position: 1, done: 3, total: 3 }));
    await eventually(() => progress(page), ["3/3", "3/3"]);
    await page.evaluate(() => window.__siftEvaluateMock.finish());

    await eventually(() => page.getByTestId("evaluate-status").textContent(), "Run completed.");
    assert.deepEqual(await matrixRows(page), [
      ["invoice_number", "3/3 100%", "2/3 67%"],
      ["total", "2/3 67%", "3/3 100%"],
      ["overall", "5/6 83%", "5/6 83%"],
    ]);
    assert.equal(await page.getByRole("button", { name: "Resume" }).count(), 0);
    // One run in the history, no longer cancelled.
    await eventually(() => page.getByTestId("history-run").locator(".badge").count(), 0);
    assert.deepEqual(await page.getByTestId("history-run").locator(".small").allTextContents(), ["SmolLM2-135M 5/6 · gpt-4o-mini 5/6"]);
    assert.deepEqual(await argsOf(page, "cancel_evaluation"), [{ runId: "run-1" }]);
  });
});

describe("Evaluate: prices", () => {
  it("lists the table, sets and removes a price of yours, shows the store's refusal, and re-costs the shown run", async () => {
    const page = await app.open({ evalView: smallRun });
    await startTwoCandidates(page);
    await page.evaluate(() => window.__siftEvaluateMock.finish());
    await page.getByTestId("figures").waitFor();
    assert.deepEqual(await costRow(page), ["Cost", "free", "$0.0012"]);
    assert.deepEqual(await argsOf(page, "price_table"), []);

    await page.getByTestId("prices").locator("summary").click();
    await page.getByTestId("price-table").waitFor();
    assert.deepEqual(await argsOf(page, "price_table"), [{}]);
    assert.deepEqual(await priceRows(page), [
      ["openai", "gpt-4o-mini", "$0.15", "$0.60", "default"],
      ["openai", "gpt-4o", "$2.50", "$10.00", "default"],
      ["anthropic", "claude-sonnet-4", "$3.00", "$15.00", "default"],
    ]);
    assert.equal(await page.getByTestId("prices").getByRole("button", { name: "Remove" }).count(), 0);
    assert.deepEqual(await page.getByTestId("price-provider").locator("option").allTextContents(), ["* (any provider)", "Local model", "OpenAI", "Anthropic"]);

    // Change a default: the form starts from it.
    await page.getByRole("button", { name: "Edit the price of gpt-4o-mini on openai" }).click();
    assert.deepEqual(
      [await page.getByTestId("price-provider").inputValue(), await page.getByTestId("price-model").inputValue(), await page.getByTestId("price-in").inputValue(), await page.getByTestId("price-out").inputValue()],
      ["openai", "gpt-4o-mini", "0.15", "0.6"],
    );
    await page.getByTestId("price-in").fill("1");
    await page.getByTestId("price-out").fill("2");
    await page.getByRole("button", { name: "Save the price" }).click();
    await eventually(() => page.getByTestId("price-status").textContent(), "Saved the price of gpt-4o-mini on openai.");
    assert.deepEqual(await argsOf(page, "set_price"), [{ providerId: "openai", model: "gpt-4o-mini", inputPerMtok: 1, outputPerMtok: 2 }]);
    assert.deepEqual(await priceRows(page), [
      ["openai", "gpt-4o-mini", "$1.00", "$2.00", "yours"],
      ["openai", "gpt-4o", "$2.50", "$10.00", "default"],
      ["anthropic", "claude-sonnet-4", "$3.00", "$15.00", "default"],
    ]);
    // The shown run read again: 2550 in and 130 out at $1 and $2 per million.
    await eventually(() => costRow(page), ["Cost", "free", "$0.0028"]);
    assert.deepEqual(await argsOf(page, "evaluation_run"), [{ runId: "run-1" }]);

    // A price under 0: the store's message, as it says it; the table stays.
    await page.getByTestId("price-provider").selectOption("*");
    await page.getByTestId("price-model").fill("mistral-small");
    await page.getByTestId("price-in").fill("-1");
    await page.getByTestId("price-out").fill("0.3");
    await page.getByRole("button", { name: "Save the price" }).click();
    await eventually(() => page.getByTestId("price-error").textContent(), "storage: invalid input: a price is a number of at least 0");
    assert.equal(await page.getByTestId("price-status").textContent(), "");
    assert.deepEqual((await argsOf(page, "set_price")).at(-1), { providerId: "*", model: "mistral-small", inputPerMtok: -1, outputPerMtok: 0.3 });
    assert.equal((await priceRows(page)).length, 3);
    assert.equal((await argsOf(page, "evaluation_run")).length, 1);

    await page.getByTestId("price-in").fill("0.1");
    await page.getByRole("button", { name: "Save the price" }).click();
    await eventually(() => page.getByTestId("price-status").textContent(), "Saved the price of mistral-small on any provider.");
    assert.equal(await page.getByTestId("price-error").count(), 0);
    assert.deepEqual((await argsOf(page, "set_price")).at(-1), { providerId: "*", model: "mistral-small", inputPerMtok: 0.1, outputPerMtok: 0.3 });
    assert.deepEqual(await priceRows(page), [
      ["any provider", "mistral-small", "$0.10", "$0.30", "yours"],
      ["openai", "gpt-4o-mini", "$1.00", "$2.00", "yours"],
      ["openai", "gpt-4o", "$2.50", "$10.00", "default"],
      ["anthropic", "claude-sonnet-4", "$3.00", "$15.00", "default"],
    ]);

    // Removing yours brings the default back, and the run's cost with it.
    await page.getByRole("button", { name: "Remove the price of gpt-4o-mini on openai" }).click();
    await eventually(() => page.getByTestId("price-status").textContent(), "Removed the price of gpt-4o-mini on openai.");
    assert.deepEqual(await argsOf(page, "delete_price"), [{ providerId: "openai", model: "gpt-4o-mini" }]);
    assert.deepEqual(await priceRows(page), [
      ["any provider", "mistral-small", "$0.10", "$0.30", "yours"],
      ["openai", "gpt-4o-mini", "$0.15", "$0.60", "default"],
      ["openai", "gpt-4o", "$2.50", "$10.00", "default"],
      ["anthropic", "claude-sonnet-4", "$3.00", "$15.00", "default"],
    ]);
    await eventually(() => costRow(page), ["Cost", "free", "$0.0012"]);
    assert.deepEqual(await argsOf(page, "evaluation_run"), [{ runId: "run-1" }, { runId: "run-1" }, { runId: "run-1" }]);
    assert.deepEqual(await argsOf(page, "price_table"), [{}]);
  });
});
