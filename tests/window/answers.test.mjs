// The real window: the Answers choice of a run (Extract > Options) on a
// corpus invoice. `located` answers from the field locator with no model
// request at all; `grounded` fixes the fields the locator is sure of and
// asks the model only for the others, each held to its candidates (the
// exact answer schema the scripted server receives). The third mode,
// `free`, is extract.test.mjs's run. What the window did is checked in
// the SQLite file and in the requests the model server saw.
//
// The app runs on a database of its own (`--db`). Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { OUT, WAIT_MS, eventually, launch, modelRequests, ownDatabase, scripted, shownText, test } from "./session.mjs";

const DB = join(OUT, "answers.db");
// The corpus invoice's ground truth (MANIFEST.tsv).
const TRUTH = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };

let browser;
let sql;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
/** The latest job's stored mode and its document's values and evidence. */
const latest = () => {
  const [row] = sql(
    'SELECT j.answers, d."values", d.evidence FROM extraction_jobs j JOIN extraction_documents d ON d.job_id = j.id ORDER BY j.created_at DESC, j.rowid DESC LIMIT 1',
  );
  return { answers: row.answers, values: JSON.parse(row.values), evidence: JSON.parse(row.evidence) };
};
const origins = (evidence) => Object.fromEntries(evidence.map((e) => [e.key, e.origin ?? null]));

/** Runs the invoice schema on the picked invoice with the Answers choice `mode`, until its row completes. */
async function runWith(mode) {
  const schema = await byTestId("run-schema");
  await schema.waitForDisplayed({ timeout: WAIT_MS });
  await (await schema.$('option[value="invoice"]')).waitForExist({ timeout: WAIT_MS });
  await schema.selectByAttribute("value", "invoice");
  await eventually(browser, () => schema.getValue(), "invoice");
  const answers = await byTestId("run-answers");
  if (!(await answers.isDisplayed())) {
    await (await browser.$("summary=Options")).click();
    await answers.waitForDisplayed({ timeout: WAIT_MS });
  }
  await answers.selectByAttribute("value", mode);
  await eventually(browser, () => answers.getValue(), mode);
  const clear = await browser.$("button=Clear");
  if (await clear.isExisting()) await clear.click();
  await (await byTestId("add-files")).click();
  const run = await byTestId("run");
  await eventually(browser, () => run.getText(), "Run on 1 file");
  await run.click();
  await eventually(browser, async () => (await byTestId("result-row")).getAttribute("data-status"), "completed");
}

before(async () => {
  sql = ownDatabase(DB);
  // The one answer a model gives here: grounded's, for the one field asked.
  await scripted("/_scripted/script", "PUT", {
    models: { "scripted-model": [{ tool_calls: [{ name: "submit_output", arguments: { invoice_number: "42183017" } }], usage: { input: 500, output: 10 } }] },
  });
  await scripted("/_scripted/requests", "DELETE");
  browser = await launch(["--db", DB]);
});

after(async () => {
  await browser?.deleteSession();
});

describe("a run's Answers choice", () => {
  test("located: the locator's values, with no model request", async () => {
    await runWith("located");
    assert.deepEqual(await modelRequests(), []);
    const stored = latest();
    assert.equal(stored.answers, "located");
    assert.deepEqual(stored.values, TRUTH);
    assert.deepEqual(origins(stored.evidence), { invoice_number: "located", date: "located", total: "located", currency: "located" });
    const row = await byTestId("result-row");
    const cell = async (column) => shownText(await row.$(`td[data-column="${column}"]`));
    assert.deepEqual([await cell("invoice_number"), await cell("date"), await cell("total"), await cell("currency")], ["42183017", "2014-08-03", "4.11", "USD"]);
    await (await row.$('td[data-column="total"]')).click();
    const origin = await (await byTestId("detail-pane")).$('[data-testid="evidence-origin"]');
    await origin.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await shownText(origin), "Found by the locator");
  });

  test("grounded: only the unsure field is asked, held to its candidates", async () => {
    await runWith("grounded");
    const requests = await modelRequests();
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0].body.tools[0].function.parameters, {
      type: "object",
      properties: { invoice_number: { description: "As printed", type: ["string", "null"], enum: ["42183017", "$4.11", null] } },
      required: ["invoice_number"],
    });
    const stored = latest();
    assert.equal(stored.answers, "grounded");
    assert.deepEqual(stored.values, TRUTH);
    assert.deepEqual(origins(stored.evidence), { invoice_number: null, date: "located", total: "located", currency: "located" });
  });
});
