// An automatic layered layout of the DAG: each step goes one layer right of
// its deepest dependency (longest path), steps in a layer are ordered by the
// mean place of their dependencies (ties: file order), so the picture is
// stable while the file changes little.
import type { Edge, WorkflowGraph } from "./graph";

export const NODE_WIDTH = 196;
export const NODE_HEIGHT = 56;
const LAYER_GAP = 72;
const ROW_GAP = 28;
export const MARGIN = 24;

export interface Point {
  x: number;
  y: number;
}

export interface Layout {
  /** Top-left corner of each node, by key. */
  positions: Map<string, Point>;
  /** Layer of each node, by key (0 for steps without dependencies). */
  layers: Map<string, number>;
  width: number;
  height: number;
}

/** Longest-path layers; an edge that closes a cycle is ignored. */
export function layerOf(keys: string[], edges: Edge[]): Map<string, number> {
  const parents = new Map<string, string[]>(keys.map((k) => [k, []]));
  for (const e of edges) parents.get(e.to)?.push(e.from);
  const layers = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (key: string): number => {
    const known = layers.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) return -1; // a cycle: this edge does not count
    visiting.add(key);
    let layer = 0;
    for (const parent of parents.get(key) ?? []) layer = Math.max(layer, visit(parent) + 1);
    visiting.delete(key);
    layers.set(key, layer);
    return layer;
  };
  for (const key of keys) visit(key);
  return layers;
}

/** Positions for every node, left to right by layer. */
export function layout(graph: Pick<WorkflowGraph, "nodes" | "edges">): Layout {
  const keys = graph.nodes.map((n) => n.key);
  const order = new Map(keys.map((k, i) => [k, i]));
  const layers = layerOf(keys, graph.edges);
  const columns: string[][] = [];
  for (const key of keys) {
    const layer = layers.get(key) ?? 0;
    (columns[layer] ??= []).push(key);
  }
  const row = new Map<string, number>();
  const parents = new Map<string, string[]>();
  for (const e of graph.edges) parents.set(e.to, [...(parents.get(e.to) ?? []), e.from]);
  columns.forEach((column, layer) => {
    if (layer > 0) {
      const weight = (key: string) => {
        const placed = (parents.get(key) ?? []).map((p) => row.get(p)).filter((r): r is number => r !== undefined);
        return placed.length === 0 ? Number.POSITIVE_INFINITY : placed.reduce((a, b) => a + b, 0) / placed.length;
      };
      column.sort((a, b) => weight(a) - weight(b) || (order.get(a) ?? 0) - (order.get(b) ?? 0));
    }
    column.forEach((key, i) => row.set(key, i));
  });
  const tallest = Math.max(0, ...columns.map((c) => c.length));
  const positions = new Map<string, Point>();
  columns.forEach((column, layer) => {
    // Shorter columns are centred against the tallest.
    const offset = ((tallest - column.length) * (NODE_HEIGHT + ROW_GAP)) / 2;
    column.forEach((key, i) => {
      positions.set(key, { x: MARGIN + layer * (NODE_WIDTH + LAYER_GAP), y: MARGIN + offset + i * (NODE_HEIGHT + ROW_GAP) });
    });
  });
  return {
    positions,
    layers,
    width: MARGIN * 2 + Math.max(0, columns.length * (NODE_WIDTH + LAYER_GAP) - LAYER_GAP),
    height: MARGIN * 2 + Math.max(0, tallest * (NODE_HEIGHT + ROW_GAP) - ROW_GAP),
  };
}

/** An SVG path for an edge: from the right side of `from` to the left side of `to`. */
export function edgePath(from: Point, to: Point): string {
  const x1 = from.x + NODE_WIDTH;
  const y1 = from.y + NODE_HEIGHT / 2;
  const x2 = to.x;
  const y2 = to.y + NODE_HEIGHT / 2;
  const bend = Math.max(24, Math.abs(x2 - x1) / 2);
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
}

export interface View {
  x: number;
  y: number;
  scale: number;
}

export const MIN_SCALE = 0.2;
export const MAX_SCALE = 2.5;

export function clampScale(scale: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}

/** The view that shows the whole drawing in a viewport, never above 1:1. */
export function fitView(width: number, height: number, viewportWidth: number, viewportHeight: number): View {
  if (width <= 0 || height <= 0 || viewportWidth <= 0 || viewportHeight <= 0) return { x: 0, y: 0, scale: 1 };
  const scale = clampScale(Math.min(1, viewportWidth / width, viewportHeight / height));
  return { scale, x: (viewportWidth - width * scale) / 2, y: (viewportHeight - height * scale) / 2 };
}

/** Zooms by `factor` keeping the point (px, py) of the viewport where it is. */
export function zoomAt(view: View, factor: number, px: number, py: number): View {
  const scale = clampScale(view.scale * factor);
  const k = scale / view.scale;
  return { scale, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
}

export type Direction = "left" | "right" | "up" | "down";

/**
 * The node to move the keyboard focus to from `key`: the nearest one whose
 * centre lies in `direction` (within 45° of it), nearer ones along the axis
 * first; null when there is none.
 */
export function neighbour(positions: Map<string, Point>, key: string, direction: Direction): string | null {
  const from = positions.get(key);
  if (from === undefined) return null;
  let best: string | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const [other, p] of positions) {
    if (other === key) continue;
    const dx = p.x - from.x;
    const dy = p.y - from.y;
    const along = direction === "right" ? dx : direction === "left" ? -dx : direction === "down" ? dy : -dy;
    const across = direction === "right" || direction === "left" ? Math.abs(dy) : Math.abs(dx);
    if (along <= 0 || across > along) continue;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = other;
    }
  }
  return best;
}
