import { useEffect, useState, type ReactNode } from "react";
import { describeError } from "../format";
import type { ExtractSource, Preview as PreviewData } from "./source";

type Load = { state: "loading" } | { state: "ready"; preview: PreviewData } | { state: "failed"; error: string };

interface Props {
  source: Pick<ExtractSource, "documentPreview">;
  path: string;
  name: string;
  /** 1-based; the pane owns it, so that selecting a value can turn to its page. */
  page: number;
  onPage: (page: number) => void;
  /**
   * Drawn over the page's picture once it has loaded (so boxes are laid
   * over the picture at its size), given the page shown.
   */
  overlay?: (page: number) => ReactNode;
}

/** The document as a picture: a PDF page or the image, from the Rust side as a data URL. */
export function DocumentPreview({ source, path, name, page, onPage, overlay }: Props) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  // The preview whose picture has loaded: the overlay waits for it.
  const [painted, setPainted] = useState<PreviewData | null>(null);

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
            <div className="preview-scroll">
              <div className="preview-page">
                <img
                  src={load.preview.dataUrl}
                  alt={`${name}, page ${load.preview.page} of ${load.preview.pages}`}
                  onLoad={() => setPainted(load.preview)}
                />
                {painted === load.preview && overlay?.(load.preview.page)}
              </div>
            </div>
          ) : (
            <pre className="preview-text" aria-label={`Text of ${name}`}>{load.preview.text ?? ""}</pre>
          )}
          {load.preview.pages > 1 && (
            <figcaption className="row">
              <button type="button" className="icon" aria-label="Previous page" disabled={page <= 1} onClick={() => onPage(page - 1)}>‹</button>
              <span className="small">Page {load.preview.page} of {load.preview.pages}</span>
              <button type="button" className="icon" aria-label="Next page" disabled={page >= load.preview.pages} onClick={() => onPage(page + 1)}>›</button>
            </figcaption>
          )}
        </>
      )}
    </figure>
  );
}
