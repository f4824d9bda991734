// @ts-check
// The workflow, chat and transcript commands for the browser
// suite's IPC mock: installed after mock-ipc.js, it answers them from
// in-page state and hands every other command to mock-ipc.js. Calls are
// recorded in the same window.__siftMock.calls; channels get their events in
// Tauri's {index, message} framing. Its own state is window.__siftWorkflowsChatTranscriptsMock.
//
// Scenario keys (beside mock-ipc.js's):
//   workflowFiles   {absolute path: text} of the folder pick_folder returns
//   pickFolder      what the folder dialog returns (default /home/user/flows)
//   stepScript      {step name: {status, stdout, stderr, outputs, error, delay}}
//   stepDelay       ms each step runs (default 120)
//   holdSteps       each step, once started, waits for releaseSteps() (the test
//                   sees every state however slow the machine; see releaseSteps)
//   commandsAllowed the folder's shell commands were allowed in an earlier session:
//                   run_workflow does not refuse with consent_needed
//   chatDelay       ms between streamed words (default 40)
//   holdChat        a reply streams this many words, then waits for releaseChat()
//                   (or the stop button); once released, no reply is held again
//   longSession     messages in the session "Long history" (ses_long), e.g. 10000
//   fileContents    {path: text} what read_document reads
//   callRevisions   [{id, parentId, output}] revisions of calls (what `sift revise` makes)
/* eslint-disable */
/** @param {MockScenario} scenario what the test asked for (browser.mjs always gives one) */
function installWorkflowsChatTranscriptsMock(scenario) {
  "use strict";
  scenario = scenario || {};
  const internals = window.__TAURI_INTERNALS__;
  const base = internals.invoke.bind(internals);
  const calls = window.__siftMock.calls;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  /** Gates a test opens: `wait()` resolves once `open()` was called (or at once when not held). */
  function gate(held) {
    let permits = 0;
    let free = !held;
    const waiting = [];
    const flush = () => {
      while (waiting.length > 0 && (free || permits > 0)) {
        if (!free) permits--;
        waiting.shift()();
      }
    };
    return {
      wait: () => new Promise((resolve) => (waiting.push(resolve), flush())),
      open(n) {
        if (n === undefined) free = true;
        else permits += n;
        flush();
      },
      get waiting() {
        return waiting.length;
      },
    };
  }
  const stepGate = gate(Boolean(scenario.holdSteps));
  const chatGate = gate(scenario.holdChat !== undefined);
  /**
   * A deep copy, as a value that went through the IPC (`undefined` becomes `null`).
   * @template T
   * @param {T} v
   * @returns {T}
   */
  const clone = (v) => /** @type {T} */ (v === undefined ? null : JSON.parse(JSON.stringify(v)));
  /** @returns {import("../src/ipc").IpcError} */
  const ipcError = (code, message) => ({ code, message });
  /** @param {string} p */
  const baseName = (p) => String(p).split("/").pop() ?? "";

  function channelId(channel) {
    if (channel && typeof channel === "object" && typeof channel.id === "number") return channel.id;
    const match = /^__CHANNEL__:(\d+)$/.exec(String(channel));
    return match ? Number(match[1]) : null;
  }
  /**
   * A channel to send messages on, in order.
   * @template M the channel's event binding (WorkflowRunEvent, ChatTurnEvent, ...)
   * @returns {(message: M) => void}
   */
  function channel(arg) {
    const id = channelId(arg);
    let index = 0;
    return (message) => {
      const cb = internals.callbacks.get(id);
      if (cb) cb({ index: index++, message });
    };
  }

  // ---------------------------------------------------------------- workflows
  const FOLDER = scenario.pickFolder ?? "/home/user/flows";
  const TWO = [
    "# Two steps: fetch a greeting, then shout it.",
    "params: WHO=world             # who to greet",
    "steps:",
    "  - id: fetch                 # first",
    "    run: echo hello",
    "    output: GREETING",
    "",
    "  - id: shout",
    "    depends: fetch            # after fetch",
    '    run: echo "${GREETING}!"',
    "",
  ].join("\n");
  const files = new Map(Object.entries(scenario.workflowFiles ?? { [`${FOLDER}/two.yaml`]: TWO }));
  /** @type {MockRun[]} newest first */
  const runs = [];
  /** @type {Map<string, MockRun>} key -> run */
  const runKeys = new Map();
  /** @type {{ dir: string, send: (event: import("../src/ipc").WorkflowFileEvent) => void } | null} */
  let watch = null;
  let counter = 0;

  /**
   * The first document's steps, in file order.
   * @param {string} text
   * @returns {{ name: string, id: string | null, depends: string[], command: string }[]}
   */
  function stepsOf(text) {
    const doc = text.split(/^---\s*$/m)[0];
    const lines = doc.split("\n");
    const start = lines.findIndex((l) => /^steps:\s*(#.*)?$/.test(l));
    if (start < 0) return [];
    /** @type {{ name: string | null, id: string | null, depends: string[], command: string }[]} */
    const steps = [];
    /** @type {(typeof steps)[number] | null} */
    let cur = null;
    let inDepends = false;
    // A value's wrapping quotes go (`"a b"`, `'a'`); a quote inside it stays (`echo "x"`).
    const value = (s) => s.replace(/\s+#.*$/, "").trim().replace(/^(["'])(.*)\1$/, "$2");
    for (const line of lines.slice(start + 1)) {
      if (/^\S/.test(line)) break;
      const item = /^ {2}- (.*)$/.exec(line);
      const field = item ? item[1] : (/^ {4}(\S.*)$/.exec(line) ?? [])[1];
      if (item) {
        cur = { name: null, id: null, depends: [], command: "" };
        steps.push(cur);
        inDepends = false;
      }
      if (!cur) continue;
      const listItem = /^ {6}- (.*)$/.exec(line);
      if (inDepends && listItem) {
        cur.depends.push(value(listItem[1]));
        continue;
      }
      if (field === undefined) continue;
      inDepends = false;
      const kv = /^([a-z_]+):\s*(.*)$/.exec(field);
      if (!kv) continue;
      const [, key, raw] = kv;
      if (key === "id") cur.id = value(raw);
      else if (key === "name") cur.name = value(raw);
      else if (key === "run" || key === "command") cur.command = value(raw);
      else if (key === "depends") {
        const v = value(raw);
        if (v === "") inDepends = true;
        else cur.depends = v.startsWith("[") ? v.slice(1, -1).split(",").map((s) => s.trim()).filter(Boolean) : [v];
      }
    }
    return steps.map((s, i) => ({ ...s, name: s.name ?? s.id ?? `step${i + 1}` }));
  }

  /**
   * Every shell command of the folder's files, as core's workflows::consent lists them
   * (the main DAG's steps here), and their fingerprint (the list as JSON: a mock's).
   * @param {string} folder
   * @returns {import("../src/ipc").WorkflowCommands}
   */
  function folderCommands(folder) {
    const inFolder = [...files.entries()].filter(([p]) => p.slice(0, p.lastIndexOf("/")) === folder).sort(([a], [b]) => baseName(a).localeCompare(baseName(b)));
    const commands = inFolder.flatMap(([p, text]) =>
      stepsOf(text)
        .filter((s) => s.command !== "")
        .map((s) => ({ file: baseName(p), dag: null, step: s.id ?? s.name, command: s.command, env: [] })),
    );
    return { folder, fingerprint: JSON.stringify(commands), commands };
  }
  /** `folder\nfingerprint` of each consent recorded. */
  const allowedCommands = new Set();
  /** @param {string} folder */
  function consentNeeded(folder) {
    const listing = folderCommands(folder);
    const lines = listing.commands.map((c) => `- ${c.file} ${c.step}: ${c.command}`);
    return ipcError("consent_needed", `the workflows in ${folder} run shell commands you have not allowed yet:\n${lines.join("\n")}`);
  }

  function problemsOf(text) {
    const steps = stepsOf(text);
    const known = new Set(steps.flatMap((s) => [s.name, s.id].filter(Boolean)));
    return steps.flatMap((s) => s.depends.filter((d) => !known.has(d)).map((d) => `step '${s.name}': depends on non-existent step ${d}`));
  }

  /**
   * @param {{ name: string, id: string | null }} step
   * @param {Partial<import("../src/ipc").StepView>} [fields]
   * @returns {import("../src/ipc").StepView}
   */
  function stepView(step, fields) {
    return { id: step.id, name: step.name, status: "succeeded", stdout: "", stderr: "", outputs: {}, error: null, messages: [], inputTokens: 0, outputTokens: 0, elapsedMs: 0, reused: false, ...fields };
  }

  /** @returns {Promise<import("../src/ipc").WorkflowRunView>} */
  async function runWorkflow({ request, onEvent }) {
    /** @type {(event: import("../src/ipc").WorkflowRunEvent) => void} */
    const send = channel(onEvent);
    const text = files.get(request.path);
    if (text === undefined) throw ipcError("io", `cannot read ${request.path}: No such file or directory (os error 2)`);
    const problems = problemsOf(text);
    if (problems.length > 0) throw ipcError("workflow", `Validation failed for ${request.path}\n- ${problems.join("\n- ")}`);
    const dir = request.path.slice(0, request.path.lastIndexOf("/"));
    const listing = folderCommands(dir);
    if (listing.commands.length > 0 && !scenario.commandsAllowed && !allowedCommands.has(`${dir}\n${listing.fingerprint}`)) throw consentNeeded(dir);
    const key = `wfrun-${++counter}`;
    const earlier = request.fromRun ? runs.find((r) => r.id === request.fromRun) : null;
    if (request.fromRun && !earlier) throw ipcError("not_found", `no run ${request.fromRun}`);
    /** @type {MockRun} */
    const run = { id: `run_${counter}`, file: request.path, status: "running", fromRun: request.fromRun ?? null, fromStep: request.fromStep ?? null, createdAt: Date.now(), finishedAt: null, steps: [], cancelled: false, params: request.params };
    runs.unshift(run);
    runKeys.set(key, run);
    send({ kind: "started", key });
    await sleep(20);
    send({ kind: "runCreated", runId: run.id });
    const steps = stepsOf(text);
    // A re-run reuses the steps before the one it starts from (in file order).
    const from = request.fromStep ? steps.findIndex((s) => s.name === request.fromStep) : 0;
    /** @type {Map<string, import("../src/ipc").StepView>} */
    const done = new Map();
    for (const [i, step] of steps.entries()) {
      /** @type {import("../src/ipc").StepView} */
      let view;
      const parents = step.depends.map((d) => done.get(d));
      if (i < from && earlier) {
        const old = earlier.steps.find((s) => s.name === step.name);
        // A step the earlier run did not have (the file changed since) runs as new, reused in name only.
        view = old ? { ...old, reused: true } : stepView(step, { reused: true });
      } else if (run.cancelled) {
        view = stepView(step, { status: "cancelled" });
      } else if (parents.some((p) => p && p.status !== "succeeded")) {
        view = stepView(step, { status: "skipped" });
      } else {
        send({ kind: "stepStarted", name: step.name });
        const script = (scenario.stepScript ?? {})[step.name] ?? {};
        await stepGate.wait();
        await sleep(script.delay ?? scenario.stepDelay ?? 120);
        const echo = /^echo\s+(.*)$/.exec(step.command);
        const stdout = script.stdout ?? (echo ? `${echo[1].replace(/^"|"$/g, "")}\n` : "");
        if (stdout) send({ kind: "stdout", name: step.name, text: stdout });
        if (script.stderr) send({ kind: "stderr", name: step.name, text: script.stderr });
        view = stepView(step, { status: run.cancelled ? "cancelled" : (script.status ?? "succeeded"), stdout, stderr: script.stderr ?? "", outputs: script.outputs ?? {}, error: script.error ?? null, elapsedMs: script.delay ?? scenario.stepDelay ?? 120 });
      }
      done.set(step.name, view);
      if (step.id) done.set(step.id, view);
      run.steps.push(view);
      send({ kind: "stepFinished", step: view });
    }
    run.status = run.cancelled ? "cancelled" : run.steps.some((s) => s.status === "failed") ? "failed" : "succeeded";
    run.finishedAt = Date.now();
    runKeys.delete(key);
    return { runId: run.id, status: run.status, steps: clone(run.steps) };
  }

  /**
   * @param {MockRun} r
   * @returns {import("../src/ipc").WorkflowRunSummary}
   */
  const summary = (r) => ({ id: r.id, file: r.file, status: r.status, fromRun: r.fromRun, fromStep: r.fromStep, createdAt: r.createdAt, finishedAt: r.finishedAt });

  // scenario.interruptedRun: the first file's run that Sift closed on (a crash) while its second step ran,
  // as core stores it: the run and that step `interrupted`, the first step succeeded.
  if (scenario.interruptedRun) {
    const [path, text] = [...files.entries()][0];
    const [first, second] = stepsOf(text);
    runs.unshift({
      id: "run_crashed",
      file: path,
      status: "interrupted",
      fromRun: null,
      fromStep: null,
      createdAt: 1764400000000,
      finishedAt: null,
      steps: [stepView(first, { stdout: "hello\n", outputs: { GREETING: "hello" }, elapsedMs: 5 }), stepView(second, { status: "interrupted" })],
    });
  }

  // ---------------------------------------------------------------- chat
  /** @type {Map<string, MockSession>} id -> session */
  const sessions = new Map();
  /** @type {Map<string, MockTurn>} key -> turn */
  const turnKeys = new Map();
  let ids = 0;
  /** @type {Record<string, string>} path -> text */
  const contents = { "/home/user/notes.txt": "Meeting moved to Tuesday 10:00, room 4.", ...(scenario.fileContents ?? {}) };

  /** @returns {MockSession} */
  function newSession(title, systemPrompt, at) {
    const id = `ses_${String(++ids).padStart(4, "0")}`;
    /** @type {MockSession} */
    const s = { view: { id, title, systemPrompt: systemPrompt ?? null, modelChoice: null, createdAt: at ?? Date.now(), updatedAt: at ?? Date.now() }, messages: [], pending: [], cutReply: null };
    sessions.set(id, s);
    return s;
  }
  /**
   * @param {MockSession} s
   * @param {string} role
   * @param {Record<string, unknown>[]} parts
   * @param {number} [at]
   */
  function addMessage(s, role, parts, at) {
    /** @type {import("../src/ipc").MessageView} */
    const m = { id: `msg_${++ids}`, seq: s.messages.length + 1, role, parts, hidden: false, createdAt: at ?? Date.now() };
    s.messages.push(m);
    s.view.updatedAt = Math.max(s.view.updatedAt, m.createdAt);
    return m;
  }
  /**
   * @param {MockSession} s
   * @returns {import("../src/ipc").SessionView}
   */
  const sessionView = (s) => ({ ...clone(s.view), approvals: s.pending.map((p) => ({ callId: p.id, name: p.name, arguments: p.arguments, reads: p.reads })), cutReply: clone(s.cutReply) });
  /** @returns {MockSession} */
  function getSession(id) {
    const s = sessions.get(id);
    if (!s) throw ipcError("not_found", `no session ${id}`);
    return s;
  }
  const textOf = (m) => m.parts.map((p) => (p.type === "text" ? p.text : p.type === "tool_result" ? p.content : "")).join("");

  // A seeded chat, and on demand a long one (the 10,000-message transcript).
  const seeded = newSession("Invoice questions", null, 1764000000000);
  addMessage(seeded, "user", [{ type: "text", text: "Which invoices are overdue?" }], 1764000000000);
  addMessage(seeded, "assistant", [{ type: "text", text: "INV-002, due 2024-04-30." }], 1764000001000);
  // scenario.cutReply: the seeded chat's next reply, cut when Sift closed (a crash) as it streamed.
  if (scenario.cutReply) seeded.cutReply = { prompt: scenario.cutReply.prompt, reply: scenario.cutReply.reply, cutAt: 1764000002000 };
  if (scenario.longSession) {
    const long = newSession("Long history", null, 1763000000000);
    sessions.delete(long.view.id);
    long.view.id = "ses_long";
    sessions.set("ses_long", long);
    for (let i = 0; i < scenario.longSession; i++) {
      const role = i % 2 === 0 ? "user" : "assistant";
      long.messages.push({ id: `msg_long_${i}`, seq: i + 1, role, parts: [{ type: "text", text: `${role === "user" ? "Question" : "Answer"} ${i + 1}` }], hidden: false, createdAt: 1763000000000 + i });
    }
  }

  /** Streams `reply` word by word; resolves false when the turn was stopped. */
  async function stream(send, turn, reply) {
    let said = "";
    let words = 0;
    for (const word of reply.split(/(?<= )/)) {
      if (words++ === scenario.holdChat) await Promise.race([chatGate.wait(), turn.stoppedNow]);
      await sleep(scenario.chatDelay ?? 40);
      if (turn.stopped) return { said, stopped: true };
      said += word;
      send({ kind: "text", text: word });
    }
    return { said, stopped: false };
  }

  function startTurn(onEvent) {
    /** @type {(event: import("../src/ipc").ChatTurnEvent) => void} */
    const send = channel(onEvent);
    const key = `chat-${++counter}`;
    /** @type {() => void} */
    let stop = () => {};
    const stoppedNow = new Promise((resolve) => (stop = () => resolve(undefined)));
    /** @type {MockTurn} */
    const turn = { stopped: false, stoppedNow, stop };
    turnKeys.set(key, turn);
    send({ kind: "started", key });
    return { send, turn, end: () => turnKeys.delete(key) };
  }

  /** @returns {Promise<import("../src/ipc").ChatTurnView>} */
  async function sendChat({ sessionId, text, files: attached, onEvent }) {
    const s = getSession(sessionId);
    // As core does: a new turn replaces the session's cut reply.
    s.cutReply = null;
    const { send, turn, end } = startTurn(onEvent);
    const parts = [{ type: "text", text }];
    for (const path of attached ?? []) parts.push({ type: "text", text: `<file name="${baseName(path)}">${contents[path] ?? "…"}</file>` });
    const before = s.messages.length;
    addMessage(s, "user", parts);
    if (!s.view.title) s.view.title = text.slice(0, 40);
    const path = /(~?\/[\w./-]*\w)/.exec(text)?.[1];
    if (path && /\bread\b/i.test(text)) {
      // The model asks for read_document, which always needs approval.
      const { said } = await stream(send, turn, "Let me read it. ");
      const call = { id: `call_${++ids}`, name: "read_document", arguments: JSON.stringify({ path }) };
      // As core shows the file the call reads: `~` is the home folder.
      const reads = path.replace(/^~\//, "/home/user/");
      // As the store does, a suspended turn's messages are held aside (not in session_messages) until it resumes.
      s.held = [s.messages.splice(before)[0].parts, [{ type: "text", text: said }, { type: "tool_call", ...call }]];
      s.pending.push({ ...call, reads });
      send({ kind: "toolStarted", id: call.id, name: call.name });
      send({ kind: "usage", inputTokens: 210, outputTokens: 14 });
      send({ kind: "approvalRequired", ...call, reads });
      end();
      return { status: "awaitingApproval", reply: "", session: sessionView(s), messages: [] };
    }
    const { said, stopped } = await stream(send, turn, `You said: ${text}`);
    end();
    if (stopped) {
      // Nothing of a stopped turn is stored.
      s.messages.splice(before);
      return { status: "stopped", reply: "", session: sessionView(s), messages: [] };
    }
    addMessage(s, "assistant", [{ type: "text", text: said }]);
    send({ kind: "usage", inputTokens: 100 + 10 * s.messages.length, outputTokens: said.split(" ").length });
    send({ kind: "done" });
    return { status: "completed", reply: said, session: sessionView(s), messages: clone(s.messages.slice(before)) };
  }

  /** @returns {Promise<import("../src/ipc").ChatTurnView>} */
  async function answerApproval({ sessionId, callId, approved, onEvent }) {
    const s = getSession(sessionId);
    const call = s.pending.find((p) => p.id === callId);
    if (!call) throw ipcError("not_found", `no call ${callId} waits for approval in ${sessionId}`);
    s.pending = s.pending.filter((p) => p !== call);
    const { send, turn, end } = startTurn(onEvent);
    const before = s.messages.length;
    if (s.held) {
      addMessage(s, "user", s.held[0]);
      addMessage(s, "assistant", s.held[1]);
      s.held = null;
    }
    const path = JSON.parse(call.arguments).path;
    const content = approved ? (contents[path] ?? `cannot read ${path}`) : "The user denied this tool call.";
    await sleep(scenario.chatDelay ?? 40);
    addMessage(s, "tool", [{ type: "tool_result", call_id: callId, content, is_error: !approved }]);
    send({ kind: "toolFinished", id: callId, name: call.name, content, isError: !approved });
    const reply = approved ? `The notes say: ${content}` : "I could not read the file.";
    const { said } = await stream(send, turn, reply);
    end();
    addMessage(s, "assistant", [{ type: "text", text: said }]);
    send({ kind: "usage", inputTokens: 260, outputTokens: said.split(" ").length });
    send({ kind: "done" });
    return { status: "completed", reply: said, session: sessionView(s), messages: clone(s.messages.slice(before)) };
  }

  // ---------------------------------------------------------------- transcripts
  /** The extraction rows of mock-ipc.js that have a call, by call id. */
  function extractionCalls() {
    /** @type {Map<string, { job: MockJob, row: MockRow }>} */
    const out = new Map();
    for (const job of window.__siftMock.jobs.values()) {
      for (const row of job.rows) if (row.callId && row.status !== "pending") out.set(row.callId, { job, row });
    }
    return out;
  }
  // Revisions of calls, as `sift revise ID TEXT` makes them (a correction in Extract is not one: it is the row's own revision).
  const callRevisions = scenario.callRevisions ?? [];
  /** The extraction row a call (or a revision of it, however deep) belongs to. */
  function rowOf(callId) {
    let id = callId;
    for (let i = 0; i < 20; i++) {
      const found = extractionCalls().get(id);
      if (found) return found;
      const revision = callRevisions.find((r) => r.id === id);
      if (!revision) return null;
      id = revision.parentId;
    }
    return null;
  }
  /** @returns {import("../src/ipc").CallSummary | null} */
  function callSummary(callId) {
    const found = rowOf(callId);
    if (!found) return null;
    const { job, row } = found;
    const revision = callRevisions.find((r) => r.id === callId);
    const failed = row.status === "failed";
    const at = job.finishedAt ?? Date.now();
    if (revision) {
      return { id: callId, kind: "extract", status: "completed", parentId: revision.parentId, sessionId: null, output: clone(revision.output), error: null, errorCode: null, inputTokens: 900, outputTokens: 30, finishedAt: at + 1000 * (callRevisions.indexOf(revision) + 1) };
    }
    return {
      id: callId,
      kind: "extract",
      status: failed ? "failed" : "completed",
      parentId: null,
      sessionId: null,
      output: failed ? null : clone(row.modelValues),
      error: row.error,
      errorCode: row.errorCode,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      finishedAt: at,
    };
  }
  /** @returns {import("../src/ipc").CallTranscript} */
  function callTranscript(callId) {
    const s = callSummary(callId);
    const found = rowOf(callId);
    if (!s || !found) throw ipcError("not_found", `no call ${callId}`);
    const { row } = found;
    const name = baseName(row.path);
    const values = JSON.stringify(row.modelValues ?? {});
    const attempt = JSON.stringify({ ...(row.modelValues ?? {}), total: "twelve" });
    const transcript = [
      { role: "system", parts: [{ type: "text", text: "You extract typed values from documents. Answer with submit_output." }] },
      { role: "user", parts: [{ type: "text", text: `Extract the fields of the schema from this document.\n<file name="${name}">[document: 1 page]</file>` }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: "submit_output", arguments: attempt }] },
      { role: "tool", parts: [{ type: "tool_result", call_id: "t1", content: `Output rejected: /total: "twelve" is not of type "number".\n${"The schema requires a number here.\n".repeat(12)}`, is_error: true }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "t2", name: "submit_output", arguments: values }] },
      { role: "tool", parts: [{ type: "tool_result", call_id: "t2", content: "Output accepted." }] },
    ];
    return {
      id: callId,
      kind: "extract",
      status: s.status,
      request: { prompt: "Extract the fields of the schema from this document.", system: null, files: [row.path] },
      response: null,
      // CallSummary's output is `unknown` in its binding, the transcript's a JsonValue: the same stored value.
      output: /** @type {import("../src/ipc").JsonValue} */ (s.output),
      transcript: s.status === "failed" ? transcript.slice(0, 4) : transcript,
      error: s.error,
      errorCode: s.errorCode,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      createdAt: s.finishedAt - 1000,
      finishedAt: s.finishedAt,
      cli: `sift calls show ${callId}`,
    };
  }
  /** @returns {import("../src/ipc").RevisionNode} */
  function revisionTree(callId) {
    let root = callSummary(callId);
    while (root !== null && root.parentId !== null) root = callSummary(root.parentId);
    if (root === null) throw ipcError("not_found", `no call ${callId}`);
    /**
     * @param {import("../src/ipc").CallSummary} call
     * @returns {import("../src/ipc").RevisionNode}
     */
    const node = (call) => ({
      call,
      revisions: callRevisions.flatMap((r) => {
        const revision = r.parentId === call.id ? callSummary(r.id) : null;
        return revision === null ? [] : [node(revision)];
      }),
    });
    return node(root);
  }

  // ---------------------------------------------------------------- commands
  /** @type {MockCommands} */
  const commands = {
    pick_folder: () => FOLDER,
    list_workflows: ({ dir }) =>
      [...files.keys()]
        .filter((p) => p.slice(0, p.lastIndexOf("/")) === dir)
        .sort()
        .map((path) => ({ path, name: baseName(path) })),
    read_workflow: ({ path }) => {
      const text = files.get(path);
      if (text === undefined) throw ipcError("io", `cannot read ${path}: No such file or directory (os error 2)`);
      return { path, text, problems: problemsOf(text) };
    },
    save_workflow: ({ path, text }) => {
      files.set(path, text);
      return problemsOf(text);
    },
    check_workflow: ({ text }) => problemsOf(text),
    watch_workflows: ({ dir, onChange }) => {
      watch = { dir, send: channel(onChange) };
      return null;
    },
    run_workflow: runWorkflow,
    workflow_commands: ({ folder }) => folderCommands(folder),
    allow_workflow_commands: ({ folder, fingerprint }) => {
      if (folderCommands(folder).fingerprint !== fingerprint) throw consentNeeded(folder);
      allowedCommands.add(`${folder}\n${fingerprint}`);
      return null;
    },
    cancel_workflow_run: ({ key }) => {
      const run = runKeys.get(key);
      if (!run) return false;
      run.cancelled = true;
      return true;
    },
    workflow_runs: ({ limit }) => runs.slice(0, limit).map(summary),
    workflow_run: ({ runId }) => {
      const run = runs.find((r) => r.id === runId);
      if (!run) throw ipcError("not_found", `no run ${runId}`);
      return { runId: run.id, status: run.status, steps: clone(run.steps) };
    },

    list_sessions: ({ query }) => {
      const q = String(query ?? "").toLowerCase();
      return [...sessions.values()]
        .filter((s) => q === "" || s.view.title.toLowerCase().includes(q) || s.messages.some((m) => textOf(m).toLowerCase().includes(q)))
        .sort((a, b) => b.view.updatedAt - a.view.updatedAt)
        .map(sessionView);
    },
    new_session: ({ title, systemPrompt }) => sessionView(newSession(title, systemPrompt)),
    delete_session: ({ sessionId }) => sessions.delete(sessionId),
    discard_cut_reply: ({ sessionId }) => {
      const s = getSession(sessionId);
      const had = s.cutReply !== null;
      s.cutReply = null;
      return had;
    },
    session_messages: ({ sessionId }) => clone(getSession(sessionId).messages),
    branch_session: ({ sessionId, beforeSeq }) => {
      const from = getSession(sessionId);
      const s = newSession(`${from.view.title} (edited)`, from.view.systemPrompt);
      s.view.modelChoice = from.view.modelChoice;
      for (const m of from.messages.filter((m) => m.seq < beforeSeq)) addMessage(s, m.role, clone(m.parts));
      return sessionView(s);
    },
    update_session: ({ sessionId, change }) => {
      const s = getSession(sessionId);
      if (change.title !== null && change.title !== undefined) s.view.title = change.title;
      if (change.modelChoice !== null && change.modelChoice !== undefined) s.view.modelChoice = change.modelChoice === "" ? null : change.modelChoice;
      return sessionView(s);
    },
    // Typed here because the answer is built from the argument (an untyped one would make it `any`, unchecked).
    /** @param {{ paths: string[] }} args */
    describe_attachments: ({ paths }) =>
      paths.map((path) => {
        if (path.endsWith(".bin")) throw ipcError("document", `${baseName(path)}: unsupported file type`);
        return { path, name: baseName(path), chars: (contents[path] ?? "").length || 1000, images: path.endsWith(".png") ? 1 : 0 };
      }),
    write_export: () => null,
    send_chat_message: sendChat,
    answer_approval: answerApproval,
    stop_chat_turn: ({ key }) => {
      const turn = turnKeys.get(key);
      if (!turn) return false;
      turn.stopped = true;
      turn.stop();
      return true;
    },

    list_calls: ({ kind, limit }) =>
      [...extractionCalls().keys(), ...callRevisions.map((r) => r.id)]
        .map(callSummary)
        .filter((c) => c !== null)
        .filter((c) => kind === null || kind === undefined || c.kind === kind)
        .sort((a, b) => b.finishedAt - a.finishedAt)
        .slice(0, limit ?? 200),
    call_transcript: ({ callId }) => callTranscript(callId),
    call_revisions: ({ callId }) => revisionTree(callId),
  };

  internals.invoke = async function invoke(cmd, args) {
    const handler = commands[cmd];
    if (handler === undefined) return base(cmd, args);
    calls.push({ cmd, args: clone(args ?? {}) });
    window.__siftMock.inflight++;
    try {
      await sleep(scenario.latency ?? 5);
      return await handler(args ?? {});
    } finally {
      window.__siftMock.inflight--;
    }
  };

  window.__siftWorkflowsChatTranscriptsMock = {
    files,
    runs,
    sessions,
    /** With scenario.holdSteps: lets `n` more steps run (all of them, from now on, without `n`). */
    releaseSteps(n) {
      stepGate.open(n);
    },
    /** Steps started and waiting for releaseSteps. */
    get heldSteps() {
      return stepGate.waiting;
    },
    /** With scenario.holdChat: lets the held reply (and every later one) stream on. */
    releaseChat() {
      chatGate.open();
    },
    /** Replies waiting for releaseChat. */
    get heldReplies() {
      return chatGate.waiting;
    },
    /** A change on disk in the watched folder, as the watcher reports it. */
    changeOnDisk(path, text) {
      files.set(path, text);
      if (watch) watch.send({ kind: "changed", path, text, problems: problemsOf(text) });
    },
  };
}
