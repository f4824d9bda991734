// The installed package's window on a fresh profile, as a newcomer meets
// it: it opens on Extract with the first-run hint and the starter schemas;
// a corpus invoice dropped on the window, "invoice" picked and Run give a
// row from the bundled local model; Export CSV, answered in GTK's own save
// dialog (a release build has no test hook to answer it), writes it. Meanwhile
// neither the app nor its model server uses a file of the checkout.
// Run by tests/package/run.sh, which installs the package and sets the
// environment read here.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, describe, test } from "node:test";

import { remote } from "../window/webdriver.mjs";
import { dragOntoWindow } from "../window/drag.mjs";
import { answerSaveDialog } from "../window/save_dialog.mjs";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run tests/package/run.sh`);
  return value;
};
const OUT = env("SIFT_PACKAGE_OUT");
const INVOICE = env("SIFT_PACKAGE_INVOICE");
const CHECKOUT = env("SIFT_PACKAGE_CHECKOUT");
const EXPORT_PATH = join(OUT, "window.csv");
// Each wait is for a condition; the bound is how long a loaded machine may take.
const WAIT_MS = 60_000;
// The local model reads the invoice and writes up to a few hundred tokens on
// two busy cores: a bound far above what it needs.
const MODEL_MS = 15 * 60_000;

let browser;
const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
const shownText = async (element) => (await element.getProperty("innerText")).trim();

/** RFC 4180 records: a quoted field may hold commas, quotes ("") and line breaks. */
function csvRecords(text) {
  const records = [];
  let record = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || record.length > 0) records.push([...record, field]);
  return records;
}

function screenshot(name) {
  execFileSync("import", ["-window", "root", join(OUT, "shots", `${name}.png`)]);
}

/** The pids whose program is `exe`. */
function pidsOf(exe) {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/exe`) === exe;
      } catch {
        return false;
      }
    });
}

/** What a process has mapped, open and in its command line that lies in the checkout. */
function checkoutFilesOf(pid) {
  const found = [];
  for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
    if (line.includes(CHECKOUT)) found.push(`mapped ${line.trim()}`);
  }
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith(CHECKOUT)) found.push(`open ${target}`);
    } catch {
      // Closed meanwhile.
    }
  }
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  for (const arg of cmdline) if (arg.includes(CHECKOUT)) found.push(`argument ${arg}`);
  return found;
}

before(async () => {
  browser = await remote({
    hostname: "127.0.0.1",
    port: 4444,
    logLevel: "warn",
    waitforTimeout: WAIT_MS,
    connectionRetryTimeout: 2 * WAIT_MS,
    capabilities: { browserName: "wry", "wdio:enforceWebDriverClassic": true, "tauri:options": { application: "/usr/bin/sift-app" } },
  });
});

after(async () => {
  await browser?.deleteSession();
});

describe("the installed package on a fresh profile", () => {
  test("opens on Extract with the first-run hint and the starter schemas", async () => {
    const title = await browser.$("#extract-title");
    await title.waitForDisplayed({ timeout: WAIT_MS });
    assert.equal(await shownText(title), "Extract");
    const hint = await byTestId("first-run-hint");
    await hint.waitForDisplayed({ timeout: WAIT_MS });
    assert.match(await shownText(hint), /Qwen2\.5-Coder-1\.5B, served by llama\.cpp\): nothing leaves the machine/);
    await browser.waitUntil(async () => (await shownText(await byTestId("first-run-db"))) === join(process.env.HOME, ".local/share/sift/sift.db"), {
      timeout: WAIT_MS,
      timeoutMsg: "the hint does not name the new database in the data directory",
    });
    const options = await browser.$$('[data-testid="run-schema"] option:not([disabled])');
    const names = [];
    for (const option of options) names.push(await option.getAttribute("value"));
    assert.deepEqual(names, ["bank_statement", "invoice", "purchase_order", "receipt"]);
  });

  test("a dropped invoice, the starter invoice schema and Run give a row from the bundled model", async () => {
    const release = await dragOntoWindow(browser, INVOICE);
    try {
      const chip = await browser.$('[data-testid="file-list"] .chip-name');
      await chip.waitForExist({ timeout: WAIT_MS, timeoutMsg: "the dropped invoice never showed in the list" });
      assert.equal(await shownText(chip), basename(INVOICE));
    } finally {
      release();
    }
    await (await byTestId("run-schema")).selectByAttribute("value", "invoice");
    const run = await byTestId("run");
    await browser.waitUntil(async () => (await shownText(run)) === "Run on 1 file", { timeout: WAIT_MS });
    await run.click();
    const row = await byTestId("result-row");
    await browser.waitUntil(async () => ["completed", "failed"].includes(await row.getAttribute("data-status")), {
      timeout: MODEL_MS,
      interval: 500,
      timeoutMsg: "the invoice's row never finished",
    });
    screenshot("package-first-extraction");
    // The default answers mode (hybrid) keeps the locator's values and asks
    // the model for the rest (the line items); a model answer cut at its
    // token bound leaves those fields for review and the row completed, so
    // any other outcome is the package's fault.
    assert.equal(await row.getAttribute("data-status"), "completed", await shownText(await byTestId("extract-status")));
    assert.equal(await shownText(await row.$("th")), basename(INVOICE));

    // The model server the app started is the package's, and neither
    // process uses a file of the checkout.
    const [app] = pidsOf("/usr/bin/sift-app");
    const servers = pidsOf("/usr/lib/sift/llama-server");
    assert.ok(app !== undefined, "no /usr/bin/sift-app process");
    assert.equal(servers.length, 1, "the app's model server is not /usr/lib/sift/llama-server");
    const serverArgs = readFileSync(`/proc/${servers[0]}/cmdline`, "utf8").split("\0");
    assert.equal(serverArgs[serverArgs.indexOf("--model") + 1], "/usr/lib/sift/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf");
    assert.deepEqual([...checkoutFilesOf(app), ...checkoutFilesOf(servers[0])], []);
    // The invoice was read in a reader process (`sift-app __read-document`):
    // PDFium, which may abort on a malformed file, is never in the app's own.
    const pdfium = readFileSync(`/proc/${app}/maps`, "utf8").split("\n").filter((l) => l.includes("libpdfium"));
    assert.deepEqual(pdfium, []);
  });

  test("Export CSV writes the row with the starter schema's columns", async () => {
    await (await byTestId("export-csv")).click();
    await answerSaveDialog(browser, EXPORT_PATH, { timeout: WAIT_MS });
    await browser.waitUntil(async () => (await shownText(await byTestId("extract-status"))).startsWith("Exported 1 documents"), {
      timeout: WAIT_MS,
      timeoutMsg: "the export never finished",
    });
    const records = csvRecords(readFileSync(EXPORT_PATH, "utf8"));
    assert.deepEqual(records[0], ["file", "invoice_number", "invoice_date", "due_date", "seller_name", "seller_tax_id", "buyer_name", "currency", "line_items", "subtotal", "tax", "total", "status", "error"]);
    assert.equal(records.length, 2, JSON.stringify(records));
    // The values are the small model's own; the row is the invoice's, as it ended.
    assert.equal(records[1].length, 14);
    assert.deepEqual([records[1][0], records[1][12], records[1][13]], [INVOICE, "completed", ""]);
  });

  test("Settings names the bundled model the extraction used", async () => {
    await (await byTestId("nav-settings")).click();
    const inUse = await browser.$('[data-testid="local-model-row"][data-in-use="true"]');
    await inUse.waitForExist({ timeout: WAIT_MS, timeoutMsg: "Settings -> Local models shows no model in use" });
    assert.equal(await inUse.getAttribute("data-file"), "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf");
    const cells = await inUse.$$("td");
    // The model's own name, general.name in its file's header.
    assert.equal(await shownText(cells[1]), "Qwen2.5 Coder 1.5B Instruct GGUF");
    screenshot("package-settings-model");
  });
});
