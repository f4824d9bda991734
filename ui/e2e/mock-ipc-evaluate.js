// @ts-check
// The Evaluate and Usage commands for the browser suite's IPC mock:
// installed after the other two mocks, it answers them from in-page state
// and hands every other command on. Calls are recorded in the same
// window.__siftMock.calls; a run's channel gets its events in Tauri's
// {index, message} framing, each only when the test sends it
// (window.__siftEvaluateMock.send(event) / .finish(patch)), so the test sees
// every state. A run finished (or in evalHistory) can be resumed: its
// channel is then the resume's. Prices follow the store's rules (the
// user's by provider and model, then by `*`; a default hidden by a price of
// the user's for its model; below 0 refused with the store's message), and
// a view (evaluation_run, finish) costs its candidates at the user's price.
// Its state is window.__siftEvaluateMock.
//
// Scenario keys:
//   labelledSets   [LabelledSetSummary] the sets (default: "invoices", 3 documents)
//   evalView       the EvalRunView a run finishes with (default: a 2-candidate run)
//   evalHistory    [EvalRunSummary] of the set (default: none); evaluation_run answers evalView
//   usage          the UsageReport usage_report answers
//   saveSetError   {code, message} save_job_as_labelled_set rejects with
//   prices         the user's prices [{providerId, model, inputPerMtok, outputPerMtok}] (default none)
//   defaultPrices  the defaults, as the Rust table's first rows (default: gpt-4o-mini, gpt-4o, claude-sonnet-4)
/* eslint-disable */
/** @param {MockScenario} scenario what the test asked for (browser.mjs always gives one) */
function installEvaluateMock(scenario) {
  "use strict";
  scenario = scenario || {};
  const internals = window.__TAURI_INTERNALS__;
  const base = internals.invoke.bind(internals);
  const calls = window.__siftMock.calls;
  /**
   * A deep copy, as a value that went through the IPC (`undefined` becomes `null`).
   * @template T
   * @param {T} v
   * @returns {T}
   */
  const clone = (v) => /** @type {T} */ (v === undefined ? null : JSON.parse(JSON.stringify(v)));
  /** @returns {import("../src/ipc").IpcError} */
  const ipcError = (code, message) => ({ code, message });

  /** @type {import("../src/ipc").LabelledSetSummary[]} */
  const sets = clone(
    scenario.labelledSets ?? [
      { name: "invoices", schemaName: "invoice", schemaVersion: 1, fields: ["invoice_number", "total"], source: "file invoices.tsv", documents: 3, createdAt: 1764000000000 },
    ],
  );
  // Each with the set it belongs to, which the binding does not carry (the
  // store asks by set); `undefined`: every set's.
  /** @type {(import("../src/ipc").EvalRunSummary & { setName?: string })[]} */
  const history = clone(scenario.evalHistory ?? []);
  /** @type {{ runId: string, channel: number | null, nextIndex: number, setName: string } | null} */
  let running = null;
  /** @type {string | null} the runId cancel_evaluation stopped */
  let cancelled = null;
  /** @type {Map<string, import("../src/ipc").EvalRunView>} runId -> the view it finished with */
  const finished = new Map();
  /** @typedef {Omit<import("../src/ipc").Price, "source">} PriceRow a price as the store keeps it */
  /** @type {PriceRow[]} */
  const userPrices = clone(scenario.prices ?? []);
  /** @type {PriceRow[]} */
  const defaultPrices = clone(
    scenario.defaultPrices ?? [
      { providerId: "openai", model: "gpt-4o-mini", inputPerMtok: 0.15, outputPerMtok: 0.6 },
      { providerId: "openai", model: "gpt-4o", inputPerMtok: 2.5, outputPerMtok: 10 },
      { providerId: "anthropic", model: "claude-sonnet-4", inputPerMtok: 3, outputPerMtok: 15 },
    ],
  );
  // prices::price_table: the user's (by provider id, then model), then the defaults whose model they do not price.
  /** @returns {import("../src/ipc").Price[]} */
  function priceTable() {
    const mine = [...userPrices].sort((a, b) => (a.providerId === b.providerId ? (a.model < b.model ? -1 : 1) : a.providerId < b.providerId ? -1 : 1));
    /** @type {(source: import("../src/ipc").PriceSource) => (p: PriceRow) => import("../src/ipc").Price} */
    const from = (source) => (p) => ({ ...p, source });
    return [...mine.map(from("user")), ...defaultPrices.filter((d) => !userPrices.some((p) => p.model === d.model)).map(from("default"))];
  }
  // prices::price_for, the user's part: this provider's, then any provider's.
  /**
   * @param {import("../src/ipc").EvalRunView} view
   * @returns {import("../src/ipc").EvalRunView}
   */
  function priced(view) {
    for (const c of view.candidates) {
      const mine = userPrices.find((p) => p.providerId === c.candidate.providerId && p.model === c.candidate.model) ?? userPrices.find((p) => p.providerId === "*" && p.model === c.candidate.model);
      if (mine) Object.assign(c, { cost: (c.inputTokens * mine.inputPerMtok + c.outputTokens * mine.outputPerMtok) / 1e6, priceSource: "user" });
    }
    return view;
  }

  /** @param {import("../src/ipc").EvaluateEvent | undefined} message */
  function send(message) {
    if (running === null) throw new Error("no evaluation is running");
    const cb = running.channel === null ? undefined : internals.callbacks.get(running.channel);
    const index = running.nextIndex++;
    if (cb) cb(message === undefined ? { index, end: true } : { index, message });
  }
  /** @returns {number | null} */
  function channelId(channel) {
    if (channel && typeof channel === "object" && typeof channel.id === "number") return channel.id;
    const match = /^__CHANNEL__:(\d+)$/.exec(String(channel));
    return match ? Number(match[1]) : null;
  }
  // The candidates' calls, as extraction jobs of mock-ipc.js, so that Transcripts opens them.
  /** @param {import("../src/ipc").EvalRunView} view */
  function registerJobs(view) {
    /** @type {Map<number, Map<string, { path: string, value: unknown, field: string }>>} */
    const byCandidate = new Map();
    for (const d of view.disagreements) {
      d.values.forEach((v, i) => {
        if (v.callId === null) return;
        const calls = byCandidate.get(i) ?? new Map();
        calls.set(v.callId, { path: d.path, value: v.value, field: d.field });
        byCandidate.set(i, calls);
      });
    }
    for (const [i, callIds] of byCandidate) {
      const c = view.candidates[i];
      const id = c.jobId ?? `eval-job-${i}`;
      /** @type {MockRow[]} */
      const rows = [...callIds.entries()].map(([callId, r], position) => ({
        position, path: r.path, status: "completed", modelValues: { [r.field]: r.value }, revised: null, error: null, errorCode: null,
        inputTokens: 800, outputTokens: 40, callId, evidence: [], checked: [],
      }));
      window.__siftMock.jobs.set(id, { id, schemaName: "invoice", schemaVersion: 1, schema: { type: "object", properties: {} }, providerId: "local", models: [c.candidate.model], status: "completed", createdAt: view.createdAt, finishedAt: view.createdAt + 60000, nextIndex: 0, cancelled: false, hold: false, runs: 1, rows, evaluation: true });
    }
  }
  /** The run's view as it finishes (scenario.evalView, which a test that runs an evaluation gives). */
  function scenarioView() {
    if (scenario.evalView === undefined) throw new Error("the scenario has no evalView for the evaluation to finish with");
    return clone(scenario.evalView);
  }
  /** @returns {import("../src/ipc").EvalRunView} */
  function runningView(request, runId) {
    const v = scenarioView();
    return { ...v, runId, setName: request.setName, status: "running", finishedAt: null,
      candidates: v.candidates.map((c) => ({ ...c, done: 0, failed: 0, pending: v.documents, reused: false })), pairs: [], disagreements: [] };
  }
  /** @returns {import("../src/ipc").EvalRunView} */
  function storedView(runId) {
    const stored = finished.get(runId);
    return priced(stored !== undefined ? clone(stored) : { ...scenarioView(), runId });
  }

  /** @type {MockCommands} */
  const commands = {
    list_labelled_sets: () => clone(sets),
    labelled_set: ({ name }) => {
      const set = sets.find((s) => s.name === name);
      if (!set) throw ipcError("not_found", `no labelled set ${name}`);
      return { set: clone(set), documents: [] };
    },
    import_labelled_set: ({ name, path, schemaName, schemaVersion }) => {
      const set = { name, schemaName, schemaVersion: schemaVersion ?? 1, fields: ["invoice_number", "total"], source: `file ${String(path).split("/").pop()}`, documents: 5, createdAt: Date.now() };
      sets.push(set);
      return clone(set);
    },
    save_job_as_labelled_set: ({ jobId, name }) => {
      if (scenario.saveSetError) throw clone(scenario.saveSetError);
      const job = window.__siftMock.jobs.get(jobId);
      if (!job) throw ipcError("not_found", `no job ${jobId}`);
      const set = { name, schemaName: job.schemaName, schemaVersion: job.schemaVersion, fields: ["invoice_number", "date", "total", "currency"], source: `job ${jobId}`, documents: job.rows.filter((r) => r.status === "completed").length, createdAt: Date.now() };
      sets.push(set);
      return clone(set);
    },
    export_labelled_set: ({ name }) => sets.find((s) => s.name === name)?.documents ?? 0,
    delete_labelled_set: ({ name }) => {
      const i = sets.findIndex((s) => s.name === name);
      if (i >= 0) sets.splice(i, 1);
      return i >= 0;
    },
    start_evaluation: ({ request, events }) => {
      const runId = `run-${history.length + 1}`;
      running = { runId, channel: channelId(events), nextIndex: 0, setName: request.setName };
      return runningView(request, runId);
    },
    resume_evaluation: ({ runId, events }) => {
      const known = finished.has(runId) || history.some((h) => h.runId === runId);
      if (!known) throw ipcError("not_found", `no evaluation run ${runId}`);
      if (running !== null && running.runId === runId) throw ipcError("usage", `evaluation ${runId} is already running`);
      const view = storedView(runId);
      running = { runId, channel: channelId(events), nextIndex: 0, setName: view.setName };
      cancelled = null;
      return { ...view, status: "running", finishedAt: null };
    },
    cancel_evaluation: ({ runId }) => {
      const stopped = running !== null && running.runId === runId;
      if (stopped) cancelled = runId;
      return stopped;
    },
    evaluation_run: ({ runId }) => {
      const v = storedView(runId);
      registerJobs(v);
      return v;
    },
    // The set a history entry belongs to is the mock's own (the store asks by set): not in the answer.
    evaluation_history: ({ setName }) =>
      clone(history.filter((h) => h.setName === undefined || h.setName === setName)).map(({ setName: _ofSet, ...summary }) => summary),
    price_table: () => priceTable(),
    // The store's checks and messages (crates/store/src/evaluation.rs), as CoreError::Store sends them.
    set_price: ({ providerId, model, inputPerMtok, outputPerMtok }) => {
      const ok = (p) => typeof p === "number" && Number.isFinite(p) && p >= 0;
      if (!ok(inputPerMtok) || !ok(outputPerMtok)) throw ipcError("store", "storage: invalid input: a price is a number of at least 0");
      const row = { providerId: String(providerId).trim(), model: String(model).trim(), inputPerMtok, outputPerMtok };
      if (row.providerId === "" || row.model === "") throw ipcError("store", "storage: invalid input: a price needs a provider and a model");
      const i = userPrices.findIndex((p) => p.providerId === row.providerId && p.model === row.model);
      if (i >= 0) userPrices[i] = row;
      else userPrices.push(row);
      return priceTable();
    },
    delete_price: ({ providerId, model }) => {
      const i = userPrices.findIndex((p) => p.providerId === providerId && p.model === model);
      if (i >= 0) userPrices.splice(i, 1);
      return priceTable();
    },
    usage_report: () => clone(scenario.usage ?? { rows: [], count: 0, inputTokens: 0, outputTokens: 0, cost: 0, unpricedRows: 0 }),
  };

  internals.invoke = async function invoke(cmd, args) {
    const handler = commands[cmd];
    if (handler === undefined) return base(cmd, args);
    calls.push({ cmd, args: clone(args ?? {}) });
    window.__siftMock.inflight++;
    try {
      await new Promise((r) => setTimeout(r, scenario.latency ?? 5));
      return await handler(args ?? {});
    } finally {
      window.__siftMock.inflight--;
    }
  };

  window.__siftEvaluateMock = {
    /** Whether a run was started (its channel is open). */
    get running() {
      return running !== null;
    },
    /** Sends one event of the running evaluation (runId filled in). */
    send(event) {
      if (running === null) throw new Error("no evaluation is running");
      send({ runId: running.runId, ...event });
    },
    /** The runId cancel_evaluation stopped (null before, and again once resumed). */
    get cancelled() {
      return cancelled;
    },
    /**
     * Sends `finished` with scenario.evalView (its fields replaced by
     * `patch`'s, e.g. {status: "cancelled", candidates}), then closes the
     * channel; the run joins the history (or its entry there is replaced).
     */
    /** @param {Partial<import("../src/ipc").EvalRunView>} [patch] */
    finish(patch = {}) {
      if (running === null) throw new Error("no evaluation is running");
      /** @type {import("../src/ipc").EvalRunView} */
      const raw = { ...scenarioView(), ...clone(patch), runId: running.runId, setName: running.setName };
      finished.set(raw.runId, clone(raw)); // priced again at each read
      const view = priced(raw);
      registerJobs(view);
      /** @type {(typeof history)[number]} */
      const entry = { runId: view.runId, status: view.status, createdAt: view.createdAt, candidates: view.candidates.map((c) => c.candidate.label), overall: view.candidates.map((c) => c.overall), setName: view.setName };
      const i = history.findIndex((h) => h.runId === view.runId);
      if (i >= 0) history[i] = entry;
      else history.unshift(entry);
      send({ kind: "finished", runId: running.runId, view });
      send(undefined);
      running = null;
    },
  };
}
