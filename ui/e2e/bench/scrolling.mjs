// The scroll figure the browser benchmarks share: 60 steps of 1,500 px
// through a scrolled element, one frame each.

/** The mean and the slowest frame time (ms) of scrolling `locator`'s element. */
export async function scrollFrames(locator) {
  const frames = await locator.evaluate(async (el) => {
    const times = [];
    for (let i = 0; i < 60; i++) {
      const start = performance.now();
      el.scrollTop += 1500;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      times.push(performance.now() - start);
    }
    return times;
  });
  return { mean: frames.reduce((a, b) => a + b, 0) / frames.length, slowest: Math.max(...frames) };
}
