// The real window: Extract's evidence review on a corpus invoice whose
// answer (from the scripted model server) holds an invented invoice
// number. The values not found are marked and counted; a selected value's
// box is drawn over the page at its stored place, with the quote; review
// mode is walked from the keyboard; a click on a word of the page corrects
// a value. What the window did is checked in the SQLite file itself.
//
// The app runs on a database of its own (`--db`), so that this file's
// job is the only one in it and the other files' jobs (extract.test.mjs
// counts its "Recent jobs") are not touched. Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { after, before, describe } from "node:test";
import { OUT, WAIT_MS, env, eventually, extractThePickedFile, launch, ownDatabase, scripted, shownText, snap, test } from "./session.mjs";

const INVOICE = env("SIFT_TEST_OPEN_PATHS");
const NAME = basename(INVOICE);
const DB = join(OUT, "evidence.db");
// The model's answer: the date, total and currency are right; the invoice
// number is invented (the PDF's is 42183017), as the local model did.
const ANSWER = { invoice_number: "1234567890", date: "2014-08-03", total: 4.11, currency: "USD" };

/** The rows a query answers in this file's database (set up in `before`). */
let sql;
const checks = () => sql("SELECT job_id, position, field, checked_at FROM extraction_checks ORDER BY checked_at, rowid");
const revisions = () => sql('SELECT "values", evidence FROM extraction_revisions ORDER BY id').map((r) => ({ values: JSON.parse(r.values), evidence: JSON.parse(r.evidence) }));
const statusOf = (evidence) => Object.fromEntries(evidence.map((e) => [e.key, e.status]));

/** `fraction` of the page as the percentage the UI positions a box at (ui/src/extract/evidence.ts, boxStyle). */
const percent = (fraction) => `${Number((fraction * 100).toFixed(4))}%`;

let browser;
let jobId;
const startedAt = Date.now();
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const row = () => byTestId("result-row");
const cell = async (column) => (await row()).$(`td[data-column="${column}"]`);
/** Each value cell of the row: [column, its text, data-evidence, data-checked]. */
const cellMarks = () =>
  browser.execute(() =>
    [...document.querySelectorAll('[data-testid="result-row"] td[data-column]')].map((td) => [
      td.dataset.column,
      td.innerText.trim(),
      td.getAttribute("data-evidence"),
      td.getAttribute("data-checked"),
    ]),
  );
/** What has the focus: its test id and value. */
const focused = () => browser.execute(() => [document.activeElement?.dataset.testid ?? null, document.activeElement?.value ?? null]);
const reviewing = async () => [await shownText(await byTestId("review-file")), await shownText(await byTestId("review-key")), await shownText(await byTestId("review-left"))];
const needsReview = async () => {
  const line = await byTestId("needs-review");
  return (await line.isExisting()) ? shownText(line) : null;
};

before(async () => {
  sql = ownDatabase(DB);
  await scripted("/_scripted/script", "PUT", {
    models: { "scripted-model": [{ tool_calls: [{ name: "submit_output", arguments: ANSWER }], usage: { input: 1234, output: 56 } }] },
  });
  browser = await launch(["--db", DB]);
});

after(async () => {
  await browser?.deleteSession();
});

describe("Extract's evidence", () => {
  test("marks the values not found in the invoice and counts them", async () => {
    await extractThePickedFile(browser);

    // Stored: where each value was found. The invented number is nowhere;
    // the date is printed "August 3 , 2014", the currency as its sign ($4.11).
    const [stored] = sql("SELECT job_id, position, evidence FROM extraction_documents");
    jobId = stored.job_id;
    assert.equal(stored.position, 0);
    const evidence = JSON.parse(stored.evidence);
    assert.deepEqual(statusOf(evidence), { invoice_number: "not_found", date: "normalised", total: "exact", currency: "normalised" });

    // The table marks the doubtful values (the text stays the value) and counts those not found.
    assert.deepEqual(await cellMarks(), [
      ["invoice_number", "1234567890", "not_found", null],
      ["date", "2014-08-03", "normalised", null],
      ["total", "4.11", null, null],
      ["currency", "USD", "normalised", null],
    ]);
    assert.equal(await (await cell("invoice_number")).getAttribute("title"), "Not found in the document");
    assert.equal(await needsReview(), "1 value needs a look");
  });

  test("draws a selected value's box over the page where it was stored, with the quote", async () => {
    const [stored] = sql("SELECT evidence FROM extraction_documents");
    const total = JSON.parse(stored.evidence).find((e) => e.key === "total");
    const best = total.places[0];
    assert.equal(best.page, 1);
    assert.equal(best.quote, "TOTAL AMOUNT DUE ON August 3 , 2014 $4.11");

    await (await cell("total")).click();
    const pane = await byTestId("detail-pane");
    await pane.waitForDisplayed({ timeout: WAIT_MS });
    const box = await pane.$('[data-testid="evidence-box"]');
    await box.waitForDisplayed({ timeout: WAIT_MS, timeoutMsg: "no box was drawn for the total" });
    const picture = await pane.$('[data-testid="document-preview"] img');
    assert.equal(await picture.getAttribute("alt"), `${NAME}, page 1 of 1`);
    const style = await browser.execute((el) => [el.style.left, el.style.top, el.style.width, el.style.height], box);
    assert.deepEqual(style, [percent(best.box.x), percent(best.box.y), percent(best.box.width), percent(best.box.height)]);
    // Over the picture: at those fractions of its width and height from its top-left corner.
    const [img, drawn] = await browser.execute(
      (a, b) => [a, b].map((el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }),
      picture,
      box,
    );
    assert.deepEqual(
      [Math.round(drawn.x - img.x), Math.round(drawn.y - img.y), Math.round(drawn.width), Math.round(drawn.height)],
      [Math.round(best.box.x * img.width), Math.round(best.box.y * img.height), Math.round(best.box.width * img.width), Math.round(best.box.height * img.height)],
    );
    // In view: the pane brought the box to the middle of what scrolls.
    assert.ok(await box.isDisplayed({ withinViewport: true }), "the box is in view");

    assert.equal(await (await pane.$('[data-testid="evidence"]')).getAttribute("data-key"), "total");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-quote"]')), "TOTAL AMOUNT DUE ON August 3 , 2014 $4.11");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-status"]')), "Found exactly");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-confidence"]')), "confidence: high");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-places"]')), `${total.places.length - 1} more places`);
    assert.deepEqual(await browser.execute(() => [...document.querySelectorAll("td.cell-selected")].map((td) => td.dataset.column)), ["total"]);
    await snap(browser, "extract-evidence");
  });

  test("walks the values to review from the keyboard: Enter accepts, typing corrects, Tab skips", async () => {
    // `r` in the table (its row focused).
    await (await (await row()).$("th")).click();
    await eventually(browser, () => browser.execute(() => document.activeElement?.dataset.testid ?? null), "result-row");
    await browser.keys("r");
    await (await byTestId("review-bar")).waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await (await byTestId("review")).isEnabled(), false);

    // First the invoice number (not found): Enter accepts it as it is.
    assert.deepEqual(await reviewing(), [NAME, "invoice_number", "3 left"]);
    await eventually(browser, focused, ["review-input", "1234567890"]);
    assert.equal(await (await byTestId("evidence")).getAttribute("data-key"), "invoice_number");
    await browser.keys("Enter");
    await eventually(browser, reviewing, [NAME, "date", "2 left"]);
    assert.deepEqual(checks().map(({ checked_at, ...rest }) => rest), [{ job_id: jobId, position: 0, field: "invoice_number" }]);
    assert.deepEqual(revisions(), []);

    // Then the date (found normalised): typed text replaces it, Enter saves the correction as a revision.
    await eventually(browser, focused, ["review-input", "2014-08-03"]);
    assert.equal(await (await byTestId("evidence")).getAttribute("data-key"), "date");
    await (await byTestId("evidence-box")).waitForDisplayed({ timeout: WAIT_MS });
    await browser.keys("2014-08-04");
    await eventually(browser, focused, ["review-input", "2014-08-04"]);
    await browser.keys("Enter");
    await eventually(browser, reviewing, [NAME, "currency", "1 left"]);

    // Then the currency (found as its sign): Tab skips it, nothing is stored.
    await eventually(browser, focused, ["review-input", "USD"]);
    await browser.keys("Tab");
    const done = await byTestId("review-done");
    await done.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await shownText(done), "All values reviewed");

    // Stored: the accepted and the corrected field checked, in that order; one revision, with the new date.
    const stored = checks();
    assert.deepEqual(stored.map(({ checked_at, ...rest }) => rest), [
      { job_id: jobId, position: 0, field: "invoice_number" },
      { job_id: jobId, position: 0, field: "date" },
    ]);
    for (const { checked_at } of stored) assert.ok(Number.isInteger(checked_at) && checked_at >= startedAt && checked_at <= Date.now(), String(checked_at));
    const [revision, ...more] = revisions();
    assert.equal(more.length, 0);
    assert.deepEqual(revision.values, { invoice_number: "1234567890", date: "2014-08-04", total: 4.11, currency: "USD" });
    // The revision looked for its values again: the new date is not in the invoice.
    assert.deepEqual(statusOf(revision.evidence), { invoice_number: "not_found", date: "not_found", total: "exact", currency: "normalised" });

    // The table: checked values marked ✓, the skipped one still doubtful, nothing not found unchecked.
    await eventually(browser, cellMarks, [
      ["invoice_number", "1234567890", null, "true"],
      ["date", "2014-08-04 (edited)", null, "true"],
      ["total", "4.11", null, null],
      ["currency", "USD", "normalised", null],
    ]);
    await eventually(browser, needsReview, null);

    // Escape leaves review mode, back to the row.
    await browser.keys("Escape");
    await eventually(browser, async () => (await byTestId("review-bar")).isExisting(), false);
    await eventually(browser, () => browser.execute(() => document.activeElement?.dataset.testid ?? null), "result-row");
  });

  test("sets a value to a word clicked on the page", async () => {
    await (await cell("invoice_number")).click();
    const pane = await byTestId("detail-pane");
    await eventually(browser, async () => (await pane.$('[data-testid="evidence"]')).getAttribute("data-key"), "invoice_number");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-status"]')), "Not found in the document");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-checked"]')), "✓ checked");
    await eventually(browser, async () => (await pane.$('[data-testid="page-overlay"]')).getAttribute("data-words"), "ready");
    // The page's words, each a button named by its text: the PDF's own invoice number once, after its label.
    const words = await browser.execute(() => [...document.querySelectorAll('[data-testid="page-word"]')].map((w) => w.getAttribute("aria-label")));
    const at = words.indexOf("42183017");
    assert.deepEqual([words.slice(at - 2, at + 1), words.lastIndexOf("42183017") === at], [["Invoice", "Number:", "42183017"], true]);
    await (await pane.$('[data-testid="page-word"][aria-label="42183017"]')).click();

    await eventually(browser, async () => shownText(await cell("invoice_number")), "42183017 (edited)");
    const all = revisions();
    assert.equal(all.length, 2);
    assert.deepEqual(all[1].values, { invoice_number: "42183017", date: "2014-08-04", total: 4.11, currency: "USD" });
    assert.deepEqual(statusOf(all[1].evidence), { invoice_number: "exact", date: "not_found", total: "exact", currency: "normalised" });
    const found = all[1].evidence.find((e) => e.key === "invoice_number");
    assert.deepEqual([found.confidence, found.places.length, found.places[0].page, found.places[0].quote, found.places[0].labelled], ["high", 1, 1, "Invoice Number: 42183017", true]);
    // Checked already (accepted in review): its check keeps the first time.
    assert.deepEqual(checks().map(({ checked_at, ...rest }) => rest), [
      { job_id: jobId, position: 0, field: "invoice_number" },
      { job_id: jobId, position: 0, field: "date" },
    ]);

    // Found now: the cell is checked and no longer marked, the pane shows where.
    await eventually(browser, async () => (await cellMarks())[0], ["invoice_number", "42183017 (edited)", null, "true"]);
    await eventually(browser, async () => shownText(await pane.$('[data-testid="evidence-status"]')), "Found exactly");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-checked"]')), "✓ checked");
    assert.equal(await shownText(await pane.$('[data-testid="evidence-quote"]')), "Invoice Number: 42183017");
    // Its box is drawn where the revision found it.
    const box = await pane.$('[data-testid="evidence-box"]');
    await box.waitForDisplayed({ timeout: WAIT_MS });
    const { x, y, width, height } = found.places[0].box;
    assert.deepEqual(await browser.execute((el) => [el.style.left, el.style.top, el.style.width, el.style.height], box), [percent(x), percent(y), percent(width), percent(height)]);
    assert.equal(await (await pane.$('[data-testid="value-invoice_number"]')).getValue(), "42183017");
  });
});
