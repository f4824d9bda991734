// The real window: a corpus invoice extracted against the scripted model
// server (the model's first answer refused by the schema, the second
// accepted), then the row's transcript opened from Extract's "Open the
// transcript": the tool loop, the correction, usage. Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { basename } from "node:path";
import { after, before, describe } from "node:test";
import { env, eventually, launch, scripted, shownText, snap, test } from "./session.mjs";

const INVOICE = env("SIFT_TEST_OPEN_PATHS");
const TRUTH = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };

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
    await schema.waitForDisplayed({ timeout: 30000 });
    await eventually(browser, () => schema.getValue(), "invoice");
    await (await byTestId("add-files")).click();
    const run = await byTestId("run");
    await eventually(browser, () => run.getText(), "Run on 1 file");
    await run.click();
    const row = await byTestId("result-row");
    await eventually(browser, () => row.getAttribute("data-status"), "completed", 60000);
    await (await row.$("th")).click();
    const link = await byTestId("open-transcript");
    await link.waitForDisplayed({ timeout: 10000 });
    await link.click();

    const title = await byTestId("transcript-title");
    await title.waitForDisplayed({ timeout: 15000 });
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
    await snap(browser, "transcripts");
  });
});
