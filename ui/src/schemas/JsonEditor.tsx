import { useEffect, useRef } from "react";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { HighlightStyle, bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { linter, lintGutter } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { schemaDiagnostics } from "./diagnostics";

interface Props {
  value: string;
  onChange: (text: string) => void;
  label: string;
}

// Colours from the theme's custom properties, so the editor follows light and dark.
const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--syn-key)" },
  { tag: tags.string, color: "var(--syn-string)" },
  { tag: tags.number, color: "var(--syn-number)" },
  { tag: [tags.bool, tags.null], color: "var(--syn-keyword)" },
]);

// The editor's look, in CodeMirror's own theme (the editor lives in a shadow
// root, see below); colours come from the app's custom properties, which
// inherit into it.
const look = EditorView.theme({
  "&": { maxHeight: "60vh", fontSize: "0.85rem", backgroundColor: "var(--panel)", color: "var(--fg)" },
  "&.cm-focused": { outline: "2px solid var(--focus)" },
  ".cm-scroller": { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace' },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-activeLine": { backgroundColor: "transparent" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
});

/** CodeMirror 6 over the schema's JSON text. `value` replaces the document when it differs (a visual edit). */
export function JsonEditor({ value, onChange, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    if (host.current === null) return;
    // CodeMirror injects its styles at run time. In the document that would be a
    // <style> element, which the window's CSP (style-src 'self') blocks; in a
    // shadow root it uses a constructed stylesheet, which the CSP allows.
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: "open" });
    const parent = document.createElement("div");
    shadow.replaceChildren(parent);
    const editor = new EditorView({
      parent,
      root: shadow,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          bracketMatching(),
          json(),
          syntaxHighlighting(highlight),
          linter((v) => schemaDiagnostics(v.state.doc.toString()), { delay: 250 }),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          look,
          EditorView.contentAttributes.of({ "aria-label": label, "data-testid": "schema-json" }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && update.transactions.some((t) => t.isUserEvent("input") || t.isUserEvent("delete") || t.isUserEvent("undo") || t.isUserEvent("redo") || t.isUserEvent("move"))) {
              onChangeRef.current(update.state.doc.toString());
            }
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is created once; later values arrive through the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    const current = editor.state.doc.toString();
    if (current !== value) {
      editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} className="json-editor" />;
}
