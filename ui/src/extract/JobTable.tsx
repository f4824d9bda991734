import { useState } from "react";
import { describeError } from "../format";
import type { JsonValue } from "../schema/model";
import { DetailPane } from "./DetailPane";
import { correction, defaultKey } from "./evidence";
import { ResultsTable } from "./ResultsTable";
import { ReviewBar, ReviewLine } from "./ReviewBar";
import type { ExtractSource } from "./source";
import type { Column, TableState } from "./table";
import { useReview } from "./useReview";

interface Props {
  source: ExtractSource;
  table: TableState;
  columns: Column[];
  /** The schema of the table shown: a typed correction is parsed as its field's type. */
  schema: JsonValue | undefined;
  revise: (position: number, path: string[], value: JsonValue) => Promise<void>;
  check: (position: number, key: string) => Promise<void>;
  onOpenTranscript?: (callId: string) => void;
}

/** Focuses a row a frame later (once it is drawn), unless the focus moved elsewhere in between: a form the user opened keeps it. */
function focusRow(position: number | null) {
  const before = document.activeElement;
  requestAnimationFrame(() => {
    const now = document.activeElement;
    if (now !== null && now !== before && now !== document.body) return;
    document.querySelector<HTMLElement>(`[data-testid="result-row"][data-position="${position}"]`)?.focus();
  });
}

/**
 * A job's table with the selected document beside it, the count of values
 * that need a look, and review mode. A selection is a row and one of its
 * values (an evidence key), whose place the detail pane shows.
 */
export function JobTable({ source, table, columns, schema, revise, check, onOpenTranscript }: Props) {
  const [selected, setSelected] = useState<number | null>(null);
  const [field, setField] = useState<string | null>(null);
  const row = table.rows.find((r) => r.position === selected) ?? null;

  function select(position: number, column: string | null) {
    setSelected(position);
    const picked = columns.find((c) => c.key === column);
    const target = table.rows.find((r) => r.position === position);
    if (picked !== undefined && target !== undefined) setField(defaultKey(target, picked));
  }

  /** Typed or clicked text as the value at `key`, parsed as the field's type; resolves to what went wrong, if anything. */
  async function setText(position: number, key: string, text: string): Promise<string | null> {
    const target = table.rows.find((r) => r.position === position);
    if (target === undefined) return null;
    const parsed = correction(schema, target, key, text);
    if (!parsed.ok) return parsed.error;
    try {
      await revise(position, parsed.path, parsed.value);
      return null;
    } catch (error) {
      return `Not saved: ${describeError(error)}`;
    }
  }

  const review = useReview({
    rows: table.rows,
    columns,
    select: (item) => {
      setSelected(item.position);
      setField(item.key);
    },
    check,
    correct: setText,
  });

  function leaveReview() {
    review.leave();
    focusRow(selected);
  }

  return (
    <>
      {table.rows.some((r) => r.status === "completed") && (
        <ReviewLine needsReview={table.needsReview} canReview={!review.active} onReview={review.start} />
      )}
      {review.active && <ReviewBar review={review} rows={table.rows} onLeave={leaveReview} />}
      <div className={row !== null ? "results-split" : undefined}>
        <ResultsTable
          columns={columns}
          rows={table.rows}
          selected={selected}
          field={field}
          onSelect={select}
          onClear={() => {
            setSelected(null);
            setField(null);
          }}
          onReview={review.start}
          running={table.phase === "running"}
        />
        {row !== null && (
          <DetailPane
            // One pane per document: its page and place start from the selected value.
            key={row.position}
            source={source}
            row={row}
            columns={columns}
            field={field}
            onSelectField={setField}
            onSetText={(key, text) => setText(row.position, key, text)}
            onOpenTranscript={onOpenTranscript}
            onRevise={(path, value) => revise(row.position, path, value)}
            onClose={() => {
              const position = row.position;
              setSelected(null);
              setField(null);
              focusRow(position);
            }}
          />
        )}
      </div>
    </>
  );
}
