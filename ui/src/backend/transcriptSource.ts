// The Transcripts screen's source over the Tauri commands (ui/src/ipc.ts):
// structured calls (`call_…`), chat sessions (`ses_…`) and workflow steps
// (`RUN_ID/step`).
import * as ipc from "../ipc";
import type { Message } from "../transcripts/messages";
import type { Revision } from "../transcripts/revisions";
import type { TranscriptQuery, TranscriptSource, TranscriptSummary } from "../transcripts/source";
import type { Transcript, TranscriptMessage } from "../transcripts/timeline";
import { callTranscript, stepRecord, storedMessage } from "./mapping";

export type TranscriptIpc = Pick<typeof ipc, "listCalls" | "callTranscript" | "callRevisions" | "listSessions" | "sessionMessages" | "workflowRuns" | "workflowRun">;

const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

const FILE_BLOCK = /<file name="([^"]+)">/g;

/**
 * What a call was about: its kind, and the files it read: those the request
 * names, else the documents (`<file name="...">` blocks) in its user messages.
 */
export function callTitle(kind: string, request: unknown, transcript: unknown = null): string {
  const r = (request ?? {}) as Record<string, unknown>;
  let files = Array.isArray(r.files) ? r.files.filter((f): f is string => typeof f === "string") : typeof r.file === "string" ? [r.file] : [];
  if (files.length === 0 && Array.isArray(transcript)) {
    const text = transcript
      .filter((m): m is Message => m !== null && typeof m === "object" && (m as Message).role === "user" && Array.isArray((m as Message).parts))
      .flatMap((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")))
      .join("\n");
    files = [...new Set([...text.matchAll(FILE_BLOCK)].map((m) => m[1] as string))];
  }
  return files.length > 0 ? `${kind}: ${files.map(baseName).join(", ")}` : kind;
}

/** The revision tree as the screen's flat list (parents before children). */
export function revisionList(node: ipc.RevisionNode): Revision[] {
  const out: Revision[] = [];
  const walk = (n: ipc.RevisionNode) => {
    out.push({ id: n.call.id, parentId: n.call.parentId, createdAt: n.call.finishedAt, status: n.call.status, output: n.call.output ?? null, note: null });
    n.revisions.forEach(walk);
  };
  walk(node);
  return out;
}

function textOfMessages(messages: { message: Message }[]): string {
  return messages
    .flatMap(({ message }) => message.parts.map((p) => (p.type === "text" ? p.text : p.type === "tool_result" ? p.content : p.type === "tool_call" ? p.arguments : "")))
    .join("\n")
    .toLowerCase();
}

/** How many of the newest calls the list names by their documents. */
export const DETAILED = 50;

export function tauriTranscriptSource(api: TranscriptIpc = ipc): TranscriptSource {
  /** Calls' records, each read once: a finished call's record never changes. */
  const records = new Map<string, Promise<ipc.CallTranscript>>();
  function record(id: string): Promise<ipc.CallTranscript> {
    let found = records.get(id);
    if (found === undefined) {
      found = api.callTranscript(id);
      records.set(id, found);
      found.catch(() => records.delete(id));
    }
    return found;
  }
  /** A call's title and message count, for the list. */
  function detail(id: string) {
    return record(id).then(
      (c) => ({ title: callTitle(c.kind, c.request, c.transcript), messageCount: Array.isArray(c.transcript) ? c.transcript.length : 0 }),
      () => null,
    );
  }

  async function calls(text: string): Promise<TranscriptSummary[]> {
    const list = await api.listCalls(null, 500);
    // The list has no titles or counts: the newest calls' records give them (the IPC does not, see /tmp/lead-requests.md).
    const known = await Promise.all(list.map((c, i) => (i < DETAILED ? detail(c.id) : Promise.resolve(null))));
    return list
      .map((c, i) => ({ id: c.id, kind: "call" as const, title: known[i]?.title ?? c.kind, status: c.status, createdAt: c.finishedAt, messageCount: known[i]?.messageCount ?? 0 }))
      .filter((s) => text === "" || `${s.title} ${s.id}`.toLowerCase().includes(text));
  }

  async function sessions(text: string): Promise<TranscriptSummary[]> {
    return (await api.listSessions(text)).map((s) => ({ id: s.id, kind: "session" as const, title: s.title || "Untitled chat", status: null, createdAt: s.updatedAt, messageCount: 0 }));
  }

  async function steps(text: string): Promise<TranscriptSummary[]> {
    const runs = await api.workflowRuns(50);
    const views = await Promise.all(runs.map(async (r) => ({ run: r, view: await api.workflowRun(r.id) })));
    return views.flatMap(({ run, view }) =>
      view.steps
        .map((s) => ({ step: s, record: stepRecord(s) }))
        .filter(({ record }) => text === "" || `${baseName(run.file)} ${record.name}`.toLowerCase().includes(text) || textOfMessages(record.messages.map((message) => ({ message }))).includes(text))
        .map(({ step, record }) => ({
          id: `${run.id}/${step.name}`,
          kind: "step" as const,
          title: `${baseName(run.file)}: ${step.name}`,
          status: record.status,
          createdAt: run.createdAt,
          messageCount: record.messages.length,
        })),
    );
  }

  async function loadStep(id: string): Promise<Transcript> {
    const slash = id.indexOf("/");
    const runId = id.slice(0, slash);
    const name = id.slice(slash + 1);
    const view = await api.workflowRun(runId);
    const step = view.steps.find((s) => s.name === name);
    if (step === undefined) throw new Error(`run ${runId} has no step ${name}`);
    const record = stepRecord(step);
    return {
      id,
      title: name,
      kind: "step",
      status: record.status,
      systemPrompt: null,
      messages: record.messages.map((message) => ({ message })),
      usage: record.usage,
      error: record.error === null ? null : { message: record.error, category: null },
    };
  }

  async function loadSession(id: string): Promise<Transcript> {
    const [messages, list] = await Promise.all([api.sessionMessages(id), api.listSessions("")]);
    const session = list.find((s) => s.id === id);
    const rows: TranscriptMessage[] = messages.map(storedMessage).map((m) => ({ message: { role: m.role, parts: m.parts }, createdAt: m.created_at, id: m.id, seq: m.seq }));
    return { id, title: session?.title || "Untitled chat", kind: "session", status: null, systemPrompt: session?.systemPrompt ?? null, messages: rows, usage: null, error: null };
  }

  return {
    async list(query: TranscriptQuery) {
      const text = query.text?.trim().toLowerCase() ?? "";
      const parts = await Promise.all([
        query.kind === undefined || query.kind === "call" ? calls(text) : [],
        query.kind === undefined || query.kind === "session" ? sessions(text) : [],
        query.kind === undefined || query.kind === "step" ? steps(text) : [],
      ]);
      return parts.flat().sort((a, b) => b.createdAt - a.createdAt);
    },
    async load(id) {
      if (id.includes("/")) return loadStep(id);
      if (id.startsWith("ses_")) return loadSession(id);
      const call = await record(id);
      return callTranscript(call, callTitle(call.kind, call.request, call.transcript));
    },
    async revisions(id) {
      if (id.includes("/") || id.startsWith("ses_")) return [];
      return revisionList(await api.callRevisions(id));
    },
  };
}
