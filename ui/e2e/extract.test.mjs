// Extract: add files (dialog and native drop), pick schema and model, run,
// watch the rows fill in, open a document, correct a value, export.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { dropFiles, eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const rowStatuses = (page) => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => r.dataset.status));
const rowCells = (page, index) =>
  page.getByTestId("result-row").nth(index).locator("th, td").allTextContents();

describe("Extract", () => {
  it("runs a schema over added and dropped files, fills the table, and saves a correction", async () => {
    // The job holds after its first document started, until released: the running row is there to see.
    const page = await app.open({ holdJobs: true });
    await assert.doesNotReject(page.getByRole("heading", { name: "Extract" }).waitFor());
    // The library's first schema is picked; the default provider from the settings.
    await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "invoice");
    await eventually(() => page.getByLabel("Provider", { exact: true }).inputValue(), "local");

    const files = () => page.getByRole("list", { name: "Files to extract" }).locator(".chip-name").allInnerTexts();
    await page.getByRole("button", { name: "Add files…" }).click();
    await eventually(files, ["invoice-001.pdf", "invoice-002.png"]);
    await dropFiles(page, ["/home/user/docs/broken.pdf"]);
    await eventually(files, ["invoice-001.pdf", "invoice-002.png", "broken.pdf"]);
    const [pick] = await ipcCalls(page, "pick_files");
    assert.equal(pick.args.options.multiple, true);
    assert.ok(pick.args.options.filters[0].extensions.includes("pdf"));

    await page.getByLabel("Model", { exact: true }).fill("smollm2");
    await page.getByRole("button", { name: "Run on 3 files" }).click();

    // Live: a document is running before all are done.
    await page.locator('[data-testid="result-row"][data-status="running"]').first().waitFor();
    await page.evaluate(() => window.__siftMock.releaseJobs());
    await eventually(() => rowStatuses(page), ["completed", "completed", "failed"]);

    const [start] = await ipcCalls(page, "start_extraction");
    // Exactly these keys: the default answers (and prompt, concurrency) are left out, not sent as null.
    assert.deepEqual(start.args.request, {
      files: ["/home/user/docs/invoice-001.pdf", "/home/user/docs/invoice-002.png", "/home/user/docs/broken.pdf"],
      schemaName: "invoice",
      schemaVersion: 1,
      providerId: "local",
      model: "smollm2",
    });
    assert.match(start.args.events, /^__CHANNEL__:\d+$/);

    // Columns in the schema's property order, nested objects flattened.
    assert.deepEqual(await page.getByTestId("results-table").locator("thead th").allInnerTexts(), [
      "File",
      "Status",
      "invoice_number",
      "date",
      "total",
      "currency",
      "vendor.name",
      "Tokens in / out",
    ]);
    assert.deepEqual(await rowCells(page, 0), ["invoice-001.pdf", "Done", "INV-001", "2024-03-01", "1234.5", "EUR", "ACME GmbH", "800 / 40"]);
    assert.deepEqual(await rowCells(page, 1), ["invoice-002.png", "Done", "INV-002", "2024-04-15", "99", "USD", "Globex", "810 / 41"]);
    // A failed document says why across its value cells.
    assert.deepEqual(await rowCells(page, 2), ["broken.pdf", "Failed", "the PDF is damaged (document)", "310 / 0"]);
    assert.equal(
      await page.getByTestId("progress").innerText(),
      "3 of 3 finished · 2 done · 1 failed · 1920 tokens in, 81 out",
    );

    // A row opens its document beside its values.
    await page.getByTestId("result-row").first().click();
    const detail = page.getByTestId("detail-pane");
    await detail.getByRole("img", { name: "invoice-001.pdf, page 1 of 2" }).waitFor();
    await detail.getByRole("button", { name: "Next page" }).click();
    await detail.getByRole("img", { name: "invoice-001.pdf, page 2 of 2" }).waitFor();
    assert.deepEqual(
      (await ipcCalls(page, "preview_document")).map((c) => c.args),
      [
        { path: "/home/user/docs/invoice-001.pdf", page: 0 },
        { path: "/home/user/docs/invoice-001.pdf", page: 1 },
      ],
    );
    assert.equal(await detail.getByLabel("total", { exact: true }).inputValue(), "1234.5");

    // Correct the total: a revision of that field, marked in the table and the pane.
    await detail.getByLabel("total", { exact: true }).fill("1,250.00");
    await detail.getByLabel("total", { exact: true }).press("Enter");
    await eventually(() => page.getByTestId("result-row").first().locator('td[data-changed="true"]').evaluateAll((tds) => tds.map((td) => td.dataset.column)), ["total"]);
    assert.deepEqual((await ipcCalls(page, "revise_value")).map((c) => c.args), [
      { jobId: "job-1", position: 0, path: ["total"], value: 1250 },
    ]);
    assert.deepEqual(await rowCells(page, 0), ["invoice-001.pdf", "Done", "INV-001", "2024-03-01", "1250 (edited)", "EUR", "ACME GmbH", "800 / 40"]);
    await detail.getByText("Edited · the model said 1234.5").waitFor();

    // A value that is not a number is refused before any call.
    await detail.getByLabel("total", { exact: true }).fill("twelve");
    await detail.getByLabel("total", { exact: true }).press("Enter");
    await detail.getByText("Not a number.").waitFor();
    assert.equal((await ipcCalls(page, "revise_value")).length, 1);

    // The transcript behind the values.
    await detail.getByText("Transcript of the call").click();
    await detail.getByText("sift calls show call-job-1-0").waitFor();
    assert.deepEqual((await ipcCalls(page, "call_transcript")).map((c) => c.args), [{ callId: "call-job-1-0" }]);

    // Export through the save dialog.
    await page.getByRole("button", { name: "Export CSV…" }).click();
    await page.getByText("Exported 3 documents to /home/user/out/invoice.csv.").waitFor();
    assert.deepEqual((await ipcCalls(page, "pick_save_path")).map((c) => c.args), [
      { options: { defaultName: "invoice.csv", filters: [{ name: "CSV", extensions: ["csv"] }] } },
    ]);
    assert.deepEqual((await ipcCalls(page, "export_results")).map((c) => c.args), [
      { jobId: "job-1", format: "csv", path: "/home/user/out/invoice.csv", bom: false },
    ]);
    // "CSV for Excel" adds the byte order mark to CSV only.
    await page.getByLabel("CSV for Excel").check();
    await page.getByRole("button", { name: "Export JSONL…" }).click();
    await page.getByText("Exported 3 documents to /home/user/out/invoice.jsonl.").waitFor();
    await page.getByRole("button", { name: "Export CSV…" }).click();
    await eventually(async () => (await ipcCalls(page, "export_results")).length, 3);
    assert.deepEqual((await ipcCalls(page, "export_results")).slice(1).map((c) => [c.args.format, c.args.bom]), [
      ["jsonl", false],
      ["csv", true],
    ]);
  });

  it("cancels a running job: the document in flight finishes, the rest never start", async () => {
    const page = await app.open({ holdJobs: true, pickFiles: ["/d/invoice-001.pdf", "/d/invoice-002.png", "/d/receipt.jpg"] });
    await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "invoice");
    await page.getByRole("button", { name: "Add files…" }).click();
    await page.getByRole("button", { name: "Run on 3 files" }).click();
    await page.locator('[data-testid="result-row"][data-status="running"]').waitFor();
    assert.equal(await page.getByRole("button", { name: "Add files…" }).isDisabled(), true);
    await page.getByRole("button", { name: "Cancel" }).click();
    await eventually(() => rowStatuses(page), ["completed", "cancelled", "cancelled"]);
    assert.deepEqual((await ipcCalls(page, "cancel_extraction")).map((c) => c.args), [{ jobId: "job-1" }]);
    assert.match(await page.getByTestId("progress").innerText(), /1 of 3 finished · 1 done · 0 failed · 800 tokens in, 40 out · cancelled$/);
    await page.getByRole("button", { name: "Run on 3 files" }).waitFor();

    // Retry calls only the two documents that never ran; the first keeps its values.
    await page.getByRole("button", { name: "Retry 2 not done" }).click();
    await eventually(() => rowStatuses(page), ["completed", "completed", "completed"]);
    const [resume] = await ipcCalls(page, "resume_extraction");
    assert.deepEqual({ ...resume.args, events: typeof resume.args.events }, { jobId: "job-1", providerId: "local", model: null, events: "string" });
    assert.equal((await ipcCalls(page, "start_extraction")).length, 1);
    assert.equal(
      await page.getByTestId("progress").innerText(),
      "3 of 3 finished · 3 done · 0 failed · 2430 tokens in, 123 out",
    );
    assert.equal(await page.getByTestId("resume").count(), 0);
  });

  it("sends the answers chosen (Located, then the default: none), and shows who gave each value", async () => {
    const place = (quote) => [{ page: 1, quote, box: { x: 0.2, y: 0.3, width: 0.2, height: 0.03 }, labelled: true }];
    const page = await app.open({
      pickFiles: ["/d/invoice-001.pdf"],
      // What the backend's evidence says of a located run: the locator's values, an e-invoice's, and one without an origin.
      evidence: {
        "invoice-001.pdf": [
          { key: "invoice_number", status: "exact", confidence: "high", places: place("Invoice INV-001"), origin: "located" },
          { key: "total", status: "exact", confidence: "high", places: place("Total 1234.5"), origin: "e_invoice" },
        ],
      },
    });
    await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
    await page.getByText("Options", { exact: true }).click();
    const answers = page.getByTestId("run-answers");
    assert.deepEqual(await answers.locator("option").allInnerTexts(), [
      "Default for the model",
      "Located (no model)",
      "Hybrid (located values, model for the rest)",
      "Grounded (model picks among candidates)",
      "Free (model writes values)",
    ]);
    assert.equal(await answers.inputValue(), "");
    // The default's meaning for the provider picked (the local one).
    assert.equal(await page.getByTestId("run-answers-default").innerText(), "The default for the local model: hybrid, the locator's values and the model for the fields it did not find");
    await page.getByTestId("add-files").click();
    await page.getByLabel("Answers", { exact: true }).selectOption({ label: "Located (no model)" });
    assert.equal(await answers.inputValue(), "located");
    assert.equal(await page.getByTestId("run-answers-default").count(), 0);
    await page.getByRole("button", { name: "Run on 1 file" }).click();
    await eventually(() => rowStatuses(page), ["completed"]);
    const [located] = await ipcCalls(page, "start_extraction");
    assert.deepEqual(located.args.request, {
      files: ["/d/invoice-001.pdf"],
      schemaName: "invoice",
      schemaVersion: 1,
      providerId: "local",
      model: null,
      answers: "located",
    });

    // The evidence panel says who gave the value: the locator, the e-invoice's XML, or (no line) the model.
    const row = page.getByTestId("result-row").first();
    const detail = page.getByTestId("detail-pane");
    const evidence = detail.getByTestId("evidence");
    await row.locator('td[data-column="invoice_number"]').click();
    await eventually(() => evidence.getAttribute("data-key"), "invoice_number");
    assert.equal(await detail.getByTestId("evidence-origin").innerText(), "Found by the locator");
    await row.locator('td[data-column="total"]').click();
    await eventually(() => evidence.getAttribute("data-key"), "total");
    assert.equal(await detail.getByTestId("evidence-origin").innerText(), "Read exactly from the e-invoice XML");
    await row.locator('td[data-column="date"]').click();
    await eventually(() => evidence.getAttribute("data-key"), "date");
    assert.equal(await detail.getByTestId("evidence-status").innerText(), "Found exactly");
    assert.equal(await detail.getByTestId("evidence-origin").count(), 0);

    // Back to the default: the request names no answers, and the backend picks by the provider's kind.
    await page.getByLabel("Answers", { exact: true }).selectOption({ label: "Default for the model" });
    assert.equal(await answers.inputValue(), "");
    await page.getByRole("button", { name: "Run on 1 file" }).click();
    await eventually(async () => (await ipcCalls(page, "start_extraction")).length, 2);
    const [, byDefault] = await ipcCalls(page, "start_extraction");
    assert.deepEqual(byDefault.args.request, {
      files: ["/d/invoice-001.pdf"],
      schemaName: "invoice",
      schemaVersion: 1,
      providerId: "local",
      model: null,
    });
    await eventually(() => rowStatuses(page), ["completed"]);
  });

  it("retries a failed document, which then succeeds", async () => {
    const page = await app.open({
      pickFiles: ["/d/broken.pdf"],
      failures: { "broken.pdf": { error: "the server timed out (network)", code: "network", times: 1 } },
      answers: { "broken.pdf": { invoice_number: "B-9", total: 7 } },
    });
    await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
    await page.getByTestId("add-files").click();
    // Instructions for the model and how many documents at once travel with the run.
    await page.getByText("Options", { exact: true }).click();
    await page.getByLabel("Instructions").fill("Totals include VAT.");
    await page.getByLabel("Documents at once").fill("2");
    await page.getByRole("button", { name: "Run on 1 file" }).click();
    await eventually(() => rowStatuses(page), ["failed"]);
    const [start] = await ipcCalls(page, "start_extraction");
    assert.deepEqual(start.args.request, {
      files: ["/d/broken.pdf"],
      schemaName: "invoice",
      schemaVersion: 1,
      providerId: "local",
      model: null,
      prompt: "Totals include VAT.",
      concurrency: 2,
    });
    assert.equal(await page.getByTestId("result-row").locator(".status").getAttribute("title"), "the server timed out (network)");
    await page.getByRole("button", { name: "Retry 1 not done" }).click();
    await eventually(() => rowStatuses(page), ["completed"]);
    assert.deepEqual(await rowCells(page, 0), ["broken.pdf", "Done", "B-9", "", "7", "", "", "800 / 40"]);
  });

  it("reviews the documents from the keyboard", async () => {
    const page = await app.open();
    await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
    await page.getByTestId("add-files").click();
    await page.getByRole("button", { name: "Run on 2 files" }).click();
    await eventually(() => rowStatuses(page), ["completed", "completed"]);
    const rows = page.getByTestId("result-row");
    assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.tabIndex)), [0, -1]);
    await rows.first().focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "invoice-001.pdf" }).waitFor();
    await page.keyboard.press("ArrowDown");
    await page.getByRole("heading", { name: "invoice-002.png" }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.position), "1");
    assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => [r.tabIndex, r.getAttribute("aria-selected")])), [
      [-1, "false"],
      [0, "true"],
    ]);
    await page.keyboard.press("Escape");
    await eventually(() => page.getByTestId("detail-pane").count(), 0);
    // From inside the pane, Escape closes it and gives the focus back to the row.
    await page.keyboard.press("Enter");
    await page.getByTestId("detail-pane").getByRole("button", { name: "Close the document" }).focus();
    await page.keyboard.press("Escape");
    await eventually(() => page.getByTestId("detail-pane").count(), 0);
    await eventually(() => page.evaluate(() => document.activeElement?.dataset.position), "1");
  });

  it("reopens an earlier job's table, with its corrections, and exports it", async () => {
    const page = await app.open({
      pastJobs: [
        { schemaName: "receipt", files: ["/d/receipt.jpg"] },
        { schemaName: "invoice", files: ["/d/invoice-001.pdf", "/d/invoice-002.png"], revisions: [{ position: 1, path: ["currency"], value: "EUR" }] },
      ],
    });
    const recent = page.getByTestId("recent-jobs");
    await eventually(() => recent.locator("option").count(), 2);
    assert.match((await recent.locator("option").allInnerTexts())[0], /^invoice · 2 documents · 2 done · /);
    assert.equal(await recent.inputValue(), "past-2");
    await page.getByTestId("open-job").click();
    await eventually(() => rowStatuses(page), ["completed", "completed"]);
    assert.deepEqual((await ipcCalls(page, "job_results")).map((c) => c.args), [{ jobId: "past-2" }]);
    assert.deepEqual(await rowCells(page, 1), ["invoice-002.png", "Done", "INV-002", "2024-04-15", "99", "EUR (edited)", "Globex", "700 / 30"]);

    // The other job has the other schema's columns.
    await recent.selectOption("past-1");
    await page.getByTestId("open-job").click();
    await eventually(() => page.getByTestId("results-table").locator("thead th").allInnerTexts(), ["File", "Status", "merchant", "amount", "Tokens in / out"]);
    assert.deepEqual(await rowCells(page, 0), ["receipt.jpg", "Done", "Café", "4.2", "700 / 30"]);
    await page.getByRole("button", { name: "Export CSV…" }).click();
    await page.getByText("Exported 1 documents to /home/user/out/receipt.csv.").waitFor();
    assert.deepEqual((await ipcCalls(page, "export_results")).map((c) => [c.args.jobId, c.args.path]), [["past-1", "/home/user/out/receipt.csv"]]);
  });

  it("does not run before a file and a schema are picked, and keeps a cancelled dialog harmless", async () => {
    const page = await app.open({ pickFiles: [] });
    await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "invoice");
    assert.equal(await page.getByTestId("run").isDisabled(), true);
    await page.getByRole("button", { name: "Add files…" }).click();
    assert.equal(await page.getByTestId("run").isDisabled(), true);
    assert.equal((await ipcCalls(page, "start_extraction")).length, 0);
    // Files dragged over the window light the drop zone up; leaving puts it back.
    await page.waitForFunction(() => (window.__siftMock.listeners.get("tauri://drag-enter") ?? []).length > 0);
    const zone = page.getByTestId("dropzone");
    await page.evaluate(() => window.__siftMock.emit("tauri://drag-enter", { paths: ["/d/x.pdf"], position: { x: 1, y: 1 } }));
    await eventually(() => zone.getAttribute("class"), "dropzone card dragging");
    assert.equal(await zone.locator("p").innerText(), "Drop to add the files");
    await page.evaluate(() => window.__siftMock.emit("tauri://drag-leave", null));
    await eventually(() => zone.getAttribute("class"), "dropzone card");
    assert.equal(await page.getByTestId("run").isDisabled(), true);
    // A drop adds the file.
    await dropFiles(page, ["/d/receipt.jpg"]);
    await page.getByRole("button", { name: "Run on 1 file" }).waitFor();
  });
});
