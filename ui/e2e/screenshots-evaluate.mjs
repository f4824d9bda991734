// The README's Evaluate screenshots: the built UI with the IPC mocked by a
// real run: SmolLM2-135M with OCR on and off over the corpus's 25 labelled
// invoices, as `SIFT_BENCH_VIEW=FILE scripts/bench-eval-local.sh` wrote it
// (e2e/fixtures/readme-eval-run.json; docs/BENCHMARKS.md has its figures).
//
//   npm run build && node e2e/screenshots-evaluate.mjs
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launch, openApp } from "./browser.mjs";
import { serve } from "./serve.mjs";

const out = (name) => fileURLToPath(new URL(`../../docs/screenshots/${name}`, import.meta.url));
const run = JSON.parse(readFileSync(new URL("./fixtures/readme-eval-run.json", import.meta.url), "utf8"));
const server = await serve();
const browser = await launch();
try {
  const { page, context } = await openApp(browser, server.url, {
    evalView: run,
    labelledSets: [{ name: run.setName, schemaName: "invoice", schemaVersion: 1, fields: run.fields, source: "file MANIFEST.tsv", documents: run.documents, createdAt: run.createdAt }],
    settings: {
      providers: [{ id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null }],
      defaultProvider: "local",
      defaultModel: "smollm2",
      dataDir: null,
    },
  });
  await page.getByTestId("nav-evaluate").click();
  await page.getByRole("button", { name: "Add a candidate" }).click();
  await page.getByLabel("Model of candidate 2").fill("smollm2");
  await page.getByLabel("OCR for candidate 2").uncheck();
  await page.getByRole("button", { name: "Run 2 candidates" }).click();
  await page.waitForFunction(() => window.__siftEvaluateMock.running);
  await page.evaluate(() => window.__siftEvaluateMock.finish());
  await page.locator('[data-testid="matrix-cell"][data-field="total"][data-candidate="SmolLM2 OCR on"]').click();
  await page.getByTestId("disagreements").waitFor();
  await page.mouse.move(0, 0);
  await page.locator(".eval-main").screenshot({ path: out("evaluate-matrix.png") });
  await page.getByRole("radio", { name: "Latency" }).check();
  await page.getByRole("heading", { name: "Accuracy against latency" }).waitFor();
  await page.locator(".eval-chart").screenshot({ path: out("evaluate-chart.png") });
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
