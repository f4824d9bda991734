// What the user says a model can take (the configuration file's `[[models]]`),
// as the Settings screen edits it, and what the engine detected.
import type { CapabilitySource, ModelCapabilities, ModelOverride } from "../ipc";

/** One answer as the editor offers it: as detected, or forced on or off. */
export type CapabilityChoice = "detected" | "yes" | "no";

/** An override row: `ModelOverride` with each answer a choice. */
export interface ModelOverrideEntry {
  provider: string;
  model: string;
  images: CapabilityChoice;
  tools: CapabilityChoice;
}

function toChoice(value: boolean | null | undefined): CapabilityChoice {
  if (value === true) return "yes";
  if (value === false) return "no";
  return "detected";
}

function fromChoice(choice: CapabilityChoice): boolean | null {
  if (choice === "yes") return true;
  if (choice === "no") return false;
  return null;
}

export function toOverrideEntry(o: ModelOverride): ModelOverrideEntry {
  return { provider: o.provider, model: o.model, images: toChoice(o.images), tools: toChoice(o.tools) };
}

/** The rows as saved: trimmed; a row without a model, or leaving both answers as detected, says nothing and is dropped. */
export function fromOverrideEntries(entries: ModelOverrideEntry[]): ModelOverride[] {
  return entries
    .map((e) => ({ ...e, provider: e.provider.trim(), model: e.model.trim() }))
    .filter((e) => e.model !== "" && (e.images !== "detected" || e.tools !== "detected"))
    .map((e) => ({ provider: e.provider, model: e.model, images: fromChoice(e.images), tools: fromChoice(e.tools) }));
}

/** Problems that stop a save of the overrides, one line each. */
export function overrideProblems(entries: ModelOverrideEntry[], providerIds: string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const o of fromOverrideEntries(entries)) {
    if (!providerIds.includes(o.provider)) problems.push(`${o.model}: pick one of the providers.`);
    const key = `${o.provider}\u0000${o.model}`;
    if (seen.has(key)) problems.push(`${o.model} (${o.provider}) has two overrides.`);
    seen.add(key);
  }
  return problems;
}

export function newOverride(provider: string, model: string): ModelOverrideEntry {
  return { provider, model, images: "detected", tools: "detected" };
}

const SOURCE_LABELS: Record<CapabilitySource, string> = {
  override: "your override",
  server: "the server",
  knownFamily: "known model family",
  default: "default for unknown models",
};

/** One line: `images: no (the server, GET /props) · tools: yes (known model family, smollm)`. */
export function describeCapabilities(c: ModelCapabilities): string {
  const one = (name: string, value: boolean, source: CapabilitySource) => {
    const detail = source === "server" ? c.serverRoute : source === "knownFamily" ? c.family : null;
    return `${name}: ${value ? "yes" : "no"} (${SOURCE_LABELS[source]}${detail != null ? `, ${detail}` : ""})`;
  };
  return `${one("images", c.images, c.imagesSource)} · ${one("tools", c.tools, c.toolsSource)}`;
}
