// The real window: a corpus invoice extracted against the scripted model
// server (the model's first answer refused by the schema, the second
// accepted), then the row's transcript opened from Extract's "Open the
// transcript": the tool loop, the correction, usage, and the revision tree
// (the call revised with `sift revise` on the same database first). Run by
// tests/window/run.sh.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { basename, dirname, join } from "node:path";
import { after, before, describe } from "node:test";
import { APP, SERVER, WAIT_MS, addThePickedFile, env, eventually, launch, scripted, shownText, snap, test } from "./session.mjs";

const INVOICE = env("SIFT_TEST_OPEN_PATHS");
const TRUTH = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };
// The CLI beside the app, on the suite's database (SIFT_DB) and the scripted server.
const sift = (...args) =>
  execFileSync(join(dirname(APP), "sift"), [...args, "--provider", "openai", "--base-url", `${SERVER}/v1`, "--model", "scripted-model", "--api-key-env", "SIFT_WINDOW_TESTS_NO_KEY"], { encoding: "utf8" });

let browser;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const texts = (selector) => browser.execute((s) => [...document.querySelectorAll(s)].map((e) => e.innerText.trim()), selector);

before(async () => {
  await scripted("/_scripted/script", "PUT", {
    models: {
      "scripted-model": [
        { tool_calls: [{ name: "submit_output", arguments: { ...TRUTH, total: "four eleven" } }], usage: { input: 1000, output: 40 } },
        { tool_calls: [{ name: "submit_output", arguments: TRUTH }], usage: { input: 1300, output: 50 } },
      ],
    },
  });
  browser = await launch();
});

after(async () => {
  await browser?.deleteSession();
});

describe("the Transcripts screen", () => {
  test("opens an extraction row's transcript from Extract", async () => {
    const schema = await byTestId("run-schema");
    await schema.waitForDisplayed({ timeout: WAIT_MS });
    // The library also holds the starters; the test's schema is picked by name.
    await (await schema.$('option[value="invoice"]')).waitForExist({ timeout: WAIT_MS });
    await schema.selectByAttribute("value", "invoice");
    await eventually(browser, () => schema.getValue(), "invoice");
    const run = await addThePickedFile(browser);
    await run.click();
    const row = await byTestId("result-row");
    await eventually(browser, () => row.getAttribute("data-status"), "completed");
    // The row's call, revised from the CLI: the model is told the total and answers again.
    const stored = execFileSync(join(dirname(APP), "sift"), ["calls", "list", "--kind", "extract"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const call = stored.find((c) => c.tokens.input === 2300 && c.parent === null);
    assert.ok(call, "the extraction's call is in the database");
    await scripted("/_scripted/replies", "POST", { model: "scripted-model", replies: [{ tool_calls: [{ name: "submit_output", arguments: { ...TRUTH, total: 4.2 } }] }] });
    const revision = JSON.parse(sift("revise", call.id, "The total is 4.20.", "--json"));
    assert.equal(revision.parent, call.id);

    await (await row.$("th")).click();
    const link = await byTestId("open-transcript");
    await link.waitForDisplayed({ timeout: WAIT_MS });
    await link.click();

    const title = await byTestId("transcript-title");
    await title.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await (await byTestId("nav-transcripts")).getAttribute("aria-current"), "page");
    await eventually(browser, () => shownText(title), `extract: ${basename(INVOICE)}`);
    // Two answers: the first refused by the schema (a correction follows), the second accepted.
    await eventually(browser, async () => (await texts('[data-testid="timeline"] [data-testid="tool-call"]')).length, 2);
    const calls = await texts('[data-testid="timeline"] [data-testid="tool-call"]');
    assert.match(calls[0], /submit_output[\s\S]*"four eleven"/);
    assert.match(calls[1], /submit_output[\s\S]*"42183017"/);
    const results = await texts('[data-testid="timeline"] [data-testid="tool-result"]');
    assert.ok(results.length >= 1, "the refused answer's result is shown");
    assert.match(results[0], /total/);
    assert.equal(await shownText(await byTestId("usage-total")), "Total: 2,300 in · 90 out tokens over 2 attempts");
    // The user message carried the invoice.
    const timeline = await shownText(await byTestId("timeline"));
    assert.ok(timeline.includes(basename(INVOICE)), timeline.slice(0, 400));
    // The revision tree: the call and the CLI's revision under it, the total marked as changed.
    const tree = await browser.execute(() => [...document.querySelectorAll("[data-revision]")].map((e) => [e.dataset.revision, e.dataset.depth]));
    assert.deepEqual(tree, [
      [call.id, "0"],
      [revision.id, "1"],
    ]);
    const changed = await texts(`[data-revision="${revision.id}"] [data-changed="true"] dt`);
    assert.deepEqual(changed, ["total"]);
    await snap(browser, "transcripts");
  });
});
