import { useEffect, useMemo, useRef, useState } from "react";
import { appSources } from "./backend";
import { ChatScreen } from "./chat/ChatScreen";
import { TranscriptsScreen } from "./transcripts/TranscriptsScreen";
import { WorkflowsFolder } from "./frame/WorkflowsFolder";
import { ExtractScreen } from "./extract/ExtractScreen";
import { EvaluateScreen } from "./evaluate/EvaluateScreen";
import { UsageScreen } from "./usage/UsageScreen";
import { SchemasScreen, type SchemaDraft } from "./schemas/SchemasScreen";
import { SettingsScreen } from "./settings/SettingsScreen";
import { SCREENS, screenForKey, type ScreenId } from "./frame/screens";
import { ScreenBoundary } from "./frame/ScreenBoundary";
import { Sidebar } from "./frame/Sidebar";
import { useTheme } from "./frame/useTheme";

/** The window: the sidebar and one section at a time (the others stay mounted, so a running job keeps its table). */
export function App() {
  const [screen, setScreen] = useState<ScreenId>("extract");
  const [version, setVersion] = useState<string | null>(null);
  // Bumped when the schema library changes, so Extract's schema list follows (and picks a schema just saved).
  const [library, setLibrary] = useState<{ revision: number; saved: string | null }>({ revision: 0, saved: null });
  // Bumped by Extract's "New schema…": Schemas starts a new one.
  const [newSchemaRequest, setNewSchemaRequest] = useState(0);
  // A schema the model suggested on Extract, for Schemas to open as an unsaved draft; `n` counts the requests.
  const [draft, setDraft] = useState<SchemaDraft | null>(null);
  const { preference, theme, cycle } = useTheme();
  // Workflows, Chat and Transcripts mount on their first visit and then stay (a run or a reply goes on).
  const [visited, setVisited] = useState<ReadonlySet<ScreenId>>(new Set(["extract", "schemas", "settings"]));
  // The transcript Extract's "Open the transcript" asked for; `n` counts the requests, so asking again for the same one reopens it.
  const [transcript, setTranscript] = useState<{ id: string; n: number } | null>(null);
  const current = useRef(screen);
  current.current = screen;
  // Every screen reaches the backend through its source, built here once.
  const sources = useMemo(() => appSources({ chatAcceptsDrops: () => current.current === "chat" }), []);

  useEffect(() => {
    sources.frame.appVersion().then(setVersion, () => setVersion(null));
  }, [sources]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const target = screenForKey(e.key);
      if (target !== null) {
        e.preventDefault();
        navigate(target);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  function openTranscript(callId: string) {
    setTranscript((t) => ({ id: callId, n: (t?.n ?? 0) + 1 }));
    navigate("transcripts");
  }

  function navigate(id: ScreenId) {
    setScreen(id);
    setVisited((v) => (v.has(id) ? v : new Set([...v, id])));
    // Move focus to the section's heading so keyboard and screen-reader users land in it.
    requestAnimationFrame(() => document.getElementById(`${id}-title`)?.focus());
  }

  return (
    <div className="app">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <Sidebar current={screen} onNavigate={navigate} preference={preference} theme={theme} onCycleTheme={cycle} version={version} source={sources.frame} />
      <main id="content" className="content" aria-label={SCREENS.find((s) => s.id === screen)?.label}>
        <div hidden={screen !== "extract"}>
          <ScreenBoundary name="Extract">
            <ExtractScreen
              source={sources.extract}
              active={screen === "extract"}
              libraryRevision={library.revision}
              savedSchema={library.saved}
              onNewSchema={() => {
                setNewSchemaRequest((n) => n + 1);
                navigate("schemas");
              }}
              onOpenTranscript={openTranscript}
              onSuggestedSchema={(suggestion, file) => {
                setDraft((d) => ({ n: (d?.n ?? 0) + 1, name: suggestion.name, schema: suggestion.schema, file }));
                navigate("schemas");
              }}
              onOpenSettings={() => navigate("settings")}
            />
          </ScreenBoundary>
        </div>
        <div hidden={screen !== "schemas"}>
          <ScreenBoundary name="Schemas">
            <SchemasScreen
              source={sources.schemas}
              active={screen === "schemas"}
              newSchemaRequest={newSchemaRequest}
              draft={draft}
              onLibraryChanged={(saved) => setLibrary((l) => ({ revision: l.revision + 1, saved }))}
            />
          </ScreenBoundary>
        </div>
        <div hidden={screen !== "settings"}>
          <ScreenBoundary name="Settings">
            <SettingsScreen source={sources.settings} active={screen === "settings"} />
          </ScreenBoundary>
        </div>
        {visited.has("workflows") && (
          <div hidden={screen !== "workflows"}>
            <ScreenBoundary name="Workflows">
              <WorkflowsFolder source={sources.workflows} />
            </ScreenBoundary>
          </div>
        )}
        {visited.has("chat") && (
          <div hidden={screen !== "chat"}>
            <ScreenBoundary name="Chat">
              <ChatScreen source={sources.chat} />
            </ScreenBoundary>
          </div>
        )}
        {visited.has("transcripts") && (
          <div hidden={screen !== "transcripts"}>
            <ScreenBoundary name="Transcripts">
              <TranscriptsScreen key={transcript?.n ?? 0} source={sources.transcripts} initial={transcript?.id} />
            </ScreenBoundary>
          </div>
        )}
        {visited.has("evaluate") && (
          <div hidden={screen !== "evaluate"}>
            <ScreenBoundary name="Evaluate">
              <EvaluateScreen source={sources.evaluate} active={screen === "evaluate"} onOpenTranscript={openTranscript} />
            </ScreenBoundary>
          </div>
        )}
        {visited.has("usage") && (
          <div hidden={screen !== "usage"}>
            <ScreenBoundary name="Usage">
              <UsageScreen source={sources.usage} active={screen === "usage"} />
            </ScreenBoundary>
          </div>
        )}
      </main>
    </div>
  );
}
