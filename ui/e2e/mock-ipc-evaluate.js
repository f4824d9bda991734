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
function installEvaluateMock(scenario) {
  "use strict";
  scenario = scenario || {};
  const internals = window.__TAURI_INTERNALS__;
  const base = internals.invoke.bind(internals);
  const calls = window.__siftMock.calls;
  const clone = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
  const ipcError = (code, message) => ({ code, message });

  const sets = clone(
    scenario.labelledSets ?? [
      { name: "invoices", schemaName: "invoice", schemaVersion: 1, fields: ["invoice_number", "total"], source: "file invoices.tsv", documents: 3, createdAt: 1764000000000 },
    ],
  );
  const history = clone(scenario.evalHistory ?? []);
  let running = null; // {runId, channel, nextIndex, setName}
  let cancelled = null; // the runId cancel_evaluation stopped
  const finished = new Map(); // runId -> the EvalRunView it finished with
  const userPrices = clone(scenario.prices ?? []);
  const defaultPrices = clone(
    scenario.defaultPrices ?? [
      { providerId: "openai", model: "gpt-4o-mini", inputPerMtok: 0.15, outputPerMtok: 0.6 },
      { providerId: "openai", model: "gpt-4o", inputPerMtok: 2.5, outputPerMtok: 10 },
      { providerId: "anthropic", model: "claude-sonnet-4", inputPerMtok: 3, outputPerMtok: 15 },
    ],
  );
  // prices::price_table: the user's (by provider id, then model), then the defaults whose model they do not price.
  function priceTable() {
    const mine = [...userPrices].sort((a, b) => (a.providerId === b.providerId ? (a.model < b.model ? -1 : 1) : a.providerId < b.providerId ? -1 : 1));
    return [
      ...mine.map((p) => ({ ...p, source: "user" })),
      ...defaultPrices.filter((d) => !userPrices.some((p) => p.model === d.model)).map((p) => ({ ...p, source: "default" })),
    ];
  }
  // prices::price_for, the user's part: this provider's, then any provider's.
  function priced(view) {
    for (const c of view.candidates) {
      const mine = userPrices.find((p) => p.providerId === c.candidate.providerId && p.model === c.candidate.model) ?? userPrices.find((p) => p.providerId === "*" && p.model === c.candidate.model);
      if (mine) Object.assign(c, { cost: (c.inputTokens * mine.inputPerMtok + c.outputTokens * mine.outputPerMtok) / 1e6, priceSource: "user" });
    }
    return view;
  }

  function send(message) {
    if (running === null) throw new Error("no evaluation is running");
    const cb = internals.callbacks.get(running.channel);
    const index = running.nextIndex++;
    if (cb) cb(message === undefined ? { index, end: true } : { index, message });
  }
  function channelId(channel) {
    if (channel && typeof channel === "object" && typeof channel.id === "number") return channel.id;
    const match = /^__CHANNEL__:(\d+)$/.exec(String(channel));
    return match ? Number(match[1]) : null;
  }
  // The candidates' calls, as extraction jobs of mock-ipc.js, so that Transcripts opens them.
  function registerJobs(view) {
    const byCandidate = new Map();
    for (const d of view.disagreements) {
      d.values.forEach((v, i) => {
        if (v.callId === null) return;
        const c = view.candidates[i];
        if (!byCandidate.has(i)) byCandidate.set(i, new Map());
        byCandidate.get(i).set(v.callId, { path: d.path, value: v.value, field: d.field });
      });
    }
    for (const [i, callIds] of byCandidate) {
      const c = view.candidates[i];
      const id = c.jobId ?? `eval-job-${i}`;
      const rows = [...callIds.entries()].map(([callId, r], position) => ({
        position, path: r.path, status: "completed", modelValues: { [r.field]: r.value }, revised: null, error: null, errorCode: null,
        inputTokens: 800, outputTokens: 40, callId, evidence: [], checked: [],
      }));
      window.__siftMock.jobs.set(id, { id, schemaName: "invoice", schemaVersion: 1, schema: { type: "object", properties: {} }, providerId: "local", models: [c.candidate.model], status: "completed", createdAt: view.createdAt, finishedAt: view.createdAt + 60000, nextIndex: 0, cancelled: false, hold: false, runs: 1, rows, evaluation: true });
    }
  }
  function runningView(request, runId) {
    const v = clone(scenario.evalView);
    return { ...v, runId, setName: request.setName, status: "running", finishedAt: null,
      candidates: v.candidates.map((c) => ({ ...c, done: 0, failed: 0, pending: v.documents, reused: false })), pairs: [], disagreements: [] };
  }
  function storedView(runId) {
    return priced(finished.has(runId) ? clone(finished.get(runId)) : { ...clone(scenario.evalView), runId });
  }

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
    evaluation_history: ({ setName }) => clone(history.filter((h) => h.setName === undefined || h.setName === setName)),
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
    finish(patch = {}) {
      const raw = { ...clone(scenario.evalView), ...clone(patch), runId: running.runId, setName: running.setName };
      finished.set(raw.runId, clone(raw)); // priced again at each read
      const view = priced(raw);
      registerJobs(view);
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
