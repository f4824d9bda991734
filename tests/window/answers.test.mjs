// The real window: the Answers choice of a run (Extract > Options) on a
// corpus invoice. `located` answers from the field locator with no model
// request at all; `grounded` fixes the fields the locator is sure of and
// asks the model only for the others (the exact answer schema the
// scripted server receives; the enum a field is held to is asserted in
// core's tests). The third mode,
// `free`, is extract.test.mjs's run. What the window did is checked in
// the SQLite file and in the requests the model server saw.
//
// The app runs on a database of its own (`--db`). Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe } from "node:test";
import { APP, OUT, WAIT_MS, addThePickedFile, eventually, launch, modelRequests, ownDatabase, scripted, shownText, test } from "./session.mjs";

const DB = join(OUT, "answers.db");
// The corpus invoice's ground truth (MANIFEST.tsv).
const TRUTH = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };
// The locator is sure of all four fields of the invoice schema on this
// invoice; a seller's name is never sure (a name is only a suggestion),
// so grounded asks the model for it alone.
const SELLER = {
  type: "object",
  properties: {
    invoice_number: { type: "string", description: "As printed" },
    date: { type: "string", description: "ISO 8601" },
    total: { type: "number" },
    currency: { type: "string" },
    seller_name: { type: "string", description: "Who issued the invoice" },
  },
  required: ["invoice_number", "date", "total", "currency", "seller_name"],
};

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

/** Runs the schema `name` on the picked invoice with the Answers choice `mode`, until its row completes. */
async function runWith(mode, name) {
  const schema = await byTestId("run-schema");
  await schema.waitForDisplayed({ timeout: WAIT_MS });
  await (await schema.$(`option[value="${name}"]`)).waitForExist({ timeout: WAIT_MS });
  await schema.selectByAttribute("value", name);
  await eventually(browser, () => schema.getValue(), name);
  const answers = await byTestId("run-answers");
  if (!(await answers.isDisplayed())) {
    await (await browser.$("summary=Options")).click();
    await answers.waitForDisplayed({ timeout: WAIT_MS });
  }
  await answers.selectByAttribute("value", mode);
  await eventually(browser, () => answers.getValue(), mode);
  // A run keeps its file listed, so the run before this one's file may
  // already be there; the same path is never listed twice.
  const run = await addThePickedFile(browser);
  await run.click();
  await eventually(browser, async () => (await byTestId("result-row")).getAttribute("data-status"), "completed");
}

before(async () => {
  sql = ownDatabase(DB);
  const seller = join(OUT, "invoice_seller.json");
  writeFileSync(seller, JSON.stringify(SELLER));
  execFileSync(join(dirname(APP), "sift"), ["--db", DB, "schema", "import", seller]);
  // The one answer a model gives here: grounded's, for the one field asked.
  await scripted("/_scripted/script", "PUT", {
    models: { "scripted-model": [{ tool_calls: [{ name: "submit_output", arguments: { seller_name: "Amazon Web Services, Inc." } }], usage: { input: 500, output: 10 } }] },
  });
  await scripted("/_scripted/requests", "DELETE");
  browser = await launch(["--db", DB]);
});

after(async () => {
  await browser?.deleteSession();
});

describe("a run's Answers choice", () => {
  test("located: the locator's values, with no model request", async () => {
    await runWith("located", "invoice");
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

  test("grounded: the sure fields are the locator's, only the seller is asked", async () => {
    await runWith("grounded", "invoice_seller");
    const requests = await modelRequests();
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0].body.tools[0].function.parameters, {
      type: "object",
      properties: { seller_name: { type: "string", description: "Who issued the invoice" } },
      required: ["seller_name"],
    });
    const stored = latest();
    assert.equal(stored.answers, "grounded");
    assert.deepEqual(stored.values, { ...TRUTH, seller_name: "Amazon Web Services, Inc." });
    assert.deepEqual(origins(stored.evidence), { invoice_number: "located", date: "located", total: "located", currency: "located", seller_name: null });
  });
});
