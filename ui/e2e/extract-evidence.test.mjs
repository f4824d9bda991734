// Extract's evidence: where each value was found, drawn on its page; the
// values not found marked in the table; review mode from the keyboard; a
// click on a word of the page sets a value. The mock's `evidence` and
// `words` scenario keys stand for what the Rust side finds in a document.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const rowStatuses = (page) => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => r.dataset.status));
const rowCells = (page, index) => page.getByTestId("result-row").nth(index).locator("th, td").allTextContents();
/** Each value cell of a row: [column, data-evidence, data-checked]. */
const cellMarks = (page, index) =>
  page
    .getByTestId("result-row")
    .nth(index)
    .locator("td[data-column]")
    .evaluateAll((tds) => tds.map((td) => [td.dataset.column, td.getAttribute("data-evidence"), td.getAttribute("data-checked")]));
const boxStyle = (locator) => locator.evaluate((el) => [el.style.left, el.style.top, el.style.width, el.style.height]);
const argsOf = async (page, cmd) => (await ipcCalls(page, cmd)).map((c) => c.args);

async function runOn(page, count) {
  await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
  await page.getByTestId("add-files").click();
  await page.getByRole("button", { name: `Run on ${count} file${count === 1 ? "" : "s"}` }).click();
  await eventually(() => rowStatuses(page), Array(count).fill("completed"));
}

/** Records which elements were scrolled into view, and how. */
async function recordScrolls(page) {
  await page.evaluate(() => {
    window.__scrolled = [];
    const original = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = function (options) {
      window.__scrolled.push([this.dataset.testid ?? this.tagName, options]);
      return original.call(this, options);
    };
  });
}
const boxScrolls = (page) => page.evaluate(() => window.__scrolled.filter(([what]) => what === "evidence-box"));

describe("Extract: evidence", () => {
  it("marks the values not found, and shows a selected value's place on its page with the quote", async () => {
    const page = await app.open({
      pickFiles: ["/d/invoice-001.pdf"],
      evidence: {
        "invoice-001.pdf": [
          { key: "date", status: "normalised", confidence: "medium", places: [{ page: 1, quote: "Date: 1 March 2024", box: { x: 0.6, y: 0.1, width: 0.25, height: 0.03 }, labelled: true }] },
          {
            key: "total",
            status: "exact",
            confidence: "high",
            places: [
              { page: 2, quote: "Total due 1234.5 EUR", box: { x: 0.55, y: 0.8, width: 0.2, height: 0.025 }, labelled: true },
              { page: 1, quote: "Subtotal 1234.5", box: { x: 0.5, y: 0.6, width: 0.15, height: 0.02 }, labelled: false },
              { page: 2, quote: "Amount 1234.5", box: null, labelled: false },
            ],
          },
          { key: "vendor.name", status: "not_found", confidence: "low", places: [] },
        ],
      },
    });
    await runOn(page, 1);

    // The table marks what needs a look; the cells' text stays the values.
    assert.deepEqual(await cellMarks(page, 0), [
      ["invoice_number", null, null],
      ["date", "normalised", null],
      ["total", null, null],
      ["currency", null, null],
      ["vendor.name", "not_found", null],
    ]);
    const vendor = page.getByTestId("result-row").first().locator('td[data-column="vendor.name"]');
    assert.deepEqual(await vendor.evaluate((td) => [td.className, td.title]), ["cell-not-found", "Not found in the document"]);
    assert.deepEqual(await rowCells(page, 0), ["invoice-001.pdf", "Done", "INV-001", "2024-03-01", "1234.5", "EUR", "ACME GmbH", "800 / 40"]);
    assert.equal(await page.getByTestId("needs-review").innerText(), "1 value needs a look");

    // A cell selects its value: the preview turns to the best place's page (the second) and draws its box.
    await recordScrolls(page);
    await page.getByTestId("result-row").first().locator('td[data-column="total"]').click();
    const detail = page.getByTestId("detail-pane");
    await detail.getByRole("img", { name: "invoice-001.pdf, page 2 of 2" }).waitFor();
    const box = detail.getByTestId("evidence-box");
    await box.waitFor();
    assert.deepEqual(await boxStyle(box), ["55%", "80%", "20%", "2.5%"]);
    // Laid over the picture: 55% of its width from its left edge, 80% of its height from its top.
    const [picture, drawn] = [await detail.getByRole("img").boundingBox(), await box.boundingBox()];
    assert.deepEqual(
      [Math.round(drawn.x - picture.x), Math.round(drawn.y - picture.y), Math.round(drawn.width)],
      [Math.round(0.55 * picture.width), Math.round(0.8 * picture.height), Math.round(0.2 * picture.width)],
    );
    await eventually(() => boxScrolls(page), [["evidence-box", { block: "center" }]]);
    assert.equal(await detail.getByTestId("evidence-quote").innerText(), "Total due 1234.5 EUR");
    assert.equal(await detail.getByTestId("evidence-status").innerText(), "Found exactly");
    assert.equal(await detail.getByTestId("evidence-confidence").innerText(), "confidence: high");
    assert.equal(await detail.getByTestId("evidence-places").innerText(), "2 more places");
    assert.equal(await page.locator("td.cell-selected").getAttribute("data-column"), "total");
    // Only the page with the place was asked for.
    assert.deepEqual(await argsOf(page, "preview_document"), [{ path: "/d/invoice-001.pdf", page: 1 }]);

    // Its other places, one after the other: the first page, then one without a box.
    await detail.getByRole("button", { name: "Next place" }).click();
    await detail.getByRole("img", { name: "invoice-001.pdf, page 1 of 2" }).waitFor();
    await eventually(() => boxStyle(box), ["50%", "60%", "15%", "2%"]);
    assert.equal(await detail.getByTestId("evidence-quote").innerText(), "Subtotal 1234.5");
    assert.equal(await detail.getByTestId("evidence-places").innerText(), "Place 2 of 3");
    await eventually(() => boxScrolls(page), [["evidence-box", { block: "center" }], ["evidence-box", { block: "center" }]]);
    await detail.getByRole("button", { name: "Next place" }).click();
    await detail.getByRole("img", { name: "invoice-001.pdf, page 2 of 2" }).waitFor();
    await eventually(() => detail.getByTestId("evidence-quote").innerText(), "Amount 1234.5");
    assert.equal(await detail.getByTestId("evidence-places").innerText(), "Place 3 of 3");
    assert.equal(await detail.getByRole("button", { name: "Next place" }).isDisabled(), true);
    await detail.getByTestId("page-overlay").waitFor();
    assert.equal(await box.count(), 0);

    // The label of a field in the pane selects it too.
    await detail.locator(".value-field label").filter({ hasText: /^date$/ }).click();
    await detail.getByRole("img", { name: "invoice-001.pdf, page 1 of 2" }).waitFor();
    await eventually(() => detail.getByTestId("evidence-status").innerText(), "Found (normalised)");
    assert.equal(await detail.getByTestId("evidence-confidence").innerText(), "confidence: medium");
    assert.equal(await detail.getByTestId("evidence-quote").innerText(), "Date: 1 March 2024");
    assert.equal(await detail.getByTestId("evidence-places").count(), 0);
    await eventually(() => boxStyle(box), ["60%", "10%", "25%", "3%"]);

    // A value not found has no place: the page stays as it is.
    await detail.locator(".value-field label").filter({ hasText: /^vendor\.name$/ }).click();
    await eventually(() => detail.getByTestId("evidence-status").innerText(), "Not found in the document");
    assert.equal(await detail.getByTestId("evidence-confidence").innerText(), "confidence: low");
    assert.equal(await detail.getByTestId("evidence-quote").count(), 0);
    assert.equal(await box.count(), 0);
    assert.equal(await detail.getByRole("img").getAttribute("alt"), "invoice-001.pdf, page 1 of 2");
    assert.deepEqual((await argsOf(page, "preview_document")).map((a) => a.page), [1, 0, 1, 0]);
    assert.deepEqual(await argsOf(page, "check_value"), []);
    assert.deepEqual(await argsOf(page, "revise_value"), []);
  });

  it("walks the values to review from the keyboard: Enter accepts, typing corrects, Tab skips, Escape leaves", async () => {
    const place = (quote) => [{ page: 1, quote, box: { x: 0.2, y: 0.3, width: 0.2, height: 0.03 }, labelled: true }];
    const page = await app.open({
      evidence: {
        "invoice-001.pdf": [
          { key: "date", status: "normalised", confidence: "medium", places: place("Date: 01.03.2024") },
          { key: "vendor.name", status: "not_found", confidence: "low", places: [] },
        ],
        "invoice-002.png": [
          { key: "invoice_number", status: "normalised", confidence: "medium", places: place("Invoice inv 002") },
          { key: "total", status: "not_found", confidence: "low", places: [] },
        ],
      },
    });
    await runOn(page, 2);
    assert.equal(await page.getByTestId("needs-review").innerText(), "2 values need a look");
    const reviewing = async () => [await page.getByTestId("review-file").innerText(), await page.getByTestId("review-key").innerText()];
    const focusedBox = () => page.evaluate(() => [document.activeElement?.dataset.testid, document.activeElement?.value]);

    // `r` in the table: the first value to review, selected, its box drawn, its editor focused.
    await page.getByTestId("result-row").first().focus();
    await page.keyboard.press("r");
    await page.getByTestId("review-bar").waitFor();
    assert.deepEqual(await reviewing(), ["invoice-001.pdf", "date"]);
    assert.equal(await page.getByTestId("review-left").innerText(), "4 left");
    await eventually(focusedBox, ["review-input", "2024-03-01"]);
    const detail = page.getByTestId("detail-pane");
    assert.equal(await detail.getByTestId("evidence").getAttribute("data-key"), "date");
    await detail.getByTestId("evidence-box").waitFor();
    assert.equal(await page.getByRole("button", { name: "Review" }).isDisabled(), true);

    // Enter: accepted as it is.
    await page.keyboard.press("Enter");
    await eventually(reviewing, ["invoice-001.pdf", "vendor.name"]);
    assert.deepEqual(await argsOf(page, "check_value"), [{ jobId: "job-1", position: 0, key: "date" }]);
    await eventually(() => cellMarks(page, 0), [
      ["invoice_number", null, null],
      ["date", null, "true"],
      ["total", null, null],
      ["currency", null, null],
      ["vendor.name", "not_found", null],
    ]);

    // Typing replaces the value; Enter saves it as a correction.
    await eventually(focusedBox, ["review-input", "ACME GmbH"]);
    await page.keyboard.type("ACME Ltd");
    await page.keyboard.press("Enter");
    await eventually(reviewing, ["invoice-002.png", "invoice_number"]);
    assert.deepEqual(await argsOf(page, "revise_value"), [{ jobId: "job-1", position: 0, path: ["vendor", "name"], value: "ACME Ltd" }]);

    // Tab: skipped, nothing called.
    await eventually(focusedBox, ["review-input", "INV-002"]);
    await page.keyboard.press("Tab");
    await eventually(reviewing, ["invoice-002.png", "total"]);
    assert.equal((await ipcCalls(page, "check_value")).length + (await ipcCalls(page, "revise_value")).length, 2);

    // Typed text is parsed as the field's type: not a number is refused before any call, a number is sent as one.
    await eventually(focusedBox, ["review-input", "99"]);
    await page.keyboard.type("lots");
    await page.keyboard.press("Enter");
    await eventually(() => page.getByTestId("review-error").innerText(), "Not a number.");
    assert.equal((await ipcCalls(page, "revise_value")).length, 1);
    await page.getByTestId("review-input").fill("1,099.50");
    await page.keyboard.press("Enter");
    await page.getByTestId("review-done").waitFor();
    assert.equal(await page.getByTestId("review-done").innerText(), "All values reviewed");
    assert.deepEqual(await argsOf(page, "revise_value"), [
      { jobId: "job-1", position: 0, path: ["vendor", "name"], value: "ACME Ltd" },
      { jobId: "job-1", position: 1, path: ["total"], value: 1099.5 },
    ]);
    assert.deepEqual(await argsOf(page, "check_value"), [{ jobId: "job-1", position: 0, key: "date" }]);

    // Accepted and corrected values are checked; the skipped one still needs a look.
    await eventually(() => cellMarks(page, 1), [
      ["invoice_number", "normalised", null],
      ["date", null, null],
      ["total", null, "true"],
      ["currency", null, null],
      ["vendor.name", null, null],
    ]);
    assert.deepEqual(await cellMarks(page, 0), [
      ["invoice_number", null, null],
      ["date", null, "true"],
      ["total", null, null],
      ["currency", null, null],
      ["vendor.name", null, "true"],
    ]);
    assert.deepEqual(await rowCells(page, 0), ["invoice-001.pdf", "Done", "INV-001", "2024-03-01", "1234.5", "EUR", "ACME Ltd (edited)", "800 / 40"]);
    assert.deepEqual(await rowCells(page, 1), ["invoice-002.png", "Done", "INV-002", "2024-04-15", "1099.5 (edited)", "USD", "Globex", "810 / 41"]);
    // Both values not found were corrected: none needs a look now.
    await eventually(() => page.getByTestId("needs-review").count(), 0);

    // Escape leaves, back to the row reviewed last.
    await page.keyboard.press("Escape");
    await eventually(() => page.getByTestId("review-bar").count(), 0);
    await eventually(() => page.evaluate(() => document.activeElement?.dataset.position), "1");

    // A new walk starts at what the last one skipped.
    await page.getByRole("button", { name: "Review" }).click();
    await eventually(reviewing, ["invoice-002.png", "invoice_number"]);
    assert.equal(await page.getByTestId("review-left").innerText(), "1 left");
    await eventually(focusedBox, ["review-input", "INV-002"]);
    await page.keyboard.press("Escape");
    await eventually(() => page.getByTestId("review-bar").count(), 0);
    assert.equal((await ipcCalls(page, "check_value")).length, 1);
    assert.equal((await ipcCalls(page, "revise_value")).length, 2);
  });

  it("sets a value to a word clicked on the page, or to its whole line with shift", async () => {
    const word = (text, x, y) => ({ text, box: { x, y, width: 0.1, height: 0.03 } });
    const page = await app.open({
      pickFiles: ["/d/invoice-001.pdf"],
      evidence: { "invoice-001.pdf": [{ key: "vendor.name", status: "not_found", confidence: "low", places: [] }] },
      words: {
        "invoice-001.pdf": [
          [word("GmbH", 0.42, 0.101), word("ACME", 0.1, 0.1), word("Industries", 0.22, 0.104), word("Total", 0.1, 0.7), word("1,250.00", 0.3, 0.7)],
          [word("Page", 0.1, 0.1)],
        ],
      },
    });
    await runOn(page, 1);
    await page.getByTestId("result-row").first().locator('td[data-column="vendor.name"]').click();
    const detail = page.getByTestId("detail-pane");
    await eventually(() => detail.getByTestId("page-word").evaluateAll((ws) => ws.map((w) => w.getAttribute("aria-label"))), ["GmbH", "ACME", "Industries", "Total", "1,250.00"]);
    assert.deepEqual(await argsOf(page, "page_words"), [{ path: "/d/invoice-001.pdf", page: 0 }]);
    const wordOnPage = (text) => detail.locator(`[data-testid="page-word"][aria-label="${text}"]`);

    // Shift: the words of the line, left to right.
    await wordOnPage("ACME").click({ modifiers: ["Shift"] });
    await eventually(() => argsOf(page, "revise_value"), [{ jobId: "job-1", position: 0, path: ["vendor", "name"], value: "ACME Industries GmbH" }]);
    await eventually(() => detail.getByTestId("value-vendor.name").inputValue(), "ACME Industries GmbH");

    // A number field takes the word as a number; a word that is not one is refused, with no call.
    await detail.locator(".value-field label").filter({ hasText: /^total$/ }).click();
    await eventually(() => detail.getByTestId("evidence").getAttribute("data-key"), "total");
    await wordOnPage("1,250.00").click();
    await eventually(async () => (await argsOf(page, "revise_value")).slice(1), [{ jobId: "job-1", position: 0, path: ["total"], value: 1250 }]);
    await wordOnPage("Total").click();
    await eventually(() => detail.getByTestId("evidence-error").innerText(), "Not a number.");
    assert.equal((await ipcCalls(page, "revise_value")).length, 2);

    await eventually(() => rowCells(page, 0), ["invoice-001.pdf", "Done", "INV-001", "2024-03-01", "1250 (edited)", "EUR", "ACME Industries GmbH (edited)", "800 / 40"]);
    assert.deepEqual((await cellMarks(page, 0)).filter(([, , checked]) => checked === "true").map(([column]) => column), ["total", "vendor.name"]);
    // Both values were on the first page: its words were asked for once.
    assert.deepEqual(await argsOf(page, "page_words"), [{ path: "/d/invoice-001.pdf", page: 0 }]);
  });
});
