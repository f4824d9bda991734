// The browser benchmark: a 10,000-message transcript's time to first paint
// and per scroll frame, in Debian's Chromium. Figures, not pass/fail: they
// belong in docs/BENCHMARKS.md ("Transcripts: a 10,000-message chat's first
// paint"), never in a test, whose result must not depend on the machine.
//
//   npm run build && npm run bench:browser          # 5 runs of each case
//   SIFT_BENCH_RUNS=10 npm run bench:browser
//
// Prints one line per run (TRANSCRIPT_10K_FIRST_PAINT_MS, ..._SCROLL_FRAME_MS,
// APP_TRANSCRIPT_10K_FIRST_PAINT_MS) and a summary (min–max) per case, with
// the bounds (first paint under 1 s, a scroll frame under 250 ms)
// noted beside them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { useApp } from "../browser.mjs";
import { useHarness } from "../harness.mjs";
import { distDir } from "../serve.mjs";
import { scrollFrames } from "./scrolling.mjs";

if (!existsSync(join(distDir, "index.html"))) {
  console.error(`no built UI in ${distDir}: run \`npm run build\` first`);
  process.exit(2);
}
const RUNS = Number(process.env.SIFT_BENCH_RUNS ?? 5);

/** useApp / useHarness outside node:test: their hooks, called by hand. */
function hooks() {
  const h = {};
  return { h, register: { before: (f) => (h.before = f), after: (f) => (h.after = f), afterEach: (f) => (h.afterEach = f) } };
}

/** In the page: click `selector`, resolve the ms until the first frame after `ready()` holds. */
function timeToPaint(page, selector, ready) {
  return page.evaluate(
    ([selector, ready]) =>
      new Promise((resolve) => {
        const isReady = new Function(`return (${ready})();`);
        const start = performance.now();
        const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
        const observer = new MutationObserver(() => {
          if (isReady()) {
            observer.disconnect();
            done();
          }
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
        document.querySelector(selector).click();
      }),
    [selector, ready.toString()],
  );
}

const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} ms`;
const results = { harnessPaint: [], scrollMean: [], scrollMax: [], appPaint: [] };

// The screen's harness, over its in-memory source (e2e/harness).
{
  const { h, register } = hooks();
  const harness = useHarness(register);
  await h.before();
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await harness.open("transcripts");
      await page.getByRole("heading", { name: "Transcripts", level: 1 }).waitFor();
      await page.locator('[data-transcript="ses_big"]').waitFor();
      // From the click to the first frame painted after the timeline's rows are in the DOM.
      const ms = await timeToPaint(page, '[data-transcript="ses_big"]', () => document.querySelector('[data-testid="timeline"] .tl-row') !== null);
      console.log(`TRANSCRIPT_10K_FIRST_PAINT_MS=${ms.toFixed(1)}`);
      results.harnessPaint.push(ms);
      // Scrolling: the mean and slowest of 60 frames.
      const { mean, slowest } = await scrollFrames(page.getByTestId("timeline"));
      console.log(`TRANSCRIPT_10K_SCROLL_FRAME_MS mean=${mean.toFixed(1)} max=${slowest.toFixed(1)}`);
      results.scrollMean.push(mean);
      results.scrollMax.push(slowest);
      await h.afterEach();
    }
  } finally {
    await h.after();
  }
}

// The app, through its Tauri source over the mocked IPC.
{
  const { h, register } = hooks();
  const app = useApp(register);
  await h.before();
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await app.open({ longSession: 10_000 });
      await page.getByTestId("nav-transcripts").click();
      await page.locator('[data-transcript="ses_long"]').waitFor();
      // From the click on the list entry to the first frame painted after the first row is visible.
      const ms = await timeToPaint(page, '[data-transcript="ses_long"]', () => {
        const row = document.querySelector('[data-testid="timeline"] .tl-row');
        return row !== null && row.getBoundingClientRect().height > 0 && row.textContent.includes("Question 1");
      });
      console.log(`APP_TRANSCRIPT_10K_FIRST_PAINT_MS=${ms.toFixed(1)}`);
      results.appPaint.push(ms);
      await h.afterEach();
    }
  } finally {
    await h.after();
  }
}

console.log(`\n${RUNS} runs each:`);
console.log(`  10,000-message transcript, harness (in-memory source), first paint: ${range(results.harnessPaint)} (bound: under 1,000 ms)`);
console.log(`  the same, a scroll step of 1,500 px: mean ${range(results.scrollMean)}, slowest ${range(results.scrollMax)} (bound: under 250 ms)`);
console.log(`  10,000-message chat through the app's source and the mocked IPC, first paint: ${range(results.appPaint)} (bound: under 1,000 ms)`);
