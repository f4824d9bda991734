// The native save dialog answered as a person does, for an app built
// without its test hooks (the installed package): the dialog is found on
// the X display by its title, the pointer moved over it (with no window
// manager, the keyboard follows the pointer), the name field's text
// replaced by the path, and Enter.
import { execFileSync } from "node:child_process";

const xdotool = (...args) => execFileSync("xdotool", args.map(String), { encoding: "utf8" });

/** The id of the visible window titled `title`, or null. */
function visibleWindow(title) {
  try {
    return xdotool("search", "--onlyvisible", "--name", `^${title}$`).split("\n")[0] || null;
  } catch {
    // xdotool exits 1 when no window matches.
    return null;
  }
}

/** Waits for the GTK save dialog (`title`: the one the app set, GTK's "Save File" otherwise), saves to `path`, and waits for it to close. */
export async function answerSaveDialog(browser, path, { title = "Save File", timeout }) {
  let window = null;
  await browser.waitUntil(() => (window = visibleWindow(title)) !== null, {
    timeout,
    timeoutMsg: `no "${title}" dialog appeared`,
  });
  xdotool("mousemove", "--window", window, 20, 20);
  xdotool("key", "--clearmodifiers", "ctrl+a");
  xdotool("type", "--delay", 5, path);
  xdotool("key", "Return");
  await browser.waitUntil(() => visibleWindow(title) === null, { timeout, timeoutMsg: `the "${title}" dialog did not close` });
}
