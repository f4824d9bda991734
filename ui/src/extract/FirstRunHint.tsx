import { useEffect, useState } from "react";

// Kept in the webview's own storage: a hint is a matter of this window, not of the settings file.
const DISMISSED_KEY = "sift.firstRunHint";

interface Props {
  /** Where the database is, from the settings (null until known). */
  dbPath: string | null;
  onOpenSettings?: () => void;
}

/** Shown until dismissed: which model reads the documents, how to pick another, and where the data lives. */
export function FirstRunHint({ dbPath, onOpenSettings }: Props) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    setShown(readDismissed() !== "dismissed");
  }, []);
  if (!shown) return null;
  function dismiss() {
    try {
      window.localStorage.setItem(DISMISSED_KEY, "dismissed");
    } catch {
      // Storage refused (a private profile): the hint still goes for this session.
    }
    setShown(false);
  }
  return (
    <aside className="card note first-run" aria-labelledby="first-run-title" data-testid="first-run-hint">
      <h2 id="first-run-title" className="pane-title">Welcome to Sift</h2>
      <p className="small">
        Documents are read by a small model on this computer (Qwen2.5-Coder-1.5B, served by llama.cpp): nothing leaves the machine. It starts with the first run; it is small, so check the values it marks.
      </p>
      <p className="small">
        For better results pick another model in{" "}
        {onOpenSettings ? (
          <button type="button" className="link" onClick={onOpenSettings}>Settings</button>
        ) : (
          "Settings"
        )}
        : a GGUF file of your own, a server such as Ollama or LM Studio, or a cloud provider.
      </p>
      <p className="small">
        To start, add a document, pick a starter schema (invoice, receipt, bank statement, purchase order) or let the model suggest one, and run.
        {dbPath !== null && (
          <>
            {" "}Your schemas, results and transcripts are kept in <code data-testid="first-run-db">{dbPath}</code>.
          </>
        )}
      </p>
      <button type="button" onClick={dismiss} data-testid="first-run-dismiss">Got it</button>
    </aside>
  );
}

function readDismissed(): string | null {
  try {
    return window.localStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}
