import { useEffect, useState } from "react";
import { describeError } from "../format";
import type { ExtractSource, Preview as PreviewData } from "./source";

type Load = { state: "loading" } | { state: "ready"; preview: PreviewData } | { state: "failed"; error: string };

/** The document as a picture: a PDF page or the image, from the Rust side as a data URL. */
export function DocumentPreview({ source, path, name }: { source: Pick<ExtractSource, "documentPreview">; path: string; name: string }) {
  const [page, setPage] = useState(1);
  const [load, setLoad] = useState<Load>({ state: "loading" });

  useEffect(() => setPage(1), [path]);
  useEffect(() => {
    let live = true;
    setLoad({ state: "loading" });
    source.documentPreview(path, page).then(
      (preview) => live && setLoad({ state: "ready", preview }),
      (error: unknown) => live && setLoad({ state: "failed", error: describeError(error) }),
    );
    return () => {
      live = false;
    };
  }, [source, path, page]);

  return (
    <figure className="preview" data-testid="document-preview">
      {load.state === "loading" && <p className="muted">Loading the preview…</p>}
      {load.state === "failed" && <p className="muted">No preview: {load.error}</p>}
      {load.state === "ready" && (
        <>
          {load.preview.dataUrl !== null ? (
            <img src={load.preview.dataUrl} alt={`${name}, page ${load.preview.page} of ${load.preview.pages}`} />
          ) : (
            <pre className="preview-text" aria-label={`Text of ${name}`}>{load.preview.text ?? ""}</pre>
          )}
          {load.preview.pages > 1 && (
            <figcaption className="row">
              <button type="button" className="icon" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>‹</button>
              <span className="small">Page {load.preview.page} of {load.preview.pages}</span>
              <button type="button" className="icon" aria-label="Next page" disabled={page >= load.preview.pages} onClick={() => setPage((p) => p + 1)}>›</button>
            </figcaption>
          )}
        </>
      )}
    </figure>
  );
}
