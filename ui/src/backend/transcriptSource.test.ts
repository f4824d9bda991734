import { describe, expect, it } from "vitest";
import type * as ipc from "../ipc";
import { callTitle, revisionList, tauriTranscriptSource, type TranscriptIpc } from "./transcriptSource";

function summary(id: string, parentId: string | null, finishedAt: number, output: unknown): ipc.CallSummary {
  return { id, kind: "extract", status: "completed", parentId, sessionId: null, output, error: null, errorCode: null, inputTokens: 1, outputTokens: 1, finishedAt };
}

const TREE: ipc.RevisionNode = {
  call: summary("call_root", null, 10, { total: 1 }),
  revisions: [
    { call: summary("call_b", "call_root", 30, { total: 3 }), revisions: [{ call: summary("call_c", "call_b", 40, { total: 4 }), revisions: [] }] },
    { call: summary("call_a", "call_root", 20, null), revisions: [] },
  ],
};

function fake() {
  const calls: string[] = [];
  const api: TranscriptIpc = {
    listCalls: async (kind, limit) => (calls.push(`listCalls ${kind} ${limit}`), [summary("call_root", null, 10, {}), { ...summary("call_x", null, 50, {}), kind: "ask" }]),
    callTranscript: async (callId) => (
      calls.push(`callTranscript ${callId}`),
      {
        id: callId,
        kind: callId === "call_x" ? "ask" : "extract",
        status: "failed",
        request: (callId === "call_x" ? { prompt: "Hi" } : { prompt: "Extract.", system: "Be exact.", files: ["/docs/invoice-1.pdf"] }) as ipc.JsonValue,
        response: null,
        output: null,
        transcript: [
          { role: "user", parts: [{ type: "text", text: "Extract." }] },
          { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: "submit_output", arguments: "{}" }] },
        ],
        error: "the model refused",
        errorCode: "refusal",
        inputTokens: 800,
        outputTokens: 40,
        createdAt: 1,
        finishedAt: 2,
        cli: "",
      }
    ),
    callRevisions: async (callId) => (calls.push(`callRevisions ${callId}`), TREE),
    listSessions: async (q) => (calls.push(`listSessions ${q}`), [{ id: "ses_1", title: "", systemPrompt: "You help.", modelChoice: null, createdAt: 1, updatedAt: 30, approvals: [], cutReply: null }]),
    sessionMessages: async () => [{ id: "msg_1", seq: 1, role: "user", parts: [{ type: "text", text: "hi" }], hidden: false, createdAt: 7 }],
    workflowRuns: async () => [{ id: "run_1", file: "/flows/two.yaml", status: "succeeded", fromRun: null, fromStep: null, createdAt: 40, finishedAt: 41 }],
    workflowRun: async (runId) => ({
      runId,
      status: "succeeded",
      steps: [
        { id: null, name: "Ask", status: "succeeded", stdout: "", stderr: "", outputs: {}, error: null, messages: [{ role: "assistant", parts: [{ type: "text", text: "Paris" }] }], inputTokens: 5, outputTokens: 1, elapsedMs: 3, reused: false },
        { id: null, name: "Echo", status: "failed", stdout: "", stderr: "", outputs: {}, error: "exit 1", messages: [], inputTokens: 0, outputTokens: 0, elapsedMs: 1, reused: false },
      ],
    }),
  };
  return { api, calls };
}

describe("transcript mapping", () => {
  it("titles a call by its kind and the files it read", () => {
    expect(callTitle("extract", { files: ["/a/b/invoice.pdf", "c.png"] })).toBe("extract: invoice.pdf, c.png");
    expect(callTitle("ask", { prompt: "x" })).toBe("ask");
    expect(callTitle("ask", null)).toBe("ask");
    const transcript = [
      { role: "system", parts: [{ type: "text", text: '<file name="not-this.pdf">' }] },
      { role: "user", parts: [{ type: "text", text: 'Extract.\n<file name="a.pdf">x</file>\n<file name="b.png">y</file>' }] },
      { role: "user", parts: [{ type: "text", text: '<file name="a.pdf">again</file>' }] },
    ];
    expect(callTitle("extract", { prompt: "Extract." }, transcript)).toBe("extract: a.pdf, b.png");
    expect(callTitle("extract", { files: ["/d/c.pdf"] }, transcript)).toBe("extract: c.pdf");
  });

  it("flattens the revision tree, parents first, keeping each parent and output", () => {
    expect(revisionList(TREE).map((r) => [r.id, r.parentId, r.createdAt, r.output])).toEqual([
      ["call_root", null, 10, { total: 1 }],
      ["call_b", "call_root", 30, { total: 3 }],
      ["call_c", "call_b", 40, { total: 4 }],
      ["call_a", "call_root", 20, null],
    ]);
  });
});

describe("tauriTranscriptSource", () => {
  it("lists calls, chats and workflow steps together, newest first, and filters by kind and text", async () => {
    const { api, calls } = fake();
    const source = tauriTranscriptSource(api);
    expect((await source.list({})).map((s) => [s.id, s.kind, s.title, s.createdAt, s.messageCount])).toEqual([
      ["call_x", "call", "ask", 50, 2],
      ["run_1/Ask", "step", "two.yaml: Ask", 40, 1],
      ["run_1/Echo", "step", "two.yaml: Echo", 40, 0],
      ["ses_1", "session", "Untitled chat", 30, 0],
      ["call_root", "call", "extract: invoice-1.pdf", 10, 2],
    ]);
    // A call's record is read once, however often the list is asked for.
    expect((await source.list({ kind: "call", text: "invoice-1" })).map((s) => s.id)).toEqual(["call_root"]);
    await source.load("call_root");
    expect(calls.filter((c) => c.startsWith("callTranscript")).sort()).toEqual(["callTranscript call_root", "callTranscript call_x"]);
    expect((await source.list({ kind: "step", text: "paris" })).map((s) => s.id)).toEqual(["run_1/Ask"]);
    expect((await source.list({ kind: "call", text: "ASK" })).map((s) => s.id)).toEqual(["call_x"]);
  });

  it("loads a call's tool loop with its system prompt, usage and categorised error", async () => {
    const t = await tauriTranscriptSource(fake().api).load("call_root");
    expect(t).toEqual({
      id: "call_root",
      title: "extract: invoice-1.pdf",
      kind: "call",
      status: "failed",
      systemPrompt: "Be exact.",
      messages: [
        { message: { role: "user", parts: [{ type: "text", text: "Extract." }] } },
        { message: { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: "submit_output", arguments: "{}" }] } },
      ],
      usage: { input_tokens: 800, output_tokens: 40 },
      error: { message: "the model refused", category: "refusal" },
    });
  });

  it("loads a chat session and a workflow step by their ids", async () => {
    const source = tauriTranscriptSource(fake().api);
    const session = await source.load("ses_1");
    expect(session).toMatchObject({ kind: "session", title: "Untitled chat", systemPrompt: "You help.", messages: [{ message: { role: "user", parts: [{ type: "text", text: "hi" }] }, id: "msg_1", seq: 1, createdAt: 7 }] });
    const step = await source.load("run_1/Echo");
    expect(step).toMatchObject({ id: "run_1/Echo", kind: "step", status: "failed", messages: [], error: { message: "exit 1", category: null } });
    await expect(source.load("run_1/Nope")).rejects.toThrow("run run_1 has no step Nope");
  });

  it("gives a call's revisions and none for chats and steps", async () => {
    const { api, calls } = fake();
    const source = tauriTranscriptSource(api);
    expect((await source.revisions("call_c")).map((r) => r.id)).toEqual(["call_root", "call_b", "call_c", "call_a"]);
    expect(await source.revisions("ses_1")).toEqual([]);
    expect(await source.revisions("run_1/Ask")).toEqual([]);
    expect(calls).toEqual(["callRevisions call_c"]);
  });
});
