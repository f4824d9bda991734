import { useEffect, useMemo, useState } from "react";
import { revisionTree, type Revision } from "./revisions";
import { RevisionTree } from "./RevisionTree";
import { usageText } from "./RowView";
import type { TranscriptSource, TranscriptSummary } from "./source";
import { Timeline } from "./Timeline";
import { timelineRows, type Transcript } from "./timeline";

interface Props {
  source: TranscriptSource;
  /** Open this transcript (e.g. from an extraction row); a new value opens it. */
  initial?: string;
}

const KINDS: { value: Transcript["kind"] | "all"; label: string }[] = [
  { value: "all", label: "All" },
  { value: "call", label: "Structured calls" },
  { value: "session", label: "Chats" },
  { value: "step", label: "Workflow steps" },
];

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Transcripts: every structured call, chat and workflow step as a readable timeline. */
export function TranscriptsScreen({ source, initial }: Props) {
  const [kind, setKind] = useState<Transcript["kind"] | "all">("all");
  const [query, setQuery] = useState("");
  const [list, setList] = useState<TranscriptSummary[]>([]);
  const [open, setOpen] = useState<string | null>(initial ?? null);
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [revisions, setRevisions] = useState<Revision[]>([]);
  const [error, setError] = useState<string | null>(null);

  // Another screen may ask for a transcript while this one stays mounted.
  useEffect(() => {
    if (initial !== undefined) setOpen(initial);
  }, [initial]);

  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      source.list({ kind: kind === "all" ? undefined : kind, text: query.trim() || undefined }).then(
        (l) => live && setList(l),
        (e) => live && setError(message(e)),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [source, kind, query]);

  useEffect(() => {
    if (open === null) return;
    let live = true;
    setError(null);
    Promise.all([source.load(open), source.revisions(open)]).then(
      ([t, r]) => {
        if (!live) return;
        setTranscript(t);
        setRevisions(r);
      },
      (e) => live && setError(`Could not open ${open}: ${message(e)}`),
    );
    return () => {
      live = false;
    };
  }, [source, open]);

  const rows = useMemo(() => (transcript === null ? [] : timelineRows(transcript)), [transcript]);
  const tree = useMemo(() => revisionTree(revisions), [revisions]);

  return (
    <section className="screen tr-screen" aria-labelledby="transcripts-title">
      <div className="screen-head">
        <h1 id="transcripts-title" tabIndex={-1}>
          Transcripts
        </h1>
      </div>
      <div className="tr-main">
        <nav className="tr-list stack" aria-label="Transcripts">
          <div className="chips" role="group" aria-label="Kind">
            {KINDS.map((k) => (
              <button key={k.value} type="button" className="chip" aria-pressed={kind === k.value} onClick={() => setKind(k.value)}>
                {k.label}
              </button>
            ))}
          </div>
          <label htmlFor="tr-search" className="visually-hidden">
            Search transcripts
          </label>
          <input id="tr-search" type="search" placeholder="Search titles and messages" value={query} onChange={(e) => setQuery(e.target.value)} />
          <ul className="plain-list" data-testid="transcript-list">
            {list.map((t) => (
              <li key={t.id}>
                <button type="button" className="list-item" aria-current={t.id === open ? "true" : undefined} data-transcript={t.id} onClick={() => setOpen(t.id)}>
                  <span className="stack">
                    <strong>{t.title}</strong>
                    <span className="muted small">
                      {t.kind} · {t.messageCount.toLocaleString("en-US")} messages{t.status ? ` · ${t.status}` : ""}
                    </span>
                  </span>
                </button>
              </li>
            ))}
            {list.length === 0 ? <li className="muted small">Nothing matches.</li> : null}
          </ul>
        </nav>
        <div className="tr-detail stack">
          {error ? (
            <p className="error" role="alert">
              {error}
            </p>
          ) : null}
          {transcript === null ? (
            <p className="muted">Pick a transcript to read it.</p>
          ) : (
            <>
              <header className="row spread">
                <h2 data-testid="transcript-title">{transcript.title}</h2>
                <span className="muted small">
                  <code>{transcript.id}</code>
                  {transcript.status ? ` · ${transcript.status}` : ""}
                  {transcript.usage ? ` · ${usageText(transcript.usage)} tokens` : ""}
                </span>
              </header>
              <RevisionTree nodes={tree} current={transcript.id} onOpen={setOpen} />
              <Timeline rows={rows} label={`Transcript of ${transcript.title}`} className="tr-timeline" />
            </>
          )}
        </div>
      </div>
    </section>
  );
}
