import { useEffect, useRef, useState } from "react";
import { describeError } from "../format";
import type { PageBox, PageWord } from "../ipc";
import { boxStyle } from "./evidence";
import type { ExtractSource } from "./source";

interface Props {
  source: Pick<ExtractSource, "pageWords">;
  path: string;
  /** 1-based: the page shown. */
  page: number;
  /** The selected value's place on this page, if it has one here. */
  box: PageBox | null;
  /** Changes when another value or place is selected: the box is brought into view again. */
  boxKey: string;
  /** A word clicked; `line`: shift-click, the whole line meant. */
  onWord: (word: PageWord, words: readonly PageWord[], line: boolean) => void;
}

type Words = { state: "loading" } | { state: "ready"; words: PageWord[] } | { state: "failed"; error: string };

/**
 * Over the page's picture: the selected value's box, and each word of the
 * page as a transparent button, so a click puts that word into the value.
 */
export function PageOverlay({ source, path, page, box, boxKey, onWord }: Props) {
  const boxElement = useRef<HTMLDivElement>(null);
  const [words, setWords] = useState<Words>({ state: "loading" });

  useEffect(() => {
    let live = true;
    setWords({ state: "loading" });
    source.pageWords(path, page).then(
      (found) => live && setWords({ state: "ready", words: found.words }),
      (error: unknown) => live && setWords({ state: "failed", error: describeError(error) }),
    );
    return () => {
      live = false;
    };
  }, [source, path, page]);

  // The box may be far down a tall page: centre it in whatever scrolls.
  useEffect(() => {
    boxElement.current?.scrollIntoView?.({ block: "center" });
  }, [boxKey, box !== null]);

  const all = words.state === "ready" ? words.words : [];
  return (
    <div className="page-overlay" data-testid="page-overlay" data-words={words.state}>
      {all.map((word, i) => (
        <button
          // Words repeat on a page; their order on it does not change.
          key={i}
          type="button"
          // Hundreds of words would each be a tab stop; the value's box is the keyboard's way in.
          tabIndex={-1}
          className="page-word"
          data-testid="page-word"
          aria-label={word.text}
          title={`${word.text} (shift-click: the whole line)`}
          style={boxStyle(word.box)}
          onClick={(e) => onWord(word, all, e.shiftKey)}
        />
      ))}
      {box !== null && <div ref={boxElement} className="evidence-box" data-testid="evidence-box" style={boxStyle(box)} />}
      {words.state === "failed" && <p className="page-words-error small" role="note">No words to click: {words.error}</p>}
    </div>
  );
}
