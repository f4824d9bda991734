import { useState } from "react";
import { estimateHeight, type Row } from "./timeline";
import { RowView } from "./RowView";
import { useVirtualRows } from "../virtual/useVirtualRows";
import "./transcripts.css";

interface Props {
  rows: Row[];
  label: string;
  /** Extra class for the scroll box (its height comes from CSS). */
  className?: string;
}

/**
 * A virtualised timeline: only the rows in view (and a few around) are in the
 * DOM. Heights start as estimates and are corrected as rows are measured, so
 * a transcript of 10,000 messages opens as fast as one of ten.
 */
export function Timeline({ rows, label, className }: Props) {
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const { box, onScroll, start, end, heights, measure } = useVirtualRows<HTMLDivElement>(
    rows.length,
    (i) => estimateHeight(rows[i] as Row, false),
    6,
    rows,
  );
  const toggle = (key: string) =>
    setExpanded((s) => {
      const next = new Set(s);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const shown: Row[] = rows.slice(start, end);
  return (
    <div
      ref={box}
      className={`tl-scroll ${className ?? ""}`}
      tabIndex={0}
      role="region"
      aria-label={label}
      data-testid="timeline"
      data-rows={rows.length}
      onScroll={onScroll}
    >
      {/* Styles set through the DOM (React's style prop), which the window's CSP allows. */}
      <div className="tl-spacer" style={{ height: heights.total() }}>
        <ol className="tl-list" aria-label={`${label}: ${rows.length} entries`}>
          {shown.map((row, i) => {
            const index = start + i;
            return (
              <li
                key={row.key}
                data-index={index}
                aria-posinset={index + 1}
                aria-setsize={rows.length}
                className={`tl-row tl-${row.kind}`}
                style={{ transform: `translateY(${heights.offset(index)}px)` }}
                ref={measure}
              >
                <RowView row={row} expanded={expanded.has(row.key)} onToggle={() => toggle(row.key)} />
              </li>
            );
          })}
        </ol>
      </div>
    </div>
  );
}
