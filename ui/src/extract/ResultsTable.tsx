import { useLayoutEffect, useState, type KeyboardEvent, type MouseEvent } from "react";
import { useVirtualRows } from "../virtual/useVirtualRows";
import { cellMark, isUnder } from "./evidence";
import { cellText, isChanged, type Column, type DocRow } from "./table";

interface Props {
  columns: Column[];
  rows: DocRow[];
  selected: number | null;
  /** The selected value (an evidence key) of the selected row. */
  field: string | null;
  /** `column`: the cell clicked (its key), null for the row itself. */
  onSelect: (position: number, column: string | null) => void;
  /** Escape: close the selected document. */
  onClear: () => void;
  /** `r`: review mode. */
  onReview: () => void;
  /** The job is running: its queued rows wait their turn. Otherwise (an
   * interrupted or cancelled job) they were never run, and say so. */
  running: boolean;
}

/** A row of one line of text; rows that wrap (an error) are measured. */
const ROW_ESTIMATE = 35;

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
 * document. One row is in the tab order: the selected one, else the first
 * rendered. Virtualised as the transcript's timeline is: only the rows in
 * view (and a few around) are in the DOM, between two spacer rows as tall
 * as the rows left out, so a job of 10,000 documents opens and scrolls as
 * one of ten; a row selected from elsewhere (review mode) is scrolled to.
 * A value cell is marked when its value was not found in the document (or
 * found only in another form) until the user checks it, then ✓ (drawn by
 * the stylesheet, so the cell's text stays the value).
 */
export function ResultsTable({ columns, rows, selected, field, onSelect, onClear, onReview, running }: Props) {
  const { box, onScroll, start, end, heights, measure, reveal } = useVirtualRows<HTMLDivElement>(rows.length, () => ROW_ESTIMATE, 8, columns);
  // A row to focus once it is rendered (the arrow keys may move past the rendered ones).
  const [focusNext, setFocusNext] = useState<number | null>(null);
  const selectedIndex = selected === null ? -1 : rows.findIndex((r) => r.position === selected);

  // The selected row in view, whoever selected it.
  useLayoutEffect(() => {
    if (selectedIndex >= 0) reveal(selectedIndex);
  }, [selectedIndex]); // eslint-disable-line react-hooks/exhaustive-deps

  useLayoutEffect(() => {
    if (focusNext === null) return;
    const el = box.current?.querySelector<HTMLElement>(`tr[data-position="${focusNext}"]`);
    if (el) {
      el.focus();
      setFocusNext(null);
    }
  });

  function onKey(e: KeyboardEvent<HTMLTableRowElement>, index: number) {
    const row = rows[index];
    if (row === undefined) return;
    if (e.key === "Escape") {
      onClear();
    } else if (e.key === "r" && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      onReview();
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSelect(row.position, null);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const target = rows[index + (e.key === "ArrowDown" ? 1 : -1)];
      if (target === undefined) return;
      onSelect(target.position, null);
      setFocusNext(target.position);
    }
  }

  return (
    <div className="table-wrap" ref={box} onScroll={onScroll}>
      <table className="results" data-testid="results-table" aria-label="Extraction results" aria-rowcount={rows.length + 1}>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Status</th>
            {columns.map((c) => <th key={c.key} scope="col">{c.key}</th>)}
            <th scope="col" className="num">Tokens in / out</th>
          </tr>
        </thead>
        <tbody>
          <Spacer height={heights.offset(start)} span={columns.length + 3} />
          {rows.slice(start, end).map((row, i) => {
            const index = start + i;
            const tabbable = selected === row.position || ((selectedIndex < start || selectedIndex >= end) && index === start);
            return (
              <tr
                key={row.position}
                ref={measure}
                data-index={index}
                aria-rowindex={index + 2}
                tabIndex={tabbable ? 0 : -1}
                aria-selected={selected === row.position}
                data-position={row.position}
                data-testid="result-row"
                data-status={row.status}
                onClick={(e) => onSelect(row.position, clickedColumn(e))}
                onKeyDown={(e) => onKey(e, index)}
              >
                <th scope="row" title={row.path}>{row.name}</th>
                <td>
                  <span className={`status status-${row.status}`} title={row.error ?? undefined}>{row.status === "queued" && !running ? "Not run" : STATUS_LABEL[row.status]}</span>
                </td>
                {row.status === "failed" && row.modelValues === null && columns.length > 0 ? (
                  <td colSpan={columns.length} className="row-error" data-testid="row-error" title={row.error ?? undefined}>
                    {row.error ?? "failed"}
                  </td>
                ) : (
                  columns.map((c) => {
                    const changed = isChanged(row, c);
                    const mark = cellMark(row, c);
                    const current = selected === row.position && field !== null && isUnder(field, c.key);
                    const classes = [
                      changed && "changed",
                      mark.evidence === "problem" && "cell-problem",
                      mark.evidence === "not_found" && "cell-not-found",
                      mark.evidence === "normalised" && "cell-normalised",
                      mark.checked && "cell-checked",
                      current && "cell-selected",
                    ].filter(Boolean);
                    const titles = [
                      changed && "Edited",
                      ...mark.problems,
                      mark.evidence === "not_found" && "Not found in the document",
                      mark.evidence === "normalised" && "Found in the document in another form",
                      mark.checked && "Checked",
                    ].filter(Boolean);
                    return (
                      <td
                        key={c.key}
                        data-column={c.key}
                        data-changed={changed ? "true" : undefined}
                        data-evidence={mark.evidence ?? undefined}
                        data-checked={mark.checked ? "true" : undefined}
                        className={classes.length > 0 ? classes.join(" ") : undefined}
                        title={titles.length > 0 ? titles.join(" · ") : undefined}
                      >
                        {cellText(row, c)}
                        {changed && <span className="visually-hidden"> (edited)</span>}
                      </td>
                    );
                  })
                )}
                <td className="num">{row.status === "completed" || row.status === "failed" ? `${row.inputTokens} / ${row.outputTokens}` : ""}</td>
              </tr>
            );
          })}
          <Spacer height={heights.total() - heights.offset(end)} span={columns.length + 3} />
        </tbody>
      </table>
    </div>
  );
}

/** Room for the rows not rendered; none when there are none. */
function Spacer({ height, span }: { height: number; span: number }) {
  if (height <= 0) return null;
  // Styles set through the DOM (React's style prop), which the window's CSP allows.
  return (
    <tr aria-hidden="true" className="results-spacer">
      <td colSpan={span} style={{ height, padding: 0, border: 0 }} />
    </tr>
  );
}

/** The value cell a click landed in, if any (the row's other cells select the row alone). */
function clickedColumn(e: MouseEvent<HTMLTableRowElement>): string | null {
  const cell = e.target instanceof Element ? e.target.closest<HTMLElement>("td[data-column]") : null;
  return cell?.dataset.column ?? null;
}
