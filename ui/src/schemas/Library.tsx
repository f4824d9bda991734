import type { SchemaSummary } from "../ipc";

interface Props {
  schemas: SchemaSummary[];
  current: { name: string; version: number | null };
  onOpen: (name: string, version: number | null) => void;
}

/** The schema library: one entry per name, its versions newest first. */
export function Library({ schemas, current, onOpen }: Props) {
  return (
    <nav className="card library" aria-labelledby="library-title">
      <h2 id="library-title">Library</h2>
      {schemas.length === 0 && <p className="muted small">No schemas yet.</p>}
      <ul className="plain-list" data-testid="schema-library">
        {schemas.map((s) => {
          const latest = s.latestVersion;
          const open = s.name === current.name;
          return (
            <li key={s.name}>
              <button type="button" className="list-item" aria-current={open ? "true" : undefined} onClick={() => onOpen(s.name, null)}>
                <span>{s.name}</span>
                <span className="muted small">v{latest}</span>
              </button>
              {open && s.versions.length > 1 && (
                <label className="stack small indent">
                  <span className="muted">Version</span>
                  <select value={current.version ?? latest} onChange={(e) => onOpen(s.name, Number(e.target.value))} aria-label={`Version of ${s.name}`}>
                    {[...s.versions].sort((a, b) => b - a).map((v) => (
                      <option key={v} value={v}>
                        v{v}{v === latest ? " (latest)" : ""}
                      </option>
                    ))}
                  </select>
                </label>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
