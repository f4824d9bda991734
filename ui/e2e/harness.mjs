// Builds the harness of ui/e2e/harness (Workflows, Chat and Transcripts over in-memory
// sources) with Vite into a scratch folder and serves it with the window's
// CSP, like serve.mjs does for the app.
import { build } from "vite";
import { createServer } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { windowCsp } from "./serve.mjs";
import { launch, WAIT_MS } from "./browser.mjs";

const uiDir = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml" };

async function buildHarness() {
  const outDir = await mkdtemp(join(tmpdir(), "sift-harness-"));
  await build({
    root: uiDir,
    configFile: join(uiDir, "vite.config.ts"),
    logLevel: "error",
    // HARNESS_MINIFY=0 keeps names readable in stack traces.
    build: { outDir, emptyOutDir: true, minify: process.env.HARNESS_MINIFY !== "0", rollupOptions: { input: join(uiDir, "e2e", "harness", "index.html") } },
  });
  return outDir;
}

async function serveDir(dir) {
  const csp = await windowCsp();
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const file = join(dir, normalize(decodeURIComponent(url.pathname)));
      if (!file.startsWith(dir)) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      const headers = { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" };
      if (csp !== null && extname(file) === ".html") headers["content-security-policy"] = csp;
      const body = await readFile(file);
      res.writeHead(200, headers);
      res.end(body);
    } catch (error) {
      res.writeHead(error?.code === "ENOENT" ? 404 : 500);
      res.end(String(error?.message ?? error));
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/e2e/harness/index.html`, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * Stops the page's clock (opened with `clock: true`) a second ahead of now,
 * firing what was due; from then on only `page.clock.runFor(ms)` moves it,
 * until `page.clock.resume()`.
 */
export async function pauseClock(page) {
  const now = await page.evaluate(() => Date.now());
  await page.clock.pauseAt(now + 1000);
}

/**
 * For a node:test file: the harness built and served once, one browser, and
 * `open(screen)` for a fresh page; after each test the page must have logged
 * no console error (a CSP violation included).
 */
export function useHarness({ before, after, afterEach }) {
  const state = { dir: null, server: null, browser: null, pages: [] };
  before(async () => {
    state.dir = await buildHarness();
    state.server = await serveDir(state.dir);
    state.browser = await launch();
  });
  after(async () => {
    await state.browser?.close();
    await state.server?.close();
    if (state.dir) await rm(state.dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const { context, errors } of state.pages.splice(0)) {
      await context.close();
      if (errors.length > 0) throw new Error(`console errors:\n${errors.join("\n")}`);
    }
  });
  return {
    /**
     * `clock: true` installs Playwright's clock before the page loads: time runs
     * as usual until the test pauses it (`page.clock.pauseAt`) and moves it on
     * by hand (`page.clock.runFor`), so the in-memory sources' delays (a
     * streamed word, a running step) pass exactly when the test says.
     */
    async open(screen, { viewport = { width: 1500, height: 950 }, clock = false } = {}) {
      const context = await state.browser.newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      page.setDefaultNavigationTimeout(WAIT_MS);
      if (clock) await page.clock.install();
      const errors = [];
      page.on("console", (msg) => {
        if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
      });
      page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
      state.pages.push({ context, errors });
      await page.goto(`${state.server.url}#${screen}`);
      return page;
    },
  };
}
