// The real window over WebDriver: a corpus invoice extracted end to end
// against the scripted model server, a value corrected, the CSV exported
// and compared byte for byte; the Schemas and Settings screens against the
// same private database and configuration. Run by tests/window/run.sh,
// which sets the environment read here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe } from "node:test";

import { dragOntoWindow } from "./drag.mjs";
import { SERVER, WAIT_MS, addThePickedFile, env, launch, scripted, shownText, snap, test, typeInto } from "./session.mjs";

const INVOICE = env("SIFT_TEST_OPEN_PATHS");
const EXPORT_PATH = env("SIFT_TEST_SAVE_PATH");

// The corpus invoice's ground truth (MANIFEST.tsv), as the model answers it.
const TRUTH = { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" };

let browser;

before(async () => {
  await scripted("/_scripted/script", "PUT", {
    models: {
      "scripted-model": [
        { tool_calls: [{ name: "submit_output", arguments: TRUTH }], usage: { input: 1234, output: 56 } },
      ],
    },
  });
  await scripted("/_scripted/requests", "DELETE");
  browser = await launch();
});

after(async () => {
  await browser?.deleteSession();
});

const byTestId = (id) => browser.$(`[data-testid="${id}"]`);

async function waitForText(element, expected, timeout = WAIT_MS) {
  await browser.waitUntil(async () => (await element.getText()).trim() === expected, {
    timeout,
    timeoutMsg: `expected ${JSON.stringify(expected)}, saw ${JSON.stringify(await element.getText())}`,
  });
}

describe("the Extract screen", () => {
  test("opens on Extract with the schema from the library", async () => {
    const title = await browser.$("#extract-title");
    await title.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await title.getText(), "Extract");
    const schema = await byTestId("run-schema");
    // The library holds the four starters and the test's invoice (v2).
    const option = (name) => schema.$(`option[value="${name}"]`);
    await (await option("invoice")).waitForExist({ timeout: WAIT_MS });
    const offered = [];
    for (const name of ["bank_statement", "invoice", "purchase_order", "receipt"]) offered.push(await shownText(await option(name)));
    assert.deepEqual(offered, ["bank_statement (v1)", "invoice (v2)", "purchase_order (v1)", "receipt (v1)"]);
    await schema.selectByAttribute("value", "invoice");
    await browser.waitUntil(async () => (await schema.getValue()) === "invoice", {
      timeout: WAIT_MS,
      timeoutMsg: "the schema picker never showed the library's invoice schema",
    });
  });

  test("takes files dropped on the window (the native drop: paths, not bytes)", async () => {
    const dropped = join(dirname(INVOICE), "i2d_FlipkartInvoice.png");
    const release = await dragOntoWindow(browser, dropped);
    try {
      const chip = await browser.$('[data-testid="file-list"] .chip-name');
      await chip.waitForExist({ timeout: WAIT_MS, timeoutMsg: "the dropped file never showed in the list" });
      assert.equal(await shownText(chip), basename(dropped));
      await waitForText(await byTestId("run"), "Run on 1 file");
      // Leave the list empty for the next test.
      await (await browser.$(`button[aria-label="Remove ${basename(dropped)}"]`)).click();
      await browser.waitUntil(async () => !(await (await browser.$('[data-testid="file-list"] .chip-name')).isExisting()), { timeout: WAIT_MS });
    } finally {
      release();
    }
  });

  test("extracts a corpus invoice end to end and shows its typed values", async () => {
    // The open dialog's test hook "picks" the invoice.
    const run = await addThePickedFile(browser);
    await run.click();

    const row = await byTestId("result-row");
    await browser.waitUntil(async () => (await row.getAttribute("data-status")) === "completed", {
      timeout: WAIT_MS,
      timeoutMsg: "the invoice's row never completed",
    });
    const cell = async (column) => shownText(await row.$(`td[data-column="${column}"]`));
    assert.equal(await cell("invoice_number"), "42183017");
    assert.equal(await cell("date"), "2014-08-03");
    assert.equal(await cell("total"), "4.11");
    assert.equal(await cell("currency"), "USD");
    assert.equal(await shownText(await row.$("th")), basename(INVOICE));
    assert.match(await (await byTestId("progress")).getText(), /1 of 1 finished · 1 done · 0 failed · 1234 tokens in, 56 out/);

    // The one request the model server saw carried the PDF's text and the answer tool.
    const requests = await scripted("/_scripted/requests", "GET");
    const calls = requests.filter((r) => r.path.endsWith("/chat/completions"));
    assert.equal(calls.length, 1);
    const body = calls[0].body;
    assert.equal(body.model, "scripted-model");
    const user = body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
    assert.ok(user.includes(`<file name="${basename(INVOICE)}">`), user.slice(0, 300));
    assert.ok(user.includes("42183017"), "the invoice number is in the PDF's text");
    assert.deepEqual(body.tools.map((t) => t.function.name), ["submit_output"]);
    await snap(browser, "extract-results");
  });

  test("shows the document beside its values", async () => {
    // WebKitWebDriver finds a <tr> itself not interactable: click its file cell.
    await (await (await byTestId("result-row")).$("th")).click();
    const pane = await byTestId("detail-pane");
    await pane.waitForDisplayed({ timeout: WAIT_MS });
    const picture = await pane.$('[data-testid="document-preview"] img');
    await picture.waitForDisplayed({ timeout: WAIT_MS });
    assert.match(await picture.getAttribute("src"), /^data:image\/(png|jpeg);base64,/);
    assert.ok(await browser.execute((img) => img.complete && img.naturalWidth > 0, picture), "the page image loaded");
    assert.equal(await (await pane.$('[data-testid="value-invoice_number"]')).getValue(), "42183017");
  });

  test("saves an edited value as a revision and marks it", async () => {
    const total = await (await byTestId("detail-pane")).$('[data-testid="value-total"]');
    await typeInto(browser, total, "5.25");
    await browser.keys("Enter");
    const cell = await (await byTestId("result-row")).$('td[data-column="total"]');
    await browser.waitUntil(async () => (await cell.getAttribute("data-changed")) === "true", {
      timeout: WAIT_MS,
      timeoutMsg: "the edited cell is not marked as changed",
    });
    assert.equal(await shownText(cell), "5.25 (edited)");
    await snap(browser, "extract-detail");
    // Untouched fields stay unmarked.
    assert.equal(await (await byTestId("result-row")).$('td[data-column="currency"]').getAttribute("data-changed"), null);
  });

  test("exports the CSV with the corrected value, exactly", async () => {
    await (await byTestId("export-csv")).click();
    const status = await byTestId("extract-status");
    await waitForText(status, `Exported 1 documents to ${EXPORT_PATH}.`);
    const csv = readFileSync(EXPORT_PATH, "utf8");
    assert.equal(
      csv,
      "file,invoice_number,date,total,currency,status,error\r\n" +
        `${INVOICE},42183017,2014-08-03,5.25,USD,completed,\r\n`,
    );
  });
});

describe("a failed document", () => {
  test("is called again by Retry, and its values arrive", async () => {
    await scripted("/_scripted/script", "PUT", {
      models: {
        "scripted-model": [
          { fault: { status: 400, body: '{"error":{"message":"scripted refusal of the request"}}' } },
          { tool_calls: [{ name: "submit_output", arguments: TRUTH }], usage: { input: 1000, output: 50 } },
        ],
      },
    });
    await (await byTestId("run")).click();
    const row = await byTestId("result-row");
    await browser.waitUntil(async () => (await row.getAttribute("data-status")) === "failed", {
      timeout: WAIT_MS,
      timeoutMsg: "the document did not fail as scripted",
    });
    const retry = await byTestId("resume");
    await waitForText(retry, "Retry 1 not done");
    await retry.click();
    await browser.waitUntil(async () => (await (await byTestId("result-row")).getAttribute("data-status")) === "completed", {
      timeout: WAIT_MS,
      timeoutMsg: "the retried document did not complete",
    });
    assert.equal(await shownText(await (await byTestId("result-row")).$('td[data-column="invoice_number"]')), "42183017");
    assert.equal(await (await byTestId("resume")).isExisting(), false);
  });
});

describe("the window's permissions", () => {
  const invoke = (command, args) =>
    browser.executeAsync(
      (command, args, done) => {
        window.__TAURI_INTERNALS__.invoke(command, args).then(
          () => done("allowed"),
          (error) => done(`denied: ${typeof error === "string" ? error : JSON.stringify(error)}`),
        );
      },
      command,
      args,
    );
  const target = { kind: "Webview", label: "main" };

  test("may listen to the native file drops", async () => {
    const handler = await browser.execute(() => window.__TAURI_INTERNALS__.transformCallback(() => undefined));
    assert.equal(await invoke("plugin:event|listen", { event: "tauri://drag-drop", target, handler }), "allowed");
  });

  test("runs no inline script and reaches no server itself (the CSP)", async () => {
    const outcome = await browser.executeAsync((server, done) => {
      const script = document.createElement("script");
      script.textContent = "window.__inlineRan = true;";
      document.body.appendChild(script);
      // An opaque no-cors request would succeed without a connect-src rule.
      fetch(`${server}/v1/models`, { mode: "no-cors" }).then(
        () => done({ inline: window.__inlineRan === true, fetch: "reached" }),
        () => done({ inline: window.__inlineRan === true, fetch: "blocked" }),
      );
    }, SERVER);
    assert.deepEqual(outcome, { inline: false, fetch: "blocked" });
  });

  test("reads no path it makes up: only one a dialog or a drop granted", async () => {
    const refused = (path) =>
      `denied: ${JSON.stringify({
        code: "path_not_allowed",
        message: `${path} was not picked in an open dialog, dropped on the window or found in a folder picked in this session: nothing was read`,
      })}`;
    for (const [command, args] of [
      ["describe_attachments", { paths: ["/etc/passwd"] }],
      ["read_workflow", { path: "/etc/passwd" }],
      ["list_workflows", { dir: "/etc" }],
    ]) {
      assert.equal(await invoke(command, args), refused(command === "list_workflows" ? "/etc" : "/etc/passwd"), command);
    }
  });

  test("may not do what it does not need", async () => {
    for (const [command, args] of [
      ["plugin:event|emit", { event: "tauri://drag-drop", payload: { paths: ["/etc/passwd"] } }],
      ["plugin:window|close", { label: "main" }],
      ["plugin:dialog|open", { options: {} }],
    ]) {
      assert.match(await invoke(command, args), /^denied: .*not allowed/, command);
    }
  });
});

describe("the other screens", () => {
  test("Schemas shows the library's schema in the field editor", async () => {
    await (await byTestId("nav-schemas")).click();
    const library = await byTestId("schema-library");
    await library.waitForDisplayed({ timeout: WAIT_MS });
    const entry = await library.$("button*=invoice");
    await entry.click();
    await browser.waitUntil(async () => (await entry.getAttribute("aria-current")) === "true", { timeout: WAIT_MS });
    assert.equal(await (await browser.$("#schema-name")).getValue(), "invoice");
    // Version 1 is the starter invoice; the test's own is version 2.
    await waitForText(await byTestId("schema-version"), "version 2");
    const rows = await browser.$$('[data-testid="field-row"]');
    const paths = [];
    for (const row of rows) paths.push(await row.getAttribute("data-path"));
    assert.deepEqual(paths, ["invoice_number", "date", "total", "currency"]);
    await waitForText(await byTestId("engine-problems"), "The engine accepts this schema.");
    await snap(browser, "schemas");
  });

  test("Schemas saves an edited schema as a new version, which Extract then offers", async () => {
    await (await byTestId("add-field")).click();
    const rows = await browser.$$('[data-testid="field-row"]');
    assert.equal(rows.length, 5);
    const name = await rows[4].$("input");
    await typeInto(browser, name, "seller");
    await browser.waitUntil(async () => (await rows[4].getAttribute("data-path")) === "seller", { timeout: WAIT_MS });
    await waitForText(await byTestId("engine-problems"), "The engine accepts this schema.");
    await (await byTestId("schema-save")).click();
    await waitForText(await byTestId("schema-version"), "version 3");
    await (await byTestId("nav-extract")).click();
    const picked = await byTestId("run-schema");
    await browser.waitUntil(async () => (await shownText(await picked.$('option[value="invoice"]'))) === "invoice (v3)", {
      timeout: WAIT_MS,
      timeoutMsg: "Extract does not offer version 3",
    });
  });

  test("Settings lists the scripted server's models and tests the connection", async () => {
    await (await byTestId("nav-settings")).click();
    const editor = await byTestId("provider-editor");
    await editor.waitForDisplayed({ timeout: WAIT_MS });
    await (await editor.$("button=Test connection")).click();
    const result = await byTestId("connection-result");
    await result.waitForDisplayed({ timeout: WAIT_MS });
    const text = await result.getText();
    assert.ok(text.startsWith(`Connected: ${SERVER}/v1/models answered in `), text);
    assert.ok(text.endsWith("(connected: 1 model listed)"), text);
    await (await editor.$("button=List models")).click();
    const models = await byTestId("model-list");
    await models.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await models.getText(), "scripted-model");
    await snap(browser, "settings");
  });

  test("switches to the dark theme and back", async () => {
    await (await byTestId("nav-extract")).click();
    const toggle = await byTestId("theme-toggle");
    const theme = () => browser.execute(() => document.documentElement.dataset.theme);
    for (let i = 0; i < 3 && (await theme()) !== "dark"; i += 1) await toggle.click();
    assert.equal(await theme(), "dark");
    assert.equal(await shownText(toggle), "Theme: dark");
    await snap(browser, "extract-dark");
    for (let i = 0; i < 3 && !(await shownText(toggle)).startsWith("Theme: system"); i += 1) await toggle.click();
    assert.match(await shownText(toggle), /^Theme: system/);
  });
});

describe("after a restart", () => {
  test("the first job reopens from Recent jobs with its corrected value", async () => {
    await browser.deleteSession();
    browser = await launch();
    const jobs = await byTestId("recent-jobs");
    await jobs.waitForDisplayed({ timeout: WAIT_MS });
    const options = await jobs.$$("option");
    assert.equal(options.length, 2, "the first run and the retried one");
    // Newest first: the first run is the last.
    await jobs.selectByIndex(1);
    await (await byTestId("open-job")).click();
    const row = await byTestId("result-row");
    await browser.waitUntil(async () => (await row.isExisting()) && (await row.getAttribute("data-status")) === "completed", {
      timeout: WAIT_MS,
      timeoutMsg: "the reopened job shows no completed row",
    });
    const total = await row.$('td[data-column="total"]');
    assert.equal(await shownText(total), "5.25 (edited)");
    assert.equal(await total.getAttribute("data-changed"), "true");
    assert.match(await (await byTestId("progress")).getText(), /1 of 1 finished · 1 done · 0 failed · 1234 tokens in, 56 out/);
  });
});
