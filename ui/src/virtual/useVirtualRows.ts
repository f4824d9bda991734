import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject, type UIEvent } from "react";
import { RowHeights, visibleRange } from "./rowHeights";

export interface VirtualRows<E extends HTMLElement> {
  /** The scroll box: its height is the viewport. */
  box: RefObject<E | null>;
  onScroll: (e: UIEvent<E>) => void;
  /** The rows to render, `end` exclusive. */
  start: number;
  end: number;
  heights: RowHeights;
  /**
   * A ref for each rendered row, which carries `data-index` (its index in
   * the list): its real height replaces the estimate.
   */
  measure: (el: HTMLElement | null) => (() => void) | undefined;
  /** Scrolls row `index` into view (rendered by the next commit), unless it is in view already. */
  reveal: (index: number) => void;
}

/**
 * A virtualised list's window on its rows: only those in view (and
 * `overscan` on each side) are rendered. Heights start as `estimate`s and
 * are corrected as rows are measured, keeping the rows in view still when
 * one above them changes. The heights start again when `count` or
 * `resetKey` changes (another list). The transcript's timeline and the
 * Extract table both scroll 10,000 rows with it.
 */
export function useVirtualRows<E extends HTMLElement>(
  count: number,
  estimate: (index: number) => number,
  overscan: number,
  resetKey: unknown,
): VirtualRows<E> {
  const box = useRef<E>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [, setVersion] = useState(0);
  const heights = useMemo(() => new RowHeights(count, estimate), [count, resetKey]); // eslint-disable-line react-hooks/exhaustive-deps
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

  // Stable while the heights are the same, so a row is observed once while it
  // is rendered; new heights (another list) observe every row again, since
  // they start from estimates.
  const measure = useCallback(
    (el: HTMLElement | null) => {
      if (el === null) return;
      rowObserver?.observe(el);
      return () => rowObserver?.unobserve(el);
    },
    [rowObserver, heights], // eslint-disable-line react-hooks/exhaustive-deps
  );

  const reveal = useCallback(
    (index: number) => {
      const el = box.current;
      const h = heightsRef.current;
      if (el === null || index < 0 || index >= h.count) return;
      const top = h.offset(index);
      const bottom = top + h.height(index);
      const view = el.clientHeight || viewport;
      let next = el.scrollTop;
      if (top < el.scrollTop) next = top;
      else if (bottom > el.scrollTop + view) next = bottom - view;
      else return;
      el.scrollTop = next;
      // Rendered now, not at the scroll event: a caller may focus the row next.
      setScrollTop(el.scrollTop);
    },
    [viewport],
  );

  const { start, end } = visibleRange(heights, scrollTop, viewport, overscan);
  first.current = heights.indexAt(scrollTop);
  return { box, onScroll: (e) => setScrollTop(e.currentTarget.scrollTop), start, end, heights, measure, reveal };
}
