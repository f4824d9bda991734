// The real window: a two-step workflow edited on the canvas (a step added
// and connected, a command changed in the side panel), saved, its commands
// shown and allowed before the first run, run by the engine, and the file
// on disk compared exactly (comments, blank line and key order kept). The folder dialog's test hook (SIFT_TEST_FOLDER_PATH)
// "picks" the folder. Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { OUT, WAIT_MS, env, eventually, launch, shownText, snap, test } from "./session.mjs";

const FOLDER = env("SIFT_TEST_FOLDER_PATH");
const FILE = join(FOLDER, "greet.yaml");
// fetch runs until this file exists: the test creates it once it has seen
// fetch running and the others waiting (a condition, where a fixed `sleep 1`
// raced the test on a loaded machine).
const RELEASE = join(OUT, "release-fetch");
const ORIGINAL = `# Greet someone, loudly.
params: WHO=world              # who to greet
steps:
  - id: fetch                  # the greeting
    run: until [ -e ${RELEASE} ]; do sleep 0.05; done; echo "hello \${WHO}"
    output: GREETING

  - id: shout
    depends: fetch             # after fetch
    run: echo "\${GREETING}!"
`;
// The same file after the edits: shout's command changed in place, the new
// step added after the last one; everything else as it was.
const EDITED = `# Greet someone, loudly.
params: WHO=world              # who to greet
steps:
  - id: fetch                  # the greeting
    run: until [ -e ${RELEASE} ]; do sleep 0.05; done; echo "hello \${WHO}"
    output: GREETING

  - id: shout
    depends: fetch             # after fetch
    run: echo "\${GREETING}!!"
  - id: step3
    run: echo done
    depends: shout
`;

let browser;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const statuses = () =>
  browser.execute(() => Object.fromEntries([...document.querySelectorAll("[data-node]")].map((e) => [e.getAttribute("data-node"), e.getAttribute("data-status")])));
const nodes = () => browser.execute(() => [...document.querySelectorAll("[data-node]")].map((e) => e.getAttribute("data-node")));
const edges = () => browser.execute(() => [...document.querySelectorAll("[data-edge]")].map((e) => e.getAttribute("data-edge")));

/** Selects a step on the canvas from the keyboard (WebKitWebDriver cannot click an SVG group). */
async function selectNode(name) {
  await browser.execute((n) => document.querySelector(`[data-node="${n}"]`).focus(), name);
  await browser.keys(["Enter"]);
  await eventually(browser, () => browser.execute((n) => document.querySelector(`[data-node="${n}"]`).getAttribute("aria-pressed"), name), "true");
}

/**
 * Replaces a text field's value in one input event, as a paste does.
 * (Typed key by key, a transient value such as "echo " makes the YAML
 * editor quote the scalar, and it stays quoted: `run: "echo done"`.)
 */
async function paste(field, text) {
  await browser.execute(
    (el, value) => {
      el.focus();
      Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value").set.call(el, value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    field,
    text,
  );
  await eventually(browser, () => field.getValue(), text);
}

async function panelField(label) {
  const panel = await byTestId("step-panel");
  const id = await browser.execute((name) => {
    const panel = document.querySelector('[data-testid="step-panel"]');
    const found = [...panel.querySelectorAll("label")].find((l) => l.textContent.trim() === name);
    return found?.htmlFor ?? null;
  }, label);
  assert.ok(id, `the side panel has no field "${label}"`);
  return panel.$(`[id="${id}"]`);
}

before(async () => {
  mkdirSync(FOLDER, { recursive: true });
  rmSync(RELEASE, { force: true });
  writeFileSync(FILE, ORIGINAL);
  browser = await launch();
});

after(async () => {
  await browser?.deleteSession();
});

describe("the Workflows screen", () => {
  test("opens the folder and draws the file's two steps and their edge", async () => {
    const nav = await byTestId("nav-workflows");
    await nav.waitForDisplayed({ timeout: WAIT_MS });
    await nav.click();
    await (await byTestId("open-folder")).click();
    await eventually(browser, nodes, ["fetch", "shout"]);
    assert.deepEqual(await edges(), ["fetch->shout"]);
    assert.equal(await (await byTestId("workflow-file")).getValue(), "greet.yaml");
  });

  test("adds a step, connects it, changes a command, and saves: the file keeps its comments and key order", async () => {
    await (await browser.$("button=Add shell step")).click();
    await eventually(browser, nodes, ["fetch", "shout", "step3"]);
    await paste(await panelField("Command"), "echo done");
    // Connect: step3 depends on shout (the side panel's Depends on).
    const depends = await browser.execute(() => {
      const box = [...document.querySelectorAll('[data-testid="step-panel"] fieldset label')].find((l) => l.textContent.trim() === "shout")?.querySelector("input");
      box?.click();
      return box?.checked ?? null;
    });
    assert.equal(depends, true);
    await eventually(browser, edges, ["fetch->shout", "shout->step3"]);

    await selectNode("shout");
    const command = await panelField("Command");
    assert.equal(await command.getValue(), 'echo "${GREETING}!"');
    await paste(command, 'echo "${GREETING}!!"');
    await (await byTestId("workflow-save")).click();
    await eventually(browser, async () => (await byTestId("save-state")).getText(), "saved");
    assert.equal(readFileSync(FILE, "utf8"), EDITED);
  });

  test("asks before the folder's commands first run, listing each step's exact command", async () => {
    await (await byTestId("workflow-run")).click();
    const consent = await byTestId("commands-consent");
    await consent.waitForDisplayed({ timeout: WAIT_MS });
    const listed = () =>
      browser.execute(() =>
        [...document.querySelectorAll('[data-testid="consent-command"]')].map((li) => [
          li.querySelector('[data-testid="consent-step"]').textContent,
          li.querySelector('[data-testid="consent-command-text"]').textContent,
        ]),
      );
    assert.deepEqual(await listed(), [
      ["greet.yaml › fetch", `until [ -e ${RELEASE} ]; do sleep 0.05; done; echo "hello \${WHO}"`],
      ["greet.yaml › shout", 'echo "${GREETING}!!"'],
      ["greet.yaml › step3", "echo done"],
    ]);
    // Nothing ran before the answer.
    assert.deepEqual(await statuses(), { fetch: "none", shout: "none", step3: "none" });
    await (await byTestId("consent-run")).click();
    await consent.waitForDisplayed({ reverse: true, timeout: WAIT_MS });
  });

  test("runs it: each node's status live, then every step succeeded with its output", async () => {
    // fetch waits for the test: it is seen running, the others waiting.
    await eventually(browser, statuses, { fetch: "running", shout: "pending", step3: "pending" });
    writeFileSync(RELEASE, "");
    await eventually(browser, statuses, { fetch: "succeeded", shout: "succeeded", step3: "succeeded" });
    await eventually(browser, async () => (await byTestId("run-status")).getText(), "Run succeeded");
    await selectNode("shout");
    await (await browser.$("button=Run output")).click();
    await eventually(browser, async () => shownText(await byTestId("step-stdout")), "hello world!!");
    // The whole graph in view for the picture.
    await (await browser.$("button=Fit")).click();
    await snap(browser, "workflows");
    // The engine ran the saved file: it is unchanged by the run.
    assert.equal(readFileSync(FILE, "utf8"), EDITED);
  });

  test("re-runs from a step, reusing the step before it", async () => {
    await (await byTestId("workflow-rerun")).click();
    await eventually(browser, async () => (await (await byTestId("run-history")).$$("option")).length, 2);
    await eventually(browser, async () => (await byTestId("run-status")).getText(), "Run succeeded");
    await eventually(browser, statuses, { fetch: "succeeded", shout: "succeeded", step3: "succeeded" });
    await selectNode("fetch");
    await (await browser.$("button=Run output")).click();
    await eventually(browser, async () => (await shownText(await byTestId("step-run"))).includes("reused from the earlier run"), true);
  });
});
