// The real window: a corpus invoice extracted on Extract against the
// scripted model server, one value accepted and another corrected in the
// evidence review, the job saved as a labelled set ("Save as a labelled
// set…": only the values the user vouched for become truth); then on
// Evaluate two candidates run over that set (model-a answers right,
// model-b gets the invoice number wrong): the matrix, the figures, the
// pair's sentence, the disagreement behind the wrong cell and its
// transcript, the chart; then the same candidates again, reused without a
// request, and both runs in the history. What the window did is checked
// in the SQLite file itself and in the requests the server saw.
//
// The app runs on a database of its own (`--db`). Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { after, before, describe } from "node:test";
import { OUT, WAIT_MS, env, eventually, extractThePickedFile, launch, modelRequests, ownDatabase, scripted, shownText, snap, test, typeInto } from "./session.mjs";

const INVOICE = env("SIFT_TEST_OPEN_PATHS");
const NAME = basename(INVOICE);
const DB = join(OUT, "evaluate.db");
const SET = "amazon invoice";
// What the extraction's model answers: the invoice number is invented (the PDF's is 42183017).
const EXTRACTED = { invoice_number: "1234567890", date: "2014-08-03", total: 4.11, currency: "USD" };
// The candidates' answers: model-a right on both fields of the set, model-b wrong on the invoice number.
const RIGHT = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };
const WRONG = { ...RIGHT, invoice_number: "1234567890" };
const answer = (values, input, output) => ({ tool_calls: [{ name: "submit_output", arguments: values }], usage: { input, output } });
const PAIR = "model-a vs model-b: 2/2 against 1/2; 1 cells differ (1 for model-a, 0 for model-b): within noise (McNemar exact p = 1.000)";

/** The rows a query answers in this file's database (set up in `before`). */
let sql;
const evalCalls = () => sql("SELECT count(*) AS n FROM structured_calls WHERE kind = 'eval'")[0].n;
const runs = () => sql("SELECT id, set_name, status, finished_at IS NOT NULL AS finished FROM eval_runs ORDER BY created_at, rowid");
const candidates = (runId) =>
  sql(`SELECT position, label, job_id, reused, json_extract(candidate, '$.model') AS model, json_extract(candidate, '$.providerId') AS provider FROM eval_candidates WHERE run_id = '${runId}' ORDER BY position`);

let browser;
let jobId;
let firstRun;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const row = () => byTestId("result-row");
/** The text content of every element `selector` matches. */
const texts = (selector) => browser.execute((s) => [...document.querySelectorAll(s)].map((e) => e.textContent), selector);
const attributes = (selector, name) => browser.execute((s, n) => [...document.querySelectorAll(s)].map((e) => e.getAttribute(n)), selector, name);
/** A table's body rows as the texts of their cells. */
const tableRows = (testId) =>
  browser.execute((id) => [...document.querySelectorAll(`[data-testid="${id}"] tbody tr`)].map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)), testId);
const focused = () => browser.execute(() => [document.activeElement?.dataset.testid ?? null, document.activeElement?.value ?? null]);
const reviewing = async () => [await shownText(await byTestId("review-file")), await shownText(await byTestId("review-key")), await shownText(await byTestId("review-left"))];
const status = async () => shownText(await byTestId("evaluate-status"));
const progress = () => texts('[data-testid="candidate-progress"]');
const matrixCell = (field, label) => browser.$(`[data-testid="matrix-cell"][data-field="${field}"][data-candidate="${label}"]`);

before(async () => {
  sql = ownDatabase(DB);
  await scripted("/_scripted/script", "PUT", {
    models: {
      "scripted-model": [answer(EXTRACTED, 1234, 56)],
      "model-a": [answer(RIGHT, 1000, 40)],
      "model-b": [answer(WRONG, 1100, 50)],
    },
  });
  await scripted("/_scripted/requests", "DELETE");
  browser = await launch(["--db", DB]);
});

after(async () => {
  await browser?.deleteSession();
});

describe("Evaluate", () => {
  test("saves the checked and corrected values of an Extract job as a labelled set", async () => {
    await extractThePickedFile(browser);
    [{ job_id: jobId }] = sql("SELECT job_id FROM extraction_documents");
    assert.deepEqual((await modelRequests()).map((r) => r.body.model), ["scripted-model"]);

    // The review: the invented invoice number corrected by typing, the date accepted, the currency skipped.
    await (await (await row()).$("th")).click();
    await eventually(browser, () => browser.execute(() => document.activeElement?.dataset.testid ?? null), "result-row");
    await browser.keys("r");
    await (await byTestId("review-bar")).waitForDisplayed({ timeout: WAIT_MS });
    assert.deepEqual(await reviewing(), [NAME, "invoice_number", "3 left"]);
    await eventually(browser, focused, ["review-input", "1234567890"]);
    await browser.keys("42183017");
    await eventually(browser, focused, ["review-input", "42183017"]);
    await browser.keys("Enter");
    await eventually(browser, reviewing, [NAME, "date", "2 left"]);
    await eventually(browser, focused, ["review-input", "2014-08-03"]);
    await browser.keys("Enter");
    await eventually(browser, reviewing, [NAME, "currency", "1 left"]);
    await eventually(browser, focused, ["review-input", "USD"]);
    await browser.keys("Tab");
    await (await byTestId("review-done")).waitForDisplayed({ timeout: WAIT_MS });
    await browser.keys("Escape");
    await eventually(browser, async () => (await byTestId("review-bar")).isExisting(), false);
    // Escape gives the focus back to the row (on the next frame): only then is the name typed, or the row would take the keys.
    await eventually(browser, () => browser.execute(() => document.activeElement?.dataset.testid ?? null), "result-row");
    assert.deepEqual(sql("SELECT position, field FROM extraction_checks ORDER BY checked_at, rowid"), [
      { position: 0, field: "invoice_number" },
      { position: 0, field: "date" },
    ]);
    await eventually(browser, async () => shownText(await (await row()).$('td[data-column="invoice_number"]')), "42183017 (edited)");

    // Saved under a typed name: the two vouched-for fields only, in the schema's order.
    const saveAs = await byTestId("save-as-set");
    await (await saveAs.$("button=Save as a labelled set…")).click();
    const name = await saveAs.$('form[aria-label="Save as a labelled set"] input');
    await name.waitForDisplayed({ timeout: WAIT_MS });
    await typeInto(browser, name, SET);
    await (await saveAs.$("button=Save the set")).click();
    const note = await byTestId("save-as-set-note");
    await note.waitForDisplayed({ timeout: WAIT_MS });
    await eventually(browser, () => shownText(note), `Saved the labelled set ${SET}: 1 documents, fields invoice_number, date.`);
    assert.equal(await note.getAttribute("role"), "status");

    assert.deepEqual(sql("SELECT name, schema_name, schema_version, fields, source FROM labelled_sets"), [
      { name: SET, schema_name: "invoice", schema_version: 2, fields: '["invoice_number","date"]', source: `job ${jobId}` },
    ]);
    // The truth: the corrected invoice number and the accepted date; the unchecked total and currency are not truth.
    assert.deepEqual(sql("SELECT set_name, position, path, truth FROM labelled_documents"), [
      { set_name: SET, position: 0, path: INVOICE, truth: '{"date":"2014-08-03","invoice_number":"42183017"}' },
    ]);
  });

  test("runs two candidates over the set: the matrix, the figures and the pair's sentence", async () => {
    await scripted("/_scripted/requests", "DELETE");
    await (await byTestId("nav-evaluate")).click();
    await (await browser.$("#evaluate-title")).waitForDisplayed({ timeout: WAIT_MS });
    const pick = await byTestId("set-select");
    await eventually(browser, () => texts('[data-testid="set-select"] option'), ["Choose a set…", SET]);
    await pick.selectByAttribute("value", SET);
    await eventually(browser, () => pick.getValue(), SET);
    await eventually(browser, async () => shownText(await byTestId("set-info")), `1 documents · fields invoice_number, date · schema invoice v2 · from job ${jobId}`);

    // The first candidate starts as the settings' default (the scripted provider and its model).
    const model1 = await browser.$('input[aria-label="Model of candidate 1"]');
    await eventually(browser, () => model1.getValue(), "scripted-model");
    assert.equal(await (await browser.$('select[aria-label="Provider of candidate 1"]')).getValue(), "scripted");
    await typeInto(browser, model1, "model-a");
    await (await browser.$("button=Add a candidate")).click();
    const provider2 = await browser.$('select[aria-label="Provider of candidate 2"]');
    await provider2.waitForDisplayed({ timeout: WAIT_MS });
    await provider2.selectByAttribute("value", "scripted");
    const model2 = await browser.$('input[aria-label="Model of candidate 2"]');
    await typeInto(browser, model2, "model-b");

    const start = await browser.$("button=Run 2 candidates");
    await start.click();
    await eventually(browser, status, "Run completed.");
    await eventually(browser, progress, ["1/1", "1/1"]);
    assert.equal(await (await byTestId("evaluate-error")).isExisting(), false);

    // The matrix: a row per field of the set and overall.
    const matrix = await byTestId("matrix");
    await matrix.waitForDisplayed({ timeout: WAIT_MS });
    assert.deepEqual(await texts('[data-testid="matrix"] thead th'), ["Field", "model-a", "model-b"]);
    assert.deepEqual(await tableRows("matrix"), [
      ["invoice_number", "1/1 100%", "0/1 0%"],
      ["date", "1/1 100%", "1/1 100%"],
      ["overall", "2/2 100%", "1/2 50%"],
    ]);
    assert.deepEqual(await attributes(".eval-cell", "class"), [
      "eval-cell band-4", "eval-cell band-0", "eval-cell band-4", "eval-cell band-4", "eval-cell band-4", "eval-cell band-1",
    ]);

    // Stored: one completed run, its two candidates each with a job of its own, one call each.
    const stored = runs();
    assert.equal(stored.length, 1);
    firstRun = stored[0].id;
    assert.deepEqual(stored, [{ id: firstRun, set_name: SET, status: "completed", finished: 1 }]);
    const [a, b] = candidates(firstRun);
    assert.ok(a.job_id && b.job_id && a.job_id !== b.job_id && a.job_id !== jobId && b.job_id !== jobId, JSON.stringify([a, b]));
    assert.deepEqual(candidates(firstRun), [
      { position: 0, label: "model-a", job_id: a.job_id, reused: 0, model: "model-a", provider: "scripted" },
      { position: 1, label: "model-b", job_id: b.job_id, reused: 0, model: "model-b", provider: "scripted" },
    ]);
    assert.equal(evalCalls(), 2);
    const calls = sql(
      `SELECT c.position, d.path, d.status, s.kind, s.input_tokens, s.output_tokens, s.finished_at - s.created_at AS latency
         FROM eval_candidates c JOIN extraction_documents d ON d.job_id = c.job_id JOIN structured_calls s ON s.id = d.call_id
        WHERE c.run_id = '${firstRun}' ORDER BY c.position`,
    );
    assert.deepEqual(calls.map(({ latency, ...rest }) => rest), [
      { position: 0, path: INVOICE, status: "completed", kind: "eval", input_tokens: 1000, output_tokens: 40 },
      { position: 1, path: INVOICE, status: "completed", kind: "eval", input_tokens: 1100, output_tokens: 50 },
    ]);
    // The server saw one request per candidate, in the candidates' order, each with the invoice's text.
    const requests = await modelRequests();
    assert.deepEqual(requests.map((r) => r.body.model), ["model-a", "model-b"]);
    for (const request of requests) {
      const user = request.body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
      assert.ok(user.includes(`<file name="${NAME}">`) && user.includes("42183017"), user.slice(0, 300));
    }

    // The figures: one document each, so the median and the 95th percentile are its call's time.
    const [la, lb] = calls.map((c) => c.latency);
    assert.deepEqual(await tableRows("figures"), [
      ["Latency median / p95", `${la} ms / ${la} ms`, `${lb} ms / ${lb} ms`],
      ["Tokens in / out", "1000 / 40", "1100 / 50"],
      ["Cost", "free", "free"],
      ["With evidence", "2/2 100%", "1/2 50%"],
      ["Failures", "none", "none"],
    ]);
    assert.deepEqual(await texts('[data-testid="pair"]'), [`within noise ${PAIR}`]);
  });

  test("opens the wrong cell's disagreement and model-b's transcript", async () => {
    await (await matrixCell("invoice_number", "model-b")).click();
    const panel = await byTestId("disagreements");
    await panel.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await shownText(await panel.$("#disagreements-title")), "Disagreements on invoice_number");
    assert.deepEqual(await tableRows("disagreements"), [[NAME, "42183017", '✓ "42183017" · exactOpen transcript', '✗ "1234567890" · not foundOpen transcript']]);
    assert.deepEqual(await texts('[data-testid="disagreement"] th'), [NAME]);
    assert.deepEqual(await texts('[data-testid="disagreement"] [data-testid="truth"]'), ["42183017"]);
    assert.deepEqual(await texts('[data-testid="disagreement"] [data-testid="value"]'), ['"42183017"', '"1234567890"']);
    assert.deepEqual(await attributes('[data-testid="disagreement"] [data-testid="candidate-value"]', "data-correct"), ["true", "false"]);
    assert.deepEqual(await texts('[data-testid="disagreement"] .eval-mark'), ["✓", "✗"]);
    assert.deepEqual(await texts('[data-testid="disagreement"] [data-testid="evidence"]'), [" · exact", " · not found"]);

    const [{ call_id: callB }] = sql(
      `SELECT d.call_id FROM eval_candidates c JOIN extraction_documents d ON d.job_id = c.job_id WHERE c.run_id = '${firstRun}' AND c.position = 1`,
    );
    await (await panel.$(`button[aria-label="Open the transcript of model-b on ${NAME}"]`)).click();
    const title = await byTestId("transcript-title");
    await title.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await (await byTestId("nav-transcripts")).getAttribute("aria-current"), "page");
    await eventually(browser, () => shownText(title), `eval: ${NAME}`);
    // That call: its id in the header, model-b's answer in the timeline.
    await eventually(browser, () => browser.execute(() => document.querySelector('[data-testid="transcript-title"]')?.parentElement?.querySelector("code")?.textContent ?? null), callB);
    await eventually(browser, async () => (await texts('[data-testid="timeline"] [data-testid="tool-call"]')).length, 1);
    const [call] = await texts('[data-testid="timeline"] [data-testid="tool-call"]');
    assert.match(call, /submit_output[\s\S]*"1234567890"/);
  });

  test("charts the two candidates, a point each", async () => {
    // Back with Alt+7: the run is still shown, the cell's disagreements open.
    await browser.action("key").down("\uE00A").down("7").up("7").up("\uE00A").perform();
    await eventually(browser, async () => (await byTestId("nav-evaluate")).getAttribute("aria-current"), "page");
    await (await byTestId("matrix")).waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await status(), "Run completed.");
    await (await byTestId("disagreements")).waitForDisplayed({ timeout: WAIT_MS });
    const chart = await byTestId("accuracy-chart");
    await chart.waitForExist({ timeout: WAIT_MS });
    await eventually(browser, async () => (await chart.$$(".recharts-scatter-symbol")).length, 2);
    assert.deepEqual(await texts('[data-testid="accuracy-chart"] .recharts-label-list text'), ["model-a", "model-b"]);
    assert.equal(await chart.getAttribute("aria-label"), "Overall accuracy against cost, one point per candidate");
    await snap(browser, "evaluate-window-matrix");
    await browser.execute((el) => el.scrollIntoView({ block: "center" }), chart);
    await snap(browser, "evaluate-window-chart");
    // Against latency: each candidate has its call's time, so both points stay.
    await (await browser.$('input[name="eval-chart-axis"]:not(:checked)')).click();
    await eventually(browser, async () => shownText(await browser.$("#chart-title")), "Accuracy against latency");
    await eventually(browser, async () => (await chart.$$(".recharts-scatter-symbol")).length, 2);
    assert.equal(await chart.getAttribute("aria-label"), "Overall accuracy against latency, one point per candidate");
    assert.deepEqual(await texts('[data-testid="accuracy-chart"] .recharts-label-list text'), ["model-a", "model-b"]);
  });

  test("runs the same candidates again: both reused, no request, two runs in the history", async () => {
    const requestsBefore = await modelRequests();
    assert.equal(requestsBefore.length, 2);
    await eventually(browser, async () => (await browser.$$('[data-testid="history-run"]')).length, 1);
    await (await browser.$("button=Run 2 candidates")).click();

    await eventually(browser, () => runs().map((r) => r.status), ["completed", "completed"]);
    await eventually(browser, status, "Run completed.");
    await eventually(browser, progress, ["1/1 reused", "1/1 reused"]);
    const [, second] = runs();
    const [a, b] = candidates(firstRun);
    assert.deepEqual(candidates(second.id), [
      { position: 0, label: "model-a", job_id: a.job_id, reused: 1, model: "model-a", provider: "scripted" },
      { position: 1, label: "model-b", job_id: b.job_id, reused: 1, model: "model-b", provider: "scripted" },
    ]);
    assert.equal(evalCalls(), 2);
    assert.deepEqual(await modelRequests(), requestsBefore);

    // The same matrix, from the same calls; the history lists both runs, the newest first and shown.
    await (await byTestId("matrix")).waitForDisplayed({ timeout: WAIT_MS });
    assert.deepEqual(await tableRows("matrix"), [
      ["invoice_number", "1/1 100%", "0/1 0%"],
      ["date", "1/1 100%", "1/1 100%"],
      ["overall", "2/2 100%", "1/2 50%"],
    ]);
    assert.deepEqual(await texts('[data-testid="pair"]'), [`within noise ${PAIR}`]);
    await eventually(browser, () => texts('[data-testid="history-run"] .small'), ["model-a 2/2 · model-b 1/2", "model-a 2/2 · model-b 1/2"]);
    assert.deepEqual(await attributes('[data-testid="history-run"]', "aria-current"), ["true", null]);
    assert.equal(await (await byTestId("evaluate-error")).isExisting(), false);
  });
});
