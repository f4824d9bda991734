import { useEffect, useRef, useState } from "react";
import { prettyArguments } from "../transcripts/timeline";
import type { Bubble, PendingApproval, ToolCard, TurnState } from "./model";

function ToolCardView({ card, approval, onResolve }: { card: ToolCard; approval?: PendingApproval; onResolve?: (approved: boolean) => void }) {
  const args = prettyArguments(card.arguments);
  const state = approval ? "waiting for approval" : card.result === null ? "running" : card.result.is_error ? "error" : "done";
  return (
    <div className={`chat-tool${approval ? " chat-approval" : ""}`} data-testid="chat-tool" data-state={state} role="group" aria-label={`Tool ${card.name}: ${state}`}>
      <div className="row small">
        <strong>Tool: {card.name}</strong>
        <span className="badge badge-muted">{state}</span>
      </div>
      {card.arguments !== "" ? (
        <details open={approval !== undefined}>
          <summary className="small">Arguments</summary>
          <pre className="chat-pre">{args.text}</pre>
        </details>
      ) : null}
      {card.result !== null ? (
        <details>
          <summary className="small">Result</summary>
          <pre className="chat-pre">{card.result.content}</pre>
        </details>
      ) : null}
      {approval && onResolve ? (
        <div className="row" data-testid="approval">
          {approval.reads ? (
            <span className="small" data-testid="approval-reads">
              Reads <code>{approval.reads}</code>
            </span>
          ) : null}
          <span className="small">Run this tool?</span>
          <button type="button" className="primary" onClick={() => onResolve(true)}>
            Approve
          </button>
          <button type="button" className="danger" onClick={() => onResolve(false)}>
            Deny
          </button>
        </div>
      ) : null}
    </div>
  );
}

interface Props {
  bubbles: Bubble[];
  turn: TurnState | null;
  approvals: PendingApproval[];
  busy: boolean;
  onResolve: (callId: string, approved: boolean) => void;
  onEdit: (seq: number, text: string) => void;
  /** Sends again the message a cut reply answered. */
  onRegenerate?: (prompt: string) => void;
  /** Drops the cut reply and its message instead. */
  onDiscardCut?: () => void;
}

/** The messages as bubbles, tool calls as cards, the streaming reply last, approvals where the calls are. */
export function Conversation({ bubbles, turn, approvals, busy, onResolve, onEdit, onRegenerate, onDiscardCut }: Props) {
  const [editing, setEditing] = useState<{ seq: number; text: string } | null>(null);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [bubbles.length, turn?.text, turn?.tools.length]);
  const pending = new Map(approvals.map((a) => [a.id, a]));
  const shownCalls = new Set(bubbles.flatMap((b) => b.tools.map((t) => t.id)));

  return (
    <div className="chat-log" role="log" aria-label="Conversation" aria-live="polite" data-testid="conversation">
      {bubbles.map((b) => (
        <article key={b.key} className={`chat-bubble chat-${b.role}`} data-role={b.role} data-seq={b.seq}>
          <header className="row small">
            <strong>{{ system: "System", user: "You", assistant: "Assistant", tool: "Tool" }[b.role]}</strong>
            {b.cutPrompt !== undefined ? <span className="badge badge-muted">cut off</span> : null}
            {b.role === "user" && editing?.seq !== b.seq ? (
              <button type="button" className="ghost small-button" disabled={busy} onClick={() => setEditing({ seq: b.seq, text: b.text })} aria-label={`Edit message ${b.seq}`}>
                Edit
              </button>
            ) : null}
          </header>
          {editing?.seq === b.seq ? (
            <form
              className="stack"
              onSubmit={(e) => {
                e.preventDefault();
                onEdit(b.seq, editing.text);
                setEditing(null);
              }}
            >
              <label htmlFor={`edit-${b.seq}`} className="visually-hidden">
                Edited message
              </label>
              <textarea id={`edit-${b.seq}`} rows={3} value={editing.text} onChange={(e) => setEditing({ seq: b.seq, text: e.target.value })} />
              <div className="row">
                <button type="submit" className="primary" disabled={editing.text.trim() === ""}>
                  Save and regenerate
                </button>
                <button type="button" className="ghost" onClick={() => setEditing(null)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : b.text !== "" ? (
            <p className="chat-text">{b.text}</p>
          ) : null}
          {b.files.length > 0 ? (
            <ul className="chips" aria-label="Attached documents">
              {b.files.map((name, i) => (
                <li key={i} className="chip">
                  {name}
                </li>
              ))}
            </ul>
          ) : null}
          {b.images.map((mime, i) => (
            <span key={i} className="badge badge-muted">
              image ({mime})
            </span>
          ))}
          {b.tools.map((card) => (
            <ToolCardView key={card.id} card={card} approval={pending.get(card.id)} onResolve={(ok) => onResolve(card.id, ok)} />
          ))}
          {b.cutPrompt !== undefined ? (
            <div className="row" data-testid="cut-reply">
              <span className="small warning">Sift closed before this reply finished.</span>
              <button type="button" className="primary" disabled={busy || onRegenerate === undefined} onClick={() => onRegenerate?.(b.cutPrompt ?? "")}>
                Regenerate
              </button>
              <button type="button" disabled={busy || onDiscardCut === undefined} onClick={() => onDiscardCut?.()}>
                Discard
              </button>
            </div>
          ) : null}
        </article>
      ))}
      {turn !== null && (turn.status === "streaming" || turn.status === "error" || turn.text !== "" || turn.tools.some((t) => !shownCalls.has(t.id))) ? (
        <article className="chat-bubble chat-assistant chat-streaming" data-testid="streaming-reply" aria-busy={turn.status === "streaming"}>
          <header className="row small">
            <strong>Assistant</strong>
            {turn.status === "streaming" ? <span className="muted">writing…</span> : null}
          </header>
          {turn.text !== "" ? <p className="chat-text">{turn.text}</p> : null}
          {turn.tools
            .filter((t) => !shownCalls.has(t.id))
            .map((card) => (
              <ToolCardView key={card.id} card={card} />
            ))}
          {turn.error ? (
            <p className="error" role="alert">
              Error ({turn.error.category}): {turn.error.message}
            </p>
          ) : null}
        </article>
      ) : null}
      <div ref={end} />
    </div>
  );
}
