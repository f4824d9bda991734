import { useEffect, useRef } from "react";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Annotation, EditorSelection, EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";

interface Props {
  value: string;
  onChange: (text: string) => void;
  /** Problems placed in the text (offsets into `value`). */
  diagnostics: Diagnostic[];
  /** A span to show and select (the selected step), or null. */
  reveal: { from: number; to: number } | null;
  /** The cursor moved to this offset (to select the step there). */
  onCursor: (offset: number) => void;
  label: string;
}

// As the schema editor (src/schemas/JsonEditor.tsx), the editor lives in a
// shadow root: CodeMirror's run-time styles become a constructed stylesheet,
// which the window's CSP (style-src 'self') allows, where a <style> would not be.
/** Marks changes that came from outside (the canvas), which must not echo back. */
const external = Annotation.define<boolean>();

const look = EditorView.theme({
  "&": { height: "100%", fontSize: "0.82rem", backgroundColor: "var(--panel)", color: "var(--fg)" },
  "&.cm-focused": { outline: "2px solid var(--focus)" },
  ".cm-scroller": { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace', overflow: "auto" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-activeLine": { backgroundColor: "transparent" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground": { backgroundColor: "var(--accent-soft)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
});

function showProblems(editor: EditorView, diagnostics: Diagnostic[]) {
  const length = editor.state.doc.length;
  const clamped = diagnostics.map((d) => ({ ...d, from: Math.min(d.from, length), to: Math.min(Math.max(d.to, d.from), length) }));
  editor.dispatch(setDiagnostics(editor.state, clamped));
}

/** CodeMirror 6 over the workflow's YAML text. A new `value` replaces the document when it differs (an edit on the canvas). */
export function YamlEditor({ value, onChange, diagnostics, reveal, onCursor, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onCursor });
  callbacks.current = { onChange, onCursor };
  const problems = useRef(diagnostics);
  problems.current = diagnostics;

  useEffect(() => {
    if (host.current === null) return;
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: "open" });
    const parent = document.createElement("div");
    parent.style.height = "100%";
    shadow.replaceChildren(parent);
    const editor = new EditorView({
      parent,
      root: shadow,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          look,
          EditorView.contentAttributes.of({ "aria-label": label, "data-testid": "workflow-yaml" }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && !update.transactions.some((t) => t.annotation(external))) {
              callbacks.current.onChange(update.state.doc.toString());
            }
            if (update.selectionSet && update.view.hasFocus) callbacks.current.onCursor(update.state.selection.main.head);
          }),
        ],
      }),
    });
    view.current = editor;
    showProblems(editor, problems.current);
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; `value` changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [label]);

  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    const current = editor.state.doc.toString();
    if (current !== value) {
      // Replace only the changed middle, so the cursor and scroll stay put.
      let start = 0;
      while (start < current.length && start < value.length && current[start] === value[start]) start++;
      let endOld = current.length;
      let endNew = value.length;
      while (endOld > start && endNew > start && current[endOld - 1] === value[endNew - 1]) {
        endOld--;
        endNew--;
      }
      editor.dispatch({ changes: { from: start, to: endOld, insert: value.slice(start, endNew) }, annotations: external.of(true) });
    }
  }, [value]);

  // The problems come from outside (the engine's validate): set, not linted.
  useEffect(() => {
    if (view.current !== null) showProblems(view.current, diagnostics);
  }, [diagnostics]);

  useEffect(() => {
    const editor = view.current;
    if (editor === null || reveal === null || editor.hasFocus) return;
    const length = editor.state.doc.length;
    const from = Math.min(reveal.from, length);
    editor.dispatch({ selection: EditorSelection.range(from, Math.min(reveal.to, length)), effects: EditorView.scrollIntoView(from, { y: "center" }) });
  }, [reveal?.from, reveal?.to]); // eslint-disable-line react-hooks/exhaustive-deps

  return <div ref={host} className="wf-yaml" />;
}
