// Debian's Chromium driven by playwright-core, one page per test, with the
// Tauri IPC mocked (mock-ipc.js) and every console error collected.
import { chromium } from "playwright-core";
import { readFile } from "node:fs/promises";
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

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/**
 * A fresh page on the served UI with the IPC mock installed before any
 * script runs. `scenario` tunes the mock (see mock-ipc.js). Returns the page
 * and `errors`, every console error and page error seen.
 */
export async function openApp(browser, baseUrl, scenario = {}, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: options.colorScheme ?? "light" });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
  const source = await mockSource;
  await page.addInitScript(`${source}\ninstallSiftMock(${JSON.stringify(scenario)});`);
  await page.goto(baseUrl);
  return { page, context, errors };
}

/** The IPC calls the page made so far: [{cmd, args}], channels as "channel". */
export async function ipcCalls(page, cmd) {
  const calls = await page.evaluate(() => window.__siftMock.calls);
  return cmd === undefined ? calls : calls.filter((c) => c.cmd === cmd);
}

/** Fires a native drag-and-drop of `paths` on the window, as Tauri would. */
export async function dropFiles(page, paths) {
  await page.evaluate((p) => window.__siftMock.drop(p), paths);
}
