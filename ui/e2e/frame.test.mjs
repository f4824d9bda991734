// The frame: sections by mouse and keyboard, themes that follow the OS with a
// toggle, visible focus, and a name on every control of every screen.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const theme = (page) => page.evaluate(() => document.documentElement.dataset.theme);
const current = (page) => page.getByRole("navigation", { name: "Sections" }).locator('[aria-current="page"]').innerText();

/** Visible controls without an accessible name (label, aria-label, aria-labelledby, or text for buttons). */
function unnamedControls(page) {
  return page.evaluate(() => {
    const visible = (el) => el.getClientRects().length > 0 && !el.closest("[hidden]");
    const out = [];
    for (const el of document.querySelectorAll("input, select, textarea, button, [role='tab'], [role='textbox']")) {
      if (!visible(el)) continue;
      const named =
        (el.labels && el.labels.length > 0) ||
        el.getAttribute("aria-label") ||
        el.getAttribute("aria-labelledby") ||
        ((el.tagName === "BUTTON" || el.getAttribute("role") === "tab") && el.textContent.trim() !== "");
      if (!named) out.push(el.outerHTML.slice(0, 120));
    }
    // The code editor lives in a shadow root.
    for (const host of document.querySelectorAll(".json-editor")) {
      for (const el of host.shadowRoot?.querySelectorAll("[role='textbox'], [contenteditable='true']") ?? []) {
        if (!el.getAttribute("aria-label")) out.push(el.outerHTML.slice(0, 120));
      }
    }
    return out;
  });
}

describe("Frame", () => {
  it("switches sections with the mouse and with Alt+1..3, moving focus to the section's heading", async () => {
    const page = await app.open();
    assert.equal(await current(page), "Extract");
    await page.getByRole("button", { name: "Schemas" }).click();
    assert.equal(await current(page), "Schemas");
    await eventually(() => page.evaluate(() => document.activeElement?.id), "schemas-title");
    await page.keyboard.press("Alt+3");
    assert.equal(await current(page), "Settings");
    await eventually(() => page.evaluate(() => document.activeElement?.id), "settings-title");
    await page.keyboard.press("Alt+1");
    assert.equal(await current(page), "Extract");
    assert.equal(await page.getByRole("heading", { name: "Settings", level: 1 }).isVisible(), false);
    // Coming back does not ask the model server for its models again.
    await eventually(async () => (await ipcCalls(page, "get_settings")).length, 3);
    // Every answer in and rendered (so a call it would lead to has been made), then the count.
    await page.waitForFunction(() => window.__siftMock.inflight === 0);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    assert.equal((await ipcCalls(page, "list_models")).length, 1);
  });

  it("reaches the controls with Tab and shows where the focus is", async () => {
    const page = await app.open();
    await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
    await page.keyboard.press("Tab"); // the skip link
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "nav-extract");
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, "none");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter"); // Schemas
    assert.equal(await current(page), "Schemas");
  });

  it("follows the OS theme until the toggle picks one, and remembers the pick", async () => {
    const dark = await app.open({}, { colorScheme: "dark" });
    assert.equal(await theme(dark), "dark");
    const page = await app.open({}, { colorScheme: "light" });
    assert.equal(await theme(page), "light");
    const toggle = page.getByTestId("theme-toggle");
    assert.equal(await toggle.innerText(), "Theme: system (light)");
    await toggle.click();
    assert.equal(await toggle.innerText(), "Theme: light");
    await toggle.click();
    assert.equal(await toggle.innerText(), "Theme: dark");
    assert.equal(await theme(page), "dark");
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.equal(background, "rgb(21, 22, 26)");
    await page.reload();
    assert.equal(await theme(page), "dark");
    await page.getByTestId("theme-toggle").click();
    assert.equal(await theme(page), "light"); // back to following the OS
  });

  it("shows the local model server's state, following it while it starts", async () => {
    // The server stays "starting" until the test moves it on (the badge polls it).
    const page = await app.open({ serverStates: [{ state: "starting" }, { state: "running" }], holdServerStates: true });
    const badge = page.getByTestId("local-server");
    await eventually(() => badge.innerText(), "Local model: starting…");
    await page.evaluate(() => window.__siftMock.nextServerState());
    await eventually(() => badge.innerText(), "Local model: ready");
    const failed = await app.open({ serverStates: [{ state: "failed", message: "llama.cpp exited with status 1" }] });
    await eventually(() => failed.getByTestId("local-server").innerText(), "Local model: failed");
    assert.equal(await failed.getByTestId("local-server").getAttribute("title"), "llama.cpp exited with status 1");
  });

  it("names every control on every screen", async () => {
    const page = await app.open();
    await page.getByRole("button", { name: "Add files…" }).click();
    await page.getByTestId("run").click();
    await page.locator('[data-testid="result-row"][data-status="completed"]').first().waitFor();
    await page.getByTestId("result-row").first().click();
    await page.getByTestId("detail-pane").waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await page.getByRole("button", { name: "Schemas" }).click();
    await page.getByRole("textbox", { name: "Schema JSON" }).waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByTestId("provider-editor").waitFor();
    await page.getByRole("button", { name: /^OpenAI/ }).click();
    assert.deepEqual(await unnamedControls(page), []);
  });
});
