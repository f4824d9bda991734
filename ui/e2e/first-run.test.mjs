// A newcomer's first minutes: the first-run hint, an empty library's way
// out ("Suggest a schema from this document" opens the model's schema in
// the editor, unsaved, for review), and a copy of a starter schema.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

const editorText = (page) => page.getByRole("textbox", { name: "Schema JSON" }).innerText();

describe("First run", () => {
  it("explains the local model and where data lives, until dismissed", async () => {
    const page = await app.open({ firstRun: true });
    const hint = page.getByTestId("first-run-hint");
    await hint.waitFor();
    assert.equal(await hint.getByRole("heading").innerText(), "Welcome to Sift");
    assert.match(await hint.innerText(), /Qwen2\.5-Coder-1\.5B, served by llama\.cpp\): nothing leaves the machine/);
    await eventually(() => page.getByTestId("first-run-db").innerText(), "/home/user/.local/share/sift/sift.db");
    // Its Settings link goes there.
    await hint.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Extract" }).click();
    await hint.getByRole("button", { name: "Got it" }).click();
    await eventually(() => hint.count(), 0);
    assert.equal(await page.evaluate(() => window.localStorage.getItem("sift.firstRunHint")), "dismissed");
  });

  it("a returning user does not see it", async () => {
    const page = await app.open();
    await page.getByRole("heading", { name: "Extract" }).waitFor();
    await page.getByTestId("dropzone").waitFor();
    assert.equal(await page.getByTestId("first-run-hint").count(), 0);
  });

  it("an empty library says how to get a schema, and the model suggests one from the document for review", async () => {
    const page = await app.open({ library: [] });
    await page.getByText("No schemas yet: create one with “New schema…”, or add a document and let the model suggest one.").waitFor();
    const suggest = page.getByTestId("suggest-schema");
    // Nothing to read yet.
    assert.equal(await suggest.isDisabled(), true);
    assert.equal(await suggest.getAttribute("title"), "Add a document first");
    await page.getByRole("button", { name: "Add files…" }).click();
    await eventually(() => suggest.isDisabled(), false);
    await suggest.click();

    // Schemas opens the suggestion, not saved, with its fields.
    await page.getByRole("heading", { name: "Schemas", level: 1 }).waitFor();
    await eventually(() => page.getByLabel("Name", { exact: true }).first().inputValue(), "delivery_note");
    assert.equal(await page.getByTestId("schema-version").innerText(), "not saved");
    await eventually(async () => {
      try {
        return Object.keys(JSON.parse(await editorText(page)).properties);
      } catch {
        return null;
      }
    }, ["note_number", "delivered_on", "lines"]);
    assert.equal(
      await page.getByTestId("schema-status").innerText(),
      "Suggested from invoice-001.pdf: review the fields and their descriptions, then “Save version”.",
    );
    const [call] = await ipcCalls(page, "suggest_schema");
    assert.deepEqual(call.args, { request: { file: "/home/user/docs/invoice-001.pdf", providerId: "local", model: null } });
    // Nothing was saved until the user does.
    assert.equal((await ipcCalls(page, "save_schema")).length, 0);
    await page.getByTestId("schema-save").click();
    await eventually(() => page.getByTestId("schema-version").innerText(), "version 1");
    const [saved] = await ipcCalls(page, "save_schema");
    assert.equal(saved.args.name, "delivery_note");
    assert.deepEqual(saved.args.schema.required, ["note_number", "delivered_on", "lines"]);

    // Back on Extract, it is the schema picked for the run.
    await page.getByRole("button", { name: "Extract" }).click();
    await eventually(() => page.getByLabel("Schema", { exact: true }).inputValue(), "delivery_note");
  });

  it("a failed suggestion says why and opens nothing", async () => {
    const page = await app.open({ suggestionFails: true });
    await page.getByRole("button", { name: "Add files…" }).click();
    await page.getByTestId("suggest-schema").click();
    await eventually(
      () => page.getByTestId("extract-status").innerText(),
      "Could not suggest a schema: the model named no field with a usable name",
    );
    assert.equal(await page.getByRole("heading", { name: "Extract", level: 1 }).isVisible(), true);
  });

  it("Duplicate makes an unsaved copy of a schema under a free name", async () => {
    const page = await app.open();
    await page.getByRole("button", { name: "Schemas" }).click();
    await page.getByTestId("schema-library").getByRole("button", { name: /invoice/ }).click();
    await eventually(() => page.getByLabel("Name", { exact: true }).first().inputValue(), "invoice");
    const original = await editorText(page);
    await page.getByTestId("schema-duplicate").click();
    await eventually(() => page.getByLabel("Name", { exact: true }).first().inputValue(), "invoice_copy");
    assert.equal(await page.getByTestId("schema-version").innerText(), "not saved");
    assert.equal(await editorText(page), original);
    await page.getByTestId("schema-save").click();
    await eventually(() => page.getByTestId("schema-version").innerText(), "version 1");
    // The library is read again after the save: it may show the copy a moment after the version.
    await eventually(
      () => page.getByTestId("schema-library").getByRole("button").allInnerTexts(),
      ["invoice\nv1", "invoice_copy\nv1", "receipt\nv1"],
    );
  });
});
