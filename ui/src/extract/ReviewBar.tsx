import { useEffect, useRef, useState } from "react";
import { evidenceFor, keyText, needsReviewText, statusText, type ReviewItem } from "./evidence";
import type { Review } from "./useReview";
import type { DocRow } from "./table";

/** Under the progress line: how many values need a look, and the way into review mode. */
export function ReviewLine({ needsReview, canReview, onReview }: { needsReview: number; canReview: boolean; onReview: () => void }) {
  const text = needsReviewText(needsReview);
  return (
    <div className="row review-line">
      {text !== null && <span className="needs-review" data-testid="needs-review">{text}</span>}
      <button
        type="button"
        onClick={onReview}
        disabled={!canReview}
        data-testid="review"
        title="Walk the values not found or found only in another form, one by one (r in the table)"
      >
        Review
      </button>
    </div>
  );
}

interface Props {
  review: Review;
  rows: readonly DocRow[];
  /** Leaving review mode (Escape, or Done at the end). */
  onLeave: () => void;
}

/** Review mode: the value under review with its box, from the keyboard. */
export function ReviewBar({ review, rows, onLeave }: Props) {
  const item = review.current;
  const row = item === null ? undefined : rows.find((r) => r.position === item.position);
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (item === null) done.current?.focus();
  }, [item]);
  return (
    <section
      className="review-bar card"
      aria-label="Review"
      data-testid="review-bar"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onLeave();
        }
      }}
    >
      {item === null || row === undefined ? (
        <div className="row spread">
          <p role="status" data-testid="review-done">All values reviewed</p>
          <button type="button" ref={done} onClick={onLeave}>Done</button>
        </div>
      ) : (
        // A fresh editor per value: its text starts as the value shown.
        <ReviewEditor key={`${item.position}:${item.key}`} review={review} row={row} item={item} onLeave={onLeave} />
      )}
    </section>
  );
}

function ReviewEditor({ review, row, item, onLeave }: { review: Review; row: DocRow; item: ReviewItem; onLeave: () => void }) {
  const shown = keyText(row, item.key);
  const [text, setText] = useState(shown);
  const box = useRef<HTMLInputElement>(null);
  // Typing replaces the value; Enter alone accepts it.
  useEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, []);
  const evidence = evidenceFor(row, item.key);
  return (
    <>
      <p className="review-what">
        <strong data-testid="review-key">{item.key}</strong> of <span data-testid="review-file">{row.name}</span>
        {evidence !== null && <span className="muted"> · {statusText(evidence.status)}</span>}
        <span className="muted small"> · <span data-testid="review-left">{review.left} left</span></span>
      </p>
      <label className="review-input">
        <span className="visually-hidden">Value of {item.key}</span>
        <input
          ref={box}
          value={text}
          spellCheck={false}
          // Read-only, not disabled, while saving: a disabled box would lose the focus.
          readOnly={review.busy}
          aria-invalid={review.error !== null}
          aria-describedby="review-keys"
          data-testid="review-input"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void review.submit(text);
            } else if (e.key === "Tab" && !e.shiftKey) {
              e.preventDefault();
              review.skip();
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              onLeave();
            }
          }}
        />
      </label>
      <p id="review-keys" className="muted small">Enter accepts · type a value and Enter corrects · Tab skips · Escape leaves</p>
      {review.error !== null && <p className="error small" role="alert" data-testid="review-error">{review.error}</p>}
    </>
  );
}
