// The browser suite's harness for the Workflows, Chat and Transcripts screens before the frame
// wires them: each screen over its in-memory source, picked by the URL hash.
// The test reaches the sources through window.__harness.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "../../src/styles.css";
import { demoWorkflowSource } from "../../src/workflows/demo";
import { WorkflowsScreen } from "../../src/workflows/WorkflowsScreen";
import { demoTranscriptSource } from "../../src/transcripts/demo";
import { TranscriptsScreen } from "../../src/transcripts/TranscriptsScreen";
import { demoChatSource } from "../../src/chat/demo";
import { ChatScreen } from "../../src/chat/ChatScreen";

const screen = location.hash.replace(/^#/, "") || "workflows";
const root = createRoot(document.getElementById("root") as HTMLElement);
const harness: Record<string, unknown> = {};
(window as unknown as { __harness: Record<string, unknown> }).__harness = harness;

if (screen === "workflows") {
  const source = demoWorkflowSource();
  harness.workflows = source;
  root.render(
    <StrictMode>
      <main className="content">
        <WorkflowsScreen source={source} folderLabel="~/flows" />
      </main>
    </StrictMode>,
  );
}

if (screen === "transcripts") {
  // Built before the first render, so a measurement of opening the long
  // transcript counts the screen's work, not the demo data's.
  const source = demoTranscriptSource(10_000);
  harness.transcripts = source;
  root.render(
    <StrictMode>
      <main className="content">
        <TranscriptsScreen source={source} />
      </main>
    </StrictMode>,
  );
}

if (screen === "chat") {
  const source = demoChatSource();
  harness.chat = source;
  root.render(
    <StrictMode>
      <main className="content">
        <ChatScreen source={source} />
      </main>
    </StrictMode>,
  );
}
