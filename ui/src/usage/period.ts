// The Usage screen's periods as a request's bounds, in local time. Pure:
// unit-tested directly.
import type { UsageRequest } from "../ipc";

export type PeriodKind = "7d" | "30d" | "month" | "custom";

export const PERIODS: readonly { kind: PeriodKind; label: string }[] = [
  { kind: "7d", label: "Last 7 days" },
  { kind: "30d", label: "Last 30 days" },
  { kind: "month", label: "This month" },
  { kind: "custom", label: "From … to …" },
];

/** Midnight (local) of a "YYYY-MM-DD" date; null when it is not one. */
export function localDay(date: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (m === null) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return d.getDate() === Number(m[3]) && d.getMonth() === Number(m[2]) - 1 ? d : null;
}

/** "YYYY-MM-DD" of a local date. */
export function dayString(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * The request for a period ending now: the last 7 or 30 days count today
 * as one, from local midnight; a custom period runs from its first day's
 * midnight to the end of its last day. Null for a custom period whose dates
 * are missing or reversed.
 */
export function periodRequest(kind: PeriodKind, now: Date, from = "", to = ""): UsageRequest | null {
  const utcOffsetMinutes = 0 - now.getTimezoneOffset();
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  switch (kind) {
    case "7d":
    case "30d": {
      const start = new Date(today);
      start.setDate(start.getDate() - (kind === "7d" ? 6 : 29));
      return { fromMs: start.getTime(), toMs: now.getTime(), utcOffsetMinutes };
    }
    case "month":
      return { fromMs: new Date(now.getFullYear(), now.getMonth(), 1).getTime(), toMs: now.getTime(), utcOffsetMinutes };
    case "custom": {
      const a = localDay(from);
      const b = localDay(to);
      if (a === null || b === null || b < a) return null;
      const end = new Date(b);
      end.setDate(end.getDate() + 1);
      return { fromMs: a.getTime(), toMs: end.getTime(), utcOffsetMinutes: 0 - a.getTimezoneOffset() };
    }
  }
}
