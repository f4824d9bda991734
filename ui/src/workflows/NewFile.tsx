import { useState } from "react";

/** A file name for a new workflow: `name.yaml`, refused when empty, not directly in the folder (the app saves nowhere else), or taken. */
export function newFileProblem(name: string, taken: string[]): string | null {
  const trimmed = name.trim();
  if (trimmed === "") return "Give the file a name.";
  if (trimmed.includes("/")) return "The file goes directly in the folder, not in a subfolder.";
  if (!/\.ya?ml$/.test(trimmed)) return "The name must end in .yaml or .yml.";
  if (taken.includes(trimmed)) return `${trimmed} already exists.`;
  return null;
}

/** "New file": a name, then an empty workflow written to the folder. */
export function NewFile({ taken, onCreate }: { taken: string[]; onCreate: (path: string) => void }) {
  const [name, setName] = useState<string | null>(null);
  if (name === null) {
    return (
      <button type="button" onClick={() => setName("workflow.yaml")} data-testid="new-workflow">
        New file
      </button>
    );
  }
  const problem = newFileProblem(name, taken);
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (problem !== null) return;
        onCreate(name.trim());
        setName(null);
      }}
    >
      <label htmlFor="wf-new-name" className="small">
        New file
      </label>
      <input id="wf-new-name" type="text" value={name} autoFocus onChange={(e) => setName(e.target.value)} aria-invalid={problem !== null} aria-describedby="wf-new-problem" />
      <button type="submit" className="primary" disabled={problem !== null}>
        Create
      </button>
      <button type="button" className="ghost" onClick={() => setName(null)}>
        Cancel
      </button>
      <span id="wf-new-problem" className="small error">
        {problem ?? ""}
      </span>
    </form>
  );
}
