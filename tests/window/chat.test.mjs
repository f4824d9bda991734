// The real window: a chat turn against the scripted model server in which
// the model calls read_document on a file this test wrote; the call waits
// for approval, is approved, the tool reads the file, and the model's reply
// appears. The requests the server saw are checked. Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { OUT, WAIT_MS, eventually, launch, modelRequests, scripted, shownText, snap, test, typeInto } from "./session.mjs";

const NOTES = join(OUT, "notes.txt");
const CONTENT = "Meeting moved to Tuesday 10:00, room 4.";
const QUESTION = "What do my notes say?";
const REPLY = "Your notes say the meeting moved to Tuesday at 10:00, in room 4.";

let browser;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const bubbles = () =>
  browser.execute(() =>
    [...document.querySelectorAll('[data-testid="conversation"] article')].map((e) => `${e.dataset.role}: ${e.querySelector(".chat-text")?.textContent ?? ""}`),
  );

before(async () => {
  writeFileSync(NOTES, `${CONTENT}\n`);
  await scripted("/_scripted/script", "PUT", {
    models: {
      "scripted-model": [
        { text: "Let me read them.", tool_calls: [{ id: "call_notes", name: "read_document", arguments: { path: NOTES } }], usage: { input: 300, output: 20 } },
        { text: REPLY, usage: { input: 420, output: 18 }, chunk_chars: 6, chunk_delay_ms: 30 },
      ],
    },
  });
  await scripted("/_scripted/requests", "DELETE");
  browser = await launch();
});

after(async () => {
  await browser?.deleteSession();
});

describe("the Chat screen", () => {
  test("asks before read_document, reads the file once approved, and shows the reply", async () => {
    const nav = await byTestId("nav-chat");
    await nav.waitForDisplayed({ timeout: WAIT_MS });
    await nav.click();
    await (await byTestId("new-chat")).click();
    await (await browser.$('[data-session][aria-current="true"]')).waitForExist({ timeout: WAIT_MS });
    const box = await browser.$("#chat-input");
    await box.waitForDisplayed({ timeout: WAIT_MS });
    await typeInto(browser, box, QUESTION);
    await (await byTestId("chat-send")).click();

    const approval = await byTestId("approval");
    await approval.waitForDisplayed({ timeout: WAIT_MS, timeoutMsg: "no approval was asked for" });
    const card = await browser.$('[data-testid="chat-tool"][data-state="waiting for approval"]');
    const cardText = await shownText(card);
    assert.match(cardText, /read_document/);
    assert.ok(cardText.includes(JSON.stringify(NOTES)), cardText);
    // Nothing was read yet: the server saw one request.
    assert.equal((await modelRequests()).length, 1);
    await snap(browser, "chat-approval");

    await (await approval.$("button=Approve")).click();
    await eventually(browser, async () => (await bubbles()).at(-1), `assistant: ${REPLY}`);
    await eventually(browser, async () => (await browser.$$('[data-testid="approval"]')).length, 0);
    await (await browser.$('[data-testid="chat-tool"][data-state="done"]')).waitForExist({ timeout: WAIT_MS });
    assert.deepEqual((await bubbles()).slice(0, 1), [`user: ${QUESTION}`]);
    // The new chat is named after its first message.
    await eventually(browser, async () => shownText(await browser.$('[data-session][aria-current="true"]')), QUESTION);
    await snap(browser, "chat");

    // The server saw the question, then the same conversation with the tool's result: the file's text.
    const requests = await modelRequests();
    assert.equal(requests.length, 2);
    const [first, second] = requests.map((r) => r.body);
    assert.equal(first.model, "scripted-model");
    assert.deepEqual(first.tools.map((t) => t.function.name), ["read_document"]);
    const userText = first.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    assert.deepEqual(userText, [QUESTION]);
    const assistant = second.messages.find((m) => m.role === "assistant");
    assert.deepEqual(assistant.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]), [["call_notes", "read_document", { path: NOTES }]]);
    const tool = second.messages.find((m) => m.role === "tool");
    assert.equal(tool.tool_call_id, "call_notes");
    const toolText = typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
    assert.ok(toolText.includes(CONTENT), toolText);
  });

  test("resumes a turn that waits for approval after the app restarts", async () => {
    const again = "Read my notes again, please.";
    const reply = "They still say Tuesday at 10:00, room 4.";
    await scripted("/_scripted/replies", "POST", {
      model: "scripted-model",
      replies: [{ tool_calls: [{ id: "call_again", name: "read_document", arguments: { path: NOTES } }] }, { text: reply }],
    });
    await scripted("/_scripted/requests", "DELETE");
    await (await byTestId("new-chat")).click();
    const box = await browser.$("#chat-input");
    await typeInto(browser, box, again);
    await (await byTestId("chat-send")).click();
    await (await byTestId("approval")).waitForDisplayed({ timeout: WAIT_MS, timeoutMsg: "no approval was asked for" });

    // Quit and start the app again: the waiting call is stored.
    await browser.deleteSession();
    browser = await launch();
    const nav = await byTestId("nav-chat");
    await nav.waitForDisplayed({ timeout: WAIT_MS });
    await nav.click();
    const session = await browser.$(`//*[@data-session][normalize-space(.)="${again}"]`);
    await session.waitForExist({ timeout: WAIT_MS, timeoutMsg: "the waiting chat is not in the list" });
    await session.click();
    const approval = await byTestId("approval");
    await approval.waitForDisplayed({ timeout: WAIT_MS, timeoutMsg: "the waiting call did not show after the restart" });
    assert.ok((await shownText(await browser.$('[data-testid="chat-tool"][data-state="waiting for approval"]'))).includes(JSON.stringify(NOTES)));
    await (await approval.$("button=Approve")).click();
    await eventually(browser, async () => (await bubbles()).at(-1), `assistant: ${reply}`);
    // The suspended turn's question is stored now, before the reply.
    assert.equal((await bubbles())[0], `user: ${again}`);
    // Two requests: the one that asked for the tool, and the one after the restart with its result.
    const requests = await modelRequests();
    assert.equal(requests.length, 2);
    const resumed = requests[1];
    const tool = resumed.body.messages.find((m) => m.role === "tool");
    assert.equal(tool.tool_call_id, "call_again");
    assert.ok((typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content)).includes(CONTENT));
  });
});

