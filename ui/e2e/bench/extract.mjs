// The browser benchmark of the Extract table: a 10,000-document job's time
// to first paint when it is opened from the recent jobs, and per scroll
// frame, in Debian's Chromium over the mocked IPC. Figures, not pass/fail:
// they belong in docs/BENCHMARKS.md ("Extract: a 10,000-document job's
// first paint"); e2e/extract-large.test.mjs checks what is rendered.
//
//   npm run build && node e2e/bench/extract.mjs          # 5 runs
//   SIFT_BENCH_RUNS=10 node e2e/bench/extract.mjs
//
// Prints one line per run (EXTRACT_10K_FIRST_PAINT_MS, EXTRACT_10K_SCROLL_FRAME_MS)
// and a summary (min–max).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { useApp } from "../browser.mjs";
import { distDir } from "../serve.mjs";
import { scrollFrames } from "./scrolling.mjs";

if (!existsSync(join(distDir, "index.html"))) {
  console.error(`no built UI in ${distDir}: run \`npm run build\` first`);
  process.exit(2);
}
const RUNS = Number(process.env.SIFT_BENCH_RUNS ?? 5);
const DOCUMENTS = 10_000;
const files = Array.from({ length: DOCUMENTS }, (_, i) => `/d/doc-${String(i + 1).padStart(5, "0")}.pdf`);

const h = {};
const app = useApp({ before: (f) => (h.before = f), after: (f) => (h.after = f), afterEach: (f) => (h.afterEach = f) });
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} ms`;
const results = { paint: [], scrollMean: [], scrollMax: [] };

await h.before();
try {
  for (let i = 0; i < RUNS; i++) {
    const page = await app.open({ pastJobs: [{ schemaName: "invoice", files }] });
    await page.getByTestId("open-job").waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="recent-jobs"]')?.value === "past-1");
    // From the click on Open to the first frame painted after the first row is visible.
    const ms = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const start = performance.now();
          const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
          const ready = () => {
            const row = document.querySelector('[data-testid="result-row"]');
            return row !== null && row.getBoundingClientRect().height > 0 && row.textContent.includes("doc-00001.pdf");
          };
          const observer = new MutationObserver(() => {
            if (ready()) {
              observer.disconnect();
              done();
            }
          });
          observer.observe(document.body, { childList: true, subtree: true, characterData: true });
          document.querySelector('[data-testid="open-job"]').click();
        }),
    );
    console.log(`EXTRACT_10K_FIRST_PAINT_MS=${ms.toFixed(1)}`);
    results.paint.push(ms);
    // Scrolling: the mean and slowest of 60 frames.
    const { mean, slowest } = await scrollFrames(page.locator(".table-wrap"));
    console.log(`EXTRACT_10K_SCROLL_FRAME_MS mean=${mean.toFixed(1)} max=${slowest.toFixed(1)}`);
    results.scrollMean.push(mean);
    results.scrollMax.push(slowest);
    await h.afterEach();
  }
} finally {
  await h.after();
}

console.log(`\n${RUNS} runs:`);
console.log(`  10,000-document job opened from the recent jobs, first paint: ${range(results.paint)}`);
console.log(`  a scroll step of 1,500 px: mean ${range(results.scrollMean)}, slowest ${range(results.scrollMax)}`);
