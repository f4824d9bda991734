import { useEffect, useRef } from "react";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Annotation, EditorState, StateEffect, StateField, type Range } from "@codemirror/state";
import { Decoration, EditorView, keymap, lineNumbers, type DecorationSet } from "@codemirror/view";

interface Props {
  value: string;
  onChange: (text: string) => void;
  /** Problems placed in the text (offsets into `value`). */
  diagnostics: Diagnostic[];
  /** The selected step's span: its lines are marked and scrolled into view. */
  reveal: { from: number; to: number } | null;
  /** The cursor moved to this offset (to select the step there). */
  onCursor: (offset: number) => void;
  label: string;
}

// As the schema editor (src/schemas/JsonEditor.tsx), the editor lives in a
// shadow root: CodeMirror's run-time styles become a constructed stylesheet,
// which the window's CSP (style-src 'self') allows, where a <style> would not be.
// Colours from the theme's custom properties, as the schema editor's.
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: "var(--syn-key)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--syn-string)" },
  { tag: tags.number, color: "var(--syn-number)" },
  { tag: [tags.bool, tags.null, tags.keyword], color: "var(--syn-keyword)" },
  { tag: [tags.lineComment, tags.comment], color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.meta, tags.separator], color: "var(--muted)" },
]);

/** The selected step's lines, marked; moved with edits. */
const markStep = StateEffect.define<{ from: number; to: number } | null>();
const stepLine = Decoration.line({ class: "cm-selectedStep" });
const selectedStep = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(markStep)) continue;
      if (effect.value === null) next = Decoration.none;
      else {
        const doc = tr.state.doc;
        const first = doc.lineAt(Math.min(effect.value.from, doc.length)).number;
        const last = doc.lineAt(Math.min(effect.value.to, doc.length)).number;
        const lines: Range<Decoration>[] = [];
        for (let n = first; n <= last; n++) lines.push(stepLine.range(doc.line(n).from));
        next = Decoration.set(lines);
      }
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

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
  ".cm-selectedStep": { backgroundColor: "var(--accent-soft)" },
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
          yaml(),
          syntaxHighlighting(highlight),
          selectedStep,
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
    if (editor === null) return;
    if (reveal === null) {
      editor.dispatch({ effects: markStep.of(null) });
      return;
    }
    const from = Math.min(reveal.from, editor.state.doc.length);
    // While the user types in the text, the view stays where it is.
    const effects = editor.hasFocus ? [markStep.of(reveal)] : [markStep.of(reveal), EditorView.scrollIntoView(from, { y: "center" })];
    editor.dispatch({ effects });
  }, [reveal?.from, reveal?.to]); // eslint-disable-line react-hooks/exhaustive-deps

  return <div ref={host} className="wf-yaml" />;
}
