import { describe, expect, it } from "vitest";
import type * as ipc from "../ipc";
import { bubbles, type ChatEvent } from "../chat/model";
import { chatEventMapper, tauriChatSource, type ChatIpc } from "./chatSource";
import { storedMessage } from "./mapping";

const SESSION: ipc.SessionView = {
  id: "ses_1",
  title: "Invoices of March",
  systemPrompt: null,
  modelChoice: "gpt-4o-mini",
  createdAt: 100,
  updatedAt: 200,
  approvals: [{ callId: "call_a", name: "read_document", arguments: '{"path":"/tmp/a.txt"}', reads: "/tmp/a.txt" }],
  cutReply: null,
};

function view(status = "completed"): ipc.ChatTurnView {
  return { status, reply: "", session: SESSION, messages: [] };
}

type Calls = { cmd: string; args: unknown[] }[];

function fake(turnEvents: ipc.ChatTurnEvent[] = [], end: ipc.ChatTurnView | { code: string; message: string } = view()) {
  const calls: Calls = [];
  const record = (cmd: string, ...args: unknown[]) => calls.push({ cmd, args });
  const play = (on: (e: ipc.ChatTurnEvent) => void) =>
    new Promise<ipc.ChatTurnView>((resolve, reject) =>
      setTimeout(() => {
        for (const e of turnEvents) on(e);
        if ("code" in end) reject(end);
        else resolve(end);
      }, 0),
    );
  const api: ChatIpc = {
    listSessions: async (q) => (record("listSessions", q), [SESSION, { ...SESSION, id: "ses_2", title: "", approvals: [] }]),
    newSession: async (title, system) => (record("newSession", title, system), { ...SESSION, id: "ses_new", title, modelChoice: null, approvals: [] }),
    updateSession: async (id, change) => (record("updateSession", id, change), { ...SESSION, id, modelChoice: change.modelChoice || null }),
    sessionMessages: async (id) => (record("sessionMessages", id), []),
    branchSession: async (id, seq) => (record("branchSession", id, seq), { ...SESSION, id: "ses_branch" }),
    discardCutReply: async (id) => (record("discardCutReply", id), true),
    sendChatMessage: (id, text, choice, on, files) => (record("sendChatMessage", id, text, choice, files), play(on)),
    answerApproval: (id, callId, approved, choice, on) => (record("answerApproval", id, callId, approved, choice), play(on)),
    stopChatTurn: async (key) => (record("stopChatTurn", key), true),
    describeAttachments: async (paths) => {
      record("describeAttachments", paths);
      if (paths.some((p) => p.endsWith(".bin"))) throw { code: "document", message: "unsupported file type: x.bin" };
      return paths.map((path) => ({ path, name: path.split("/").pop() ?? "", chars: 10, images: 0 }));
    },
    writeExport: async (path, content) => void record("writeExport", path, content),
    pickSavePath: async (options) => (record("pickSavePath", options), options?.defaultName === "cancel.md" ? null : `/out/${options?.defaultName ?? ""}`),
    getSettings: async () => ({
      settings: {
        providers: [
          { id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null },
          { id: "work", kind: "openai", label: "Work", baseUrl: "http://x/v1", apiKeyEnv: null },
          { id: "down", kind: "openai", label: "Down", baseUrl: "http://y/v1", apiKeyEnv: null },
        ],
        defaultProvider: "local",
        defaultModel: null,
        dataDir: null,
      },
      configPath: "",
      dbPath: "",
      defaultBaseUrls: { local: "", openai: "", anthropic: "" },
      defaultAnswers: { local: "located", openai: "free", anthropic: "free" },
      modelOverrides: [],
    }),
    listModels: async (p) => {
      if (p.id === "down") throw { code: "network", message: "refused" };
      return p.id === "local" ? ["smollm2"] : ["gpt-4o-mini", "smollm2"];
    },
    onFileDrop: async () => () => undefined,
  };
  return { api, calls };
}

function collect(): { events: ChatEvent[]; ended: Promise<void>; on: (e: ChatEvent) => void } {
  const events: ChatEvent[] = [];
  let done = () => undefined as void;
  const ended = new Promise<void>((r) => (done = r));
  return {
    events,
    ended,
    on: (e) => {
      events.push(e);
      if (e.kind === "done" || e.kind === "error") done();
    },
  };
}

describe("storedMessage", () => {
  it("maps the stored parts, keeping tool calls' argument text and tool results' errors", () => {
    expect(
      storedMessage({
        id: "msg_1",
        seq: 3,
        role: "assistant",
        hidden: false,
        createdAt: 5,
        parts: [
          { type: "text", text: "Let me read it." },
          { type: "tool_call", id: "c1", name: "read_document", arguments: '{"path":"/a"}' },
          { type: "tool_result", call_id: "c1", content: "denied", is_error: true },
          { type: "mystery" },
        ],
      }),
    ).toEqual({
      id: "msg_1",
      seq: 3,
      role: "assistant",
      hidden: false,
      created_at: 5,
      metadata: {},
      parts: [
        { type: "text", text: "Let me read it." },
        { type: "tool_call", id: "c1", name: "read_document", arguments: '{"path":"/a"}' },
        { type: "tool_result", call_id: "c1", content: "denied", is_error: true },
      ],
    });
  });
});

describe("chatEventMapper", () => {
  it("maps each event and sums usage into done", () => {
    const out: ChatEvent[] = [];
    const m = chatEventMapper((e) => out.push(e));
    const input: ipc.ChatTurnEvent[] = [
      { kind: "started", key: "chat-1" },
      { kind: "text", text: "Hi" },
      { kind: "toolStarted", id: "c1", name: "read_document" },
      { kind: "toolFinished", id: "c1", name: "read_document", content: "text", isError: false },
      { kind: "usage", inputTokens: 10, outputTokens: 2 },
      { kind: "usage", inputTokens: 30, outputTokens: 5 },
      { kind: "approvalRequired", id: "c2", name: "read_document", arguments: "{}", reads: null },
      { kind: "done" },
    ];
    input.forEach(m.map);
    expect(out).toEqual([
      { kind: "text_delta", text: "Hi" },
      { kind: "tool_call_started", id: "c1", name: "read_document" },
      { kind: "tool_call_finished", id: "c1", name: "read_document", content: "text", is_error: false },
      { kind: "usage", usage: { input_tokens: 10, output_tokens: 2 } },
      { kind: "usage", usage: { input_tokens: 30, output_tokens: 5 } },
      { kind: "approval_required", id: "c2", name: "read_document", arguments: "{}", reads: null },
      { kind: "done", usage: { input_tokens: 40, output_tokens: 7 } },
    ]);
    expect(m.ended()).toBe(true);
  });

  it("maps an error's code to its category", () => {
    const out: ChatEvent[] = [];
    chatEventMapper((e) => out.push(e)).map({ kind: "error", code: "auth", message: "401" });
    expect(out).toEqual([{ kind: "error", category: "auth", message: "401" }]);
  });
});

describe("tauriChatSource", () => {
  it("lists sessions with a snippet of the matched title, and reads a session's waiting approvals", async () => {
    const { api, calls } = fake();
    const source = tauriChatSource(api);
    const list = await source.listSessions(" march ");
    expect(list[0]).toEqual({ id: "ses_1", title: "Invoices of March", model_choice: "gpt-4o-mini", created_at: 100, updated_at: 200, snippet: "Invoices of March" });
    expect(list[1]?.snippet).toBeUndefined();
    expect(calls[0]).toEqual({ cmd: "listSessions", args: ["march"] });
    expect(await source.pendingApprovals("ses_1")).toEqual([{ id: "call_a", name: "read_document", arguments: '{"path":"/tmp/a.txt"}', reads: "/tmp/a.txt", created_at: 0 }]);
    expect(await source.pendingApprovals("ses_2")).toEqual([]);
  });

  it("offers auto and each provider's models (the first provider of a name wins; one that fails offers none), and sends a model with its provider", async () => {
    const { api, calls } = fake([{ kind: "started", key: "chat-3" }, { kind: "done" }]);
    const source = tauriChatSource(api);
    expect(await source.models()).toEqual([
      { id: "auto", label: "Auto (a refused turn goes to the next model)" },
      { id: "smollm2", label: "smollm2 (Local model)" },
      { id: "gpt-4o-mini", label: "gpt-4o-mini (Work)" },
    ]);
    const a = collect();
    await source.send("ses_1", { text: "hello", attachments: ["/a.txt"], model: "gpt-4o-mini" }, a.on);
    await a.ended;
    const b = collect();
    await source.send("ses_1", { text: "again", attachments: [], model: "auto" }, b.on);
    await b.ended;
    const sends = calls.filter((c) => c.cmd === "sendChatMessage");
    expect(sends).toEqual([
      { cmd: "sendChatMessage", args: ["ses_1", "hello", { providerId: "work", model: "gpt-4o-mini" }, ["/a.txt"]] },
      { cmd: "sendChatMessage", args: ["ses_1", "again", { providerId: null, model: null }, []] },
    ]);
  });

  it("ends a turn that stopped or waits for approval with done, and one that failed with error", async () => {
    const stopped = fake([{ kind: "started", key: "chat-1" }, { kind: "text", text: "Hal" }], view("stopped"));
    const s = collect();
    const handle = await tauriChatSource(stopped.api).send("ses_1", { text: "x", attachments: [], model: null }, s.on);
    await handle.stop();
    await s.ended;
    expect(s.events).toEqual([
      { kind: "text_delta", text: "Hal" },
      { kind: "done", usage: { input_tokens: 0, output_tokens: 0 } },
    ]);
    expect(stopped.calls).toContainEqual({ cmd: "stopChatTurn", args: ["chat-1"] });

    const failed = fake([{ kind: "started", key: "chat-2" }], { code: "network", message: "connection refused" });
    const f = collect();
    await tauriChatSource(failed.api).send("ses_1", { text: "x", attachments: [], model: null }, f.on);
    await f.ended;
    expect(f.events).toEqual([{ kind: "error", category: "network", message: "connection refused" }]);
  });

  it("answers an approval with the model the session's turn used", async () => {
    const { api, calls } = fake([{ kind: "started", key: "k" }, { kind: "toolFinished", id: "call_a", name: "read_document", content: "42", isError: false }, { kind: "text", text: "It says 42." }, { kind: "done" }]);
    const source = tauriChatSource(api);
    await source.models();
    const first = collect();
    await source.send("ses_1", { text: "read it", attachments: [], model: "smollm2" }, first.on);
    await first.ended;
    const second = collect();
    await source.resolveApproval("ses_1", "call_a", true, second.on);
    await second.ended;
    expect(calls.find((c) => c.cmd === "answerApproval")).toEqual({ cmd: "answerApproval", args: ["ses_1", "call_a", true, { providerId: "local", model: "smollm2" }] });
    expect(second.events.map((e) => e.kind)).toEqual(["tool_call_finished", "text_delta", "done"]);
  });

  it("creates a session with its model, edits by branching, and saves exports through the save dialog", async () => {
    const { api, calls } = fake([{ kind: "started", key: "k" }, { kind: "done" }]);
    const source = tauriChatSource(api);
    expect((await source.createSession({ model_choice: "smollm2" })).model_choice).toBe("smollm2");
    expect(calls.slice(0, 2)).toEqual([
      { cmd: "newSession", args: ["", null] },
      { cmd: "updateSession", args: ["ses_new", { title: null, modelChoice: "smollm2" }] },
    ]);
    await source.updateSession("ses_1", { model_choice: null });
    expect(calls[2]).toEqual({ cmd: "updateSession", args: ["ses_1", { title: null, modelChoice: "" }] });
    const e = collect();
    const result = await source.editAndRegenerate("ses_1", 3, "edited", null, e.on);
    expect(result.sessionId).toBe("ses_branch");
    expect(calls.slice(3, 5)).toEqual([
      { cmd: "branchSession", args: ["ses_1", 3] },
      { cmd: "sendChatMessage", args: ["ses_branch", "edited", { providerId: null, model: null }, []] },
    ]);
    expect(await source.saveExport("chat.md", "# Chat")).toBe(true);
    expect(await source.saveExport("cancel.md", "# no")).toBe(false);
    expect(calls.filter((c) => c.cmd === "writeExport")).toEqual([{ cmd: "writeExport", args: ["/out/chat.md", "# Chat"] }]);
  });

  it("describes attachments, and when one is refused says which", async () => {
    const source = tauriChatSource(fake().api);
    expect(await source.attach(["/d/a.txt"])).toEqual([{ path: "/d/a.txt", name: "a.txt", chars: 10, images: 0, error: null }]);
    expect(await source.attach(["/d/a.txt", "/d/x.bin"])).toEqual([
      { path: "/d/a.txt", name: "a.txt", chars: 10, images: 0, error: null },
      { path: "/d/x.bin", name: "x.bin", chars: 0, images: 0, error: "unsupported file type: x.bin" },
    ]);
  });

  it("shows a turn waiting for approval: the question, the reply so far and the waiting call, until it resumes", async () => {
    const { api } = fake(
      [
        { kind: "started", key: "k" },
        { kind: "text", text: "Let me read it." },
        { kind: "toolStarted", id: "call_a", name: "read_document" },
        { kind: "approvalRequired", id: "call_a", name: "read_document", arguments: '{"path":"/tmp/a.txt"}', reads: "/tmp/a.txt" },
      ],
      view("awaitingApproval"),
    );
    let stored: ipc.MessageView[] = [{ id: "msg_1", seq: 1, role: "user", parts: [{ type: "text", text: "hi" }], hidden: false, createdAt: 5 }];
    let approvals = SESSION.approvals;
    api.sessionMessages = async () => stored;
    api.listSessions = async () => [{ ...SESSION, approvals }];
    const source = tauriChatSource(api);
    const turn = collect();
    await source.send("ses_1", { text: "read /tmp/a.txt", attachments: [], model: null }, turn.on);
    await turn.ended;
    expect(turn.events.at(-1)).toEqual({ kind: "done", usage: { input_tokens: 0, output_tokens: 0 } });
    const shown = await source.messages("ses_1");
    expect(shown.map((m) => [m.seq, m.role, m.parts])).toEqual([
      [1, "user", [{ type: "text", text: "hi" }]],
      [2, "user", [{ type: "text", text: "read /tmp/a.txt" }]],
      [3, "assistant", [{ type: "text", text: "Let me read it." }, { type: "tool_call", id: "call_a", name: "read_document", arguments: '{"path":"/tmp/a.txt"}' }]],
    ]);
    expect(shown[2]?.metadata).toEqual({ pending: true });
    // After a restart only the waiting call is known.
    expect((await tauriChatSource(api).messages("ses_1")).map((m) => [m.seq, m.role, m.parts.map((p) => p.type)])).toEqual([
      [1, "user", ["text"]],
      [2, "assistant", ["tool_call"]],
    ]);
    // Resumed: the store has the messages, nothing is added.
    approvals = [];
    stored = [...stored, { id: "msg_2", seq: 2, role: "user", parts: [{ type: "text", text: "read /tmp/a.txt" }], hidden: false, createdAt: 6 }];
    expect((await source.messages("ses_1")).map((m) => m.id)).toEqual(["msg_1", "msg_2"]);
  });

  it("shows a reply a crash cut after the stored messages, marked with the message to send again", async () => {
    const { api } = fake();
    api.sessionMessages = async () => [{ id: "msg_1", seq: 1, role: "user", parts: [{ type: "text", text: "hi" }], hidden: false, createdAt: 5 }];
    api.listSessions = async () => [{ ...SESSION, approvals: [], cutReply: { prompt: "What is the total?", reply: "The total is", cutAt: 9 } }];
    const shown = await tauriChatSource(api).messages("ses_1");
    expect(shown.map((m) => [m.seq, m.role, m.parts, m.metadata])).toEqual([
      [1, "user", [{ type: "text", text: "hi" }], {}],
      [2, "user", [{ type: "text", text: "What is the total?" }], { cut: true }],
      [3, "assistant", [{ type: "text", text: "The total is" }], { cut_prompt: "What is the total?" }],
    ]);
    expect(bubbles(shown).map((b) => b.cutPrompt)).toEqual([undefined, undefined, "What is the total?"]);
  });

  it("names a new chat after its first message, once", async () => {
    const { api, calls } = fake([{ kind: "started", key: "k" }, { kind: "done" }]);
    const source = tauriChatSource(api);
    const created = await source.createSession({ model_choice: null });
    for (const text of ["  What   do my notes\nsay about the meeting on Tuesday morning?", "And then?"]) {
      const t = collect();
      await source.send(created.id, { text, attachments: [], model: null }, t.on);
      await t.ended;
    }
    expect(calls.map((c) => c.cmd)).toEqual(["newSession", "updateSession", "sendChatMessage", "sendChatMessage"]);
    expect(calls[1]).toEqual({ cmd: "updateSession", args: ["ses_new", { title: "What do my notes say about the meeting…", modelChoice: null }] });
  });
});

