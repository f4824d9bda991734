import { useEffect, useRef, useState } from "react";
import type { ExtractSource } from "./source";

/** Files dropped on the window (paths from Tauri's native drop events). True while something is dragged over. */
export function useFileDrop(source: Pick<ExtractSource, "onFileDrop">, enabled: boolean, onDrop: (paths: string[]) => void): boolean {
  const [over, setOver] = useState(false);
  const handler = useRef(onDrop);
  handler.current = onDrop;
  const live = useRef(enabled);
  live.current = enabled;

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let stopped = false;
    source
      .onFileDrop((event) => {
        if (!live.current) return;
        if (event.kind === "enter" || event.kind === "over") setOver(true);
        else setOver(false);
        if (event.kind === "drop" && event.paths.length > 0) handler.current(event.paths);
      })
      .then(
        (stop) => {
          if (stopped) stop();
          else unlisten = stop;
        },
        () => undefined,
      );
    return () => {
      stopped = true;
      unlisten?.();
    };
  }, [source]);

  return over && enabled;
}
