import { describe, expect, it } from "vitest";
import { dayString, localDay, periodRequest } from "./period";

describe("usage periods", () => {
  const now = new Date(2025, 10, 24, 15, 30);
  const offset = 0 - now.getTimezoneOffset();
  it("counts today in the last 7 and 30 days", () => {
    expect(periodRequest("7d", now)).toEqual({ fromMs: new Date(2025, 10, 18).getTime(), toMs: now.getTime(), utcOffsetMinutes: offset });
    expect(periodRequest("30d", now)).toEqual({ fromMs: new Date(2025, 9, 26).getTime(), toMs: now.getTime(), utcOffsetMinutes: offset });
  });
  it("starts this month on its first day", () => {
    expect(periodRequest("month", now)?.fromMs).toBe(new Date(2025, 10, 1).getTime());
  });
  it("runs a custom period to the end of its last day, refusing reversed or missing dates", () => {
    const r = periodRequest("custom", now, "2025-11-01", "2025-11-03");
    expect([r?.fromMs, r?.toMs]).toEqual([new Date(2025, 10, 1).getTime(), new Date(2025, 10, 4).getTime()]);
    expect(periodRequest("custom", now, "2025-11-03", "2025-11-01")).toBeNull();
    expect(periodRequest("custom", now, "", "2025-11-01")).toBeNull();
  });
  it("reads and writes local days", () => {
    expect(localDay("2025-02-30")).toBeNull();
    expect(localDay("nope")).toBeNull();
    expect(dayString(new Date(2025, 0, 5))).toBe("2025-01-05");
  });
});
