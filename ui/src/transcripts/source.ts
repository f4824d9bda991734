// What the Transcripts screen needs from the app. The lead wires
// `TranscriptSource` to the IPC (call_transcript and the session and
// workflow-step reads); `memoryTranscriptSource` serves tests and the harness.
import type { Message } from "./messages";
import type { Revision } from "./revisions";
import type { Transcript } from "./timeline";

export interface TranscriptSummary {
  id: string;
  kind: Transcript["kind"];
  title: string;
  status: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  messageCount: number;
}

export interface TranscriptQuery {
  kind?: Transcript["kind"];
  /** Matches titles and message text, case-insensitively. */
  text?: string;
}

export interface TranscriptSource {
  /** Newest first. */
  list(query: TranscriptQuery): Promise<TranscriptSummary[]>;
  load(id: string): Promise<Transcript>;
  /** A structured call's revision tree: the call it started from and every revision of it (calls only; [] otherwise). */
  revisions(callId: string): Promise<Revision[]>;
}

function matches(t: Transcript, text: string): boolean {
  const needle = text.toLowerCase();
  if (t.title.toLowerCase().includes(needle)) return true;
  return t.messages.some(({ message }) => message.parts.some((p) => (p.type === "text" ? p.text : p.type === "tool_result" ? p.content : p.type === "tool_call" ? p.arguments : "").toLowerCase().includes(needle)));
}

export function memoryTranscriptSource(transcripts: (Transcript & { createdAt: number })[], revisions: Revision[] = []): TranscriptSource {
  return {
    async list(query) {
      return transcripts
        .filter((t) => (query.kind === undefined || t.kind === query.kind) && (query.text === undefined || query.text === "" || matches(t, query.text)))
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((t) => ({ id: t.id, kind: t.kind, title: t.title, status: t.status, createdAt: t.createdAt, messageCount: t.messages.length }));
    },
    async load(id) {
      const found = transcripts.find((t) => t.id === id);
      if (found === undefined) throw new Error(`no transcript ${id}`);
      return found;
    },
    async revisions(callId) {
      const byId = new Map(revisions.map((r) => [r.id, r]));
      if (!byId.has(callId)) return [];
      let root = byId.get(callId) as Revision;
      while (root.parentId !== null && byId.has(root.parentId)) root = byId.get(root.parentId) as Revision;
      const family = new Set([root.id]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const r of revisions) {
          if (r.parentId !== null && family.has(r.parentId) && !family.has(r.id)) {
            family.add(r.id);
            grew = true;
          }
        }
      }
      return revisions.filter((r) => family.has(r.id));
    },
  };
}

/** The IPC's record of a structured call (bindings/CallTranscript.ts), as far as a timeline needs it. */
export interface CallRecord {
  id: string;
  kind: string;
  status: string;
  request: unknown;
  output: unknown;
  transcript: unknown;
  error: string | null;
  errorCode: string | null;
  inputTokens: number;
  outputTokens: number;
}

function isMessage(value: unknown): value is Message {
  const m = value as Message;
  return m !== null && typeof m === "object" && typeof m.role === "string" && Array.isArray(m.parts);
}

/**
 * A call's record as a transcript. Its stored tool loop is the timeline;
 * without one (a call in a session), the request's prompt stands for it.
 */
export function callTranscript(call: CallRecord, title = call.kind): Transcript {
  const stored = Array.isArray(call.transcript) ? call.transcript.filter(isMessage) : [];
  const request = (call.request ?? {}) as Record<string, unknown>;
  const messages = stored.length > 0 ? stored : typeof request.prompt === "string" ? [{ role: "user" as const, parts: [{ type: "text" as const, text: request.prompt }] }] : [];
  return {
    id: call.id,
    title,
    kind: "call",
    status: call.status,
    systemPrompt: typeof request.system === "string" ? request.system : null,
    messages: messages.map((message) => ({ message })),
    usage: { input_tokens: call.inputTokens, output_tokens: call.outputTokens },
    error: call.error !== null ? { message: call.error, category: call.errorCode } : null,
  };
}
