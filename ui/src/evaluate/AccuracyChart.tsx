// Overall accuracy against cost or against the median latency, a point per
// candidate (recharts). A candidate without the figure (no price, no
// latency) has no point and is named under the chart.
import { useState } from "react";
import { CartesianGrid, LabelList, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CandidateView } from "../ipc";
import { chartPoints, formatCost } from "./model";

type Axis = "cost" | "latency";

export function AccuracyChart({ candidates }: { candidates: CandidateView[] }) {
  const [axis, setAxis] = useState<Axis>("cost");
  const all = chartPoints(candidates);
  const points = all.filter((p) => p[axis] !== null).map((p) => ({ ...p, x: p[axis] as number }));
  const missing = all.filter((p) => p[axis] === null).map((p) => p.label);
  const xName = axis === "cost" ? "Cost (USD)" : "Latency median (ms)";
  return (
    <section className="card eval-chart" aria-labelledby="chart-title">
      <div className="row spread">
        <h2 id="chart-title">Accuracy against {axis === "cost" ? "cost" : "latency"}</h2>
        <div role="radiogroup" aria-label="Chart axis" className="row">
          {(["cost", "latency"] as const).map((a) => (
            <label key={a} className="inline small">
              <input type="radio" name="eval-chart-axis" checked={axis === a} onChange={() => setAxis(a)} /> {a === "cost" ? "Cost" : "Latency"}
            </label>
          ))}
        </div>
      </div>
      <div data-testid="accuracy-chart" aria-label={`Overall accuracy against ${axis === "cost" ? "cost" : "latency"}, one point per candidate`} role="img">
        <ScatterChart width={560} height={300} margin={{ top: 24, right: 48, bottom: 28, left: 8 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis
            type="number"
            dataKey="x"
            name={xName}
            stroke="var(--muted)"
            tickFormatter={(v: number) => (axis === "cost" ? formatCost(v) : `${v}`)}
            label={{ value: xName, position: "bottom", offset: 10, fill: "var(--muted)" }}
            domain={[0, "auto"]}
          />
          <YAxis type="number" dataKey="accuracy" name="Accuracy" unit="%" domain={[0, 100]} stroke="var(--muted)" label={{ value: "Accuracy (%)", angle: -90, position: "insideLeft", fill: "var(--muted)" }} />
          <Tooltip cursor={{ strokeDasharray: "3 3" }} formatter={(value, name) => (name === "Cost (USD)" ? formatCost(Number(value)) : `${String(value)}`)} />
          <Scatter data={points} fill="var(--accent)" isAnimationActive={false}>
            <LabelList dataKey="label" position="top" fill="var(--fg)" />
          </Scatter>
        </ScatterChart>
      </div>
      {missing.length > 0 && <p className="muted small">Not shown ({axis === "cost" ? "no price" : "no latency"}): {missing.join(", ")}</p>}
    </section>
  );
}
