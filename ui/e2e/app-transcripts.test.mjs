// Transcripts in the built app, through its Tauri source
// (src/backend/transcriptSource.ts) over the mocked IPC (mock-ipc-workflows-chat-transcripts.js):
// an extraction row's transcript opened from Extract, with tool calls and
// long results folded, usage, and the revision tree after a correction;
// and a 10,000-message chat (its time to first paint: `npm run bench:browser`).
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

describe("Transcripts in the app", () => {
  it("opens an extraction row's transcript from Extract: tool calls, a folded result, usage, and the call's revision tree", async () => {
    // The document's call was revised twice with `sift revise` (a revision of the revision).
    const values = { invoice_number: "INV-001", date: "2024-03-01", total: 1234.5, currency: "EUR", vendor: { name: "ACME GmbH" } };
    const callRevisions = [
      { id: "call-rev-1", parentId: "call-job-1-0", output: { ...values, total: 1250 } },
      { id: "call-rev-2", parentId: "call-rev-1", output: { ...values, total: 1250, currency: "USD" } },
    ];
    const page = await app.open({ eventDelay: 20, callRevisions });
    await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "invoice");
    await page.getByRole("button", { name: "Add files…" }).click();
    await page.getByLabel("Model", { exact: true }).fill("smollm2");
    await page.getByRole("button", { name: "Run on 2 files" }).click();
    const statuses = () => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => r.dataset.status));
    await eventually(statuses, ["completed", "completed"]);
    await page.getByTestId("result-row").first().click();
    await page.getByTestId("detail-pane").getByTestId("open-transcript").click();

    await page.locator("#transcripts-title").waitFor();
    assert.equal(await page.getByTestId("nav-transcripts").getAttribute("aria-current"), "page");
    await eventually(() => page.getByTestId("transcript-title").textContent(), "extract: invoice-001.pdf");
    assert.ok((await ipcCalls(page, "call_transcript")).some((c) => c.args.callId === "call-job-1-0"));
    assert.deepEqual((await ipcCalls(page, "call_revisions")).map((c) => c.args), [{ callId: "call-job-1-0" }]);

    const timeline = page.getByTestId("timeline");
    // Two submit_output calls: the first refused (a correction), the second accepted.
    await eventually(() => timeline.getByTestId("tool-call").count(), 2);
    assert.match(await timeline.getByTestId("tool-call").first().innerText(), /submit_output[\s\S]*"total": "twelve"/);
    const refused = timeline.getByTestId("tool-result").first();
    const unfold = refused.getByRole("button", { name: /^Show all of the result/ });
    assert.equal(await unfold.getAttribute("aria-expanded"), "false");
    assert.ok(!(await refused.innerText()).includes("The schema requires a number here.\n".repeat(12).trim()), "a long result starts folded");
    await unfold.click();
    await eventually(() => refused.innerText().then((t) => t.includes("The schema requires a number here.\n".repeat(12).trim())), true);
    assert.equal(await timeline.getByTestId("usage-total").innerText(), "Total: 800 in · 40 out tokens over 2 attempts");

    // The revision tree: the call, its revision, and the revision of that, each with the values that differ from its parent marked.
    const revisions = page.getByTestId("revisions");
    assert.deepEqual(
      await revisions.locator("[data-revision]").evaluateAll((els) => els.map((e) => [e.dataset.revision, e.dataset.depth])),
      [
        ["call-job-1-0", "0"],
        ["call-rev-1", "1"],
        ["call-rev-2", "2"],
      ],
    );
    const changed = (id) => revisions.locator(`[data-revision="${id}"] [data-changed="true"] dt`).allInnerTexts();
    assert.deepEqual(await changed("call-job-1-0"), []);
    assert.deepEqual(await changed("call-rev-1"), ["total"]);
    assert.deepEqual(await changed("call-rev-2"), ["currency"]);
    // A revision opens from the tree.
    await revisions.locator('[data-revision="call-rev-2"] button').click();
    await eventually(() => revisions.locator('[data-revision="call-rev-2"] button').getAttribute("aria-current"), "true");
    await eventually(() => page.getByTestId("usage-total").innerText(), "Total: 900 in · 30 out tokens over 2 attempts");

    // Back in Extract, the same row's link opens its own transcript again.
    await page.getByTestId("nav-extract").click();
    await page.getByTestId("detail-pane").getByTestId("open-transcript").click();
    await eventually(() => page.locator('[data-revision="call-job-1-0"] button').getAttribute("aria-current"), "true");
    await eventually(() => page.getByTestId("usage-total").innerText(), "Total: 800 in · 40 out tokens over 2 attempts");
    // The list names the calls by their documents.
    await eventually(
      () => page.locator("[data-transcript]").evaluateAll((els) => els.map((e) => `${e.dataset.transcript}: ${e.innerText.split("\n")[0]}`)),
      ["call-rev-2: extract: invoice-001.pdf", "call-rev-1: extract: invoice-001.pdf", "call-job-1-0: extract: invoice-001.pdf", "call-job-1-1: extract: invoice-002.png", "ses_0001: Invoice questions"],
    );
  });

  it("opens a 10,000-message chat through the IPC, rendering only the rows in view", async () => {
    const page = await app.open({ longSession: 10_000 });
    await page.getByTestId("nav-transcripts").click();
    await page.locator('[data-transcript="ses_long"]').waitFor();
    await page.locator('[data-transcript="ses_long"]').click();
    // The first row is visible and shows the first question. (The time it takes is
    // the benchmark's, `npm run bench:browser`: a measurement is no pass/fail test.)
    await page.getByTestId("timeline").locator(".tl-row").first().filter({ hasText: "Question 1" }).waitFor();
    const timeline = page.getByTestId("timeline");
    assert.equal(await page.getByTestId("transcript-title").textContent(), "Long history");
    assert.equal(await timeline.getAttribute("data-rows"), String(10_000));
    const rendered = await timeline.locator(".tl-row").count();
    assert.ok(rendered > 5 && rendered < 80, `${rendered} rows in the DOM`);
    assert.deepEqual((await ipcCalls(page, "session_messages")).map((c) => c.args), [{ sessionId: "ses_long" }]);
  });
});
