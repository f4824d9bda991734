import { useRef, useState } from "react";
import { describeError } from "../format";
import { nextReviewItem, reviewAction, reviewItemId, reviewOrder, type ReviewItem } from "./evidence";
import type { Column, DocRow } from "./table";

interface Options {
  rows: readonly DocRow[];
  columns: readonly Column[];
  /** Shows a value: its row and field selected. */
  select: (item: ReviewItem) => void;
  /** Accepts a value as it is. */
  check: (position: number, key: string) => Promise<void>;
  /** Corrects a value to typed text; resolves to what went wrong (the text is not of the field's type), if anything. */
  correct: (position: number, key: string, text: string) => Promise<string | null>;
}

export interface Review {
  active: boolean;
  /** The value being reviewed; null once the walk is through. */
  current: ReviewItem | null;
  /** Values left, the current one included. */
  left: number;
  busy: boolean;
  error: string | null;
  start: () => void;
  /** Enter: the text as shown accepts the value, other text corrects it. */
  submit: (text: string) => Promise<void>;
  skip: () => void;
  leave: () => void;
}

/**
 * Review mode: a walk through the values not yet verified (see
 * `reviewOrder`), one at a time. A value visited in the walk (accepted,
 * corrected or skipped) is not shown again in it, whatever the row says
 * meanwhile, so a skipped value waits for the next walk.
 */
export function useReview({ rows, columns, select, check, correct }: Options): Review {
  const [walk, setWalk] = useState<{ visited: ReadonlySet<string>; current: ReviewItem | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The rows as last rendered: a step that waited on a call reads these, not the ones it started with.
  const latest = useRef({ rows, columns });
  latest.current = { rows, columns };

  function advance(visited: ReadonlySet<string>) {
    const next = nextReviewItem(latest.current.rows, latest.current.columns, visited);
    setWalk({ visited, current: next });
    setError(null);
    if (next !== null) select(next);
  }

  function visit(item: ReviewItem): ReadonlySet<string> {
    return new Set([...(walk?.visited ?? []), reviewItemId(item)]);
  }

  async function submit(text: string) {
    const item = walk?.current ?? null;
    const row = item === null ? undefined : latest.current.rows.find((r) => r.position === item.position);
    if (item === null || row === undefined || busy) return;
    setBusy(true);
    try {
      if (reviewAction(row, item.key, text) === "accept") {
        await check(item.position, item.key);
      } else {
        const problem = await correct(item.position, item.key, text);
        if (problem !== null) {
          setError(problem);
          return;
        }
      }
      advance(visit(item));
    } catch (e) {
      setError(`Not saved: ${describeError(e)}`);
    } finally {
      setBusy(false);
    }
  }

  const visited = walk?.visited ?? new Set<string>();
  return {
    active: walk !== null,
    current: walk?.current ?? null,
    left: walk === null ? 0 : reviewOrder(rows, columns).filter((item) => !visited.has(reviewItemId(item))).length,
    busy,
    error,
    start: () => advance(new Set()),
    submit,
    skip: () => {
      if (walk?.current) advance(visit(walk.current));
    },
    leave: () => {
      setWalk(null);
      setError(null);
    },
  };
}
