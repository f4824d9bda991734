// The local server's GGUF models (the data directory's `models/`) as the
// Settings card shows them, and the server's state after a switch.
import type { LocalModel, LocalServerStatus } from "../ipc";

/** `1,234.5 MB`: megabytes of 1,000,000 bytes, one decimal (as `sift models list`). */
export function formatSize(bytes: number): string {
  return `${(bytes / 1_000_000).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** `8,192 tokens`, or `—` when the header does not say. */
export function formatContext(tokens: number | null | undefined): string {
  return tokens == null ? "—" : `${tokens.toLocaleString("en-US")} tokens`;
}

/** A model the server can start with: readable, and not a projector. */
export function isUsableModel(model: LocalModel): boolean {
  return model.problem == null && !model.projector;
}

/** The readable multimodal projectors (`mmproj`), which go with a model. */
export function projectorsOf(models: LocalModel[]): LocalModel[] {
  return models.filter((m) => m.problem == null && m.projector);
}

// Where a file name's quantisation or precision begins (`Q4_K_M`, `IQ3_XS`, `f16`, `bf16`).
const QUANT = /^(i?q\d+|b?f16|f32)$/;

/** A file name reduced to what names the model: lower case, no `mmproj`, nothing from its quantisation on, no extension. */
function stem(file: string): string {
  const tokens = file
    .toLowerCase()
    .replace(/\.gguf$/, "")
    .split(/[-_.\s]+/)
    .filter((t) => t !== "" && t !== "mmproj");
  const quant = tokens.findIndex((t) => QUANT.test(t));
  return (quant < 0 ? tokens : tokens.slice(0, quant)).join("-");
}

/**
 * The projector made for `model`, by name (`mmproj-Qwen2-VL-2B-Instruct-f16.gguf`
 * for `Qwen2-VL-2B-Instruct-Q4_K_M.gguf`: the same name, or the start of the
 * model's); null when none or several fit.
 */
export function suggestProjector(model: LocalModel, projectors: LocalModel[]): string | null {
  const own = stem(model.file);
  if (own === "") return null;
  const fits = projectors.filter((p) => {
    const theirs = stem(p.file);
    return theirs !== "" && (theirs === own || own.startsWith(`${theirs}-`));
  });
  return fits.length === 1 ? (fits[0]?.file ?? null) : null;
}

/** The server's state in the card: a short label, its class, and the failure's message (the log's last lines). */
export interface ServerLine {
  label: string;
  className: string;
  log: string | null;
}

export function serverLine(status: LocalServerStatus): ServerLine {
  switch (status.state) {
    case "starting":
      return { label: "Loading the model…", className: "server-starting", log: null };
    case "running":
      return { label: "Ready", className: "server-running", log: null };
    case "failed":
      return { label: "Failed to start", className: "server-failed", log: status.message };
    case "stopped":
      return { label: "Not running", className: "server-stopped", log: null };
  }
}

/** What the card says once a model was added. */
export function addedMessage(model: LocalModel): string {
  const kind = model.projector ? "projector" : "model";
  return `Added ${model.file} (${kind}, ${model.linked ? "linked" : "copied"}).`;
}
