// Extract with a job of 10,000 documents: the table renders only the rows
// in view (as the transcript's timeline does), scrolls to the last
// document, opens it, and keeps the keyboard (the arrows, Enter, r and Tab
// in review mode) working on rows that were not rendered before.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const DOCUMENTS = 10_000;
const files = Array.from({ length: DOCUMENTS }, (_, i) => `/d/doc-${String(i + 1).padStart(5, "0")}.pdf`);
// Far fewer than the job's rows: those in a 70vh box and a few around.
const MOST_RENDERED = 100;

const rendered = (page) => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => Number(r.dataset.position)));
const cells = (page, position) => page.locator(`[data-testid="result-row"][data-position="${position}"]`).locator("th, td").allTextContents();

describe("Extract, a job of 10,000 documents", () => {
  it("renders the rows in view only, scrolls to the last document and opens it", async () => {
    const page = await app.open({
      pastJobs: [{ schemaName: "invoice", files }],
      // The one value to review is in the last document.
      evidence: { "doc-10000.pdf": [{ key: "invoice_number", status: "not_found", confidence: null, places: [] }] },
    });
    await eventually(() => page.getByTestId("recent-jobs").inputValue(), "past-1");
    await page.getByTestId("open-job").click();
    const table = page.getByTestId("results-table");
    await eventually(() => table.getAttribute("aria-rowcount"), String(DOCUMENTS + 1));
    await page.getByTestId("result-row").first().waitFor();
    const first = await rendered(page);
    assert.equal(first[0], 0);
    assert.ok(first.length > 10 && first.length < MOST_RENDERED, `${first.length} rows rendered`);
    assert.deepEqual(first, first.map((_, i) => i));
    assert.deepEqual(await cells(page, 0), ["doc-00001.pdf", "Done", "X-0", "", "", "", "", "700 / 30"]);

    // To the end: the last rows replace the first ones.
    await page.locator(".table-wrap").evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await eventually(() => cells(page, DOCUMENTS - 1), ["doc-10000.pdf", "Done", "X-9999", "", "", "", "", "700 / 30"]);
    const last = await rendered(page);
    assert.ok(last.length < MOST_RENDERED, `${last.length} rows rendered`);
    assert.equal(last.at(-1), DOCUMENTS - 1);
    assert.ok(last[0] > DOCUMENTS - MOST_RENDERED, `the first rendered is ${last[0]}`);
    const lastRow = page.locator(`[data-testid="result-row"][data-position="${DOCUMENTS - 1}"]`);
    assert.equal(await lastRow.isVisible(), true);

    // Selecting it opens its detail; the arrows move to the one before.
    await lastRow.click();
    await page.getByTestId("detail-pane").getByRole("heading", { name: "doc-10000.pdf" }).waitFor();
    await page.keyboard.press("ArrowUp");
    await page.getByTestId("detail-pane").getByRole("heading", { name: "doc-09999.pdf" }).waitFor();
    await eventually(() => page.evaluate(() => document.activeElement?.dataset.position), String(DOCUMENTS - 2));
    await page.keyboard.press("Escape");
    await eventually(() => page.getByTestId("detail-pane").count(), 0);

    // Back at the top, Enter opens the first document.
    await page.locator(".table-wrap").evaluate((el) => {
      el.scrollTop = 0;
    });
    await eventually(async () => (await rendered(page))[0], 0);
    await page.getByTestId("result-row").first().focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("detail-pane").getByRole("heading", { name: "doc-00001.pdf" }).waitFor();

    // r from the first row: review goes to the last document's value, and the table follows it there.
    await page.getByTestId("result-row").first().focus();
    await page.keyboard.press("r");
    await page.getByTestId("review-bar").waitFor();
    assert.deepEqual(
      [await page.getByTestId("review-file").innerText(), await page.getByTestId("review-key").innerText()],
      ["doc-10000.pdf", "invoice_number"],
    );
    await eventually(() => lastRow.getAttribute("aria-selected"), "true");
    assert.equal(await lastRow.isVisible(), true);
    assert.ok((await rendered(page)).length < MOST_RENDERED);
    // Tab skips it: nothing is left to review.
    await eventually(() => page.evaluate(() => document.activeElement?.dataset.testid), "review-input");
    await page.keyboard.press("Tab");
    await page.getByTestId("review-done").waitFor();
  });
});
