import { flatten, type RevisionNode } from "./revisions";

interface Props {
  nodes: RevisionNode[];
  current: string;
  onOpen: (id: string) => void;
}

function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A call and its revisions as a tree; each revision lists its values, the ones that differ from its parent marked. */
export function RevisionTree({ nodes, current, onOpen }: Props) {
  if (nodes.length <= 1) return null;
  return (
    <section className="tr-revisions" aria-label="Revisions" data-testid="revisions">
      <h2 className="small">Revisions</h2>
      {/* A plain list, indented by depth: each entry says which call it revises. */}
      <ul aria-label="Revisions of the call" className="plain-list">
        {nodes.map(({ revision, depth, changed }) => {
          const values = revision.output === null || revision.output === undefined ? [] : [...flatten(revision.output)];
          const marked = new Set(changed);
          return (
            <li key={revision.id} className={`tr-revision depth-${Math.min(depth, 6)}`} data-revision={revision.id} data-depth={depth}>
              <button type="button" className="ghost small-button" aria-current={revision.id === current ? "true" : undefined} onClick={() => onOpen(revision.id)}>
                <code>{revision.id}</code> · {revision.status}
                {changed.length > 0 ? ` · ${changed.length} changed` : ""}
                {revision.parentId !== null && depth > 0 ? <span className="visually-hidden">, revises {revision.parentId}</span> : null}
              </button>
              {revision.note !== null ? <q className="muted small">{revision.note}</q> : null}
              {values.length > 0 ? (
                <dl className="tr-values small">
                  {values.map(([path, value]) => (
                    <div key={path} className={marked.has(path) ? "tr-changed" : undefined} data-changed={marked.has(path) ? "true" : undefined}>
                      <dt>{path || "(value)"}</dt>
                      <dd>
                        {valueText(value)}
                        {marked.has(path) ? <span className="visually-hidden"> (changed)</span> : null}
                      </dd>
                    </div>
                  ))}
                </dl>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
