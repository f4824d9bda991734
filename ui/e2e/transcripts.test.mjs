// Transcripts: timelines of calls, chats and steps; the revision
// tree; a 10,000-message transcript opened in the virtualised list. (Its time
// to first paint and per scroll frame is a benchmark, not a test:
// `npm run bench:browser`, e2e/bench/transcripts.mjs.)
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "./browser.mjs";
import { useHarness } from "./harness.mjs";

const harness = useHarness({ before, after, afterEach });

/** Pairs of rendered rows that overlap or leave a gap (each row's box against the next one's): rows are measured, not estimated. */
const overlaps = (timeline) =>
  timeline.locator(".tl-row").evaluateAll((rows) =>
    rows.slice(1).flatMap((row, i) => {
      const above = rows[i].getBoundingClientRect();
      const below = row.getBoundingClientRect();
      return Math.abs(above.bottom - below.top) > 0.5 ? [`${rows[i].dataset.index}/${row.dataset.index}`] : [];
    }),
  );

async function open(page) {
  await page.getByRole("heading", { name: "Transcripts", level: 1 }).waitFor();
  await page.locator('[data-transcript="ses_big"]').waitFor();
}

describe("Transcripts", () => {
  it("opens a 10,000-message transcript, rendering only the rows in view", async () => {
    const page = await harness.open("transcripts");
    await open(page);
    await page.locator('[data-transcript="ses_big"]').click();
    await page.getByTestId("timeline").locator(".tl-row").first().waitFor();
    const timeline = page.getByTestId("timeline");
    // The system prompt, one row per message (a tool call's message is its call) and the total.
    assert.equal(await timeline.getAttribute("data-rows"), String(10_002));
    const rendered = await timeline.locator(".tl-row").count();
    assert.ok(rendered > 5 && rendered < 80, `${rendered} rows in the DOM`);
    assert.match(await timeline.locator(".tl-row").first().innerText(), /^System\nYou answer questions about the report\./);

    // Scrolling: 60 steps of 1,500 px, one frame each (their times are the benchmark's).
    await timeline.evaluate(async (el) => {
      for (let i = 0; i < 60; i++) {
        el.scrollTop += 1500;
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      }
    });

    // Scroll to the end: the last message is there, still with few rows in the DOM.
    await timeline.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await eventually(() => timeline.locator(".tl-row").last().getAttribute("aria-posinset"), String(10_002));
    await eventually(() => timeline.locator(".tl-row").last().innerText(), "Total: 23,619,321 in · 91,404 out tokens over 4761 attempts");
    assert.match(await timeline.locator(".tl-row").nth(-2).innerText(), /^User\n#10000\nQuestion 4762: what is line 9522 of the report\?$/);
    assert.ok((await timeline.locator(".tl-row").count()) < 80);
  });

  it("shows tool calls and results, corrections, usage per attempt and in total, and the revision tree with changed values", async () => {
    const page = await harness.open("transcripts");
    await open(page);
    await page.locator('[data-transcript="call_2"]').click();
    await eventually(() => page.getByTestId("transcript-title").textContent(), "invoice-0042.pdf");
    const timeline = page.getByTestId("timeline");
    await eventually(() => timeline.getByTestId("tool-call").count(), 3);
    const result = timeline.getByTestId("tool-result").first();
    assert.match(await result.innerText(), /^Result of respond\nr1\nerror\ncorrection\nThe output does not match the schema:/);
    assert.match(await timeline.getByTestId("tool-call").nth(1).innerText(), /Tool call: respond\nr2\nattempt 2\n470 in · 21 out\n\{\n {2}"vendor": "ACME Ltd",\n {2}"total": 12\.5\n\}/);
    assert.equal(await timeline.getByTestId("usage-total").innerText(), "Total: 520 in · 21 out tokens over 3 attempts");

    const revisions = page.getByTestId("revisions");
    assert.deepEqual(await revisions.locator("[data-revision]").evaluateAll((els) => els.map((e) => [e.dataset.revision, e.dataset.depth])), [["call_1", "0"], ["call_2", "1"]]);
    assert.equal(await revisions.locator('[data-revision="call_2"] button').getAttribute("aria-current"), "true");
    assert.deepEqual(await revisions.locator('[data-revision="call_2"] [data-changed="true"]').allInnerTexts(), ["vendor\nACME Limited\n(changed)"]);
    await revisions.locator('[data-revision="call_1"] button').click();
    await eventually(() => timeline.getByTestId("tool-call").count(), 2);
    // Rows re-measured for the other transcript: each starts where the one above ends.
    await eventually(() => overlaps(timeline), []);
    // Unfolding a long result moves the rows below it down.
    await page.locator('[data-transcript="ses_big"]').click();
    await eventually(() => timeline.getAttribute("data-rows"), "10002");
    await timeline.getByRole("button", { name: /^Show all of the message/ }).first().click();
    await eventually(() => overlaps(timeline), []);
  });

  it("shows an error with its category, and filters by kind and text", async () => {
    const page = await harness.open("transcripts");
    await open(page);
    await page.locator('[data-transcript="call_9"]').click();
    await eventually(() => page.getByTestId("transcript-error").innerText(), "Error (auth): 401 Unauthorized: invalid API key");
    await page.getByRole("button", { name: "Chats" }).click();
    await eventually(() => page.locator("[data-transcript]").evaluateAll((els) => els.map((e) => e.dataset.transcript)), ["ses_big"]);
    await page.getByRole("button", { name: "All", exact: true }).click();
    await page.getByLabel("Search transcripts").fill("ACME Limited");
    await eventually(() => page.locator("[data-transcript]").evaluateAll((els) => els.map((e) => e.dataset.transcript)), ["call_2"]);
  });
});
