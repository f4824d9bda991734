// Work a crash cut short, as the app shows it at its next start (over the mocked IPC, which
// answers as core does once it has marked a gone process's work interrupted): the extraction job
// opens interrupted with Resume, the chat's cut reply has Regenerate, the run's interrupted step
// has Re-run from it.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const rowStatuses = (page) => page.getByTestId("result-row").evaluateAll((rows) => rows.map((r) => r.dataset.status));
const bubbleTexts = (page) =>
  page
    .getByTestId("conversation")
    .locator("article")
    .evaluateAll((els) => els.map((e) => `${e.dataset.role}: ${e.querySelector(".chat-text")?.textContent ?? ""}`));
const statuses = (page) => page.locator("[data-node]").evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-node"), e.getAttribute("data-status")])));

describe("After a crash", () => {
  it("opens the interrupted extraction job with Resume, which calls only the documents not done", async () => {
    const page = await app.open({
      pastJobs: [
        { schemaName: "receipt", files: ["/d/receipt.jpg"] },
        { schemaName: "invoice", files: ["/d/invoice-001.pdf", "/d/invoice-002.png", "/d/invoice-003.pdf"], status: "interrupted", done: 1 },
      ],
    });
    const notice = page.getByTestId("interrupted");
    await notice.waitFor();
    assert.equal(await notice.innerText(), "Interrupted: Sift closed before this job finished. Resume calls the 2 documents not done; the others are kept.");
    assert.deepEqual((await ipcCalls(page, "job_results")).map((c) => c.args), [{ jobId: "past-2" }]);
    assert.deepEqual(await rowStatuses(page), ["completed", "queued", "queued"]);
    // The two documents the crash left were never run: not "Queued".
    assert.deepEqual(await page.getByTestId("result-row").locator(".status").allInnerTexts(), ["Done", "Not run", "Not run"]);
    assert.match((await page.getByTestId("recent-jobs").locator("option").allInnerTexts())[0], /^invoice · 3 documents · 1 done · interrupted · /);
    const resume = page.getByTestId("resume");
    assert.equal(await resume.innerText(), "Resume 2 not done");
    await resume.click();
    await eventually(() => rowStatuses(page), ["completed", "completed", "completed"]);
    assert.deepEqual((await ipcCalls(page, "resume_extraction")).map((c) => c.args.jobId), ["past-2"]);
    await eventually(() => notice.count(), 0);
  });

  it("shows the chat's cut reply after the message it answered, and Regenerate sends that message again", async () => {
    const page = await app.open({ cutReply: { prompt: "Which invoice is the largest?", reply: "The largest is INV" } });
    await page.keyboard.press("Alt+5");
    await page.locator('[data-session="ses_0001"]').click();
    await eventually(() => bubbleTexts(page), [
      "user: Which invoices are overdue?",
      "assistant: INV-002, due 2024-04-30.",
      "user: Which invoice is the largest?",
      "assistant: The largest is INV",
    ]);
    const cut = page.getByTestId("cut-reply");
    assert.equal(await cut.locator("span").innerText(), "Sift closed before this reply finished.");
    assert.equal(await page.locator("article", { has: cut }).locator(".badge").innerText(), "cut off");
    await cut.getByRole("button", { name: "Regenerate" }).click();
    await eventually(() => bubbleTexts(page), [
      "user: Which invoices are overdue?",
      "assistant: INV-002, due 2024-04-30.",
      "user: Which invoice is the largest?",
      "assistant: You said: Which invoice is the largest?",
    ]);
    assert.equal(await page.getByTestId("cut-reply").count(), 0);
    const sends = (await ipcCalls(page, "send_chat_message")).map((c) => [c.args.sessionId, c.args.text]);
    assert.deepEqual(sends, [["ses_0001", "Which invoice is the largest?"]]);
  });

  it("discards the chat's cut reply and its message: the chat ends at its stored messages", async () => {
    const page = await app.open({ cutReply: { prompt: "Which invoice is the largest?", reply: "The largest is INV" } });
    await page.keyboard.press("Alt+5");
    await page.locator('[data-session="ses_0001"]').click();
    const cut = page.getByTestId("cut-reply");
    await cut.waitFor();
    await cut.getByRole("button", { name: "Discard" }).click();
    await eventually(() => bubbleTexts(page), ["user: Which invoices are overdue?", "assistant: INV-002, due 2024-04-30."]);
    assert.equal(await page.getByTestId("cut-reply").count(), 0);
    assert.deepEqual((await ipcCalls(page, "discard_cut_reply")).map((c) => c.args), [{ sessionId: "ses_0001" }]);
    assert.deepEqual(await ipcCalls(page, "send_chat_message"), []);
  });

  it("shows the run's interrupted step, and Re-run from it reuses the step before", async () => {
    // The run that Sift closed on ran, so the folder's commands were allowed then.
    const page = await app.open({ interruptedRun: true, stepDelay: 5, commandsAllowed: true });
    await page.getByTestId("nav-workflows").click();
    await page.getByTestId("open-folder").click();
    const notice = page.getByTestId("run-interrupted");
    await notice.waitFor();
    assert.equal(await notice.locator("span").innerText(), "Interrupted: Sift closed while the step shout ran. The steps before it are kept.");
    await eventually(() => statuses(page), { fetch: "succeeded", shout: "interrupted" });
    await notice.getByRole("button", { name: "Re-run from shout" }).click();
    await eventually(() => statuses(page), { fetch: "succeeded", shout: "succeeded" });
    const runs = (await ipcCalls(page, "run_workflow")).map((c) => ({ fromRun: c.args.request.fromRun, fromStep: c.args.request.fromStep }));
    assert.deepEqual(runs, [{ fromRun: "run_crashed", fromStep: "shout" }]);
    await eventually(() => notice.count(), 0);
  });
});
