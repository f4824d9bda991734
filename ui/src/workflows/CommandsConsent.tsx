import { useEffect, useRef } from "react";
import type { FolderCommand, FolderCommands } from "./source";

interface Props {
  listing: FolderCommands;
  /** "Run them": the consent is recorded, then the run starts. */
  onRun: () => void;
  onCancel: () => void;
}

/** Where a command is: its file, the named DAG it is in (none for the main one), and its step. */
export function commandPlace(command: FolderCommand): string {
  return [command.file, command.dag, command.step].filter((part) => part !== null).join(" › ");
}

/**
 * Before the first run of a folder's workflows, every shell command they can
 * run, exactly as written (React escapes the text: a command is shown, never
 * read as HTML), and the choice to run them or not. The consent is kept for
 * the folder until its commands change.
 */
export function CommandsConsent({ listing, onRun, onCancel }: Props) {
  const cancel = useRef<HTMLButtonElement>(null);
  // Cancel has the focus: Enter alone does not run a stranger's commands.
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div className="wf-consent-backdrop">
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="wf-consent-title"
        className="wf-consent"
        data-testid="commands-consent"
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
        }}
      >
        <h2 id="wf-consent-title">Run these commands?</h2>
        <p>
          The workflows in <code>{listing.folder}</code> run these shell commands on this computer, with your rights. Run them only if you trust
          whoever wrote the folder. Sift asks again if they change.
        </p>
        <ul className="wf-consent-list">
          {listing.commands.map((c, i) => (
            <li key={i} data-testid="consent-command">
              <div className="small" data-testid="consent-step">
                {commandPlace(c)}
              </div>
              {c.env.length > 0 ? <pre className="wf-consent-env">{c.env.join("\n")}</pre> : null}
              <pre className="wf-consent-command" data-testid="consent-command-text">
                {c.command}
              </pre>
            </li>
          ))}
        </ul>
        <div className="row wf-consent-actions">
          <button type="button" ref={cancel} onClick={onCancel} data-testid="consent-cancel">
            Cancel
          </button>
          <button type="button" className="primary" onClick={onRun} data-testid="consent-run">
            Run them
          </button>
        </div>
      </div>
    </div>
  );
}
