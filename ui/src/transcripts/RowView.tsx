import { fold, prettyArguments, type Row } from "./timeline";
import type { Usage } from "./messages";

const ROLE: Record<string, string> = { system: "System", user: "User", assistant: "Assistant", tool: "Tool" };

export function usageText(u: Usage): string {
  return `${u.input_tokens.toLocaleString("en-US")} in · ${u.output_tokens.toLocaleString("en-US")} out`;
}

function Folded({ text, expanded, onToggle, what }: { text: string; expanded: boolean; onToggle: () => void; what: string }) {
  const { shown, folded } = fold(text);
  return (
    <>
      <pre className="tl-text">{expanded || !folded ? text : `${shown}…`}</pre>
      {folded ? (
        <button type="button" className="small-button ghost" aria-expanded={expanded} onClick={onToggle}>
          {expanded ? `Fold ${what}` : `Show all of ${what} (${text.split("\n").length} lines)`}
        </button>
      ) : null}
    </>
  );
}

/** One row of a timeline. */
export function RowView({ row, expanded, onToggle }: { row: Row; expanded: boolean; onToggle: () => void }) {
  switch (row.kind) {
    case "message":
      return (
        <article className={`tl-card tl-role-${row.role}${row.correction ? " tl-correction" : ""}`} data-role={row.role}>
          <header className="row small">
            <strong>{ROLE[row.role]}</strong>
            {row.seq !== null ? <span className="muted">#{row.seq}</span> : null}
            {row.correction ? <span className="badge tl-badge-warn">correction</span> : null}
            {row.attempt !== null ? <span className="muted">attempt {row.attempt}</span> : null}
            {row.images > 0 ? <span className="badge badge-muted">{row.images === 1 ? "1 image" : `${row.images} images`}</span> : null}
            {row.usage !== null ? <span className="muted tl-usage">{usageText(row.usage)}</span> : null}
          </header>
          {row.text !== "" ? <Folded text={row.text} expanded={expanded} onToggle={onToggle} what="the message" /> : null}
        </article>
      );
    case "tool_call": {
      const args = prettyArguments(row.arguments);
      return (
        <article className="tl-card tl-tool" data-testid="tool-call">
          <header className="row small">
            <strong>Tool call: {row.name}</strong>
            <code className="muted">{row.callId}</code>
            {row.valid ? null : <span className="badge tl-badge-error">arguments are not valid JSON</span>}
            {row.attempt !== null ? <span className="muted">attempt {row.attempt}</span> : null}
            {row.usage !== null ? <span className="muted tl-usage">{usageText(row.usage)}</span> : null}
          </header>
          <Folded text={args.text} expanded={expanded} onToggle={onToggle} what="the arguments" />
        </article>
      );
    }
    case "tool_result":
      return (
        <article className={`tl-card tl-tool-result${row.isError ? " tl-is-error" : ""}${row.correction ? " tl-correction" : ""}`} data-testid="tool-result">
          <header className="row small">
            <strong>Result{row.name !== "" ? ` of ${row.name}` : ""}</strong>
            <code className="muted">{row.callId}</code>
            {row.isError ? <span className="badge tl-badge-error">error</span> : null}
            {row.correction ? <span className="badge tl-badge-warn">correction</span> : null}
          </header>
          <Folded text={row.content} expanded={expanded} onToggle={onToggle} what="the result" />
        </article>
      );
    case "usage":
      return (
        <p className="tl-total small" data-testid="usage-total">
          <strong>Total:</strong> {usageText(row.usage)} tokens over {row.attempts === 1 ? "1 attempt" : `${row.attempts} attempts`}
        </p>
      );
    case "error":
      return (
        <p className="tl-error error" role="alert" data-testid="transcript-error">
          <strong>Error{row.category !== null ? ` (${row.category})` : ""}:</strong> {row.message}
        </p>
      );
  }
}
