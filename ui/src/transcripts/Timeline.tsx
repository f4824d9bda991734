import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { estimateHeight, type Row } from "./timeline";
import { RowView } from "./RowView";
import { RowHeights, visibleRange } from "./virtual";
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
  const box = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [, setVersion] = useState(0);
  const heights = useMemo(() => new RowHeights(rows.length, (i) => estimateHeight(rows[i] as Row, false)), [rows]);
  const heightsRef = useRef(heights);
  heightsRef.current = heights;
  const first = useRef(0);

  useLayoutEffect(() => {
    const el = box.current;
    if (el === null) return;
    setViewport(el.clientHeight || 600);
    const observer = new ResizeObserver(() => setViewport(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // One observer measures every rendered row.
  const rowObserver = useMemo(
    () =>
      typeof ResizeObserver === "undefined"
        ? null
        : new ResizeObserver((entries) => {
            let changed = false;
            let above = 0;
            for (const entry of entries) {
              const el = entry.target as HTMLElement;
              const index = Number(el.dataset.index);
              const h = heightsRef.current;
              const before = h.height(index);
              if (h.set(index, el.offsetHeight)) {
                changed = true;
                // Keep the rows in view still when a row above them grows or shrinks.
                if (index < first.current) above += h.height(index) - before;
              }
            }
            if (above !== 0 && box.current !== null) box.current.scrollTop += above;
            if (changed) setVersion((v) => v + 1);
          }),
    [],
  );
  useEffect(() => () => rowObserver?.disconnect(), [rowObserver]);

  // Stable while the rows are the same, so a row is observed once while it is
  // rendered; new rows (another transcript) observe every row again, since
  // their heights start from estimates.
  const measure = useCallback(
    (el: HTMLElement | null) => {
      if (el === null) return;
      rowObserver?.observe(el);
      return () => rowObserver?.unobserve(el);
    },
    [rowObserver, heights], // eslint-disable-line react-hooks/exhaustive-deps
  );

  const { start, end } = visibleRange(heights, scrollTop, viewport, 6);
  first.current = heights.indexAt(scrollTop);
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
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
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
