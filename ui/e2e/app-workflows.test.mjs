// Workflows in the built app, through its Tauri source (src/backend/workflowSource.ts)
// over the mocked IPC (mock-ipc-workflows-chat-transcripts.js): open a folder, edit a step on the
// canvas and see the YAML change, save, run with live node status, re-run from a step.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const FILE = "/home/user/flows/two.yaml";
const nodes = (page) => page.locator("[data-node]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node")));
const edges = (page) => page.locator("[data-edge]").evaluateAll((els) => els.map((e) => e.getAttribute("data-edge")));
const statuses = (page) => page.locator("[data-node]").evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-node"), e.getAttribute("data-status")])));
const yaml = (page) =>
  page.getByTestId("workflow-yaml").evaluate((el) => {
    const view = el.cmTile?.root?.view ?? el.cmTile?.view;
    return view?.state?.doc?.toString() ?? el.innerText;
  });
const disk = (page) => page.evaluate((p) => window.__siftWorkflowsChatTranscriptsMock.files.get(p), FILE);

async function openFolder(page) {
  await page.getByTestId("nav-workflows").click();
  await page.getByTestId("open-folder").click();
  await eventually(() => nodes(page), ["fetch", "shout"]);
}

describe("Workflows in the app", () => {
  it("opens a folder, edits a step on the canvas (the YAML follows, comments kept), saves, runs with live status, and re-runs from a step", async () => {
    // Each step, once started, waits until the test releases it: every state is seen, however slow the machine.
    const page = await app.open({ stepDelay: 300, holdSteps: true });
    await openFolder(page);
    assert.deepEqual(await edges(page), ["fetch->shout"]);
    assert.deepEqual((await ipcCalls(page, "pick_folder")).length, 1);
    assert.deepEqual((await ipcCalls(page, "list_workflows")).map((c) => c.args), [{ dir: "/home/user/flows" }]);
    assert.deepEqual((await ipcCalls(page, "watch_workflows")).map((c) => c.args.dir), ["/home/user/flows"]);
    await page.getByTestId("workflows-folder").getByText("/home/user/flows").waitFor();
    const original = await disk(page);

    // Edit the second step's command in its side panel.
    await page.locator('[data-node="shout"]').click();
    const command = page.getByTestId("step-panel").getByLabel("Command");
    assert.equal(await command.inputValue(), 'echo "${GREETING}!"');
    await command.fill("echo loud");
    const expected = original.replace('    run: echo "${GREETING}!"\n', "    run: echo loud\n");
    assert.notEqual(expected, original);
    await eventually(() => yaml(page), expected);
    assert.equal(await page.getByTestId("save-state").textContent(), "unsaved changes");
    await page.getByTestId("workflow-save").click();
    await eventually(() => page.getByTestId("save-state").textContent(), "saved");
    assert.equal(await disk(page), expected);
    assert.deepEqual((await ipcCalls(page, "save_workflow")).map((c) => c.args), [{ path: FILE, text: expected }]);

    // Run: the folder's commands are shown first, exactly, and run only once allowed.
    await page.getByTestId("workflow-run").click();
    const consent = page.getByTestId("commands-consent");
    await consent.waitFor();
    assert.deepEqual(await consent.getByTestId("consent-step").allInnerTexts(), ["two.yaml › fetch", "two.yaml › shout"]);
    assert.deepEqual(await consent.getByTestId("consent-command-text").allTextContents(), ["echo hello", "echo loud"]);
    assert.deepEqual(await statuses(page), { fetch: "none", shout: "none" });
    await consent.getByRole("button", { name: "Run them" }).click();
    await eventually(() => consent.count(), 0);
    const [allowed] = await ipcCalls(page, "allow_workflow_commands");
    assert.equal(allowed.args.folder, "/home/user/flows");
    assert.deepEqual(JSON.parse(allowed.args.fingerprint), [
      { file: "two.yaml", dag: null, step: "fetch", command: "echo hello", env: [] },
      { file: "two.yaml", dag: null, step: "shout", command: "echo loud", env: [] },
    ]);
    // Each node shows its status as the run goes.
    const release = (n) => page.evaluate((n) => window.__siftWorkflowsChatTranscriptsMock.releaseSteps(n ?? undefined), n ?? null);
    await eventually(() => statuses(page), { fetch: "running", shout: "pending" });
    await release(1);
    await eventually(() => statuses(page), { fetch: "succeeded", shout: "running" });
    await release(); // this step and every later one
    await eventually(() => statuses(page), { fetch: "succeeded", shout: "succeeded" });
    await eventually(() => page.getByTestId("run-status").textContent(), "Run succeeded");
    // The refused run, then the one allowed.
    assert.deepEqual((await ipcCalls(page, "run_workflow")).map((c) => c.args.request), [{ path: FILE, params: [] }, { path: FILE, params: [] }]);
    await page.getByRole("tab", { name: "Run output" }).click();
    await eventually(() => page.getByTestId("step-stdout").textContent(), "loud\n");

    // Re-run from shout: fetch is reused from the first run.
    await page.getByTestId("workflow-rerun").click();
    await eventually(() => page.getByTestId("run-status").textContent(), "Run succeeded");
    const reruns = (await ipcCalls(page, "run_workflow")).map((c) => c.args.request);
    // Allowed once for the folder: the re-run is not asked about.
    assert.deepEqual(reruns, [
      { path: FILE, params: [] },
      { path: FILE, params: [] },
      { path: FILE, params: [], fromStep: "shout", fromRun: "run_1" },
    ]);
    assert.equal((await ipcCalls(page, "allow_workflow_commands")).length, 1);
    await page.locator('[data-node="fetch"]').click();
    await page.getByRole("tab", { name: "Run output" }).click();
    await page.getByTestId("step-run").getByText("reused from the earlier run").waitFor();
    await eventually(() => page.getByTestId("run-history").locator("option").count(), 2);

    // The runs' steps are in Transcripts too.
    await page.getByTestId("nav-transcripts").click();
    await page.getByRole("button", { name: "Workflow steps" }).click();
    // Newest run first, each run's steps in their order.
    await eventually(
      () => page.locator("[data-transcript]").evaluateAll((els) => els.map((e) => `${e.dataset.transcript}: ${e.innerText.split("\n")[0]}`)),
      ["run_2/fetch: two.yaml: fetch", "run_2/shout: two.yaml: shout", "run_1/fetch: two.yaml: fetch", "run_1/shout: two.yaml: shout"],
    );
    await page.locator('[data-transcript="run_2/shout"]').click();
    await eventually(() => page.getByTestId("transcript-title").textContent(), "shout");
  });

  it("runs nothing when the commands are cancelled, and asks again at the next run", async () => {
    const page = await app.open({ stepDelay: 5 });
    await openFolder(page);
    await page.getByTestId("workflow-run").click();
    const consent = page.getByTestId("commands-consent");
    await consent.waitFor();
    await consent.getByRole("button", { name: "Cancel" }).click();
    await eventually(() => consent.count(), 0);
    assert.deepEqual(await statuses(page), { fetch: "none", shout: "none" });
    assert.deepEqual(await ipcCalls(page, "allow_workflow_commands"), []);
    assert.equal(await page.getByTestId("run-history").locator("option").count(), 0);
    await page.getByTestId("workflow-run").click();
    await consent.waitFor();
    assert.deepEqual(await consent.getByTestId("consent-command-text").allTextContents(), ["echo hello", 'echo "${GREETING}!"']);
  });

  it("reloads a file changed on disk (the folder watch)", async () => {
    const page = await app.open();
    await openFolder(page);
    const text = (await disk(page)).replace("  - id: shout\n", "  - id: yell\n");
    await page.evaluate(([p, t]) => window.__siftWorkflowsChatTranscriptsMock.changeOnDisk(p, t), [FILE, text]);
    await eventually(() => nodes(page), ["fetch", "yell"]);
    await eventually(() => yaml(page), text);
  });
});
