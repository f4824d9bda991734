// Types for the browser suite's IPC mocks (mock-ipc.js,
// mock-ipc-workflows-chat-transcripts.js, mock-ipc-evaluate.js). The mocks
// stay plain scripts, injected into the page as text (browser.mjs), so they
// are checked as JavaScript (`// @ts-check`, e2e/tsconfig.json, run by
// `npm run build`): each mock's `commands` is a `MockCommands`, so an answer
// whose shape differs from the generated bindings (src/bindings, through
// `CommandResults` in src/ipc.ts) fails the type check, not a test.
import type {
  CommandResults,
  EvalRunSummary,
  EvalRunView,
  IpcError,
  JsonValue,
  LabelledSetSummary,
  LocalModel,
  LocalServerStatus,
  PageWord,
  Price,
  Settings,
  UsageReport,
} from "../src/ipc";
import type { FieldEvidence } from "../src/bindings/FieldEvidence";
import type { JobState } from "../src/bindings/JobState";
import type { RowStatus } from "../src/bindings/RowStatus";
import type { WorkflowRunSummary } from "../src/bindings/WorkflowRunSummary";
import type { StepView } from "../src/bindings/StepView";
import type { SessionView } from "../src/bindings/SessionView";
import type { MessageView } from "../src/bindings/MessageView";
import type { CutReplyView } from "../src/bindings/CutReplyView";

declare global {
  /**
   * How a test tunes the mocks (`app.open(scenario)`): one object, given to
   * all three. The keys are described in e2e/README.md; a value that is an
   * answer (or part of one) is typed with its binding.
   */
  interface MockScenario {
    // mock-ipc.js
    firstRun?: boolean;
    pickFiles?: string[];
    saveCancelled?: boolean;
    answers?: Record<string, any>;
    failures?: Record<string, { error: string; code: string; times?: number }>;
    evidence?: Record<string, FieldEvidence[]>;
    words?: Record<string, PageWord[][]>;
    holdJobs?: boolean;
    eventDelay?: number;
    latency?: number;
    library?: { name: string; versions: MockSchema[] }[];
    settings?: Settings;
    keychain?: string[];
    models?: Record<string, string[]>;
    pastJobs?: { schemaName: string; files: string[]; status?: JobState; done?: number; revisions?: { position: number; path: string[]; value: JsonValue }[] }[];
    serverStates?: LocalServerStatus[];
    holdServerStates?: boolean;
    localModels?: LocalModel[];
    pickModels?: (string | null)[];
    damagedModels?: Record<string, string>;
    holdLocalRestart?: boolean;
    failingModels?: Record<string, string>;
    holdCatalogue?: boolean;
    suggestionFails?: boolean;
    // mock-ipc-workflows-chat-transcripts.js
    workflowFiles?: Record<string, string>;
    pickFolder?: string;
    stepScript?: Record<string, Partial<Pick<StepView, "status" | "stdout" | "stderr" | "outputs" | "error">> & { delay?: number }>;
    stepDelay?: number;
    holdSteps?: boolean;
    commandsAllowed?: boolean;
    chatDelay?: number;
    holdChat?: number;
    longSession?: number;
    interruptedRun?: boolean;
    cutReply?: { prompt: string; reply: string };
    fileContents?: Record<string, string>;
    callRevisions?: { id: string; parentId: string; output: unknown }[];
    // mock-ipc-evaluate.js
    labelledSets?: LabelledSetSummary[];
    evalView?: EvalRunView;
    evalHistory?: (EvalRunSummary & { setName?: string })[];
    usage?: UsageReport;
    saveSetError?: IpcError;
    prices?: Omit<Price, "source">[];
    defaultPrices?: Omit<Price, "source">[];
  }

  /** What a mock answers `C` with: its binding; `null` for a command that returns nothing (Tauri sends `null`). */
  type MockAnswer<C extends keyof CommandResults> = CommandResults[C] extends void ? null : CommandResults[C];

  /**
   * A mock's commands, each answering with its binding. The arguments are
   * what `src/ipc.ts` sends; they have no binding of their own (a command's
   * arguments are its Rust parameters), so they are not typed here.
   */
  type MockCommands = {
    [C in keyof CommandResults]?: (args: any) => MockAnswer<C> | Promise<MockAnswer<C>>;
  };

  /** Tauri's event plugin, which `@tauri-apps/api/event` calls (no binding: it is Tauri's). */
  type EventPluginCommands = {
    "plugin:event|listen": (args: { event: string; handler: number }) => number;
    "plugin:event|unlisten": (args: { event: string; eventId: number }) => null;
  };

  /** A schema as the mocks walk it (a JSON Schema object; its binding is `JsonValue`, which has no fields to walk). */
  type MockSchema = any;

  /** An extraction job as mock-ipc.js keeps it; `jobView` makes its `JobView`. */
  interface MockJob {
    id: string;
    schemaName: string;
    schemaVersion: number;
    schema: MockSchema;
    providerId: string | null;
    models: string[];
    status: JobState;
    createdAt: number;
    finishedAt: number | null;
    /** The next message index on the job's channel. */
    nextIndex: number;
    cancelled: boolean;
    /** Held after its first document started (scenario.holdJobs). */
    hold: boolean;
    /** How many times it ran (a resume is a run). */
    runs: number;
    rows: MockRow[];
    /** A job made for an evaluation's candidate (mock-ipc-evaluate.js). */
    evaluation?: boolean;
  }

  /** A job's document as mock-ipc.js keeps it; `rowView` makes its `JobRow`. */
  interface MockRow {
    position: number;
    path: string;
    status: RowStatus;
    modelValues: any;
    revised: any;
    error: string | null;
    errorCode: string | null;
    inputTokens: number;
    outputTokens: number;
    callId: string | null;
    evidence: FieldEvidence[];
    checked: string[];
  }

  /** A workflow run as mock-ipc-workflows-chat-transcripts.js keeps it. */
  interface MockRun extends WorkflowRunSummary {
    steps: StepView[];
    /** Stopped by cancel_workflow_run: the steps not yet run are `cancelled`. */
    cancelled?: boolean;
    params?: unknown;
  }

  /** A chat session as mock-ipc-workflows-chat-transcripts.js keeps it. */
  interface MockSession {
    view: Omit<SessionView, "approvals" | "cutReply">;
    messages: MessageView[];
    /** Tool calls waiting for approval. */
    pending: (ApprovalViewCall & { reads: string | null })[];
    cutReply: CutReplyView | null;
    /** A suspended turn's messages (its user message's parts, the assistant's), held aside until it resumes. */
    held?: [Record<string, unknown>[], Record<string, unknown>[]] | null;
  }

  /** A tool call of the model, as a message part and an approval carry it. */
  interface ApprovalViewCall {
    id: string;
    name: string;
    arguments: string;
  }

  /** A chat turn streaming; `stop` (stop_chat_turn) settles `stoppedNow`. */
  interface MockTurn {
    stopped: boolean;
    stoppedNow: Promise<unknown>;
    stop: () => void;
  }

  /** One recorded IPC call (`__unknown__`: a command no mock knows). */
  interface MockCall {
    cmd: string;
    args: any;
  }

  /** What @tauri-apps/api calls in the page, as mock-ipc.js installs it. */
  interface MockTauriInternals {
    metadata: unknown;
    transformCallback(callback: ((data: any) => unknown) | undefined, once?: boolean): number;
    unregisterCallback(id: number): void;
    runCallback(id: number, data: unknown): void;
    callbacks: Map<number, (data: any) => unknown>;
    convertFileSrc(path: string, protocol?: string): string;
    invoke(cmd: string, args?: any): Promise<unknown>;
  }

  interface Window {
    __TAURI_INTERNALS__: MockTauriInternals;
    __TAURI_EVENT_PLUGIN_INTERNALS__: { unregisterListener(event: string, id: number): void };
    isTauri: boolean;
    __siftMock: {
      calls: MockCall[];
      emit(event: string, payload: unknown): void;
      listeners: Map<string, number[]>;
      drop(paths: string[]): void;
      jobs: Map<string, MockJob>;
      library: Map<string, { version: number; schema: MockSchema; createdAt: number }[]>;
      inflight: number;
      releaseJobs(): void;
      releaseLocalRestart(): void;
      releaseCatalogue(): void;
      nextServerState(): void;
    };
    __siftWorkflowsChatTranscriptsMock: object;
    __siftEvaluateMock: object;
  }
}
