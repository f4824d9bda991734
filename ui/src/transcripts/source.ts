// What the Transcripts screen needs from the app.
// `ui/src/backend/transcriptSource.ts` implements it over ui/src/ipc.ts;
// `memoryTranscriptSource` serves tests and the harness.
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
