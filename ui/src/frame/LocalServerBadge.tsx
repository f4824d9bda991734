import { useEffect, useState } from "react";
import type { LocalServerStatus } from "../ipc";
import type { FrameSource } from "./source";

const LABELS: Record<LocalServerStatus["state"], string> = {
  stopped: "stopped",
  starting: "starting…",
  running: "ready",
  failed: "failed",
};

/** The local model server's state, asked again every few seconds (faster while it starts). */
export function LocalServerBadge({ source }: { source: FrameSource }) {
  const [server, setServer] = useState<LocalServerStatus | null>(null);

  useEffect(() => {
    let live = true;
    let timer = 0;
    const poll = () => {
      source.localServer().then(
        (s) => {
          if (!live) return;
          setServer(s);
          timer = window.setTimeout(poll, s.state === "starting" ? 1000 : 10000);
        },
        () => {
          if (live) setServer(null);
        },
      );
    };
    poll();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [source]);

  if (server === null) return null;
  return (
    <span className={`small server-${server.state}`} role="status" data-testid="local-server" title={server.state === "failed" ? server.message : undefined}>
      Local model: {LABELS[server.state]}
    </span>
  );
}
