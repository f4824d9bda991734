// The README's Evaluate screenshots: the built UI with the IPC mocked, a
// finished run of SmolLM2-135M with and without OCR over 16 invoices.
//
//   npm run build && node e2e/screenshots-evaluate.mjs
import { fileURLToPath } from "node:url";
import { launch, openApp } from "./browser.mjs";
import { readmeRun } from "./evaluate-fixtures.mjs";
import { serve } from "./serve.mjs";

const out = (name) => fileURLToPath(new URL(`../../docs/screenshots/${name}`, import.meta.url));
const run = readmeRun();
const server = await serve();
const browser = await launch();
try {
  const { page, context } = await openApp(browser, server.url, {
    evalView: run,
    labelledSets: [{ name: "invoices-16", schemaName: "invoice", schemaVersion: 1, fields: run.fields, source: "file invoices-16.tsv", documents: 16, createdAt: 1763900000000 }],
    settings: {
      providers: [{ id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null }],
      defaultProvider: "local",
      defaultModel: "SmolLM2-135M-Instruct-Q4_K_M.gguf",
      dataDir: null,
    },
  });
  await page.getByTestId("nav-evaluate").click();
  await page.getByRole("button", { name: "Add a candidate" }).click();
  await page.getByLabel("Model of candidate 2").fill("SmolLM2-135M-Instruct-Q4_K_M.gguf");
  await page.getByLabel("OCR for candidate 2").uncheck();
  await page.getByRole("button", { name: "Run 2 candidates" }).click();
  await page.waitForFunction(() => window.__siftEvaluateMock.running);
  await page.evaluate(() => window.__siftEvaluateMock.finish());
  await page.locator('[data-testid="matrix-cell"][data-field="total"][data-candidate="SmolLM2-135M"]').click();
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
