import { useMemo, useState } from "react";
import { describeError } from "../format";
import type { WorkflowFolders } from "../workflows/source";
import { WorkflowsScreen } from "../workflows/WorkflowsScreen";

const KEY = "sift.workflows.folder";

function remembered(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** The Workflows screen over the folder picked with the native dialog (remembered for the next launch). */
export function WorkflowsFolder({ source: folders }: { source: WorkflowFolders }) {
  const [dir, setDir] = useState<string | null>(remembered);
  const [error, setError] = useState<string | null>(null);
  const source = useMemo(() => (dir === null ? null : folders.open(dir)), [dir, folders]);

  async function open() {
    setError(null);
    try {
      const picked = await folders.pickFolder();
      if (picked === null) return;
      try {
        localStorage.setItem(KEY, picked);
      } catch {
        // Not remembered: it stays open for this session.
      }
      setDir(picked);
    } catch (e) {
      setError(`Could not open the folder: ${describeError(e)}`);
    }
  }

  const button = (
    <button type="button" onClick={() => void open()} data-testid="open-folder">
      {dir === null ? "Open folder…" : "Open another folder…"}
    </button>
  );

  if (source === null || dir === null) {
    return (
      <section className="screen" aria-labelledby="workflows-title">
        <div className="screen-head">
          <h1 id="workflows-title" tabIndex={-1}>
            Workflows
          </h1>
        </div>
        <div className="empty">
          <p>Open a folder of YAML workflow files (the ones `sift run` runs). The folder is watched: a change on disk reloads.</p>
          {button}
          {error !== null && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </div>
      </section>
    );
  }
  return (
    <>
      <div className="row wf-folder" data-testid="workflows-folder">
        <span className="muted small">{dir}</span>
        {button}
        {error !== null && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </div>
      <WorkflowsScreen key={dir} source={source} folderLabel={dir.split("/").pop() ?? dir} />
    </>
  );
}
