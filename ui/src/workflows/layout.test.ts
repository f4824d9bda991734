import { describe, expect, it } from "vitest";
import { parseWorkflow } from "./graph";
import { edgePath, fitView, layerOf, layout, MARGIN, neighbour, NODE_HEIGHT, NODE_WIDTH, zoomAt } from "./layout";
import { DIAMOND } from "./fixtures";

describe("layout", () => {
  it("puts each step one layer right of its deepest dependency", () => {
    const graph = parseWorkflow(`steps:
  - {name: a, run: x}
  - {name: b, run: x, depends: a}
  - {name: c, run: x, depends: [a, b]}
  - {name: d, run: x}
`);
    expect([...layerOf(graph.nodes.map((n) => n.key), graph.edges)]).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["d", 0],
    ]);
  });

  it("places a diamond in three columns, centring the short ones, in file order", () => {
    const result = layout(parseWorkflow(DIAMOND));
    const step = NODE_HEIGHT + 28;
    expect(Object.fromEntries(result.positions)).toEqual({
      a: { x: MARGIN, y: MARGIN + step / 2 },
      b: { x: MARGIN + NODE_WIDTH + 72, y: MARGIN },
      c: { x: MARGIN + NODE_WIDTH + 72, y: MARGIN + step },
      d: { x: MARGIN + 2 * (NODE_WIDTH + 72), y: MARGIN + step / 2 },
    });
    expect([result.width, result.height]).toEqual([MARGIN * 2 + 3 * NODE_WIDTH + 2 * 72, MARGIN * 2 + 2 * NODE_HEIGHT + 28]);
  });

  it("orders a layer by its parents' rows, so edges do not cross", () => {
    const graph = parseWorkflow(`steps:
  - {name: top, run: x}
  - {name: bottom, run: x}
  - {name: fromBottom, run: x, depends: bottom}
  - {name: fromTop, run: x, depends: top}
`);
    const ys = layout(graph).positions;
    expect(ys.get("fromTop")!.y).toBe(ys.get("top")!.y);
    expect(ys.get("fromBottom")!.y).toBe(ys.get("bottom")!.y);
  });

  it("survives a cycle and an empty graph", () => {
    const graph = parseWorkflow("steps:\n  - {name: a, run: x, depends: b}\n  - {name: b, run: x, depends: a}\n");
    expect(layout(graph).positions.size).toBe(2);
    expect(layout({ nodes: [], edges: [] })).toEqual({ positions: new Map(), layers: new Map(), width: MARGIN * 2, height: MARGIN * 2 });
  });

  it("draws edges from the right side to the left side", () => {
    const bend = (300 - NODE_WIDTH) / 2;
    expect(edgePath({ x: 0, y: 0 }, { x: 300, y: 100 })).toBe(`M ${NODE_WIDTH} ${NODE_HEIGHT / 2} C ${NODE_WIDTH + bend} 28, ${300 - bend} 128, 300 128`);
  });

  it("fits and zooms around a point", () => {
    expect(fitView(1000, 500, 500, 500)).toEqual({ scale: 0.5, x: 0, y: 125 });
    expect(fitView(100, 100, 500, 300)).toEqual({ scale: 1, x: 200, y: 100 });
    const zoomed = zoomAt({ x: 0, y: 0, scale: 1 }, 2, 100, 50);
    expect(zoomed).toEqual({ scale: 2, x: -100, y: -50 });
    expect(zoomAt({ x: 0, y: 0, scale: 2.5 }, 2, 0, 0).scale).toBe(2.5);
  });
});

describe("keyboard neighbours", () => {
  it("moves along the drawing: right to the next layer, up and down within one", () => {
    const { positions } = layout(parseWorkflow(DIAMOND));
    expect(["right", "left", "up", "down"].map((d) => neighbour(positions, "a", d as "right"))).toEqual(["b", null, null, null]);
    expect(neighbour(positions, "b", "down")).toBe("c");
    expect(neighbour(positions, "c", "up")).toBe("b");
    expect(neighbour(positions, "c", "right")).toBe("d");
    expect(neighbour(positions, "d", "left")).toBe("b");
    expect(neighbour(positions, "zz", "left")).toBeNull();
  });
});
