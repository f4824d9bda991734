import { baseName } from "./table";

interface Props {
  files: string[];
  onRemove: (path: string) => void;
}

/** The files of the next run. */
export function FileList({ files, onRemove }: Props) {
  if (files.length === 0) return null;
  return (
    <ul className="chips" aria-label="Files to extract" data-testid="file-list">
      {files.map((f) => (
        <li key={f} className="chip" title={f}>
          <span className="chip-name">{baseName(f)}</span>
          <button type="button" className="icon" aria-label={`Remove ${baseName(f)}`} onClick={() => onRemove(f)}>✕</button>
        </li>
      ))}
    </ul>
  );
}
