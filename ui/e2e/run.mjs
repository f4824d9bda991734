// The browser suite: the built UI (ui/dist, from `npm run build`) in Debian's
// Chromium with the IPC mocked. Runs every e2e/*.test.mjs, one file at a time.
//
//   npm run build && npm run test:browser
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { distDir } from "./serve.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
if (!existsSync(join(distDir, "index.html"))) {
  console.error(`no built UI in ${distDir}: run \`npm run build\` first`);
  process.exit(2);
}
const files = readdirSync(here)
  .filter((f) => f.endsWith(".test.mjs"))
  .sort()
  .map((f) => join(here, f));
// A snapshot of the build: another `npm run build` during the run (the tree is
// shared) would otherwise replace the lazily loaded chunks mid-test.
const snapshot = mkdtempSync(join(tmpdir(), "sift-ui-dist-"));
cpSync(distDir, snapshot, { recursive: true });
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=1", "--test-reporter=spec", ...files], {
  stdio: "inherit",
  env: { ...process.env, SIFT_UI_DIST: snapshot },
});
rmSync(snapshot, { recursive: true, force: true });
process.exit(result.status ?? 1);
