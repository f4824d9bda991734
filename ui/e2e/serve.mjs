// A tiny static server for the built UI (ui/dist) on loopback, sending the
// window's Content-Security-Policy from tauri.conf.json, so the browser suite
// sees what the app's CSP would block.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
// The runner (run.mjs) serves a copy, so a build during the run cannot swap files under it.
export const distDir = process.env.SIFT_UI_DIST ?? resolve(here, "..", "dist");
const confPath = resolve(here, "..", "..", "tauri.conf.json");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

/** The CSP header the Tauri window applies (tauri.conf.json app.security.csp). */
export async function windowCsp() {
  const conf = JSON.parse(await readFile(confPath, "utf8"));
  const csp = conf?.app?.security?.csp;
  if (csp === undefined || csp === null) return null;
  if (typeof csp === "string") return csp;
  return Object.entries(csp)
    .map(([directive, value]) => `${directive} ${Array.isArray(value) ? value.join(" ") : value}`)
    .join("; ");
}

/** Starts the server on a free loopback port; resolves to { url, close }. */
export async function serve() {
  const csp = await windowCsp();
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      let path = normalize(decodeURIComponent(url.pathname));
      if (path.endsWith("/")) path += "index.html";
      const file = join(distDir, path);
      if (!file.startsWith(distDir)) throw Object.assign(new Error("outside"), { code: "ENOENT" });
      const body = await readFile(file);
      const headers = { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" };
      if (csp !== null && extname(file) === ".html") headers["content-security-policy"] = csp;
      res.writeHead(200, headers);
      res.end(body);
    } catch (error) {
      res.writeHead(error?.code === "ENOENT" ? 404 : 500, { "content-type": "text/plain" });
      res.end(String(error?.message ?? error));
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}
