// Pure presentation helpers: no IPC, no DOM, so they are unit-tested directly.

/**
 * A version string as the page shows it: "v" + the bare version, e.g.
 * "0.1.0" -> "v0.1.0". Tolerates a leading "v" and surrounding whitespace;
 * anything that does not look like a version becomes "unknown version".
 */
export function formatVersion(version: string): string {
  const bare = version.trim().replace(/^v/i, "");
  if (!/^\d+(\.\d+){0,2}([-+][0-9A-Za-z.+-]+)?$/.test(bare)) {
    return "unknown version";
  }
  return `v${bare}`;
}

/** A short human-readable reason from whatever an IPC call rejected with. */
export function describeError(error: unknown): string {
  if (typeof error === "string" && error.trim() !== "") return error.trim();
  if (error instanceof Error && error.message !== "") return error.message;
  if (typeof error === "object" && error !== null && "message" in error) {
    const message = (error as { message: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
  }
  return "unknown error";
}
