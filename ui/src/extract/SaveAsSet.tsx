// "Save as a labelled set…": the job's checked and corrected values become
// a set for Evaluate, under a name typed inline.
import { useState } from "react";
import { describeError } from "../format";
import type { ExtractSource } from "./source";

interface Props {
  source: ExtractSource;
  jobId: string;
  defaultName: string;
}

export function SaveAsSet({ source, jobId, defaultName }: Props) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(defaultName);
  const [saving, setSaving] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);

  async function save() {
    setSaving(true);
    setNote(null);
    try {
      const set = await source.saveJobAsLabelledSet(jobId, name.trim());
      setNote({ ok: true, text: `Saved the labelled set ${set.name}: ${set.documents} documents, fields ${set.fields.join(", ")}.` });
      setOpen(false);
    } catch (error) {
      setNote({ ok: false, text: `Could not save the set: ${describeError(error)}` });
    } finally {
      setSaving(false);
    }
  }

  return (
    <div className="row" data-testid="save-as-set">
      {open ? (
        <form className="row" aria-label="Save as a labelled set" onSubmit={(e) => { e.preventDefault(); void save(); }}>
          <label className="inline small">
            Set name
            <input value={name} onChange={(e) => setName(e.target.value)} autoFocus required />
          </label>
          <button type="submit" className="primary" disabled={saving || name.trim() === ""}>Save the set</button>
          <button type="button" className="ghost" onClick={() => setOpen(false)}>Cancel</button>
        </form>
      ) : (
        <button type="button" onClick={() => { setOpen(true); setNote(null); }} title="The checked and corrected values of this job become a labelled set for Evaluate">
          Save as a labelled set…
        </button>
      )}
      {note !== null && (
        <p className={`small ${note.ok ? "muted" : "error"}`} role={note.ok ? "status" : "alert"} data-testid="save-as-set-note">{note.text}</p>
      )}
    </div>
  );
}
