// What the window tests of workflows, chat and transcripts share: the
// environment run.sh sets, the app in a WebDriver session, the scripted
// model server's control API, and screenshots.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { test as nodeTest } from "node:test";
import { setTimeout as pause } from "node:timers/promises";
import { attach } from "webdriverio";

export const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run tests/window/run.sh`);
  return value;
};
export const APP = env("SIFT_APP");
export const SERVER = env("SIFT_SERVER_URL");
export const OUT = env("SIFT_WINDOW_OUT");

/**
 * The bound of every wait (webdriverio's `waitFor*` and `waitUntil`,
 * `eventually`). Each wait is for a condition; this is only how long a
 * loaded machine may take to reach it, and no test passes because it ran out.
 */
export const WAIT_MS = 60_000;

const DRIVER = { hostname: "127.0.0.1", port: 4444 };
/** What the app prints (to the driver's log) when it cannot open the X display. */
const NO_DISPLAY = "Failed to initialize gtk backend";

/**
 * The app in a new WebDriver session; `args`: its command line (`--db FILE`).
 *
 * Xvfb now and then refuses the X connection of an app started at once
 * after another was killed (1 launch in 30 under load here), and the app
 * exits. WebKitWebDriver then waits for good for a browser that is gone,
 * and holds every later session behind it until the client gives up the
 * request. So the session is requested here, where the request can be
 * given up: when the driver's log (which holds the app's stderr) says the
 * app could not open the display, the request is abandoned and made
 * again, at most three times. Any other failure fails the test as before.
 */
export async function launch(args = []) {
  const capabilities = {
    browserName: "wry",
    "wdio:enforceWebDriverClassic": true,
    "tauri:options": { application: APP, args },
  };
  const log = join(OUT, "tauri-driver.log");
  for (let attempt = 1; ; attempt++) {
    const logged = statSync(log).size;
    const request = new AbortController();
    let settled = false;
    const created = fetch(`http://${DRIVER.hostname}:${DRIVER.port}/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ capabilities: { alwaysMatch: capabilities, firstMatch: [{}] } }),
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(2 * WAIT_MS)]),
    })
      .then((response) => response.json())
      .finally(() => (settled = true));
    const refused = (async () => {
      while (!settled) {
        if (readFileSync(log, "utf8").slice(logged).includes(NO_DISPLAY)) return true;
        await pause(100);
      }
      return false;
    })();
    const outcome = await Promise.race([created.then((body) => ({ body })), refused.then((gone) => ({ gone }))]);
    if (outcome.gone) {
      request.abort();
      await created.catch(() => undefined);
      assert.ok(attempt < 3, `the app could not open the display ${attempt} times:\n${readFileSync(log, "utf8").slice(logged)}`);
      continue;
    }
    const { body } = outcome;
    assert.ok(body.value?.sessionId, `no session: ${JSON.stringify(body)}`);
    return attach({
      ...DRIVER,
      sessionId: body.value.sessionId,
      capabilities: body.value.capabilities,
      logLevel: "warn",
      waitforTimeout: WAIT_MS,
      waitforInterval: 100,
      connectionRetryTimeout: 2 * WAIT_MS,
    });
  }
}

/** The scripted server's control API: `GET` answers its JSON. */
export async function scripted(path, method, body) {
  const response = await fetch(`${SERVER}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  return method === "GET" ? response.json() : null;
}

/** The model requests the server saw (chat completions only). */
export async function modelRequests() {
  return (await scripted("/_scripted/requests", "GET")).filter((r) => r.path.endsWith("/chat/completions"));
}

/** A screenshot of the whole (virtual) screen, as a person would see the window. */
export function screenshot(name) {
  execFileSync("import", ["-window", "root", join(OUT, "shots", `${name}.png`)]);
}

/** A screenshot once WebKit has painted what the DOM already holds (it paints a few frames behind). */
export async function snap(browser, name) {
  // The pointer crosses the window (a nudge to repaint), then goes out of the way of tooltips.
  execFileSync("xdotool", ["mousemove", "700", "400"]);
  await browser.pause(200);
  execFileSync("xdotool", ["mousemove", "1279", "799"]);
  await browser.pause(1200);
  screenshot(name);
}

/** A test that leaves a picture of the screen behind when it fails. */
export function test(name, body) {
  nodeTest(name, async () => {
    try {
      await body();
    } catch (error) {
      screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, "-")}`);
      throw error;
    }
  });
}

/** Polls `read` until it deep-equals `expected`; then asserts (so a failure shows both). */
export async function eventually(browser, read, expected, timeout = WAIT_MS) {
  let last;
  try {
    await browser.waitUntil(
      async () => {
        last = await read();
        try {
          assert.deepEqual(last, expected);
          return true;
        } catch {
          return false;
        }
      },
      { timeout, interval: 100 },
    );
  } catch {
    assert.deepEqual(last, expected);
  }
}

/**
 * Types `text` into a field until the field holds exactly that text.
 * WebKitWebDriver under Xvfb now and then drops one synthesized key (a CI run
 * lost the "?" of a chat question), and a test of what the app does with the
 * text must not fail on the keyboard's synthesis instead. Each attempt is
 * whole: the field is cleared and the text typed again. WebDriver answers
 * "send keys" once the keys were dispatched, so the field is read at once
 * to decide whether to type again (no clock decides it); the last attempt
 * is asserted like any other wait.
 */
export async function typeInto(browser, element, text, attempts = 3) {
  for (let attempt = 1; attempt < attempts; attempt++) {
    await element.click();
    await element.clearValue();
    await element.addValue(text);
    if ((await element.getValue()) === text) return;
  }
  await element.click();
  await element.clearValue();
  await element.addValue(text);
  await eventually(browser, () => element.getValue(), text);
}

// WebKitWebDriver's "Get Element Text" answers "" for some elements: the rendered innerText is what a person sees.
export const shownText = async (element) => (await element.getProperty("innerText")).trim();

/**
 * A test file's own database (`--db`), new, with the invoice schema run.sh
 * wrote in its library (imported by the CLI), and the query function over
 * it: the rows a query answers (the sqlite3 CLI; the app keeps the file open).
 */
export function ownDatabase(db) {
  rmSync(db, { force: true });
  execFileSync(join(dirname(APP), "sift"), ["--db", db, "schema", "import", join(OUT, "invoice.json")]);
  return (query) => {
    const out = execFileSync("sqlite3", ["-json", db, query], { encoding: "utf8" }).trim();
    return out === "" ? [] : JSON.parse(out);
  };
}

/**
 * Clicks "Add files…" until the Run button counts one file, and answers
 * that button. The open dialog's test hook "picks" one path and the screen
 * keeps a path once, so a click sent again adds nothing. Twice in CI a click
 * WebKitWebDriver dispatched under Xvfb never reached the button (the
 * label still read "Run" a minute later): here it is sent again rather
 * than failing a test of something else. A dialog that failed is still a
 * failure: its message on the status line ends the wait and is asserted.
 */
export async function addThePickedFile(browser) {
  const add = await browser.$('[data-testid="add-files"]');
  const run = await browser.$('[data-testid="run"]');
  const status = await browser.$('[data-testid="extract-status"]');
  await add.waitForEnabled({ timeout: WAIT_MS });
  let label;
  let failed = "";
  const settled = async () => {
    label = (await run.getText()).trim();
    failed = await shownText(status);
    if (label === "Run on 1 file" || failed.startsWith("Could not open the file dialog")) return true;
    await add.click();
    return false;
  };
  await browser.waitUntil(settled, { timeout: WAIT_MS, interval: 500 }).catch(() => undefined);
  assert.ok(!failed.startsWith("Could not open the file dialog"), failed);
  assert.equal(label, "Run on 1 file");
  return run;
}

/** Extract run on the file the open dialog "picks" with the invoice schema, until its row is completed. */
export async function extractThePickedFile(browser) {
  const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
  const schema = await byTestId("run-schema");
  await schema.waitForDisplayed({ timeout: WAIT_MS });
  // The library also holds the starters; the test's schema is picked by name.
  await (await schema.$('option[value="invoice"]')).waitForExist({ timeout: WAIT_MS });
  await schema.selectByAttribute("value", "invoice");
  await eventually(browser, () => schema.getValue(), "invoice");
  const run = await addThePickedFile(browser);
  await run.click();
  await eventually(browser, async () => (await byTestId("result-row")).getAttribute("data-status"), "completed");
}
