import { useEffect, useState } from "react";
import { describeError, formatVersion } from "./format";
import { AskPanel } from "./AskPanel";
import { appInfo, isDesktopApp, type AppInfo } from "./ipc";

type Version =
  | { state: "loading" }
  | { state: "ready"; info: AppInfo }
  | { state: "unavailable"; reason: string };

function useAppVersion(): Version {
  const [version, setVersion] = useState<Version>(() =>
    isDesktopApp()
      ? { state: "loading" }
      : { state: "unavailable", reason: "not running inside the desktop app" },
  );

  useEffect(() => {
    if (!isDesktopApp()) return;
    let live = true;
    appInfo().then(
      (info) => live && setVersion({ state: "ready", info }),
      (error: unknown) => live && setVersion({ state: "unavailable", reason: describeError(error) }),
    );
    return () => {
      live = false;
    };
  }, []);

  return version;
}

function Mark() {
  return (
    <svg className="mark" viewBox="0 0 64 64" aria-hidden="true">
      <defs>
        <linearGradient id="mark-gradient" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#0e7490" />
        </linearGradient>
      </defs>
      <rect x="2" y="2" width="60" height="60" rx="14" fill="url(#mark-gradient)" />
      <path d="M15.5 22.5h33L35.75 37.75V50.75h-7.5V37.75z" fill="#fff" />
      <g fill="#fff" fillOpacity="0.78">
        <circle cx="24.25" cy="14.75" r="2.4" />
        <circle cx="32" cy="12.75" r="2.4" />
        <circle cx="39.75" cy="14.75" r="2.4" />
      </g>
    </svg>
  );
}

function VersionBadge({ version }: { version: Version }) {
  switch (version.state) {
    case "loading":
      return <span className="badge badge-muted">loading…</span>;
    case "ready":
      return (
        <span className="badge" title={`${version.info.name} ${version.info.version}`}>
          {formatVersion(version.info.version)}
        </span>
      );
    case "unavailable":
      return (
        <span className="badge badge-muted" title={version.reason}>
          version unavailable
        </span>
      );
  }
}

export function App() {
  const version = useAppVersion();
  const name = version.state === "ready" ? version.info.name : "Sift";

  return (
    <main className="page">
      <header className="hero">
        <Mark />
        <div>
          <h1>
            {name} <VersionBadge version={version} />
          </h1>
          <p className="tagline">Turn documents into typed data with language models.</p>
        </div>
      </header>
      {version.state === "unavailable" && (
        <p className="note" role="status">
          Version unavailable: {version.reason}.
        </p>
      )}
      <AskPanel />
    </main>
  );
}
