// Each candidate's figures under the matrix (latency, tokens, cost,
// evidence, failures) and each pair's comparison in words.
import type { EvalRunView } from "../ipc";
import { formatCost, formatFailures, formatMs, percent } from "./model";

export function Figures({ view }: { view: EvalRunView }) {
  const rows: [string, (i: number) => string][] = [
    ["Latency median / p95", (i) => { const c = view.candidates[i]!; return `${formatMs(c.latencyMedianMs)} / ${formatMs(c.latencyP95Ms)}`; }],
    ["Tokens in / out", (i) => { const c = view.candidates[i]!; return `${c.inputTokens} / ${c.outputTokens}`; }],
    ["Cost", (i) => { const c = view.candidates[i]!; return formatCost(c.cost, c.priceSource); }],
    ["With evidence", (i) => { const c = view.candidates[i]!; return `${c.withEvidence}/${c.values} ${percent(c.withEvidence, c.values)}`; }],
    ["Failures", (i) => formatFailures(view.candidates[i]!.failures)],
  ];
  return (
    <>
      <table className="eval-figures" data-testid="figures" aria-label="Figures by candidate">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            {view.candidates.map((c) => (
              <th scope="col" key={c.position}>{c.candidate.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              {view.candidates.map((c, i) => (
                <td key={c.position}>{value(i)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {view.pairs.length > 0 && (
        <ul className="eval-pairs" data-testid="pairs">
          {view.pairs.map((p) => (
            <li key={`${p.a}|${p.b}`} data-testid="pair">
              <span className={`badge ${p.withinNoise ? "badge-muted" : "eval-beyond"}`}>{p.withinNoise ? "within noise" : "beyond noise"}</span> {p.statement}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
