// A crash of the app loses no work, in the real window: a job is started
// whose model request the scripted server holds, the app is killed with
// SIGKILL, started again on the same database, and shows the job
// interrupted with Resume; the resume completes the row, once, and the
// file's integrity check is ok. Run by tests/window/run.sh.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import { after, describe } from "node:test";

import { APP, OUT, WAIT_MS, addThePickedFile, eventually, launch, modelRequests, scripted, shownText, snap, test } from "./session.mjs";

// A database of its own, so that the other files' jobs are not in it.
const DB = join(OUT, "interrupted.db");
const ANSWER = { tool_calls: [{ name: "submit_output", arguments: { invoice_number: "42183017", date: "2014-08-03", total: 4.11, currency: "USD" } }] };

const sql = (query) => execFileSync("sqlite3", [DB, query], { encoding: "utf8" }).trim();

/** The pid of the app started on DB (its command line names the file). */
function appPid() {
  const pids = execFileSync("pgrep", ["-f", `${APP} --db ${DB}`], { encoding: "utf8" }).trim().split("\n");
  assert.equal(pids.length, 1, `one app on ${DB}: ${pids}`);
  return Number(pids[0]);
}

/** The processes `pid` started (WebKit's web and network processes). */
function childrenOf(pid) {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).trim().split("\n").map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/** Whether `pid` runs no more: gone from /proc, or a zombie its parent has not reaped. */
function hasEnded(pid) {
  try {
    return /\)\s+[ZX]\s/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/**
 * Waits until every process in `pids` has ended. A person starts the app
 * again once the crashed one is gone; a new one started while WebKit's
 * processes of the old one still hold its files is another test.
 */
async function untilEnded(pids) {
  const bound = Date.now() + WAIT_MS;
  while (!pids.every(hasEnded)) {
    assert.ok(Date.now() < bound, `processes still running after the kill: ${pids.filter((p) => !hasEnded(p))}`);
    await pause(100);
  }
}

let browser;

after(async () => {
  await browser?.deleteSession().catch(() => undefined);
});

describe("a crash of the app", () => {
  test("leaves the job interrupted, and Resume completes it", async () => {
    execFileSync(join(dirname(APP), "sift"), ["--db", DB, "schema", "import", join(OUT, "invoice.json")]);
    // The first request is held for good: the app dies while it waits.
    await scripted("/_scripted/script", "PUT", { models: { "scripted-model": [{ ...ANSWER, hold: "never" }] } });
    await scripted("/_scripted/requests", "DELETE");
    browser = await launch(["--db", DB]);
    const byTestId = (id) => browser.$(`[data-testid="${id}"]`);
    // The library also holds the starters; the test's schema is picked by name.
    const schema = await byTestId("run-schema");
    await (await schema.$('option[value="invoice"]')).waitForExist({ timeout: WAIT_MS });
    await schema.selectByAttribute("value", "invoice");
    await eventually(browser, () => schema.getValue(), "invoice");
    const run = await addThePickedFile(browser);
    await run.click();
    await eventually(browser, async () => (await modelRequests()).length, 1);
    assert.equal(sql("SELECT status || ',' || (interrupted_at IS NULL) FROM extraction_jobs"), "running,1");

    const app = appPid();
    const started = childrenOf(app);
    process.kill(app, "SIGKILL");
    await untilEnded([app, ...started]);
    await browser.deleteSession().catch(() => undefined);
    await scripted("/_scripted/script", "PUT", { models: { "scripted-model": [ANSWER] } });

    browser = await launch(["--db", DB]);
    const notice = await browser.$('[data-testid="interrupted"]');
    await notice.waitForDisplayed({ timeout: WAIT_MS, timeoutMsg: "the interrupted job was not shown" });
    assert.equal(await shownText(notice), "Interrupted: Sift closed before this job finished. Resume calls the 1 document not done; the others are kept.");
    const resume = await browser.$('[data-testid="resume"]');
    assert.equal(await shownText(resume), "Resume 1 not done");
    await snap(browser, "extract-interrupted");
    await resume.click();
    const row = await browser.$('[data-testid="result-row"]');
    await browser.waitUntil(async () => (await row.getAttribute("data-status")) === "completed", {
      timeout: WAIT_MS,
      timeoutMsg: "the resumed row never completed",
    });
    await browser.waitUntil(async () => !(await notice.isExisting()), { timeout: WAIT_MS });
    // The held request, then the resume's: one call stored, one row, the file sound.
    assert.equal((await modelRequests()).length, 2);
    assert.equal(sql("SELECT status FROM extraction_jobs"), "completed");
    assert.equal(sql("SELECT group_concat(status) FROM extraction_documents"), "completed");
    assert.equal(sql("SELECT COUNT(*) FROM structured_calls"), "1");
    assert.equal(sql("PRAGMA integrity_check"), "ok");
  });
});
