// Schemas: the visual editor and the JSON text stay in sync both ways, the
// engine's problems show inline, a version is saved to the library.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

async function openSchemas(page) {
  await page.getByRole("button", { name: "Schemas" }).click();
  await page.getByRole("heading", { name: "Schemas", level: 1 }).waitFor();
  return page.getByRole("textbox", { name: "Schema JSON" });
}

/** The JSON text in the code editor, parsed (throws while it is not JSON). */
async function editorJson(editor) {
  return JSON.parse(await editor.innerText());
}

async function editorProperties(editor) {
  try {
    return Object.keys((await editorJson(editor)).properties);
  } catch {
    return null;
  }
}

/** Replaces the editor's text as a user would: select all, then type. */
async function typeInEditor(page, editor, text) {
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

const fieldPaths = (page) => page.getByTestId("field-row").evaluateAll((rows) => rows.map((r) => r.dataset.path));

describe("Schemas", () => {
  it("keeps the fields and the JSON in sync, shows the engine's problems, and saves a version", async () => {
    const page = await app.open();
    const editor = await openSchemas(page);
    const library = page.getByTestId("schema-library");
    assert.deepEqual(await library.getByRole("button").allInnerTexts(), ["invoice\nv1", "receipt\nv1"]);

    await library.getByRole("button", { name: /invoice/ }).click();
    await eventually(() => page.getByLabel("Name", { exact: true }).first().inputValue(), "invoice");
    await eventually(() => editorProperties(editor), ["invoice_number", "date", "total", "currency", "vendor"]);
    assert.deepEqual(await fieldPaths(page), ["invoice_number", "date", "total", "currency", "vendor", "vendor.name"]);
    assert.equal(await page.getByTestId("schema-version").innerText(), "version 1");
    // The engine's problems also show on the field they are about.
    const dateProblem = page.getByRole("group", { name: "date", exact: true }).getByTestId("field-engine-problem");
    await dateProblem.getByText("no description: the model sees only the name").waitFor();
    assert.equal(await dateProblem.getAttribute("data-severity"), "warning");
    assert.equal(await page.getByRole("group", { name: "invoice_number", exact: true }).getByTestId("field-engine-problem").count(), 0);

    // Visual -> JSON: add a field, name it, make it a required number with a description.
    await page.getByTestId("add-field").click();
    const added = page.getByRole("group", { name: "field", exact: true });
    await added.getByLabel("Name").fill("tax");
    const tax = page.getByRole("group", { name: "tax", exact: true });
    await tax.getByLabel("Type").selectOption("number");
    await tax.getByLabel("Required").check();
    await tax.getByLabel("Description").fill("VAT amount");
    await eventually(async () => (await editorJson(editor)).properties.tax, { type: "number", description: "VAT amount" });
    assert.deepEqual((await editorJson(editor)).required, ["invoice_number", "total", "tax"]);

    // An array of objects, with a field inside its items.
    await page.getByTestId("add-field").click();
    const lines = page.getByRole("group", { name: "field", exact: true });
    await lines.getByLabel("Name").fill("lines");
    await page.getByRole("group", { name: "lines", exact: true }).getByLabel("Type").selectOption("array");
    await page.getByRole("button", { name: "Add field to lines" }).click();
    await page.getByRole("group", { name: "lines[].field", exact: true }).getByLabel("Name").fill("amount");
    await eventually(async () => (await editorJson(editor)).properties.lines, {
      type: "array",
      items: { type: "object", properties: { amount: { type: "string" } } },
    });

    // JSON -> visual: type a schema in the editor; the fields follow.
    const typed = {
      type: "object",
      properties: {
        po_number: { type: "string", description: "Purchase order" },
        status: { type: "string", enum: ["open", "paid"] },
        buyer: { type: "object", properties: { name: { type: "string" } } },
      },
      required: ["po_number"],
    };
    await typeInEditor(page, editor, JSON.stringify(typed, null, 2));
    await eventually(() => fieldPaths(page), ["po_number", "status", "buyer", "buyer.name"]);
    const status = page.getByRole("group", { name: "status", exact: true });
    assert.equal(await status.getByLabel("Allowed values").inputValue(), "open, paid");
    assert.equal(await page.getByRole("group", { name: "po_number", exact: true }).getByLabel("Required").isChecked(), true);

    // Text that is not JSON: the problem at its line, the fields keep the last good schema.
    await typeInEditor(page, editor, '{\n  "type": "object",\n  "properties": {\n');
    await page.getByTestId("text-problem").getByText(/^Invalid JSON at line 4/).waitFor();
    assert.deepEqual(await fieldPaths(page), ["po_number", "status", "buyer", "buyer.name"]);
    assert.equal(await page.getByTestId("schema-save").isDisabled(), true);

    // JSON the engine refuses: its rule, at its path, inline; no save.
    const refused = { type: "object", properties: { a: { type: "string", description: "A" } }, required: ["missing"] };
    await typeInEditor(page, editor, JSON.stringify(refused, null, 2));
    const problems = page.getByTestId("engine-problems");
    await problems.getByText('"required" names "missing", which "properties" does not list').waitFor();
    assert.equal(await problems.locator("code").first().innerText(), "/required/0");
    assert.equal(await page.getByTestId("schema-save").isDisabled(), true);
    const checked = await ipcCalls(page, "check_schema");
    assert.deepEqual(checked[checked.length - 1].args, { schema: refused });

    // Fixed: the engine accepts it, and it is saved as version 2.
    const fixed = { ...refused, required: ["a"] };
    await typeInEditor(page, editor, JSON.stringify(fixed, null, 2));
    await problems.getByText("The engine accepts this schema.").waitFor();
    await page.getByTestId("schema-save").click();
    await page.getByText("Saved invoice as version 2.").waitFor();
    assert.deepEqual((await ipcCalls(page, "save_schema")).map((c) => c.args), [{ name: "invoice", schema: fixed }]);
    assert.deepEqual(await library.getByRole("button").allInnerTexts(), ["invoice\nv2", "receipt\nv1"]);
    assert.deepEqual(await page.getByLabel("Version of invoice").locator("option").allInnerTexts(), ["v2 (latest)", "v1"]);
    assert.equal(await page.getByTestId("schema-save").isDisabled(), true);

    // An older version opens from the library.
    await page.getByLabel("Version of invoice").selectOption("1");
    await eventually(() => editorProperties(editor), ["invoice_number", "date", "total", "currency", "vendor"]);
    assert.deepEqual((await ipcCalls(page, "get_schema")).map((c) => c.args).slice(-1), [{ name: "invoice", version: 1 }]);
  });

  it("creates a schema from Extract's “New schema…”, which Extract then picks", async () => {
    const page = await app.open();
    await eventually(() => page.getByTestId("run-schema").inputValue(), "invoice");
    await page.getByRole("button", { name: "New schema…" }).click();
    await page.getByRole("heading", { name: "Schemas", level: 1 }).waitFor();
    await eventually(() => page.evaluate(() => document.activeElement?.id), "schema-name");
    assert.equal(await page.locator("#schema-name").inputValue(), "new_schema");
    assert.equal(await page.getByTestId("schema-version").innerText(), "not saved");
    await page.locator("#schema-name").fill("purchase_order");
    await page.getByRole("group", { name: "field", exact: true }).getByLabel("Name").fill("po_number");
    await page.getByRole("group", { name: "po_number", exact: true }).getByLabel("Description").fill("The PO number");
    await page.getByTestId("engine-problems").getByText("The engine accepts this schema.").waitFor();
    await page.getByTestId("schema-save").click();
    await page.getByText("Saved purchase_order as version 1.").waitFor();

    await page.getByTestId("nav-extract").click();
    await eventually(() => page.getByTestId("run-schema").inputValue(), "purchase_order");
    // A later pick in Extract stays when the user comes back.
    await page.getByTestId("run-schema").selectOption("receipt");
    await page.getByTestId("nav-settings").click();
    await page.getByTestId("nav-extract").click();
    await eventually(async () => (await ipcCalls(page, "list_schemas")).length, 5);
    // The answer is in and rendered: no command left unanswered, then a frame.
    await page.waitForFunction(() => window.__siftMock.inflight === 0);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    assert.equal(await page.getByTestId("run-schema").inputValue(), "receipt");
  });

  it("asks before dropping unsaved changes", async () => {
    const page = await app.open();
    const editor = await openSchemas(page);
    const library = page.getByTestId("schema-library");
    await library.getByRole("button", { name: /invoice/ }).click();
    await eventually(() => editorProperties(editor), ["invoice_number", "date", "total", "currency", "vendor"]);
    await page.getByRole("group", { name: "date", exact: true }).getByLabel("Description").fill("Issue date");
    await eventually(() => page.getByTestId("schema-version").innerText(), "version 1 · changed");

    await library.getByRole("button", { name: /receipt/ }).click();
    const ask = page.getByRole("alertdialog");
    await ask.getByText("invoice has unsaved changes. Discard them to open receipt?").waitFor();
    await ask.getByRole("button", { name: "Keep editing" }).click();
    assert.equal(await ask.count(), 0);
    assert.equal(await page.locator("#schema-name").inputValue(), "invoice");
    assert.equal((await editorJson(editor)).properties.date.description, "Issue date");

    await library.getByRole("button", { name: /receipt/ }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Discard changes" }).click();
    await eventually(() => editorProperties(editor), ["merchant", "amount"]);
    assert.equal(await page.locator("#schema-name").inputValue(), "receipt");
    // Nothing unsaved now: another schema opens at once.
    await library.getByRole("button", { name: /invoice/ }).click();
    await eventually(() => page.locator("#schema-name").inputValue(), "invoice");
    assert.equal(await page.getByRole("alertdialog").count(), 0);
  });

  it("shows the schema as a form, and imports and exports through the dialogs", async () => {
    const page = await app.open({ pickFiles: ["/home/user/schemas/purchase.json"] });
    const editor = await openSchemas(page);
    await page.getByRole("button", { name: "Import…" }).click();
    await page.getByText("Imported purchase (version 1).").waitFor();
    assert.deepEqual((await ipcCalls(page, "import_schema")).map((c) => c.args), [{ path: "/home/user/schemas/purchase.json", name: null }]);
    await eventually(() => editorProperties(editor), ["po_number"]);

    await page.getByRole("tab", { name: "Form preview" }).click();
    const form = page.getByRole("form", { name: "Form preview" });
    assert.deepEqual(await form.locator("label").allInnerTexts(), ["po_number *"]);

    await page.getByRole("button", { name: "Export…" }).click();
    await page.getByText("Exported purchase version 1 to /home/user/out/purchase.json.").waitFor();
    assert.deepEqual((await ipcCalls(page, "export_schema")).map((c) => c.args), [
      { name: "purchase", version: 1, path: "/home/user/out/purchase.json" },
    ]);
    assert.deepEqual((await ipcCalls(page, "pick_save_path")).map((c) => c.args.options.filters), [[{ name: "JSON Schema", extensions: ["json"] }]]);
  });
});
