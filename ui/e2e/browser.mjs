// Debian's Chromium driven by playwright-core, one page per test, with the
// Tauri IPC mocked (mock-ipc.js) and every console error collected.
import { chromium } from "playwright-core";
import { readFile } from "node:fs/promises";
import { serve } from "./serve.mjs";
import { fileURLToPath } from "node:url";

const CHROMIUM = process.env.SIFT_CHROMIUM ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const mockSource = readFile(fileURLToPath(new URL("./mock-ipc.js", import.meta.url)), "utf8");
// The workflow, chat and transcript commands, over mock-ipc.js.
const workflowsChatTranscriptsMockSource = readFile(fileURLToPath(new URL("./mock-ipc-workflows-chat-transcripts.js", import.meta.url)), "utf8");
// The Evaluate and Usage commands, over both.
const evaluateMockSource = readFile(fileURLToPath(new URL("./mock-ipc-evaluate.js", import.meta.url)), "utf8");

/**
 * The bound of every wait (Playwright's actions and waits, `eventually`). No
 * test passes because a wait ran out: each waits for a condition, and this
 * is only how long a loaded machine may take to reach it.
 */
export const WAIT_MS = 60_000;

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 2 * WAIT_MS });
}

/**
 * A fresh page on the served UI with the IPC mock installed before any
 * script runs. `scenario` tunes the mock (see mock-ipc.js). Returns the page
 * and `errors`, every console error and page error seen.
 */
export async function openApp(browser, baseUrl, scenario = {}, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: options.colorScheme ?? "light" });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const page = await context.newPage();
  const errors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
  const source = await mockSource;
  await page.addInitScript(
    `${source}\n${await workflowsChatTranscriptsMockSource}\n${await evaluateMockSource}\ninstallSiftMock(${JSON.stringify(scenario)});\ninstallWorkflowsChatTranscriptsMock(${JSON.stringify(scenario)});\ninstallEvaluateMock(${JSON.stringify(scenario)});`,
  );
  await page.goto(baseUrl);
  // The app has rendered its frame and settled its first IPC calls: every
  // chunk loaded and no command left unanswered (a condition, where
  // "networkidle" alone is half a second without requests).
  await page.getByTestId("nav-extract").waitFor();
  await page.waitForLoadState("networkidle");
  await page.waitForFunction(() => window.__siftMock.inflight === 0);
  return { page, context, errors };
}

/** The IPC calls the page made so far: [{cmd, args}], channels as "channel". */
export async function ipcCalls(page, cmd) {
  const calls = await page.evaluate(() => window.__siftMock.calls);
  return cmd === undefined ? calls : calls.filter((c) => c.cmd === cmd);
}

/** Fires a native drag-and-drop of `paths` on the window, as Tauri would. */
export async function dropFiles(page, paths) {
  // The app listens from its first render, but the listen call is async: wait for it.
  await page.waitForFunction(() => (window.__siftMock.listeners.get("tauri://drag-drop") ?? []).length > 0);
  await page.evaluate((p) => window.__siftMock.drop(p), paths);
}

/**
 * For a node:test file: one server and one browser for the file, and
 * `open(scenario)` for a fresh page per test. After each test, the page must
 * have logged no console error and made no call the mock does not know.
 */
export function useApp({ before, after, afterEach }) {
  const state = { server: null, browser: null, pages: [] };
  before(async () => {
    state.server = await serve();
    state.browser = await launch();
  });
  after(async () => {
    await state.browser?.close();
    await state.server?.close();
  });
  afterEach(async () => {
    const problems = [];
    for (const { page, context, errors } of state.pages.splice(0)) {
      const unknown = (await ipcCalls(page).catch(() => [])).filter((c) => c.cmd === "__unknown__");
      await context.close();
      if (errors.length > 0) problems.push(`console errors:\n${errors.join("\n")}`);
      if (unknown.length > 0) problems.push(`unknown IPC commands: ${JSON.stringify(unknown)}`);
    }
    if (problems.length > 0) throw new Error(problems.join("\n"));
  });
  return {
    async open(scenario = {}, options = {}) {
      const opened = await openApp(state.browser, state.server.url, scenario, options);
      state.pages.push(opened);
      return opened.page;
    },
  };
}

/** Polls `read` until it deep-equals `expected` (or, after `timeout`, asserts what it last read). */
export async function eventually(read, expected, { timeout = WAIT_MS, message } = {}) {
  const { deepStrictEqual } = await import("node:assert/strict");
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await read();
    try {
      deepStrictEqual(last, expected);
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        if (message) error.message = `${message}\n${error.message}`;
        throw error;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
