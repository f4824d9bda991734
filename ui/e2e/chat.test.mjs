// Chat: search, a streamed reply and the stop button, a tool that
// needs approval, attachments, the model picker, edit and regenerate, export.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "./browser.mjs";
import { pauseClock, useHarness } from "./harness.mjs";

const harness = useHarness({ before, after, afterEach });

const sessionIds = (page) => page.locator("[data-session]").evaluateAll((els) => els.map((e) => e.dataset.session));
const bubbleTexts = (page) => page.getByTestId("conversation").locator("article").evaluateAll((els) => els.map((e) => `${e.dataset.role}: ${e.querySelector(".chat-text")?.textContent ?? ""}`));

async function open(page) {
  await page.getByRole("heading", { name: "Chat", level: 1 }).waitFor();
  await eventually(() => sessionIds(page).then((ids) => ids.length), 2);
}

describe("Chat", () => {
  it("streams a reply that the stop button ends, and searches across messages", async () => {
    // The in-memory model streams a word every 40 ms of the page's clock, which
    // the test moves by hand: the reply is stopped after exactly three words,
    // however slow the machine.
    const page = await harness.open("chat", { clock: true });
    await open(page);
    await page.getByTestId("new-chat").click();
    await page.getByLabel("Message", { exact: true }).fill("one two three four five six seven eight nine ten eleven twelve");
    await pauseClock(page);
    await page.getByLabel("Message", { exact: true }).press("Enter");
    // Mid-stream: part of the reply is there and Stop is offered.
    await page.getByTestId("chat-stop").waitFor();
    await page.clock.runFor(3 * 40);
    await eventually(() => page.getByTestId("streaming-reply").locator(".chat-text").textContent().then((t) => t.startsWith("You said: one")), true);
    await page.getByTestId("chat-stop").click();
    await page.clock.runFor(40); // the model sees the stop before its next word
    await page.getByTestId("chat-send").waitFor();
    // Escape in the message box stops a reply too.
    await page.getByLabel("Message", { exact: true }).fill("a b c d e f g h i j k l m n o p");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    await page.getByTestId("chat-stop").waitFor();
    await page.clock.runFor(2 * 40);
    await page.getByLabel("Message", { exact: true }).press("Escape");
    await page.clock.runFor(40);
    await page.getByTestId("chat-send").waitFor();
    await page.clock.resume();
    const escaped = (await bubbleTexts(page)).at(-1);
    assert.ok(escaped.length < "assistant: You said: a b c d e f g h i j k l m n o p".length, `stopped early: ${escaped}`);
    const texts = await bubbleTexts(page);
    assert.equal(texts[0], "user: one two three four five six seven eight nine ten eleven twelve");
    assert.match(texts[1], /^assistant: You said: /);
    assert.ok(texts[1].length < "assistant: You said: one two three four five six seven eight nine ten eleven twelve".length, `stopped early: ${texts[1]}`);

    await page.getByLabel("Search chats").fill("overdue");
    await eventually(() => page.locator("[data-session]").allInnerTexts(), ["Invoice questions\nWhich invoices are overdue?"]);
  });

  it("asks before running a tool; approving resumes the turn, and the approval survives a reload of the session", async () => {
    const page = await harness.open("chat");
    await open(page);
    await page.getByTestId("new-chat").click();
    await page.getByLabel("Message", { exact: true }).fill("What is the weather in Paris?");
    await page.getByTestId("chat-send").click();
    const approval = page.getByTestId("approval");
    await approval.waitFor();
    const card = page.locator('[data-testid="chat-tool"][data-state="waiting for approval"]');
    assert.match(await card.innerText(), /Tool: get_weather[\s\S]*"city": "Paris"/);
    // Leave the chat and come back: the suspended call is still there (it is stored).
    const id = await page.locator("[data-session][aria-current=true]").getAttribute("data-session");
    await page.locator('[data-session]:not([aria-current="true"])').first().click();
    await eventually(() => page.getByTestId("approval").count(), 0);
    await page.locator(`[data-session="${id}"]`).click();
    await approval.waitFor();
    await approval.getByRole("button", { name: "Approve" }).click();
    await eventually(() => bubbleTexts(page).then((t) => t.at(-1)), "assistant: It is 20 °C and clear in Paris.");
    assert.equal(await page.locator('[data-testid="chat-tool"]').first().getAttribute("data-state"), "done");

    // Denying tells the model, which answers without the tool.
    await page.getByLabel("Message", { exact: true }).fill("And the weather tomorrow?");
    await page.getByTestId("chat-send").click();
    await approval.waitFor();
    await approval.getByRole("button", { name: "Deny" }).click();
    await eventually(() => bubbleTexts(page).then((t) => t.at(-1)), "assistant: I could not check the weather.");
    assert.deepEqual(await page.locator('[data-testid="chat-tool"]').evaluateAll((els) => els.map((e) => e.dataset.state)), ["done", "error"]);
  });

  it("attaches dropped files, picks a model, edits a message and regenerates into a branch, and exports", async () => {
    const page = await harness.open("chat");
    await open(page);
    await page.locator("[data-session]", { hasText: "Invoice questions" }).click();
    await page.evaluate(() => window.__harness.chat.drop(["/docs/report.pdf", "/docs/blob.bin"]));
    await eventually(() => page.getByTestId("attachments").locator("li").allInnerTexts(), ["report.pdf\n· 1,010 chars\n×", "blob.bin\n· unsupported file type\n×"]);
    await page.getByRole("button", { name: "Remove blob.bin" }).click();
    await page.getByTestId("chat-model").selectOption("gpt-4o-mini");
    await page.getByLabel("Message", { exact: true }).fill("Summarise it");
    await page.getByTestId("chat-send").click();
    await eventually(() => bubbleTexts(page).then((t) => t.at(-1)), "assistant: You said: Summarise it");
    const stored = await page.evaluate(() => [...window.__harness.chat.sessions.values()].map((s) => s.messages.at(-2)).find((m) => m?.parts?.[0]?.text === "Summarise it"));
    assert.deepEqual(stored.parts.map((p) => p.text), ["Summarise it", '<file name="report.pdf">…</file>']);
    assert.deepEqual(stored.metadata, { model: "gpt-4o-mini" });
    assert.deepEqual(await page.locator('[data-seq="3"] [aria-label="Attached documents"] li').allInnerTexts(), ["report.pdf"]);

    await page.getByRole("button", { name: "Edit message 3" }).click();
    await page.getByLabel("Edited message").fill("Summarise it in one line");
    await page.getByRole("button", { name: "Save and regenerate" }).click();
    await eventually(() => bubbleTexts(page), ["user: Which invoices are overdue?", "assistant: Invoices 0042 and 0057 are overdue.", "user: Summarise it in one line", "assistant: You said: Summarise it in one line"]);
    await eventually(() => page.locator("[data-session][aria-current=true]").innerText(), "Invoice questions (edited)");

    await page.getByTestId("export-md").click();
    await eventually(() => page.getByTestId("chat-status").textContent(), "Exported invoice-questions-edited.md.");
    const [exported] = await page.evaluate(() => window.__harness.chat.exports);
    assert.equal(exported.content, "# Invoice questions (edited)\n\nModel: gpt-4o-mini\n\n## User\n\nWhich invoices are overdue?\n\n## Assistant\n\nInvoices 0042 and 0057 are overdue.\n\n## User\n\nSummarise it in one line\n\n## Assistant\n\nYou said: Summarise it in one line\n");
    await page.getByTestId("export-json").click();
    await eventually(() => page.evaluate(() => window.__harness.chat.exports.length), 2);
    const json = JSON.parse((await page.evaluate(() => window.__harness.chat.exports))[1].content);
    assert.equal(json.messages.length, 4);
  });
});
