import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from "react";
import type { Edge, StepNode, WorkflowGraph } from "./graph";
import { edgePath, fitView, neighbour, NODE_HEIGHT, NODE_WIDTH, zoomAt, type Direction, type Layout, type Point, type View } from "./layout";
import type { StepStatus } from "./source";

interface Props {
  graph: WorkflowGraph;
  layout: Layout;
  selected: string | null;
  /** Messages by node key. */
  problems: Map<string, string[]>;
  /** Run status by step name (absent: no run). */
  statuses: Map<string, StepStatus>;
  /** A short run detail by step name (e.g. `0.15 s`, `reused`). */
  details?: Map<string, string>;
  /** The view fits the drawing again when this changes (the open file). */
  fitKey?: string;
  onSelect: (key: string | null) => void;
  /** `to` should depend on `from`. */
  onConnect: (from: string, to: string) => void;
  onDisconnect: (edge: Edge) => void;
  onDelete: (key: string) => void;
}

// Short on the node; in full for screen readers.
const KIND_LABEL: Record<StepNode["kind"], string> = { run: "shell", chat: "chat", dag: "dag.run", other: "nothing to run" };
const KIND_NAME: Record<StepNode["kind"], string> = { run: "shell step", chat: "chat.completion step", dag: "dag.run step", other: "step with nothing to run" };

const ARROWS: Record<string, Direction | undefined> = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };

interface Drag {
  kind: "pan" | "connect";
  from?: string;
  startX: number;
  startY: number;
  view: View;
}

/** The DAG in SVG: pan by dragging the background, zoom with the wheel or the buttons, connect by dragging a node's right handle onto another node. */
export function Canvas({ graph, layout, selected, problems, statuses, details, fitKey, onSelect, onConnect, onDisconnect, onDelete }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<View>({ x: 0, y: 0, scale: 1 });
  const [drag, setDrag] = useState<Drag | null>(null);
  const [pointer, setPointer] = useState<Point | null>(null);
  const [hoverTarget, setHoverTarget] = useState<string | null>(null);
  const fitted = useRef<string | null>(null);
  const [visible, setVisible] = useState(false);

  const fit = () => {
    const el = box.current;
    if (el !== null) setView(fitView(layout.width, layout.height, el.clientWidth, el.clientHeight));
  };
  // The screen may be mounted hidden: fit once the box has a size, and again for another file.
  useEffect(() => {
    const el = box.current;
    if (el === null || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => setVisible(el.clientWidth > 0));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    const key = fitKey ?? "";
    if (fitted.current !== key && graph.nodes.length > 0 && visible) {
      fitted.current = key;
      fit();
    }
  });

  // Wheel zoom needs a non-passive listener to keep the page from scrolling.
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const wheel = (event: WheelEvent) => {
      event.preventDefault();
      const rect = el.getBoundingClientRect();
      setView((v) => zoomAt(v, Math.exp(-event.deltaY * 0.0015), event.clientX - rect.left, event.clientY - rect.top));
    };
    el.addEventListener("wheel", wheel, { passive: false });
    return () => el.removeEventListener("wheel", wheel);
  }, []);

  const toGraph = (clientX: number, clientY: number): Point => {
    const rect = box.current?.getBoundingClientRect();
    return { x: (clientX - (rect?.left ?? 0) - view.x) / view.scale, y: (clientY - (rect?.top ?? 0) - view.y) / view.scale };
  };

  const nodeAt = (p: Point): string | null => {
    for (const [key, pos] of layout.positions) {
      if (p.x >= pos.x && p.x <= pos.x + NODE_WIDTH && p.y >= pos.y && p.y <= pos.y + NODE_HEIGHT) return key;
    }
    return null;
  };

  const down = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    const target = event.target as Element;
    const handle = target.closest("[data-handle]")?.getAttribute("data-handle");
    if (handle) {
      setDrag({ kind: "connect", from: handle, startX: event.clientX, startY: event.clientY, view });
      setPointer(toGraph(event.clientX, event.clientY));
    } else if (target.closest("[data-node], [data-edge], button") === null) {
      setDrag({ kind: "pan", startX: event.clientX, startY: event.clientY, view });
    } else return;
    event.currentTarget.setPointerCapture(event.pointerId);
  };

  const move = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (drag === null) return;
    if (drag.kind === "pan") {
      setView({ ...drag.view, x: drag.view.x + event.clientX - drag.startX, y: drag.view.y + event.clientY - drag.startY });
    } else {
      const p = toGraph(event.clientX, event.clientY);
      setPointer(p);
      setHoverTarget(nodeAt(p));
    }
  };

  const up = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (drag?.kind === "connect" && drag.from !== undefined) {
      const target = nodeAt(toGraph(event.clientX, event.clientY));
      if (target !== null && target !== drag.from) onConnect(drag.from, target);
    } else if (drag?.kind === "pan" && Math.abs(event.clientX - drag.startX) + Math.abs(event.clientY - drag.startY) < 3) {
      onSelect(null);
    }
    setDrag(null);
    setPointer(null);
    setHoverTarget(null);
  };

  const nodeKeys = (event: KeyboardEvent, key: string) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onSelect(key);
    } else if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      onDelete(key);
    } else if (ARROWS[event.key] !== undefined) {
      event.preventDefault();
      const next = neighbour(layout.positions, key, ARROWS[event.key] as Direction);
      if (next !== null) box.current?.querySelector<SVGGElement>(`[data-node="${CSS.escape(next)}"]`)?.focus();
    }
  };

  const byKey = useMemo(() => new Map(graph.nodes.map((n) => [n.key, n])), [graph]);
  const from = drag?.kind === "connect" && drag.from !== undefined ? layout.positions.get(drag.from) : undefined;

  return (
    <div className="wf-canvas-wrap">
      <div className="wf-canvas-tools row" role="toolbar" aria-label="Canvas view">
        <button type="button" className="icon" aria-label="Zoom in" onClick={() => setView((v) => zoomAt(v, 1.25, (box.current?.clientWidth ?? 0) / 2, (box.current?.clientHeight ?? 0) / 2))}>
          +
        </button>
        <button type="button" className="icon" aria-label="Zoom out" onClick={() => setView((v) => zoomAt(v, 0.8, (box.current?.clientWidth ?? 0) / 2, (box.current?.clientHeight ?? 0) / 2))}>
          −
        </button>
        <button type="button" className="small-button" onClick={fit}>
          Fit
        </button>
        <button type="button" className="small-button" onClick={() => setView({ x: 0, y: 0, scale: 1 })}>
          1:1
        </button>
        <span className="muted small" data-testid="canvas-zoom">
          {Math.round(view.scale * 100)}%
        </span>
      </div>
      <div
        ref={box}
        className={`wf-canvas${drag?.kind === "pan" ? " panning" : ""}`}
        data-testid="workflow-canvas"
        onPointerDown={down}
        onPointerMove={move}
        onPointerUp={up}
        onPointerCancel={() => setDrag(null)}
      >
        {graph.nodes.length === 0 ? <p className="empty">No steps yet: add one with the buttons above.</p> : null}
        <svg role="group" aria-label="Workflow steps" width="100%" height="100%">
          <defs>
            <marker id="wf-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="wf-arrow" />
            </marker>
          </defs>
          <g transform={`translate(${view.x} ${view.y}) scale(${view.scale})`}>
            {graph.edges.map((edge) => {
              const a = layout.positions.get(edge.from);
              const b = layout.positions.get(edge.to);
              if (a === undefined || b === undefined) return null;
              const label = `${byKey.get(edge.from)?.name} to ${byKey.get(edge.to)?.name}`;
              return (
                <g
                  key={`${edge.from}->${edge.to}:${edge.ref}`}
                  className="wf-edge"
                  data-edge={`${edge.from}->${edge.to}`}
                  tabIndex={0}
                  role="button"
                  aria-label={`Dependency ${label} (Delete removes it)`}
                  onKeyDown={(e) => {
                    if (e.key === "Delete" || e.key === "Backspace") onDisconnect(edge);
                  }}
                  onDoubleClick={() => onDisconnect(edge)}
                >
                  <path d={edgePath(a, b)} className="wf-edge-hit" />
                  <path d={edgePath(a, b)} className="wf-edge-line" markerEnd="url(#wf-arrow)" />
                  <title>{`${label}: double-click or Delete to remove`}</title>
                </g>
              );
            })}
            {from !== undefined && pointer !== null ? <path className="wf-edge-line wf-edge-draft" d={edgePath(from, { x: pointer.x, y: pointer.y - NODE_HEIGHT / 2 })} /> : null}
            {graph.nodes.map((node) => {
              const pos = layout.positions.get(node.key);
              if (pos === undefined) return null;
              const status = statuses.get(node.name);
              const messages = problems.get(node.key) ?? [];
              const state = [KIND_NAME[node.kind], status, details?.get(node.name), messages.length > 0 ? `${messages.length} problem${messages.length > 1 ? "s" : ""}` : null].filter(Boolean).join(", ");
              return (
                <g
                  key={node.key}
                  data-node={node.key}
                  data-status={status ?? "none"}
                  data-invalid={messages.length > 0 ? "true" : undefined}
                  className={`wf-node${node.key === selected ? " selected" : ""}${hoverTarget === node.key ? " target" : ""}`}
                  transform={`translate(${pos.x} ${pos.y})`}
                  tabIndex={0}
                  role="button"
                  aria-pressed={node.key === selected}
                  aria-label={`Step ${node.name} (${state})`}
                  onClick={() => onSelect(node.key)}
                  onKeyDown={(e) => nodeKeys(e, node.key)}
                >
                  <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx="8" className="wf-node-box" />
                  <rect width="6" height={NODE_HEIGHT} rx="3" className={`wf-node-status status-${status ?? "none"}`} />
                  <text x="16" y="23" className="wf-node-name">
                    {node.name.length > 20 ? `${node.name.slice(0, 19)}…` : node.name}
                  </text>
                  <text x="16" y="42" className="wf-node-kind">
                    {KIND_LABEL[node.kind]}
                    {status ? ` · ${status}` : ""}
                    {details?.get(node.name) ? ` · ${details.get(node.name)}` : ""}
                  </text>
                  {node.name.length > 20 ? <title>{node.name}</title> : null}
                  {messages.length > 0 ? (
                    <g className="wf-node-problem" transform={`translate(${NODE_WIDTH - 22} 8)`}>
                      <circle cx="8" cy="8" r="8" />
                      <text x="8" y="12" textAnchor="middle">
                        !
                      </text>
                      <title>{messages.join("\n")}</title>
                    </g>
                  ) : null}
                  <circle data-handle={node.key} className="wf-handle" cx={NODE_WIDTH} cy={NODE_HEIGHT / 2} r="7">
                    <title>Drag onto another step to make it depend on this one</title>
                  </circle>
                </g>
              );
            })}
          </g>
        </svg>
      </div>
    </div>
  );
}
