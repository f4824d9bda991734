// A file dragged onto the Sift window as a person does it: a GTK window
// (drag_source.py) offers the file as a file manager would, and the mouse
// (xdotool) drags it across the X display onto Sift's window. Tauri's
// native drop then hands the app the path, not the bytes.
import { execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Drags `file` onto the window; resolves once the mouse is released (the drop's effect is for the caller to wait for). */
export async function dragOntoWindow(browser, file) {
  const source = spawn("/usr/bin/python3", [join(here, "drag_source.py"), "1050", "620", file], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise((resolve, reject) => {
      source.stdout.on("data", (chunk) => String(chunk).includes("ready") && resolve());
      source.on("exit", (code) => reject(new Error(`the drag source exited (${code})`)));
    });
    const xdotool = (...args) => execFileSync("xdotool", args.map(String));
    xdotool("mousemove", 1130, 680, "mousedown", 1);
    for (const [x, y] of [[1120, 670], [1100, 650], [1000, 600], [800, 500], [600, 420], [590, 410]]) {
      xdotool("mousemove", x, y);
      await browser.pause(60);
    }
    xdotool("mouseup", 1);
    return () => source.kill();
  } catch (error) {
    source.kill();
    throw error;
  }
}
