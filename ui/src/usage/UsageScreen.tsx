// Usage: calls, tokens and cost per day, provider, model and kind in a
// period, with the totals.
import { useEffect, useState } from "react";
import { formatCost } from "../evaluate/model";
import { describeError } from "../format";
import type { UsageReport } from "../ipc";
import { dayString, PERIODS, periodRequest, type PeriodKind } from "./period";
import type { UsageSource } from "./source";
import "./usage.css";

interface Props {
  source: UsageSource;
  active: boolean;
  /** The clock, for tests. */
  now?: () => Date;
}

export function UsageScreen({ source, active, now = () => new Date() }: Props) {
  const [kind, setKind] = useState<PeriodKind>("7d");
  const [from, setFrom] = useState(() => dayString(new Date(now().getFullYear(), now().getMonth(), 1)));
  const [to, setTo] = useState(() => dayString(now()));
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState("");

  useEffect(() => {
    if (!active) return;
    const request = periodRequest(kind, now(), from, to);
    if (request === null) {
      setError("Choose a first day on or before the last.");
      return;
    }
    let current = true;
    setError("");
    source.usage(request).then(
      (r) => current && setReport(r),
      (e: unknown) => current && setError(describeError(e)),
    );
    return () => {
      current = false;
    };
  }, [source, active, kind, from, to]);

  return (
    <section className="screen" aria-labelledby="usage-title">
      <header className="screen-head">
        <h1 id="usage-title" tabIndex={-1}>Usage</h1>
      </header>
      <div className="row">
        <label className="inline">
          Period
          <select value={kind} onChange={(e) => setKind(e.target.value as PeriodKind)} data-testid="usage-period">
            {PERIODS.map((p) => (
              <option key={p.kind} value={p.kind}>{p.label}</option>
            ))}
          </select>
        </label>
        {kind === "custom" && (
          <>
            <label className="inline">From <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} /></label>
            <label className="inline">To <input type="date" value={to} onChange={(e) => setTo(e.target.value)} /></label>
          </>
        )}
      </div>
      {error !== "" && <p className="error" role="alert">{error}</p>}
      {report !== null && (
        <>
          <p data-testid="usage-totals">
            {report.count} call{report.count === 1 ? "" : "s"} · {report.inputTokens} tokens in · {report.outputTokens} out · {formatCost(report.cost)}
            {report.unpricedRows > 0 ? ` · ${report.unpricedRows} row${report.unpricedRows === 1 ? "" : "s"} without a price` : ""}
          </p>
          {report.rows.length === 0 ? (
            <p className="muted">No calls in this period.</p>
          ) : (
            <table className="usage-table" data-testid="usage-table" aria-label="Usage by day, provider, model and kind">
              <thead>
                <tr>
                  {["Day", "Provider", "Model", "Kind", "Calls", "Tokens in", "Tokens out", "Cost"].map((h) => (
                    <th scope="col" key={h}>{h}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {report.rows.map((r, i) => (
                  <tr key={i} data-testid="usage-row">
                    <td>{r.day}</td>
                    <td>{r.provider}</td>
                    <td>{r.model}</td>
                    <td>{r.kind}</td>
                    <td className="num">{r.count}</td>
                    <td className="num">{r.inputTokens}</td>
                    <td className="num">{r.outputTokens}</td>
                    <td className="num">{formatCost(r.cost)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
