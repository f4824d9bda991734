// Row offsets for a virtualised list: estimated heights, corrected as rows
// are measured, in a Fenwick tree so an update and a lookup cost O(log n)
// even for 10,000 rows.

export class RowHeights {
  private readonly tree: Float64Array;
  private readonly heights: Float64Array;
  private readonly measured: Uint8Array;

  constructor(
    readonly count: number,
    estimate: (index: number) => number,
  ) {
    this.tree = new Float64Array(count + 1);
    this.heights = new Float64Array(count);
    this.measured = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      this.heights[i] = estimate(i);
      this.tree[i + 1] = this.heights[i] ?? 0;
    }
    // Linear-time build.
    for (let i = 1; i <= count; i++) {
      const parent = i + (i & -i);
      if (parent <= count) this.tree[parent] = (this.tree[parent] ?? 0) + (this.tree[i] ?? 0);
    }
  }

  height(index: number): number {
    return this.heights[index] ?? 0;
  }

  isMeasured(index: number): boolean {
    return this.measured[index] === 1;
  }

  /** Records a row's real height; true when it changed. */
  set(index: number, height: number): boolean {
    if (index < 0 || index >= this.count) return false;
    this.measured[index] = 1;
    const delta = height - (this.heights[index] ?? 0);
    if (Math.abs(delta) < 0.5) return false;
    this.heights[index] = height;
    for (let i = index + 1; i <= this.count; i += i & -i) this.tree[i] = (this.tree[i] ?? 0) + delta;
    return true;
  }

  /** The top of row `index` (the sum of the heights before it). */
  offset(index: number): number {
    let sum = 0;
    for (let i = Math.min(index, this.count); i > 0; i -= i & -i) sum += this.tree[i] ?? 0;
    return sum;
  }

  total(): number {
    return this.offset(this.count);
  }

  /** The row at vertical position `y` (clamped to the rows). */
  indexAt(y: number): number {
    if (this.count === 0) return 0;
    let index = 0;
    let remaining = y;
    let step = 1;
    while (step * 2 <= this.count) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = index + step;
      if (next <= this.count && (this.tree[next] ?? 0) <= remaining) {
        index = next;
        remaining -= this.tree[next] ?? 0;
      }
    }
    return Math.min(index, this.count - 1);
  }
}

/** The rows to render for a scroll position: those in view plus `overscan` on each side; `end` is exclusive. */
export function visibleRange(heights: RowHeights, scrollTop: number, viewport: number, overscan = 4): { start: number; end: number } {
  if (heights.count === 0) return { start: 0, end: 0 };
  const first = heights.indexAt(Math.max(0, scrollTop));
  const last = heights.indexAt(Math.max(0, scrollTop + viewport - 1));
  return { start: Math.max(0, first - overscan), end: Math.min(heights.count, last + 1 + overscan) };
}
