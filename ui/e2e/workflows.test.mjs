// Workflows: the canvas and the YAML text in two-way sync over the
// in-memory source of the harness; runs, re-runs, problems, the folder watch.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "./browser.mjs";
import { pauseClock, useHarness } from "./harness.mjs";

const harness = useHarness({ before, after, afterEach });

const nodes = (page) => page.locator("[data-node]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node")));
const edges = (page) => page.locator("[data-edge]").evaluateAll((els) => els.map((e) => e.getAttribute("data-edge")));
// The editor's whole text (CodeMirror's view through its DOM, else the rendered lines).
const yaml = (page) =>
  page.getByTestId("workflow-yaml").evaluate((el) => {
    const view = el.cmTile?.root?.view ?? el.cmTile?.view;
    return view?.state?.doc?.toString() ?? el.innerText;
  });
const disk = (page, path) => page.evaluate((p) => window.__harness.workflows.files.get(p), path);
const statuses = (page) => page.locator("[data-node]").evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-node"), e.getAttribute("data-status")])));

async function open(page) {
  await page.getByRole("heading", { name: "Workflows", level: 1 }).waitFor();
  await eventually(() => nodes(page), ["classify", "record"]);
}

describe("Workflows", () => {
  it("adds, connects and edits a step on the canvas; the YAML follows and is saved with its comments", async () => {
    const page = await harness.open("workflows");
    await open(page);
    assert.deepEqual(await edges(page), ["classify->record"]);
    const original = await disk(page, "classify.yaml");

    await page.getByRole("button", { name: "Add shell step" }).click();
    await eventually(() => nodes(page), ["classify", "record", "step3"]);
    // The new step is selected: its form is in the side panel.
    await page.getByTestId("step-panel").getByLabel("Step id").waitFor();
    assert.equal(await page.getByTestId("step-panel").getByLabel("Step id").inputValue(), "step3");

    // Drag from record's handle onto step3: step3 now depends on record.
    const handle = page.locator('[data-node="record"] [data-handle]');
    const target = page.locator('[data-node="step3"] .wf-node-box');
    const a = await handle.boundingBox();
    const b = await target.boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
    await page.mouse.up();
    await eventually(() => edges(page), ["classify->record", "record->step3"]);

    const command = page.getByTestId("step-panel").getByLabel("Command");
    await command.fill("echo done");
    await page.getByTestId("workflow-save").click();
    await eventually(() => page.getByTestId("save-state").textContent(), "saved");
    const expected = original.replace(
      "    output: LINE               # stdout\n",
      "    output: LINE               # stdout\n  - id: step3\n    run: echo done\n    depends: record\n",
    );
    assert.equal(await disk(page, "classify.yaml"), expected);
    await eventually(async () => (await yaml(page)).includes("  - id: step3\n    run: echo done\n    depends: record"), true);
  });

  it("fills a chat step's form: prompt, provider, model fallback, tools, files, output_schema through the schema editor, depends", async () => {
    const page = await harness.open("workflows");
    await open(page);
    const original = await yaml(page);
    await page.getByRole("button", { name: "Add chat step" }).click();
    await eventually(() => nodes(page), ["classify", "record", "step3"]);
    const panel = page.getByTestId("step-panel");
    await panel.getByLabel("Prompt", { exact: true }).fill("Summarise ${steps.record.outputs.LINE}");
    await panel.getByLabel("Provider").selectOption("openai");
    await panel.getByLabel("Model", { exact: true }).fill("a, b");
    await panel.getByRole("checkbox", { name: "get-weather" }).check();
    await panel.getByLabel("Files").fill("docs/*.pdf");
    const schema = page.getByRole("textbox", { name: "Output schema of step3" });
    await schema.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText('{"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}');
    await panel.getByRole("checkbox", { name: "record" }).check();
    const expected = original.replace(
      "    output: LINE               # stdout\n",
      `    output: LINE               # stdout
  - id: step3
    action: chat.completion
    with:
      prompt: "Summarise \${steps.record.outputs.LINE}"
      provider: openai
      model: [a, b]
      tools: [get-weather]
      files: docs/*.pdf
    output_schema:
      type: object
      properties:
        total:
          type: number
      required: [total]
    depends: record
`,
    );
    await eventually(() => yaml(page), expected);
    assert.deepEqual(await edges(page), ["classify->record", "record->step3"]);
    // The form reads back what the YAML says.
    assert.equal(await panel.getByLabel("Model", { exact: true }).inputValue(), "a, b");
    assert.equal(await page.getByTestId("save-state").textContent(), "unsaved changes");
  });

  it("edits in the text redraw the canvas, and the engine's problems show on the node and in the text", async () => {
    const page = await harness.open("workflows");
    await open(page);
    const editor = page.getByTestId("workflow-yaml");
    await editor.click();
    await page.keyboard.press("Control+Home");
    // Line 23 is the `---` before the tool's document: the new step goes just above it.
    for (let i = 0; i < 22; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Home");
    await page.keyboard.insertText("  - id: late\n    run: echo late\n    depends: nope\n");
    assert.match(await yaml(page), /# stdout\n {2}- id: late\n {4}run: echo late\n {4}depends: nope\n---\n/);
    await eventually(() => nodes(page), ["classify", "record", "late"]);
    await eventually(() => page.locator('[data-node="late"]').getAttribute("data-invalid"), "true");
    await eventually(() => page.getByTestId("workflow-problems").innerText(), "line 25: step late depends on non-existent step nope");
    // The diagnostic is in the editor too (CodeMirror's lint marks).
    await eventually(() => page.locator(".cm-lintRange-error").count().then((n) => n > 0), true);
    await page.locator('[data-node="late"]').click();
    await eventually(() => page.getByTestId("step-problems").innerText(), "step late depends on non-existent step nope");
  });

  it("runs with live status per node, shows a step's logs, outputs and messages, and re-runs from a step", async () => {
    // The page's clock stands still while classify runs (150 ms of it): the
    // test sees it running however slow the machine, then lets time go on.
    const page = await harness.open("workflows", { clock: true });
    await open(page);
    await page.getByLabel("Params").fill("CODE=7 CITY=Lyon");
    await pauseClock(page);
    await page.getByTestId("workflow-run").click();
    await page.clock.runFor(1); // the run's first tick: classify starts
    await eventually(() => statuses(page).then((s) => s.classify), "running");
    await page.clock.resume();
    await eventually(() => statuses(page), { classify: "succeeded", record: "succeeded" });
    await eventually(() => page.getByTestId("run-status").textContent(), "Run succeeded");

    await page.locator('[data-node="classify"]').click();
    await page.getByRole("tab", { name: "Run output" }).click();
    assert.equal(await page.getByTestId("step-stdout").textContent(), '{"amount":12.5,"category":"refund"}\n');
    assert.equal(await page.getByTestId("step-outputs").innerText(), "category\trefund\namount\t12.5");
    await page.getByTestId("step-run").getByTestId("tool-call").waitFor();
    assert.match(await page.getByTestId("step-run").getByTestId("tool-call").innerText(), /Tool call: respond[\s\S]*"category": "refund"/);

    await page.locator('[data-node="record"]').click();
    await page.getByTestId("workflow-rerun").click();
    await eventually(() => page.getByTestId("run-status").textContent(), "Run succeeded");
    const calls = await page.evaluate(() => window.__harness.workflows.calls);
    assert.deepEqual(calls.map((c) => [c.method, c.from ?? null]), [["run", null], ["rerunFrom", "record"]]);
    assert.deepEqual(calls[0].params, [["CODE", "7"], ["CITY", "Lyon"]]);
    await page.locator('[data-node="classify"]').click();
    await page.getByTestId("step-run").getByText("reused from the earlier run").waitFor();
    assert.equal(await page.getByTestId("run-history").locator("option").count(), 2);
  });

  it("cancels a run: the steps not yet finished end as cancelled", async () => {
    // Cancelled while classify runs: the page's clock stands still until then.
    const page = await harness.open("workflows", { clock: true });
    await open(page);
    await pauseClock(page);
    await page.getByTestId("workflow-run").click();
    await page.clock.runFor(1);
    await eventually(() => statuses(page).then((s) => s.classify), "running");
    await page.getByTestId("workflow-cancel").click();
    await page.clock.resume();
    await eventually(() => page.getByTestId("run-status").textContent(), "Run cancelled");
    assert.equal((await statuses(page)).record, "cancelled");
  });

  it("asks before switching files with unsaved edits", async () => {
    const page = await harness.open("workflows");
    await open(page);
    await page.getByRole("button", { name: "Add shell step" }).click();
    page.once("dialog", (dialog) => dialog.dismiss());
    await page.getByTestId("workflow-file").selectOption("diamond.yaml");
    assert.deepEqual(await nodes(page), ["classify", "record", "step3"]);
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByTestId("workflow-file").selectOption("diamond.yaml");
    await eventually(() => nodes(page), ["a", "b", "c", "d"]);
  });

  it("creates a new file and builds a two-step workflow in it", async () => {
    const page = await harness.open("workflows");
    await open(page);
    await page.getByTestId("new-workflow").click();
    await page.getByLabel("New file").fill("classify.yaml");
    assert.equal(await page.locator("#wf-new-problem").textContent(), "classify.yaml already exists.");
    await page.getByLabel("New file").fill("two.yaml");
    await page.getByRole("button", { name: "Create" }).click();
    await eventually(() => page.getByTestId("workflow-file").inputValue(), "two.yaml");
    await page.getByRole("button", { name: "Add shell step" }).click();
    await page.getByRole("button", { name: "Add shell step" }).click();
    await eventually(() => nodes(page), ["step1", "step2"]);
    await page.getByTestId("step-panel").getByRole("checkbox", { name: "step1" }).check();
    await page.getByTestId("workflow-save").click();
    await eventually(() => disk(page, "two.yaml"), "steps:\n  - id: step1\n    run: echo step1\n  - id: step2\n    run: echo step2\n    depends: step1\n");
  });

  it("reloads a file changed on disk, and asks when there are unsaved edits", async () => {
    const page = await harness.open("workflows");
    await open(page);
    await page.evaluate(() => window.__harness.workflows.changeOnDisk("classify.yaml", "steps:\n  - id: only\n    run: echo\n"));
    await eventually(() => nodes(page), ["only"]);
    await page.getByRole("button", { name: "Add shell step" }).click();
    await page.evaluate(() => window.__harness.workflows.changeOnDisk("classify.yaml", "steps:\n  - id: other\n    run: echo\n"));
    await page.getByTestId("disk-changed").waitFor();
    assert.deepEqual(await nodes(page), ["only", "step2"]);
    await page.getByRole("button", { name: "Reload from disk" }).click();
    await eventually(() => nodes(page), ["other"]);
  });

  it("is reachable from the keyboard: select, delete a step and an edge; zoom and fit", async () => {
    const page = await harness.open("workflows");
    await page.getByTestId("workflow-file").selectOption("diamond.yaml");
    await eventually(() => nodes(page), ["a", "b", "c", "d"]);
    // Arrow keys move between the steps as they are drawn.
    await page.locator('[data-node="a"]').focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-node")), "b");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-node")), "c");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    assert.equal(await page.getByTestId("step-panel").getByLabel("Step name").inputValue(), "b");
    await page.locator('[data-node="b"]').focus();
    await page.keyboard.press("Delete");
    await eventually(() => nodes(page), ["a", "c", "d"]);
    assert.deepEqual(await edges(page), ["a->c", "c->d"]);
    await page.locator('[data-edge="a->c"]').focus();
    await page.keyboard.press("Delete");
    await eventually(() => edges(page), ["c->d"]);
    assert.doesNotMatch(await yaml(page), /depends: \[a\]/);

    const zoom = () => page.getByTestId("canvas-zoom").textContent();
    await page.getByRole("button", { name: "1:1" }).click();
    assert.equal(await zoom(), "100%");
    await page.getByRole("button", { name: "Zoom in" }).click();
    assert.equal(await zoom(), "125%");
    await page.getByRole("button", { name: "Zoom out" }).click();
    assert.equal(await zoom(), "100%");
    const box = await page.getByTestId("workflow-canvas").boundingBox();
    await page.mouse.move(box.x + 40, box.y + 40);
    await page.mouse.wheel(0, -200);
    await eventually(() => zoom().then((z) => Number.parseInt(z) > 100), true);
  });
});
