import type { KeyboardEvent } from "react";
import { cellText, isChanged, type Column, type DocRow } from "./table";

interface Props {
  columns: Column[];
  rows: DocRow[];
  selected: number | null;
  onSelect: (position: number) => void;
  /** Escape: close the selected document. */
  onClear: () => void;
}

const STATUS_LABEL: Record<DocRow["status"], string> = {
  queued: "Queued",
  running: "Running",
  completed: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/**
 * Documents × fields. A row is selected with a click or Enter/Space; the
 * arrow keys move the selection (and the detail pane) to the next or previous
 * document. One row is in the tab order: the selected one, else the first.
 */
export function ResultsTable({ columns, rows, selected, onSelect, onClear }: Props) {
  function onKey(e: KeyboardEvent<HTMLTableRowElement>, index: number) {
    const row = rows[index];
    if (row === undefined) return;
    if (e.key === "Escape") {
      onClear();
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSelect(row.position);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const target = rows[index + (e.key === "ArrowDown" ? 1 : -1)];
      const next = e.currentTarget.parentElement?.children[index + (e.key === "ArrowDown" ? 1 : -1)];
      if (target === undefined || !(next instanceof HTMLElement)) return;
      onSelect(target.position);
      next.focus();
    }
  }

  return (
    <div className="table-wrap">
      <table className="results" data-testid="results-table" aria-label="Extraction results">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Status</th>
            {columns.map((c) => <th key={c.key} scope="col">{c.key}</th>)}
            <th scope="col" className="num">Tokens in / out</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr
              key={row.position}
              tabIndex={selected === row.position || (selected === null && index === 0) ? 0 : -1}
              aria-selected={selected === row.position}
              data-position={row.position}
              data-testid="result-row"
              data-status={row.status}
              onClick={() => onSelect(row.position)}
              onKeyDown={(e) => onKey(e, index)}
            >
              <th scope="row" title={row.path}>{row.name}</th>
              <td>
                <span className={`status status-${row.status}`} title={row.error ?? undefined}>{STATUS_LABEL[row.status]}</span>
              </td>
              {row.status === "failed" && row.modelValues === null && columns.length > 0 ? (
                <td colSpan={columns.length} className="row-error" data-testid="row-error" title={row.error ?? undefined}>
                  {row.error ?? "failed"}
                </td>
              ) : (
                columns.map((c) => {
                  const changed = isChanged(row, c);
                  return (
                    <td key={c.key} data-column={c.key} data-changed={changed ? "true" : undefined} className={changed ? "changed" : undefined} title={changed ? "Edited" : undefined}>
                      {cellText(row, c)}
                      {changed && <span className="visually-hidden"> (edited)</span>}
                    </td>
                  );
                })
              )}
              <td className="num">{row.status === "completed" || row.status === "failed" ? `${row.inputTokens} / ${row.outputTokens}` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
